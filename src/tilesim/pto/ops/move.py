"""Moves between tiles: TMOV, TEXTRACT, TINSERT (and their _FP vector-quant forms).

Tiles hold logical (row, column) arrays, so a move between layouts (ND to
Nz, Zn, Zz ...) is a logical copy; the layouts only change where the bytes
sit (:meth:`Tile.offsets`). Semantics follow the pto-isa CPU reference
(include/pto/cpu/TMov.hpp, TExtract.hpp, TInsert.hpp):

* ``tmov(dst, src)``: ``dst[i, j] = src[i, j]`` over the (equal) valid
  shapes (on ``cpu`` over src's, which need only fit in dst's tile: PTO181);
  ``relu_pre_mode`` zeroes negative results; dtype changes convert by value
  (:data:`~tilesim.pto.ops._cast.CASTS`, e.g. an f32 accumulator to f16).
* ``textract(dst, src, r0, c0)``: ``dst[i, j] = src[r0 + i, c0 + j]`` over
  dst's valid shape, which must fit inside src's valid region.
* ``tinsert(dst, src, r0, c0)``: ``dst[r0 + i, c0 + j] = src[i, j]`` over
  src's valid shape, which must fit inside dst's valid region.

Quant forms (a 64-bit scalar, or an ``fp`` scaling tile with one quant word
per column) run :func:`~tilesim.pto.ops.fixpipe.quantize`; on ``cpu`` TMOV
ignores its scalar and a pair with no quant mode is a plain C++ cast, as the
simulator does (decisions PTO47, PTO74). The location
pairs TMOV accepts come from the target profile (``tmov_paths``; the CPU
reference accepts every pair); those of TEXTRACT and TINSERT, with their
layouts and dtypes, from ``window_paths`` (:mod:`tilesim.pto.window_paths`,
decision PTO43).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, SpecGapError, TilesimError
from ..dtypes import ALL
from ..tile import Tile
from ..conv import ConvTile
from . import convert_cpu, convtile, fixpipe
from ._cast import CASTS, RELU, cast_bits, relu_after, relu_before, word
from ._common import Op

__all__ = ["tmov", "tmov_fp", "textract", "tinsert", "textract_fp", "tinsert_fp", "ACC_TO_VEC_MODES"]

#: targets whose TMOV moves HiFloat8 codes (docs/isa/TMOV.md lists hifloat8_t for A5; the simulator copies them)
_HIF8_TARGETS = ("cpu", "a5")
#: what to do instead of a TMOV path a target lacks
_TMOV_INSTEAD = {
    ("acc", "vec"): "; to bring an acc tile to vec, TSTORE it to global memory and TLOAD it into the vec tile",
    ("vec", "mat"): "; to bring a vec tile to mat, TSTORE it to global memory and TLOAD it into the mat tile",
}

ACC_TO_VEC_MODES = {"singlemodevec0": "single_mode_vec0", "singlemodevec1": "single_mode_vec1",
                    "dualmodesplitm": "dual_mode_split_m", "dualmodesplitn": "dual_mode_split_n",
                    "0": "single_mode_vec0", "1": "single_mode_vec1", "2": "dual_mode_split_m",
                    "3": "dual_mode_split_n"}


def _index(op: Op, v, operand: str) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
        op.fail("must be a non-negative integer index", operand, "pto.op.index", v, TilesimError)
    return int(v)


#: dtypes whose C++ conversions :func:`convert_cpu.cast` models (not fp8: the simulator's MXType truncates)
_C_CASTS = frozenset(ALL)


def _convert(op: Op, bits: np.ndarray, src: Tile, dst: Tile, words, vector: bool, relu: bool,
             relu_kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(dst lanes, undefined mask) of src lanes: quantised when quant words are given, else a plain move/cast.
    On ``cpu`` a quant form whose dtype pair has no quant mode is the plain move (PTO74, PTO47), and a plain
    move between dtypes is C++'s implicit conversion (undefined casts marked)."""
    pair = (src.dtype.name, dst.dtype.name)
    sim = op.prof.fp_modeless_casts and set(pair) <= _C_CASTS
    modes = fixpipe.VECTOR_MODES if vector else fixpipe.SCALAR_MODES
    if words is not None and not (sim and pair not in modes):
        return fixpipe.quantize(op, bits, src.dtype, dst.dtype, words, vector=vector, relu=relu)
    if relu and relu_kind == "before":
        bits = relu_before(bits, src.dtype)
    if sim and (words is not None or (pair[0] != pair[1] and pair not in CASTS)):
        out, undefined = convert_cpu.cast(bits, src.dtype, dst.dtype)
    else:
        out, undefined = cast_bits(op, bits, src.dtype, dst.dtype), np.zeros(bits.shape, bool)
    return (relu_after(out, dst.dtype) if relu and relu_kind == "after" else out), undefined


def _store(op: Op, dst: Tile, win, src_bits: np.ndarray, src: Tile, converted) -> None:
    """Write converted lanes into dst's window; on ``cpu`` mark the lanes an undefined C++ cast wrote (refused
    before anything is written under ``strict``), as TCVT does (PTO82)."""
    lanes, undefined = converted
    if op.prof.cvt_cpu_model:
        convert_cpu.refuse_undefined(op, undefined, src_bits, src.dtype, dst.dtype)
    dst.bits[win] = lanes
    if op.prof.cvt_cpu_model:
        dst.mark_undefined(win, undefined)


def tmov(dst: Tile, src: Tile, fp=None, pre_quant_scalar=None, *, relu_pre_mode=False, acc_to_vec_mode=None,
         target=None) -> Tile:
    """TMOV: copy src's valid region to dst (equal valid shapes), converting or quantising by dtype.

    fp: a scaling tile (vector quant, as TMOV_FP); a number in its place is the
    pre-quant scalar (the .pto operand order). relu_pre_mode: ``NoRelu``/``NormalRelu``
    (or a bool). acc_to_vec_mode: accepted and checked; one destination tile
    receives the whole result. Raises ``pto.op.loc`` (a location pair the
    target lacks), ``pto.op.valid_match``, ``pto.op.dtype``.
    """
    op = Op("tmov", target)
    if fp is not None and not isinstance(fp, Tile) and pre_quant_scalar is None:
        fp, pre_quant_scalar = None, fp
    op.tile(dst, "dst", None)
    op.tile(src, "src", None)
    if "hif8" in (src.dtype.name, dst.dtype.name) and op.prof.name not in _HIF8_TARGETS:
        op.fail(f"{op.prof.name} has no hifloat8_t (TMOV's page lists it on A5 only, PTO183)", "src,dst",
                "pto.op.dtype", f"{src.dtype}->{dst.dtype}", DtypeError)
    use_relu = word(op, relu_pre_mode, "relu_pre_mode", RELU)
    if acc_to_vec_mode is not None:
        word(op, acc_to_vec_mode, "acc_to_vec_mode", ACC_TO_VEC_MODES)
        if src.loc != "acc" or dst.loc != "vec":
            op.fail("acc_to_vec_mode applies to an acc -> vec move", "acc_to_vec_mode", "pto.tmov.mode",
                    f"{src.loc}->{dst.loc}", TilesimError)
    paths = op.prof.tmov_paths
    if paths is not None and (src.loc, dst.loc) not in paths:
        op.fail(f"{src.loc} -> {dst.loc} is not a TMOV path on {op.prof.name}; paths: "
                + ", ".join(f"{a}->{b}" for a, b in sorted(paths)) + _TMOV_INSTEAD.get((src.loc, dst.loc), ""),
                "dst", "pto.op.loc", f"{src.loc}->{dst.loc}")
    if not op.prof.tmov_src_valid or src.valid_rows > dst.rows or src.valid_cols > dst.cols:
        op.valid_match(src, dst, "dst", "src")
    if fp is not None:
        return textract_fp(dst, src, fp, 0, 0, relu_pre_mode=use_relu, target=op.prof)
    R, C = src.valid
    words = None if pre_quant_scalar is None else fixpipe.scalar_word(op, pre_quant_scalar)
    if op.prof.tmov_ignores_scalar:  # the CPU simulator's TMOV drops the scalar: a plain move (PTO47)
        words = None
    _store(op, dst, (slice(0, R), slice(0, C)), src.bits[:R, :C], src,
           _convert(op, src.bits[:R, :C], src, dst, words, False, use_relu, "after"))
    return dst


def tmov_fp(dst: Tile, src: Tile, fp: Tile, *, relu_pre_mode=False, target=None) -> Tile:
    """TMOV_FP: TMOV with vector quantisation; fp row 0 holds one quant word per src column (as
    ``tmov(dst, src, fp)``). Raises ``pto.op.operand`` when fp is not a tile, and TMOV's rules."""
    op = Op("tmov_fp", target)
    op.tile(fp, "fp", None)
    return tmov(dst, src, fp, relu_pre_mode=relu_pre_mode, target=op.prof)


def _check_path(op: Op, dst: Tile, src: Tile, quant: bool) -> None:
    """The target's TEXTRACT/TINSERT rules for this location pair (``pto.op.loc``, ``pto.op.layout``,
    ``pto.op.dtype``); quant forms take only their location pairs here (fixpipe checks their dtypes)."""
    base = op.name.removesuffix("_fp")
    table = op.prof.window_paths
    if table is None:
        return
    pair = (src.loc, dst.loc)
    pairs = op.prof.quant_paths if quant else table[base]
    if pair not in pairs:
        op.fail(f"{src.loc} -> {dst.loc} is not a {'quant ' if quant else ''}{base.upper()} path on "
                f"{op.prof.name}; paths: " + ", ".join(f"{a}->{b}" for a, b in sorted(pairs)), "src,dst",
                "pto.op.loc", f"{src.loc}->{dst.loc}")
    if quant:
        return
    path = table[base][pair]
    for t, role, allowed in ((src, "src", path.src_layouts), (dst, "dst", path.dst_layouts)):
        if allowed is not None and t.layout not in allowed:
            op.fail(f"{pair[0]}->{pair[1]} {base.upper()} on {op.prof.name} needs {role} layout "
                    f"{' or '.join(sorted(allowed))}, not {t.layout} ({t.layouts})", role,
                    "pto.op.layout", t.layout)
    if path.same_layout and src.layout != dst.layout:
        op.fail(f"{pair[0]}->{pair[1]} {base.upper()} on {op.prof.name} needs src and dst in one layout "
                f"(both ND or both Nz), not {src.layout} -> {dst.layout}", "src,dst", "pto.op.layout",
                (src.layout, dst.layout))
    sig = (src.dtype.name, dst.dtype.name)
    if path.dtypes is not None and sig not in path.dtypes:
        op.fail(f"{pair[0]}->{pair[1]} {base.upper()} on {op.prof.name} does not take {sig[0]} -> {sig[1]}; "
                "supported: " + ", ".join(f"{a}->{b}" for a, b in sorted(path.dtypes)), "src,dst",
                "pto.op.dtype", sig, DtypeError)


def _window(name: str, dst: Tile, src: Tile, index_row, index_col, fp, scalar, relu_pre_mode, target,
            insert: bool) -> Tile:
    """TEXTRACT (a dst-sized window of src) or TINSERT (src into a window of dst) at (index_row, index_col)."""
    op = Op(name, target)
    op.tile(dst, "dst", None)
    op.tile(src, "src", None)
    _check_path(op, dst, src, fp is not None or scalar is not None)
    r0, c0 = _index(op, index_row, "index_row"), _index(op, index_col, "index_col")
    use_relu = word(op, relu_pre_mode, "relu_pre_mode", RELU)
    small, big, where = (src, dst, "dst") if insert else (dst, src, "src")
    R, C = small.valid
    if r0 + R > big.valid_rows or c0 + C > big.valid_cols:
        op.fail(f"window [{r0}:{r0 + R}, {c0}:{c0 + C}] leaves {where}'s valid {big.valid_rows}x{big.valid_cols}",
                "index_row,index_col", "pto.op.window", (r0, c0, R, C))
    win = (slice(r0, r0 + R), slice(c0, c0 + C))
    whole = (slice(0, R), slice(0, C))
    src_win, dst_win = (whole, win) if insert else (win, whole)
    words = None
    if fp is not None:  # one quant word per source column
        first = 0 if insert else c0
        words = fixpipe.quant_words(op, fp, first + C)[first:first + C][None, :]
    elif scalar is not None:
        words = fixpipe.scalar_word(op, scalar)
    lanes, undefined = _convert(op, src.bits[src_win], src, dst, words, fp is not None, use_relu, "before")
    if scalar is not None and op.prof.fp_modeless_casts and (src.dtype.name, dst.dtype.name) in fixpipe.SCALAR_MODES:
        past = _past_scalars(src, dst, c0, insert)
        if op.prof.strict and past.any():
            op.fail(f"column {int(np.argmax(past))} of the window reads its quant word past the simulator's quant "
                    "vector (undefined in C++); strict mode refuses it", "pre_quant_scalar", "pto.tcvt.undefined",
                    (r0, c0, R, C), SpecGapError)
        undefined = undefined | past[None, :]
    _store(op, dst, dst_win, src.bits[src_win], src, (lanes, undefined))
    return dst


def _past_scalars(src: Tile, dst: Tile, c0: int, insert: bool) -> np.ndarray:
    """Per window column: whether the CPU simulator's scalar form reads its quant word past the end of the
    vector it filled (pto-isa include/pto/cpu/TExtract.hpp reads ``scalars[c + idxCol]`` of dst's valid
    columns; TInsert.hpp ``scalars[c]`` of src's valid columns, or rows when src is not row-major):
    undefined in C++, so those lanes are marked (PTO47)."""
    if insert:
        n = src.valid_cols if src.blayout == "row_major" else src.valid_rows
        return np.arange(src.valid_cols) >= n
    return np.arange(dst.valid_cols) + c0 >= dst.valid_cols


def textract(dst: Tile, src: Tile, index_row=0, index_col=0, pre_quant_scalar=None, *, relu_pre_mode=False,
             target=None) -> Tile:
    """TEXTRACT: ``dst[i, j] = src[index_row + i, index_col + j]`` over dst's valid shape.

    relu_pre_mode (``NormalRelu`` or True) is ``v > 0 ? v : 0`` on the source value.
    A pre-quant scalar selects the scalar quant form. Raises ``pto.op.window``
    when the window leaves src's valid region, ``pto.op.index``, ``pto.op.dtype``. A
    :class:`~tilesim.pto.conv.ConvTile` src copies whole fractals (:mod:`.convtile`, PTO173).
    """
    if isinstance(src, ConvTile) and pre_quant_scalar is None and not relu_pre_mode:
        return convtile.textract(dst, src, index_row, index_col, target=target)
    return _window("textract", dst, src, index_row, index_col, None, pre_quant_scalar, relu_pre_mode, target, False)


def textract_fp(dst: Tile, src: Tile, fp: Tile, index_row=0, index_col=0, *, relu_pre_mode=False,
                target=None) -> Tile:
    """TEXTRACT_FP: TEXTRACT with vector quantisation; fp row 0 holds one quant word per src column."""
    return _window("textract_fp", dst, src, index_row, index_col, fp, None, relu_pre_mode, target, False)


def tinsert(dst: Tile, src: Tile, index_row=0, index_col=0, pre_quant_scalar=None, *, relu_pre_mode=False,
            target=None) -> Tile:
    """TINSERT: ``dst[index_row + i, index_col + j] = src[i, j]`` over src's valid shape.

    Raises ``pto.op.window`` when the window leaves dst's valid region.
    """
    return _window("tinsert", dst, src, index_row, index_col, None, pre_quant_scalar, relu_pre_mode, target, True)


def tinsert_fp(dst: Tile, src: Tile, fp: Tile, index_row=0, index_col=0, *, relu_pre_mode=False,
               target=None) -> Tile:
    """TINSERT_FP: TINSERT with vector quantisation; fp row 0 holds one quant word per src column."""
    return _window("tinsert_fp", dst, src, index_row, index_col, fp, None, relu_pre_mode, target, True)
