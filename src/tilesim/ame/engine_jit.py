"""numba kernels of the GEMM engine's ``fused`` float path: a block of C rows through every K-slice in one call.

:class:`tilesim.ame.engine._Floats` computes each K-slice over a block of C
with a dozen numpy passes (BLAS product, certificate, Fast2Sum, rounding);
:func:`fused_slices` does the rest after BLAS's product in one pass per
slice, over a block of C that stays in cache across all its slices, BLAS
giving the products of a few slices at a time. It takes the same decisions
element by element (docs/decisions.md AME19, AME30):

- a slice's products, summed in float64, are exact where the exponent-span
  certificate holds (the spans come from :func:`spans`); ``C + P`` is one
  float64 addition, checked exact by Fast2Sum;
- the exact sum is rounded once to the accumulator, FP16 or FP32
  (:func:`round_to`, any of the four modes), and an exact zero takes its sign
  from its terms as :func:`tilesim.ame.exact.exact_sum` gives it;
- an element whose certificate or check fails is left as it was before that
  slice and its slice number is returned: the caller runs it from there on the
  numpy path, which takes the exact models where it must.

``tests/ame/test_engine_jit.py`` holds the kernels to that numpy path, bit for
bit and flag for flag.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["ENABLED", "MODES", "spans", "fused_slices", "round_to"]

#: Tests switch the kernels off to run the numpy reference on the same GEMMs.
ENABLED = True

MODES = ("rne", "rtz", "rup", "rdn")  # the kernels' rounding codes, in this order
FP32_RNE = len(MODES)  # one more code: RNE into FP32, by the processor's own conversion (IEEE 754's, to nearest even)
NOT_FINITE = 1 << 40  # the span of a slice holding Inf or NaN: no certificate holds
_ZERO = -(1 << 20)  # the span of a slice of zeros: every certificate holds

_kernel = njit(cache=True, nogil=True, error_model="numpy")
_helper = njit(cache=True, error_model="numpy", no_cpython_wrapper=True)
_inline = njit(cache=True, error_model="numpy", no_cpython_wrapper=True, inline="always")


@intrinsic
def _bits(typingctx, x):
    """The IEEE 754 bits of a float64, as an int64 (a register move)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _from_bits(typingctx, x):
    """The float64 whose IEEE 754 bits are an int64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@_inline
def _pow2(n):
    """2.0 ** n for -1022 <= n <= 1023."""
    return _from_bits(np.int64(n + 1023) << 52)


@_inline
def round_to(t, man, emin, max_finite, mode):
    """A finite float64 rounded to a binary format of ``man`` fraction bits, normal exponents from ``emin``,
    largest finite ``max_finite``, with IEEE 754's overflow for ``mode`` (an index in :data:`MODES`, or
    :data:`FP32_RNE`)."""
    if mode == FP32_RNE:
        return np.float64(np.float32(t))
    e = ((_bits(t) >> 52) & 0x7FF) - 1023
    q = max(e, emin) - man  # the format's spacing at t is 2**q: scaling by it is exact
    x = t * _pow2(-q)
    if mode == 0:
        r = np.rint(x)
    elif mode == 1:
        r = np.trunc(x)
    elif mode == 2:
        r = np.ceil(x)
    else:
        r = np.floor(x)
    y = r * _pow2(q)
    if abs(y) > max_finite:
        up = mode == 0 or (mode == 2 and y > 0) or (mode == 3 and y < 0)
        y = np.copysign(np.inf if up else max_finite, y)
    return y


@_kernel
def spans(v, man, emin, rows_last):
    """Per K-slice and row of ``v`` (slices, rows, e), or (slices, e, rows) with ``rows_last``: top exponent
    minus lowest quantum exponent of the row's values in the slice.

    Every value of the row's slice is a multiple of 2**low below 2**top in
    magnitude (``man``, ``emin``: the input format's); a row of zeros has a
    very negative span, one holding Inf or NaN :data:`NOT_FINITE`. Rows run
    innermost, so that ``rows_last`` reads memory in order.
    """
    n, e, rows = (v.shape[0], v.shape[1], v.shape[2]) if rows_last else (v.shape[0], v.shape[2], v.shape[1])
    out = np.empty((n, rows), np.int64)
    low, top = np.empty(rows, np.int64), np.empty(rows, np.int64)
    bad = np.empty(rows, np.bool_)
    for s in range(n):
        low[:], top[:], bad[:] = -_ZERO, _ZERO, False
        for k in range(e):
            for r in range(rows):
                x = v[s, k, r] if rows_last else v[s, r, k]
                if x != x or abs(x) == np.inf:
                    bad[r] = True
                elif x != 0:
                    ex = ((_bits(x) >> 52) & 0x7FF) - 1022  # 2**(ex-1) <= |x| < 2**ex (x normal in float64)
                    low[r] = min(low[r], max(ex - 1, emin) - man)
                    top[r] = max(top[r], ex)
        for r in range(rows):
            out[s, r] = NOT_FINITE if bad[r] else top[r] - low[r]
    return out


@_helper
def _zero_sign(a, b, j, kk, c, rdn):
    """-0.0 or 0.0 for an exact zero ``c + sum_k a[k] * b[k, j]`` (k < kk): -0 when every term is -0, or
    toward -inf when not every term is +0."""
    neg0 = c == 0 and math.copysign(1.0, c) < 0
    pos0 = c == 0 and not neg0
    for k in range(kk):
        p = a[k] * b[k, j]
        neg = math.copysign(1.0, p) < 0
        neg0 = neg0 and p == 0 and neg
        pos0 = pos0 and p == 0 and not neg
    return -0.0 if neg0 or (rdn and not pos0) else 0.0


@_inline
def _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, mode):
    """One row's ``C + P`` for one slice (see :func:`fused_slices`): (inexact, any new exact zero). Branch-free, so
    that the compiler vectorises it; the zero signs are the caller's."""
    inexact = zeros = False
    for j in range(p.size):
        cv, pv, f = ci[j], p[j], fi[j]
        old[j] = cv
        t = cv + pv
        good = (f < 0) & (sb[j] <= limit) & (t - cv == pv) & (t - pv == cv)  # certified, and C + P exact
        y = round_to(t, man, emin, max_finite, mode)
        inexact |= good & (y != t)
        zeros |= good & (t == 0)
        fi[j] = f if good or f >= 0 else s
        ci[j] = y if good else cv
    return inexact, zeros


@_kernel
def fused_slices(prod, s0, a_s, b_s, span_a, span_b, lg, kk, c, fail, man, emin, max_finite, mode):
    """A block of C (values ``c``, rows x N, updated in place) through the K-slices ``s0..`` whose products
    BLAS gave in ``prod`` (slices, rows, N): whether a rounding was inexact.

    ``a_s`` (slices, rows, e) and ``b_s`` (slices, e, N): the block's operand
    values by slice, zero-padded; ``span_a`` (slices, rows), ``span_b``
    (slices, N): their :func:`spans`; ``lg``, ``kk`` (slices): ceil(log2 K)
    and K of each slice; ``man``, ``emin``, ``max_finite``, ``mode``: the
    accumulator and rounding (:func:`round_to`). ``fail`` (rows x N) holds -1,
    or the slice at which an element left the fast path; it is then left alone,
    ``c`` holding its value before that slice.
    """
    n_t, rows, n = prod.shape
    rdn = mode == 3
    inexact = False
    old = np.empty(n)
    for t in range(n_t):
        s = s0 + t
        sb = span_b[s]
        for i in range(rows):
            limit = 53 - lg[s] - span_a[s, i]
            p, ci, fi = prod[t, i], c[i], fail[i]
            if mode == 0:  # one loop per mode: constants the compiler folds into it
                inx, zeros = _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, 0)
            elif mode == 1:
                inx, zeros = _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, 1)
            elif mode == 2:
                inx, zeros = _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, 2)
            elif mode == 3:
                inx, zeros = _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, 3)
            else:
                inx, zeros = _slice_rows(p, old, ci, fi, sb, limit, s, man, emin, max_finite, FP32_RNE)
            inexact |= inx
            if zeros:
                a, b = a_s[s, i], b_s[s]
                for j in range(n):
                    if fi[j] < 0 and ci[j] == 0 and old[j] + p[j] == 0:
                        ci[j] = _zero_sign(a, b, j, kk[s], old[j], rdn)
    return inexact
