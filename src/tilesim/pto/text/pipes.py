"""TPUSH/TPOP pipes between the cube and vector sides of one block, in the sequential model.

A pipe direction is a FIFO of tile payloads: ``c2v`` (cube pushes with
``tpush_to_aiv``/``tpush``, vector pops with ``tpop_from_aic``/``tpop``) and
``v2c``. ``split`` divides a cube payload between the two vector
subblocks: 0 keeps it whole, 1 splits the rows into an upper and a lower
half, 2 the columns into a left and a right half; the subblock a function
runs as takes its half. tilesim runs one vector subblock, so a vector push
with split 1/2 (one half of the cube's tile) is refused
(``pto.pipe.subblocks``), except where a vector function of the group
pushes with split 1/2: then the vector functions run twice, as subblocks 0
and 1, each with its own vector buffer, popping its own half (or its own
copy of a split-0 payload) and pushing its half, which the cube's pop joins
(decision PTO157). Functions that push and pop run as coroutines
(:mod:`.peers`), so a pop waits for its peer's push; a pop no push can
fill is an error (``pto.pipe.empty``), and payloads left at the end are
reported. Reserved buffers (``reserve_buffer``/``import_reserved_buffer``)
are matched by name; their addresses are real placements in the consumer's
buffer.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ...errors import StateError, TilesimError
from ..tile import Tile

__all__ = ["Pipes", "DIRECTIONS"]

DIRECTIONS = {1: "c2v", 2: "v2c"}


@dataclass
class Pipes:
    """The FIFOs and reserved buffers of one block."""

    fifos: dict = field(default_factory=lambda: {d: [deque(), deque()] for d in DIRECTIONS.values()})
    reserved: dict = field(default_factory=dict)
    inits: list = field(default_factory=list)
    #: two vector subblocks run (PTO157): each pops its own copy, and v2c halves are joined by the cube's pop
    two_subblocks: bool = False
    #: (direction, subblock) pairs that popped, or dropped a payload with a TFREE before their first pop
    consumed: set = field(default_factory=set)

    def push(self, direction: str, tile: Tile, split: int, op: str, subblock: int = 0) -> None:
        """Copy ``tile``'s valid region into the FIFO (halves for split 1 and 2)."""
        _check_split(split, op)
        if direction == "v2c" and self.two_subblocks:
            if not split:
                raise TilesimError("with two vector subblocks a split-0 push would reach the cube twice; push "
                                   "each subblock's half with split 1 or 2", instruction=op, operand="split",
                                   rule="pto.pipe.subblocks", value=split)
            self.fifos[direction][subblock].append((tile.dtype, tile.valid_bits.copy(), split))
            return
        if direction == "v2c" and split:
            # each vector subblock pushes its own half of the cube's tile; tilesim runs one vector subblock
            # (get_subblock_num = 1), so the other half would never arrive: refuse rather than send half a tile
            raise TilesimError(f"a vector-side push with split {split} sends one subblock's half of the cube's "
                               "tile; tilesim runs a single vector subblock, so the other half is never pushed",
                               instruction=op, operand="split", rule="pto.pipe.subblocks", value=split)
        data = tile.valid_bits.copy()
        if split == 0:
            parts = [data, data]
        else:
            axis = 0 if split == 1 else 1
            n = data.shape[axis]
            if n % 2:
                raise TilesimError(f"split {split} halves the {'rows' if axis == 0 else 'columns'}; the tile has "
                                   f"{n}", instruction=op, operand="tile", rule="pto.pipe.split", value=n)
            parts = np.split(data, 2, axis=axis)
        for sub in (0, 1):
            self.fifos[direction][sub].append((tile.dtype, parts[sub], split))

    def pop(self, direction: str, dst: Tile, split: int, subblock: int, op: str) -> Tile:
        """Fill ``dst``'s valid region from the FIFO's oldest payload for ``subblock``."""
        _check_split(split, op)
        if direction == "v2c" and self.two_subblocks:
            return self._join(dst, split, op)
        q = self.fifos[direction][subblock]
        if not q:
            raise StateError(f"nothing was pushed to the {direction} pipe before this pop, and no peer function "
                             "runs beside this one to push it", instruction=op, operand="pipe",
                             rule="pto.pipe.empty", value=direction)
        self.consumed.add((direction, subblock))
        dtype, data, pushed_split = self._take(direction, subblock)
        if pushed_split != split:
            raise TilesimError(f"popped with split {split}, pushed with split {pushed_split}", instruction=op,
                               operand="split", rule="pto.pipe.split", value=(pushed_split, split))
        if dtype != dst.dtype:
            raise TilesimError(f"the payload is {dtype}, the tile {dst.dtype}", instruction=op, operand="tile",
                               rule="pto.pipe.dtype", value=(str(dtype), str(dst.dtype)))
        if data.shape != dst.valid:
            raise TilesimError(f"the payload is {data.shape[0]}x{data.shape[1]}, the tile's valid region "
                               f"{dst.valid_rows}x{dst.valid_cols}", instruction=op, operand="tile",
                               rule="pto.pipe.shape", value=(data.shape, dst.valid))
        dst.bits[: data.shape[0], : data.shape[1]] = data
        dst.push()
        return dst

    def _take(self, direction: str, subblock: int) -> tuple:
        dtype, data, pushed_split = self.fifos[direction][subblock].popleft()
        other = self.fifos[direction][1 - subblock]
        if other and pushed_split == 0 and not self.two_subblocks:
            other.popleft()
        return dtype, data, pushed_split

    def free(self, direction: str, subblock: int) -> None:
        """TFREE: nothing, as pops take their payload, except that a free before this subblock's first pop
        drops the first queued unsplit payload, as the CPU simulator's free of its consumer's slot 0 (PTO197)."""
        q = self.fifos[direction][subblock]
        if (direction, subblock) in self.consumed or not q or q[0][2] or self.two_subblocks:
            return
        self.consumed.add((direction, subblock))
        self._take(direction, subblock)

    def ready(self, direction: str, subblock: int) -> bool:
        """Whether a pop of ``subblock`` (the cube's: 0) would find its payload."""
        if direction == "v2c" and self.two_subblocks:
            return all(self.fifos[direction])
        return bool(self.fifos[direction][subblock])

    def _join(self, dst: Tile, split: int, op: str) -> Tile:
        """The cube's pop of the two subblocks' halves (PTO157): rows (split 1) or columns (split 2) joined."""
        if not self.ready("v2c", 0):
            raise StateError("the two vector subblocks have not both pushed to the v2c pipe", instruction=op,
                             operand="pipe", rule="pto.pipe.empty", value="v2c")
        halves = [q.popleft() for q in self.fifos["v2c"]]
        if any(h[2] != split for h in halves):
            raise TilesimError(f"popped with split {split}, pushed with split {halves[0][2]}", instruction=op,
                               operand="split", rule="pto.pipe.split", value=(halves[0][2], split))
        if any(h[0] != dst.dtype for h in halves):
            raise TilesimError(f"the payload is {halves[0][0]}, the tile {dst.dtype}", instruction=op,
                               operand="tile", rule="pto.pipe.dtype", value=(str(halves[0][0]), str(dst.dtype)))
        try:
            data = np.concatenate([h[1] for h in halves], axis=0 if split == 1 else 1)
        except ValueError:
            data = None
        if data is None or data.shape != dst.valid:
            raise TilesimError(f"the halves {[h[1].shape for h in halves]} do not make the tile's valid region "
                               f"{dst.valid_rows}x{dst.valid_cols}", instruction=op, operand="tile",
                               rule="pto.pipe.shape", value=dst.valid)
        dst.bits[: data.shape[0], : data.shape[1]] = data
        dst.push()
        return dst

    def leftovers(self) -> list[str]:
        out = []
        for d, (q0, q1) in self.fifos.items():
            n = max(len(q0), len(q1))
            if n:
                out.append(f"{n} payload(s) pushed to the {d} pipe were never popped")
        return out


def _check_split(split, op: str) -> None:
    if split not in (0, 1, 2):
        raise TilesimError("split must be 0 (whole), 1 (rows in halves) or 2 (columns in halves)", instruction=op,
                           operand="split", rule="pto.pipe.split", value=split)
