"""numba kernels of the ``cpu`` target's fast paths: one pass over a tile, no temporaries.

Each kernel computes what the numpy reference computes (:mod:`tilesim.pto.numerics`,
:mod:`tilesim.pto.ops.reduce`), in the same IEEE float32 operations and the same
order, so the bits agree wherever the kernel answers:

- :func:`run`: ``+ - * /``, ``sqrt``, ``1/x``, the ``first`` NaN rule's max,
  min and relu (``a < b ? b : a``, which keeps the chosen operand's bits, NaN
  payloads and zero signs included), x86's abs (``x < 0 ? -x : x``) and neg as
  bit operations. The arithmetic ones report a NaN result, whose payload the
  caller's exact path decides.
- :func:`whole`: the same element-wise ops on whole tiles' ``bits`` (2-D), one
  call per op call with no layout analysis, for the prepared calls of PTO114.
- :func:`rowsum`: TROWSUM in the CPU simulator's vectorised order (two 4-lane
  partial sums over each 8 columns, then the lanes, then the remainder; PTO91).
- :func:`sequential`: a sum or product from +0 or 1, element after element
  (TCOLSUM, TROWPROD, TCOLPROD of f32; every f32-accumulated sum and product on
  the NPUs, with subnormal steps flushed, PTO194).
- :func:`picked`: each row's lane at an argmax's column, with counts of NaNs
  and zeros among them (the row arg ops' test for lines the scan must decide).
- :func:`certify`: float64 results of exp, log and 1/sqrt rounded to f32 where
  the certificate of decision PTO105 holds (and PTO170's zeros and
  overflows); the other lanes are returned for the exact path.
- :func:`f16_widen` and :func:`f16_round`: f16 codes to f32 codes exactly, and
  f32 codes to f16 rounded to nearest even (decision PTO171), where numpy's
  float16 casts run element by element.

LLVM keeps IEEE semantics here (no fast-math): it vectorises only across
independent lanes and never reorders a sum. Operands are 2-D with contiguous rows
(a tile's valid region, or a broadcast row, column or scalar): :func:`rows` turns
each into a flat buffer, a row step and a column step (0 where broadcast), so that
one compiled kernel serves every shape. ``tests/pto/test_jit.py`` and
``tests/pto/test_fast_paths.py`` hold every kernel to the numpy reference.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.lib.stride_tricks import as_strided

__all__ = ["OPS", "WHOLE_OPS", "TILE", "FIRST", "FLUSH", "rows", "run", "whole", "rowsum", "sequential", "picked",
           "certify", "f16_widen", "f16_round", "LOW29", "NEAR29", "SHIFT29", "TINY", "HUGE"]

_kernel = njit(cache=True, nogil=True, error_model="numpy")
_inline = njit(cache=True, error_model="numpy", inline="always")


def rows(x: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, int, int] | None:
    """(flat buffer, row step, column step) of a 0-, 1- or 2-D array broadcast to ``shape``, in elements (a step
    is 0 where the array broadcasts; the column step 1 wherever the array has ``shape``'s columns); None when
    its rows are not contiguous. The buffer is a view (a copy of a read-only array)."""
    R, C = shape
    if x.ndim == 2:
        r, c = x.shape
    elif x.ndim < 2:
        r, c = 1, x.size
    else:
        return None
    if x.flags.c_contiguous:
        if r in (1, R) and c in (1, C):  # a read-only operand (a kept scalar) copied: one compiled type for all
            return (x.reshape(-1) if x.flags.writeable else x.reshape(-1).copy()), c if r > 1 else 0, int(c == C)
        return None
    size = x.itemsize
    if x.ndim != 2 or r not in (1, R) or c not in (1, C) or (c > 1 and x.strides[1] != size) \
            or x.strides[0] % size or x.strides[0] < 0:
        return None
    s0 = x.strides[0] // size if r > 1 else 0
    flat = as_strided(x, shape=((r - 1) * s0 + c,), strides=(size,))
    return flat if x.flags.writeable else flat.copy(), s0, int(c == C)


# ------------------------------------------------------------ element-wise
@_inline
def _add(x, y):
    return x + y


@_inline
def _sub(x, y):
    return x - y


@_inline
def _mul(x, y):
    return x * y


@_inline
def _div(x, y):
    return x / y


@_inline
def _max(x, y):
    return y if x < y else x


@_inline
def _min(x, y):
    return y if y < x else x


_TINY32 = np.float32(2.0 ** -126)  # the smallest normal f32


@_inline
def _ftz(x):
    """A subnormal float32 as the zero of its sign (others, NaN included, as they are): the NPUs' flush."""
    return np.float32(math.copysign(0.0, x)) if abs(x) < _TINY32 else x


@_inline
def _add_ftz(x, y):
    return _ftz(_ftz(x) + _ftz(y))


@_inline
def _sub_ftz(x, y):
    return _ftz(_ftz(x) - _ftz(y))


@_inline
def _mul_ftz(x, y):
    return _ftz(_ftz(x) * _ftz(y))


@_inline
def _div_ftz(x, y):
    return _ftz(_ftz(x) / _ftz(y))


@_inline
def _loops(f, a, sa, ca, b, sb, cb, out, so, R, C):
    """``out = f(a, b)`` row by row on f32 codes read as float32 values, one loop for each way the operands
    broadcast (so that each vectorises; :func:`run` makes sure one of them has whole rows); True when a result
    is NaN."""
    a, b, out = a.view(np.float32), b.view(np.float32), out.view(np.float32)
    nan = False
    for i in range(R):
        o = out[i * so:i * so + C]
        if ca and cb:
            x, y = a[i * sa:i * sa + C], b[i * sb:i * sb + C]
            for j in range(C):
                r = f(x[j], y[j])
                o[j] = r
                nan |= r != r
        elif ca:
            x, t = a[i * sa:i * sa + C], b[i * sb]
            for j in range(C):
                r = f(x[j], t)
                o[j] = r
                nan |= r != r
        else:
            t, y = a[i * sa], b[i * sb:i * sb + C]
            for j in range(C):
                r = f(t, y[j])
                o[j] = r
                nan |= r != r
    return nan


# One kernel per op (one taking the op as an argument does not vectorise); each compiles on its first use.
@_kernel
def _add_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_add, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _sub_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_sub, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _mul_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_mul, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _div_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_div, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _max_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_max, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _min_k(a, sa, ca, b, sb, cb, out, so, R, C):
    return _loops(_min, a, sa, ca, b, sb, cb, out, so, R, C)


@_kernel
def _sqrt_k(a, sa, ca, out, so, R, C):
    a, out = a.view(np.float32), out.view(np.float32)
    nan = False
    for i in range(R):
        x, o = a[i * sa:i * sa + C], out[i * so:i * so + C]
        for j in range(C):
            r = math.sqrt(x[j])
            o[j] = r
            nan |= r != r
    return nan


_SIGN = np.uint32(0x80000000)
_NEG_LO, _NEG_SPAN = np.uint32(0x80000001), np.uint32(0x7F800000)  # codes 0x80000001..0xFF800000: x < 0


@_kernel
def _abs_k(a, sa, ca, out, so, R, C):
    """x86's ``x < 0 ? -x : x`` on f32 codes: the sign flipped where x < 0 (not on -0 or a NaN)."""
    for i in range(R):
        x, o = a[i * sa:i * sa + C], out[i * so:i * so + C]
        for j in range(C):
            o[j] = x[j] ^ (_SIGN if np.uint32(x[j] - _NEG_LO) < _NEG_SPAN else np.uint32(0))
    return False


@_kernel
def _neg_k(a, sa, ca, out, so, R, C):
    for i in range(R):
        x, o = a[i * sa:i * sa + C], out[i * so:i * so + C]
        for j in range(C):
            o[j] = x[j] ^ _SIGN
    return False


#: op -> kernel (every one takes f32 codes; the unary ones a full operand)
_OPS = {"add": _add_k, "sub": _sub_k, "mul": _mul_k, "div": _div_k, "max": _max_k, "min": _min_k, "sqrt": _sqrt_k,
        "abs": _abs_k, "neg": _neg_k}
#: unary ops that are a binary kernel with a constant operand (and whether it comes first): ``1 / x``, and
#: relu's ``max(x, +0)`` under the ``first`` rule
_WITH_CONSTANT = {"recip": ("div", np.full(1, 0x3F800000, np.uint32), True),
                  "relu": ("max", np.zeros(1, np.uint32), False)}
#: ops that select an operand's bits: their NaN results are final
_SELECTS = ("max", "min")
#: every op :func:`run` takes
OPS = frozenset(_OPS) | frozenset(_WITH_CONSTANT)


def run(op: str, a: np.ndarray, b: np.ndarray | None, out: np.ndarray) -> bool | None:
    """``out = a (op) b`` or ``op(a)`` on f32 lanes (uint32 codes; ``a`` and ``b`` broadcast to ``out``'s shape,
    which has at most 2 dimensions). Returns False when an arithmetic result is NaN (``out`` then holds some NaN
    there: the caller's exact path decides its payload), None when an operand's layout is not one the kernels take
    (nothing written), else True. ``out`` must not overlap ``a`` or ``b`` unless it is the same array."""
    if op in _WITH_CONSTANT:
        op, c, first = _WITH_CONSTANT[op]
        a, b = (c, a) if first else (a, c)
    kernel = _OPS[op]
    shape = out.shape if out.ndim == 2 else (1, out.size) if out.ndim < 2 else None
    if shape is None or out.dtype != np.uint32:
        return None
    o, x = rows(out, shape), rows(a, shape)
    if b is None:
        if o is None or x is None or not x[2]:
            return None
        return not kernel(*x, o[0], o[1], *shape)
    y = rows(b, shape)
    if o is None or x is None or y is None or not (x[2] or y[2]):
        return None
    return not kernel(*x, *y, o[0], o[1], *shape) or op in _SELECTS


#: :func:`whole`'s op codes, plus what its second operand is: another tile (:data:`TILE`), a scalar put first
#: (:data:`FIRST`), or else a scalar put second (the unary ops sqrt, abs, neg read none)
WHOLE_OPS = {"add": 0, "sub": 1, "mul": 2, "div": 3, "max": 4, "min": 5, "sqrt": 6, "abs": 7, "neg": 8}
TILE, FIRST = 16, 32
#: :func:`whole`'s flag for add, sub, mul and div on targets that flush: subnormal sources and results read as
#: zeros of their sign (decision PTO118)
FLUSH = 64


@_inline
def _lanes(f, x, y, how, o, R, C):
    """``o[i, j] = f(x[i, j], y[i, j])`` (``how`` 1), ``f(x[i, j], y[0, 0])`` (0) or ``f(y[0, 0], x[i, j])`` (2)
    on R x C float32 lanes of 2-D arrays; True when a result is NaN. Each loop vectorises."""
    nan = False
    s = y[0, 0]
    for i in range(R):
        xi, oi = x[i], o[i]
        if how == 1:
            yi = y[i]
            for j in range(C):
                r = f(xi[j], yi[j])
                oi[j] = r
                nan |= r != r
        elif how == 2:
            for j in range(C):
                r = f(s, xi[j])
                oi[j] = r
                nan |= r != r
        else:
            for j in range(C):
                r = f(xi[j], s)
                oi[j] = r
                nan |= r != r
    return nan


@_kernel
def whole(code, a, b, out, R, C):
    """``out = a (op) b`` or ``op(a)`` on the top-left R x C lanes of whole tiles' f32 codes (2-D C-contiguous
    uint32 arrays, ``out`` apart from the others), ``code`` from :data:`WHOLE_OPS` plus :data:`TILE` (``b`` a
    tile) or :data:`FIRST` (``b[0, 0]`` a scalar put first; without either, put second), and :data:`FLUSH` (add,
    sub, mul, div: subnormal sources and results flushed, PTO118): the lanes of one op call in one pass, as one
    row when they fill whole rows of every tile (decision PTO114). Returns False when an
    arithmetic result is NaN (the caller's exact path decides its payload), else True."""
    op, how, flush = code & 15, (code >> 4) & 3, code >= FLUSH
    if C == a.shape[1] and C == out.shape[1] and (how != 1 or C == b.shape[1]):
        a, out, R, C = a.reshape(1, a.size), out.reshape(1, out.size), 1, R * C
        if how == 1:
            b = b.reshape(1, b.size)
    if op >= 7:  # abs as x86 computes it, neg: bit operations on the codes
        for i in range(R):
            xi, oi = a[i], out[i]
            if op == 7:
                for j in range(C):
                    oi[j] = xi[j] ^ (_SIGN if np.uint32(xi[j] - _NEG_LO) < _NEG_SPAN else np.uint32(0))
            else:
                for j in range(C):
                    oi[j] = xi[j] ^ _SIGN
        return True
    x, y, o = a.view(np.float32), b.view(np.float32), out.view(np.float32)
    if op == 6:
        nan = False
        for i in range(R):
            xi, oi = x[i], o[i]
            for j in range(C):
                r = math.sqrt(xi[j])
                oi[j] = r
                nan |= r != r
        return not nan
    if flush:
        if op == 0:
            return not _lanes(_add_ftz, x, y, how, o, R, C)
        if op == 1:
            return not _lanes(_sub_ftz, x, y, how, o, R, C)
        if op == 2:
            return not _lanes(_mul_ftz, x, y, how, o, R, C)
        return not _lanes(_div_ftz, x, y, how, o, R, C)
    if op == 0:
        return not _lanes(_add, x, y, how, o, R, C)
    if op == 1:
        return not _lanes(_sub, x, y, how, o, R, C)
    if op == 2:
        return not _lanes(_mul, x, y, how, o, R, C)
    if op == 3:
        return not _lanes(_div, x, y, how, o, R, C)
    if op == 4:
        _lanes(_max, x, y, how, o, R, C)  # selects: NaN results are final
    else:
        _lanes(_min, x, y, how, o, R, C)
    return True


# --------------------------------------------------------------- reduces
@_kernel
def rowsum(x, sx, out, R, C):
    """TROWSUM of R x C f32 values (:func:`rows` of them: buffer, row step) in the CPU simulator's vectorised
    order, into ``out`` (R f32); True when a sum is NaN. (Offsets are unsigned: numba then adds no negative-index
    test to each load, and LLVM vectorises the 8 partial sums.)"""
    nan = False
    m = C // 8 * 8
    z, u8 = np.float32(0), np.uint64(8)
    for i in range(R):
        a = np.uint64(i) * np.uint64(sx)
        p0 = p1 = p2 = p3 = p4 = p5 = p6 = p7 = z
        for k in range(m // 8):
            o = a + np.uint64(k) * u8
            p0, p1, p2, p3 = p0 + x[o], p1 + x[o + np.uint64(1)], p2 + x[o + np.uint64(2)], p3 + x[o + np.uint64(3)]
            p4, p5 = p4 + x[o + np.uint64(4)], p5 + x[o + np.uint64(5)]
            p6, p7 = p6 + x[o + np.uint64(6)], p7 + x[o + np.uint64(7)]
        acc = (((p0 + p4) + (p1 + p5)) + (p2 + p6)) + (p3 + p7) if m else z
        for j in range(m, C):
            acc = acc + x[a + np.uint64(j)]
        out[i] = acc
        nan |= acc != acc
    return nan


@_kernel
def sequential(prod, x, sx, out, R, C, axis, flush):
    """Sum (``prod`` False, from +0) or product (from 1) of R x C f32 values (:func:`rows` of them) along
    ``axis``, element after element in index order, into ``out`` (f32, one per line); ``flush``: each step's
    subnormal result becomes a zero of its sign (the NPUs, PTO194). True when one is NaN."""
    start = np.float32(1) if prod else np.float32(0)
    tiny = np.float32(2.0 ** -126)
    nan = False
    if axis == 0:
        out[:] = start
        for i in range(R):
            v = x[i * sx:i * sx + C]
            if prod:
                for j in range(C):
                    out[j] = out[j] * v[j]
            else:
                for j in range(C):
                    out[j] = out[j] + v[j]
            if flush:
                for j in range(C):
                    if abs(out[j]) < tiny:
                        out[j] = np.float32(math.copysign(0.0, out[j]))
        for j in range(C):
            nan |= out[j] != out[j]
        return nan
    for i in range(R):  # unsigned offsets, as in rowsum
        a = np.uint64(i) * np.uint64(sx)
        acc = start
        for j in range(C):
            acc = acc * x[a + np.uint64(j)] if prod else acc + x[a + np.uint64(j)]
            if flush and abs(acc) < tiny:
                acc = np.float32(math.copysign(0.0, acc))
        out[i] = acc
        nan |= acc != acc
    return nan


@_kernel
def picked(x, idx, out):
    """``out[i] = x[i, idx[i]]`` for a 2-D float32 array (each row's value at an argmax's column); returns (how
    many of them are NaN, how many are zeros)."""
    nan = zero = 0
    for i in range(idx.size):
        v = x[i, idx[i]]
        out[i] = v
        nan += v != v
        zero += v == 0
    return nan, zero


# ----------------------------------------------------------- exp, log, 1/sqrt
#: the certificate's float64 bit fields: the 29 bits a cast to f32 drops; a modular shift that puts the window of
#: 2**5 ulps either side of their midpoint at 0..NEAR29 (decision PTO105); the normal f32 range
LOW29, NEAR29 = np.uint64((1 << 29) - 1), np.uint64(1 << 6)
SHIFT29 = np.uint64((1 << 29) - (1 << 28) + (1 << 5))
TINY, HUGE = 2.0 ** -126, 2.0 ** 128


@_kernel
def certify(y, ybits, out):
    """f32 codes of float64 results ``y`` (1-D; ``ybits`` their uint64 view) rounded to f32 into ``out``, where
    the certificate of decision PTO105 holds (a normal f32 result whose dropped 29 bits lie more than 32 float64
    ulps from their midpoint), or the result is 0 or at least 2**128 in magnitude (PTO170). Returns how many
    lanes fail it (their ``out`` lanes are then to be replaced by the exact path)."""
    bad = 0
    o = out.view(np.float32)
    for i in range(y.size):
        v = y[i]
        o[i] = np.float32(v)
        a = abs(v)
        near = ((ybits[i] + SHIFT29) & LOW29) <= NEAR29
        bad += (near or not (a >= TINY and a < HUGE)) and not (a == 0 or a >= HUGE)
    return bad


# ------------------------------------------------------------------ f16 codes
@_kernel
def f16_widen(h, out):
    """float32 codes of f16 codes ``h`` (1-D), exactly: a normal code rebiased, a subnormal ``m * 2**-24``
    through its float32 value. Infinities and NaNs (payload shifted up) keep their class."""
    o = out.view(np.float32)
    for i in range(h.size):
        v = np.uint32(h[i])
        sign = (v & np.uint32(0x8000)) << np.uint32(16)
        e = (v >> np.uint32(10)) & np.uint32(0x1F)
        m = v & np.uint32(0x3FF)
        normal = sign | ((e + np.uint32(112)) << np.uint32(23)) | (m << np.uint32(13))
        special = sign | np.uint32(0x7F800000) | (m << np.uint32(13))
        out[i] = special if e == 31 else normal
        if e == 0:  # zero or subnormal: exact in float32 (an integer below 2**10 times a power of two)
            o[i] = np.float32(m) * np.float32(2.0 ** -24) * (np.float32(-1) if sign else np.float32(1))
    return False


@_kernel
def f16_round(x, out):
    """f16 codes of float32 codes ``x`` (1-D, no NaN) rounded once to nearest even: at least 65520 in magnitude
    (the overflow threshold) gives Inf; a normal f16 drops 13 bits with the carry of round to nearest even; a
    subnormal one shifts the 24-bit significand right by the bits below 2**-24, rounding the same way."""
    for i in range(x.size):
        v = x[i]
        sign = (v >> np.uint32(16)) & np.uint32(0x8000)
        a = v & np.uint32(0x7FFFFFFF)
        # normal: rebias, then add 0xFFF plus the kept lowest bit (ties to even); a carry may reach Inf
        n = (a - np.uint32(112 << 23) + np.uint32(0xFFF) + ((a >> np.uint32(13)) & np.uint32(1))) >> np.uint32(13)
        # subnormal: significand M * 2**(e - 150) = q * 2**-24 with q = M >> s, s = 126 - e (e the f32 exponent)
        e = a >> np.uint32(23)
        s = np.uint32(126) - e if e <= np.uint32(125) else np.uint32(1)
        s = s if s < np.uint32(26) else np.uint32(26)  # below 2**-25: 0 (s = 26 leaves nothing, no half)
        big = (a & np.uint32(0x7FFFFF)) | (np.uint32(0x800000) if e else np.uint32(0))
        q = big >> s
        rem = big & ((np.uint32(1) << s) - np.uint32(1))
        half = np.uint32(1) << (s - np.uint32(1))
        q = q + np.uint32((rem > half) | ((rem == half) & ((q & np.uint32(1)) != np.uint32(0))))
        r = np.uint32(0x7C00) if a >= np.uint32(0x477FF000) else (n if a >= np.uint32(0x38800000) else q)
        out[i] = np.uint16(r | sign)
    return False
