"""Rearranging ops: TCONCAT, TPACK, TFILLPAD (+ _INPLACE, _EXPAND) and TPREFETCH.

* ``tconcat(dst, src0, src1[, src0_idx, src1_idx[, dst_idx=]])``: each of dst's valid rows is src0's valid
  columns followed by src1's, or as many columns as the index tiles give per row (pto-isa
  include/pto/cpu/TConcat.hpp); bits copied.
* ``tpack(dst, src)``: each element narrowed to dst's width by keeping its
  low-order bytes (A5 only in PTOAS; pto-isa publishes no semantics, decision PTO56).
* ``tfillpad(dst, src)``: the whole dst tile (every row and column, not just
  its valid region) gets src's valid region and, elsewhere, dst's pad value
  (pto-isa include/pto/cpu/TFillPad.hpp): ``zero``; ``max``/``min`` are
  +-Inf for floats with an infinity, else ``numeric_limits<T>::max()`` /
  ``min()`` (for f8E4M3FN and E8M0 ``min()`` is the smallest positive
  normal, as C++ defines it; decision PTO55). A dst with an empty valid
  region is left alone.
* ``tprefetch(dst, src)``: a cache hint; checks its operands and writes
  nothing (decision PTO57); on ``cpu`` it copies as the simulator does (PTO68), from a tile too (PTO163).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ...errors import DtypeError, TilesimError
from ..dtypes import FP4, DType
from ..tile import Tile, to_bits
from ._common import Op

__all__ = ["tconcat", "tpack", "tfillpad", "tfillpad_inplace", "tfillpad_expand", "tprefetch"]

_CONCAT = ("i32", "i16", "i8", "u32", "u16", "u8", "f16", "f32", "bf16")
_CONCAT_IDX = ("i32", "i16", "i8", "u32", "u16", "u8")
_PACK_SIZES = ((4, 2), (4, 1), (2, 1))


def tconcat(dst: Tile, src0: Tile, src1: Tile, src0_idx: Tile | None = None, src1_idx: Tile | None = None, *,
            dst_idx: Tile | None = None, target=None) -> Tile:
    """TCONCAT: ``dst[r, :] = src0[r, :c0] ++ src1[r, :c1]`` for each of dst's valid rows.

    All vec tiles of one dtype (rule ``pto.op.same_dtype``); valid rows equal
    (``pto.op.rows_match``); ``dst.vc == src0.vc + src1.vc`` (``pto.tconcat.cols``).
    Indexed form (decision PTO162): ``c0`` and ``c1`` are row r's ``src0_idx[r, 0]`` and ``src1_idx[r, 0]``,
    byte counts divided by the index dtype's size (i8..u32 integer tiles of one dtype, both given or
    neither: ``pto.op.operand``); ``dst_idx[r, 0]`` receives their sum. Counts past a source's or dst's
    columns are ``pto.tconcat.cols``.
    """
    op = Op("tconcat", target)
    for t, n in ((dst, "dst"), (src0, "src0"), (src1, "src1")):
        op.tile(t, n)
    op.same_dtype(dst, src0, "src0", "dst")
    op.same_dtype(dst, src1, "src1", "dst")
    if dst.dtype.name not in _CONCAT:
        op.fail(f"dtype {dst.dtype} is not one of {', '.join(_CONCAT)}", "dst", "pto.op.dtype", str(dst.dtype),
                DtypeError)
    op.rows_match(dst, src0, "src0", "dst")
    op.rows_match(dst, src1, "src1", "dst")
    c0, c1 = src0.valid_cols, src1.valid_cols
    if dst.valid_cols != c0 + c1:
        op.fail(f"dst has {dst.valid_cols} valid columns, src0 + src1 give {c0} + {c1}", "dst", "pto.tconcat.cols",
                dst.valid_cols)
    R = dst.valid_rows
    if src0_idx is None and src1_idx is None and dst_idx is None:
        row = np.concatenate([src0.bits[:R, :c0], src1.bits[:R, :c1]], axis=1)
        dst.bits[:R, : c0 + c1] = row
        return dst
    nbytes = _concat_bytes(op, dst, src0, src1, src0_idx, src1_idx, dst_idx)
    for r, (n0, n1) in enumerate((nbytes // src0_idx.dtype.size).tolist()):   # per row: counts differ
        dst.bits[r, :n0] = src0.bits[r, :n0]
        dst.bits[r, n0: n0 + n1] = src1.bits[r, :n1]
    if dst_idx is not None:                                          # the byte counts' sum, in dst_idx's width
        dst_idx.bits[:R, 0] = nbytes.sum(axis=1).astype(np.uint64).astype(dst_idx.dtype.lane)
    return dst


def _concat_bytes(op: Op, dst: Tile, src0: Tile, src1: Tile, src0_idx, src1_idx, dst_idx) -> np.ndarray:
    """TCONCAT's indexed form: the (rows, 2) byte counts its index tiles give, their column counts checked."""
    if src0_idx is None or src1_idx is None:
        op.fail("give src0_idx and src1_idx together (dst_idx only with them)", "src0_idx", "pto.op.operand",
                None if src0_idx is None else "src1_idx missing", TilesimError)
    idx = ((src0_idx, "src0_idx"), (src1_idx, "src1_idx")) + (((dst_idx, "dst_idx"),) if dst_idx is not None else ())
    for t, n in idx:
        op.tile(t, n)
        op.same_dtype(src0_idx, t, n, "src0_idx")
    if src0_idx.dtype.name not in _CONCAT_IDX:
        op.fail(f"index dtype {src0_idx.dtype} is not one of {', '.join(_CONCAT_IDX)}", "src0_idx", "pto.op.dtype",
                str(src0_idx.dtype), DtypeError)
    R = dst.valid_rows
    for t, n in idx:
        if t.valid_rows < R or t.valid_cols < 1:
            op.fail(f"needs {R} valid rows and a column (one count per row), has {t.valid_rows}x{t.valid_cols}",
                    n, "pto.op.operand", t.valid, TilesimError)
    size = src0_idx.dtype.size
    # the byte counts as C++'s ``unsigned`` takes them: a negative count wraps to a huge one
    nbytes = np.stack([t.bits[:R, 0].view(t.dtype.np).astype(np.int64) % (1 << 32) for t in (src0_idx, src1_idx)],
                      axis=1)
    counts = nbytes // size
    for j, (t, n) in enumerate(((src0, "src0"), (src1, "src1"))):
        if (counts[:, j] > t.cols).any():
            r = int(np.argmax(counts[:, j] > t.cols))
            op.fail(f"row {r}: {n}_idx gives {counts[r, j]} columns, {n} has {t.cols}", f"{n}_idx",
                    "pto.tconcat.cols", int(counts[r, j]))
    if (counts.sum(axis=1) > dst.cols).any():
        r = int(np.argmax(counts.sum(axis=1) > dst.cols))
        op.fail(f"row {r}: {counts[r, 0]} + {counts[r, 1]} columns pass dst's {dst.cols}", "dst", "pto.tconcat.cols",
                int(counts[r].sum()))
    return nbytes


def tpack(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TPACK: keep the low ``dst.size`` bytes of each src element (4->2, 4->1 or 2->1 bytes).

    vec tiles with equal valid shapes (rules ``pto.op.valid_match``, ``pto.tpack.sizes``).
    """
    op = Op("tpack", target)
    op.tile(dst, "dst")
    op.tile(src, "src")
    sizes = (src.dtype.size, dst.dtype.size)
    if sizes not in _PACK_SIZES:
        op.fail(f"element sizes {sizes[0]}->{sizes[1]} bytes; TPACK packs 4->2, 4->1 or 2->1", "dst",
                "pto.tpack.sizes", (str(src.dtype), str(dst.dtype)), DtypeError)
    op.valid_match(src, dst, "dst", "src")
    R, C = src.valid
    dst.bits[:R, :C] = src.bits[:R, :C].astype(dst.dtype.lane)  # unsigned narrowing keeps the low bytes
    return dst


def pad_bits(dt: DType, pad: str) -> int:
    """The lane code TFILLPAD writes for a PadValue (``zero``, ``max``, ``min``, ``custom:0xWORD``: the word's low
    bytes, pto-isa include/pto/cpu/TFillPad.hpp)."""
    if pad == "zero":
        return 0
    if pad.startswith("custom:"):
        return int(pad.split(":")[1], 16) & ((1 << dt.bits) - 1)
    big = pad == "max"
    if dt.name in FP4:  # no infinity: the simulator's numeric_limits max() and min() codes (PTO153)
        return 0x7 if big else 0x1
    if dt.is_int:
        return int(to_bits(np.asarray(dt.format.int_max if big else dt.format.int_min), dt)[()])
    fi = ml_dtypes.finfo(dt.np)
    if np.isinf(np.asarray(np.inf, np.float64).astype(dt.np)):
        v = np.inf if big else -np.inf
    else:  # no infinity: numeric_limits max() / min() (the smallest positive normal)
        v = fi.max if big else fi.smallest_normal
    return int(np.asarray(v).astype(dt.np).view(dt.lane)[()])


def pad_lane(op: Op, t: Tile) -> int:
    """The lane a tile's pad value fills with on op's target: ``null`` gives 0, and on ``cpu`` an f16 tile's
    ``max``/``min`` give +0 (PTO96)."""
    if t.pad == "null" or (op.prof.f16_pad_limits_zero and t.dtype.name == "f16" and t.pad in ("max", "min")):
        return 0
    return pad_bits(t.dtype, t.pad)


def _fillpad(name: str, dst: Tile, src: Tile, expand: bool, target) -> Tile:
    op = Op(name, target)
    op.tile(dst, "dst", ("vec", "mat"))
    op.tile(src, "src", ("vec", "mat"))
    if dst.pad == "null":
        op.fail("dst's pad value must not be null (it is what TFILLPAD writes)", "dst", "pto.tfillpad.pad", dst.pad)
    if src.dtype != dst.dtype:
        op.fail(f"src must have dst's dtype {dst.dtype}, not {src.dtype}", "src", "pto.op.same_dtype", str(src.dtype),
                DtypeError)
    if expand:
        bad = dst.rows < src.rows or dst.cols < src.cols
    else:
        bad = (dst.rows, dst.cols) != (src.rows, src.cols)
    if bad:
        rule = "at least" if expand else "the same"
        op.fail(f"dst ({dst.rows}x{dst.cols}) must have {rule} rows and cols as src ({src.rows}x{src.cols})", "dst",
                f"pto.{name}.shape", (dst.rows, dst.cols))
    if 0 in dst.valid:
        return dst
    R, C = src.valid
    out = np.full(dst.bits.shape, pad_lane(op, dst), dst.dtype.lane)
    out[:R, :C] = src.bits[:R, :C]
    dst.bits[...] = out
    return dst


def tfillpad(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TFILLPAD: dst (same rows/cols as src) = src's valid region, dst's pad value everywhere else."""
    return _fillpad("tfillpad", dst, src, False, target)


def tfillpad_inplace(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TFILLPAD_INPLACE: TFILLPAD where dst and src are usually the same storage."""
    return _fillpad("tfillpad_inplace", dst, src, False, target)


def tfillpad_expand(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TFILLPAD_EXPAND: TFILLPAD into a dst with at least src's rows and cols."""
    return _fillpad("tfillpad_expand", dst, src, True, target)


def tprefetch(dst: Tile, src, *, target=None) -> Tile:
    """TPREFETCH: a hint that src (global memory) will be loaded into dst; checks dst and src, writes nothing
    (on ``cpu``, copies as the simulator does: ``Profile.prefetch_copies``).

    src: a 2-D numpy array whose elements are dst's size (rules ``pto.op.operand``, ``pto.mem.elem_size``),
    or the interpreter's global-memory view; on ``cpu`` also a tile, whose storage the simulator reads the
    same way (PTO163).
    """
    op = Op("tprefetch", target)
    op.tile(dst, "dst", ("vec", "mat"))
    if isinstance(src, Tile):
        if not op.prof.prefetch_copies:
            op.fail("src must be global memory, not a tile", "src", "pto.op.operand", src.describe(), TilesimError)
        if src.dtype.size != dst.dtype.size:
            op.fail(f"src's elements are {src.dtype.size} bytes, dst's {dst.dtype.size}", "src", "pto.mem.elem_size",
                    str(src.dtype), DtypeError)
        src = src.storage().reshape(1, -1)                              # its storage, read as flat memory
    if isinstance(src, np.ndarray):
        if src.ndim != 2:
            op.fail("global memory must be a 2-D array", "src", "pto.op.operand", src.shape, TilesimError)
        if src.dtype.itemsize != dst.dtype.size:
            op.fail(f"global elements are {src.dtype.itemsize} bytes, the tile's {dst.dtype} {dst.dtype.size}",
                    "src", "pto.mem.elem_size", str(src.dtype), DtypeError)
        if op.prof.prefetch_copies:  # cpu: the simulator copies, with dst's row length as the stride (PTO68)
            R, C = dst.valid
            need = (R - 1) * dst.cols + C if R and C else 0
            if need > src.size:
                op.fail(f"the copy reads {need} elements, the array holds {src.size}", "src", "pto.mem.window",
                        src.shape)
            flat = np.ascontiguousarray(src).reshape(-1).view(dst.dtype.lane)
            dst.bits[:R, :C] = flat[(np.arange(R)[:, None] * dst.cols + np.arange(C)[None, :])]
    return dst
