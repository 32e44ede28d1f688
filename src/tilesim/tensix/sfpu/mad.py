"""The float family: SFPMAD, SFPADD, SFPMUL, SFPMULI, SFPADDI, SFPLUT, SFPLUTFP32; all one FMA (:mod:`.fma`):
the Wormhole model in the ``hardware`` rounding model, one IEEE rounding of the exact result in ``doc``.

SFPADD and SFPMUL are SFPMAD with LReg10 (1.0) as a factor and LReg9 (0.0) as the addend; ttsim
requires those operands, and so do we (``tt.sfpu.ub``). Wormhole's ``instr_mod1`` is 0 for all
three (the negation modes are Blackhole's).
"""

from __future__ import annotations

import numpy as np

from .common import handler, need, write
from .fma import fma_all, fma_masked

__all__ = ["HANDLERS", "lut8_to_fp32", "lut16_to_fp32"]

ONE = 0x3F800000


def _mad(m, s, name: str, insn, a, b, c) -> None:
    d = insn["lreg_dest"]
    need(d < 8, name, "lreg_dest", d, "a result to a constant LReg")
    if m.jit and m.rounding != "doc":
        fma_masked(a, b, c, s.enabled(), s.lregs[d], jit=True)
    else:
        write(s, d, fma_all(a, b, c, m.jit, m.rounding), s.enabled())


def _mod1_zero(name: str, insn) -> None:
    mod = insn["instr_mod1"]
    need(not mod & 3, name, "instr_mod1", mod, "a reserved bit set in instr_mod1", undefined=True)
    need(mod == 0, name, "instr_mod1", mod, f"instr_mod1 = {mod}")


@handler
def sfpmad(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = LReg[a] * LReg[b] + LReg[c]."""
    _mod1_zero("SFPMAD", insn)
    r = s.lregs
    _mad(m, s, "SFPMAD", insn, r[insn["lreg_src_a"]], r[insn["lreg_src_b"]], r[insn["lreg_src_c"]])


@handler
def sfpadd(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = 1.0 * LReg[b] + LReg[c]; one of a, b must be LReg10 (1.0)."""
    _mod1_zero("SFPADD", insn)
    a, b = insn["lreg_src_a"], insn["lreg_src_b"]
    if a != 10:
        need(b == 10, "SFPADD", "lreg_src_a", a, "neither lreg_src_a nor lreg_src_b is LReg10 (1.0)", undefined=True)
        a, b = b, a
    _mad(m, s, "SFPADD", insn, np.uint32(ONE), s.lregs[b], s.lregs[insn["lreg_src_c"]])


@handler
def sfpmul(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = LReg[a] * LReg[b] + 0; lreg_src_c must be LReg9 (0.0)."""
    _mod1_zero("SFPMUL", insn)
    c = insn["lreg_src_c"]
    need(c == 9, "SFPMUL", "lreg_src_c", c, "lreg_src_c is not LReg9 (0.0)", undefined=True)
    _mad(m, s, "SFPMUL", insn, s.lregs[insn["lreg_src_a"]], s.lregs[insn["lreg_src_b"]], np.uint32(0))


@handler
def sfpmuli(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = BF16(imm16_math) * LReg[lreg_dest] + 0."""
    mod = insn["instr_mod1"]
    need(mod == 0, "SFPMULI", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = insn["lreg_dest"]
    need(d < 8, "SFPMULI", "lreg_dest", d, "a result to a constant LReg")
    _mad(m, s, "SFPMULI", insn, np.uint32(insn["imm16_math"] << 16), s.lregs[d].copy(), np.uint32(0))


@handler
def sfpaddi(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = BF16(imm16_math) * 1.0 + LReg[lreg_dest]."""
    mod = insn["instr_mod1"]
    need(mod == 0, "SFPADDI", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = insn["lreg_dest"]
    need(d < 8, "SFPADDI", "lreg_dest", d, "a result to a constant LReg")
    _mad(m, s, "SFPADDI", insn, np.uint32(insn["imm16_math"] << 16), np.uint32(ONE), s.lregs[d].copy())


def _lut_table(f, n: int) -> np.ndarray:
    t = f(np.arange(n, dtype=np.uint32))
    t.setflags(write=False)
    return t


def lut8_to_fp32(x) -> np.ndarray:
    """SFPLUT's 8-bit coefficient: sign [7], exponent 127 - [6:4], mantissa [3:0] << 19; 0xFF is 0."""
    x = np.asarray(x, np.uint32)
    v = ((x >> 7) << 31) | ((127 - ((x >> 4) & 7)) << 23) | ((x & 15) << 19)
    return np.where(x == 255, 0, v).astype(np.uint32)


def lut16_to_fp32(x) -> np.ndarray:
    """SFPLUTFP32's 16-bit coefficient: FP16 rebiased (exponent 31 reads as 0, no Inf/NaN)."""
    x = np.asarray(x, np.uint32)
    e = (x >> 10) & 31
    return (((x >> 15) << 31) | (np.where(e == 31, 0, e + 112) << 23) | ((x & 0x3FF) << 13)).astype(np.uint32)


_LUT8 = _lut_table(lut8_to_fp32, 256)
_LUT16 = _lut_table(lut16_to_fp32, 1 << 16)
#: SFPLUTFP32's |LReg3| thresholds (0.5, 1, 1.5, 2, 3); interval k picks register k // 2, half k % 2.
_EDGES = np.array([0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000], np.uint32)
_REG = np.array([0, 0, 1, 1, 2, 2])
_HALF = np.array([0, 16, 0, 16, 0, 16], np.uint32)
_LANES = np.arange(32)


@handler
def sfplut(m, s, insn, thread) -> None:
    """LReg[lreg_ind] = A * |LReg3| + C, sign of LReg3; A, C the 8-bit halves of LReg0 (|x| < 1),
    LReg1 (< 2) or LReg2. Only instr_mod0 = 4 (sign copied from LReg3) is modelled."""
    mod, d = insn["instr_mod0"], insn["lreg_ind"]
    need(mod == 4, "SFPLUT", "instr_mod0", mod, f"instr_mod0 = {mod}")
    need(d < 8, "SFPLUT", "lreg_ind", d, "a result to a constant LReg")
    l3 = s.lregs[3]
    b = l3 & 0x7FFFFFFF
    coeffs = s.lregs[_REG[np.searchsorted(_EDGES, b, side="right")], _LANES]
    r = fma_all(_LUT8[(coeffs >> 8) & 255], b, _LUT8[coeffs & 255], m.jit, m.rounding)
    write(s, d, (r & 0x7FFFFFFF) | (l3 & 0x80000000), s.enabled())


@handler
def sfplutfp32(m, s, insn, thread) -> None:
    """LReg[lreg_dest] = A * |LReg3| + C with FP16 coefficients: A from LReg0-2, C from LReg4-6, the
    register and 16-bit half picked by |LReg3| against 0.5, 1, 1.5, 2, 3 (instr_mod1 = 2 only)."""
    mod, d = insn["instr_mod1"], insn["lreg_dest"]
    need(mod == 2, "SFPLUTFP32", "instr_mod1", mod, f"instr_mod1 = {mod}")
    need(d < 8, "SFPLUTFP32", "lreg_dest", d, "a result to a constant LReg")
    b = s.lregs[3] & 0x7FFFFFFF
    k = np.searchsorted(_EDGES, b, side="right")
    i, j = _REG[k], _HALF[k]
    a = _LUT16[(s.lregs[i, _LANES] >> j) & 0xFFFF]
    c = _LUT16[(s.lregs[4 + i, _LANES] >> j) & 0xFFFF]
    write(s, d, fma_all(a, b, c, m.jit, m.rounding), s.enabled())


HANDLERS = {f.mnemonic: f for f in (sfpmad, sfpadd, sfpmul, sfpmuli, sfpaddi, sfplut, sfplutfp32)}
