"""Exact arithmetic for MAC results: exact products and sums of float terms, exact integer rounding.

A float term is ``(-1)^sign * sig * 2^exp`` with an integer significand, held
as :class:`~tilesim.formats.Parts`. Products of two values are exact (FP64's
53-bit significands are split in 32-bit halves, so every partial significand
fits 64 bits). A sum of terms is exact in 32-bit limbs on the sum's lowest
exponent (a Kulisch accumulator, vectorised over results, :func:`exact_sum`),
and comes out as the top 64 bits and a sticky bit, ready for one rounding by
:func:`tilesim.formats.encode`. When all of an instruction's values sit close
enough together, float64 arithmetic is exact itself: :func:`float64_grid`
states and checks that condition.

Integers: :func:`round_shift` divides by a power of two with a rounding mode,
:func:`fit` wraps or clamps into a format's range; both work on int64 and on
Python-int (object) arrays alike.
"""

from __future__ import annotations

import numpy as np

from ..formats import Format, Parts
from ..formats.rounding import FINITE, INF, NAN, bit_length

__all__ = ["products", "exact_sum", "float64_grid", "round_shift", "fit", "cat", "index", "zeros"]

U64 = np.uint64
M32 = U64(0xFFFFFFFF)
_I64_MAX = np.iinfo(np.int64).max


def cat(*ps: Parts) -> Parts:
    """Concatenate Parts along the last (term) axis."""
    return Parts(*(np.concatenate([np.asarray(getattr(p, f)) for p in ps], -1) for f in Parts._fields))


def index(p: Parts, idx) -> Parts:
    """Index every field of Parts alike."""
    return Parts(*(np.asarray(f)[idx] for f in p))


def zeros(shape) -> Parts:
    """+0 as Parts."""
    return Parts.finite(np.zeros(shape, bool), U64(0), 0)


def products(a: Parts, b: Parts, split: bool) -> Parts:
    """Exact products of broadcastable Parts, with a trailing axis of partial terms.

    Without ``split`` each product is one term (significands of up to 32 bits
    each). With ``split`` (FP64) each is four: the significands' 32-bit halves
    multiplied pairwise, so that every partial significand fits 64 bits.
    NaN times anything, and Inf times zero, are NaN; Inf times non-zero is Inf.
    """
    sign = a.sign ^ b.sign
    za = (a.cls == FINITE) & (a.sig == 0)
    zb = (b.cls == FINITE) & (b.sig == 0)
    nan = (a.cls == NAN) | (b.cls == NAN) | ((a.cls == INF) & zb) | ((b.cls == INF) & za)
    inf = ((a.cls == INF) | (b.cls == INF)) & ~nan
    cls = np.where(nan, NAN, np.where(inf, INF, FINITE)).astype(np.int8)
    e = a.exp + b.exp
    if split:
        ah, al, bh, bl = a.sig >> U64(32), a.sig & M32, b.sig >> U64(32), b.sig & M32
        sig = np.stack(np.broadcast_arrays(ah * bh, ah * bl, al * bh, al * bl), -1)
        exp = np.stack(np.broadcast_arrays(e + 64, e + 32, e + 32, e), -1)
    else:
        sig, exp = (a.sig * b.sig)[..., None], e[..., None]
    shape = sig.shape
    return Parts(np.broadcast_to(sign[..., None], shape), sig, exp, np.zeros(shape, bool),
                 np.broadcast_to(cls[..., None], shape))


def exact_sum(t: Parts, rdn: bool) -> Parts:
    """The exact sum over the last axis of ``t``, as Parts ready for one rounding.

    Specials: any NaN, or +Inf with -Inf, gives NaN; otherwise any Inf gives
    that Inf. An exact zero is -0 when every term is -0, or when rounding is
    toward -inf and not every term is +0; else +0 (IEEE 754 §6.3, read for a
    sum of many terms).
    """
    shape, n_terms = t.sign.shape[:-1], t.sign.shape[-1]
    sign, sig, exp, cls = (np.asarray(x).reshape(-1, n_terms) for x in (t.sign, t.sig, t.exp, t.cls))
    fin = cls == FINITE
    live = fin & (sig != 0)
    out_sign, out_sig, out_exp, sticky = _limb_sum(sign, sig, exp, live)
    zero_terms = fin & ~live
    zero_sign = np.all(zero_terms & sign, 1) | (rdn & ~np.all(zero_terms & ~sign, 1))
    out_sign = np.where(out_sig == 0, zero_sign, out_sign)
    inf_t = cls == INF
    pos_inf, neg_inf = np.any(inf_t & ~sign, 1), np.any(inf_t & sign, 1)
    nan = np.any(cls == NAN, 1) | (pos_inf & neg_inf)
    inf = (pos_inf | neg_inf) & ~nan
    out_sign = np.where(inf, neg_inf, out_sign)
    out_cls = np.where(nan, NAN, np.where(inf, INF, FINITE)).astype(np.int8)
    return Parts(*(x.reshape(shape) for x in (out_sign, out_sig, out_exp, sticky, out_cls)))


def _limb_sum(sign, sig, exp, live):
    """Exact signed sums of rows of terms ``±sig * 2**exp`` (n, T), as sign, top 64 bits, exponent, sticky.

    Each row is placed on its lowest live exponent in 32-bit limbs held in
    int64 (L limbs, enough for the row with the widest span). A term's
    significand, shifted by up to 31 bits, spreads over three limbs as chunks
    below 2**33. The chunks are summed per limb by ``np.bincount`` in float64,
    which is exact: a limb receives at most one chunk per term, so every
    partial sum is an integer below T * 2**33 < 2**53. Carries then propagate
    limb by limb (vectorised over rows), the sign comes from the top limb, and
    the top 64 bits of the magnitude become the significand, everything below
    them the sticky bit.
    """
    n, n_terms = sign.shape
    has = live.any(1)
    lo_exp = np.where(has, np.where(live, exp, _I64_MAX).min(1), 0)
    top = np.where(live, exp + bit_length(sig), lo_exp[:, None]).max(1)
    need = int((top - lo_exp).max(initial=0)) + n_terms.bit_length() + 1
    n_limbs = -(-need // 32) + 3
    d = np.where(live, exp - lo_exp[:, None], 0)
    li = d >> 5
    r = (d & 31).astype(U64)
    lo, hi = (sig & M32) << r, (sig >> U64(32)) << r
    chunks = ((lo & M32), (lo >> U64(32)) + (hi & M32), hi >> U64(32))
    weight = np.where(live, np.where(sign, -1.0, 1.0), 0.0)
    rows = np.arange(n)[:, None]
    idx = np.concatenate([((li + j) * n + rows).ravel() for j in range(3)])
    w = np.concatenate([(c.astype(np.float64) * weight).ravel() for c in chunks])
    limbs = np.bincount(idx, weights=w, minlength=n_limbs * n)[: n_limbs * n].reshape(n_limbs, n).astype(np.int64)
    _carry(limbs)
    neg = limbs[-1] < 0
    if neg.any():
        limbs[:, neg] = -limbs[:, neg]
        _carry(limbs)
    nz = limbs != 0
    h = n_limbs - 1 - np.argmax(nz[::-1], axis=0)  # highest non-zero limb (L-1 when all are zero)
    cols = np.arange(n)

    def limb(i):
        return np.where(i >= 0, limbs[np.maximum(i, 0), cols], 0).astype(U64)

    t, m, low = limb(h), limb(h - 1), limb(h - 2)
    b = np.maximum(bit_length(t), 1)
    bu = b.astype(U64)
    out = (t << (U64(64) - bu)) | (m << (U64(32) - bu)) | (low >> bu)
    below = (np.arange(n_limbs)[:, None] < (h - 2)[None, :]) & nz
    sticky = ((low & ((U64(1) << bu) - U64(1))) != 0) | below.any(0)
    return neg, out, lo_exp + 32 * (h - 2) + b, sticky


def _carry(limbs: np.ndarray) -> None:
    """Propagate carries so that every limb but the top one is in [0, 2**32)."""
    for j in range(limbs.shape[0] - 1):
        c = limbs[j] >> 32
        limbs[j] -= c << 32
        limbs[j + 1] += c


def float64_grid(va: np.ndarray, vb: np.ndarray, vc: np.ndarray, ft: Format, acc: Format) -> int | None:
    """The ``q`` for which float64 computes a step-wise instruction exactly, or ``None``.

    ``va``, ``vb``, ``vc``: the operands' values (exact in float64). float64 is
    exact when all values are finite, products are exact (significands of at
    most 26 bits), every term is a multiple of ``2**q`` (q the lowest quantum
    among the products and C) and every partial sum is below ``2**(q + 53)``:
    then each partial sum, in any order, is a float64 number and no addition
    rounds. The step-wise models add one product at a time and check before
    each step that the rounded running value is still a multiple of ``2**q``
    below ``2**(q + 52)`` (:func:`_on_grid`), a single product being below that
    too. ``fused`` uses the per-result form, :func:`float64_fused_exact`.
    """
    if ft.man_bits + 1 > 26 or not all(np.isfinite(v).all() for v in (va, vb, vc)):
        return None

    def span(v, f):
        """(lowest quantum, top) exponents: |v| < 2**top, v a multiple of 2**low."""
        nz = v != 0
        if not nz.any():
            return None
        _, e = np.frexp(v[nz])  # 2**(e-1) <= |v| < 2**e; f's spacing there is 2**(max(e-1, emin) - m)
        return int((np.maximum(e - 1, f.emin) - f.man_bits).min()), int(e.max())

    ra, rb, rc = span(va, ft), span(vb, ft), span(vc, acc)
    lows, tops = [], []
    if ra and rb:  # |a_k b_k| < 2**(ta + tb)
        lows.append(ra[0] + rb[0])
        tops.append(ra[1] + rb[1])
    if rc:
        lows.append(rc[0])
        tops.append(rc[1])
    if not lows:
        return 0
    q = min(lows)
    return q if max(tops) + 1 - q <= 53 else None


def float64_fused_exact(va: np.ndarray, vb: np.ndarray, vc: np.ndarray, ft: Format, acc: Format) -> np.ndarray:
    """Which ``fused`` results (S, M, N) float64 computes exactly.

    The test is :func:`float64_grid`'s (finite terms, a common quantum
    ``2**q``, partial sums below ``2**(q + 53)``; k products stay below
    ``2**(ta + tb + ceil(log2 k))``) made per result, with the bounds of a result's A row and B row
    (lowest quantum, top exponent over k) in place of each product's: that only
    widens the span, so a result that passes is exact. Results that fail go to
    the limbs on their own, and a few wide results no longer send a whole
    batch there.
    """
    far = 1 << 20  # beyond every exponent: zeros take no part in the bounds

    def bounds(v, f):
        finite = np.isfinite(v)
        live = finite & (v != 0)
        with np.errstate(invalid="ignore"):
            _, e = np.frexp(np.where(live, v, 1.0))
        return (np.where(live, np.maximum(e - 1, f.emin) - f.man_bits, far), np.where(live, e, -far), ~finite)

    (la, ta, xa), (lb, tb, xb) = bounds(va, ft), bounds(vb, ft)
    lc, tc, xc = bounds(vc, acc)
    k = va.shape[-1]
    low = np.minimum(la.min(-1)[..., :, None] + lb.min(-1)[..., None, :], lc)
    top = np.maximum(ta.max(-1)[..., :, None] + tb.max(-1)[..., None, :] + max(k - 1, 0).bit_length(), tc)
    special = xa.any(-1)[..., :, None] | xb.any(-1)[..., None, :] | xc
    return ~special & (top + 1 - low <= 53)


def round_shift(x, shift: int, rounding: str):
    """``x / 2**shift`` rounded to an integer with ``rounding``; and whether anything was dropped.

    Works on int64 and on object (Python int) arrays alike: ``>>`` floors.
    """
    if shift == 0:
        return x, False
    q = x >> shift
    r = x - (q << shift)
    half = 1 << (shift - 1)
    if rounding == "rne":
        inc = (r > half) | ((r == half) & ((q & 1) == 1))
    elif rounding == "rup":
        inc = r > 0
    elif rounding == "rtz":
        inc = (r > 0) & (x < 0)
    else:  # rdn
        inc = np.zeros(np.shape(x), bool)
    return np.where(inc, q + 1, q), bool(np.any(r != 0))


def fit(v, acc: Format, saturate: bool):
    """Wrap ``v`` modulo 2**bits into the accumulator's range, or clamp it; and whether it clamped."""
    lo, hi = acc.int_min, acc.int_max
    if saturate:
        under, over = v < lo, v > hi
        return np.where(under, lo, np.where(over, hi, v)), bool(np.any(under | over))
    if v.dtype == object or acc.bits < 64:  # int64 sums are below 2**62: nothing to wrap at 64 bits
        v = ((v - lo) & ((1 << acc.bits) - 1)) + lo  # the residue modulo 2**bits, as % gives it, and faster
    return v, False
