"""The per-instruction fast path of MMACC / MMACC.T: numba kernels that read, compute and write tiles.

One call does what :func:`tilesim.ame.mmacc.execute` does with dozens of
numpy calls, for the plans it can take (:func:`kernel_args` says which):

- integers (INT4/8/16/32/64 and fixed point whose accumulator keeps every
  fraction bit, so nothing rounds) in every model: with SAT, exact in int64
  where :func:`tilesim.ame.models._needs_python_ints` proves the sums fit;
  without SAT, modulo 2**64 in uint64, since wrapping commutes with addition;
- floats of at most 26 significand bits, ``fused`` model: the float64 sum
  of each result, every product exact and every addition checked exact by its
  TwoSum error. The one rounding to the accumulator is
  :func:`tilesim.ame.rounding.round_values`, as on the reference path.

Operand values come from :mod:`tilesim.ame.lanes`' tables (built by
:func:`tilesim.formats.decode`) or, for FP32, from the tile bytes viewed as
float32. Whatever the kernels do not take (a NaN operand or result, a
non-canonical lane, a sum float64 does not hold, a step-wise float model, other
formats) returns ``None`` before any state changes, and the numpy reference
runs. ``tests/ame/test_jit.py`` holds the two equal, bit for bit and flag for
flag. Compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import formats
from .lanes import _table
from .models import MODELS, _needs_python_ints
from .rounding import round_values

__all__ = ["ENABLED", "kernel_args", "run"]

#: Tests switch the kernels off to run the numpy reference on the same instructions.
ENABLED = True

_NO_TABLE = np.zeros(1)  # FP32 lanes read the float32 view
_NO_TABLE.flags.writeable = False  # read-only, as the lanes tables are: one compiled type for both
_FUSED = MODELS.index("fused")
_helper = njit(cache=True, error_model="numpy", no_cpython_wrapper=True)  # called from the kernels only
_inline = njit(cache=True, error_model="numpy", no_cpython_wrapper=True, inline="always")  # in their hot loops


# ------------------------------------------------------------- tile access
@_inline
def _code(tiles, t, r, e, lane_bits):
    """The lane code of element ``e`` of row ``r`` of tile ``t`` (uint64; 4-bit lanes: element 2i low)."""
    if lane_bits == 4:
        byte = np.uint64(tiles[t, 16 * r + (e >> 1)])
        return (byte >> np.uint64(4 * (e & 1))) & np.uint64(0xF)
    nb = lane_bits >> 3
    base = 16 * r + e * nb
    c = np.uint64(0)
    for i in range(nb):
        c |= np.uint64(tiles[t, base + i]) << np.uint64(8 * i)
    return c


@_inline
def _put(tiles, t, r, e, lane_bits, code):
    """Write a lane code (uint64), leaving the other bits of the row as they are."""
    if lane_bits == 4:
        i = 16 * r + (e >> 1)
        shift = 4 * (e & 1)
        keep = np.uint64(tiles[t, i]) & np.uint64(0xF0 >> shift)
        tiles[t, i] = np.uint8(keep | ((code & np.uint64(0xF)) << np.uint64(shift)))
        return
    nb = lane_bits >> 3
    base = 16 * r + e * nb
    for i in range(nb):
        tiles[t, base + i] = np.uint8((code >> np.uint64(8 * i)) & np.uint64(0xFF))


@_inline
def _signed(code, bits):
    """The two's complement value of a ``bits``-wide code."""
    if bits == 64:
        return np.int64(code)
    v = np.int64(code)
    return v - (np.int64(1) << bits) if v >= (np.int64(1) << (bits - 1)) else v


@_inline
def _value(tiles, tiles32, t, r, e, lane_bits, table):
    """The float64 value of a lane: the table for narrow lanes, the float32 view for FP32."""
    if lane_bits == 32:
        return np.float64(tiles32[t, 4 * r + e])
    return table[_code(tiles, t, r, e, lane_bits)]


@_inline
def _place(out, s, r, e, transposed, v):
    """Store element (r, e) of a tile at ``out[s, r, e]``, or at ``out[s, e, r]`` when ``transposed``."""
    if transposed:
        out[s, e, r] = v
    else:
        out[s, r, e] = v


@_helper
def _columns(m, per_row):
    """(tile, lane) of each of m columns: a matrix continues in the next tile every ``per_row`` columns."""
    tile = np.empty(m, np.int64)
    lane = np.empty(m, np.int64)
    for j in range(m):  # divisions once per call, not once per element
        tile[j], lane[j] = divmod(j, per_row)
    return tile, lane


@_helper
def _int_matrices(tiles, first, count, stride, m, k, transposed, lane_bits, per_row):
    """``count`` m x k integer matrices from tiles ``first``, ``first + stride``, ...: (count, m, k) int64,
    or (count, k, m) transposed. A matrix continues in the next tile every ``per_row`` columns."""
    out = np.empty((count, k, m) if transposed else (count, m, k), np.int64)
    jt, je = _columns(k, per_row)
    for s in range(count):
        for r in range(m):
            for e in range(k):
                v = _signed(_code(tiles, first + s * stride + jt[e], r, je[e], lane_bits), lane_bits)
                _place(out, s, r, e, transposed, v)
    return out


@_helper
def _float_matrices(tiles, tiles32, first, count, stride, m, k, transposed, lane_bits, per_row, table):
    """As :func:`_int_matrices`, for float values (float64) of narrow lanes (``table``) or FP32."""
    out = np.empty((count, k, m) if transposed else (count, m, k))
    jt, je = _columns(k, per_row)
    for s in range(count):
        for r in range(m):
            for e in range(k):
                v = _value(tiles, tiles32, first + s * stride + jt[e], r, je[e], lane_bits, table)
                _place(out, s, r, e, transposed, v)
    return out


@njit(cache=True, error_model="numpy")
def write_results(tiles, tc, span, acc_lane, acc_e, codes):
    """Write result ``s`` (codes (n, m, m), uint64) as the matrix from tile ``tc + s * span``."""
    n, m, _ = codes.shape
    jt, je = _columns(m, acc_e)
    for s in range(n):
        for i in range(m):
            for j in range(m):
                _put(tiles, tc + s * span + jt[j], i, je[j], acc_lane, codes[s, i, j])


# ---------------------------------------------------------------- integers
@njit(cache=True, error_model="numpy")
def int_mac(tiles, ta, tb, tc, n_a, n_b, span, m, k, btr, beta, ft_lane, acc_lane, acc_e, model, saturate, lo,
            hi):
    """Integer MMACC on the tiles, in place: returns whether a result clamped.

    A tiles ``ta..``, B tiles ``tb..``, result ``ia * n_b + ib`` from tile
    ``tc + (ia * n_b + ib) * span``; ``ft_lane`` / ``acc_lane``: lane (= code)
    bits; ``acc_e``: accumulator elements per tile row; ``model``: index in
    :data:`MODELS`; ``lo``, ``hi``: the accumulator's range. Every operand is
    read before any result is written.
    """
    a = _int_matrices(tiles, ta, n_a, 1, m, k, btr & 2 != 0, ft_lane, k)  # a[., i, kk]
    b = _int_matrices(tiles, tb, n_b, 1, m, k, btr & 1 == 0, ft_lane, k)  # b[., j, kk]
    n = n_a * n_b
    c = np.zeros((n, m, m), np.int64) if beta else _int_matrices(tiles, tc, n, span, m, m, False, acc_lane, acc_e)
    out = np.empty((n, m, m), np.uint64)
    hit = False
    for s in range(n):  # no tile reads in here: the compiler vectorises it
        ia, ib = divmod(s, n_b)
        for i in range(m):
            for j in range(m):
                if not saturate:  # wrapping commutes with addition: every model is the sum modulo 2**64
                    u = np.uint64(c[s, i, j])
                    for kk in range(k):
                        u += np.uint64(a[ia, i, kk]) * np.uint64(b[ib, j, kk])
                    out[s, i, j] = u
                    continue
                v = c[s, i, j] if model != 2 else np.int64(0)
                for kk in range(k):
                    v += a[ia, i, kk] * b[ib, j, kk]
                    if model != _FUSED and (v < lo or v > hi):
                        hit = True
                        v = lo if v < lo else hi
                if model == 2:  # chain_then_add: C last
                    v += c[s, i, j]
                if v < lo or v > hi:
                    hit = True
                    v = lo if v < lo else hi
                out[s, i, j] = np.uint64(v)
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) if acc_lane == 64 else (np.uint64(1) << np.uint64(acc_lane)) - np.uint64(1)
    for s in range(n):
        for i in range(m):
            for j in range(m):
                out[s, i, j] &= mask
    write_results(tiles, tc, span, acc_lane, acc_e, out)
    return hit


# ------------------------------------------------------------------ floats
@njit(cache=True, error_model="numpy")
def float_fused(tiles, tiles32, ta, tb, tc, n_a, n_b, span, m, k, btr, beta, ft_lane, ft_table, acc_lane,
                acc_table, acc_e, rdn):
    """``C + sum_k a_k b_k`` of every result in float64 (tiles as :func:`int_mac`): (sums (n, m, m), exact).

    Products of significands of at most 26 bits are exact; each addition is
    checked exact by its TwoSum error (Knuth), so a rounded sum is never
    returned: ``exact`` is False (the caller runs the reference) at the first
    one, and at a NaN operand or result (a non-canonical lane reads as NaN
    from the tables). An infinite sum is exact as it stands. A zero sum gets
    the reference's sign rule: -0 when every term is -0, or when rounding
    toward -inf and not every term is +0.
    """
    a = _float_matrices(tiles, tiles32, ta, n_a, 1, m, k, btr & 2 != 0, ft_lane, k, ft_table)  # a[., i, kk]
    b = _float_matrices(tiles, tiles32, tb, n_b, 1, m, k, btr & 1 != 0, ft_lane, k, ft_table)  # b[., kk, j]
    n = n_a * n_b
    c = np.zeros((n, m, m)) if beta else _float_matrices(tiles, tiles32, tc, n, span, m, m, False, acc_lane, acc_e,
                                                          acc_table)
    out = np.empty((n, m, m))
    total = np.empty(m)
    err = np.empty(m)
    for s in range(n):  # no tile reads in here: the compiler vectorises it
        ia, ib = divmod(s, n_b)
        for i in range(m):
            for j in range(m):
                total[j] = c[s, i, j]
                err[j] = 0.0
            for kk in range(k):  # over j innermost: independent sums, which the compiler vectorises
                x = a[ia, i, kk]
                for j in range(m):
                    p = x * b[ib, kk, j]
                    t = total[j] + p
                    z = t - total[j]
                    err[j] += abs((total[j] - (t - z)) + (p - z))  # TwoSum: 0 when t is exact
                    total[j] = t
            for j in range(m):
                if math.isnan(total[j]) or (err[j] != 0 and math.isfinite(total[j])):
                    return out, False
                out[s, i, j] = total[j]
                if total[j] == 0:
                    out[s, i, j] = _zero(a[ia, i], b[ib, :, j], c[s, i, j], rdn)
    return out, True


@_helper
def _zero(a, b, c, rdn):
    """The sign of an exact zero sum: -0 when every term is -0, or toward -inf when not every term is +0."""
    neg0 = pos0 = c == 0
    neg0 = neg0 and math.copysign(1.0, c) < 0
    pos0 = pos0 and not neg0
    for kk in range(a.size):
        p = a[kk] * b[kk]
        neg = math.copysign(1.0, p) < 0
        neg0 = neg0 and p == 0 and neg
        pos0 = pos0 and p == 0 and not neg
    return -0.0 if neg0 or (rdn and not pos0) else 0.0


# ---------------------------------------------------------------- dispatch
def _lanes_canonical(fmt) -> bool:
    """Every lane pattern is a code (lanes of 4 to 64 bits that the code fills)."""
    return fmt.bits == fmt.lane_bits and fmt.lane_bits in (4, 8, 16, 32, 64)


def _float_lane(fmt) -> bool:
    """The kernels read this float format: a table up to 16 bits, or FP32's float32 view."""
    return fmt.lane_bits <= 16 or fmt.name == "fp32"


def kernel_args(p):
    """("int" | "float", the kernel's plan-fixed arguments, where results go) for a plan the kernels take.

    ``None`` for the plans they do not take. Where results go: the
    :func:`write_results` arguments (first C tile, tiles per result, accumulator lane bits and elements per row).
    """
    ft, acc = p.ft, p.acc
    geometry = (p.a_tiles[0], p.b_tiles[0], p.pairs[0][2], len(p.a_tiles), len(p.b_tiles), p.tiles_per_result,
                p.m, p.k, p.btr, p.beta)
    acc_e = formats.elements_per_row(acc)
    dest = (p.pairs[0][2], p.tiles_per_result, acc.lane_bits, acc_e)
    if not ft.is_float:
        if 2 * ft.frac_bits != acc.frac_bits or not (_lanes_canonical(ft) and _lanes_canonical(acc)):
            return None  # a fixed-point accumulator that rounds, or codes narrower than their lanes
        if p.saturate and _needs_python_ints(ft, acc, p.k, 0):
            return None
        return "int", (*geometry, ft.lane_bits, acc.lane_bits, acc_e), dest
    if ft.man_bits + 1 > 26 or not (_float_lane(ft) and _float_lane(acc)):
        return None
    tables = tuple(_table(f) if f.lane_bits <= 16 else _NO_TABLE for f in (ft, acc))
    return "float", (*geometry, ft.lane_bits, tables[0], acc.lane_bits, tables[1], acc_e, p.rounding == "rdn"), dest


def run(tiles: np.ndarray, p, model: str):
    """Run a planned instruction on ``tiles`` in place: (inexact, sat_hit), or ``None`` (nothing changed)."""
    args = p.kernel if ENABLED else None
    if args is None:
        return None
    kind, fixed, dest = args
    if kind == "int":
        acc = p.acc
        return False, int_mac(tiles, *fixed, MODELS.index(model), p.saturate, acc.int_min, acc.int_max)
    if model != "fused":
        return None
    sums, ok = float_fused(tiles, tiles.view(np.float32), *fixed)
    if not ok:
        return None
    codes, _, inexact, sat = round_values(sums, p.acc, p.rounding, p.saturate and not p.acc.has_inf)
    tc, span, lane_bits, e = dest
    n, m, _ = codes.shape
    if lane_bits >= 8 and m % e == 0:  # whole columns of whole lanes: one numpy store into the tiles' view
        view = tiles[tc:tc + n * span].view(codes.dtype).reshape(n, span, 16, e)
        view[:, :, :m] = codes.reshape(n, m, span, e).transpose(0, 2, 1, 3)
    else:
        write_results(tiles, *dest, codes.astype(np.uint64))
    return inexact, sat
