"""Fixpipe pre-quantisation: the scalar- and vector-quant forms of TMOV, TEXTRACT and TINSERT.

The mode follows from the (source, destination) dtypes (pto-isa
include/pto/cpu/common.hpp, ``GetScalarPreQuantMode``/``GetVectorPreQuantMode``)
and each element is ``quantize_element`` of that file, in float32:

* the scale ``f``: scalar forms read the low 32 bits of the 64-bit quant word
  as a float; vector forms decode bits 13..31 as a 19-bit float (sign, 8-bit
  exponent, 10-bit mantissa; all-zero exponent and mantissa is 0);
* ``x = float(src) * f`` (int32 sources are first rounded to float32);
* to 8-bit integers: ``rint(x + offset)`` clamped to [-128, 127] when bit 46
  is set, else [0, 255] (offset = bits 37..45);
* int32 to f16: clamped to +-65504, then rounded; f32 to f16: finite values
  clamped to +-65504; f32 to bf16: rounded;
* int32 to int16: ``(int16)(src >> (bits 32..35 + 1))`` (the scale unused);
* optional ReLU ``x > 0 ? x : 0``, then the cast to the destination.

Choices where the reference is undefined or configurable (decision PTO53):
the control register's saturate-inf bit is 0 (the CPU default; a profile
with ``quant_saturate_inf`` sets it: f32 -> f16/bf16 then turns NaN to 0 and
clamps infinities, PTO151); a NaN that
reaches an integer cast gives 0; a float quant word (fp tile of a float
dtype) is read as the C++ value conversion to uint64 and must be a whole
number in 0..2**64-1. On ``cpu`` a NaN result carries x86-64's payload
(PTO49) and the NaN reaching an integer cast is marked undefined (PTO74).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..dtypes import DType, get_dtype
from ..tile import Tile
from . import convert_cpu
from ._common import Op

__all__: list[str] = []

_F16_MAX = np.float32(65504.0)
_F32 = get_dtype("f32")
_B8 = ("i8", "u8")

#: (src, dst) -> mode name, for the scalar and the vector forms
SCALAR_MODES = {("f32", "i8"): "b8", ("f32", "u8"): "b8", ("f32", "f16"): "f16", ("f32", "bf16"): "bf16",
                ("i32", "i8"): "b8", ("i32", "u8"): "b8", ("i32", "f16"): "deq16", ("i32", "i16"): "shift16"}
VECTOR_MODES = {("f32", "i8"): "b8", ("f32", "u8"): "b8", ("i32", "i8"): "b8", ("i32", "u8"): "b8",
                ("i32", "f16"): "deq16", ("i32", "i16"): "shift16"}


def mode(op: Op, src: DType, dst: DType, vector: bool) -> str:
    table = VECTOR_MODES if vector else SCALAR_MODES
    m = table.get((src.name, dst.name))
    if m is None:
        op.fail(f"no {'vector' if vector else 'scalar'} quant mode for {src}->{dst}; supported: "
                + ", ".join(f"{a}->{b}" for a, b in sorted(table)), "dst", "pto.op.dtype", (src.name, dst.name),
                DtypeError)
    return m


def _scale(words: np.ndarray, vector: bool) -> np.ndarray:
    if not vector:
        return (words & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    m1 = (words >> np.uint64(13)) & np.uint64(0x7FFFF)
    sign = (m1 >> np.uint64(18)) & np.uint64(1)
    e = ((m1 >> np.uint64(10)) & np.uint64(0xFF)).astype(np.int64)
    man = (m1 & np.uint64(0x3FF)).astype(np.int64)
    mant = np.float32(1) + man.astype(np.float32) / np.float32(1024)      # exact: 11 significant bits
    pw = np.ldexp(np.float32(1), e - 127).astype(np.float32)             # exact powers of two (2**-127 subnormal)
    with np.errstate(under="ignore"):
        v = np.where(sign == 1, np.float32(-1), np.float32(1)) * mant * pw
    return np.where((e == 0) & (man == 0), np.float32(0), v).astype(np.float32)


def quantize(op: Op, bits: np.ndarray, src: DType, dst: DType, words: np.ndarray, *, vector: bool,
             relu: bool, clamp_f16: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(destination lanes, undefined mask) of ``bits`` (src lanes, (R, C)) quantised with 64-bit words broadcast
    per column. The mask marks the NaNs that reach the integer cast: undefined in C++ (PTO74). ``clamp_f16``
    False is TPUSH's F322F16 mode, which scales and casts f32 to f16 with no clamp (PTO179)."""
    m = mode(op, src, dst, vector)
    words = np.broadcast_to(np.asarray(words, np.uint64), bits.shape)
    with np.errstate(all="ignore"):
        if m == "shift16":
            shift = ((words >> np.uint64(32)) & np.uint64(0xF)).astype(np.int64) + 1
            x = (nx.int_view(bits, src) >> shift).astype(np.int16).astype(np.float32)
        else:
            v = nx.as_f32(bits, src) if src.is_float else nx.int_view(bits, src).astype(np.float32)
            scale = _scale(words, vector)
            x = (v * scale).astype(np.float32)
            if op.prof.x86_nans:  # cpu: a NaN product carries x86-64's payload (PTO49)
                x = nx.x86_nans(x.view(np.uint32), v.view(np.uint32), scale.view(np.uint32), _F32).view(np.float32)
        if m == "b8":
            off = ((words >> np.uint64(37)) & np.uint64(0x1FF)).astype(np.float32)
            signed = ((words >> np.uint64(46)) & np.uint64(1)) == 1
            r = np.rint((x + off).astype(np.float32))
            x = np.where(np.isnan(r), r, np.clip(r, np.where(signed, -128, 0), np.where(signed, 127, 255)))
        elif m in ("f16", "bf16") and op.prof.quant_saturate_inf and (clamp_f16 or m == "bf16"):  # NaN -> 0, clamp
            lim = _F16_MAX if m == "f16" else np.float32(np.finfo(np.float32).max)
            x = np.clip(np.where(np.isnan(x), np.float32(0), x), -lim, lim)
        elif m == "deq16" or (m == "f16" and clamp_f16):
            clamp = np.where(np.isnan(x), x, np.clip(x, -_F16_MAX, _F16_MAX))  # std::clamp passes NaN
            x = clamp if m == "deq16" else np.where(np.isfinite(x), clamp, x)
        x = x.astype(np.float32)
        if relu:
            x = np.where(x > 0, x, np.float32(0))
        if dst.is_float:
            out = nx.from_f32(x, dst, flush=False)
            if op.prof.x86_nans:  # the cast keeps a NaN's sign and payload
                out = np.where(np.isnan(x), convert_cpu.nan_lanes(x.view(np.uint32), _F32, dst), out)
            return out, np.zeros(x.shape, bool)
        nan = np.isnan(x)
        ints = np.where(nan, 0, x).astype(np.int64)
        return ints.astype(dst.np).view(dst.lane), nan


def quant_words(op: Op, fp: Tile, need: int) -> np.ndarray:
    """The first ``need`` quant words of an fp (scaling) tile's row 0, as uint64 (C++ value conversion)."""
    op.tile(fp, "fp", None)
    if fp.valid_rows < 1 or fp.valid_cols < need:
        op.fail(f"fp holds {fp.valid_cols} valid quant words in row 0, {need} needed", "fp", "pto.op.fp_cols",
                fp.valid)
    lanes = fp.bits[0, :need]
    if fp.dtype.is_int:
        return nx.int_view(lanes, fp.dtype).astype(np.uint64) if fp.dtype.name != "u64" else lanes.copy()
    v = nx.as_f32(lanes, fp.dtype).astype(np.float64) if fp.dtype.size < 8 else lanes.view(np.float64)
    bad = ~np.isfinite(v) | (v < 0) | (v >= 2.0 ** 64)
    if bad.any():
        op.fail("a float quant word must be a finite number in 0..2**64 (C++ float->uint64 is undefined "
                "otherwise)", "fp", "pto.op.range", float(v[bad][0]))
    return np.array([int(x) for x in np.trunc(v)], np.uint64)


def scalar_word(op: Op, value) -> np.uint64:
    """A pre-quant scalar operand as its 64-bit quant word (negative integers wrap, as C++ does)."""
    if isinstance(value, Tile) or np.ndim(value) != 0 or isinstance(value, (bool, np.bool_)):
        op.fail("the pre-quant scalar must be one integer", "pre_quant_scalar", "pto.op.operand", value,
                TilesimError)
    try:
        v = int(value)
        ok = v == value
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok or not -(1 << 63) <= v < 1 << 64:
        op.fail("the pre-quant scalar must be a 64-bit integer", "pre_quant_scalar", "pto.op.range", value,
                TilesimError)
    return np.uint64(v & ((1 << 64) - 1))
