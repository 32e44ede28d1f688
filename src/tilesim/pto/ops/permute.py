"""Permuting ops: TTRANS, TINTERLEAVE and TDEINTERLEAVE (pto-isa docs/isa/TTRANS.md, TINTERLEAVE.md,
TDEINTERLEAVE.md; the CPU simulator's include/pto/cpu/TTrans.hpp, TInterleave.hpp, TDeinterleave.hpp).

Bits are copied; every tile has one dtype (a TTRANS between two dtypes of one size is a value conversion in the
simulator, refused here: ``pto.op.same_dtype``). Only the valid regions named below are read and written
(decision PTO125).

* ``ttrans(dst, src)``: ``dst[c, r] = src[r, c]`` over src's valid region; dst's valid shape must be its
  transpose. tmp (the NPUs' scratch) is never written.
* ``tinterleave(dst0, dst1, src0, src1)``: per row the stream ``src0[0], src1[0], src0[1], src1[1], ...`` of
  ``2 * vc`` elements, its first half in dst0 and its second in dst1 (all four of one even valid shape).
* ``tdeinterleave(dst0, dst1, src0, src1)``: the inverse: the stream ``src0 ++ src1`` per row, its even
  elements in dst0, its odd ones in dst1; ``tdeinterleave(dst0, dst1, src)``: ``dst0[r, k] = src[r, 2k]``,
  ``dst1[r, k] = src[r, 2k + 1]`` with src's valid columns twice dst's.

The C++ intrinsics take ``(dst1, dst0, src1, src0)``; the Python functions and the ``.pto`` statements
(``outs(%dst0, %dst1)``, ``ins(%src0, %src1)``) the natural order.
"""

from __future__ import annotations

import numpy as np

from ..conv import ConvTile
from ..tile import Tile
from . import convtile
from ._common import Op

__all__ = ["ttrans", "tinterleave", "tdeinterleave"]


def _tiles(op: Op, named: list[tuple[Tile, str]], row_major: tuple[str, ...]) -> None:
    for t, n in named:
        op.tile(t, n)
        if n in row_major:
            op.layout(t, n, ("ROW_MAJOR",), "a row_major block layout")
    for t, n in named[1:]:
        op.same_dtype(named[0][0], t, n, named[0][1])
    op.dtypes(op.name, (named[0][0].dtype,), (named[0][1],))


def ttrans(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TTRANS: ``dst[c, r] = src[r, c]``; ``dst.valid == (src.vc, src.vr)`` (rule ``pto.op.valid_match``).

    >>> from tilesim.pto import Tile
    >>> s, d = Tile("vec", "i32", 2, 8, valid=(2, 3)), Tile("vec", "i32", 8, 8, valid=(3, 2))
    >>> s.values[:2, :3] = [[1, 2, 3], [4, 5, 6]]
    >>> ttrans(d, s).valid_values.tolist()
    [[1, 4], [2, 5], [3, 6]]

    Two :class:`~tilesim.pto.conv.ConvTile` operands change layout (:mod:`.convtile`, PTO174).
    """
    if isinstance(dst, ConvTile) or isinstance(src, ConvTile):
        return convtile.ttrans(dst, src, tmp, target=target)
    op = Op("ttrans", target)
    _tiles(op, [(dst, "dst"), (src, "src")], ("src",))
    if tmp is not None:
        op.tile(tmp, "tmp", None)
    R, C = src.valid
    if dst.valid != (C, R):
        op.fail(f"dst's valid shape {dst.valid} is not the transpose of src's {src.valid}; want {(C, R)}", "dst",
                "pto.op.valid_match", dst.valid)
    dst.bits[:C, :R] = src.bits[:R, :C].T
    return dst


def _pairs(op: Op, tiles: list[tuple[Tile, str]]) -> tuple[int, int]:
    """The common valid shape of the four tiles of the two-source forms (even columns)."""
    _tiles(op, tiles, tuple(n for _, n in tiles))
    for t, n in tiles[1:]:
        op.valid_match(tiles[0][0], t, n, "dst0")
    R, C = tiles[0][0].valid
    if C % 2:
        op.fail(f"the valid columns must be even, not {C}", "dst0", f"pto.{op.name}.cols", C)
    return R, C


def tinterleave(dst0: Tile, dst1: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TINTERLEAVE: interleave src0 and src1 row by row into dst0 (first half) and dst1 (second half).

    >>> from tilesim.pto import Tile
    >>> a, b, d0, d1 = (Tile("vec", "i16", 1, 16, valid=(1, 4)) for _ in range(4))
    >>> a.values[0, :4], b.values[0, :4] = (0, 1, 2, 3), (10, 11, 12, 13)
    >>> _ = tinterleave(d0, d1, a, b)
    >>> d0.valid_values.tolist(), d1.valid_values.tolist()
    ([[0, 10, 1, 11]], [[2, 12, 3, 13]])
    """
    op = Op("tinterleave", target)
    R, C = _pairs(op, [(dst0, "dst0"), (dst1, "dst1"), (src0, "src0"), (src1, "src1")])
    stream = np.stack([src0.bits[:R, :C], src1.bits[:R, :C]], axis=2).reshape(R, 2 * C)
    dst0.bits[:R, :C] = stream[:, :C]
    dst1.bits[:R, :C] = stream[:, C:]
    return dst0


def tdeinterleave(dst0: Tile, dst1: Tile, src0: Tile, src1: Tile | None = None, *, target=None) -> Tile:
    """TDEINTERLEAVE: the even elements of each row of ``src0 ++ src1`` (or of one src) into dst0, the odd into
    dst1.

    >>> from tilesim.pto import Tile
    >>> s, d0, d1 = Tile("vec", "i16", 1, 16, valid=(1, 6)), *(Tile("vec", "i16", 1, 16, valid=(1, 3))
    ...                                                         for _ in range(2))
    >>> s.values[0, :6] = (0, 10, 1, 11, 2, 12)
    >>> _ = tdeinterleave(d0, d1, s)
    >>> d0.valid_values.tolist(), d1.valid_values.tolist()
    ([[0, 1, 2]], [[10, 11, 12]])
    """
    op = Op("tdeinterleave", target)
    if src1 is not None:
        R, C = _pairs(op, [(dst0, "dst0"), (dst1, "dst1"), (src0, "src0"), (src1, "src1")])
        stream = np.concatenate([src0.bits[:R, :C], src1.bits[:R, :C]], axis=1)
    else:
        _tiles(op, [(dst0, "dst0"), (dst1, "dst1"), (src0, "src")], ("dst0", "dst1", "src"))
        op.valid_match(dst0, dst1, "dst1", "dst0")
        R, C = dst0.valid
        if src0.valid != (R, 2 * C):
            op.fail(f"src's valid shape {src0.valid} must be dst0's {dst0.valid} with twice the columns", "src",
                    "pto.op.valid_match", src0.valid)
        stream = src0.bits[:R, : 2 * C]
    dst0.bits[:R, :C] = stream[:, 0::2]
    dst1.bits[:R, :C] = stream[:, 1::2]
    return dst0
