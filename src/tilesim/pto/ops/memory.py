"""TLOAD and TSTORE: copies between global memory (numpy arrays) and tiles.

Global memory is a 2-D numpy array seen logically (row i, column j); a
window starts at ``offset = (r0, c0)``. ``tload(dst, gm)`` sets
``dst[i, j] = gm[r0 + i, c0 + j]`` over dst's valid region; ``tstore(gm,
src)`` writes ``gm[r0 + i, c0 + j] = src[i, j]`` over src's valid region, in
place. Elements are copied as bits: pto-isa only requires
``sizeof(tile dtype) == sizeof(global dtype)`` (rule ``pto.mem.elem_size``),
so a ``uint16`` array loads into an ``f16`` tile unchanged. Acc tiles may
store f32 to an f16/bf16 array (rounded to nearest even) as TSTORE(dst, acc) does.

``atomic`` (TSTORE): ``none``, or ``add``/``max``/``min`` combine the old
global value with the tile's by the tile dtype's arithmetic.

``st_phase`` (TSTORE): ``unspecified``, ``partial`` or ``final``, the
fixpipe's unit-flag control for an accumulation in progress (pto-isa
include/pto/common/type.hpp ``STPhase``; npu/a2a3/TStore.hpp passes it as
``unitFlagCtrl``). It orders the store against TMATMUL and changes no
data, so under the sequential model it is checked and has no effect.
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..dtypes import get_dtype
from ..targets import LOCATIONS
from ..tile import Tile
from ._common import Op
from .layout import pad_lane

__all__ = ["tload", "tstore", "ATOMICS"]

ATOMICS = ("none", "add", "max", "min")
ST_PHASES = ("unspecified", "partial", "final")


def _gm(op: Op, gm, operand: str) -> np.ndarray:
    if not isinstance(gm, np.ndarray) or gm.ndim != 2:
        op.fail("global memory must be a 2-D numpy array", operand, "pto.op.operand",
                getattr(gm, "shape", type(gm).__name__), TilesimError)
    return gm


def _window(op: Op, gm: np.ndarray, offset, shape, operand: str) -> tuple[slice, slice]:
    r0, c0 = (int(v) for v in offset)
    R, C = shape
    if r0 < 0 or c0 < 0 or r0 + R > gm.shape[0] or c0 + C > gm.shape[1]:
        op.fail(f"window [{r0}:{r0 + R}, {c0}:{c0 + C}] leaves the {gm.shape[0]}x{gm.shape[1]} global array",
                operand, "pto.mem.window", (r0, c0, R, C))
    return slice(r0, r0 + R), slice(c0, c0 + C)


def tload(dst: Tile, src: np.ndarray, *, offset=(0, 0), target=None) -> Tile:
    """TLOAD: global memory -> tile, over dst's valid region (bits copied).

    dst: vec or mat (on ``cpu`` any location, PTO161). Vec tiles load ND, DN or Nz (A2A3: at most 4095 rows).
    Raises: ``pto.op.loc``, ``pto.op.layout``, ``pto.op.dtype``, ``pto.mem.elem_size``,
    ``pto.op.valid_nonzero``, ``pto.mem.window``, ``pto.tload.rows``.

    >>> t = tload(Tile("vec", "f32", 2, 8), np.arange(16, dtype=np.float32).reshape(2, 8))
    >>> t.values[1, :3].tolist()
    [8.0, 9.0, 10.0]
    """
    op = Op("tload", target)
    op.tile(dst, "dst", tuple(LOCATIONS) if op.prof.tload_any_loc else ("vec", "mat"))
    gm = _gm(op, src, "src")
    if dst.loc == "vec":
        op.layout(dst, "dst", ("ND", "DN", "Nz"), "ND, DN or Nz for a vec load")
        limit = op.prof.vec_tload_max_rows
        if limit is not None and dst.rows > limit:
            op.fail(f"a vec tile loads at most {limit} rows on {op.prof.name}", "dst", "pto.tload.rows", dst.rows)
    op.dtypes("tload", (dst.dtype,), ("dst",))
    if gm.dtype.itemsize != dst.dtype.size:
        op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {dst.dtype} {dst.dtype.size}", "src",
                "pto.mem.elem_size", str(gm.dtype), DtypeError)
    op.nonzero(dst, "dst")
    rs, cs = _window(op, gm, offset, dst.valid, "src")
    if op.prof.tload_fills_pad:  # the simulator's getPadValue has no custom case: it gives 0 (TLoad.hpp)
        dst.bits[...] = 0 if dst.pad.startswith("custom:") else pad_lane(op, dst)
    dst.bits[: dst.valid_rows, : dst.valid_cols] = gm[rs, cs].view(dst.dtype.lane)
    return dst


def tstore(dst: np.ndarray, src: Tile, *, offset=(0, 0), atomic: str = "none", st_phase: str = "unspecified",
           target=None) -> np.ndarray:
    """TSTORE: tile -> global memory, over src's valid region, in place; returns ``dst``.

    src: vec, mat (not on A5) or acc. An acc tile of f32 may store to an
    f16/bf16 array (rounded to nearest even). Raises: ``pto.op.loc``,
    ``pto.op.dtype``, ``pto.mem.elem_size``, ``pto.op.valid_nonzero``,
    ``pto.mem.window``, ``pto.tstore.atomic``, ``pto.tstore.st_phase``.
    """
    op = Op("tstore", target)
    locs = ("vec", "acc") if op.prof.name.startswith("a5") else ("vec", "mat", "acc")
    op.tile(src, "src", locs)
    gm = _gm(op, dst, "dst")
    op.dtypes("tstore", (src.dtype,), ("src",))
    atomic = str(atomic).lower().removeprefix("atomic_")      # PTOAS spells AtomicType atomic_none/atomic_add
    if atomic not in ATOMICS:
        op.fail("atomic must be one of " + ", ".join(ATOMICS), "atomic", "pto.tstore.atomic", atomic, TilesimError)
    if str(st_phase).lower() not in ST_PHASES:
        op.fail("st_phase must be one of " + ", ".join(ST_PHASES), "st_phase", "pto.tstore.st_phase", st_phase,
                TilesimError)
    out_dt = src.dtype
    if gm.dtype.itemsize != src.dtype.size:
        ok = src.loc == "acc" and src.dtype.name == "f32" and gm.dtype in (get_dtype("f16").np, get_dtype("bf16").np)
        if not ok:
            op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {src.dtype} {src.dtype.size}", "dst",
                    "pto.mem.elem_size", str(gm.dtype), DtypeError)
        out_dt = get_dtype(gm.dtype)
    op.nonzero(src, "src")
    rs, cs = _window(op, gm, offset, src.valid, "dst")
    lanes = src.valid_bits
    if out_dt != src.dtype:
        lanes = nx.from_f32(nx.as_f32(lanes, src.dtype), out_dt, flush=False)
    view = gm.view(out_dt.lane)
    if atomic != "none":
        p = op.prof
        lanes = nx.binary(atomic, view[rs, cs], lanes, out_dt, flush=p.flush_denormals, nan_mode=p.nan_mode,
                          instruction=op.inst)
    view[rs, cs] = lanes
    return dst

