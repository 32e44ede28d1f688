"""Bit layouts of datums in SrcA/SrcB (19 bits) and Dst (16 or 32 bits), vectorised.

Facts (``SrcASrcB.md``, ``Dst.md``, ``UNPACR_Regular.md`` of tenstorrent/tt-isa-documentation):

- Src datum: sign [18], mantissa or magnitude [17:8], exponent [7:0].
  TF32 uses all of it; BF16 keeps mantissa [10:8] zero; FP16 keeps exponent
  [7:5] zero (bias 15); INT8 is sign-magnitude with exponent 16 (0 when the
  magnitude is 0).
- Dst16: BF16 is sign [15], mantissa [14:8], exponent [7:0]; FP16 is sign,
  mantissa [14:5], exponent [4:0]; INT8 overlays FP16.
- Dst32 (stored as two 16-bit halves, see :func:`adj32`): FP32 is sign [31],
  mantissa high 7 [30:24], exponent [23:16], mantissa low 16 [15:0] (the high
  half is a Dst16 BF16); INT32 is sign-magnitude with MagMiddle [30:24], MagHi
  [23:16], MagLo [15:0], the magnitude being MagHi:MagMiddle:MagLo, i.e. the
  same shuffle as FP32.

Every function takes and returns numpy integer arrays and never loops over
elements. "IEEE bits" means the usual sign/exponent/mantissa order.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "SRC_MASK", "adj32",
    "src_sign", "src_man", "src_exp", "src_pack",
    "src_from_tf32", "src_from_bf16", "src_from_fp16", "src_from_int8",
    "src_read_fp32", "src_read_int8",
    "dst16_from_bf16", "dst16_to_bf16", "dst16_from_fp16", "dst16_to_fp16",
    "dst32_from_fp32", "dst32_to_fp32", "dst32_from_int", "dst32_to_int",
    "float_value", "src_values", "dst16_values", "dst32_values",
]

U32 = np.uint32
SRC_MASK = 0x7FFFF  # 19 bits


def _u32(x) -> np.ndarray:
    return np.asarray(x).astype(U32)


def adj32(row) -> np.ndarray:
    """Physical Dst16 row holding the high half of ``Dst32b[row]`` (the low half is 8 rows below).

    ``Adj32(r) = ((r & 0x1f8) << 1) | (r & 0x207)`` (``Dst.md``); 512 distinct values.

    >>> adj32(np.arange(10)).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 16, 17]
    """
    r = np.asarray(row, np.int64)
    return ((r & 0x1F8) << 1) | (r & 0x207)


# -- Src datums ---------------------------------------------------------------------------------

def src_sign(d) -> np.ndarray:
    return (_u32(d) >> 18) & 1


def src_man(d) -> np.ndarray:
    """Mantissa (float) or magnitude (INT8), bits [17:8]."""
    return (_u32(d) >> 8) & 0x3FF


def src_exp(d) -> np.ndarray:
    return _u32(d) & 0xFF


def src_pack(sign, man, exp) -> np.ndarray:
    """A Src datum from its fields (each masked to its width)."""
    return ((_u32(sign) & 1) << 18) | ((_u32(man) & 0x3FF) << 8) | (_u32(exp) & 0xFF)


def src_from_tf32(bits19) -> np.ndarray:
    """``WriteSrcTF32``: IEEE-ordered 19-bit TF32 (sign, exp8, man10) to the Src layout."""
    x = _u32(bits19)
    return (x & 0x40000) | ((x & 0x3FF) << 8) | ((x & 0x3FC00) >> 10)


def src_from_bf16(bits16) -> np.ndarray:
    """``WriteSrcBF16``: IEEE BF16 bits to the Src layout (mantissa [10:8] zero)."""
    return src_from_tf32(_u32(bits16) << 3)


def src_from_fp16(bits16) -> np.ndarray:
    """``WriteSrcFP16``: IEEE-ordered FP16 bits to the Src layout (exponent [7:5] zero)."""
    x = _u32(bits16)
    return src_from_tf32(((x & 0x8000) << 3) | (x & 0x7FFF))


def src_from_int8(sign, mag) -> np.ndarray:
    """The INT8 overlay: exponent 16, or 0 when the magnitude is 0."""
    m = _u32(mag)
    return src_pack(sign, m, np.where(m != 0, 16, 0))


def src_read_fp32(d, style: str, flush: bool = True) -> np.ndarray:
    """``ReadTF32`` / ``ReadBF16`` / ``ReadFP16``: a Src datum as IEEE FP32 bits.

    TF32: sign [18] to [31], exponent [7:0] to [30:23], mantissa [17:8] to [22:13].
    BF16: the same after masking with ``0x7F8FF``. FP16: exponent [4:0] + 112.
    With ``flush`` (the faithful reading of spec §6), exponent 0 gives a signed zero.
    """
    x = _u32(d)
    if style == "BF16":
        x = x & 0x7F8FF
    sign = (x >> 18) << 31
    man = ((x >> 8) & 0x3FF) << 13
    e = x & (0x1F if style == "FP16" else 0xFF)
    zero = e == 0
    if style == "FP16":
        e = e + 112
    out = sign | (e << 23) | man
    return np.where(zero, sign, out).astype(U32) if flush else out.astype(U32)


def src_read_int8(d) -> np.ndarray:
    """``ReadSrcInt8``: sign-magnitude [18], [17:8] as int64 (the exponent is ignored)."""
    x = _u32(d)
    mag = ((x >> 8) & 0x3FF).astype(np.int64)
    return np.where((x >> 18) & 1, -mag, mag)


# -- Dst datums ---------------------------------------------------------------------------------

def dst16_from_bf16(b) -> np.ndarray:
    """``WriteDstBF16``: IEEE BF16 (sign, exp8, man7) to Dst16 (sign, man7, exp8)."""
    x = np.asarray(b).astype(np.uint16)
    return (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)


def dst16_to_bf16(r) -> np.ndarray:
    x = np.asarray(r).astype(np.uint16)
    return (x & 0x8000) | ((x & 0xFF) << 7) | ((x >> 8) & 0x7F)


def dst16_from_fp16(b) -> np.ndarray:
    """``WriteDstFP16``: IEEE-ordered FP16 (sign, exp5, man10) to Dst16 (sign, man10, exp5)."""
    x = np.asarray(b).astype(np.uint16)
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)


def dst16_to_fp16(r) -> np.ndarray:
    x = np.asarray(r).astype(np.uint16)
    return (x & 0x8000) | ((x & 0x1F) << 10) | ((x >> 5) & 0x3FF)


def dst32_from_fp32(b) -> np.ndarray:
    """``WriteDstFP32``: IEEE FP32 bits to the Dst32 layout (the high half shuffled as BF16)."""
    x = _u32(b)
    return (dst16_from_bf16(x >> 16).astype(U32) << 16) | (x & 0xFFFF)


def dst32_to_fp32(r) -> np.ndarray:
    x = _u32(r)
    return (dst16_to_bf16(x >> 16).astype(U32) << 16) | (x & 0xFFFF)


def dst32_from_int(v) -> np.ndarray:
    """``WriteDstInt32``: an integer in ±(2**31 - 1) to sign-magnitude INT32 in the Dst32 layout."""
    v = np.asarray(v, np.int64)
    sm = (np.where(v < 0, np.int64(1) << 31, 0) | np.abs(v)).astype(U32)
    return dst32_from_fp32(sm)


def dst32_to_int(r) -> np.ndarray:
    """``ReadDstInt32``: the INT32 in a Dst32 datum as int64 (−0 reads as 0)."""
    sm = dst32_to_fp32(r)
    mag = (sm & 0x7FFFFFFF).astype(np.int64)
    return np.where(sm >> 31, -mag, mag)


# -- values (how the Matrix Unit reads the bits) ------------------------------------------------

def float_value(sign, exp, man, bias: int, man_bits: int) -> np.ndarray:
    """Exact float64 of (sign, biased exponent, mantissa) as the FPU reads it.

    Exponent 0 is a (signed) zero whatever the mantissa; the top exponent is an
    ordinary finite number (``FloatBitPatterns.md``).
    """
    e = np.asarray(exp, np.int64)
    m = np.asarray(man, np.int64)
    mag = np.ldexp((m + (1 << man_bits)).astype(np.float64), e - bias - man_bits)
    mag = np.where(e == 0, 0.0, mag)
    return np.where(np.asarray(sign) != 0, -mag, mag)


def src_values(d, style: str) -> np.ndarray:
    """Values of Src datums in ``style`` (TF32, BF16, FP16 or INT8)."""
    x = _u32(d)
    if style == "INT8":
        return src_read_int8(x).astype(np.float64)
    if style == "BF16":
        x = x & 0x7F8FF
    if style == "FP16":
        return float_value(src_sign(x), x & 0x1F, src_man(x), 15, 10)
    return float_value(src_sign(x), src_exp(x), src_man(x), 127, 10)


def dst16_values(r, style: str) -> np.ndarray:
    """Values of Dst16 datums holding BF16, FP16 or INT8."""
    x = np.asarray(r).astype(np.uint16).astype(np.int64)
    sign = x >> 15
    if style == "BF16":
        return float_value(sign, x & 0xFF, (x >> 8) & 0x7F, 127, 7)
    if style == "FP16":
        return float_value(sign, x & 0x1F, (x >> 5) & 0x3FF, 15, 10)
    mag = ((x >> 5) & 0x3FF).astype(np.float64)
    return np.where(sign != 0, -mag, mag)


def dst32_values(r, style: str) -> np.ndarray:
    """Values of Dst32 datums holding FP32 (float64, exact) or INT32 (float64 of the integer)."""
    if style == "INT32":
        return dst32_to_int(r).astype(np.float64)
    b = dst32_to_fp32(r).astype(np.int64)
    return float_value(b >> 31, (b >> 23) & 0xFF, b & 0x7FFFFF, 127, 23)
