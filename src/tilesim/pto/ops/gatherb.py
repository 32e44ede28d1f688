"""TGATHERB: dst's valid rows gathered 32-byte block by block from src's bytes at byte offsets (decision PTO131).

Block ``c`` of dst row ``r`` (``c < validCol * size // 32``) is the 32 bytes of src's storage from byte
``offset[r * offset.cols + c]`` on (the offset tile read flat, each element taken as ``uint32_t``).
"""

from __future__ import annotations

import numpy as np

from ..tile import Tile
from ._common import Op
from .elementwise import _vec_tiles

__all__ = ["tgatherb"]

_BLOCK = 32
_NPU_DTYPES = ("i8", "u8", "i16", "u16", "i32", "u32", "f16", "bf16", "f32")


def tgatherb(dst: Tile, src: Tile, offset: Tile, *, target=None) -> Tile:
    """TGATHERB: each 32-byte block of dst's valid rows from src's bytes at the block's byte offset (PTO131).

    On cpu, as the simulator does, a block whose 32 bytes would pass the end of src's ``rows * cols``
    elements is left as it was, the valid columns must be a multiple of 4 (its ``assert`` multiplies them by
    a pointer's size) and a partial last block is not written; the NPUs refuse both.

    >>> from tilesim.pto import Tile
    >>> src = Tile("vec", "i32", 2, 8)
    >>> src.values[...] = [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]
    >>> off = Tile("vec", "u32", 1, 8)
    >>> off.values[0, :2] = (32, 0)
    >>> tgatherb(Tile("vec", "i32", 1, 16), src, off).values.tolist()
    [[8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]]
    """
    op = Op("tgatherb", target)
    _vec_tiles(op, [(dst, "dst"), (src, "src"), (offset, "offset")])
    op.dtypes("tgatherb", (dst.dtype, offset.dtype), ("dst", "offset"))
    cpu = op.prof.x86_nans
    if not cpu and src.dtype.name not in _NPU_DTYPES:
        op.fail(f"src's dtype {src.dtype} is not one the page lists ({', '.join(_NPU_DTYPES)})", "src",
                "pto.tgatherb.dtype", str(src.dtype))
    R, C = dst.valid
    size = dst.dtype.size
    if cpu and C % 4:
        op.fail(f"valid columns {C} are not a multiple of 4: the simulator asserts validCol * sizeof(pointer) % 32 "
                "== 0", "dst", "pto.tgatherb.cols", C)
    if not cpu and C * size % _BLOCK:
        op.fail(f"valid columns {C} of {dst.dtype} are not whole 32-byte blocks ({_BLOCK // size} elements each)",
                "dst", "pto.tgatherb.cols", C)
    nb = C * size // _BLOCK
    if not (R and nb):
        return dst
    flat = offset.storage()
    idx = np.arange(R)[:, None] * offset.cols + np.arange(nb)[None, :]
    if idx.max() >= flat.size:
        op.fail(f"row {R - 1} block {nb - 1} reads offset element {int(idx.max())} of {flat.size}", "offset",
                "pto.tgatherb.offset", int(idx.max()))
    off = flat.view(offset.dtype.np)[idx].astype(np.int64) & 0xFFFFFFFF          # static_cast<uint32_t>
    src_bytes = src.raw_bytes()[: src.numel * src.dtype.size]
    inside = off + _BLOCK <= src_bytes.size
    if not cpu and not inside.all():
        r, c = (int(v[0]) for v in np.nonzero(~inside))
        op.fail(f"offset {int(off[r, c])} of row {r} block {c} passes the end of src's {src_bytes.size} bytes "
                "(target-defined on the NPUs)", "offset", "pto.tgatherb.offset", int(off[r, c]))
    rows = dst.raw_bytes().reshape(dst.rows, dst.cols * size)
    got = src_bytes[np.where(inside, off, 0)[..., None] + np.arange(_BLOCK)]          # (R, nb, 32)
    old = rows[:R, : nb * _BLOCK].reshape(R, nb, _BLOCK)
    rows[:R, : nb * _BLOCK] = np.where(inside[..., None], got, old).reshape(R, nb * _BLOCK)
    return dst
