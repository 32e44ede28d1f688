"""Fused adds that end in a ReLU and a narrowing: TADDDEQRELU (i32 + i32, dequantised by a float scale, to f16;
decision PTO143), TADDRELUCONV and TSUBRELUCONV (add or subtract, ReLU, saturating down-cast; PTO144)."""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError, TilesimError
from .. import numerics as nx
from ..dtypes import get_dtype
from ..tile import Tile, to_bits
from . import convert_cpu
from ._common import Op
from .elementwise import _vec_tiles

__all__ = ["tadddeqrelu", "taddreluconv", "tsubreluconv"]

_F16_MAX = 65504.0
_I32, _F16, _F32 = (get_dtype(n) for n in ("i32", "f16", "f32"))


def _checks(op: Op, dst: Tile, src0: Tile, src1: Tile) -> None:
    def static():
        _vec_tiles(op, [(dst, "dst"), (src0, "src0"), (src1, "src1")])
        op.same_dtype(src0, src1, "src1", "src0")
        op.dtypes(op.name, (src0.dtype, dst.dtype), ("src", "dst"))
    op.static((dst, src0, src1), static)
    op.valid_match(dst, src0, "src0", "dst")
    op.valid_match(dst, src1, "src1", "dst")
    op.nonzero(dst, "dst")


def _npu_f16(op: Op, x: np.ndarray) -> np.ndarray:
    """f16 lanes of non-negative f32 results on the NPUs: refused where they would be NaN or pass f16's range
    (the page says the narrowing saturates, A5's ``vcvt`` is written with saturation off; PTO143)."""
    bad = np.isnan(x) | (np.abs(x.astype(np.float64)) > _F16_MAX + 16)      # 65520 and up round past 65504
    if bad.any():
        r, c = (int(v[0]) for v in np.nonzero(bad))
        op.fail(f"element ({r}, {c}) is {float(x[r, c])!r} before the f16 narrowing, which the pages leave "
                "target-defined (NaN or past 65504)", "dst", f"pto.{op.name}.range", float(x[r, c]), SpecGapError)
    return nx.from_f32(x, _F16, flush=op.prof.flush_denormals)


def tadddeqrelu(dst: Tile, src0: Tile, src1: Tile, deq_scale, tmp: Tile | None = None, *, target=None) -> Tile:
    """TADDDEQRELU: ``dst = half(max(0, (src0 + src1) * deq_scale))``, src0/src1 i32, dst f16, deq_scale a
    float rounded once to f32 (PTO143).

    ``cpu`` follows the simulator: the i32 sum wraps (C++ overflow: the lane is marked undefined), converts
    to f32, is multiplied by the scale (one f32 rounding), narrowed to f16 (RNE, overflow to inf) and then
    ``v > 0 ? v : 0``. a2a3/a5 take the pages' sequence ``((x * 2^-17) * scale) * 2^17`` in f32 with
    denormals flushed, ``max(0, .)``, then f16; a NaN or out-of-range result, or a non-finite scale, is
    refused (``pto.tadddeqrelu.range``, ``pto.tadddeqrelu.scale``). On a2a3 tmp (i32) must cover dst's valid
    region (``pto.tadddeqrelu.tmp``).

    >>> import numpy as np
    >>> from tilesim.pto import Tile
    >>> a, b = Tile.from_array(np.array([[3, -9]], np.int32)), Tile.from_array(np.array([[4, 1]], np.int32))
    >>> tadddeqrelu(Tile("vec", "f16", 1, 16, valid=(1, 2)), a, b, 0.5, target="cpu").valid_values.tolist()
    [[3.5, 0.0]]
    """
    op = Op("tadddeqrelu", target)
    _checks(op, dst, src0, src1)
    if isinstance(deq_scale, (bool, np.bool_)) or not isinstance(deq_scale, (int, float, np.integer, np.floating)):
        op.fail(f"deq_scale must be a number, got {type(deq_scale).__name__}", "deq_scale", "pto.op.operand",
                type(deq_scale).__name__, TilesimError)
    scale = np.float32(np.uint32(to_bits(np.asarray([deq_scale]), _F32, what=op.inst)[0]).view(np.float32))
    cpu = op.prof.x86_nans
    if tmp is not None:
        op.tile(tmp, "tmp")
        if op.prof.tmp_used and (tmp.dtype != _I32 or tmp.rows < dst.valid_rows or tmp.cols < dst.valid_cols):
            op.fail(f"tmp must be an i32 tile of at least {dst.valid_rows}x{dst.valid_cols}, not {tmp.describe()}",
                    "tmp", "pto.tadddeqrelu.tmp", tmp.describe())
    if not cpu and not np.isfinite(scale):
        op.fail(f"deq_scale {float(scale)!r} is not finite (its products are target-defined)", "deq_scale",
                "pto.tadddeqrelu.scale", float(scale), SpecGapError)
    R, C = dst.valid
    a, b = (t.bits[:R, :C].view(np.int32).astype(np.int64) for t in (src0, src1))
    wide = a + b
    x = wide.astype(np.int32).astype(np.float32)                       # wraps, then int -> float (RNE)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if cpu:
            lanes = convert_cpu.cast((x * scale).view(np.uint32), _F32, _F16)[0]
            out = np.where(nx.as_key(lanes, _F16) > 0, lanes, np.uint16(0))
        else:
            p = nx.flush_bits((x * np.float32(2.0 ** -17) * scale).view(np.uint32), _F32).view(np.float32)
            q = p * np.float32(2.0 ** 17)
            out = _npu_f16(op, np.where(q > 0, q, np.float32(0)))
    dst.bits[:R, :C] = out
    if cpu:
        dst.mark_undefined((slice(0, R), slice(0, C)), (wide < -2 ** 31) | (wide >= 2 ** 31))
    return dst


def taddreluconv(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TADDRELUCONV: ``dst = convert(max(0, src0 + src1))`` for the page's pairs f32 -> f16, f16 -> i8 and
    i16 -> i8 (PTO144): the sum in the source dtype (floats rounded once with the target's denormal flush,
    i16 wrapping), ``max(0, .)`` (-0 gives +0), then a saturating narrowing (floats RNE). The simulator has no
    TADDRELUCONV; every target follows the page. A NaN sum is refused (``pto.taddreluconv.nan``: the page
    leaves it open).
    """
    return _reluconv(Op("taddreluconv", target), dst, src0, src1, "add")


def tsubreluconv(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
    """TSUBRELUCONV: ``dst = convert(max(0, src0 - src1))``, TADDRELUCONV's sibling entry point (same pairs and
    rules, ``pto.tsubreluconv.nan``; A2A3/A5 implement it, no ISA page yet; PTO144)."""
    return _reluconv(Op("tsubreluconv", target), dst, src0, src1, "sub")


def _reluconv(op: Op, dst: Tile, src0: Tile, src1: Tile, how: str) -> Tile:
    _checks(op, dst, src0, src1)
    R, C = dst.valid
    sd, dd = src0.dtype, dst.dtype
    a, b = src0.bits[:R, :C], src1.bits[:R, :C]
    flush = op.prof.flush_denormals
    if sd.is_int:
        x, y = a.view(sd.np).astype(np.int64), b.view(sd.np).astype(np.int64)
        s = (x + y if how == "add" else x - y).astype(sd.np).astype(np.int64)
        dst.bits[:R, :C] = np.clip(s, 0, 127).astype(np.int8).view(dd.lane)
        return dst
    s = nx.as_f32(nx.binary(how, a, b, sd, flush=flush, nan_mode=op.prof.nan_mode, instruction=op.inst,
                            x86=op.prof.x86_nans), sd).astype(np.float64)
    if np.isnan(s).any():
        r, c = (int(v[0]) for v in np.nonzero(np.isnan(s)))
        op.fail(f"the result at ({r}, {c}) is NaN, whose ReLU and narrowing the page leaves open", "src0",
                f"pto.{op.name}.nan", (r, c), SpecGapError)
    s = np.where(s > 0, s, 0.0)                     # -0 gives +0
    if dd.is_int:
        dst.bits[:R, :C] = np.clip(np.rint(s), 0, 127).astype(np.int8).view(dd.lane)
    else:
        dst.bits[:R, :C] = nx.from_f64(np.minimum(s, _F16_MAX), dd, flush=flush)
    return dst
