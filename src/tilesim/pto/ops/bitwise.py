"""Bitwise ops: TAND, TOR, TXOR, TNOT, their tile-scalar forms TANDS, TORS, TXORS, and the shifts TSHL, TSHR,
TSHLS, TSHRS (pto-isa docs/isa/TAND.md ... TSHRS.md; the CPU simulator's C++ operators in
include/pto/cpu/ElementOp.h and TBinSOps.hpp).

Integer tiles only, checked as the other elementwise ops (vec, row-major on the NPUs, one dtype, dst's valid
shape). Results are the two's-complement bit operations. A right shift is arithmetic for signed dtypes and
logical for unsigned ones; a left shift keeps the low bits. A shift count must lie in ``[0, width)``, the width
being the dtype's bits, or on ``cpu`` that of C++'s ``int`` for 8- and 16-bit lanes (promoted, then truncated
to the dtype); other counts are undefined in C++ and refused (rule ``pto.op.shift_count``, decision PTO122).
The tmp tile of TXOR/TXORS is never written (PTO10).
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError
from .. import numerics as nx
from ..dtypes import DType
from ..tile import Tile
from ._common import Op
from .elementwise import _tile_scalar, _tile_tile, _vec_tiles

__all__ = ["tand", "tor", "txor", "tnot", "tands", "tors", "txors", "tshl", "tshr", "tshls", "tshrs"]


def _logic(kind: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](a, b)


def _shift(op: Op, kind: str, a: np.ndarray, count: np.ndarray, dt: DType, operand: str) -> np.ndarray:
    """``a << count`` or ``a >> count`` lane-wise, after the count check."""
    width = max(32, dt.bits) if op.prof.int_promotion else dt.bits
    n = nx.int_view(np.asarray(count, dt.lane), dt)
    bad = (n < 0) | (n >= width) if dt.signed else n >= width
    if np.any(bad):
        where = tuple(int(i) for i in np.argwhere(np.broadcast_to(bad, np.shape(bad)))[0]) if np.ndim(bad) else ()
        value = int(np.asarray(n)[where]) if where else int(n)
        raise SpecGapError(f"shift count {value}{f' at {where}' if where else ''} is outside [0, {width}): "
                           "undefined in C++ (counts 0 .. " + str(width - 1) + " are accepted)",
                           instruction=op.inst, operand=operand, rule="pto.op.shift_count", value=value)
    x = nx.int_view(a, dt)
    s = np.asarray(n).astype(np.uint64)
    if kind == "shl":
        r = np.left_shift(x.astype(np.uint64), s)
    else:
        r = np.right_shift(x, s.astype(x.dtype))  # int64 (sign-extended: arithmetic) or uint64 (logical)
    return r.astype(dt.np).view(dt.lane)


def _tile_op(name: str, kind: str, dst: Tile, src0: Tile, src1: Tile, tmp, target) -> Tile:
    op = Op(name, target)
    _tile_tile(op, dst, src0, src1, tmp)
    R, C = dst.valid
    a, b = src0.bits[:R, :C], src1.bits[:R, :C]
    dst.bits[:R, :C] = _logic(kind, a, b) if kind in ("and", "or", "xor") else _shift(op, kind, a, b, dst.dtype,
                                                                                          "src1")
    return dst


def _scalar_op(name: str, kind: str, dst: Tile, src: Tile, scalar, tmp, target) -> Tile:
    op = Op(name, target)
    s = _tile_scalar(op, dst, src, scalar, tmp)
    R, C = dst.valid
    a = src.bits[:R, :C]
    dst.bits[:R, :C] = _logic(kind, a, s) if kind in ("and", "or", "xor") else _shift(op, kind, a, s, dst.dtype,
                                                                                          "scalar")
    return dst


def tand(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TAND: ``dst = src0 & src1``.

    >>> from tilesim.pto import Tile
    >>> a, b, d = (Tile("vec", "u8", 1, 32, valid=(1, 2)) for _ in range(3))
    >>> a.bits[0, :2], b.bits[0, :2] = (0b1100, 0xFF), (0b1010, 0x0F)
    >>> tand(d, a, b).valid_bits.tolist()
    [[8, 15]]
    """
    return _tile_op("tand", "and", dst, src0, src1, None, target)


def tor(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TOR: ``dst = src0 | src1``."""
    return _tile_op("tor", "or", dst, src0, src1, None, target)


def txor(dst: Tile, src0: Tile, src1: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TXOR: ``dst = src0 ^ src1`` (tmp, A2A3's scratch, is not written)."""
    return _tile_op("txor", "xor", dst, src0, src1, tmp, target)


def tshl(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TSHL: ``dst = src0 << src1``, each lane by its own count.

    >>> from tilesim.pto import Tile
    >>> a, n, d = (Tile("vec", "i16", 1, 16, valid=(1, 2)) for _ in range(3))
    >>> a.values[0, :2], n.values[0, :2] = (-3, 0x4001), (2, 1)
    >>> tshl(d, a, n).valid_values.tolist()
    [[-12, -32766]]
    """
    return _tile_op("tshl", "shl", dst, src0, src1, None, target)


def tshr(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TSHR: ``dst = src0 >> src1`` (arithmetic for signed dtypes, logical for unsigned)."""
    return _tile_op("tshr", "shr", dst, src0, src1, None, target)


def tnot(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TNOT: ``dst = ~src``."""
    op = Op("tnot", target)
    _vec_tiles(op, [(dst, "dst"), (src, "src")])
    op.same_dtype(dst, src, "src", "dst")
    op.dtypes("tnot", (dst.dtype,), ("dst",))
    op.valid_match(dst, src, "src", "dst")
    R, C = dst.valid
    dst.bits[:R, :C] = np.invert(src.bits[:R, :C])
    return dst


def tands(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TANDS: ``dst = src & scalar``."""
    return _scalar_op("tands", "and", dst, src, scalar, None, target)


def tors(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TORS: ``dst = src | scalar``."""
    return _scalar_op("tors", "or", dst, src, scalar, None, target)


def txors(dst: Tile, src: Tile, scalar, tmp: Tile | None = None, *, target=None) -> Tile:
    """TXORS: ``dst = src ^ scalar`` (tmp is not written)."""
    return _scalar_op("txors", "xor", dst, src, scalar, tmp, target)


def tshls(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TSHLS: ``dst = src << scalar``."""
    return _scalar_op("tshls", "shl", dst, src, scalar, None, target)


def tshrs(dst: Tile, src: Tile, scalar, *, target=None) -> Tile:
    """TSHRS: ``dst = src >> scalar`` (arithmetic for signed dtypes, logical for unsigned)."""
    return _scalar_op("tshrs", "shr", dst, src, scalar, None, target)
