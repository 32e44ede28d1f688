"""TPUSH, TPOP, TALLOC, TFREE and TSYNC from Python: a :class:`TPipe` between the cube and vector sides of one
block, and TGET_SCALE_ADDR, in the sequential model (decision PTO152).

A ``TPipe(dir_mask)`` holds a pipe's slots: dir_mask 1 carries cube-to-vector payloads (``c2v``), 2
vector-to-cube (``v2c``), 3 both, and then each push and pop names its ``direction``. Tile payloads
(TileData overloads):

>>> import numpy as np
>>> from tilesim import pto
>>> pipe = pto.TPipe(1)
>>> acc = pto.Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
>>> acc.values[...] = 2.0
>>> _ = pto.tpush(pipe, acc)
>>> pto.tpop(pipe, pto.Tile("vec", "f32", 16, 16)).values[3, 4]
np.float32(2.0)

``split`` 1 and 2 divide a cube payload into row or column halves between the two vector subblocks, and a
vector-to-cube push with a split sends one subblock's half. ``TPipe(dir_mask, subblocks=2)`` runs both
vector subblocks: each push, pop and free names its ``subblock`` (0 or 1), as the simulator's execution
context does; a pipe of one subblock serves subblock 0, whose split pop takes the upper or left half. The
slot protocol, ``depth`` (the slot count) and ``no_split`` follow pto-isa's CPU simulator
(:mod:`tilesim.pto.pipe_ring`, PTO178). GlobalData overloads: ``talloc(pipe, shape, dtype)`` hands the
producer a FIFO slot (a numpy array it writes), ``tpush(pipe, slot)`` commits it, ``tpop(pipe)`` returns the
oldest committed slot and ``tfree(pipe, slot)`` releases it. ``tpush(..., quant=MODE)`` converts an acc tile
with a FixpipeParams quant mode (:mod:`tilesim.pto.pipe_quant`, PTO179). TSYNC orders nothing in the
sequential model.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..errors import StateError, TilesimError
from .dtypes import get_dtype
from .memory import Memory, tassign
from .pipe_quant import quantised
from .pipe_ring import Ring
from .targets import get_target
from .text.pipes import DIRECTIONS
from .tile import Tile

__all__ = ["TPipe", "tpush", "tpop", "talloc", "tfree", "tsync", "tget_scale_addr"]

#: TGET_SCALE_ADDR's shift of a byte address to a scaling address (pto-isa include/pto/npu/a5/utils.hpp
#: SHIFT_MX_ADDR; decision PTO41)
SHIFT_MX_ADDR = 4
#: the producer tile locations a push takes (docs/isa/TPUSH.md: Acc, Vec; the simulator's own tests push Mat
#: tiles too; Ctrl tiles have no tilesim location)
PUSH_LOCS = ("acc", "vec", "mat")


def _pipe_error(op: str, detail: str, operand: str, rule: str, value=None):
    raise TilesimError(detail, instruction=op, operand=operand, rule=rule, value=value)


class TPipe:
    """The FIFOs of one pipe: tile payloads and GlobalData slots, per direction."""

    def __init__(self, dir_mask: int = 1, *, depth: int | None = None, subblocks: int = 1,
                 no_split: bool = False) -> None:
        if isinstance(dir_mask, bool) or dir_mask not in (1, 2, 3):
            _pipe_error("TPIPE", "dir_mask must be 1 (cube to vector), 2 (vector to cube) or 3 (both)", "dir_mask",
                        "pto.pipe.dir_mask", dir_mask)
        if depth is not None and (not isinstance(depth, (int, np.integer)) or isinstance(depth, bool) or depth < 1):
            _pipe_error("TPIPE", "depth (the slot count) must be a positive integer, or None for no limit", "depth",
                        "pto.pipe.depth", depth)
        if isinstance(subblocks, bool) or subblocks not in (1, 2):
            _pipe_error("TPIPE", "subblocks (the vector subblocks that run) must be 1 or 2", "subblocks",
                        "pto.pipe.subblocks", subblocks)
        self.dir_mask, self.depth, self.subblocks, self.no_split = dir_mask, depth, subblocks, bool(no_split)
        self.ring = Ring(depth, subblocks, bool(no_split))
        self.slots = {d: deque() for d in DIRECTIONS.values()}       # committed GlobalData slots
        self.allocated: list[np.ndarray] = []                       # TALLOC'd, not yet pushed
        self.popped: list[np.ndarray] = []                          # TPOP'd, not yet freed

    @property
    def occupied(self) -> int:
        """Tile payload slots committed and not yet freed by all their consumers."""
        return self.ring.occupied

    def __repr__(self) -> str:
        return (f"TPipe(dir_mask={self.dir_mask}, depth={self.depth}, subblocks={self.subblocks}, "
                f"no_split={self.no_split})")

    def subblock(self, op: str, subblock, tile) -> int:
        """The subblock a tile op runs as: 0 or 1 for a vector tile (below ``subblocks``), 0 on the cube."""
        n = self.subblocks if isinstance(tile, Tile) and tile.loc == "vec" else 1
        if isinstance(subblock, bool) or subblock not in range(n):
            side = f"this pipe runs {n} vector subblock(s)" if n > 1 or self.subblocks == 1 else "the cube has one"
            _pipe_error(op, f"subblock must be below {n}: {side}", "subblock", "pto.pipe.subblocks", subblock)
        return int(subblock)

    def direction(self, op: str, direction: str | None) -> str:
        """The direction a push or pop uses: the pipe's one direction, or the one named (dir_mask 3)."""
        if self.dir_mask in DIRECTIONS:
            d = DIRECTIONS[self.dir_mask]
            if direction not in (None, d):
                _pipe_error(op, f"the pipe carries {d} only (dir_mask {self.dir_mask})", "direction",
                            "pto.pipe.direction", direction)
            return d
        if direction not in DIRECTIONS.values():
            _pipe_error(op, "a dir_mask 3 pipe carries both directions: name direction='c2v' or 'v2c'", "direction",
                        "pto.pipe.direction", direction)
        return direction


def _pipe(op: str, pipe) -> TPipe:
    if not isinstance(pipe, TPipe):
        _pipe_error(op, f"expected a TPipe, got {type(pipe).__name__}", "pipe", "pto.op.operand", type(pipe).__name__)
    return pipe


def _forget(items: list, slot, op: str, what: str) -> None:
    for k, s in enumerate(items):
        if s is slot:
            del items[k]
            return
    _pipe_error(op, f"the array is not a slot this pipe {what}", "slot", "pto.pipe.slot", getattr(slot, "shape", None))


def _split(op: str, split) -> int:
    if isinstance(split, bool) or split not in (0, 1, 2):
        _pipe_error(op, "split must be 0 (whole), 1 (rows in halves) or 2 (columns in halves)", "split",
                    "pto.pipe.split", split)
    return split


def tpush(pipe: TPipe, tile, split: int = 0, *, direction: str | None = None, subblock: int = 0,
          quant: str | None = None, relu: bool = False, config=None, target=None) -> TPipe:
    """TPUSH: copy an acc, vec or mat tile's valid region into the pipe (halves for split 1, 2), or commit a slot
    that :func:`talloc` handed out (a numpy array). A vector subblock pushes its half of a split v2c payload;
    subblock 1's unsplit vector push does nothing (the simulator's inactive lane). ``quant`` names a
    FixpipeParams mode (F322F16, F322BF16, DEQF16, VDEQF16) that converts an acc tile on its way to the vector
    side, with the quant registers of ``config`` (:func:`tilesim.pto.pipe_quant.quantised`, PTO179). Raises
    ``pto.pipe.split``, ``pto.pipe.subblocks``, ``pto.pipe.direction``, ``pto.pipe.full``, ``pto.pipe.shape``,
    ``pto.pipe.slot``, ``pto.pipe.quant``, ``pto.op.loc``."""
    _pipe("TPUSH", pipe)
    d = pipe.direction("TPUSH", direction)
    if isinstance(tile, np.ndarray):
        _forget(pipe.allocated, tile, "TPUSH", "allocated (TALLOC) and has not pushed")
        pipe.slots[d].append(tile)
        return pipe
    if not isinstance(tile, Tile):
        _pipe_error("TPUSH", f"expected a Tile or a TALLOC slot, got {type(tile).__name__}", "tile", "pto.op.operand",
                    type(tile).__name__)
    if tile.loc not in PUSH_LOCS:
        _pipe_error("TPUSH", f"pushes an acc, vec or mat tile, not a {tile.loc} tile", "tile", "pto.op.loc", tile.loc)
    split, sub = _split("TPUSH", split), pipe.subblock("TPUSH", subblock, tile)
    whole = tile.valid == (tile.rows, tile.cols)
    if not whole and (split or (d == "v2c" and tile.loc == "vec" and tile.valid_cols != tile.cols)):
        how = "halves of the whole tile" if split else "rows at the static width"
        _pipe_error("TPUSH", f"the simulator moves {how} ({tile.rows}x{tile.cols}), not of its valid region "
                    f"{tile.valid_rows}x{tile.valid_cols}: push a tile whose valid region is the whole tile", "tile",
                    "pto.pipe.shape", tile.valid)
    if quant is None:
        pipe.ring.push(d, tile.loc, tile.dtype, tile.valid_bits.copy(), split, sub, "TPUSH")
    else:
        pipe.ring.push(d, tile.loc, *quantised(tile, quant, d, split, relu, config, target), split, sub, "TPUSH")
    return pipe


def tpop(pipe: TPipe, tile: Tile | None = None, split: int = 0, *, direction: str | None = None,
         subblock: int = 0):
    """TPOP: fill ``tile``'s valid region from the pipe's oldest payload for this subblock (dtype, split and
    valid shape must match the push) and return it; without a tile, return the oldest committed slot
    (GlobalData overload). Subblock 1's unsplit c2v pop zero-fills the tile (PTO178). Raises
    ``pto.pipe.empty`` (nothing pushed), ``pto.pipe.split``, ``pto.pipe.dtype``, ``pto.pipe.shape``,
    ``pto.pipe.subblocks``."""
    _pipe("TPOP", pipe)
    d = pipe.direction("TPOP", direction)
    if tile is None:
        if not pipe.slots[d]:
            raise StateError(f"no slot was pushed to the {d} pipe before this pop", instruction="TPOP",
                             operand="pipe", rule="pto.pipe.empty", value=d)
        slot = pipe.slots[d].popleft()
        pipe.popped.append(slot)
        return slot
    if not isinstance(tile, Tile):
        _pipe_error("TPOP", f"expected a Tile, got {type(tile).__name__}", "tile", "pto.op.operand",
                    type(tile).__name__)
    return pipe.ring.pop(d, tile, _split("TPOP", split), pipe.subblock("TPOP", subblock, tile), "TPOP")


def talloc(pipe: TPipe, shape, dtype, *, direction: str | None = None) -> np.ndarray:
    """TALLOC: a FIFO slot (a zeroed numpy array of ``shape`` and ``dtype``) for the producer to write, then
    commit with :func:`tpush`. Raises ``pto.pipe.direction``, ``pto.dtype.name``, ``pto.pipe.slot``."""
    _pipe("TALLOC", pipe)
    pipe.direction("TALLOC", direction)
    d = get_dtype(dtype, instruction="TALLOC", operand="dtype")
    try:
        dims = tuple(int(n) for n in shape)
        ok = len(dims) == 2 and min(dims) > 0 and all(n == m for n, m in zip(dims, shape))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        _pipe_error("TALLOC", "shape must be (rows, cols) of positive integers", "shape", "pto.pipe.slot", shape)
    slot = np.zeros(dims, d.np)
    pipe.allocated.append(slot)
    return slot


def tfree(pipe: TPipe, slot: np.ndarray | None = None, split: int = 0, *, subblock: int = 0) -> TPipe:
    """TFREE: release a slot :func:`tpop` returned (GlobalData overload), or the oldest tile payload slot this
    subblock popped and has not freed; subblock 1's unsplit free on a pipe where it popped nothing is the
    simulator's inactive-lane no-op, and a subblock's free before its first pop discards the first pushed tile,
    once (the simulator frees its slot 0, PTO197). Raises ``pto.pipe.split``, ``pto.pipe.slot``, ``pto.pipe.free``,
    ``pto.pipe.subblocks``."""
    _pipe("TFREE", pipe)
    _split("TFREE", split)
    if slot is not None:
        _forget(pipe.popped, slot, "TFREE", "popped (TPOP) and has not freed")
        return pipe
    if isinstance(subblock, bool) or subblock not in range(pipe.subblocks):
        _pipe_error("TFREE", f"subblock must be below {pipe.subblocks}", "subblock", "pto.pipe.subblocks", subblock)
    inactive = split == 0 and subblock and pipe.dir_mask & 1 and not (pipe.no_split and pipe.subblocks == 2)
    if not inactive:
        pipe.ring.free(subblock, "TFREE")
    return pipe


def tsync(*events) -> None:
    """TSYNC: wait for the events of earlier instructions. Every op has finished when it returns in the
    sequential model (decision PTO28), so there is nothing to wait for."""


def tget_scale_addr(dst: Tile, src: Tile, *, target=None, memory: Memory | None = None,
                    name: str | None = None) -> Tile:
    """TGET_SCALE_ADDR: on A5 place ``dst``, a ``scaling`` tile of src's shape and valid shape, at src's
    address >> 4; on ``cpu`` dst becomes a view of src's bytes, as the simulator points dst's data at src's
    (any tiles whose storage fits in src's). A2A3 has no TGET_SCALE_ADDR. Raises ``pto.op.target``,
    ``pto.op.operand``, ``pto.op.loc``, ``pto.op.valid_match``, ``pto.mem.unplaced``, ``pto.mem.bounds`` and
    :func:`tassign`'s rules."""
    prof = memory.prof if memory is not None else get_target(target)
    if "tget_scale_addr" in prof.absent_ops:
        _pipe_error("TGET_SCALE_ADDR", f"is not available on target {prof.name}", "op", "pto.op.target", prof.name)
    for t, role in ((dst, "dst"), (src, "src")):
        if not isinstance(t, Tile):
            _pipe_error("TGET_SCALE_ADDR", f"expected a Tile, got {type(t).__name__}", role, "pto.op.operand",
                        type(t).__name__)
    if not prof.name.startswith("a5"):   # cpu: dst.data() = src.data() (pto-isa include/pto/cpu/TGetScaleAddr.hpp)
        if dst.span > src.span:
            _pipe_error("TGET_SCALE_ADDR", f"dst spans {dst.span} bytes, src {src.span}: dst would read past src's "
                        "storage", "dst", "pto.mem.bounds", (src.span, dst.span))
        src.push()
        src.viewed = True
        dst.bind(src._mem, src._off)
        dst.addr = src.addr
        return dst
    if dst.loc != "scaling":
        _pipe_error("TGET_SCALE_ADDR", f"dst must be in the scaling address space, not {dst.loc}", "dst",
                    "pto.op.loc", dst.loc)
    if (dst.rows, dst.cols) != (src.rows, src.cols) or dst.valid != src.valid:
        _pipe_error("TGET_SCALE_ADDR", f"dst ({dst.describe()}) must have src's shape and valid shape "
                    f"({src.describe()})", "dst", "pto.op.valid_match", (dst.rows, dst.cols, dst.valid))
    if src.addr is None:
        _pipe_error("TGET_SCALE_ADDR", "src has no address yet (allocate or assign it first)", "src",
                    "pto.mem.unplaced")
    if memory is not None:
        return memory.place(dst, src.addr >> SHIFT_MX_ADDR, name=name, op="TGET_SCALE_ADDR")
    return tassign(dst, src.addr >> SHIFT_MX_ADDR, target=prof, name=name)
