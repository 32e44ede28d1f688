"""TRESHAPE: a tile of another shape and element type over the same bytes (decision PTO129).

Every target aliases: the CPU simulator rebinds dst's data pointer to src's, A2A3/A5 ``TASSIGN`` dst to src's
address. So dst reads and writes src's bytes from then on; nothing is copied or converted.
"""

from __future__ import annotations

from ..tile import Tile
from ._common import Op

__all__ = ["treshape"]


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
    dst.bind(src.raw_bytes(), 0)
    dst.addr = src.addr
    return dst
