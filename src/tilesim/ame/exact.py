"""Exact multiply-accumulate under the three accumulation models.

Every product and every sum is exact; the only roundings are the ones a model
names, and each is done once by :func:`tilesim.formats.encode` (floats) or by
an exact integer shift (fixed point). The models (``shared/spec/ame_decisions.md``):

- ``fused``: ``round(C + sum_k a_k b_k)``, one rounding per result;
- ``sequential``: ``acc = C``, then ``acc = round(acc + a_k b_k)`` for k ascending;
- ``chain_then_add``: ``acc = +0``, ``acc = round(acc + a_k b_k)`` for k ascending,
  then ``round(acc + C)``.

Operands are batches: ``a`` (S, M, K), ``b`` (S, N, K) and ``c`` (S, M, N)
codes, and the result is ``c[s, i, j] (+)= sum_k a[s, i, k] * b[s, j, k]``.

Floats. A product of two values is ``(-1)^s * sig * 2^exp`` with an integer
significand (FP64's 53-bit significands are split in 32-bit halves, so every
partial significand fits 64 bits). A sum of such terms is exact in 32-bit limbs
on the sum's lowest exponent (a Kulisch accumulator, vectorised over results,
:func:`exact_sum`), then turned into :class:`~tilesim.formats.Parts` (the top 64
bits and a sticky bit) for one rounding. When an instruction's values are
close enough in magnitude, float64 arithmetic is itself exact and is used
instead (:func:`float64_grid` states and checks the condition).

Integers and fixed point. Values are exact integers (units of ``2**-frac``);
products and sums are exact in int64 when a bound from the formats proves they
fit, else in Python integers. A fixed-point accumulator with fewer fraction
bits than the products (bOVF=1 on a q format, and q32_32) rounds with RND
(docs/decisions.md AME8); then the result wraps or saturates (AME9).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import formats
from ..errors import UnsupportedError
from ..formats import Format, Parts
from ..formats.rounding import FINITE, INF, NAN, bit_length

__all__ = ["MODELS", "Outcome", "mac", "exact_sum", "products", "float64_grid", "check_model"]

MODELS: tuple[str, ...] = ("fused", "sequential", "chain_then_add")

U64 = np.uint64
M32 = U64(0xFFFFFFFF)
_I64_MAX = np.iinfo(np.int64).max

# Tests switch the float64 shortcut off to hold the limb path against the oracle on every input.
FLOAT64_SHORTCUT = True


@dataclass(frozen=True)
class Outcome:
    """Result codes (S, M, N) in the accumulator format, and the status events they raised."""

    codes: np.ndarray
    inexact: bool
    sat_hit: bool


def check_model(model: str) -> str:
    """The model name, checked.

    Raises:
        UnsupportedError: not one of :data:`MODELS` (rule ``ame.model``).
    """
    if model not in MODELS:
        raise UnsupportedError(f"unknown accumulation model {model!r}; valid: " + ", ".join(MODELS),
                               instruction="Core", operand="accumulation", rule="ame.model", value=model)
    return model


def mac(a_codes, b_codes, c_codes, ft: Format, acc: Format, rounding: str, saturate: bool,
        model: str) -> Outcome:
    """``C (+)= A x B^T`` on batches of codes, exact, rounded as ``model`` says.

    Args:
        a_codes, b_codes: lane codes of ``ft``, shapes (S, M, K) and (S, N, K).
        c_codes: lane codes of ``acc`` (S, M, N), or ``None`` to start from +0 (beta=1).
        ft, acc: input and accumulator formats.
        rounding: ``rne``, ``rup``, ``rdn`` or ``rtz``.
        saturate: clamp integer results (else wrap); for floats, clamp formats without Inf.
        model: one of :data:`MODELS`.
    """
    if ft.is_float:
        return _float_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate and not acc.has_inf, model)
    return _int_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model)


# ------------------------------------------------------------------- floats
def _cat(*ps: Parts) -> Parts:
    """Concatenate Parts along the last (term) axis."""
    return Parts(*(np.concatenate([np.asarray(getattr(p, f)) for p in ps], -1) for f in Parts._fields))


def _index(p: Parts, idx) -> Parts:
    return Parts(*(np.asarray(f)[idx] for f in p))


def _zeros(shape) -> Parts:
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


def float64_grid(va: np.ndarray, vb: np.ndarray, vc: np.ndarray, ft: Format, acc: Format, fused: bool) -> int | None:
    """The ``q`` for which float64 computes this instruction exactly, or ``None``.

    ``va``, ``vb``, ``vc``: the operands' values (exact in float64). float64 is
    exact here when all values are finite, products are exact (significands
    of at most 26 bits), every term is a multiple of ``2**q`` (q the lowest
    quantum among the products and C) and every partial sum is below
    ``2**(q + 53)``: then each partial sum, in any order, is a float64 number
    and no addition rounds. For ``fused`` the bound is on the sum of all
    magnitudes; the step-wise models check before each step that the rounded
    running value is still a multiple of ``2**q`` below ``2**(q + 52)``
    (:func:`_on_grid`), a single product being below that too.
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

    (ra, rb, rc), k = (span(va, ft), span(vb, ft), span(vc, acc)), va.shape[-1]
    lows, tops = [], []
    if ra and rb:  # |a_k b_k| < 2**(ta + tb); k of them < 2**(ta + tb + ceil(log2 k))
        lows.append(ra[0] + rb[0])
        tops.append(ra[1] + rb[1] + (max(k - 1, 0).bit_length() if fused else 0))
    if rc:
        lows.append(rc[0])
        tops.append(rc[1])
    if not lows:
        return 0
    q = min(lows)
    return q if max(tops) + 1 - q <= 53 else None


class _OffGrid(Exception):
    """A step-wise model left float64's exact range: recompute with limbs."""


def _on_grid(state: np.ndarray, q: int) -> np.ndarray:
    """Check the running value is a multiple of 2**q below 2**(q + 52) (fmod is exact)."""
    if not (np.all(np.abs(state) < math.ldexp(1.0, q + 52)) and np.all(np.fmod(state, math.ldexp(1.0, q)) == 0)):
        raise _OffGrid
    return state


def _float_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model) -> Outcome:
    shape = a_codes.shape[:-1] + (b_codes.shape[-2],)
    rdn = rounding == "rdn"

    def attempt(models, *args):
        flags = {"inexact": False, "sat_hit": False}

        def rnd(values):
            codes, fl = formats.encode(values, acc, rounding=rounding, saturate=saturate, return_flags=True)
            flags["inexact"] |= bool(fl.inexact.any())
            flags["sat_hit"] |= bool(fl.saturated.any())
            return codes

        codes = models(*args, acc, rdn, model, rnd)
        return Outcome(codes, flags["inexact"], flags["sat_hit"])

    if FLOAT64_SHORTCUT and ft.man_bits + 1 <= 26:
        va, vb = formats.decode(a_codes, ft), formats.decode(b_codes, ft)
        vc = formats.decode(c_codes, acc) if c_codes is not None else np.zeros(shape)
        q = float64_grid(va, vb, vc, ft, acc, model == "fused")
        if q is not None:
            try:
                return attempt(_float64_models, va, vb, vc, q)
            except _OffGrid:
                pass
    a, b = formats.decode_exact(a_codes, ft), formats.decode_exact(b_codes, ft)
    c = formats.decode_exact(c_codes, acc) if c_codes is not None else _zeros(shape)
    return attempt(_limb_models, a, b, c, ft)


def _limb_models(a, b, c, ft, acc, rdn, model, rnd):
    """The three models on exact Parts (any values)."""
    split = ft.man_bits + 1 > 32
    p = products(_index(a, (Ellipsis, slice(None), None, slice(None))),
                 _index(b, (Ellipsis, None, slice(None), slice(None))), split)  # (S, M, N, K, P)
    if model == "fused":
        flat = Parts(*(np.asarray(f).reshape(f.shape[:-2] + (-1,)) for f in p))
        return rnd(exact_sum(_cat(flat, _index(c, (Ellipsis, None))), rdn))
    state = c if model == "sequential" else _zeros(c.sig.shape)
    for i in range(p.sig.shape[-2]):
        codes = rnd(exact_sum(_cat(_index(state, (Ellipsis, None)), _index(p, (Ellipsis, i, slice(None)))), rdn))
        state = formats.decode_exact(codes, acc)
    if model == "sequential":
        return codes
    return rnd(exact_sum(_cat(_index(state, (Ellipsis, None)), _index(c, (Ellipsis, None))), rdn))


def _add_f64(x, y, rdn):
    """``x + y`` for float64 values whose sum is exact; an exact zero gets IEEE's sign for the mode."""
    s = x + y  # numpy rounds to nearest, which gives IEEE's zero sign for every mode but toward -inf
    if rdn:
        both_pos0 = (x == 0) & (y == 0) & ~np.signbit(x) & ~np.signbit(y)
        s = np.where((s == 0) & ~both_pos0, -0.0, s)
    return s


def _float64_models(va, vb, vc, q, acc, rdn, model, rnd):
    """The three models in float64, valid on the grid :func:`float64_grid` found."""
    if model == "fused":
        s = np.matmul(va, np.swapaxes(vb, -1, -2)) + vc
        zero = s == 0
        if zero.any():  # BLAS gives no reliable zero sign: apply exact_sum's rule to the exact terms
            p = va[..., :, None, :] * vb[..., None, :, :]  # exact products, zero signs included
            neg = np.concatenate([np.signbit(p), np.signbit(vc)[..., None]], -1)
            z = np.concatenate([p == 0, (vc == 0)[..., None]], -1)
            zs = np.all(z & neg, -1) | (rdn & ~np.all(z & ~neg, -1))
            s = np.where(zero, np.where(zs, -0.0, 0.0), s)
        return rnd(s)
    state = vc if model == "sequential" else np.zeros(vc.shape)
    for i in range(va.shape[-1]):
        codes = rnd(_add_f64(_on_grid(state, q), va[..., :, None, i] * vb[..., None, :, i], rdn))
        state = formats.decode(codes, acc)
    if model == "sequential":
        return codes
    return rnd(_add_f64(_on_grid(state, q), vc, rdn))


# ---------------------------------------------------------- integers, fixed
def _needs_python_ints(ft: Format, acc: Format, k: int, shift: int) -> bool:
    """Whether a sum of k products plus C (in product units) can reach 2**62 (then int64 is not enough)."""
    bound = k * (1 << 2 * (ft.bits - 1)) + (1 << (acc.bits - 1 + shift))
    return bound >= 1 << 62


def _round_shift(x, shift: int, rounding: str):
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


def _fit(v, acc: Format, saturate: bool):
    """Wrap ``v`` modulo 2**bits into the accumulator's range, or clamp it; and whether it clamped."""
    lo, hi = acc.int_min, acc.int_max
    if saturate:
        under, over = v < lo, v > hi
        return np.where(under, lo, np.where(over, hi, v)), bool(np.any(under | over))
    if v.dtype == object or acc.bits < 64:  # int64 sums are below 2**62: nothing to wrap at 64 bits
        v = (v - lo) % (1 << acc.bits) + lo
    return v, False


def _int_codes(v, acc: Format) -> np.ndarray:
    """Lane codes of in-range integers ``v`` (units of 2**-frac): two's complement bits, canonical fill."""
    bits = np.asarray(v).astype(np.int64).astype(U64) & U64(acc.code_mask)
    return formats.canonical(bits, acc).astype(acc.dtype)


def _int_mac(a_codes, b_codes, c_codes, ft, acc, rounding, saturate, model) -> Outcome:
    a, b = formats.decode_int(a_codes, ft), formats.decode_int(b_codes, ft)
    shape = a.shape[:-1] + (b.shape[-2],)
    c = formats.decode_int(c_codes, acc) if c_codes is not None else np.zeros(shape, np.int64)
    k = a.shape[-1]
    shift = 2 * ft.frac_bits - acc.frac_bits  # product units -> accumulator units
    if _needs_python_ints(ft, acc, k, shift):
        a, b, c = (x.astype(object) for x in (a, b, c))
    inexact = sat_hit = False

    def step(x, s):
        nonlocal inexact, sat_hit
        v, dropped = _round_shift(x, s, rounding)
        v, clamped = _fit(v, acc, saturate)
        inexact |= dropped
        sat_hit |= clamped
        return v

    if model == "fused":
        v = step(np.matmul(a, np.swapaxes(b, -1, -2)) + (c << shift), shift)
    else:
        v = c if model == "sequential" else np.zeros_like(c)
        for i in range(k):
            v = step((v << shift) + a[..., :, None, i] * b[..., None, :, i], shift)
        if model == "chain_then_add":
            v = step(v + c, 0)
    return Outcome(_int_codes(v, acc), inexact, sat_hit)
