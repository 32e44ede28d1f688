"""Running instructions on a :class:`~.state.Machine`: ``execute`` one, ``run`` a program, with a trace.

An instruction is a 32-bit word, an :class:`~.isa.Instruction`, or its text (``TT_ELWMUL(...)``,
``TT_OP(...)``, or a hex word ``0x27000000``). A trapping instruction leaves the machine as it was:
handlers check everything before they write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..errors import TilesimError, UnsupportedError
from .fpu import HANDLERS as FPU_HANDLERS
from .isa import BY_MNEMONIC, Instruction, decode, encode, parse
from .prepared import Prepared, prepare_words
from .sfpu import HANDLERS as SFPU_HANDLERS
from .state import Machine, check_thread

HANDLERS = {**FPU_HANDLERS, **SFPU_HANDLERS}

__all__ = ["TraceEntry", "execute", "run", "instruction_of", "program_lines"]

_missing = [r.mnemonic for r in BY_MNEMONIC.values() if r.status == "implemented" and r.mnemonic not in HANDLERS]
if _missing:
    raise AssertionError(f"implemented rows without a handler: {_missing}")

_HEX = re.compile(r"\s*(0[xX][0-9a-fA-F_]+)\s*;?\s*$")


@dataclass(frozen=True)
class TraceEntry:
    """One executed instruction and the physical Dst rows whose data or valid flag it changed."""

    index: int
    thread: int
    instruction: Instruction
    word: int
    dst_rows: tuple[int, ...]

    def __str__(self) -> str:
        rows = _ranges(self.dst_rows) or "-"
        return f"{self.index:4d}  t{self.thread}  {self.word:#010x}  {self.instruction.text():<44s} Dst rows {rows}"


def _ranges(rows: tuple[int, ...]) -> str:
    out, start, prev = [], None, None
    for r in rows:
        if start is None:
            start = prev = r
        elif r == prev + 1:
            prev = r
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = r
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(out)


def instruction_of(x, *, source: str | None = None, line: int | None = None) -> Instruction:
    """An :class:`Instruction` from a word, an Instruction or text."""
    if isinstance(x, Instruction):
        return x
    if isinstance(x, (int, np.integer)):
        return decode(int(x))
    if isinstance(x, str):
        h = _HEX.match(x)
        if h:
            try:
                return decode(int(h.group(1), 16))
            except TilesimError as e:
                raise e.at(source=source, line=line or 1, column=1) from None
        return parse(x, source=source, line=line)
    raise TilesimError(f"not an instruction: {type(x).__name__}", instruction="execute", operand="instruction",
                       rule="tt.exec.type", value=repr(x))


def execute(m: Machine, insn, thread: int = 0, index: int = 0, trace: bool = False) -> TraceEntry | None:
    """Run one instruction on ``thread``.

    Raises:
        UnsupportedError: a table row that tilesim does not execute (``tt.exec.unsupported``).
        StateError, SpecGapError, GeometryError, ...: from the instruction's checks; nothing was written.
    """
    check_thread(thread)
    ins = instruction_of(insn)
    spec = ins.spec
    if spec.status != "implemented":
        raise UnsupportedError(f"{spec.mnemonic} is in the table but not executed: {spec.summary}",
                               instruction=spec.mnemonic, rule="tt.exec.unsupported", value=f"{encode(ins):#010x}")
    if not trace:
        HANDLERS[spec.mnemonic](m, ins, thread)
        return None
    before, before_valid = m.dst.copy(), m.dst_valid.copy()
    HANDLERS[spec.mnemonic](m, ins, thread)
    changed = np.flatnonzero((m.dst != before).any(axis=1) | (m.dst_valid != before_valid))
    return TraceEntry(index, thread, ins, encode(ins), tuple(int(r) for r in changed))


def program_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the non-blank lines, ``#`` and ``//`` comments removed."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(#|//).*", "", raw).strip()
        if line:
            out.append((n, line))
    return out


def run(m: Machine, program: "str | Iterable", thread: int = 0, trace: bool = False) -> list[TraceEntry] | None:
    """Run instructions in order. ``program`` is a text block (one instruction per line) or an
    iterable of words, Instructions or text lines. Returns the trace when ``trace`` is set.

    Without a trace the program is prepared (:mod:`.prepared`): decoded once (a list of words is kept
    decoded for the next run) and run as steps, the arithmetic ones in one numba call; with one, each
    instruction runs through :func:`execute`. Both give the same results, state and errors.

    Raises:
        ParseError: a line of text is not an instruction (with its line number).
    """
    if not trace and not isinstance(program, str):
        program = list(program)
        if all(isinstance(p, (int, np.integer)) for p in program):
            prepare_words(tuple(int(p) for p in program)).run(m, thread)
            return None
    if isinstance(program, str):
        items = [instruction_of(t, line=n) for n, t in program_lines(program)]
    else:
        items = []
        for n, p in enumerate(program, 1):
            if isinstance(p, str):   # a text line: comments and blank lines are skipped
                items += [instruction_of(t, line=n) for _, t in program_lines(p)]
            else:
                items.append(instruction_of(p))
    if not trace:
        Prepared(items).run(m, thread)
        return None
    return [execute(m, ins, thread, i, trace) for i, ins in enumerate(items)]
