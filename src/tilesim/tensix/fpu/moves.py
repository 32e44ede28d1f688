"""Data movement: MOVA2D, MOVDBGA2D, MOVB2D (Src to Dst), MOVD2A, MOVD2B (Dst to Src), MOVB2A, TRNSPSRCB,
SHIFTXA and SHIFTXB (within Src). Pages of the same names. No rounding: both models agree.

Not modelled: ``LaneConfig[..].BLOCK_DEST_MOV`` lane masking (every lane moves, TT12).
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError
from ..layouts import SRC_MASK
from ..rounding import dst_raw_from_valid
from ..state import Machine
from .common import apply_addr_mod, dst_row, read_dst, require_src, src_a_format, style_of, write_dst

__all__ = ["HANDLERS", "remove_low_mantissa", "remove_high_exponent", "shuffle_bf16", "shuffle_fp16",
           "shuffle_tf32"]

U32 = np.uint32
EIGHT_BIT_EXPONENT_CODES = frozenset({0, 4, 5, 6, 7, 15, 8, 9})
TF32 = 4


def remove_low_mantissa(x: np.ndarray) -> np.ndarray:
    """Src (sign, man10, exp8) to Dst16 BF16 (sign, top 7 mantissa bits, exp8)."""
    x = np.asarray(x, U32)
    return ((x & (1 << 18)) >> 3) | ((x & (0x7F << 11)) >> 3) | (x & 0xFF)


def remove_high_exponent(x: np.ndarray) -> np.ndarray:
    """Src (sign, man10, exp) to Dst16 FP16 (sign, man10, low 5 exponent bits)."""
    x = np.asarray(x, U32)
    return ((x & (1 << 18)) >> 3) | ((x & (0x3FF << 8)) >> 3) | (x & 0x1F)


def shuffle_bf16(x: np.ndarray) -> np.ndarray:
    """Dst16 BF16 to a Src datum."""
    x = np.asarray(x, U32)
    return ((x & 0xFF00) << 3) | (x & 0xFF)


def shuffle_fp16(x: np.ndarray) -> np.ndarray:
    """Dst16 FP16 to a Src datum."""
    x = np.asarray(x, U32)
    return ((x & 0xFFE0) << 3) | (x & 0x1F)


def shuffle_tf32(x: np.ndarray) -> np.ndarray:
    """Dst TF32 (sign, high 7 mantissa bits, exp8, low 3 mantissa bits) to a Src datum.

    The page masks sign and high mantissa with ``0x3fc000``, which lies outside the 19-bit input;
    we use ``0x7f800``, the bits the comment describes (TT13).
    """
    x = np.asarray(x, U32)
    return (x & 0x7F800) | ((x & 7) << 8) | ((x & 0x7F8) >> 3)


def truncate_mask(fmt: int) -> int:
    """What MOVB2D keeps of a SrcB datum in the hardware model (TT25): FP16 drops exponent bits 7:5,
    TF32 keeps everything, every other code drops mantissa bits 2:0 (ttsim's rule)."""
    if fmt == 1:
        return 0x7FF1F
    return SRC_MASK if fmt == TF32 else 0x7F8FF


def _src_to_dst(m: Machine, insn, thread: int, bank: np.ndarray, src_rows, rows, col0: bool) -> None:
    """The shared body of MOVA2D and MOVB2D: SrcA's format decides the Dst form (yes, for SrcB too)."""
    fmt = src_a_format(m, thread)
    use8 = not m.thread_config[thread]["FP16A_FORCE_Enable"] and fmt in EIGHT_BIT_EXPONENT_CODES
    flush = not m.cfg(thread)["ALU_ACC_CTRL_Zero_Flag_disabled_src"]
    lo = insn["UseDst32bLo"]
    if fmt == TF32 and lo and m.rounding == "hardware":
        raise SpecGapError("TF32 with UseDst32bLo is undefined behaviour on Wormhole (hardware erratum TEN-4245, "
                           "as ttsim has it)", instruction=insn.mnemonic, operand="UseDst32bLo",
                           rule="tt.mov.tf32_lo", value=1)
    val = bank[np.asarray(src_rows)]
    if col0:
        val = np.repeat(val[:, :1], 16, axis=1)
    if flush:
        val = np.where((val & 0xFF) == 0, U32(0), val)
    if insn.mnemonic == "MOVB2D" and m.rounding == "hardware":
        val = val & U32(truncate_mask(m.cfg(thread)["ALU_FORMAT_SPEC_REG1_SrcB"]))
    v16 = remove_low_mantissa(val) if use8 else remove_high_exponent(val)
    if fmt == TF32:
        low = ((val >> 8) & 7) << 13
        if lo:
            low = low | v16
        write_dst(m, rows, (v16 << 16) | low, True)
    elif lo:
        raw, valid = read_dst(m, rows, True)
        old = dst_raw_from_valid(raw, valid, 0)
        write_dst(m, rows, (old & U32(0xFFFF0000)) | v16, True)
    else:
        write_dst(m, rows, v16, False)
    apply_addr_mod(m, thread, insn["AddrMod"])


def _mova2d(m: Machine, insn, thread: int) -> None:
    n8 = insn["Move8Rows"]
    base = dst_row(m, thread, insn["DstRow"], 0x3F8 if n8 else 0x3FF)
    src = (insn["SrcRow"] + m.rwc[thread].srca) & (0x38 if n8 else 0x3F)
    n = 8 if n8 else 1
    _src_to_dst(m, insn, thread, m.srca[m.srca_bank], src + np.arange(n), base + np.arange(n), False)
    m.last_srca_row = src


def MOVA2D(m: Machine, insn, thread: int) -> None:
    """SrcA row(s) to Dst: 1 row, or an aligned block of 8."""
    require_src(m, "MOVA2D", a=True)
    _mova2d(m, insn, thread)


def MOVDBGA2D(m: Machine, insn, thread: int) -> None:
    """MOVA2D without the Wait Gate (it reads the Matrix Unit's bank whoever owns it)."""
    _mova2d(m, insn, thread)


def MOVB2D(m: Machine, insn, thread: int) -> None:
    """SrcB row(s) to Dst: 1 row, 4 rows, or 1 row broadcast to 8; optionally column 0 to all."""
    require_src(m, "MOVB2D", b=True)
    src = insn["SrcRow"] + m.rwc[thread].srcb
    if insn["Broadcast1RowTo8"]:
        n, dmask, srows = 8, 0x3F8, np.full(8, src & 0x3F)
    elif insn["Move4Rows"]:
        n, dmask, srows = 4, 0x3FC, (src & 0x3C) + np.arange(4)
    else:
        n, dmask, srows = 1, 0x3FF, np.array([src & 0x3F])
    base = dst_row(m, thread, insn["DstRow"], dmask)
    _src_to_dst(m, insn, thread, m.srcb[m.srcb_bank], srows, base + np.arange(n), bool(insn["BroadcastCol0"]))


def _dst_to_src(m: Machine, insn, thread: int, target: np.ndarray, rwc_src: int) -> None:
    """The shared body of MOVD2A and MOVD2B (SrcA's format picks the Src form for both)."""
    name = insn.mnemonic
    if m.thread_config[thread]["FP16A_FORCE_Enable"]:
        use32, style = False, "FP16"
    else:
        c = m.cfg(thread)
        use32 = bool(c["ALU_ACC_CTRL_Fp32_enabled"] or c["ALU_ACC_CTRL_INT8_math_enabled"])
        style = style_of(src_a_format(m, thread), name)
    n4 = insn["Move4Rows"]
    n = 4 if n4 else 1
    base = dst_row(m, thread, insn["DstRow"], 0x3FC if n4 else 0x3FF)
    src = (insn["SrcRow"] + rwc_src) & (0x3C if n4 else 0x3F)
    lo = insn["UseDst32bLo"]
    if not use32 and (lo or style == "TF32"):
        raise SpecGapError("16-bit Dst cannot supply " + ("the low half of 32-bit data" if lo else "TF32 data")
                           + " (undefined behaviour)", instruction=name, operand="UseDst32bLo" if lo else "SrcA format",
                           rule="tt.mov.dst16", value=lo if lo else style)
    raw, valid = read_dst(m, base + np.arange(n), use32)
    v = dst_raw_from_valid(raw, valid, 0).astype(U32)  # undefined rows read as 0
    if use32:
        if lo:
            v = (v << 16) | (v & 0xFFFF)
        if style == "BF16":
            out = shuffle_bf16(v >> 16)
        elif style == "FP16":
            out = shuffle_fp16(v >> 16)
        else:
            out = v & 0x1FFF if lo else shuffle_tf32(v >> 13)
    else:
        out = shuffle_bf16(v) if style == "BF16" else shuffle_fp16(v)
    target[src + np.arange(n)] = out & SRC_MASK
    apply_addr_mod(m, thread, insn["AddrMod"])


def MOVD2A(m: Machine, insn, thread: int) -> None:
    """Dst row(s) to SrcA (the Matrix Unit's bank, without waiting for it)."""
    row = (insn["SrcRow"] + m.rwc[thread].srca) & (0x3C if insn["Move4Rows"] else 0x3F)
    _dst_to_src(m, insn, thread, m.srca[m.srca_bank], m.rwc[thread].srca)
    m.last_srca_row = row


def MOVD2B(m: Machine, insn, thread: int) -> None:
    """Dst row(s) to SrcB (the Matrix Unit's bank, without waiting for it)."""
    _dst_to_src(m, insn, thread, m.srcb[m.srcb_bank], m.rwc[thread].srcb)


def TRNSPSRCB(m: Machine, insn, thread: int) -> None:
    """Transpose the 16x16 matrix in rows 16..31 of the Matrix Unit's SrcB bank."""
    require_src(m, "TRNSPSRCB", b=True)
    bank = m.srcb[m.srcb_bank]
    bank[16:32] = bank[16:32].T.copy()


def SHIFTXA(m: Machine, insn, thread: int) -> None:
    """Rows 0..15 of SrcA = 16 rows from the last instruction's SrcA row (a hardware bug), shifted
    one lane right (Direction 2) or left (3) with a zero filled in; Directions 0 and 1 do nothing."""
    require_src(m, "SHIFTXA", a=True)
    bank = m.srca[m.srca_bank]
    src = bank[(m.last_srca_row & 0x30) + np.arange(16)]
    d = insn["Direction"]
    if d == 2:
        bank[0:16] = np.hstack([np.zeros((16, 1), U32), src[:, :15]])
    elif d == 3:
        bank[0:16] = np.hstack([src[:, 1:], np.zeros((16, 1), U32)])


def SHIFTXB(m: Machine, insn, thread: int) -> None:
    """One SrcB row: columns 1..14 move to 0..13, column 14 stays, column 15 gets the old column 0
    (or 0 with ShiftInZero), exactly as the page's loop does."""
    require_src(m, "SHIFTXB", b=True)
    row = (insn["SrcRow"] + m.rwc[thread].srcb) & 0x3F
    r = m.srcb[m.srcb_bank, row]
    col0 = r[0]
    r[0:14] = r[1:15].copy()
    r[15] = 0 if insn["ShiftInZero"] else col0
    apply_addr_mod(m, thread, insn["AddrMod"])


def MOVB2A(m: Machine, insn, thread: int) -> None:
    """SrcB row(s) to SrcA: 1 row, or an aligned block of 4; exponent-0 datums become 0 unless
    ``Zero_Flag_disabled_src``. Waits for SrcB only; no format conversion (TT23)."""
    require_src(m, "MOVB2A", b=True)
    r = m.rwc[thread]
    mask, n = (0x3C, 4) if insn["Move4Rows"] else (0x3F, 1)
    a_row = (insn["SrcARow"] + r.srca) & mask
    b_row = (insn["SrcBRow"] + r.srcb) & mask
    val = m.srcb[m.srcb_bank, b_row:b_row + n]
    if not m.cfg(thread)["ALU_ACC_CTRL_Zero_Flag_disabled_src"]:
        val = np.where((val & 0xFF) == 0, U32(0), val)
    m.srca[m.srca_bank, a_row:a_row + n] = val
    apply_addr_mod(m, thread, insn["AddrMod"])


HANDLERS = {"MOVA2D": MOVA2D, "MOVDBGA2D": MOVDBGA2D, "MOVB2D": MOVB2D, "MOVD2A": MOVD2A, "MOVD2B": MOVD2B,
            "MOVB2A": MOVB2A, "TRNSPSRCB": TRNSPSRCB, "SHIFTXA": SHIFTXA, "SHIFTXB": SHIFTXB}
