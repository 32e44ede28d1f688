"""The cost model: MACs, tiles read and written, and modeled cycles.

An MMACC instruction does ``sub-products x M x M x K`` MACs. At a throughput
of R MACs per cycle it takes ``ceil(MACs / R)`` cycles (at least one); loads,
stores and CSR accesses are counted but take no modeled cycles
(docs/decisions.md AME13). The proposal's throughput points (§13, §14.2) are
4k, 16k and 32k MACs per cycle, reached with 16, 64 and 128 parallel 4x4
cells, so one cell does 256 MACs per cycle.

>>> c = Cost()
>>> c.add_mmacc(macs=16384, tiles_read=12, tiles_written=8)
>>> [c.cycles(t.macs_per_cycle) for t in THROUGHPUTS]
[4, 1, 1]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Throughput", "THROUGHPUTS", "MACS_PER_CELL", "Cost"]

MACS_PER_CELL = 256


@dataclass(frozen=True)
class Throughput:
    """A MAC throughput point: MACs per cycle and the 4x4 cells that give it."""

    macs_per_cycle: int

    @property
    def cells(self) -> float:
        return self.macs_per_cycle / MACS_PER_CELL

    @property
    def label(self) -> str:
        cells = self.cells
        shown = f"{cells:g}" if cells != int(cells) else str(int(cells))
        return f"{self.macs_per_cycle} MACs/cycle ({shown} cells)"


THROUGHPUTS: tuple[Throughput, ...] = (Throughput(4096), Throughput(16384), Throughput(32768))


@dataclass
class Cost:
    """Running totals of a program's work."""

    instructions: int = 0
    mmacc: int = 0
    macs: int = 0
    tiles_read: int = 0
    tiles_written: int = 0
    tiles_loaded: int = 0
    tiles_stored: int = 0
    _macs_each: Counter = field(default_factory=Counter, repr=False)  # MACs of one MMACC -> how many

    def add_mmacc(self, macs: int, tiles_read: int, tiles_written: int, count: int = 1) -> None:
        """Count ``count`` MMACC instructions of ``macs`` MACs each (tiles read and written per instruction)."""
        self.mmacc += count
        self.instructions += count
        self.macs += macs * count
        self.tiles_read += tiles_read * count
        self.tiles_written += tiles_written * count
        self._macs_each[macs] += count

    def cycles(self, macs_per_cycle: int) -> int:
        """Modeled cycles of every MMACC at ``macs_per_cycle``."""
        return sum(n * max(1, math.ceil(m / macs_per_cycle)) for m, n in self._macs_each.items())
