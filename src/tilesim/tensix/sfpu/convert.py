"""Conversions: SFPCAST (sign-magnitude int32 to FP32) and SFP_STOCH_RND (FP32 to BF16 or (u)int8/16).

Both round to nearest here; the stochastic modes (SFPCAST mod1 1, SFP_STOCH_RND ``rnd_mode`` 1 or
``imm8_math``) are refused, as ttsim refuses them. SFP_STOCH_RND steps each executing lane's PRNG
all the same.
"""

from __future__ import annotations

import numpy as np

from .common import handler, need, ub, write
from .state import step_prng

__all__ = ["HANDLERS"]

#: SFP_STOCH_RND's integer modes: instr_mod1 -> (largest magnitude, keeps the sign).
_INT_MODES = {2: (255, False), 3: (127, True), 6: (65535, False), 7: (32767, True)}


@handler
def sfpcast(m, s, insn, thread) -> None:
    """LReg[d] = FP32 of the sign-magnitude integer in LReg[c], round to nearest even (-0 stays -0)."""
    mod, d = insn["instr_mod1"], insn["lreg_dest"]
    need(mod <= 1, "SFPCAST", "instr_mod1", mod, f"instr_mod1 = {mod}", undefined=True)
    need(mod == 0, "SFPCAST", "instr_mod1", mod, "stochastic rounding (instr_mod1 = 1)")
    need(d < 8, "SFPCAST", "lreg_dest", d, "a result to a constant LReg")
    v = s.lregs[insn["lreg_src_c"]].astype(np.int64)
    sign = v & 0x80000000
    mag = v & 0x7FFFFFFF
    _, width = np.frexp(mag.astype(np.float64))
    lz = 32 - width.astype(np.int64)
    norm = (mag << lz) & 0xFFFFFFFF
    r = sign | (((157 - lz) << 23) + (norm >> 8))
    r += (norm & 0x80 != 0) & (norm & 0x17F != 0)
    write(s, d, np.where(mag != 0, r, sign) & 0xFFFFFFFF, s.enabled())


@handler
def sfp_stoch_rnd(m, s, insn, thread) -> None:
    """LReg[d] = LReg[c] rounded: mod1 1 to BF16 (ties away from zero; exponent 0 -> +0, Inf/NaN -> Inf);
    2/3/6/7 to uint8/int8/uint16/int16 as sign-magnitude (ties away, saturating)."""
    mod = insn["instr_mod1"]
    if not (mod <= 7 or mod in (12, 13)):
        ub("SFP_STOCH_RND", "instr_mod1", mod, f"instr_mod1 = {mod}")
    need(mod == 1 or mod in _INT_MODES, "SFP_STOCH_RND", "instr_mod1", mod, f"instr_mod1 = {mod}")
    d = insn["lreg_dest"]
    need(d < 8, "SFP_STOCH_RND", "lreg_dest", d, "a result to a constant LReg")
    need(insn["imm8_math"] == 0, "SFP_STOCH_RND", "imm8_math", insn["imm8_math"], "an immediate shift (imm8_math)")
    need(insn["rnd_mode"] == 0, "SFP_STOCH_RND", "rnd_mode", 1, "stochastic rounding (rnd_mode = 1)")
    mask = s.enabled()
    np.copyto(s.prng, step_prng(s.prng), where=mask)
    if m.jit:
        top, signed = _INT_MODES.get(mod, (0, False))
        _kernel()(s.lregs[insn["lreg_src_c"]], mod == 1, top, signed, mask, s.lregs[d] if d < 8 else _SINK)
        return
    v = s.lregs[insn["lreg_src_c"]].astype(np.int64)
    e = (v >> 23) & 255
    if mod == 1:
        low = v & 0xFFFF
        r = v - low + np.where(low >= 0x8000, 0x10000, 0)
        r = np.where(e == 0, 0, np.where(e == 255, v & 0xFF800000, r))
    else:
        top, signed = _INT_MODES[mod]
        sign = v & 0x80000000 if signed else np.zeros_like(v)
        x = e - 127
        man = 0x800000 | (v & 0x7FFFFF)
        mag = np.where(x >= 0, man << np.clip(x, 0, 15), man >> np.clip(-x, 0, 1))
        mag = np.minimum((mag >> 23) + ((mag & 0x7FFFFF) >= 0x400000), top)
        r = np.where(mag == 0, 0, sign) + mag
        r = np.where(x < -1, 0, np.where(x >= 16, sign | top, r))
    write(s, d, r & 0xFFFFFFFF, mask)


_SINK = np.zeros(32, np.uint32)
_KERNEL = []


def _kernel():
    """SFP_STOCH_RND's rounding per lane, compiled once (the numpy lines above are the reference)."""
    if not _KERNEL:
        import numba

        @numba.njit(cache=True, nogil=True)
        def stoch_rnd(src, to_bf16, top, signed, mask, out):   # pragma: no cover - checked against numpy
            for i in range(32):
                if not mask[i]:
                    continue
                v = np.int64(src[i])
                e = (v >> 23) & 255
                if to_bf16:
                    if e == 0:
                        r = 0
                    elif e == 255:
                        r = v & 0xFF800000
                    else:
                        low = v & 0xFFFF
                        r = v - low + (0x10000 if low >= 0x8000 else 0)
                else:
                    sign = v & 0x80000000 if signed else 0
                    x = e - 127
                    if x < -1:
                        r = 0
                    elif x >= 16:
                        r = sign | top
                    else:
                        man = 0x800000 | (v & 0x7FFFFF)
                        mag = man << x if x >= 0 else man >> 1
                        mag = min((mag >> 23) + (1 if (mag & 0x7FFFFF) >= 0x400000 else 0), top)
                        r = (sign if mag else 0) + mag
                out[i] = r & 0xFFFFFFFF

        _KERNEL.append(stoch_rnd)
    return _KERNEL[0]


HANDLERS = {f.mnemonic: f for f in (sfpcast, sfp_stoch_rnd)}
