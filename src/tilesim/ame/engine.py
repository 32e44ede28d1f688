"""The fast GEMM engine: the runtime's K-slice stream computed over blocks of C rows with float64 BLAS.

A result of :func:`tilesim.ame.gemm.gemm` depends only on its row of A, its
column of B, its C and the K-slices (docs/decisions.md AME15), never on the
tiling, so this engine runs each block of C rows through every K-slice in
order, for all columns at once, and never builds padded tiles. It gives the
same bits and flags as the instruction stream (the tests hold it to the
program run on a :class:`~tilesim.ame.Core`), by these arguments
(docs/decisions.md AME19-AME22):

- Floats, ``fused``: a slice's products summed by BLAS in float64 are exact
  when an exponent-range certificate holds; it is computed per row of A and
  per column of B in each slice (AME19), so it costs O(M + N) per slice.
  ``C + P`` is one float64 addition, checked exact by the Fast2Sum test
  (``S - C == P`` and ``S - P == C``). Exact sums are rounded once to the
  accumulator (:func:`tilesim.ame.rounding.round_values`); zeros get the exact-sum sign rule from
  their terms. Every element whose certificate or check fails takes the
  exact path (:func:`tilesim.ame.models.mac`) for that slice alone. Into
  FP16 and FP32, :mod:`tilesim.ame.engine_jit` does all but BLAS's product in
  one pass per slice (AME30); the numpy steps here are its reference.
- Floats, ``sequential`` and ``chain_then_add``: the same, one product (a
  rank-1 update, always exact) per step.
- Integers and fixed point: without SAT, wrapping commutes with addition and
  with the rounding shifts (all but RTZ, whose direction depends on the
  sign), so the steps run unbounded and wrap once at the end; with
  ``shift = 0`` that is one exact product (AME20), in float32 BLAS where
  its sums stay within 2**24 (AME30). With SAT, the
  bound ``|C| + |A| |B|`` marks the rows that can never clamp; only the other
  rows run step by step, clamping at each step.
- ``wrapped`` counts the integer results that differ from what an
  accumulator without range limits would hold (AME21).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable

import numpy as np
from threadpoolctl import threadpool_limits

from .. import formats
from ..formats import Format, Kind
from .exact import cat, exact_sum, fit, round_shift
from . import engine_jit
from .models import add_f64, mac
from .lanes import float_values, int_codes, int_values, whole_int_lane
from .rounding import FAST_DTYPES, round_values

__all__ = ["Totals", "supports", "run", "BLOCK_ELEMENTS", "COLS_PER_BLOCK"]

BLOCK_ELEMENTS = 1 << 16  # elements of C per block (floats): a block's temporaries stay in cache
COLS_PER_BLOCK = 1024  # columns of C per block (floats): wide GEMMs of few rows still split over the cores
SLICES_PER_CALL = 2  # K-slices whose products one BLAS call gives the fused kernel (they stay in cache)
INT_BLOCK_ELEMENTS = 1 << 20  # integers: one exact product per block, memory bounded
F32_EXACT = 1 << 24  # float32 holds every integer up to this: BLAS's float32 product of small integers is exact
F32_CHUNKS = 4  # K-chunks of float32 products, at most, before one float64 product is cheaper
_FAR = 1 << 20  # beyond every exponent: zeros take no part in the bounds


@dataclass
class Totals:
    """The status a GEMM raises, and how many integer results wrapped."""

    inexact: bool = False
    sat_hit: bool = False
    wrapped: int = 0


def supports(ft: Format, acc: Format) -> bool:
    """Whether the engine computes this format pair (else the runtime's batched tiles do).

    Integers and fixed point always; floats whose products are exact in
    float64 (at most 26 significand bits) and that have a zero (the runtime's
    padding of E8M0 raises flags this engine, which never pads, would not).
    """
    if ft.kind is not Kind.FLOAT:
        return True
    return ft.has_zero and ft.man_bits + 1 <= 26 and acc.bits <= 32


# ------------------------------------------------------------------- floats
def _slice_bounds(v: np.ndarray, fmt: Format, e: int):
    """Per row and K-slice: (lowest quantum exponent, top exponent, any non-finite), each (rows, slices).

    ``v`` (rows, K): every value of the slice is a multiple of 2**low and below 2**top in magnitude.
    """
    rows, k = v.shape
    n = -(-k // e)
    w = np.zeros((rows, n * e))
    w[:, :k] = v
    finite = np.isfinite(w)
    live = finite & (w != 0)
    with np.errstate(invalid="ignore"):
        _, ex = np.frexp(np.where(live, w, 1.0))
    low = np.where(live, np.maximum(ex - 1, fmt.emin) - fmt.man_bits, _FAR).reshape(rows, n, e).min(-1)
    top = np.where(live, ex, -_FAR).reshape(rows, n, e).max(-1)
    return low, top, ~finite.reshape(rows, n, e).all(-1)


def _by_slice(v: np.ndarray, e: int) -> np.ndarray:
    """``v`` (rows, K) as contiguous K-slices (slices, rows, e), the last one zero-padded: one copy."""
    return np.ascontiguousarray(_whole_slices(v, e, 1).reshape(v.shape[0], -1, e).transpose(1, 0, 2))


def _whole_slices(v: np.ndarray, e: int, axis: int) -> np.ndarray:
    """``v`` with its K ``axis`` zero-padded to whole slices of ``e`` (itself when it has them)."""
    k = v.shape[axis]
    pad = -k % e
    return v if pad == 0 else np.pad(v, [(0, pad) if d == axis else (0, 0) for d in range(v.ndim)])


def _certified(bounds_a, bounds_b, rows: slice, cols: slice, s: int, kk: int) -> np.ndarray | None:
    """Which products of slice ``s`` float64 sums exactly (rows x cols), or ``None`` for all of them.

    A result's products are multiples of ``2**(la + lb)`` below ``2**(ta + tb)``; their sum, in any
    order, stays exact while it is below ``2**(la + lb + 53)``: ``ta + tb + ceil(log2 kk) - la - lb <= 53``.
    """
    (la, ta, xa), (lb, tb, xb) = bounds_a, bounds_b
    sa, sb = ta[rows, s] - la[rows, s], tb[cols, s] - lb[cols, s]
    xa, xb = xa[rows, s], xb[cols, s]
    lg = (kk - 1).bit_length()
    if sa.max() + sb.max() + lg <= 53 and not xa.any() and not xb.any():
        return None
    return (sa[:, None] + sb[None, :] + lg <= 53) & ~xa[:, None] & ~xb[None, :]


def _zero_sign(terms: np.ndarray, rdn: bool) -> np.ndarray:
    """Sign of exact zero sums of ``terms`` (n, T): -0 when every term is -0, or toward -inf unless all are +0."""
    neg, z = np.signbit(terms), terms == 0
    return np.all(z & neg, -1) | (rdn & ~np.all(z & ~neg, -1))


class _Floats:
    """The float models on one GEMM; :meth:`block` runs one block of C through every K-slice."""

    def __init__(self, plan, a_codes, b_codes, model: str, saturate: bool):
        self.p, self.model = plan, model
        self.ft, self.acc = plan.ft, plan.acc
        self.a_codes, self.b_codes = a_codes, b_codes
        va = float_values(a_codes, self.ft)
        self.saturate = saturate and not self.acc.has_inf  # as models.mac: float SAT clamps formats without Inf
        self.rdn = plan.rnd == "rdn"
        self.jit = model == "fused" and engine_jit.ENABLED and self.acc.name in FAST_DTYPES and not self.saturate
        if model != "fused":
            self.va, self.vb = va, float_values(b_codes, self.ft)
            return
        e, ft = plan.k_step, self.ft
        vbt = _whole_slices(float_values(b_codes.T, self.ft), e, 0)  # B (K, N): the gather transposes the codes
        self.a_s, self.b_s = _by_slice(va, e), vbt.reshape(-1, e, vbt.shape[1])  # (slices, M, e), (slices, e, N)
        if self.jit:  # the kernels' certificate: spans per slice and row, and each slice's K
            self.spans = (engine_jit.spans(self.a_s, ft.man_bits, ft.emin, False),
                          engine_jit.spans(self.b_s, ft.man_bits, ft.emin, True))
            self.kk = np.array(plan.k_slices, np.int64)
            self.lg = np.array([(k - 1).bit_length() for k in plan.k_slices], np.int64)
        else:
            self.bounds = (_slice_bounds(va, ft, e), _slice_bounds(vbt[: plan.k].T, ft, e))

    def _round(self, s, tot: Totals):
        codes, values, inexact, sat = round_values(s, self.acc, self.p.rnd, self.saturate, not tot.inexact)
        tot.inexact |= inexact
        tot.sat_hit |= sat
        return codes, values

    def _exact(self, i, j, ks, c_codes, tot: Totals):
        """Codes and values of ``C + products`` of rows ``i`` of A and ``j`` of B^T (index arrays) over ``ks``
        by the exact models (one product sum each), ``c_codes`` their C."""
        out = mac(self.a_codes[i][:, None, ks], self.b_codes[j][:, None, ks], c_codes[:, None, None],
                  self.ft, self.acc, self.p.rnd, self.saturate, "fused")
        tot.inexact |= out.inexact
        tot.sat_hit |= out.sat_hit
        return out.codes[:, 0, 0], formats.decode(out.codes[:, 0, 0], self.acc)

    def _step(self, c, c_codes, p, ok, at, ks, tot: Totals, fused: bool):
        """``round(C + P)`` where ``P`` is exact at ``ok`` (None: everywhere); the rest exactly.

        ``at``: the rows of A and of B^T of each result (index arrays that broadcast to ``c``). ``fused``:
        ``P`` is a slice's products summed (its exact zeros take their sign from the terms: BLAS gives no
        reliable zero sign); else one product, and the two-term sum gets IEEE's zero sign.
        """
        with np.errstate(invalid="ignore", over="ignore"):
            s = c + p if fused else add_f64(c, p, self.rdn)
            t = s - c
            exact = t == p
            np.subtract(s, p, out=t)
            exact &= t == c  # Fast2Sum: the addition was exact (NaN and Inf fail)
        if ok is not None:
            exact &= ok
        i, j = (np.broadcast_to(x, c.shape) for x in at)
        if fused and not s.all():
            z = (s == 0) & exact
            terms = np.concatenate([self._products(i[z], j[z], ks), c[z][:, None]], -1)
            s[z] = np.where(_zero_sign(terms, self.rdn), -0.0, 0.0)
        all_exact = exact.all()
        if not all_exact:
            s[~exact] = 0.0  # recomputed below: no flags from float64's inexact sums
        codes, values = self._round(s, tot)
        if not all_exact:
            bad = ~exact
            codes[bad], values[bad] = self._exact(i[bad], j[bad], ks, c_codes[bad], tot)
        return codes, values

    def _products(self, i, j, ks: slice):
        """The products (n, K) of K-slice ``ks`` of rows ``i`` of A and ``j`` of B^T (index arrays), ``fused``."""
        s, kk = ks.start // self.p.k_step, ks.stop - ks.start
        return self.a_s[s][i, :kk] * self.b_s[s][:kk, j].T

    def block(self, rows: slice, cols: slice, c, c_codes):
        """Codes of the block ``rows`` x ``cols`` of C (values ``c``, codes ``c_codes``) after every K-slice,
        and the status they raised."""
        if self.jit:
            return self._block_jit(rows, cols, c, c_codes)
        tot = Totals()
        at = (np.arange(rows.start, rows.stop)[:, None], np.arange(cols.start, cols.stop)[None, :])
        for s, kk in enumerate(self.p.k_slices):
            k0 = s * self.p.k_step
            if self.model == "fused":
                p = self.a_s[s, rows] @ self.b_s[s, :, cols]
                ok = _certified(*self.bounds, rows, cols, s, kk)
                c_codes, c = self._step(c, c_codes, p, ok, at, slice(k0, k0 + kk), tot, True)
                continue
            t_codes, t = (c_codes, c) if self.model == "sequential" else self._zeros(c.shape)
            for k in range(k0, k0 + kk):
                with np.errstate(invalid="ignore", over="ignore"):  # Inf x 0: the exact path decides
                    p = np.multiply.outer(self.va[rows, k], self.vb[cols, k])
                t_codes, t = self._step(t, t_codes, p, None, at, slice(k, k + 1), tot, False)
            if self.model == "sequential":
                c_codes, c = t_codes, t
            else:
                c_codes, c = self._add(t, t_codes, c, c_codes, tot)
        return c_codes, tot

    def _block_jit(self, rows: slice, cols: slice, c, c_codes):
        """:meth:`block` by :func:`engine_jit.fused_slices`, BLAS giving the products of a few slices at a time;
        the results that leave the fast path continue from their slice on the numpy path."""
        tot, acc, n_s = Totals(), self.acc, len(self.p.k_slices)
        a_s, b_s = self.a_s[:, rows], self.b_s[:, :, cols]
        span_a, span_b = self.spans[0][:, rows], self.spans[1][:, cols]
        fail = np.full(c.shape, -1, np.int32)
        mode = engine_jit.FP32_RNE if (acc.name, self.p.rnd) == ("fp32", "rne") else engine_jit.MODES.index(self.p.rnd)
        buf = np.empty((SLICES_PER_CALL,) + c.shape)
        for s0 in range(0, n_s, SLICES_PER_CALL):
            s1 = min(n_s, s0 + SLICES_PER_CALL)
            with np.errstate(invalid="ignore", over="ignore"):  # Inf x 0: the kernel sends it to the exact path
                prod = np.matmul(a_s[s0:s1], b_s[s0:s1], out=buf[:s1 - s0])
            tot.inexact |= engine_jit.fused_slices(prod, s0, a_s, b_s, span_a, span_b, self.lg, self.kk, c, fail,
                                                   acc.man_bits, acc.emin, acc.max, mode)
        codes = c.astype(FAST_DTYPES[acc.name]).view(acc.dtype)
        i, j = np.nonzero(fail >= 0)
        if i.size:
            start = fail[i, j]
            cc = np.where(start == 0, c_codes[i, j], codes[i, j])  # C's own codes keep NaN payloads
            codes[i, j] = self._resume(start, rows.start + i, cols.start + j, c[i, j], cc, tot)
        return codes, tot

    def _resume(self, start, i, j, c, c_codes, tot: Totals):
        """Codes of results (rows ``i`` of A, ``j`` of B^T; values ``c`` and codes ``c_codes`` before slice
        ``start``) through the slices from ``start`` on, by :meth:`_step`."""
        e, (span_a, span_b) = self.p.k_step, self.spans
        for s in range(int(start.min()), len(self.p.k_slices)):
            live = np.flatnonzero(start <= s)
            ks = slice(s * e, s * e + int(self.kk[s]))
            ii, jj = i[live], j[live]
            with np.errstate(invalid="ignore", over="ignore"):
                p = self._products(ii, jj, ks).sum(-1)
            ok = span_a[s, ii] + span_b[s, jj] + self.lg[s] <= 53
            c_codes[live], c[live] = self._step(c[live], c_codes[live], p, ok, (ii, jj), ks, tot, True)
        return c_codes

    def _zeros(self, shape):
        return np.zeros(shape, self.acc.dtype), np.zeros(shape)

    def _add(self, x, x_codes, y, y_codes, tot: Totals):
        """``round(x + y)`` of two accumulator values (chain_then_add's last step), exact where float64 is not."""
        with np.errstate(invalid="ignore", over="ignore"):
            s = add_f64(x, y, self.rdn)
            exact = (s - x == y) & (s - y == x)
        s[~exact] = 0.0  # recomputed below: no flags from float64's inexact sums
        codes, values = self._round(s, tot)
        i, j = np.nonzero(~exact)
        if i.size:
            terms = cat(_parts(x_codes[i, j], self.acc), _parts(y_codes[i, j], self.acc))
            c, fl = formats.encode(exact_sum(terms, self.rdn), self.acc, rounding=self.p.rnd,
                                   saturate=self.saturate, return_flags=True)
            codes[i, j], values[i, j] = c, formats.decode(c, self.acc)
            tot.inexact |= bool(fl.inexact.any())
            tot.sat_hit |= bool(fl.saturated.any())
        return codes, values


def _parts(codes, fmt):
    """Exact Parts of codes (n,), with a trailing term axis."""
    p = formats.decode_exact(codes, fmt)
    return type(p)(*(np.asarray(f)[..., None] for f in p))


# ------------------------------------------------------------ integers, fixed
def _max_abs(x) -> int:
    """The largest magnitude in an integer array (0 when empty), without a temporary."""
    return max(int(x.max(initial=0)), -int(x.min(initial=0)))


def _imatmul(a, b, cache: dict | None = None):
    """Exact ``a @ b.T`` of integer arrays: float32 BLAS on K-chunks whose sums stay within 2**24 (a few chunks,
    summed in float64), float64 BLAS while the sums stay below 2**53, else int64 or Python ints.

    The bound on every partial sum is K times the largest magnitudes' product. ``cache``: where B's
    largest magnitude and B in float32 are kept between calls with the same ``b``.
    """
    cache = {} if cache is None else cache
    if "b_max" not in cache:
        cache["b_max"] = _max_abs(b)
    k, top = a.shape[-1], _max_abs(a) * cache["b_max"]
    if top * k < 1 << 53:
        chunk = min(k, F32_EXACT // max(top, 1))
        if chunk and -(-k // chunk) <= F32_CHUNKS:
            if "b32" not in cache:
                cache["b32"] = b.astype(np.float32)
            af, bf = a.astype(np.float32), cache["b32"]
            out = af[:, :chunk] @ bf[:, :chunk].T
            for k0 in range(chunk, k, chunk):  # float64 holds the sum of the chunks exactly
                out = out.astype(np.float64) if out.dtype == np.float32 else out
                out += af[:, k0:k0 + chunk] @ bf[:, k0:k0 + chunk].T
            return out.astype(np.int64)
        return (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.int64)
    if a.dtype != object and top * k < 1 << 62:
        return a @ b.T
    return a.astype(object) @ b.astype(object).T


class _Ints:
    """Integer and fixed-point models on one GEMM (see the module docstring)."""

    def __init__(self, plan, a_codes, b_codes, model: str, saturate: bool):
        self.p, self.model, self.saturate = plan, model, saturate
        self.ft, self.acc = plan.ft, plan.acc
        self.a, self.b = int_values(a_codes, self.ft), int_values(b_codes, self.ft)
        self.shift = 2 * self.ft.frac_bits - self.acc.frac_bits  # product units -> accumulator units
        self.totals = Totals()
        self.cache: dict = {}  # B's largest magnitude, and B as float32, for every block
        k = self.a.shape[1]
        bound = k * (1 << 2 * (self.ft.bits - 1)) + (k << self.shift) + (1 << (self.acc.bits - 1 + self.shift))
        if bound >= 1 << 62:  # unbounded running values may leave int64
            self.a, self.b = self.a.astype(object), self.b.astype(object)

    def block(self, rows: slice, c):
        """Values of C rows ``rows`` (``c``: their C, or ``None`` for zeros): clamped (SAT), else unbounded
        (:meth:`finish` wraps them)."""
        a = self.a[rows]
        if self.shift == 0 and c is None and not self.saturate:
            return _imatmul(a, self.b, self.cache)
        c = np.zeros((a.shape[0], self.b.shape[0]), np.int64) if c is None else c
        c = c.astype(self.a.dtype)
        if self.shift == 0:
            exact = c + _imatmul(a, self.b, self.cache)
            if not self.saturate:
                return exact
            fits = np.abs(c) + _imatmul(np.abs(a), np.abs(self.b)) <= self.acc.int_max  # never clamps
            redo = np.flatnonzero(~fits.all(1))
            if redo.size:
                exact[redo] = self._steps(a[redo], c[redo], "clamp")
            return exact
        if self.saturate:
            return self._steps(a, c, "clamp")
        if self.p.rnd == "rtz":  # rounding toward zero depends on the sign: wrapping does not commute with it
            v, unbounded = self._steps(a, c, "wrap"), self._steps(a, c, None)
            self.totals.wrapped += int(np.count_nonzero(v != unbounded))
            return v
        return self._steps(a, c, None)

    def _step(self, x, shift, limit):
        v, dropped = round_shift(x, shift, self.p.rnd)
        self.totals.inexact |= dropped
        if limit:
            v, clamped = fit(v, self.acc, limit == "clamp")
            self.totals.sat_hit |= clamped
        return v

    def _steps(self, a, c, limit):
        """The model's steps, slice by slice (fused) or product by product; ``limit``: clamp, wrap or None."""
        sh, b, v = self.shift, self.b, c
        for s, kk in enumerate(self.p.k_slices):
            ks = slice(s * self.p.k_step, s * self.p.k_step + kk)
            if self.model == "fused":
                v = self._step((v << sh) + _imatmul(a[:, ks], b[:, ks]), sh, limit)
                continue
            t = v if self.model == "sequential" else np.zeros_like(v)
            for k in range(ks.start, ks.stop):
                t = self._step((t << sh) + np.multiply.outer(a[:, k], b[:, k]), sh, limit)
            v = t if self.model == "sequential" else self._step(t + v, 0, limit)
        return v

    def finish(self, v):
        """Codes of the final values: wrapped into the accumulator (counted) unless SAT clamped them."""
        whole = whole_int_lane(self.acc)
        if whole is not None and v.dtype != object:  # numpy's cast to a narrower integer wraps: one pass
            w = v.astype(whole)
            if not self.saturate:
                self.totals.wrapped += int(np.count_nonzero(w != v))
            return w.view(self.acc.dtype)
        w, _ = fit(v, self.acc, False)
        if not self.saturate:
            self.totals.wrapped += int(np.count_nonzero(w != v))
        return int_codes(w, self.acc)


# ---------------------------------------------------------------------- run
def run(plan, a_codes: np.ndarray, b_codes: np.ndarray, c_codes: np.ndarray | None, model: str, saturate: bool,
        tick: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, Totals]:
    """C codes (M x N) and the status of ``A x B (+ C)`` from codes: ``a_codes`` (M x K), ``b_codes`` (N x K,
    B transposed), ``c_codes`` (M x N accumulator codes, or ``None``: C starts from +0).

    ``tick(done, total)`` is called after each block of C rows, ``done`` and ``total`` counted in results.
    """
    m, n = plan.m, plan.n
    out = np.empty((m, n), plan.acc.dtype)
    if plan.ft.kind is not Kind.FLOAT:  # big exact products: BLAS's own threads
        eng = _Ints(plan, a_codes, b_codes, model, saturate)
        c_all = int_values(c_codes, plan.acc) if c_codes is not None else None
        rows_per = max(1, INT_BLOCK_ELEMENTS // n)
        for r0 in range(0, m, rows_per):
            rows = slice(r0, min(m, r0 + rows_per))
            out[rows] = eng.finish(eng.block(rows, None if c_all is None else c_all[rows]))
            if tick is not None:
                tick(rows.stop * n, m * n)
        return out, eng.totals
    eng = _Floats(plan, a_codes, b_codes, model, saturate)
    c_all = float_values(c_codes, plan.acc) if c_codes is not None else None

    def c_block(r: slice, cl: slice):
        """A block's C values and codes (+0 without a C input), its own copy, made when its job starts."""
        if c_all is None:
            shape = (r.stop - r.start, cl.stop - cl.start)
            return np.zeros(shape), np.zeros(shape, plan.acc.dtype)
        return c_all[r, cl].copy(), c_codes[r, cl].copy()

    cols_per = min(n, COLS_PER_BLOCK)
    rows_per = max(1, BLOCK_ELEMENTS // cols_per)
    blocks = [(slice(r0, min(m, r0 + rows_per)), slice(c0, min(n, c0 + cols_per)))
              for r0 in range(0, m, rows_per) for c0 in range(0, n, cols_per)]
    totals = Totals()
    # cache-sized blocks of rank-k updates, one per core: BLAS's own threads only cost on products this small
    with threadpool_limits(1, user_api="blas"), ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        jobs = {pool.submit(lambda r, cl: eng.block(r, cl, *c_block(r, cl)), r, cl): (r, cl) for r, cl in blocks}
        done = 0
        for job in as_completed(jobs):
            r, cl = jobs[job]
            out[r, cl], tot = job.result()
            totals.inexact |= tot.inexact
            totals.sat_hit |= tot.sat_hit
            done += (r.stop - r.start) * (cl.stop - cl.start)
            if tick is not None:
                tick(done, m * n)
    return out, totals
