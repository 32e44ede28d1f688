"""Tile generators: TCI (an index sequence) and TTRI (a triangular 0/1 mask).

* ``tci(dst, start, descending=False)``: ``dst[0, k] = start + k`` (or
  ``start - k``) for ``k < valid_cols``; dst has one row (pto-isa
  docs/isa/TCI.md, include/pto/cpu/TCI.hpp). Integers wrap modulo 2**bits,
  as the C++ ``start + k`` stored into the tile's type does; floats (A2A3 and
  cpu only) are the exact ``start +- k`` rounded once to dst's format
  (decision PTO37).
* ``ttri(dst, diagonal, upper_or_lower=0)``: lower (0) writes 1 where
  ``c <= r + diagonal``, else 0; upper (1) writes 0 where ``c < r + diagonal``,
  else 1, over dst's valid region (docs/isa/TTRI.md, include/pto/cpu/TTRI.hpp).
  dst must be row-major: the implementations write rows at the tile's row
  stride.

Elements outside the valid region keep their bytes.
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError, TilesimError
from .. import numerics as nx
from ..tile import Tile, to_bits
from ._common import Op

__all__ = ["tci", "ttri"]


def _flag(op: Op, v, operand: str, rule: str) -> int:
    """A 0/1 template flag, written as bool, int or the text ``true``/``false``."""
    word = str(v).strip().lower()
    m = {"false": 0, "true": 1, "0": 0, "1": 1}
    if word not in m:
        op.fail("must be 0/false or 1/true", operand, rule, v, TilesimError)
    return m[word]


def _integer(op: Op, v, operand: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        op.fail(f"must be an integer, not {type(v).__name__}", operand, "pto.op.operand", v, TilesimError)
    return int(v)


def _mark_overflow(op: Op, dst: Tile, s: int, sign: int) -> None:
    """cpu, i32/i64: ``start + k`` overflowing the type is signed overflow, undefined in C++; x86-64 wraps.
    Mark those lanes in ``dst.undefined``; a strict profile refuses them (rule ``pto.tci.overflow``, PTO71)."""
    info = np.iinfo(dst.dtype.np)
    n = dst.valid_cols
    first = (info.max - s + 1) if sign > 0 else (s - info.min + 1)
    if first < n and op.prof.strict:
        raise SpecGapError(f"start {s} {'+' if sign > 0 else '-'} {first} at element (0, {first}) overflows "
                           f"{dst.dtype}: undefined in C++; strict mode refuses it", instruction=op.inst,
                           operand="start", rule="pto.tci.overflow", value=s)
    dst.mark_undefined((0, slice(first, n)), True)


def tci(dst: Tile, start, *, descending=False, target=None) -> Tile:
    """TCI: write ``start + k`` (``start - k`` when descending) into column k of dst's single valid row."""
    op = Op("tci", target)
    op.tile(dst, "dst")
    op.dtypes("tci", (dst.dtype,), ("dst",))
    if dst.rows != 1:
        op.fail(f"dst must have exactly one row (it has {dst.rows})", "dst", "pto.tci.rows", dst.rows)
    sign = -1 if _flag(op, descending, "descending", "pto.tci.descending") else 1
    k = np.arange(dst.valid_cols, dtype=np.int64)
    if dst.dtype.is_float:
        if isinstance(start, (bool, np.bool_)) or not isinstance(start, (int, float, np.integer, np.floating)):
            op.fail(f"must be a number, not {type(start).__name__}", "start", "pto.op.operand", start, TilesimError)
        s = float(start)
        own = isinstance(start, np.generic) and np.asarray(start).dtype == dst.dtype.np
        code = np.asarray(start).view(dst.dtype.lane).reshape(1) if own else to_bits(np.array([s]), dst.dtype.name)
        if s == s and code.view(dst.dtype.np).astype(np.float64)[0] != s:
            op.fail(f"{start!r} is not a {dst.dtype} value (TCI's scalar has dst's type)", "start",
                    "pto.tci.start", start, TilesimError)
        # |start| <= 2**128 and k < 2**16: start +- k is exact in float64, so this is one rounding
        bits = to_bits(s + sign * k.astype(np.float64), dst.dtype.name)
        if op.prof.x86_nans:  # cpu: a NaN start gives its own payload, quieted (PTO71)
            bits = nx.x86_nans(bits.astype(dst.dtype.lane), code, code, dst.dtype)
    else:
        s = _integer(op, start, "start")
        info = np.iinfo(dst.dtype.np)
        if not info.min <= s <= info.max:
            op.fail(f"{s} is out of {dst.dtype}'s range {info.min}..{info.max} (TCI's scalar has dst's type)",
                    "start", "pto.tci.start", s, TilesimError)
        with np.errstate(over="ignore"):  # uint64 arithmetic wraps modulo 2**64, then keeps dst's low bits
            u = np.uint64(s % (1 << 64))
            bits = (u + k.astype(np.uint64) if sign > 0 else u - k.astype(np.uint64)) & np.uint64(
                (1 << (8 * dst.dtype.size)) - 1)
        if op.prof.x86_nans and dst.dtype.signed and dst.dtype.size >= 4:
            _mark_overflow(op, dst, s, sign)
    dst.bits[0, :dst.valid_cols] = bits.astype(dst.bits.dtype)
    return dst


def ttri(dst: Tile, diagonal, *, upper_or_lower=0, target=None) -> Tile:
    """TTRI: a lower (0) or upper (1) triangular mask of ones and zeros in dst's valid region."""
    op = Op("ttri", target)
    op.tile(dst, "dst")
    op.dtypes("ttri", (dst.dtype,), ("dst",))
    op.layout(dst, "dst", ("ROW_MAJOR",), "a row_major block layout")
    upper = _flag(op, upper_or_lower, "upper_or_lower", "pto.ttri.upper_or_lower")
    d = _integer(op, diagonal, "diagonal")
    if not -(1 << 31) <= d < (1 << 31):
        op.fail("must be a 32-bit integer", "diagonal", "pto.op.operand", d, TilesimError)
    R, C = dst.valid
    r = np.arange(R)[:, None]
    c = np.arange(C)[None, :]
    ones = (c >= r + d) if upper else (c <= r + d)
    one, zero = to_bits(np.array([1.0, 0.0]), dst.dtype.name)
    dst.bits[:R, :C] = np.where(ones, one, zero).astype(dst.bits.dtype)
    return dst
