"""The cost model: MACs, tiles read and written, and modeled cycles.

An MMACC instruction does ``sub-products x M x M x K`` MACs. At a throughput
of R MACs per cycle it takes ``ceil(MACs / R)`` cycles (at least one); loads,
stores and CSR accesses are counted but take no modeled cycles
(docs/decisions.md AME13). The proposal's throughput points (§13, §14.2) are
4k, 16k and 32k MACs per cycle, reached with 16, 64 and 128 parallel 4x4
cells, so one cell does 256 MACs per cycle.

:func:`schedule` adds memory: the proposal's §13.B ``gemm_schedule`` with
double-buffered K-slices, tile loads and stores at a bandwidth (S12).

>>> c = Cost()
>>> c.add_mmacc(macs=16384, tiles_read=12, tiles_written=8)
>>> [c.cycles(t.macs_per_cycle) for t in THROUGHPUTS]
[4, 1, 1]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["Throughput", "THROUGHPUTS", "MACS_PER_CELL", "Cost", "DEFAULT_BANDWIDTH", "Schedule", "make_plan",
           "pick_cells", "schedule"]

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


# ------------------------------------------------------------------ the proposal's schedule, with memory
TILE_ROWS = 16
TILE_BYTES = 256
DEFAULT_BANDWIDTH = 64  # bytes per cycle between memory and the tile register file


def pick_cells(macs_per_cycle: int) -> int:
    """Parallel 4x4 cells for a throughput target (§13.B ``pick_cells``): 16 up to 4k, 64 up to 16k, else 128."""
    return 16 if macs_per_cycle <= 4096 else 64 if macs_per_cycle <= 16384 else 128


def make_plan(in_bits: int) -> tuple[int, int, int]:
    """(Mb, Nb, Kb) of §13.B ``make_plan``: 64 x 64 blocks of C, K-slices of 8 tile rows of the input format."""
    return TILE_ROWS * 4, TILE_ROWS * 4, (TILE_BYTES // TILE_ROWS * 8 // in_bits) * 8


@dataclass(frozen=True)
class Schedule:
    """Cycles of a GEMM run as §13.B's ``gemm_schedule``: per 64 x 64 block of C, K-slices of Kb; P cells
    compute a slice while the next slice's tiles load (double buffering), so a slice takes the larger of
    its compute and its loads; nothing hides the first slice's loads. C is stored after a block's last
    slice, its bytes counted with that slice's loads. See docs/studies.md for a worked example.

    ``compute``: cycles of every slice's MACs at P x 256 MACs per cycle; ``memory``: cycles of every slice's
    bytes at ``bandwidth``; ``cycles``: the schedule's total.
    """

    cells: int
    blocks: tuple[int, int, int]
    bandwidth: int
    compute: int
    memory: int
    cycles: int
    bytes_moved: int

    @property
    def bound(self) -> str:
        return "memory" if self.memory > self.compute else "compute"


def schedule(m: int, n: int, k: int, *, in_bits: int, out_bits: int, macs_per_cycle: int,
             bandwidth: int = DEFAULT_BANDWIDTH, blocks: tuple[int, int, int] | None = None,
             scale_bits: int = 0, scale_block: int = 32) -> Schedule:
    """The :class:`Schedule` of ``C (M x N) = A (M x K) x B (K x N)``.

    Tiles are whole: rows pad to 16, a slice's K to whole tile rows of ``in_bits`` elements (16 bytes), and
    a result tile of ``out_bits`` holds 16 x (128 / out_bits) results. Block-scaled inputs add
    ``scale_bits`` per row and block of ``scale_block`` along K, for A and for B.
    """
    cells = pick_cells(macs_per_cycle)
    rate = cells * MACS_PER_CELL
    mb, nb, kb = blocks or make_plan(in_bits)
    per_row = TILE_BYTES // TILE_ROWS * 8 // in_bits  # input elements per tile row
    out_per_row = TILE_BYTES // TILE_ROWS * 8 // out_bits

    def pad16(x):
        return -(-x // TILE_ROWS) * TILE_ROWS

    def sizes(total, step):
        full, rest = divmod(total, step)
        return ([(step, full)] if full else []) + ([(rest, 1)] if rest else [])

    k_slices = [min(kb, k - k0) for k0 in range(0, k, kb)]
    compute = memory = cycles = moved = 0
    first = None
    for bm, cm in sizes(m, mb):
        for bn, cn in sizes(n, nb):
            rows_a, rows_b = pad16(bm), pad16(bn)
            store = rows_a * -(-rows_b // out_per_row) * (TILE_BYTES // TILE_ROWS)  # bytes of C's tiles
            for i, kk in enumerate(k_slices):
                width = -(-kk // per_row) * (TILE_BYTES // TILE_ROWS)  # bytes per row of the slice, whole tiles
                scales = (rows_a + rows_b) * -(-kk // scale_block) * scale_bits // 8 if scale_bits else 0
                nbytes = (rows_a + rows_b) * width + scales + (store if i == len(k_slices) - 1 else 0)
                c_cyc = -(-rows_a * rows_b * kk // rate)
                m_cyc = -(-nbytes // bandwidth)
                if first is None:
                    first = -(-(nbytes - (store if len(k_slices) == 1 else 0)) // bandwidth)
                compute += c_cyc * cm * cn
                memory += m_cyc * cm * cn
                cycles += max(c_cyc, m_cyc) * cm * cn
                moved += nbytes * cm * cn
    return Schedule(cells, (mb, nb, kb), bandwidth, compute, memory, cycles + first, moved)
