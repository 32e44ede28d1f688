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


def _zeroacc_checks(insn) -> None:
    """``Revert`` is undefined behaviour in every mode (the newest ``ZEROACC.md``); Imm10 bits that
    a mode does not use are outside the contract (the page for mode 1, ttsim for modes 2 and 3).

    Raises:
        SpecGapError: ``tt.zeroacc.revert``, ``tt.zeroacc.imm``.
    """
    mode, imm = insn["Mode"], insn["Imm10"]
    if insn["Revert"]:
        raise SpecGapError("Revert (bit 18, tt-llk's AddrMode bit 3) is undefined behaviour", instruction="ZEROACC",
                           operand="Revert", rule="tt.zeroacc.revert", value=1)
    limit = {SIXTEEN_ROWS: 32 if insn["UseDst32b"] else 64, HALF_OF_DST: 2, ALL_OF_DST: 1}.get(mode)
    if limit is not None and imm >= limit:
        raise SpecGapError(f"mode {mode} takes Imm10 below {limit}; larger values are outside the contract "
                           "(NonContractualBehavior)", instruction="ZEROACC", operand="Imm10", rule="tt.zeroacc.imm",
                           value=imm)


def ZEROACC(m: Machine, insn, thread: int) -> None:
    """Mode 0: one row (Imm10 + offsets, through Adj32 in 32-bit modes); 1: 16 rows of block Imm10
    (64 blocks of Dst16b, 32 of Dst32b with UseDst32b); 2: half (Imm10 0 or 1); 3: all (Imm10 0).
    Only modes 0 and 1 apply AddrMod."""
    _zeroacc_checks(insn)
    mode, imm = insn["Mode"], insn["Imm10"]
    if mode == ONE_ROW:
        c = m.cfg(thread)
        row = dst_row(m, thread, imm, 0x3FF)
        m.dst_valid[adj32(row) if c["ALU_ACC_CTRL_Fp32_enabled"] or c["ALU_ACC_CTRL_INT8_math_enabled"] else row] = False
    elif mode == SIXTEEN_ROWS:
        if insn["UseDst32b"]:
            m.dst_valid[adj32(imm * 16 + np.arange(16))] = False
        else:
            m.dst_valid[imm * 16:imm * 16 + 16] = False
    elif mode == HALF_OF_DST:
        m.dst_valid[slice(512, 1024) if imm else slice(0, 512)] = False
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
