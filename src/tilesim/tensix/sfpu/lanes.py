"""Cross-lane and configuration instructions: SFPTRANSP, SFPSWAP, SFPCONFIG, SFPNOP."""

from __future__ import annotations

import numpy as np

from .common import handler, need, ub

__all__ = ["HANDLERS"]


def total_order(v: np.ndarray) -> np.ndarray:
    """Sign-magnitude bit patterns mapped to int64 so that integer order is the float order (-0 < +0)."""
    v = v.astype(np.int64)
    return np.where(v & 0x80000000, (v ^ 0x7FFFFFFF) - (1 << 32), v)


@handler
def sfptransp(m, s, insn, thread) -> None:
    """Transpose LRegs 0-3 with the 4 lane rows, and LRegs 4-7 likewise: reg i, row j <- reg j, row i."""
    d = insn["lreg_dest"]
    need(d == 0, "SFPTRANSP", "lreg_dest", d, "a non-zero lreg_dest")
    mask = s.enabled().reshape(1, 4, 8)
    for base in (0, 4):
        block = s.lregs[base:base + 4].reshape(4, 4, 8)
        np.copyto(block, block.transpose(1, 0, 2).copy(), where=mask)


_MIN_LANES = {0: 0xFFFFFFFF, 1: 0xFFFFFFFF, 2: 0x0000FFFF, 3: 0x00FF00FF, 9: 0}
_BITS = np.uint32(1) << np.arange(32, dtype=np.uint32)


@handler
def sfpswap(m, s, insn, thread) -> None:
    """mod1 0: swap LReg[d] and LReg[c]; 1: LReg[d] <- min, LReg[c] <- max; 2, 3, 9: min on some
    lanes (the low 16; bytes 0 and 2 of each 16; none), max on the others. Floats compare as
    sign-magnitude (-0 < +0). ``lane_config`` bit 8 inverts the order; bit 2 swaps LReg 4+c and 4+d too."""
    mod, d, c = insn["instr_mod1"], insn["lreg_dest"], insn["lreg_src_c"]
    need(d < 12, "SFPSWAP", "lreg_dest", d, "lreg_dest above 11")
    if 10 <= mod:
        ub("SFPSWAP", "instr_mod1", mod, f"instr_mod1 = {mod}")
    need(mod in _MIN_LANES, "SFPSWAP", "instr_mod1", mod, f"instr_mod1 = {mod}")
    if s.lane_config & 4:
        need(c < 4 and d < 4, "SFPSWAP", "lreg_src_c", c, "ENABLE_DEST_INDEX with an LReg above 3")
    cv, dv = s.lregs[c].copy(), s.lregs[d].copy()
    swap = s.enabled().copy()
    if mod:
        co, do = total_order(cv), total_order(dv)
        want_min = (_BITS & np.uint32(_MIN_LANES[mod])) != 0
        cond = np.where(want_min, co < do, co >= do)
        if s.lane_config & 0x100:
            cond = ~cond
        swap &= cond
    if s.lane_config & 4:
        np.copyto(s.lregs[c], dv, where=swap)
        np.copyto(s.lregs[d], cv, where=swap)
        a, b = s.lregs[4 + c].copy(), s.lregs[4 + d].copy()
        np.copyto(s.lregs[4 + c], b, where=swap)
        np.copyto(s.lregs[4 + d], a, where=swap)
        return
    if c < 8:
        np.copyto(s.lregs[c], dv, where=swap)
    if d < 8:
        np.copyto(s.lregs[d], cv, where=swap)


@handler
def sfpconfig(m, s, insn, thread) -> None:
    """Write SFPU configuration from LReg0 lane 0 (mod1 0; every lane of LReg0 must agree) or from
    imm16 (mod1 1): config_dest 0-3 a LOADMACRO instruction template, 4-7 a sequence word, 8 the misc
    word, 11-14 a programmable constant LReg (mod1 1: LReg11 <- -1.0), 15 the lane configuration
    (bits 2 ENABLE_DEST_INDEX and 8 the SFPSWAP order inversion only). Every lane must be enabled."""
    mod, dest, imm = insn["instr_mod1"], insn["config_dest"], insn["imm16_math"]
    need(mod <= 1, "SFPCONFIG", "instr_mod1", mod, f"instr_mod1 = {mod}")
    l0 = int(s.lregs[0, 0])
    if not mod:
        need(bool((s.lregs[0] == l0).all()), "SFPCONFIG", "LReg0", hex(l0), "instr_mod1 = 0 with LReg0 lanes that "
             "differ")
        need(imm == 0, "SFPCONFIG", "imm16_math", imm, "a non-zero imm16_math with instr_mod1 = 0")
    need(s.all_enabled(), "SFPCONFIG", "lane flags", "some clear", "SFPCONFIG with some lanes disabled")
    if dest <= 3:
        need(not mod, "SFPCONFIG", "instr_mod1", mod, "an immediate instruction template")
        s.templates[dest] = l0
    elif dest <= 7:
        s.sequences[dest - 4] = imm if mod else l0
    elif dest == 8:
        need(mod == 1 and imm <= 0xFFF, "SFPCONFIG", "imm16_math", imm, "config_dest 8 other than an immediate "
             "below 0x1000")
        s.macro_misc = imm
    elif dest <= 10:
        ub("SFPCONFIG", "config_dest", dest, f"config_dest = {dest}")
    elif dest <= 14:
        need(imm == 0, "SFPCONFIG", "imm16_math", imm, "a non-zero imm16_math for a constant LReg")
        if mod:
            need(dest == 11, "SFPCONFIG", "config_dest", dest, "the default-value form for a constant other than "
                 "LReg11")
            s.lregs[11] = 0xBF800000
        else:
            s.lregs[dest] = l0
    else:
        value = imm if mod else l0
        need(not value & ~0x104, "SFPCONFIG", "lane configuration", hex(value), "lane configuration bits other "
             "than 2 and 8")
        s.lane_config = value


@handler
def sfpnop(m, s, insn, thread) -> None:
    """Nothing."""


HANDLERS = {f.mnemonic: f for f in (sfptransp, sfpswap, sfpconfig, sfpnop)}
