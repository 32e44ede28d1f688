"""Lane predication: SFPSETCC, SFPENCC, SFPCOMPC, SFPPUSHC, SFPPOPC.

Each lane has a flag; while the enable is on, only lanes whose flag is set execute (and write).
SFPSETCC narrows the set (it tests only lanes whose flag is set), SFPCOMPC complements it within
the set that the stack top allows (an ``else``), SFPPUSHC/SFPPOPC save and restore (flags, enable)
on an 8-deep stack (``if``/``endif`` nesting); SFPENCC sets flags and the enable outright.
"""

from __future__ import annotations

import numpy as np

from ...errors import SpecGapError
from .common import handler, need
from .state import STACK_DEPTH

__all__ = ["HANDLERS"]

_TESTS = {0: lambda v: v < 0, 2: lambda v: v != 0, 4: lambda v: v >= 0, 6: lambda v: v == 0}


def _no_dest(name: str, insn) -> None:
    d = insn["lreg_dest"]
    need(d == 0, name, "lreg_dest", d, "a non-zero lreg_dest")


@handler
def sfpsetcc(m, s, insn, thread) -> None:
    """Flags of the lanes whose flag is set <- int32(LReg[c]) < 0 (mod1 0), != 0 (2), >= 0 (4), == 0 (6)."""
    mod = insn["instr_mod1"]
    need(mod in _TESTS, "SFPSETCC", "instr_mod1", mod, f"instr_mod1 = {mod}")
    _no_dest("SFPSETCC", insn)
    need(insn["imm12_math"] == 0, "SFPSETCC", "imm12_math", insn["imm12_math"], "a non-zero imm12_math")
    need(s.flags_enabled, "SFPSETCC", "flags_enabled", 0, "SFPSETCC with the lane flags disabled (it clears every "
         "flag on hardware)")
    v = s.lregs[insn["lreg_c"]].view(np.int32)
    s.flags &= _TESTS[mod](v)


@handler
def sfpencc(m, s, insn, thread) -> None:
    """mod1 0: every flag set; mod1 10: every flag <- imm bit 1, the enable <- imm bit 0."""
    mod, imm = insn["instr_mod1"], insn["imm12_math"]
    _no_dest("SFPENCC", insn)
    need(mod in (0, 10), "SFPENCC", "instr_mod1", mod, f"instr_mod1 = {mod}")
    if mod == 0:
        need(imm == 0, "SFPENCC", "imm12_math", imm, "a non-zero imm12_math with instr_mod1 = 0")
        s.flags[:] = True
    else:
        s.flags[:] = bool(imm >> 1 & 1)
        s.flags_enabled = bool(imm & 1)


@handler
def sfpcompc(m, s, insn, thread) -> None:
    """Flags <- not flags, within the flags on top of the stack (all lanes when it is empty)."""
    _no_dest("SFPCOMPC", insn)
    need(s.flags_enabled, "SFPCOMPC", "flags_enabled", 0, "SFPCOMPC with the lane flags disabled")
    if s.stack:
        top, top_enabled = s.stack[-1]
        need(top_enabled, "SFPCOMPC", "stack top", 0, "SFPCOMPC under a pushed state with the flags disabled")
        s.flags[:] = top & ~s.flags
    else:
        s.flags[:] = ~s.flags


@handler
def sfppushc(m, s, insn, thread) -> None:
    """Push (flags, enable); 8 entries at most."""
    mod = insn["instr_mod1"]
    need(mod == 0, "SFPPUSHC", "instr_mod1", mod, f"instr_mod1 = {mod}")
    _no_dest("SFPPUSHC", insn)
    if len(s.stack) >= STACK_DEPTH:
        raise SpecGapError(f"the condition stack is full ({STACK_DEPTH} entries)", instruction="SFPPUSHC",
                           operand="stack", rule="tt.sfpu.stack", value=len(s.stack))
    s.stack.append((s.flags.copy(), s.flags_enabled))


@handler
def sfppopc(m, s, insn, thread) -> None:
    """Pop (flags, enable)."""
    mod = insn["instr_mod1"]
    need(mod == 0, "SFPPOPC", "instr_mod1", mod, f"instr_mod1 = {mod}")
    _no_dest("SFPPOPC", insn)
    if not s.stack:
        raise SpecGapError("the condition stack is empty", instruction="SFPPOPC", operand="stack",
                           rule="tt.sfpu.stack", value=0)
    flags, s.flags_enabled = s.stack.pop()
    s.flags[:] = flags


HANDLERS = {f.mnemonic: f for f in (sfpsetcc, sfpencc, sfpcompc, sfppushc, sfppopc)}
