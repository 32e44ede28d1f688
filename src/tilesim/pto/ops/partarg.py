"""TPARTARGMAX and TPARTARGMIN: a value and its index from whichever of two partial tiles wins (decision PTO128).

Over dst's valid region: where both value tiles are valid, ``src0`` when ``src0 > src1`` (``<`` for min) and
``src1`` otherwise (ties, and any NaN, pick ``src1``), the value and its index copied together; where one is
valid, that one's value and index; where neither is (cpu only), 0 in both. The values are copied, never
computed, so no rounding or flushing applies.
"""

from __future__ import annotations

import numpy as np

from .. import numerics as nx
from ..tile import Tile
from ._common import Op
from .elementwise import _vec_tiles

__all__ = ["tpartargmax", "tpartargmin"]


def tpartargmax(dst_val: Tile, dst_idx: Tile, src0_val: Tile, src1_val: Tile, src0_idx: Tile, src1_idx: Tile, *,
                target=None) -> tuple[Tile, Tile]:
    """TPARTARGMAX: the larger of two partial values with its index (``.pto``: ``outs(dstVal, dstIdx)``,
    ``ins(src0Val, src1Val, src0Idx, src1Idx)``; PTO128).

    >>> from tilesim.pto import Tile
    >>> v = [Tile("vec", "f32", 1, 8, valid=(1, n)) for n in (4, 4, 2)]
    >>> i = [Tile("vec", "i32", 1, 8, valid=(1, n)) for n in (4, 4, 2)]
    >>> v[1].values[0, :4], v[2].values[0, :2] = (1, 5, 2, 2), (3, 3)
    >>> i[1].values[0, :4], i[2].values[0, :2] = (10, 11, 12, 13), (20, 21)
    >>> [t.valid_values.tolist() for t in tpartargmax(v[0], i[0], v[1], v[2], i[1], i[2])]
    [[[3.0, 5.0, 2.0, 2.0]], [[20, 11, 12, 13]]]
    """
    return _part_arg("tpartargmax", np.greater, dst_val, dst_idx, src0_val, src1_val, src0_idx, src1_idx, target)


def tpartargmin(dst_val: Tile, dst_idx: Tile, src0_val: Tile, src1_val: Tile, src0_idx: Tile, src1_idx: Tile, *,
                target=None) -> tuple[Tile, Tile]:
    """TPARTARGMIN: the smaller of two partial values with its index (see :func:`tpartargmax`)."""
    return _part_arg("tpartargmin", np.less, dst_val, dst_idx, src0_val, src1_val, src0_idx, src1_idx, target)


def _part_arg(name, wins, dv: Tile, di: Tile, v0: Tile, v1: Tile, i0: Tile, i1: Tile, target) -> tuple[Tile, Tile]:
    op = Op(name, target)
    _vec_tiles(op, [(dv, "dstVal"), (di, "dstIdx"), (v0, "src0Val"), (v1, "src1Val"), (i0, "src0Idx"),
                    (i1, "src1Idx")])
    op.same_dtype(dv, v0, "src0Val", "dstVal")
    op.same_dtype(dv, v1, "src1Val", "dstVal")
    op.same_dtype(di, i0, "src0Idx", "dstIdx")
    op.same_dtype(di, i1, "src1Idx", "dstIdx")
    op.dtypes(name, (dv.dtype, di.dtype), ("dstVal", "dstIdx"))
    R, C = dv.valid
    if not op.prof.partarg_any_valid:  # the ISA page's valid-region rules (a2a3/TPartArgOp.hpp asserts them)
        for val, idx, v, i in ((dv, di, "dstVal", "dstIdx"), (v0, i0, "src0Val", "src0Idx"),
                               (v1, i1, "src1Val", "src1Idx")):
            op.valid_match(val, idx, i, v)
        op.nonzero(dv, "dstVal")
        if dv.valid not in (v0.valid, v1.valid) or dv.valid != (max(v0.valid_rows, v1.valid_rows),
                                                                 max(v0.valid_cols, v1.valid_cols)):
            op.fail(f"dstVal's valid {R}x{C} must equal the larger source's (src0Val {v0.valid_rows}x"
                    f"{v0.valid_cols}, src1Val {v1.valid_rows}x{v1.valid_cols}), the other one inside it",
                    "dstVal", "pto.tpartarg.valid", (dv.valid, v0.valid, v1.valid))
    if R == 0 or C == 0:
        return dv, di
    val = np.zeros((R, C), dv.dtype.lane)
    idx = np.zeros((R, C), di.dtype.lane)
    r0, c0 = min(v0.valid_rows, R), min(v0.valid_cols, C)
    r1, c1 = min(v1.valid_rows, R), min(v1.valid_cols, C)
    val[:r0, :c0], idx[:r0, :c0] = v0.bits[:r0, :c0], i0.bits[:r0, :c0]
    val[:r1, :c1], idx[:r1, :c1] = v1.bits[:r1, :c1], i1.bits[:r1, :c1]
    rb, cb = min(r0, r1), min(c0, c1)
    a, b = v0.bits[:rb, :cb], v1.bits[:rb, :cb]
    first = wins(nx.as_key(a, dv.dtype), nx.as_key(b, dv.dtype))  # NaN compares false: src1 wins
    val[:rb, :cb] = np.where(first, a, b)
    idx[:rb, :cb] = np.where(first, i0.bits[:rb, :cb], i1.bits[:rb, :cb])
    dv.bits[:R, :C] = val
    di.bits[:R, :C] = idx
    return dv, di
