"""Integer and bit-field instructions: SFPIADD, SFPAND/OR/XOR/NOT, SFPSHFT/SFPSHFT2, SFPLZ, SFPABS,
SFPMOV, SFPEXEXP/SFPEXMAN, SFPSETEXP/SFPSETMAN/SFPSETSGN, SFPDIVP2.

LRegs are 32-bit patterns; "signed" means two's complement (``int32``). Instructions that set
lane flags (SFPIADD, SFPEXEXP, SFPLZ) set them only on the lanes that execute.
"""

from __future__ import annotations

import numpy as np

from .common import handler, need, write
from .state import step_prng

__all__ = ["HANDLERS"]

_M32 = 0xFFFFFFFF


def _dest(name: str, insn) -> int:
    d = insn["lreg_dest"]
    need(d < 8, name, "lreg_dest", d, "a result to a constant LReg")
    return d


def _mod1_imm_dest(name: str, insn, top: int, reserved: bool) -> tuple[int, int, int]:
    """``instr_mod1`` (refused above ``top``: undefined behaviour when the bits above are ``reserved``, else
    unmodelled), ``imm12_math`` and the destination LReg of the field-setting instructions."""
    mod = insn["instr_mod1"]
    need(mod <= top, name, "instr_mod1", mod, "a reserved bit set in instr_mod1" if reserved else f"instr_mod1 = {mod}",
         undefined=reserved)
    return mod, insn["imm12_math"], _dest(name, insn)


def _i32(v) -> np.ndarray:
    return np.asarray(v, np.uint32).view(np.int32).astype(np.int64)


def _set_flags(s, mask: np.ndarray, cond: np.ndarray) -> None:
    np.copyto(s.flags, cond, where=mask)


@handler
def sfpiadd(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] + LReg[d] (mod1 0), - LReg[d] (2), + sign-extended imm12 (1); mod1 bit 2 clear
    sets the flags to "result < 0" (bit 3 inverts that)."""
    mod = insn["instr_mod1"]
    need(mod <= 10 and (mod & 3) <= 2, "SFPIADD", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = _dest("SFPIADD", insn)
    c, dv = s.lregs[insn["lreg_c"]].astype(np.int64), s.lregs[d].astype(np.int64)
    imm = insn["imm12_math"]
    if mod & 1:
        r = c + (imm - 4096 if imm & 0x800 else imm)
    elif mod & 2:
        r = c - dv
    else:
        r = c + dv
    r &= _M32
    mask = s.enabled().copy()
    if mod & 8:
        _set_flags(s, mask, r < 0x80000000)
    elif not mod & 4:
        _set_flags(s, mask, r >= 0x80000000)
    write(s, d, r, mask)


def _logic(name: str, op):
    def run(m, s, insn, thread) -> None:
        if name in ("SFPAND", "SFPOR"):
            mod, imm = insn["instr_mod1"], insn["imm12_math"]
            need(mod == 0, name, "instr_mod1", mod, f"instr_mod1 = {mod}")
            need(imm == 0, name, "imm12_math", imm, "a non-zero imm12_math")
        d = _dest(name, insn)
        write(s, d, op(s.lregs[d], s.lregs[insn["lreg_c"]]), s.enabled())
    run.__name__ = name.lower()
    run.__doc__ = f"{name}: LReg[d] = " + {"SFPAND": "LReg[d] & LReg[c]", "SFPOR": "LReg[d] | LReg[c]",
                                            "SFPXOR": "LReg[d] ^ LReg[c]", "SFPNOT": "~LReg[c]"}[name]
    return handler(run)


sfpand = _logic("SFPAND", lambda d, c: d & c)
sfpor = _logic("SFPOR", lambda d, c: d | c)
sfpxor = _logic("SFPXOR", lambda d, c: d ^ c)
sfpnot = _logic("SFPNOT", lambda d, c: ~c)


def _shift(v: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """``v << a`` for a >= 0, logical ``v >> -a`` otherwise; the distance is taken mod 32."""
    v = v.astype(np.int64)
    left = amount >= 0
    a = np.where(left, amount, -amount) & 31
    return np.where(left, (v << a) & _M32, v >> a)


@handler
def sfpshft(m, s, insn, thread) -> None:
    """LReg[d] shifted by signed imm12 (mod1 1) or by LReg[c] (mod1 0): left when >= 0."""
    mod, imm = insn["instr_mod1"], insn["imm12_math"]
    need(mod <= 1, "SFPSHFT", "instr_mod1", mod, f"instr_mod1 = {mod}", undefined=True)
    d = _dest("SFPSHFT", insn)
    if not mod & 1:
        need(imm == 0, "SFPSHFT", "imm12_math", imm, "a non-zero imm12_math with a register shift")
    amount = np.int64(imm - 4096 if imm & 0x800 else imm) if mod & 1 else _i32(s.lregs[insn["lreg_c"]])
    write(s, d, _shift(s.lregs[d], amount), s.enabled())


@handler
def sfpshft2(m, s, insn, thread) -> None:
    """mod1 3: LReg[d] = LReg[c] rotated one lane right within each row of 8; mod1 5: LReg[d] =
    LReg[imm12_math] shifted by LReg[c] (as SFPSHFT). Modes 0-2 (register shuffles) and 4 are refused."""
    mod, imm = insn["instr_mod1"], insn["imm12_math"]
    need(mod <= 6, "SFPSHFT2", "instr_mod1", mod, f"instr_mod1 = {mod}", undefined=True)
    need(mod != 4, "SFPSHFT2", "instr_mod1", mod, "SUBVEC_SHFLSHR1 (mode 4), which a Wormhole hardware bug breaks")
    need(mod in (3, 5), "SFPSHFT2", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = _dest("SFPSHFT2", insn)
    if mod == 5:
        need(imm < 16, "SFPSHFT2", "imm12_math", imm, "mode 5 with imm12_math above 15 (it names an LReg)")
    else:
        need(imm == 0, "SFPSHFT2", "imm12_math", imm, "a non-zero imm12_math")
    c = s.lregs[insn["lreg_src_c"]]
    if mod == 3:
        v = np.roll(c.reshape(4, 8), 1, axis=1).reshape(32)
    else:
        v = _shift(s.lregs[imm], _i32(c))
    write(s, d, v, s.enabled())


@handler
def sfplz(m, s, insn, thread) -> None:
    """LReg[d] = leading zeros of LReg[c] (of its magnitude with mod1 bit 2), 32 for 0; mod1 bit 1 sets
    the flags to "value != 0"."""
    mod = insn["instr_mod1"]
    need(not mod & 1, "SFPLZ", "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    need(mod <= 4, "SFPLZ", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = _dest("SFPLZ", insn)
    v = s.lregs[insn["lreg_c"]].astype(np.int64)
    if mod & 4:
        v &= 0x7FFFFFFF
    _, width = np.frexp(v.astype(np.float64))
    mask = s.enabled().copy()
    if mod & 2:
        _set_flags(s, mask, v != 0)
    write(s, d, 32 - width, mask)


@handler
def sfpabs(m, s, insn, thread) -> None:
    """Float |x| (mod1 1; a negative NaN keeps its sign) or integer |x| (mod1 0; INT_MIN stays)."""
    mod = insn["instr_mod1"]
    need(mod <= 1, "SFPABS", "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    d = _dest("SFPABS", insn)
    v = s.lregs[insn["lreg_c"]].astype(np.int64)
    if mod:
        r = np.where(v <= 0xFF800000, v & 0x7FFFFFFF, v)
    else:
        r = np.where(v >= 0x80000000, (-v) & _M32, v)
    write(s, d, r, s.enabled())


@handler
def sfpmov(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] (mod1 0), with the sign flipped (1), on every lane (2), or the lane's PRNG
    output (8, lreg_c = 9), stepping the PRNG."""
    mod = insn["instr_mod1"]
    need(not mod & 4, "SFPMOV", "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    need(mod <= 2 or mod == 8, "SFPMOV", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = _dest("SFPMOV", insn)
    c = insn["lreg_c"]
    mask = np.ones(32, bool) if mod == 2 else s.enabled()
    if mod == 8:
        need(c == 9, "SFPMOV", "lreg_c", c, "mode 8 with lreg_c other than 9")
        v = s.prng.copy()
        np.copyto(s.prng, step_prng(s.prng), where=mask)
    else:
        v = s.lregs[c] ^ np.uint32(0x80000000) if mod & 1 else s.lregs[c]
    write(s, d, v, mask)


@handler
def sfpexexp(m, s, insn, thread) -> None:
    """LReg[d] = exponent of LReg[c], minus 127 (mod1 bit 0 clear) or raw; mod1 2 sets the flags to
    "result < 0", mod1 10 to "result >= 0"."""
    mod = insn["instr_mod1"]
    need(not mod & 4, "SFPEXEXP", "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    need(mod <= 2 or mod == 10, "SFPEXEXP", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = _dest("SFPEXEXP", insn)
    e = ((s.lregs[insn["lreg_c"]] >> 23) & 255).astype(np.int64) - (0 if mod & 1 else 127)
    mask = s.enabled().copy()
    if mod == 10:
        _set_flags(s, mask, e >= 0)
    elif mod == 2:
        _set_flags(s, mask, e < 0)
    write(s, d, e & _M32, mask)


@handler
def sfpexman(m, s, insn, thread) -> None:
    """LReg[d] = mantissa of LReg[c], with the implicit bit (mod1 0) or without (1)."""
    mod = insn["instr_mod1"]
    need(mod <= 1, "SFPEXMAN", "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    d = _dest("SFPEXMAN", insn)
    write(s, d, (s.lregs[insn["lreg_c"]] & 0x7FFFFF) | (0 if mod else 0x800000), s.enabled())


@handler
def sfpsetexp(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] with exponent imm (mod1 1), LReg[d]'s exponent field (2) or LReg[d]'s low 8 bits (0)."""
    mod, imm, d = _mod1_imm_dest("SFPSETEXP", insn, 2, reserved=False)
    need(imm <= 255 and (mod == 1 or imm == 0), "SFPSETEXP", "imm12_math", imm,
         "imm12_math above 255, or non-zero without mod1 = 1")
    dv = s.lregs[d]
    e = np.uint32(imm) if mod == 1 else ((dv >> 23) & 255 if mod == 2 else dv & 255)
    write(s, d, (s.lregs[insn["lreg_c"]] & 0x807FFFFF) | (e << 23), s.enabled())


@handler
def sfpsetman(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] with LReg[d]'s mantissa (mod1 0); the immediate form (1) needs imm12_math = 0
    in ttsim, so it sets a zero mantissa."""
    mod, imm, d = _mod1_imm_dest("SFPSETMAN", insn, 1, reserved=False)
    need(imm == 0, "SFPSETMAN", "imm12_math", imm, "a non-zero imm12_math")
    man = np.uint32(imm << 11) if mod & 1 else s.lregs[d] & 0x7FFFFF
    write(s, d, (s.lregs[insn["lreg_c"]] & 0xFF800000) | man, s.enabled())


@handler
def sfpsetsgn(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] with sign imm12_math (mod1 1) or LReg[d]'s sign (0)."""
    mod, imm, d = _mod1_imm_dest("SFPSETSGN", insn, 1, reserved=True)
    need(mod == 1 or imm == 0, "SFPSETSGN", "imm12_math", imm, "a non-zero imm12_math without mod1 = 1")
    sign = np.uint32(imm << 31) if mod & 1 else s.lregs[d] & 0x80000000
    write(s, d, (s.lregs[insn["lreg_c"]] & 0x7FFFFFFF) | sign, s.enabled())


@handler
def sfpdivp2(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] with exponent imm (mod1 0), or exponent + imm mod 256 (1; exponent 255 kept)."""
    mod, imm, d = _mod1_imm_dest("SFPDIVP2", insn, 1, reserved=True)
    need(imm <= 0x7F or imm >= 0xF80, "SFPDIVP2", "imm12_math", imm, "imm12_math outside -128..127", undefined=True)
    imm &= 0xFF
    v = s.lregs[insn["lreg_c"]]
    e = (v >> 23) & 255
    if mod:
        e = np.where(e != 255, (e + imm) & 255, e)
    else:
        e = np.full(32, imm, np.uint32)
    write(s, d, (e.astype(np.uint32) << 23) | (v & 0x807FFFFF), s.enabled())


HANDLERS = {f.mnemonic: f for f in (sfpiadd, sfpand, sfpor, sfpxor, sfpnot, sfpshft, sfpshft2, sfplz, sfpabs, sfpmov,
                                    sfpexexp, sfpexman, sfpsetexp, sfpsetman, sfpsetsgn, sfpdivp2)}
