"""Loading data into SrcA, SrcB or Dst through the unpackers' format conversion (``UNPACR_Regular.md``).

Two steps, both vectorised:

1. :func:`l1_encode`: host values to the L1 bits of a Tensix data format (the host's job, decided
   in TT14): IEEE formats round to nearest even with :func:`tilesim.formats.encode`; BFP formats
   take each row of 16's largest exponent as the shared exponent and round magnitudes half away
   from zero, clamping at the largest magnitude; INT8 is sign-magnitude (or unsigned), INT32
   sign-magnitude.
2. :func:`convert`: the unpacker's ``FormatConversion`` of those bits into Src datums (19 bits) or
   Dst datums (16 or 32 bits): FP32 to TF32/BF16/FP16 by truncation (BF16 flushes exponent-0
   values; FP16 per ttsim: rebias, signed zero below range, saturate above), FP8 by ``<< 8``,
   BFP by normalising each magnitude, INT8 to the "integer 8" overlay.

:func:`unpack` writes the result into the unpacker's current bank (or Dst) and, by default,
hands the bank to the Matrix Unit as ``SETDVALID`` does.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from ..errors import DtypeError, FormatError, GeometryError, SpecGapError, StateError
from .dataformat import DataFormat, Kind, data_format
from .layouts import (SRC_MASK, dst16_from_bf16, dst16_from_fp16, dst32_from_fp32, src_from_bf16, src_from_fp16,
                      src_from_tf32)
from .fpu.common import write_dst
from .state import Client, Machine, check_thread

__all__ = ["l1_encode", "convert", "unpack", "bfp_to_16"]

U32 = np.uint32
I64 = np.int64


def _bfp_encode(x: np.ndarray, f: DataFormat):
    """Codes and shared exponents of BFP data, one exponent per row of 16 (TT14)."""
    rows = x.reshape(-1, 16)
    mag = np.abs(rows)
    _, e = np.frexp(mag)               # mag = frac * 2**e, frac in [0.5, 1): exact
    bias = 127 if f.exp_bits == 8 else 15
    e_biased = np.where(mag > 0, e - 1 + bias, 0)
    shared = e_biased.max(axis=1)
    top = (1 << f.exp_bits) - 1
    live = mag.max(axis=1) > 0
    if np.any(live & ((shared < 1) | (shared > top))):
        raise FormatError(f"a row's largest magnitude needs shared exponent outside 1..{top}", instruction="unpack",
                          operand="values", rule="tt.unpack.range", value=int(shared[live].max()))
    scale = (f.man_bits - 1) - (shared - bias)
    q = np.floor(np.ldexp(mag, scale[:, None]) + 0.5)  # exact: power-of-two scaling, values < 2**9
    q = np.minimum(q, (1 << f.man_bits) - 1).astype(I64)
    sign = (rows < 0) & (q > 0)
    codes = (sign.astype(I64) << f.man_bits) | q
    return codes.reshape(x.shape).astype(U32), np.where(live, shared, 0).astype(U32)


def l1_encode(values, fmt, *, unsigned: bool = False):
    """Host values as L1 bits of ``fmt``: ``(codes, exponents)``, exponents only for BFP formats.

    Raises:
        DtypeError: NaN input, or non-integers for an integer format (``tt.unpack.value``).
        FormatError: a value out of the format's range (``tt.unpack.range``).
    """
    f = data_format(fmt)
    x = np.asarray(values)
    if f.kind is Kind.INT:
        if not (np.issubdtype(x.dtype, np.integer) or (np.isfinite(x).all() and (np.floor(x) == x).all())):
            raise DtypeError(f"{f.name} takes integers", instruction="unpack", operand="values",
                             rule="tt.unpack.value", value=str(x.dtype))
        lo, hi = {"INT8": (0, 255) if unsigned else (-127, 127), "INT16": (0, 0xFFFF),
                  "INT32": (-(2**31 - 1), 2**31 - 1)}[f.name]
        if x.size and (x.min() < lo or x.max() > hi):   # checked before the cast, which could wrap
            raise FormatError(f"{f.name} holds {lo}..{hi}", instruction="unpack", operand="values",
                              rule="tt.unpack.range", value=(x.min() if x.min() < lo else x.max()).item())
        v = x.astype(I64)
        if f.name == "INT16":
            return v.astype(U32), None
        top = 1 << (f.l1_bits - 1)
        return np.where(v < 0, top | -v, v).astype(U32), None
    x = x.astype(np.float64)
    if np.isnan(x).any():
        raise DtypeError("the Matrix Unit has no NaN", instruction="unpack", operand="values",
                         rule="tt.unpack.value", value="nan")
    if f.kind is Kind.BFP:
        if x.size % 16:
            raise GeometryError("BFP data comes in rows of 16", instruction="unpack", operand="values",
                                rule="tt.unpack.shape", value=x.size)
        return _bfp_encode(x, f)
    return formats.encode(x, f.core, "rne").astype(U32), None


def bfp_to_16(codes, exps, f: DataFormat) -> np.ndarray:
    """``BFP8ToBF16`` / ``BFP8aToFP16`` (after the ``<< 4`` / ``<< 6`` of BFP4 and BFP2): IEEE 16-bit bits.

    Raises:
        SpecGapError: a BFPa datum whose exponent leaves 5 bits (undefined behaviour, ``tt.unpack.bfpa``).
    """
    d = (np.asarray(codes, I64) << (8 - f.l1_bits)) & 0xFF
    e = np.broadcast_to(np.asarray(exps, I64), d.shape)
    sign = d >> 7
    mag = (d << 1) & 0xFF
    lz = 8 - np.frexp(mag.astype(np.float64))[1].astype(I64)   # leading zeros of an 8-bit magnitude
    mag = (mag << lz) & 0xFF
    e = (e - lz) & 0xFF
    if f.exp_bits == 8:
        out = np.where(mag == 0, np.where(sign == 1, 0xFF80, 0), (sign << 15) | (e << 7) | (mag & 0x7E))
    else:
        if np.any((mag != 0) & ((e & 0xE0) != 0)):
            raise SpecGapError("a BFPa datum's exponent does not fit 5 bits (undefined behaviour)",
                               instruction="unpack", operand="exponents", rule="tt.unpack.bfpa",
                               value=int(e[(mag != 0) & ((e & 0xE0) != 0)].flat[0]))
        out = np.where(mag == 0, np.where(sign == 1, 0xFC00, 0), (sign << 15) | (e << 10) | ((mag & 0x7E) << 3))
    return out.astype(U32)


def _fp32_to_fp16(b: np.ndarray) -> np.ndarray:
    """``FP32ToFP16`` (ttsim): rebias by 112; below 0 a signed zero, above 31 saturate; truncate."""
    s = (b >> 16) & 0x8000
    e = ((b >> 23) & 0xFF).astype(I64) - 112
    man = (b >> 13) & 0x3FF
    out = np.where(e < 0, s, np.where(e > 31, s | 0x7FFF, s | (np.clip(e, 0, 31).astype(U32) << 10) | man))
    return out.astype(U32)


def convert(codes, fmt, *, to_dst: bool, out=None, exps=None, unsigned: bool = False):
    """The unpacker's ``FormatConversion``: L1 bits to Src datums, or to Dst datums.

    Returns ``(datums, dst32)``; ``dst32`` tells whether Dst datums are 32-bit (``Dst32b``).
    ``out`` is the output format for FP32 input (TF32, BF16 or FP16; for Dst also FP32).

    Raises:
        FormatError: a conversion the unpacker does not have (``tt.unpack.conversion``).
    """
    f = data_format(fmt)
    o = data_format(out) if out is not None else None
    c = np.asarray(codes).astype(U32)

    def bad(why: str):
        return FormatError(why, instruction="unpack", operand="format", rule="tt.unpack.conversion",
                           value=f"{f.name} -> {o.name if o else 'default'}")

    if o is not None and f.name not in ("FP32", "TF32") and o.code != f.code:
        raise bad("only FP32 input converts to another format")
    if f.name in ("FP32", "TF32"):
        target = o.name if o else ("FP32" if to_dst else "TF32")
        if f.name == "TF32" and not to_dst and target != "TF32":
            raise bad("TF32 input goes to TF32 only")
        if target in ("FP32", "TF32"):
            if to_dst:
                return dst32_from_fp32(c), True
            if target == "FP32":
                raise bad("Src holds 19 bits: use TF32, BF16 or FP16")
            return src_from_tf32(c >> 13), False
        if target == "BF16":
            b = np.where((c & 0x7F800000) == 0, c & U32(0x80000000), c) >> 16
            return (dst16_from_bf16(b), False) if to_dst else (src_from_bf16(b), False)
        if target == "FP16":
            h = _fp32_to_fp16(c)
            return (dst16_from_fp16(h), False) if to_dst else (src_from_fp16(h), False)
        raise bad("FP32 converts to FP32, TF32, BF16 or FP16")
    if f.kind is Kind.BFP:
        h = bfp_to_16(c, exps, f)
        is_bf16 = f.exp_bits == 8
    elif f.name == "FP8":
        h, is_bf16 = c << 8, False
    elif f.name == "INT8":
        sign = np.zeros_like(c) if unsigned else c & 0x80
        mag = c - sign
        h, is_bf16 = np.where(mag != 0, mag | (16 << 10), 0) | (sign << 8), False
    elif f.name in ("BF16", "FP16"):
        h, is_bf16 = c, f.name == "BF16"
    elif f.name == "INT16":
        return (c.astype(np.uint16), False) if to_dst else ((((c & 0xFF00) << 3) | (c & 0xFF)), False)
    elif f.name == "INT32":
        if not to_dst:
            raise bad("INT32 unpacks to Dst only")
        return dst32_from_fp32(c), True
    else:  # pragma: no cover - every format is handled above
        raise bad("no conversion")
    if to_dst:
        return (dst16_from_bf16(h) if is_bf16 else dst16_from_fp16(h)), False
    return (src_from_bf16(h) if is_bf16 else src_from_fp16(h)) & SRC_MASK, False


def unpack(m: Machine, target: str, values, fmt, *, out=None, row: int = 0, raw: bool = False, exponents=None,
           flip: bool = True, thread: int = 0) -> np.ndarray:
    """Load ``values`` (shape (R, 16), or (16,) for one row) into ``target`` (``"srca"``, ``"srcb"`` or ``"dst"``).

    Args:
        values: host numbers, or with ``raw`` the L1 codes themselves (BFP: also ``exponents``, one per row).
        fmt: the L1 data format (``"BF16"``, ``"BFP8"``, ``"FP32"``, ...; see :mod:`.dataformat`).
        out: the output format for FP32 input (TF32, BF16, FP16; Dst also FP32).
        row: first Src row (0..63) or Dst row (``Dst16b`` 0..1023, or ``Dst32b`` 0..511 for 32-bit data).
        flip: for Src, give the bank to the Matrix Unit and move the unpacker to the other bank.

    Returns the datums written, shape (rows, 16).

    Raises:
        StateError: the unpacker's bank belongs to the Matrix Unit, so the unpack would stall
            (``tt.stall.unpack``); unpacker 0 waits on its SrcA bank even when writing Dst.
        GeometryError: the rows do not fit, or ``values`` is not rows of 16 (``tt.unpack.rows``,
            ``tt.unpack.shape``).
        DtypeError: ``values`` is not a real-number array (``tt.unpack.value``).
    """
    check_thread(thread)
    tgt = str(target).lower()
    if tgt not in ("srca", "srcb", "dst"):
        raise GeometryError("target is srca, srcb or dst", instruction="unpack", operand="target",
                            rule="tt.unpack.target", value=target)
    f = data_format(fmt)
    which = 1 if tgt == "srcb" else 0
    unsigned = bool(m.cfg(thread)["ALU_FORMAT_SPEC_REG0_SrcBUnsigned" if which else "ALU_FORMAT_SPEC_REG0_SrcAUnsigned"])
    x = np.asarray(values)
    if x.dtype.kind not in "biuf":
        raise DtypeError(f"values are real numbers (bool, int or float arrays), not {x.dtype}", instruction="unpack",
                         operand="values", rule="tt.unpack.value", value=str(x.dtype))
    if not (x.ndim == 2 and x.shape[0] > 0 and x.shape[1] == 16) and x.shape != (16,):
        raise GeometryError(f"values are rows of 16: shape (R, 16) or (16,), not {x.shape}", instruction="unpack",
                            operand="values", rule="tt.unpack.shape", value=x.shape)
    if raw:
        codes = x.astype(I64)
        if codes.min() < 0 or codes.max() >= (1 << f.l1_bits):
            raise FormatError(f"raw {f.name} codes are {f.l1_bits}-bit", instruction="unpack", operand="values",
                              rule="tt.unpack.range", value=int(codes.max()))
        exps = None
        if f.kind is Kind.BFP:
            if exponents is None:
                raise FormatError("raw BFP data needs its shared exponents", instruction="unpack",
                                  operand="exponents", rule="tt.unpack.range", value=None)
            exps = np.asarray(exponents, I64).reshape(-1)
        codes = codes.astype(U32)
    else:
        codes, exps = l1_encode(x, f, unsigned=unsigned)
    codes = codes.reshape(-1, 16)
    if exps is not None:
        exps = np.asarray(exps).reshape(-1)
        if exps.size != codes.shape[0]:
            raise GeometryError("one shared exponent per row of 16", instruction="unpack", operand="exponents",
                                rule="tt.unpack.shape", value=exps.size)
        exps = exps[:, None]
    datums, dst32 = convert(codes, f, to_dst=tgt == "dst", out=out, exps=exps, unsigned=unsigned)
    n = codes.shape[0]
    limit = 64 if tgt != "dst" else (512 if dst32 else 1024)
    if not (0 <= row and row + n <= limit):
        raise GeometryError(f"rows {row}..{row + n - 1} do not fit 0..{limit - 1}", instruction="unpack",
                            operand="row", rule="tt.unpack.rows", value=row)
    bank = m.unpacker_bank[which]
    clients = m.srcb_client if which else m.srca_client
    if clients[bank] is not Client.UNPACKERS:
        raise StateError(f"the unpack would stall: Src{'B' if which else 'A'} bank {bank} belongs to the Matrix "
                         "Unit (flip it back with a FlipSrc or CLEARDVALID)", instruction="unpack",
                         operand=tgt, rule="tt.stall.unpack", value=bank)
    if tgt == "dst":
        write_dst(m, row + np.arange(n), datums, dst32)
        return datums
    (m.srcb if which else m.srca)[bank, row:row + n] = datums
    if flip:
        clients[bank] = Client.MATRIX_UNIT
        m.unpacker_bank[which] ^= 1
        m.unpacker_src_row[which][thread] = m.thread_config[thread]["SRCB_SET_Base" if which else "SRCA_SET_Base"] << 4
    return datums
