"""Reading Dst out through the packer's early format conversion (``Packers/FormatConversion.md``).

Supported conversions (``rounding=True`` is ``Read_raw = false``):

| Dst holds | to FP32 | to TF32 | to BF16 | to FP16 | to INT32 | to INT8 |
|---|---|---|---|---|---|---|
| FP32 (Dst32) | identity | rounding | rounding, or truncation | - | bitcast | - |
| BF16 (Dst16) | - | rounding | rounding, or identity | - | - | - |
| FP16 (Dst16) | - | - | - | rounding, or identity | - | - |
| INT32 (Dst32) | - | - | - | - | identity | saturate to ±127, or sign + low 7 bits |

Rounding is to nearest with ties away from zero; it flushes exponent-0 values and −0 to +0 and,
for 8-bit exponents, turns NaN bit patterns (exponent 255, mantissa non-zero) into infinity.
Stochastic rounding, the late conversion and the INT8 shift (``INT_DESCALE``) are not modelled
(TT15). Undefined rows read as 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import formats
from ..errors import FormatError, GeometryError, UnsupportedError
from .fpu.common import fpu_mode
from .layouts import adj32, dst16_to_bf16, dst16_to_fp16, dst32_to_fp32
from .state import Machine, check_thread

__all__ = ["Packed", "pack", "round_fp32", "PACK_FORMATS"]

U32 = np.uint32
PACK_FORMATS = ("FP32", "TF32", "BF16", "FP16", "INT32", "INT8")
_ALLOWED = {"FP32": {"FP32", "TF32", "BF16", "INT32"}, "BF16": {"TF32", "BF16"}, "FP16": {"FP16"},
            "INT32": {"INT32", "INT8"}}


class Packed(NamedTuple):
    """``codes``: the intermediate format's bits (IEEE order; INT32/INT8 sign-magnitude), shape (rows, 16);
    ``values``: the host's reading of them (IEEE for floats, exact integers as float64)."""

    codes: np.ndarray
    values: np.ndarray
    fmt: str


def round_fp32(bits: np.ndarray, man_bits: int) -> np.ndarray:
    """FP32 bits rounded half away from zero to ``man_bits`` mantissa bits, with the packer's
    specials: exponent 0 (and −0) to +0, NaN to infinity (sign kept); a carry may reach infinity."""
    b = np.asarray(bits, U32).astype(np.int64)
    sign = b & 0x80000000
    e = (b >> 23) & 0xFF
    mag = b & 0x7FFFFFFF
    drop = 23 - man_bits
    if drop:
        mag = (mag + (1 << (drop - 1))) & ~((1 << drop) - 1)
    nan = (e == 255) & ((b & 0x7FFFFF) != 0)
    out = np.where(nan, sign | 0x7F800000, np.where(mag >= 0x7F800000, sign | 0x7F800000, sign | mag))
    return np.where(e == 0, 0, out).astype(U32)


def pack(m: Machine, fmt: str, row: int = 0, rows: int = 16, *, dst32: bool | None = None, dst_type: str | None = None,
         rounding: bool = True, thread: int = 0) -> Packed:
    """Read ``rows`` Dst rows from ``row`` and convert them to ``fmt`` (one of :data:`PACK_FORMATS`).

    Args:
        dst32: read ``Dst32b`` (default: when the Matrix Unit's current formats use 32-bit Dst).
        dst_type: what Dst holds (FP32, INT32, BF16 or FP16); by default what the Matrix Unit's
            current formats write there.
        rounding: round (``Read_raw = false``), or take the identity / truncating path.

    Raises:
        FormatError: a conversion the packer does not have (``tt.pack.conversion``).
        GeometryError: rows out of range (``tt.pack.rows``).
        UnsupportedError: stochastic packer rounding is enabled (``tt.pack.srnd``).
    """
    check_thread(thread)
    c = m.cfg(thread)
    mode = fpu_mode(m, thread, "pack")
    if dst32 is None:
        dst32 = mode.dst32
    if dst_type is None:
        dst_type = mode.dst_style if dst32 == mode.dst32 else ("FP32" if dst32 else "BF16")
    fmt, dst_type = fmt.upper(), dst_type.upper()
    if fmt not in _ALLOWED.get(dst_type, ()) or (dst_type in ("FP32", "INT32")) != dst32:
        raise FormatError(f"the packer cannot convert {'32' if dst32 else '16'}-bit {dst_type} Dst data to {fmt}",
                          instruction="pack", operand="fmt", rule="tt.pack.conversion", value=f"{dst_type} -> {fmt}")
    limit = 512 if dst32 else 1024
    if not (0 <= row and rows >= 1 and row + rows <= limit):
        raise GeometryError(f"rows {row}..{row + rows - 1} do not fit 0..{limit - 1}", instruction="pack",
                            operand="row", rule="tt.pack.rows", value=row)
    if rounding and c["ALU_ROUNDING_MODE_Packer_srnd_en"]:
        raise UnsupportedError("stochastic packer rounding is not modelled", instruction="pack",
                               operand="ALU_ROUNDING_MODE_Packer_srnd_en", rule="tt.pack.srnd", value=1)
    r = row + np.arange(rows)
    if dst32:
        hi = adj32(r)
        raw = (m.dst[hi].astype(U32) << 16) | m.dst[hi + 8]
        raw = np.where(m.dst_valid[hi][:, None], raw, U32(0))
    else:
        raw = np.where(m.dst_valid[r][:, None], m.dst[r], np.uint16(0))
    if dst_type == "INT32":
        sm = dst32_to_fp32(raw)
        if fmt == "INT32":
            codes = sm
        elif rounding:
            mag = np.minimum(sm & 0x7FFFFFFF, 127)
            codes = np.where(mag != 0, (sm >> 31) << 7, 0) | mag
        else:
            codes = ((sm >> 31) << 7) | (sm & 0x7F)
        bits = 31 if fmt == "INT32" else 7
        codes = codes.astype(U32 if fmt == "INT32" else np.uint8)
        mag = (codes.astype(np.int64) & ((1 << bits) - 1)).astype(np.float64)
        return Packed(codes, np.where(codes.astype(np.int64) >> bits, -mag, mag), fmt)
    if dst_type == "FP32":
        b = dst32_to_fp32(raw)
        if fmt == "INT32":
            mag = (b & 0x7FFFFFFF).astype(np.float64)
            return Packed(b, np.where(b >> 31, -mag, mag), fmt)
        if fmt == "FP32":
            codes = b
        elif fmt == "TF32":
            codes = round_fp32(b, 10)
        else:
            codes = ((round_fp32(b, 7) if rounding else b) >> 16).astype(np.uint16)
    elif dst_type == "BF16":
        b = dst16_to_bf16(raw).astype(U32) << 16
        if fmt == "TF32":
            codes = round_fp32(b, 10)
        else:
            codes = ((round_fp32(b, 7) if rounding else b) >> 16).astype(np.uint16)
    else:
        h = dst16_to_fp16(raw)
        codes = np.where((h & 0x7C00) == 0, np.uint16(0), h).astype(np.uint16) if rounding else h
    core = {"FP32": "fp32", "TF32": "tf32", "BF16": "bf16", "FP16": "fp16"}[fmt]
    return Packed(codes, formats.decode(codes, core), fmt)
