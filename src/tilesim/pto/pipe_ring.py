"""The slot ring behind a Python :class:`~tilesim.pto.pipe.TPipe`: tile payloads, vector subblocks and slot
counts as pto-isa's CPU simulator keeps them (include/pto/cpu/TPush.hpp, TPop.hpp; decisions PTO178, PTO179).

A push claims the slot at the producer cursor (``depth`` slots, or an unbounded FIFO without one) and
commits it; a vector-to-cube push with split 1/2 commits only when both subblocks have written their
half. A pop takes, for its direction and subblock, the first committed slot from that subblock's cursor
that it has not popped yet; TFREE releases the subblock's oldest popped slot, and a slot is free again
when every consumer it waits for has freed it (both subblocks for a split payload, both for an unsplit
one on a ``no_split`` pipe with two subblocks, else one). A vector subblock other than 0 takes no part in
an unsplit transfer: its push does nothing and its pop zero-fills the tile's valid region (popping the
slot only on a ``no_split`` pipe with two subblocks), as the simulator's inactive lane does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import StateError, TilesimError
from .tile import Tile

__all__ = ["Ring"]


def _ring_error(op: str, detail: str, operand: str, rule: str, value=None, cls=TilesimError):
    raise cls(detail, instruction=op, operand=operand, rule=rule, value=value)


@dataclass
class _Slot:
    direction: str
    dtype: object
    split: int
    parts: list                      # the payload per vector subblock (halves) or one whole array
    consumers: int                   # frees the slot waits for
    popped: set = field(default_factory=set)    # subblocks (the cube: 0) that popped it
    freed: int = 0
    committed: bool = True


def _halves(data: np.ndarray, split: int, op: str) -> list:
    if split == 0:
        return [data]
    axis = split - 1
    if data.shape[axis] % 2:
        _ring_error(op, f"split {split} halves the {('rows', 'columns')[axis]}; the tile has {data.shape[axis]}",
                    "tile", "pto.pipe.split", data.shape[axis])
    return np.split(data, 2, axis=axis)


class Ring:
    """The slots of one pipe (both directions share them, as a DIR_BOTH pipe's ring does)."""

    def __init__(self, depth: int | None, subblocks: int, no_split: bool) -> None:
        self.depth, self.subblocks, self.no_split = depth, subblocks, no_split
        self.slots: dict[int, _Slot] = {}
        self.next_slot = 0                               # the producer cursor
        self.cursors: dict[tuple, int] = {}              # (direction, subblock) -> consumer cursor
        self.held: dict[int, list[int]] = {}             # subblock -> popped, not yet freed slot indices
        self.consumed: set[int] = set()                  # subblocks that popped, or freed slot 0 unpopped

    @property
    def occupied(self) -> int:
        """Committed slots not yet freed by all their consumers."""
        return sum(s.committed for s in self.slots.values())

    def _claim(self, op: str) -> int:
        if self.depth is not None and (self.next_slot in self.slots or self.occupied >= self.depth):
            _ring_error(op, f"the pipe's {self.depth} slots are full at slot {self.next_slot}: in the sequential "
                        "model no consumer can free one while this push waits", "pipe", "pto.pipe.full", self.depth,
                        cls=StateError)
        return self.next_slot

    def _advance(self, index: int) -> None:
        self.next_slot = (index + 1) % self.depth if self.depth is not None else index + 1

    def push(self, direction: str, loc: str, dtype, data: np.ndarray, split: int, subblock: int, op: str) -> None:
        """Push ``data`` (a copy of a ``loc`` tile's valid region, of ``dtype``)."""
        if direction == "v2c" and loc == "vec":
            if split == 0:
                if subblock:
                    return                               # the inactive lane: no transfer
            else:
                return self._push_half(dtype, data, split, subblock, op)
        parts = _halves(data, split, op) if direction == "c2v" else [data]
        consumers = 2 if split or (self.no_split and self.subblocks == 2 and direction == "c2v") else 1
        index = self._claim(op)
        self.slots[index] = _Slot(direction, dtype, split, parts, consumers)
        self._advance(index)

    def _push_half(self, dtype, data: np.ndarray, split: int, subblock: int, op: str) -> None:
        """One vector subblock's half of a v2c payload; the slot commits when both halves are in."""
        if self.subblocks != 2:
            _ring_error(op, f"a vector-side push with split {split} sends one subblock's half of the cube's tile; "
                        "this pipe runs a single vector subblock (TPipe(..., subblocks=2) runs two), so the other "
                        "half is never pushed", "split", "pto.pipe.subblocks", split)
        slot = self.slots.get(self.next_slot)
        if slot is None or slot.committed:
            index = self._claim(op)
            slot = self.slots[index] = _Slot("v2c", dtype, split, [None, None], 1, committed=False)
        if slot.parts[subblock] is not None:
            _ring_error(op, f"subblock {subblock} already pushed its half of slot {self.next_slot}; subblock "
                        f"{1 - subblock} has not, so this push would wait forever", "subblock", "pto.pipe.subblocks",
                        subblock, cls=StateError)
        other = slot.parts[1 - subblock]
        if other is not None and (slot.split != split or slot.dtype != dtype
                                  or other.shape[2 - split] != data.shape[2 - split]):
            _ring_error(op, f"subblock {subblock}'s half ({dtype} {data.shape}, split {split}) does not match "
                        f"subblock {1 - subblock}'s ({slot.dtype} {other.shape}, split {slot.split})", "tile",
                        "pto.pipe.shape", (data.shape, other.shape))
        slot.parts[subblock] = data
        if other is not None:
            slot.parts = [np.concatenate(slot.parts, axis=split - 1)]
            slot.committed = True
            self._advance(self.next_slot)

    def _order(self, start: int) -> list[int]:
        if self.depth is None:
            return sorted(self.slots)
        return [(start + k) % self.depth for k in range(self.depth)]

    def _find(self, direction: str, lane: int, op: str) -> int:
        start = self.cursors.get((direction, lane), 0)
        for index in self._order(start):
            s = self.slots.get(index)
            if s is not None and s.committed and s.direction == direction and lane not in s.popped:
                return index
        _ring_error(op, f"no slot was pushed to the {direction} pipe for subblock {lane} before this pop", "pipe",
                    "pto.pipe.empty", direction, cls=StateError)

    def pop(self, direction: str, dst: Tile, split: int, subblock: int, op: str) -> Tile:
        vec = dst.loc == "vec"
        if direction == "c2v" and vec and split == 0 and subblock:
            if self.no_split and self.subblocks == 2:
                index = self._find(direction, subblock, op)
                self._take(index, direction, subblock)
            dst.bits[: dst.valid_rows, : dst.valid_cols] = 0     # the second lane's tile: zeros
            dst.push()
            return dst
        lane = subblock if direction == "c2v" and vec else 0
        index = self._find(direction, lane, op)
        slot = self.slots[index]
        if slot.split != split:
            _ring_error(op, f"popped with split {split}, pushed with split {slot.split}", "split", "pto.pipe.split",
                        (slot.split, split))
        if slot.dtype != dst.dtype:
            _ring_error(op, f"the payload is {slot.dtype}, the tile {dst.dtype}", "tile", "pto.pipe.dtype",
                        (str(slot.dtype), str(dst.dtype)))
        data = slot.parts[lane] if len(slot.parts) == 2 and direction == "c2v" else slot.parts[0]
        if data.shape != dst.valid:
            _ring_error(op, f"the payload is {data.shape[0]}x{data.shape[1]}, the tile's valid region "
                        f"{dst.valid_rows}x{dst.valid_cols}", "tile", "pto.pipe.shape", (data.shape, dst.valid))
        if data.shape[1] != dst.cols:   # the simulator reads the slot's rows at the tile's static width
            _ring_error(op, f"the payload's rows are {data.shape[1]} wide and the tile's {dst.cols}: the simulator "
                        "reads a slot at the tile's static width, so it would read them misaligned", "tile",
                        "pto.pipe.shape", (data.shape[1], dst.cols))
        self._take(index, direction, lane)
        dst.bits[: data.shape[0], : data.shape[1]] = data
        dst.push()
        return dst

    def _take(self, index: int, direction: str, lane: int) -> None:
        self.slots[index].popped.add(lane)
        self.consumed.add(lane)
        self.held.setdefault(lane, []).append(index)
        self.cursors[(direction, lane)] = (index + 1) % self.depth if self.depth is not None else index + 1

    def free(self, subblock: int, op: str) -> None:
        held = self.held.get(subblock)
        if not held:
            first = self.slots.get(0)
            if subblock not in self.consumed and first is not None and first.committed and first.consumers == 1:
                del self.slots[0]                        # the simulator frees its consumer's slot 0 (PTO197),
                self.consumed.add(subblock)              # and the next pop reads the slot after it
                self.cursors[(first.direction, subblock)] = 1 % self.depth if self.depth is not None else 1
                return
            _ring_error(op, f"subblock {subblock} holds no popped slot to free (a free before any pop discards "
                        "the first pushed tile, once; here the simulator would free an already freed slot and "
                        "corrupt its count of occupied slots)", "pipe", "pto.pipe.free", subblock, cls=StateError)
        index = held.pop(0)
        slot = self.slots[index]
        slot.freed += 1
        if slot.freed >= slot.consumers:
            del self.slots[index]
