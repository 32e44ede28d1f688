"""TGATHER: gather by an index tile, or compact by a fixed mask pattern (pto-isa include/pto/cpu/TGather.hpp).

* Index form ``tgather(dst, src, indices, tmp=None)``: for each element of
  dst's valid region, ``k = indices[i, j]`` (4-byte integers) names src's
  element ``(k // src.cols, k % src.cols)`` (a flat index over src's whole
  capacity, row-major); an index outside ``0 .. rows*cols-1`` gives 0. dst
  and src share a dtype; tmp is accepted and unused.
* Mask form ``tgather(dst, src, mask_pattern=P)``: the src elements whose
  column (``axis="row"``) or row (``axis="col"``) matches the pattern are
  written one after another: row form fills dst's storage row by row (dst
  must be row-major with all columns valid); column form keeps the selected
  rows (dst's valid rows must equal their count and dst's rows). Bits are
  copied (dst and src must have the same element size).

* Compare form ``tgather(dst, src, k, tmp=None, *, cdst, cmp_mode="eq", offset=0)``
  (PTOAS's ``kValue`` scalar form, decision PTO159): on A2A3, each valid row
  ``i`` of src keeps the indices ``offset + i * src.cols + j`` (uint32,
  wrapping) of the elements with ``src[i, j] (cmp) k`` (``eq`` or ``gt``; k
  in src's dtype), written one after another from the start of dst's row i
  (the rest of the row unchanged); ``cdst``'s lane i (flat) gets their count.
  tmp (A2A3's compare bitmap, with its index and k scratch in the UB bytes
  after it) is accepted; tilesim keeps that scratch to itself.
  A5 (whose float path compares converted int32 codes unsigned) and cpu (the
  simulator has no compare form) refuse it (``pto.tgather.form``), as does a
  k tile (pto-isa's per-row ``k_value``).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..tile import Tile
from ._common import Op

__all__ = ["tgather", "MASK_PATTERNS"]

#: pattern -> (period, selected index mod period); P1111 selects everything
MASK_PATTERNS = {"p0101": (2, 0), "p1010": (2, 1), "p0001": (4, 0), "p0010": (4, 1), "p0100": (4, 2),
                 "p1000": (4, 3), "p1111": (1, 0)}
_CODES = dict(zip("1234567", MASK_PATTERNS))


def _pattern(op: Op, p) -> tuple[int, int]:
    key = str(p).strip()
    if key.startswith("#") and "<" in key:
        key = key[key.index("<") + 1: key.rindex(">")]
    key = _CODES.get(key, key).lower()
    if key not in MASK_PATTERNS:
        op.fail("mask_pattern must be one of P0101, P1010, P0001, P0010, P0100, P1000, P1111", "mask_pattern",
                "pto.tgather.pattern", p, TilesimError)
    return MASK_PATTERNS[key]


def tgather(dst: Tile, src: Tile, indices=None, tmp: Tile | None = None, *, mask_pattern=None,
            axis: str = "row", cdst: Tile | None = None, cmp_mode: str = "eq", offset: int = 0, target=None) -> Tile:
    """TGATHER by ``indices``, by ``mask_pattern``, or (with ``cdst``) by comparing src with the scalar
    ``indices`` (k) (see the module docstring)."""
    op = Op("tgather", target)
    op.tile(dst, "dst")
    op.tile(src, "src")
    if cdst is not None and mask_pattern is None:
        return _by_compare(op, dst, cdst, src, indices, tmp, cmp_mode, offset)
    if not ((indices is None) ^ (mask_pattern is None)):
        op.fail("give exactly one of indices, mask_pattern, or k with cdst (the compare form)", "indices",
                "pto.tgather.form", None, TilesimError)
    if indices is not None:
        return _by_index(op, dst, src, indices, tmp)
    period, sel = _pattern(op, mask_pattern)
    if not (dst.is_row_major and src.is_row_major):
        op.fail("mask gathers need row-major tiles", "dst", "pto.op.layout", dst.layout)
    if dst.dtype.size != src.dtype.size:
        op.fail(f"dst's {dst.dtype} and src's {src.dtype} differ in size", "dst", "pto.op.dtype",
                (str(src.dtype), str(dst.dtype)), DtypeError)
    R, C = src.valid
    if axis == "row":
        if dst.valid_cols != dst.cols:
            op.fail(f"dst must have all {dst.cols} columns valid", "dst", "pto.tgather.dst_cols", dst.valid_cols)
        picked = src.bits[:R, :C][:, np.arange(C) % period == sel].reshape(-1)
        if picked.size > dst.numel:
            op.fail(f"{picked.size} selected elements do not fit dst's {dst.numel}", "dst", "pto.tgather.dst_size",
                    picked.size)
        flat = dst.bits.reshape(-1)
        flat[: picked.size] = picked.view(dst.dtype.lane)
        return dst
    if axis != "col":
        op.fail("axis must be 'row' or 'col'", "axis", "pto.tgather.axis", axis, TilesimError)
    rows = src.bits[:R, :C][np.arange(R) % period == sel]
    if dst.valid_rows != rows.shape[0] or dst.rows != rows.shape[0] or dst.valid_cols < C:
        op.fail(f"dst needs exactly {rows.shape[0]} rows (all valid) and {C} valid columns", "dst",
                "pto.tgather.dst_rows", dst.valid)
    dst.bits[: rows.shape[0], :C] = rows.view(dst.dtype.lane)
    return dst


def _by_compare(op: Op, dst: Tile, cdst: Tile, src: Tile, k, tmp, cmp_mode, offset) -> Tile:
    if not op.prof.name.startswith("a2a3"):
        why = ("the CPU simulator has no compare-form TGATHER" if op.prof.name.startswith("cpu") else
               "A5's compare form (float scores converted to int32 and compared unsigned) is not modelled")
        op.fail(f"{why}; it runs on a2a3", "cdst", "pto.tgather.form", op.prof.name, TilesimError)
    if isinstance(k, Tile):
        op.fail("k is a scalar (PTOAS's kValue); pto-isa's per-row k_value tile form is not modelled", "k",
                "pto.tgather.form", k.describe(), TilesimError)
    op.tile(cdst, "cdst")
    mode = str(cmp_mode).lower().removeprefix("#pto<cmp ").rstrip(">")
    if mode not in ("eq", "gt"):
        op.fail("cmp_mode must be eq or gt for the compare form", "cmp_mode", "pto.op.cmp_mode", cmp_mode,
                TilesimError)
    if dst.dtype.name not in ("i32", "u32"):
        op.fail(f"dst holds indices: i32 or u32, not {dst.dtype}", "dst", "pto.op.dtype", str(dst.dtype), DtypeError)
    ok = ("f16", "f32", "i32") if mode == "eq" else ("f16", "f32")
    if src.dtype.name not in ok:
        op.fail(f"src must be {'/'.join(ok)} for cmp_mode {mode}", "src", "pto.op.dtype", str(src.dtype), DtypeError)
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        op.fail("offset is an integer", "offset", "pto.op.operand", offset, TilesimError)
    R, C = src.valid
    if dst.cols < C or dst.rows < R:
        op.fail(f"dst ({dst.rows}x{dst.cols}) must hold {R} rows of up to {C} indices", "dst",
                "pto.tgather.dst_cols", (dst.rows, dst.cols))
    if cdst.numel < R:
        op.fail(f"cdst holds one count per row: {R} lanes, has {cdst.numel}", "cdst", "pto.tgather.cdst", cdst.numel)
    if tmp is not None:
        op.tile(tmp, "tmp")
    from .elementwise import _scalar
    kk = _scalar(op, k, src.dtype, "k")
    a = nx.as_key(src.bits[:R, :C], src.dtype)
    hit = (a == nx.as_key(kk, src.dtype)) if mode == "eq" else (a > nx.as_key(kk, src.dtype))
    idx = (int(offset) + np.arange(R)[:, None] * src.cols + np.arange(C)) & 0xFFFFFFFF
    counts = hit.sum(axis=1)
    packed = np.take_along_axis(idx, np.argsort(~hit, axis=1, kind="stable"), axis=1)   # hits first, in order
    keep = np.arange(C) < counts[:, None]
    dst.bits[:R, :C] = np.where(keep, packed.astype(np.uint32).view(dst.dtype.lane), dst.bits[:R, :C])
    cdst.bits.reshape(-1)[:R] = counts.astype(np.int64).astype(cdst.dtype.lane)
    return dst


def _by_index(op: Op, dst: Tile, src: Tile, indices: Tile, tmp) -> Tile:
    op.tile(indices, "indices")
    if tmp is not None:
        op.tile(tmp, "tmp", None)
    op.same_dtype(dst, src, "src", "dst")
    if indices.dtype.size != 4 or indices.dtype.is_float:
        op.fail(f"indices must be a 4-byte integer tile, not {indices.dtype}", "indices", "pto.op.dtype",
                str(indices.dtype), DtypeError)
    R, C = dst.valid
    if indices.valid_rows < R or indices.valid_cols < C:
        op.fail(f"indices' valid {indices.valid_rows}x{indices.valid_cols} does not cover dst's {R}x{C}", "indices",
                "pto.op.valid_match", indices.valid)
    k = nx.int_view(indices.bits[:R, :C], indices.dtype)
    ok = (k >= 0) & (k < src.numel)
    kk = np.where(ok, k, 0)
    vals = src.bits[kk // src.cols, kk % src.cols]
    dst.bits[:R, :C] = np.where(ok, vals, dst.dtype.lane.type(0))
    return dst
