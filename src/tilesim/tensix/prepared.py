"""Prepared programs: a straight-line sequence of instructions decoded once, then run as steps.

:func:`prepare` decodes every instruction once. :meth:`Prepared.run` resolves each step's plan for the
machine's configuration (kept while the register stamps that :meth:`~.state.Machine.memo` keys on are
unchanged, so a register write between runs makes it resolve again): the arithmetic instructions that the
numba kernels run in place become rows of one table, which :func:`.fpu.program_jit.run_steps` runs in a
single call, RWCs, bank flips and ``ApplyAddrMod`` included. Every other instruction, and a step whose
check fails (a stall, a datum the FPU rejects, ...), runs through its handler as :func:`.program.execute`
runs it. So results, state and errors are those of running the words one at a time, which
``tests/tensix/test_prepared.py`` holds on random programs.

>>> from tilesim.tensix import Machine, make
>>> m = Machine()
>>> p = prepare([make("ZEROACC", Mode=3).word(), make("ELWADD").word()])
>>> p.fast_steps(m)   # ELWADD runs in the kernel; ZEROACC through its handler
1
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..errors import TilesimError
from .fpu.common import _SECTIONS, fpu_mode
from .fpu.elementwise import _OPS, _Plan
from .fpu.jit import DST_STYLES, SRC_STYLES
from .fpu.pool import gmpool_styles
from .fpu.program_jit import ELW, GENERAL, GMPOOL, MATMUL, WIDTH, run_steps
from .state import Client, Machine, check_thread

__all__ = ["Prepared", "prepare", "prepare_words"]


def _elw(op: str):
    def row(m: Machine, thread: int, insn) -> tuple:
        p = _Plan.build(m, thread, insn, op)
        mode = p.mode
        if not p.fast or p.srnd:
            return ()
        return (ELW, _OPS[op], p.b_mask, p.b_rows, p.b_cols, p.add_dst, mode.exp8, mode.dst32, mode.a_man, mode.b_man,
                mode.flush_b, mode.style == "FP16")
    return row


def _matmul(rows: int | None):
    """MVMUL (``rows`` None: 7 or 8 by BroadcastSrcBRow), DOTPV (8) and GAPOOL (4), as
    :func:`.fpu.matmul.run_matmul` runs them."""
    def row(m: Machine, thread: int, insn) -> tuple:
        mode = fpu_mode(m, thread, insn.mnemonic)
        srnd = m.cfg(thread)["ALU_ROUNDING_MODE_Fpu_srnd_en"]
        if not m.jit or m.rounding != "hardware" or mode.style == "INT8" or srnd:
            return ()
        bcast = rows is None and bool(insn["BroadcastSrcBRow"])
        n = rows or (7 if bcast else 8)
        return (MATMUL, n, bcast, mode.exp8, mode.dst32, mode.a_man, mode.b_man, mode.style == "FP16")
    return row


def _gmpool(m: Machine, thread: int, insn) -> tuple:
    if not m.jit:
        return ()
    argmax = bool(insn["ArgMax"])
    src, dst, use32 = gmpool_styles(m, thread, argmax)
    return (GMPOOL, SRC_STYLES[src], DST_STYLES[dst], use32, argmax, m.rounding == "hardware")


#: The instructions the kernel runs: mnemonic -> the plan's kind-specific columns for an instruction on a
#: machine and thread (empty: this configuration takes the handler). A mnemonic not listed always takes its
#: handler, so new instructions work unchanged.
KERNEL_ROWS = {"ELWMUL": _elw("mul"), "ELWADD": _elw("add"), "ELWSUB": _elw("sub"), "MVMUL": _matmul(None),
               "DOTPV": _matmul(8), "GAPOOL": _matmul(4), "GMPOOL": _gmpool}


def _step_row(m: Machine, thread: int, insn) -> np.ndarray:
    """One step's row of the kernel's table (:mod:`.fpu.program_jit`); kind ``GENERAL`` for the handler."""
    row = np.zeros(WIDTH, np.int64)
    row[0] = GENERAL
    make = KERNEL_ROWS.get(insn.mnemonic)
    if make is None or insn.spec.status != "implemented":
        return row
    try:
        kind, *params = make(m, thread, insn) or (GENERAL,)
    except TilesimError:   # a plan that raises (a format code that names no format): the handler raises it
        return row
    if kind != GENERAL:
        row[:5] = (kind, insn["DstRow"], insn["AddrMod"], insn["FlipSrcA"], insn["FlipSrcB"])
        row[5:5 + len(params)] = params
    return row


class Prepared:
    """A program's instructions, decoded once, and their plans for the last configuration they ran on."""

    def __init__(self, instructions: list) -> None:
        self.instructions = tuple(instructions)
        self._plan_key = None
        self._plan = None

    def __len__(self) -> int:
        return len(self.instructions)

    def _key(self, m: Machine, thread: int) -> tuple:
        tc = m.thread_config[thread]
        return thread, m.config[0].stamp, m.config[1].stamp, tc.stamp, m.rounding, m.jit

    def plan(self, m: Machine, thread: int = 0):
        """``(steps, sections, consts)`` for :func:`.fpu.program_jit.run_steps`: each step's row (worked out
        once per distinct instruction word), the thread's ADDR_MOD sections and the constants the kernel
        reads; kept while the registers are unchanged."""
        key = self._key(m, thread)
        if key != self._plan_key:
            rows: dict[int, np.ndarray] = {}
            steps = np.empty((len(self.instructions), WIDTH), np.int64)
            for i, insn in enumerate(self.instructions):
                r = rows.get(insn.bits)
                if r is None:
                    r = rows[insn.bits] = _step_row(m, thread, insn)
                steps[i] = r
            tc = m.thread_config[thread]
            sections = np.array([sec(tc) for sec in _SECTIONS], np.int64)
            consts = np.array([tc["DEST_TARGET_REG_CFG_MATH_Offset"] + m.cfg(thread)["DEST_REGW_BASE_Base"],
                               tc["FIDELITY_BASE_Phase"], tc["ADDR_MOD_SET_Base"], tc["CLR_DVALID_SrcA_Disable"],
                               tc["CLR_DVALID_SrcB_Disable"]], np.int64)
            self._plan, self._plan_key = (steps, sections, consts), key
        return self._plan

    def fast_steps(self, m: Machine, thread: int = 0) -> int:
        """How many steps the kernel runs on ``m``'s configuration (the rest take their handlers)."""
        return int((self.plan(m, thread)[0][:, 0] != GENERAL).sum())

    def run(self, m: Machine, thread: int = 0, on_error=None) -> None:
        """Run every step on ``thread``. ``on_error(index, error)``, when given, is told which step trapped
        before its error propagates.

        Raises:
            TilesimError: the first trapping step's error; it and the steps after it wrote nothing.
        """
        from .program import execute
        if not self.instructions:
            return
        check_thread(thread)
        steps, sections, consts = self.plan(m, thread)
        n, i = len(steps), 0
        while i < n:
            if steps[i, 0] != GENERAL:
                state = _state(m, thread)
                i = run_steps(steps, i, state, sections, consts, m.srca, m.srcb, m.dst, m.dst_valid)
                _set_state(m, thread, state)
                if i == n:
                    break
            try:
                execute(m, self.instructions[i], thread)
            except (TilesimError, ValueError) as e:
                if on_error is not None:
                    on_error(i, e)
                raise
            i += 1
            if steps is not self.plan(m, thread)[0]:   # the handler wrote a register: plans resolve again
                steps, sections, consts = self.plan(m, thread)


def _state(m: Machine, thread: int) -> np.ndarray:
    r = m.rwc[thread]
    mu = Client.MATRIX_UNIT
    return np.array((r.srca, r.srca_cr, r.srcb, r.srcb_cr, r.dst, r.dst_cr, r.fidelity, r.extra_addr_mod_bit,
                     m.srca_bank, m.srcb_bank, m.srca_client[0] is mu, m.srca_client[1] is mu, m.srcb_client[0] is mu,
                     m.srcb_client[1] is mu, m.last_srca_row), np.int64)


def _set_state(m: Machine, thread: int, state: np.ndarray) -> None:
    v = state.tolist()
    m.rwc[thread].update(*v[:8])
    m.srca_bank, m.srcb_bank = v[8], v[9]
    m.srca_client[:] = [Client.MATRIX_UNIT if x else Client.UNPACKERS for x in v[10:12]]
    m.srcb_client[:] = [Client.MATRIX_UNIT if x else Client.UNPACKERS for x in v[12:14]]
    m.last_srca_row = v[14]


def prepare(instructions) -> Prepared:
    """A :class:`Prepared` program from decoded :class:`~.isa.Instruction` objects, words or text lines
    (decoded here, as :func:`.program.instruction_of` does)."""
    from .program import instruction_of
    return Prepared([instruction_of(x) for x in instructions])


@lru_cache(maxsize=64)
def prepare_words(words: tuple[int, ...]) -> Prepared:
    """:func:`prepare` of instruction words, kept for the last 64 programs: a program run again is not
    decoded again."""
    return prepare(words)
