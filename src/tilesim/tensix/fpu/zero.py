"""ZEROACC (mark Dst rows undefined) and ZEROSRC (clear Src banks) (``ZEROACC.md``, ``ZEROSRC.md``).

ZEROACC writes no data: it clears valid flags, and FPU instructions then read the row as their
identity (0, or all ones for GMPOOL); packers read it as 0.
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError
from ..layouts import SRC_MASK, adj32
from ..state import Machine
from .common import apply_addr_mod, dst_row

__all__ = ["HANDLERS", "ONE_ROW", "SIXTEEN_ROWS", "HALF_OF_DST", "ALL_OF_DST"]

ONE_ROW, SIXTEEN_ROWS, HALF_OF_DST, ALL_OF_DST = 0, 1, 2, 3


def ZEROACC(m: Machine, insn, thread: int) -> None:
    """Mode 0: one row (Imm10 + offsets, through Adj32 in 32-bit modes); 1: 16 rows of block Imm10 & 0xff
    (64 blocks of Dst16b, 32 of Dst32b with UseDst32b; larger is a no-op); 2: half (Imm10 bit 0);
    3: all. Only modes 0 and 1 apply AddrMod; Revert outside mode 0 is undefined behaviour."""
    mode, imm = insn["Mode"], insn["Imm10"]
    if mode == ONE_ROW:
        c = m.cfg(thread)
        row = dst_row(m, thread, imm, 0x3FF)
        m.dst_valid[adj32(row) if c["ALU_ACC_CTRL_Fp32_enabled"] or c["ALU_ACC_CTRL_INT8_math_enabled"] else row] = False
    else:
        if insn["Revert"]:
            raise SpecGapError("Revert is undefined behaviour", instruction="ZEROACC", operand="Revert",
                               rule="tt.zeroacc.revert", value=1)
        if mode == SIXTEEN_ROWS:
            block = imm & 0xFF
            if insn["UseDst32b"]:
                if block < 32:
                    m.dst_valid[adj32(block * 16 + np.arange(16))] = False
            elif block < 64:
                m.dst_valid[block * 16:block * 16 + 16] = False
        elif mode == HALF_OF_DST:
            m.dst_valid[slice(512, 1024) if imm & 1 else slice(0, 512)] = False
        else:
            m.dst_valid[:] = False
    if mode in (ONE_ROW, SIXTEEN_ROWS):
        apply_addr_mod(m, thread, insn["AddrMod"])


def ZEROSRC(m: Machine, insn, thread: int) -> None:
    """Clear SrcA and/or SrcB: both banks, the Matrix Unit's bank, or the unpacker's bank.
    SrcA can be filled with all ones (-inf) instead. No Wait Gate."""
    for clear, data, fpu_bank, unpacker, fill in (
            (insn["ClearSrcA"], m.srca, m.srca_bank, 0, SRC_MASK if insn["NegativeInfSrcA"] else 0),
            (insn["ClearSrcB"], m.srcb, m.srcb_bank, 1, 0)):
        if not clear:
            continue
        if insn["BothBanks"]:
            data[:] = fill
        else:
            data[fpu_bank if insn["SingleBankMatrixUnit"] else m.unpacker_bank[unpacker]] = fill


HANDLERS = {"ZEROACC": ZEROACC, "ZEROSRC": ZEROSRC}
