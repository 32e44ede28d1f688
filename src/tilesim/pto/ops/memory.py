"""TLOAD and TSTORE: copies between global memory (numpy arrays) and tiles.

Global memory is a 2-D numpy array seen logically (row i, column j); a
window starts at ``offset = (r0, c0)``. ``tload(dst, gm)`` sets
``dst[i, j] = gm[r0 + i, c0 + j]`` over dst's valid region; ``tstore(gm,
src)`` writes ``gm[r0 + i, c0 + j] = src[i, j]`` over src's valid region, in
place. Elements are copied as bits: pto-isa only requires
``sizeof(tile dtype) == sizeof(global dtype)`` (rule ``pto.mem.elem_size``),
so a ``uint16`` array loads into an ``f16`` tile unchanged. Acc tiles may
store f32 to an f16/bf16 array (rounded to nearest even) as TSTORE(dst, acc) does.

Packed dtypes (``f4e2m1``, ``f4e1m2``: pto-isa's ``float4_*x2_t``) hold two
codes a byte in global memory, element ``2k`` of a row in the low nibble of
byte ``k``: their global array is a uint8 ``(rows, bytes)`` array whose rows
hold ``2 * bytes`` elements, and ``offset``'s column counts elements. A tile
keeps one code per lane, and so does an array passed with ``packed=False``
(the ``.pto`` interpreter's global tensors; decision PTO153). ``i4`` (``int4b_t``)
is packed the same way on the NPUs (A5 loads it and the fp4 types and stores
fp4; A2A3 moves no 4-bit type, PTO189); on ``cpu`` it is one byte an element.

``atomic`` (TSTORE): ``none``, or ``add``/``max``/``min`` combine the old
global value with the tile's by the tile dtype's arithmetic.

``st_phase`` (TSTORE): ``unspecified``, ``partial`` or ``final``, the
fixpipe's unit-flag control for an accumulation in progress (pto-isa
include/pto/common/type.hpp ``STPhase``; npu/a2a3/TStore.hpp passes it as
``unitFlagCtrl``). It orders the store against TMATMUL and changes no
data, so under the sequential model it is checked and has no effect.

Fixpipe forms (TSTORE with ``relu_pre_mode``, a pre-quant scalar, or an ``fp``
scaling tile as TSTORE_FP; pto-isa include/pto/cpu/TStore.hpp): the global
array's dtype is the destination type; each element is quantised by
:func:`~tilesim.pto.ops.fixpipe.quantize` (the scalar form's word serves every
element; TSTORE_FP reads one word per column, or per row for a tile that is
not row-major on ``cpu``), or, where the pair has no quant mode, ReLU'd on the
source value (``v > 0 ? v : 0``) and converted as C++ does. On a2a3 and a5
these are acc stores only, with the dtypes of npu/*/TStore.hpp's
``CheckAcc2gm`` (decision PTO150).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..dtypes import FP4, INT4, PACKED, get_dtype
from ..targets import LOCATIONS
from ..tile import Tile
from ..conv import ConvTile
from . import convert_cpu, convtile, fixpipe
from ._cast import RELU, relu_before, word
from ._common import Op
from .layout import pad_lane

__all__ = ["tload", "tstore", "tstore_fp", "ATOMICS"]

ATOMICS = ("none", "add", "max", "min")
ST_PHASES = ("unspecified", "partial", "final")
#: a2a3/a5 acc -> global stores without quantisation: source dtypes -> destination dtypes (CheckAcc2gm)
ACC_STORE_DTYPES = {"f32": ("f32", "i32", "f16", "bf16"), "i32": ("f32", "i32", "f16", "bf16")}
#: ... with a quant word, by target family (the quant modes tilesim has, within CheckAcc2gm's lists)
QUANT_STORE_DTYPES = {"a2a3": {"f32": ("i8", "u8"), "i32": ("i8", "u8", "f16")},
                      "a5": {"f32": ("i8", "u8", "f16", "bf16"), "i32": ("i8", "u8", "f16")}}


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


def tload(dst: Tile, src: np.ndarray, *, offset=(0, 0), packed: bool | None = None, target=None) -> Tile:
    """TLOAD: global memory -> tile, over dst's valid region (bits copied).

    dst: vec or mat (on ``cpu`` any location, PTO161). Vec tiles load ND, DN or Nz (A2A3: at most 4095 rows).
    Raises: ``pto.op.loc``, ``pto.op.layout``, ``pto.op.dtype``, ``pto.mem.elem_size``,
    ``pto.op.valid_nonzero``, ``pto.mem.window``, ``pto.tload.rows``.

    >>> t = tload(Tile("vec", "f32", 2, 8), np.arange(16, dtype=np.float32).reshape(2, 8))
    >>> t.values[1, :3].tolist()
    [8.0, 9.0, 10.0]

    A :class:`~tilesim.pto.conv.ConvTile` dst takes a global array in its layout (:mod:`.convtile`, PTO172).
    """
    if isinstance(dst, ConvTile):
        return convtile.tload(dst, src, offset=offset, target=target)
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
    packed = _packed(op, dst) and packed is not False
    codes = _unpack(gm) if packed else gm
    rs, cs = _window(op, codes, offset, dst.valid, "src")
    if op.prof.tload_fills_pad:  # the simulator's getPadValue has no custom case: it gives 0 (TLoad.hpp)
        dst.bits[...] = 0 if dst.pad.startswith("custom:") else pad_lane(op, dst)
    dst.bits[: dst.valid_rows, : dst.valid_cols] = codes[rs, cs].view(dst.dtype.lane)
    return dst


def _packed(op: Op, t: Tile) -> bool:
    """Whether t's global elements are two a byte: fp4, and ``int4b_t`` but on ``cpu`` (PTO153, PTO189)."""
    return t.dtype.name in PACKED or (t.dtype.name in INT4 and not op.prof.int4_one_byte)


def _unpack(gm: np.ndarray) -> np.ndarray:
    """The codes of a packed global array: row i's byte k holds elements 2k (low nibble) and 2k + 1."""
    b = gm.view(np.uint8)
    codes = np.empty((b.shape[0], 2 * b.shape[1]), np.uint8)
    codes[:, 0::2], codes[:, 1::2] = b & 0xF, b >> 4
    return codes


def _pack_into(gm: np.ndarray, codes: np.ndarray) -> None:
    gm.view(np.uint8)[...] = (codes[:, 0::2] & 0xF) | (codes[:, 1::2] << 4)


def tstore(dst: np.ndarray, src: Tile, fp=None, pre_quant_scalar=None, *, offset=(0, 0), atomic: str = "none",
           st_phase: str = "unspecified", relu_pre_mode=False, packed: bool | None = None, target=None) -> np.ndarray:
    """TSTORE: tile -> global memory, over src's valid region, in place; returns ``dst``.

    src: vec, mat (not on A5) or acc. An acc tile of f32 may store to an
    f16/bf16 array (rounded to nearest even). ``relu_pre_mode`` (``NormalRelu``
    or True), a pre-quant scalar (a 64-bit quant word) or ``fp`` (a scaling tile,
    as TSTORE_FP; a number in its place is the scalar, the .pto operand order)
    select the fixpipe forms, which convert to the global array's dtype.
    Raises: ``pto.op.loc``, ``pto.op.dtype``, ``pto.mem.elem_size``,
    ``pto.op.valid_nonzero``, ``pto.mem.window``, ``pto.tstore.atomic``,
    ``pto.tstore.st_phase``, ``pto.op.fp_cols``. A :class:`~tilesim.pto.conv.ConvTile` src stores to a
    global array in its layout (:mod:`.convtile`, PTO172).
    """
    if isinstance(src, ConvTile) and fp is None and pre_quant_scalar is None and not relu_pre_mode:
        return convtile.tstore(dst, src, offset=offset, atomic=atomic, target=target)
    op = Op("tstore", target)
    if fp is not None and not isinstance(fp, Tile) and pre_quant_scalar is None:
        fp, pre_quant_scalar = None, fp
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
    relu = word(op, relu_pre_mode, "relu_pre_mode", RELU)
    fixpipe_form = relu or fp is not None or pre_quant_scalar is not None
    out_dt = src.dtype
    if fixpipe_form:
        out_dt = _fixpipe_out(op, src, gm, fp is not None or pre_quant_scalar is not None)
    elif gm.dtype.itemsize != src.dtype.size:
        ok = src.loc == "acc" and src.dtype.name == "f32" and gm.dtype in (get_dtype("f16").np, get_dtype("bf16").np)
        if not ok:
            op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {src.dtype} {src.dtype.size}", "dst",
                    "pto.mem.elem_size", str(gm.dtype), DtypeError)
        out_dt = get_dtype(gm.dtype)
    op.nonzero(src, "src")
    packed = _packed(op, src) and packed is not False
    if packed and atomic != "none":
        op.fail(f"a packed {src.dtype} store has no atomic form (two elements share a byte)", "atomic",
                "pto.tstore.atomic", atomic, TilesimError)
    codes = _unpack(gm) if packed else gm
    rs, cs = _window(op, codes, offset, src.valid, "dst")
    if packed:
        codes[rs, cs] = src.valid_bits
        _pack_into(gm, codes)
        return dst
    lanes = src.valid_bits
    if fixpipe_form:
        words = _store_words(op, src, fp, pre_quant_scalar)
        lanes = _fixpipe_lanes(op, lanes, src.dtype, out_dt, words, fp is not None, relu)
    elif out_dt != src.dtype:
        lanes = nx.from_f32(nx.as_f32(lanes, src.dtype), out_dt, flush=False)
    view = gm.view(out_dt.lane)
    if atomic != "none":
        p = op.prof
        lanes = nx.binary(atomic, view[rs, cs], lanes, out_dt, flush=p.flush_denormals, nan_mode=p.nan_mode,
                          instruction=op.inst)
    view[rs, cs] = lanes
    return dst


def tstore_fp(dst: np.ndarray, src: Tile, fp: Tile, *, offset=(0, 0), atomic: str = "none",
              relu_pre_mode=False, target=None) -> np.ndarray:
    """TSTORE_FP: TSTORE with vector quantisation; fp row 0 holds one quant word per src column (per row for
    a tile that is not row-major on ``cpu``, as the simulator reads it)."""
    op = Op("tstore_fp", target)
    op.tile(fp, "fp", None)
    return tstore(dst, src, fp, offset=offset, atomic=atomic, relu_pre_mode=relu_pre_mode, target=op.prof)


def _fixpipe_out(op: Op, src: Tile, gm: np.ndarray, quant: bool):
    """The destination dtype of a fixpipe store (the global array's), checked against the target's rules."""
    try:
        out = get_dtype(gm.dtype)
    except TilesimError:
        op.fail(f"global array of {gm.dtype} is no PTO dtype", "dst", "pto.op.dtype", str(gm.dtype), DtypeError)
    if src.dtype.name in FP4 + INT4:
        op.fail(f"a fixpipe store takes no 4-bit source ({src.dtype})", "src", "pto.op.dtype", src.dtype.name,
                DtypeError)
    if op.prof.fp_modeless_casts:  # cpu: every tile and pair (a pair without a quant mode is a C++ cast)
        return out
    if src.loc != "acc":
        op.fail(f"relu and pre-quant stores are fixpipe forms: src must be an acc tile on {op.prof.name}, not "
                f"{src.loc}", "src", "pto.op.loc", src.loc)
    table = QUANT_STORE_DTYPES["a5" if op.prof.name.startswith("a5") else "a2a3"] if quant else ACC_STORE_DTYPES
    if out.name not in table.get(src.dtype.name, ()):
        op.fail(f"a{' quant' if quant else 'n'} acc store on {op.prof.name} takes " + ", ".join(
            f"{a}->{'/'.join(b)}" for a, b in table.items()), "dst", "pto.op.dtype", (src.dtype.name, out.name),
            DtypeError)
    return out


def _store_words(op: Op, src: Tile, fp, scalar):
    """The quant words of a fixpipe store, broadcast over src's valid region (None without quantisation)."""
    if fp is None:
        return None if scalar is None else fixpipe.scalar_word(op, scalar)
    R, C = src.valid
    per_row = op.prof.fp_modeless_casts and src.blayout != "row_major"   # the simulator's scalars[row]
    words = fixpipe.quant_words(op, fp, R if per_row else C)
    return words[:, None] if per_row else words[None, :]


def _fixpipe_lanes(op: Op, bits: np.ndarray, s, d, words, vector: bool, relu: bool) -> np.ndarray:
    """Quantised lanes, or (a pair without a quant mode, or no words) ReLU'd source lanes cast as C++ does."""
    modes = fixpipe.VECTOR_MODES if vector else fixpipe.SCALAR_MODES
    if words is not None and ((s.name, d.name) in modes or not op.prof.fp_modeless_casts):
        out, undefined = fixpipe.quantize(op, bits, s, d, words, vector=vector, relu=relu)
    else:
        out, undefined = convert_cpu.cast(relu_before(bits, s) if relu else bits, s, d)
    if op.prof.cvt_cpu_model:
        convert_cpu.refuse_undefined(op, undefined, bits, s, d)
    return out
