"""Value traces: one :class:`Step` per executed statement, the values it wrote, a file that holds them.

Each ISA's runner reports its steps through an observer callback; this module knows no ISA. A step holds
where it ran (source file and line, the iteration of every enclosing loop, the block) and the values it
wrote as :class:`Write` records: bit patterns in an unsigned numpy array and, where the ISA knows it, the
:mod:`tilesim.formats` name that reads them (which gives values and ULP distances).

A trace file (``tilesim run PROGRAM --trace-values -o trace.npz``) stores the written values only, never
whole machines: one array per write, and the step records as JSON text.

>>> import numpy as np
>>> s = Step(0, "k.pto", 3, "pto.tadd", writes=[Write("%t", np.array([[0x3F80]], np.uint16), "bf16")])
>>> s.where, s.writes[0].values().tolist()
('k.pto:3', [[1.0]])
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import formats
from ..errors import TilesimError

__all__ = ["Write", "Step", "Traced", "Filter", "save", "load", "VERSION"]

#: the trace-file layout; :func:`load` refuses others
VERSION = 1


@dataclass
class Write:
    """Values one step wrote into one named piece of state.

    Fields:
        name: what was written (``%t3``, ``dst``, ``tr4``, ``mxcfg``, ``%y[window]``).
        bits: the bit patterns, an unsigned integer array (usually 2-D).
        fmt: the :mod:`tilesim.formats` name that reads ``bits``, or ``""`` for raw codes (no values, no ULP).
        origin: the (row, column) of ``bits[0, 0]`` in the named storage (a Dst row, a window's offset).
    """

    name: str
    bits: np.ndarray
    fmt: str = ""
    origin: tuple[int, ...] = (0, 0)

    def values(self) -> np.ndarray | None:
        """The numbers the bits hold (float64), or None for raw codes."""
        if not self.fmt:
            return None
        return formats.decode(self.bits, self.fmt)


@dataclass
class Step:
    """One executed statement: where it ran and what it wrote.

    Fields:
        index: its place in the run (0, 1, ...), counting every executed statement, filtered or not.
        source, line: the program file and line.
        op: the op or instruction name.
        iters: the iteration number of each enclosing loop, outermost first.
        block: the block (PTO ``get_block_idx``) or thread that ran it.
        writes: the values written.
        dtypes: the element types of its source tiles, in operand order (PTO; empty elsewhere), which
            decide the rules that can explain a difference.
    """

    index: int
    source: str
    line: int
    op: str
    iters: tuple[int, ...] = ()
    block: int = 0
    writes: list[Write] = field(default_factory=list)
    dtypes: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def position(self) -> tuple:
        """What must agree for two runs' steps to be the same statement execution."""
        return self.line, self.op, self.iters, self.block

    def __str__(self) -> str:
        it = f" iteration {','.join(map(str, self.iters))}" if self.iters else ""
        return f"{self.where}{it}: {self.op} wrote " + (", ".join(w.name for w in self.writes) or "nothing")


class Traced(NamedTuple):
    """What a traced run returns: its outputs by name and its steps."""

    outputs: dict
    steps: list


@dataclass(frozen=True)
class Filter:
    """Which steps a trace keeps: source lines, op names, an iteration range (all empty: every step).

    ``iterations`` is ``(first, stop)``: a step inside loops is kept when every enclosing loop's iteration
    number is in ``first .. stop - 1``; steps outside loops are always kept.
    """

    lines: frozenset = frozenset()
    ops: frozenset = frozenset()
    iterations: tuple[int, int] | None = None

    @classmethod
    def parse(cls, lines: str | None = None, ops: str | None = None, iterations: str | None = None) -> "Filter":
        """From the CLI's text: ``lines`` ``3,7-9``; ``ops`` ``tadd,pto.trowsum``; ``iterations`` ``0:4``."""
        keep: set[int] = set()
        for part in (lines or "").split(","):
            if not part.strip():
                continue
            a, _, b = part.partition("-")
            lo, hi = _int(a, "--lines", lines), _int(b or a, "--lines", lines)
            keep.update(range(lo, hi + 1))
        names = frozenset(_op_key(o) for o in (ops or "").split(",") if o.strip())
        rng = None
        if iterations:
            a, sep, b = iterations.partition(":")
            if not sep:
                raise _bad("--iterations", iterations, "FIRST:STOP, e.g. 0:4")
            rng = (_int(a or "0", "--iterations", iterations), _int(b, "--iterations", iterations))
        return cls(frozenset(keep), names, rng)

    def keeps(self, step: Step) -> bool:
        if self.lines and step.line not in self.lines:
            return False
        if self.ops and _op_key(step.op) not in self.ops:
            return False
        if self.iterations is not None:
            lo, hi = self.iterations
            return all(lo <= i < hi for i in step.iters)
        return True


def _op_key(name: str) -> str:
    """``pto.tadd`` and ``tadd``, ``pto.tmatmul.acc`` and ``tmatmul_acc``, ``MMACC.T`` and ``mmacc.t`` name the
    same op."""
    name = name.strip().lower()
    return (name.split(".", 1)[1] if name.startswith("pto.") else name).replace(".", "_")


def _bad(option: str, text, want: str) -> TilesimError:
    return TilesimError(f"{text!r} is not a filter; {option} takes {want}", instruction="tilesim run",
                        operand=option, rule="inspect.filter", value=text)


def _int(text: str, option: str, whole) -> int:
    try:
        v = int(text.strip())
    except ValueError:
        raise _bad(option, whole, "numbers: lines 3,7-9; iterations 0:4") from None
    if v < 0:
        raise _bad(option, whole, "numbers that are not negative")
    return v


# ---------------------------------------------------------------------------------------------- file
def save(path, steps: list[Step], meta: dict | None = None) -> None:
    """Write ``steps`` to an ``.npz`` file: the step records as JSON, one array per write."""
    arrays: dict[str, np.ndarray] = {}
    records = []
    for s in steps:
        ws = []
        for w in s.writes:
            key = f"w{len(arrays)}"
            arrays[key] = np.asarray(w.bits)
            ws.append({"name": w.name, "fmt": w.fmt, "origin": list(w.origin), "key": key})
        records.append({"index": s.index, "source": s.source, "line": s.line, "op": s.op, "iters": list(s.iters),
                        "block": s.block, "writes": ws, "dtypes": list(s.dtypes)})
    head = {"version": VERSION, "meta": meta or {}, "steps": records}
    with open(path, "wb") as f:  # a file object: numpy adds no ".npz" to the name it was given
        np.savez_compressed(f, trace=np.array(json.dumps(head)), **arrays)


def load(path) -> tuple[list[Step], dict]:
    """Read a trace file written by :func:`save`: ``(steps, meta)``.

    Raises:
        TilesimError: not a trace file (rule ``inspect.file``).
    """
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            head = json.loads(str(z["trace"]))
            if head.get("version") != VERSION:
                raise ValueError(f"version {head.get('version')!r}, not {VERSION}")
            steps = [Step(r["index"], r["source"], r["line"], r["op"], tuple(r["iters"]), r["block"],
                          [Write(w["name"], z[w["key"]], w["fmt"], tuple(w["origin"])) for w in r["writes"]],
                          tuple(r.get("dtypes", ())))
                     for r in head["steps"]]
    except (OSError, KeyError, ValueError, TypeError, EOFError, zipfile.BadZipFile) as e:
        raise TilesimError(f"{p} is not a tilesim trace file ({e}); write one with tilesim run --trace-values -o",
                           instruction="tilesim trace", operand="path", rule="inspect.file", value=str(p)) from None
    return steps, head["meta"]
