"""SFPLOAD, SFPLOADI, SFPSTORE: moving data between Dst (or an immediate) and the LRegs.

``instr_mod0`` picks the format (``SFPLOAD.md``, ``SFPSTORE.md``; ttsim's subset):

| mod0 | SFPLOAD | SFPSTORE |
|---|---|---|
| 0 | 3 if ``ALU_ACC_CTRL_SFPU_Fp32_enabled``, else 2 (SrcB formats FP32/BF16/BFP8/BFP4/INT16, and BFP2 for a store) or FP16 (SrcB FP16) | same |
| FP16 (via 0) | Dst16 FP16 -> FP32 (exponent + 112, exponent 0 stays 0) | FP32 -> FP16: exponent - 112, below 1 -> signed 0, above 31 -> max |
| 2 | Dst16 BF16 -> FP32 | FP32 -> BF16 by truncation, denormals flushed (sign kept) |
| 3 | Dst32 FP32 | FP32, denormals flushed (sign kept) |
| 4 | Dst32 FP32 | FP32 as is |
| 6 | Dst16 raw, zero-extended | low 16 bits |
| 7 | - | Dst32 raw |
| 9 | - | Dst32 with the halves swapped |
| 12 | Dst32 sign-magnitude INT32 -> two's complement | two's complement -> sign-magnitude |
| 14 | low 16 bits <- Dst16 raw | low 16 bits |
| 15 | high 16 bits <- Dst16 raw | high 16 bits |
"""

from __future__ import annotations

import numpy as np

from ..layouts import dst16_from_bf16, dst16_from_fp16, dst16_to_bf16
from .common import (addr_mod, dst_lane_cells, handler, need, read_dst16, read_dst32, ub, write, write_dst16,
                     write_dst32)

__all__ = ["HANDLERS"]

_FP16 = 1                                     # the FP16 path that mod0 = 0 selects
_LOAD_MODS = (0, 2, 3, 4, 6, 12, 14, 15)
_STORE_MODS = (0, 2, 3, 4, 6, 7, 9, 12, 14, 15)


def _default_mod(m, thread: int, insn: str, store: bool) -> int:
    c = m.cfg(thread)
    if c["ALU_ACC_CTRL_SFPU_Fp32_enabled"]:
        return 3
    fmt = c["ALU_FORMAT_SPEC_REG1_SrcB"]
    if fmt in (0, 5, 6, 7, 9) or (store and fmt == 15):
        return 2
    need(fmt == 1, insn, "ALU_FORMAT_SPEC_REG1_SrcB", fmt, "instr_mod0 = 0 with a SrcB format other than "
         "FP32/BF16/BFP8/BFP4/INT16/FP16")
    return _FP16


def _access(m, thread: int, insn, name: str, mods, store: bool):
    """``instr_mod0`` (checked against ``mods``; 0 takes the configured format's), ``lreg_ind`` and the 32
    Dst cells of an SFPLOAD or SFPSTORE."""
    mod = insn["instr_mod0"]
    need(mod in mods, name, "instr_mod0", mod, f"instr_mod0 = {mod}")
    if mod == 0:
        mod = _default_mod(m, thread, name, store)
    return mod, insn["lreg_ind"], dst_lane_cells(m, thread, name, insn["dest_reg_addr"])


def _table(f) -> np.ndarray:
    t = f(np.arange(1 << 16)).astype(np.uint32)
    t.setflags(write=False)
    return t


#: 16-bit shuffles as lookup tables (one gather instead of a chain of small numpy operations).
_TO_BF16, _FROM_BF16 = _table(dst16_to_bf16), _table(dst16_from_bf16)


def _dst32_to_fp32(v: np.ndarray) -> np.ndarray:
    return (_TO_BF16[v >> 16] << 16) | (v & 0xFFFF)


def _dst32_from_fp32(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.uint32)
    return (_FROM_BF16[v >> 16] << 16) | (v & 0xFFFF)


def _flush(v: np.ndarray) -> np.ndarray:
    """Denormals (and zeros) become a signed zero."""
    return np.where((v & 0x7FFFFFFF) < 0x800000, v & 0x80000000, v)


@handler
def sfpload(m, s, insn, thread) -> None:
    """LReg[lreg_ind] <- 32 Dst cells (4 rows x 8 even or odd columns), converted by instr_mod0."""
    mod, reg, cells = _access(m, thread, insn, "SFPLOAD", _LOAD_MODS, False)
    old = s.lregs[reg] if reg < 8 else np.zeros(32, np.uint32)
    if mod == _FP16:
        h = read_dst16(m, cells)
        e, man = h & 31, (h >> 5) & 1023
        v = ((h >> 15) << 31) | (np.where(e != 0, e + 112, 0) << 23) | (man << 13)
    elif mod == 2:
        v = _TO_BF16[read_dst16(m, cells)] << 16
    elif mod in (3, 4):
        v = _dst32_to_fp32(read_dst32(m, cells))
    elif mod == 6:
        v = read_dst16(m, cells)
    elif mod == 12:
        v = _dst32_to_fp32(read_dst32(m, cells))
        v = np.where(v & 0x80000000, (-(v & 0x7FFFFFFF).astype(np.int64)) & 0xFFFFFFFF, v)
    elif mod == 14:
        v = (old & 0xFFFF0000) | read_dst16(m, cells)
    else:
        v = (read_dst16(m, cells) << 16) | (old & 0xFFFF)
    write(s, reg, v, s.enabled())
    addr_mod(m, thread, insn["sfpu_addr_mode"])


@handler
def sfploadi(m, s, insn, thread) -> None:
    """LReg[lreg_ind] <- imm16 as BF16 (0), FP16 (1), uint16 (2), int16 (4), or into the high (8) or low
    (10) half."""
    mod, reg, imm = insn["instr_mod0"], insn["lreg_ind"], insn["imm16"]
    need(reg < 8, "SFPLOADI", "lreg_ind", reg, "SFPLOADI to a constant LReg")
    if mod not in (0, 1, 2, 4, 8, 10):
        ub("SFPLOADI", "instr_mod0", mod, f"instr_mod0 = {mod}")
    old = s.lregs[reg]
    if mod == 0:
        v = imm << 16
    elif mod == 1:
        v = ((imm & 0x8000) << 16) | (((imm & 0x7FFF) + (112 << 10)) << 13)
    elif mod == 2:
        v = imm
    elif mod == 4:
        v = imm - 0x10000 if imm & 0x8000 else imm
    elif mod == 8:
        v = (old & 0xFFFF) | (imm << 16)
    else:
        v = (old & 0xFFFF0000) | imm
    write(s, reg, np.asarray(v, np.int64) & 0xFFFFFFFF, s.enabled())


def _to_fp16(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.int64)
    sign = (v >> 31) << 15
    e = ((v >> 23) & 255).astype(np.int64) - 112
    return np.where(e <= 0, sign, np.where(e > 31, sign | 0x7FFF, sign | (e << 10) | ((v & 0x7FFFFF) >> 13)))


@handler
def sfpstore(m, s, insn, thread) -> None:
    """32 Dst cells <- LReg[lreg_ind], converted by instr_mod0 (LRegs 0-11 can be stored)."""
    mod, reg, cells = _access(m, thread, insn, "SFPSTORE", _STORE_MODS, True)
    v = s.lregs[reg]
    mask = s.enabled()
    if mod == _FP16:
        write_dst16(m, cells, dst16_from_fp16(_to_fp16(v)), mask)
    elif mod == 2:
        write_dst16(m, cells, _FROM_BF16[_flush(v) >> 16], mask)
    elif mod == 3:
        write_dst32(m, cells, _dst32_from_fp32(_flush(v)), mask)
    elif mod == 4:
        write_dst32(m, cells, _dst32_from_fp32(v), mask)
    elif mod in (6, 14):
        write_dst16(m, cells, v & 0xFFFF, mask)
    elif mod == 7:
        write_dst32(m, cells, v, mask)
    elif mod == 9:
        write_dst32(m, cells, (v << np.uint32(16)) | (v >> np.uint32(16)), mask)
    elif mod == 12:
        write_dst32(m, cells, _dst32_from_fp32(np.where(v & 0x80000000, 0x80000000 | (0 - v), v)), mask)
    else:
        write_dst16(m, cells, v >> 16, mask)
    addr_mod(m, thread, insn["sfpu_addr_mode"])


HANDLERS = {f.mnemonic: f for f in (sfpload, sfploadi, sfpstore)}
