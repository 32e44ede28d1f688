"""TRESHAPE and TSUBVIEW: a tile over another tile's bytes (decisions PTO129, PTO130).

Every target aliases: the CPU simulator sets dst's data pointer into src's storage, A2A3/A5 ``TASSIGN`` dst to
that address. So dst reads and writes src's bytes from then on; nothing is copied or converted.
"""

from __future__ import annotations

import numpy as np

from ..tile import Tile
from ._common import Op

__all__ = ["treshape", "tsubview"]

_INDEX_MAX = 0xFFFF  # rowIdx and colIdx are uint16_t


def treshape(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TRESHAPE: ``dst`` becomes a view of ``src``'s bytes (same location, same byte size, both boxed or
    both not; on cpu same-kind element types: integer with integer, float with float; PTO129).

    >>> from tilesim.pto import Tile
    >>> src = Tile("vec", "i32", 2, 8)
    >>> src.values[0, :3] = (0, 1, 2)
    >>> dst = treshape(Tile("vec", "i16", 1, 32), src)
    >>> dst.values[0, :6].tolist()
    [0, 0, 1, 0, 2, 0]
    >>> dst.values[0, 0] = 7; int(src.values[0, 0])
    7
    """
    op = Op("treshape", target)
    op.tile(dst, "dst", None)
    op.tile(src, "src", None)
    if dst.loc != src.loc:
        op.fail(f"dst is a {dst.loc} tile, src a {src.loc} tile; TRESHAPE keeps the location", "dst",
                "pto.treshape.loc", (src.loc, dst.loc))
    sb, db = src.numel * src.dtype.size, dst.numel * dst.dtype.size
    if sb != db:
        op.fail(f"dst's {dst.rows}x{dst.cols} {dst.dtype} is {db} bytes, src's {src.rows}x{src.cols} {src.dtype} "
                f"{sb}; TRESHAPE keeps the byte size", "dst", "pto.treshape.bytes", (sb, db))
    if (dst.slayout == "none_box") != (src.slayout == "none_box"):
        op.fail(f"dst's slayout {dst.slayout} and src's {src.slayout}: TRESHAPE cannot turn a boxed tile into a "
                "non-boxed one or back", "dst", "pto.treshape.box", (src.slayout, dst.slayout))
    op.dtypes("treshape", (src.dtype, dst.dtype), ("src", "dst"))
    if dst.span != src.span:  # boxed tiles whose last box is partial in one shape only
        op.fail(f"dst spans {dst.span} bytes of storage, src {src.span}; tilesim aliases only equal spans", "dst",
                "pto.treshape.bytes", (src.span, dst.span))
    src.push()
    src.viewed = True
    dst.bind(src._mem, src._off)
    dst.addr = src.addr
    return dst


def tsubview(dst: Tile, src: Tile, row_idx: int, col_idx: int, *, target=None) -> Tile:
    """TSUBVIEW: ``dst`` becomes a view of src's bytes from element ``(row_idx, col_idx)`` on, that is from
    ``row_idx * RowStride + col_idx * ColStride`` (src's strides: ``cols, 1`` row-major, ``1, rows``
    col-major); dst keeps its own shape, layout and valid region (PTO130).

    >>> from tilesim.pto import Tile
    >>> src = Tile("vec", "f32", 4, 16)
    >>> src.values[2, 8:10] = (5, 6)
    >>> dst = tsubview(Tile("vec", "f32", 4, 16, valid=(2, 8)), src, 2, 8)
    >>> dst.valid_values[0, :2].tolist()
    [5.0, 6.0]
    """
    op = Op("tsubview", target)
    op.tile(dst, "dst", None)
    op.tile(src, "src", None)
    if dst.loc != src.loc:
        op.fail(f"dst is a {dst.loc} tile, src a {src.loc} tile; TSUBVIEW keeps the location", "dst",
                "pto.tsubview.loc", (src.loc, dst.loc))
    op.same_dtype(src, dst, "dst", "src")
    op.dtypes("tsubview", (src.dtype,), ("src",))
    for name, v in (("rowIdx", row_idx), ("colIdx", col_idx)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or not 0 <= v <= _INDEX_MAX:
            op.fail(f"{name} must be an integer in 0..{_INDEX_MAX} (uint16_t), not {v!r}", name,
                    "pto.tsubview.index", v)
    row_idx, col_idx = int(row_idx), int(col_idx)
    if not op.prof.x86_nans:  # the NPUs' Auto-mode checks (npu/a2a3/TSubView.hpp, also A5's)
        if dst.blayout != src.blayout:
            op.fail(f"dst's blayout {dst.blayout} differs from src's {src.blayout}", "dst", "pto.tsubview.layout",
                    (src.blayout, dst.blayout))
        if dst.valid_rows > src.valid_rows or dst.valid_cols > src.valid_cols:
            op.fail(f"dst's valid {dst.valid_rows}x{dst.valid_cols} is larger than src's {src.valid_rows}x"
                    f"{src.valid_cols}", "dst", "pto.tsubview.valid", (src.valid, dst.valid))
    row_stride, col_stride = (src.cols, 1) if src.blayout == "row_major" else (1, src.rows)
    start = (row_idx * row_stride + col_idx * col_stride) * src.dtype.size
    vr, vc = dst.valid
    reach = start + (int(dst.offsets()[:vr, :vc].max()) + 1) * dst.dtype.size if vr and vc else start
    if reach > src.span:
        op.fail(f"dst's valid {dst.valid_rows}x{dst.valid_cols} from element ({row_idx}, {col_idx}) reaches byte "
                f"{reach} of src's {src.span}: it would read memory that is not src's", "rowIdx,colIdx",
                "pto.tsubview.bounds", (row_idx, col_idx))
    src.push()
    if src._off + start + dst.span > src._mem.size:
        _grow(op, src, start + dst.span)
    src.viewed = True
    dst.bind(src._mem, src._off + start)
    dst.addr = None if src.addr is None else src.addr + start
    return dst


def _grow(op: Op, src: Tile, size: int) -> None:
    """Give ``src`` a buffer of ``size`` bytes, its bytes first and zeros after: on chip a view's storage may run
    past src into the buffer src sits in (the simulator's own test views a 64x64 tile at (32, 32) as a 64x64
    tile). Only a tile that owns its buffer and has no views yet can move; others are refused."""
    owned = src._mem.base is None and src._off == 0 and src._mem.size == src.span
    if not owned or getattr(src, "viewed", False):
        op.fail(f"dst's storage runs {size - src.span} bytes past src's into memory src does not own here (src "
                f"{'already has views' if owned else 'sits in a shared buffer'}); place src in a "
                "tilesim.pto.memory.Memory with room after it, as on chip", "dst", "pto.tsubview.span",
                (size, src.span))
    mem = np.zeros(size, np.uint8)
    mem[: src.span] = src._mem
    src.bind(mem, 0)
