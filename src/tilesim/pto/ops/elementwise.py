"""Elementwise ops: tile-tile and tile-scalar arithmetic, compares and selects.

All operate on dst's valid region; sources must have dst's valid shape
(rule ``pto.op.valid_match``) and every tile must be vec and row-major.
Arithmetic is :mod:`tilesim.pto.numerics` (IEEE, correctly rounded; integers
wrap; NaN results canonical; denormals flushed on the NPUs).

Scalars are converted to the tile's dtype as a C++ call would: floats are
rounded once to nearest even, integers must fit (rule ``pto.value.range``).

Compare masks (TCMP/TCMPS) pack one bit per element, row by row: element
``(i, j)`` is bit ``j mod W`` of mask lane ``(i, j div W)``, where ``W`` is
the mask dtype's width (8 for u8 on A2A3, 32 for u32 on A5). TSEL/TSELS read
masks the same way, so a compare feeds a select directly (decision PTO9).
"""

from __future__ import annotations

import struct
from functools import lru_cache

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import jit, transcend
from .. import numerics as nx
from ..dtypes import DType
from ..targets import get_target
from ..tile import Tile, to_bits
from . import masks_cpu, small_f32, unary_cpu
from ._common import Op

__all__ = ["CMP_MODES"]

CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")
_DOUBLE, _INT64 = struct.Struct("<d"), struct.Struct("<q")


def _scalar(op: Op, value, dt: DType, operand: str = "scalar") -> np.ndarray:
    if type(value) is float:  # the common case, without numpy's scalar machinery: keyed by the double's bytes
        try:
            return _scalar_bits("<f8", _DOUBLE.pack(value), dt.name)
        except TilesimError as e:
            raise type(e)(e.detail, instruction=op.inst, operand=operand, rule=e.rule, value=value) from None
    if isinstance(value, Tile) or np.ndim(value) != 0 or np.asarray(value).dtype.kind in "SUOa":
        op.fail("expected a scalar number", operand, "pto.op.operand", type(value).__name__, TilesimError)
    a = np.asarray(value)
    try:
        if a.dtype.kind in "biuf":  # keyed by the number's bytes: -0.0 and +0.0, NaN payloads stay apart
            return _scalar_bits(a.dtype.str, a.tobytes(), dt.name)
        return to_bits(a, dt, what=op.inst)
    except TilesimError as e:
        raise type(e)(e.detail, instruction=op.inst, operand=operand, rule=e.rule, value=value) from None


def _f32_lane(value) -> np.ndarray | None:
    """A float's or an int's f32 code as the 1 x 1 array :func:`.jit.whole` takes (kept per value), or None for
    another kind of scalar or one that does not convert (the checked path then decides, and says why)."""
    try:
        if type(value) is float:
            return _lane_of("<f8", _DOUBLE.pack(value))
        if type(value) is int:  # numpy reads an int that fits int64 as one
            return _lane_of("<i8", _INT64.pack(value))
    except (TilesimError, struct.error):
        pass
    return None


@lru_cache(maxsize=1024)
def _lane_of(np_dtype: str, raw: bytes) -> np.ndarray:
    """:func:`_scalar_bits` of an f32 lane as a 1 x 1 array (the kernels only read it)."""
    return np.full((1, 1), _scalar_bits(np_dtype, raw, "f32"), np.uint32)


@lru_cache(maxsize=1024)
def _scalar_bits(np_dtype: str, raw: bytes, dt_name: str) -> np.ndarray:
    """A scalar's lane code (read-only), kept per (numpy dtype, bytes, tile dtype): ops in loops pass the
    same scalars, and one conversion through the format costs more than a small tile's arithmetic."""
    bits = to_bits(np.frombuffer(raw, np_dtype).reshape(()), dt_name)
    bits.flags.writeable = False
    return bits


def _vec_tiles(op: Op, named: list[tuple[Tile, str]]) -> None:
    for t, n in named:
        op.tile(t, n)
        op.layout(t, n, ("ROW_MAJOR",), "a row_major block layout")


# ------------------------------------------------------------- tile-tile
def _tile_tile(op: Op, dst: Tile, src0: Tile, src1: Tile, tmp=None, mask: Tile | None = None,
               kind: str | None = None):
    """The checks of a tile-tile op: vec row-major tiles of dst's dtype (in the op's table) and valid shape.
    They read only the operands' types and valid regions, so they run once per such signature (:meth:`Op.static`);
    returns :func:`.small_f32.plan`'s kernel code for ``kind``, or None."""
    def static():
        _vec_tiles(op, [(dst, "dst"), *([(mask, "mask")] if mask is not None else []), (src0, "src0"),
                        (src1, "src1")])
        op.same_dtype(dst, src0, "src0", "dst")
        op.same_dtype(dst, src1, "src1", "dst")
        op.dtypes(op.name, (dst.dtype,), ("dst",))
        if tmp is not None:
            op.tile(tmp, "tmp", None)
        op.valid_match(dst, src0, "src0", "dst")
        op.valid_match(dst, src1, "src1", "dst")
        return small_f32.plan(op.prof, kind, dst, (src0, src1))
    return op.static((dst, src0, src1, tmp, mask), static)


def _tile_scalar(op: Op, dst: Tile, src: Tile, scalar, tmp=None, mask: Tile | None = None) -> np.ndarray:
    """The checks of a tile-scalar op (as :func:`_tile_tile`, with one source tile); returns the scalar's bits."""
    def static():
        _vec_tiles(op, [(dst, "dst"), *([(mask, "mask")] if mask is not None else []), (src, "src")])
        op.same_dtype(dst, src, "src", "dst")
        op.dtypes(op.name, (dst.dtype,), ("dst",))
    op.static((dst, src, mask), static)
    s = _scalar(op, scalar, dst.dtype)
    if tmp is not None:
        op.tile(tmp, "tmp", None)
    op.valid_match(dst, src, "src", "dst")
    return s


def _binary(name: str, kind: str, dst: Tile, src0: Tile, src1: Tile, target) -> Tile:
    prof = get_target(target)
    code = _prepared(name, prof, dst, src0, src1)
    if code is None:
        op = Op(name, target)
        small = _tile_tile(op, dst, src0, src1, kind=kind)
        code = _prepare(name, kind, prof, dst, src0, src1)
        if code is None and small is not None and small_f32.run(small, src0.bits, src1.bits, dst.bits,
                                                                *dst.valid):
            return dst
    if code is not None and jit.whole(code, src0.bits, src1.bits, dst.bits, *dst.valid):
        return dst
    p = prof  # a prepared call with a NaN result goes straight to the exact path, which decides its payload
    a, b, d = src0.valid_bits, src1.valid_bits, dst.valid_bits
    if code is None and dst.dtype.name == "f32" and not p.flush_denormals and nx.fast_f32_into(kind, a, b, d,
                                                                                               p.nan_mode):
        return dst
    if not p.flush_denormals and nx.fast_narrow_into(kind, a, b, d, dst.dtype):
        return dst
    d[...] = nx.binary_exact(kind, a, b, dst.dtype, flush=p.flush_denormals, nan_mode=p.nan_mode,
                             instruction=name.upper(), x86=p.x86_nans,
                             b_first=_x86_b_first(kind, dst) if p.x86_nans else False)
    return dst


def _x86_b_first(kind: str, dst: Tile):
    """Where clang's x86-64 code for the CPU simulator's f32 add/mul loop puts src1 first: its vector body,
    8 elements a step along the inner loop (columns of a row-major dst, rows of a col-major one), but for
    TMUL of a col-major dst 4 columns a step (one strided ``mulps``); the scalar remainder puts src0 first.
    Other ops and dtypes, and boxed tiles (a plain scalar loop over layout offsets), put src0 first (PTO91,
    PTO70, PTO73), but bf16 add and mul, from g++'s code, put src1 first everywhere (PTO78)."""
    if kind in ("add", "mul") and dst.dtype.name == "bf16":
        return True
    if kind not in ("add", "mul") or dst.dtype.name != "f32" or dst.slayout != "none_box":
        return False
    R, C = dst.valid
    if dst.is_row_major:
        return np.broadcast_to(np.arange(C)[None, :] < C // 8 * 8, (R, C))
    if kind == "mul":
        return np.broadcast_to(np.arange(C)[None, :] < C // 4 * 4, (R, C))
    return np.broadcast_to(np.arange(R)[:, None] < R // 8 * 8, (R, C))


def _unary(name: str, kind: str, dst: Tile, src: Tile, target) -> Tile:
    prof = get_target(target)
    code = _prepared(name, prof, dst, src)
    if code is None:
        op = Op(name, target)

        def static():
            _vec_tiles(op, [(dst, "dst"), (src, "src")])
            op.same_dtype(dst, src, "src", "dst")
            op.dtypes(name, (dst.dtype,), ("dst",))
            op.valid_match(dst, src, "src", "dst")
            return small_f32.plan(op.prof, kind, dst, (src,))
        small = op.static((dst, src), static)
        code = _prepare(name, kind, prof, dst, src)
        if code is None and small is not None and small_f32.run(small, src.bits, src.bits, dst.bits, *dst.valid):
            return dst
    R, C = dst.valid
    p = prof  # a prepared call with a NaN result (sqrt, 1/x) takes numerics' exact path, which decides its payload
    if type(code) is tuple:  # exp, log, rsqrt: their kernel; a lane it leaves takes the certified path
        bad = transcend.run_prepared(code, src.bits, dst.bits)
        if nx.fix_marked(kind, src.valid_bits, None, dst.valid_bits, bad, R, C) is not None:
            return dst
    elif code is not None:
        if jit.whole(code, src.bits, _CONSTANT.get(kind, src.bits), dst.bits, R, C):
            return dst
    elif dst.dtype.name == "f32" and not p.flush_denormals and nx.fast_f32_into(kind, src.valid_bits, None,
                                                                                dst.valid_bits, p.nan_mode,
                                                                                p.x86_nans):
        return dst
    op = Op(name, prof)
    if dst.dtype.is_int and kind in ("log", "recip"):  # cpu only (the dtype tables): C++ on integers, PTO121
        if kind == "recip":
            dst.bits[:R, :C] = unary_cpu.int_recip(op, src.bits[:R, :C], dst.dtype)
            return dst
        r, undefined = unary_cpu.int_log(op, src.bits[:R, :C], dst.dtype)
        dst.bits[:R, :C] = r
        dst.mark_undefined((slice(0, R), slice(0, C)), undefined)
        return dst
    r = nx.unary(kind, src.bits[:R, :C], dst.dtype, flush=p.flush_denormals, nan_mode=p.nan_mode,
                 instruction=op.inst, x86=p.x86_nans)
    if p.x86_nans and kind == "neg" and dst.dtype.name == "f16":
        # cpu: clang's loop flips sign bits 16 lanes a step along the inner index (columns of a row-major dst,
        # rows of a col-major one); its scalar tail, and the plain loop of a boxed tile, negate in f32, which
        # quiets a signaling NaN (PTO73)
        inner = np.arange(C)[None, :] if dst.is_row_major else np.arange(R)[:, None]
        tail = inner >= (C if dst.is_row_major else R) // 16 * 16 if dst.slayout == "none_box" else True
        r = np.where(tail & nx.is_nan(r, dst.dtype), r | dst.dtype.lane.type(0x200), r)
    dst.bits[:R, :C] = r
    return dst


# ------------------------------------------------------- prepared calls
#: (op name, id(profile), id(dst), id(src0), id(src1 or None), scalar first) -> (profile, dst.key, src0.key, src1.key or None,
#: :func:`.jit.whole` code, or exp/log/rsqrt's :func:`.transcend.prepared` arguments): f32 calls whose checks passed
#: for tiles of those keys (their types, valid regions and placements), on ND tiles apart in memory, that one
#: kernel pass answers (decisions PTO114, PTO115)
_PREPARED: dict = {}
#: unary ops that :func:`.jit.whole` runs as a binary one with a scalar: ``1 / x``, and relu's ``max(x, +0)``
_AS_SCALAR = {"recip": ("div", jit.FIRST), "relu": ("max", 0)}
#: unary ops prepared as their :mod:`.transcend` kernel (decision PTO115)
_FUSED = frozenset({"exp", "log", "rsqrt"})
#: ops prepared on targets that flush denormals, their sources' and results' subnormals flushed in the kernel
#: (decision PTO118); max and min select without flushing there, as on cpu
_FLUSHED = frozenset({"add", "sub", "mul", "div"})
_CONSTANT = {"recip": np.full((1, 1), 0x3F800000, np.uint32), "relu": np.zeros((1, 1), np.uint32)}


def _prepared(name: str, prof, dst: Tile, src0: Tile, src1: Tile | None = None,
              scalar_first: bool = False) -> int | tuple | None:
    """The :func:`.jit.whole` code (or transcendental kernel arguments) of a call prepared before
    (:data:`_PREPARED`) on these tiles, with its scalar on the same side, unchanged since."""
    hit = _PREPARED.get((name, id(prof), id(dst), id(src0), id(src1), scalar_first))
    if (hit is not None and hit[0] is prof and hit[1] is dst.key and hit[2] is src0.key
            and (src1 is None or hit[3] is src1.key)):
        return hit[4]
    return None


def _prepare(name: str, kind: str, prof, dst: Tile, src0: Tile, src1: Tile | None = None,
             scalar_first: bool = False) -> int | tuple | None:
    """Prepare a call whose checks have just passed, and return its :func:`.jit.whole` code, where that kernel
    takes it as :func:`.numerics.fast_f32` would (max, min and relu under the ``first`` rule, abs as x86 computes
    it), or for exp, log and rsqrt their :mod:`.transcend` kernel's arguments, as :func:`.numerics.fast_f32` runs
    it: f32 without flushing (on targets that flush: add, sub, mul and div with the flush in the kernel, and max
    and min, which do not flush; PTO118), every tile ND (its ``bits`` a C-contiguous view of its bytes), dst
    apart from the sources in memory. None otherwise (the call keeps its general path)."""
    op, how = _AS_SCALAR.get(kind, (kind, jit.TILE if src1 is not None else jit.FIRST if scalar_first else 0))
    tiles = (dst, src0) if src1 is None else (dst, src0, src1)
    fused = kind in _FUSED and src1 is None
    flush = prof.flush_denormals and kind in _FLUSHED
    if (op not in jit.WHOLE_OPS and not fused or dst.dtype.name != "f32"
            or prof.flush_denormals and not (flush or kind in ("max", "min"))
            or op in ("max", "min") and prof.nan_mode != "first" or op == "abs" and not prof.x86_nans
            or not all(t.blayout == "row_major" and not t.is_boxed for t in tiles)
            or any(np.may_share_memory(dst.bits, t.bits) for t in tiles[1:])):
        return None
    if len(_PREPARED) > 4096:
        _PREPARED.clear()
    code = (transcend.prepared(kind, src0.bits, dst.bits, *dst.valid) if fused
            else jit.WHOLE_OPS[op] | how | (jit.FLUSH if flush else 0))
    _PREPARED[(name, id(prof), id(dst), id(src0), id(src1), scalar_first)] = (
        prof, dst.key, src0.key, None if src1 is None else src1.key, code)
    return code


def _scalar_op(name: str, kind: str, dst: Tile, a, b, target) -> Tile:
    """dst = a (op) b where one of a, b is a tile with dst's valid shape and the other a scalar."""
    src, s_first = (a, False) if isinstance(a, Tile) else (b, True)
    value = a if s_first else b
    prof = get_target(target)
    code = _prepared(name, prof, dst, src, scalar_first=s_first)
    lane = None if code is None else _f32_lane(value)
    if lane is None:
        op = Op(name, target)
        s = _tile_scalar(op, dst, src, value)
        code = _prepare(name, kind, prof, dst, src, scalar_first=s_first)
        lane = None if code is None else s.reshape(1, 1).copy()
    R, C = dst.valid
    if lane is not None:
        if jit.whole(code, src.bits, lane, dst.bits, R, C):
            return dst
        x = src.valid_bits  # a NaN result: the exact path decides its payload
        dst.bits[:R, :C] = nx.binary_exact(kind, *((lane, x) if s_first else (x, lane)), dst.dtype,
                                           flush=prof.flush_denormals, nan_mode=prof.nan_mode,
                                           instruction=name.upper(), x86=prof.x86_nans)
        return dst
    x = src.valid_bits
    p = op.prof
    args = (s, x) if s_first else (x, s)
    if dst.dtype.name == "f32" and not p.flush_denormals and nx.fast_f32_into(kind, *args, dst.valid_bits,
                                                                              p.nan_mode):
        return dst
    # x86 NaN order (PTO91): the first operand's NaN wins. g++ puts the scalar first in bf16 add and mul (PTO78).
    # clang's f16 add and mul loop puts the scalar first, 4 columns a step, then the remaining columns in pairs,
    # also scalar first; with an odd column count the one left over, column C // 4 * 4, comes first and puts
    # src first; a boxed tile's plain loop puts src first everywhere (PTO73, read from the disassembly)
    b_first = not s_first and kind in ("add", "mul") and (
        dst.dtype.name == "bf16" or dst.dtype.name == "f16" and dst.slayout == "none_box"
        and np.broadcast_to(np.arange(C)[None, :] != (C // 4 * 4 if C % 2 else -1), (R, C)))
    dst.bits[:R, :C] = nx.binary(kind, *args, dst.dtype, flush=p.flush_denormals, nan_mode=p.nan_mode,
                                 instruction=op.inst, x86=p.x86_nans, b_first=b_first)
    return dst


def texpands(dst: Tile, scalar, *, target=None) -> Tile:
    """TEXPANDS: fill dst's valid region with a scalar (rounded once to the dtype)."""
    op = Op("texpands", target)
    op.tile(dst, "dst", ("vec", "mat"))
    op.dtypes("texpands", (dst.dtype,), ("dst",))
    s = _scalar(op, scalar, dst.dtype)
    R, C = dst.valid
    dst.bits[:R, :C] = s
    return dst


def _make_binary(name: str, kind: str, doc: str):
    def fn(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
        return _binary(name, kind, dst, src0, src1, target)
    fn.__doc__ = doc
    fn.__name__ = fn.__qualname__ = name
    return fn


def _make_unary(name: str, kind: str, doc: str):
    def fn(dst: Tile, src: Tile, *, target=None) -> Tile:
        return _unary(name, kind, dst, src, target)
    fn.__doc__ = doc
    fn.__name__ = fn.__qualname__ = name
    return fn


def _make_scalar(name: str, kind: str, doc: str):
    def fn(dst: Tile, src, scalar, *, target=None) -> Tile:
        return _scalar_op(name, kind, dst, src, scalar, target)
    fn.__doc__ = doc
    fn.__name__ = fn.__qualname__ = name
    return fn


_BIN = {
    "tadd": ("add", "TADD: ``dst = src0 + src1``."),
    "tsub": ("sub", "TSUB: ``dst = src0 - src1``."),
    "tmul": ("mul", "TMUL: ``dst = src0 * src1``."),
    "tdiv": ("div", "TDIV: ``dst = src0 / src1`` (floats IEEE; integers truncate, /0 raises ``pto.op.div_zero``)."),
    "tmax": ("max", "TMAX: ``src0 < src1 ? src1 : src0`` (NaN per the target's nan_mode)."),
    "tmin": ("min", "TMIN: ``src1 < src0 ? src1 : src0`` (NaN per the target's nan_mode)."),
}
_UN = {
    "texp": ("exp", "TEXP: ``dst = exp(src)``, correctly rounded."),
    "tlog": ("log", "TLOG: ``dst = ln(src)``, correctly rounded (cpu integers: ``floor(ln x)``, PTO121)."),
    "tsqrt": ("sqrt", "TSQRT: ``dst = sqrt(src)``, correctly rounded."),
    "trsqrt": ("rsqrt", "TRSQRT: ``dst = 1 / sqrt(src)``, correctly rounded."),
    "trecip": ("recip", "TRECIP: ``dst = 1 / src``, correctly rounded (cpu integers: C++ ``1 / x``, PTO121)."),
    "tabs": ("abs", "TABS: ``dst = |src|`` (floats: the sign bit cleared)."),
    "tneg": ("neg", "TNEG: ``dst = -src`` (floats: the sign bit flipped; integers wrap)."),
    "trelu": ("relu", "TRELU: ``dst = max(src, +0)`` under the target's nan_mode."),
}
_SCAL = {
    "tadds": ("add", "TADDS: ``dst = src + scalar``."),
    "tsubs": ("sub", "TSUBS: ``dst = src - scalar``."),
    "tmuls": ("mul", "TMULS: ``dst = src * scalar``."),
    "tdivs": ("div", "TDIVS: ``dst = src / scalar``, or ``scalar / src`` when the scalar comes first."),
    "tmaxs": ("max", "TMAXS: ``dst = max(src, scalar)``."),
    "tmins": ("min", "TMINS: ``dst = min(src, scalar)``."),
}
for _n, (_k, _d) in _BIN.items():
    globals()[_n] = _make_binary(_n, _k, _d)
for _n, (_k, _d) in _UN.items():
    globals()[_n] = _make_unary(_n, _k, _d)
for _n, (_k, _d) in _SCAL.items():
    globals()[_n] = _make_scalar(_n, _k, _d)
__all__ += [*_BIN, *_UN, *_SCAL, "texpands", "tcmp", "tcmps", "tsel", "tsels"]


# -------------------------------------------------------------- compares
def _cmp_mode(op: Op, mode) -> str:
    m = str(mode).lower()
    if m not in CMP_MODES:
        op.fail(f"cmp mode must be one of {', '.join(CMP_MODES)}", "cmp_mode", "pto.op.cmp_mode", mode,
                TilesimError)
    return m


def _predicate(op: Op, a: np.ndarray, b: np.ndarray, dt: DType, mode: str) -> np.ndarray:
    if op.prof.cmp_i32_eq_only and dt.name == "i32":
        mode = "eq"  # A2A3: the int32 path compares EQ whatever the mode
    ka, kb = nx.as_key(a, dt), nx.as_key(b, dt)
    return {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal}[mode](ka, kb)


def _pack(op: Op, pred: np.ndarray, dst: Tile) -> None:
    R, C = pred.shape
    W = dst.dtype.bits
    words = -(-C // W)
    if dst.valid_cols * W < C:
        op.fail(f"{dst.valid_cols} valid {dst.dtype} lanes hold {dst.valid_cols * W} bits, need {C}", "dst",
                "pto.op.mask_cols", dst.valid_cols)
    padded = np.zeros((R, words * W), np.uint64)
    padded[:, :C] = pred
    weights = np.uint64(1) << np.arange(W, dtype=np.uint64)
    packed = (padded.reshape(R, words, W) * weights).sum(axis=2, dtype=np.uint64).astype(dst.dtype.lane)
    dst.bits[:R, : dst.valid_cols] = 0
    dst.bits[:R, :words] = packed


def _mask_dtype(op: Op, mask: Tile) -> None:
    if mask.dtype.is_float or mask.dtype.size > 4:
        op.fail(f"a mask must be an 8-, 16- or 32-bit integer tile, not {mask.dtype}", "mask", "pto.op.mask_dtype",
                str(mask.dtype), DtypeError)


def tcmp(dst: Tile, src0: Tile, src1: Tile, cmp_mode: str = "eq", *, target=None) -> Tile:
    """TCMP: pack ``src0 (cmp) src1`` into the mask tile dst, one bit per element, row by row.

    cmp_mode: eq, ne, lt, le, gt, ge (IEEE: NaN compares unequal). dst: an
    unsigned mask tile (u8 on A2A3, u32 on A5); ``dst.vr == src0.vr`` and
    ``dst.vc * bits >= src0.vc`` (rule ``pto.op.mask_cols``); the rest of dst's
    valid lanes in those rows are zeroed. A2A3 compares i32 with EQ whatever the mode.
    """
    op = Op("tcmp", target)
    mode = _cmp_mode(op, cmp_mode)
    _vec_tiles(op, [(dst, "dst"), (src0, "src0"), (src1, "src1")])
    op.same_dtype(src0, src1, "src1", "src0")
    op.dtypes("tcmp", (src0.dtype, dst.dtype), ("src", "dst"))
    op.valid_match(src0, src1, "src1", "src0")
    op.rows_match(src0, dst, "dst", "src0")
    R, C = src0.valid
    pred = _predicate(op, src0.bits[:R, :C], src1.bits[:R, :C], src0.dtype, mode)
    if op.prof.cpu_masks:
        masks_cpu.tcmp_pack(pred, dst)
    else:
        _pack(op, pred, dst)
    return dst


def tcmps(dst: Tile, src: Tile, scalar, cmp_mode: str = "eq", *, target=None) -> Tile:
    """TCMPS: pack ``src (cmp) scalar`` into the mask tile dst (see :func:`tcmp`)."""
    op = Op("tcmps", target)
    mode = _cmp_mode(op, cmp_mode)
    _vec_tiles(op, [(dst, "dst"), (src, "src")])
    op.dtypes("tcmps", (src.dtype, dst.dtype), ("src", "dst"))
    s = _scalar(op, scalar, src.dtype)
    R, C = src.valid
    if op.prof.cpu_masks:
        masks_cpu.tcmps_write(masks_cpu.tcmps_predicate(src.bits[:R, :C], s, src.dtype, mode), src, dst)
        return dst
    op.rows_match(src, dst, "dst", "src")
    _pack(op, _predicate(op, src.bits[:R, :C], s, src.dtype, mode), dst)
    return dst


def _mask_bits(op: Op, mask: Tile, R: int, C: int) -> np.ndarray:
    _mask_dtype(op, mask)
    W = mask.dtype.bits
    if mask.valid_rows < R or mask.valid_cols * W < C:
        op.fail(f"a {mask.valid_rows}x{mask.valid_cols} {mask.dtype} mask does not cover {R}x{C} elements",
                "mask", "pto.op.mask_cols", mask.valid)
    j = np.arange(C)
    lanes = mask.bits[:R][:, j // W].astype(np.uint64)
    return ((lanes >> (j % W).astype(np.uint64)) & np.uint64(1)).astype(bool)


def tsel(dst: Tile, mask: Tile, src0: Tile, src1: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TSEL: ``dst = mask ? src0 : src1`` per element (bits copied); mask laid out as TCMP writes it."""
    op = Op("tsel", target)
    _tile_tile(op, dst, src0, src1, tmp, mask)
    R, C = dst.valid
    m = masks_cpu.sel_bits(op, mask, R, C) if op.prof.cpu_masks else _mask_bits(op, mask, R, C)
    dst.bits[:R, :C] = np.where(m, src0.bits[:R, :C], src1.bits[:R, :C])
    return dst


def tsels(dst: Tile, mask: Tile, src: Tile, scalar, tmp: Tile | None = None, *, target=None) -> Tile:
    """TSELS: ``dst = mask ? src : scalar`` per element."""
    op = Op("tsels", target)
    s = _tile_scalar(op, dst, src, scalar, tmp, mask)
    R, C = dst.valid
    m = _mask_bits(op, mask, R, C)
    dst.bits[:R, :C] = np.where(m, src.bits[:R, :C], s)
    return dst

