"""The pipe gtests whose steps are C++ in main.cpp (tpushpop, tpushpop_cv_nosplit, tpushpop_vc,
tpushpop_vc_nosplit), each transcribed step for step onto tilesim's Python pipes (PTO178): the same tiles,
fills, pushes, pops and frees in the same subblocks, the same data checks (ResultCmp at 0 or EXPECT_EQ, so
a pass is bit for bit), and the same checks of the slot count (``occupied``). Where a gtest runs a step in a
thread and asserts that it is still blocked, the sequential model tries the step there and expects it to
trap (``pto.pipe.empty`` or ``pto.pipe.full``, state unchanged), then runs it where the thread would
resume. Runners are keyed by the gtest's helper function (its template arguments passed on) or, for an
inline body, by the test's name."""

from __future__ import annotations

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError

ACC = dict(blayout="col_major", slayout="row_major", fractal=1024)
MAT_NZ = dict(blayout="col_major", slayout="row_major", fractal=512)
UD, LR = 1, 2
_SPLITS = {"TILE_UP_DOWN": UD, "TILE_LEFT_RIGHT": LR, "TILE_NO_SPLIT": 0}
_DTYPES = {"float": "f32", "int32_t": "i32", "uint32_t": "u32"}


class Checks:
    """The EXPECT_* of one gtest: all must hold."""

    def __init__(self) -> None:
        self.ok = True

    def eq(self, got, want) -> None:
        """Equal values, shape for shape (a scalar ``want``: every element)."""
        got, want = np.asarray(got), np.asarray(want)
        self.ok &= bool(np.array_equal(got, np.broadcast_to(want, got.shape) if want.ndim == 0 else want))

    def traps(self, rule: str, step) -> None:
        """A step the gtest shows blocked (EXPECT_FALSE(done) while its thread waits)."""
        try:
            step()
        except TilesimError as e:
            self.ok &= e.rule == rule
        else:
            self.ok = False


def tile(loc: str, dt: str, rows: int, cols: int, **kw) -> pto.Tile:
    return pto.Tile(loc, dt, rows, cols, **kw)


def fill_storage(t: pto.Tile, values) -> pto.Tile:
    """``tile.data()[i] = values[i]`` over the tile's storage (Numel elements, layout order)."""
    t.raw_bytes().view(t.dtype.lane)[:] = np.asarray(values).astype(t.dtype.np).view(t.dtype.lane)
    t.pull()
    return t


def fill_logical(t: pto.Tile, fn) -> pto.Tile:
    """``tile.data()[GetTileElementOffset(r, c)] = fn(r, c)`` over rows x cols (or the valid region)."""
    r, c = np.indices(t.values.shape)
    t.values[...] = fn(r, c)
    return t


def seq(n: int, start) -> np.ndarray:
    return start + np.arange(n)


# ---------------------------------------------------------------------------------------------- tpushpop


def gm_fifo_v2c_split_layout(args) -> bool:
    """testGmFifoPreservesV2CSplitLayout for TILE_UP_DOWN and TILE_LEFT_RIGHT: two subblocks push halves,
    the cube pops the joined Mat tile."""
    ck = Checks()
    for split in (UD, LR):
        vr, vc = (8, 16) if split == UD else (16, 8)
        pipe = pto.TPipe(2, depth=2, subblocks=2)
        src = [fill_storage(tile("vec", "f32", vr, vc), seq(vr * vc, k * 1000 + 1)) for k in (0, 1)]
        dst = tile("mat", "f32", 16, 16)
        for k in (0, 1):
            pto.tpush(pipe, src[k], split, subblock=k)
        pto.tpop(pipe, dst, split)
        ck.eq(dst.values, np.concatenate([s.values for s in src], axis=split - 1))
    return ck.ok


def c2v_local_split(args) -> bool:
    """a5_style_c2v_local_split_push_pop: one subblock pops the upper half of a 16x16 Acc tile, checked
    against ``src.data()[r * src.Cols + c]``."""
    ck = Checks()
    pipe = pto.TPipe(1, depth=2)
    src = fill_storage(tile("acc", "f32", 16, 16, **ACC), seq(256, 1))
    dst = tile("vec", "f32", 8, 16)
    pto.tpush(pipe, src, UD)
    pto.tpop(pipe, dst, UD)
    pto.tfree(pipe, split=UD)
    ck.eq(dst.values, src.raw_bytes().view(np.float32)[:128].reshape(8, 16))
    return ck.ok


def c2v_dual_subblock_split(args) -> bool:
    """a5_style_c2v_dual_subblock_split_push_pop: a one-slot pipe, two iterations; subblock 0 pops the top
    half, subblock 1 the bottom, then both free."""
    ck = Checks()
    pipe = pto.TPipe(1, depth=1, subblocks=2)
    for it in (0, 1):
        src = fill_storage(tile("acc", "f32", 16, 16, **ACC), seq(256, it * 1000 + 1))
        halves = [tile("vec", "f32", 8, 16) for _ in (0, 1)]
        pto.tpush(pipe, src, UD)
        for k in (0, 1):
            pto.tpop(pipe, halves[k], UD, subblock=k)
        ck.eq(np.concatenate([h.values for h in halves]), src.values)
        for k in (0, 1):
            pto.tfree(pipe, split=UD, subblock=k)
    return ck.ok


def v2c_split_waits_for_both(args) -> bool:
    """v2c_split_with_injected_pipe_hook_waits_for_both_lanes_before_publish: nothing is published (occupied
    0) until the second subblock's half is in; the cube's pop joins them."""
    ck = Checks()
    pipe = pto.TPipe(2, depth=2, subblocks=2)
    top, bottom = (fill_storage(tile("vec", "f32", 8, 16), seq(128, k * 1000 + 1)) for k in (0, 1))
    dst = tile("mat", "f32", 16, 16)
    pto.tpush(pipe, top, UD, subblock=0)
    ck.eq(pipe.occupied, 0)
    pto.tpush(pipe, bottom, UD, subblock=1)
    ck.eq(pipe.occupied, 1)
    pto.tpop(pipe, dst, UD)
    pto.tfree(pipe, split=UD)
    ck.eq(dst.values, np.concatenate([top.values, bottom.values]))
    return ck.ok


def dir_both_waits_for_direction(split: int):
    """testDirBothConsumerWaitsForMatchingDirection: both subblocks push halves to the cube; their c2v pops
    wait (no c2v payload yet) until the cube has popped, freed and pushed an Acc tile, split between them."""
    def run(args) -> bool:
        ck = Checks()
        vr, vc = (8, 16) if split == UD else (16, 8)
        pipe = pto.TPipe(3, depth=2, subblocks=2)
        src = [fill_storage(tile("vec", "f32", vr, vc), seq(vr * vc, 1 + 1000 * k)) for k in (0, 1)]
        acc = fill_storage(tile("acc", "f32", 16, 16, **ACC), seq(256, 2001))
        dst = [tile("vec", "f32", vr, vc) for _ in (0, 1)]
        for k in (0, 1):
            pto.tpush(pipe, src[k], split, direction="v2c", subblock=k)
        for k in (0, 1):
            ck.traps("pto.pipe.empty", lambda k=k: pto.tpop(pipe, dst[k], split, direction="c2v", subblock=k))
        pto.tpop(pipe, tile("mat", "f32", 16, 16), split, direction="v2c")
        pto.tfree(pipe, split=split)
        pto.tpush(pipe, acc, split, direction="c2v")
        for k in (0, 1):
            pto.tpop(pipe, dst[k], split, direction="c2v", subblock=k)
        ck.eq(np.concatenate([d.values for d in dst], axis=split - 1), acc.values)
        for k in (0, 1):
            pto.tfree(pipe, split=split, subblock=k)
        ck.eq(pipe.occupied, 0)
        return ck.ok
    return run


# ----------------------------------------------------------------------------------- tpushpop_cv_nosplit


def _cube_mat(dt, rows, cols, it):
    return fill_storage(tile("mat", dt, rows, cols), seq(rows * cols, it * 1000 + 1))


def _want(dt, rows, cols, it):
    return seq(rows * cols, it * 1000 + 1).astype(pto.get_dtype(dt).np).reshape(rows, cols)


def _template(args):
    return _DTYPES[args[0]], int(args[1]), int(args[2])


def inactive_lane_skips(args) -> bool:
    """runCubeToVectorNoSplitInactiveLaneSkipsProtocol: subblock 1's pop and free on a pipe that is not
    no_split touch nothing (its tile is zeros); subblock 0 then pops the payload."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(1, depth=2, subblocks=2)
    pto.tpush(pipe, _cube_mat(dt, R, C, 0))
    lane1 = pto.tpop(pipe, tile("vec", dt, R, C), subblock=1)
    pto.tfree(pipe, subblock=1)
    ck.eq(pipe.occupied, 1)
    ck.eq(lane1.values, 0)
    got = pto.tpop(pipe, tile("vec", dt, R, C))
    pto.tfree(pipe)
    ck.eq(got.values, _want(dt, R, C, 0))
    ck.eq(pipe.occupied, 0)
    return ck.ok


def dual_lane_delayed_free(args) -> bool:
    """runCubeToVectorNoSplitDualLaneDelayedFree: on a no_split pipe both subblocks pop every payload
    (subblock 1's tile is zeros); slots stay occupied until both have freed."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(1, depth=2, subblocks=2, no_split=True)
    for it in (0, 1):
        pto.tpush(pipe, _cube_mat(dt, R, C, it))
    got = {k: [pto.tpop(pipe, tile("vec", dt, R, C), subblock=k).values.copy() for _ in (0, 1)] for k in (0,)}
    for _ in (0, 1):
        pto.tfree(pipe, subblock=0)
    ck.eq(pipe.occupied, 2)
    got[1] = [pto.tpop(pipe, tile("vec", dt, R, C), subblock=1).values.copy() for _ in (0, 1)]
    for _ in (0, 1):
        pto.tfree(pipe, subblock=1)
    for it in (0, 1):
        ck.eq(got[0][it], _want(dt, R, C, it))
        ck.eq(got[1][it], 0)
    ck.eq(pipe.occupied, 0)
    return ck.ok


def fast_lane_wrap_waits(args) -> bool:
    """runCubeToVectorNoSplitDualLaneFastLaneWrapWaits: subblock 0's third pop waits until subblock 1 has
    freed both slots and the cube has pushed a third payload; one slot stays occupied (subblock 1's)."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(1, depth=2, subblocks=2, no_split=True)
    for it in (0, 1):
        pto.tpush(pipe, _cube_mat(dt, R, C, it))
    lane0 = [pto.tpop(pipe, tile("vec", dt, R, C)).values.copy() for _ in (0, 1)]
    for _ in (0, 1):
        pto.tfree(pipe)
    ck.traps("pto.pipe.empty", lambda: pto.tpop(pipe, tile("vec", dt, R, C)))
    lane1 = []
    for _ in (0, 1):
        lane1.append(pto.tpop(pipe, tile("vec", dt, R, C), subblock=1).values.copy())
        pto.tfree(pipe, subblock=1)
    pto.tpush(pipe, _cube_mat(dt, R, C, 2))
    lane0.append(pto.tpop(pipe, tile("vec", dt, R, C)).values.copy())
    pto.tfree(pipe)
    for it in range(3):
        ck.eq(lane0[it], _want(dt, R, C, it))
    for got in lane1:
        ck.eq(got, 0)
    ck.eq(pipe.occupied, 1)
    return ck.ok


def _logical_acc(dt, rows, cols, valid, start=1):
    acc = tile("acc", dt, rows, cols, valid=valid, **ACC)
    acc.bits[...] = (start + np.arange(rows * cols)).astype(acc.dtype.np).reshape(rows, cols).view(acc.dtype.lane)
    acc.push()
    return acc


def gm_slot_valid_shape(args, dir_mask: int = 1) -> bool:
    """runCubeToVectorNoSplitGmSlotUses(Dynamic)ValidShape: the Acc tile's valid region travels (through the
    GM slot, which holds what a local slot would) and subblock 0 pops it."""
    dt, R, C = _template(args)
    vr, vc = (int(args[3]), int(args[4]) if len(args) > 4 else C)
    ck = Checks()
    pipe = pto.TPipe(dir_mask, depth=2, subblocks=2, no_split=True)
    d = "c2v" if dir_mask == 3 else None
    pto.tpush(pipe, _logical_acc(dt, R, C, (vr, vc)), direction=d)
    got = pto.tpop(pipe, tile("vec", dt, vr, vc), direction=d)
    pto.tfree(pipe)
    pto.tpop(pipe, tile("vec", dt, vr, vc), direction=d, subblock=1)
    pto.tfree(pipe, subblock=1)
    r, c = np.indices((vr, vc))
    ck.eq(got.values, (r * C + c + 1).astype(got.dtype.np))
    ck.eq(pipe.occupied, 0)
    return ck.ok


def _pop_both_lanes(pipe, dt, R, C):
    """Pop and free one c2v payload on subblock 0, then on subblock 1; subblock 0's values."""
    got = pto.tpop(pipe, tile("vec", dt, R, C), direction="c2v").values.copy()
    pto.tfree(pipe)
    pto.tpop(pipe, tile("vec", dt, R, C), direction="c2v", subblock=1)
    pto.tfree(pipe, subblock=1)
    return got


def both_dir_c2v_then_v2c(args) -> bool:
    """runBothDirectionNoSplitC2VThenV2C: a c2v payload to both subblocks, a v2c push of subblock 0, a
    second c2v payload, then the cube's v2c pop (an Nz Mat tile)."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(3, depth=4, subblocks=2, no_split=True)
    r, c = np.indices((R, C))

    def push_cube(it):
        pto.tpush(pipe, fill_logical(tile("acc", dt, R, C, **ACC), lambda r, c: it * 1000 + r * C + c + 1),
                  direction="c2v")

    push_cube(0)
    first = _pop_both_lanes(pipe, dt, R, C)
    pto.tpush(pipe, fill_logical(tile("vec", dt, R, C), lambda r, c: 1000 + r * C + c + 1), direction="v2c")
    push_cube(1)
    second = _pop_both_lanes(pipe, dt, R, C)
    cube = pto.tpop(pipe, tile("mat", dt, R, C, **MAT_NZ), direction="v2c")
    pto.tfree(pipe)
    ck.eq(first, r * C + c + 1)
    ck.eq(second, 1000 + r * C + c + 1)
    ck.eq(cube.values, 1000 + r * C + c + 1)
    ck.eq(pipe.occupied, 0)
    return ck.ok


def c2v_waits_for_out_of_order_slot(args) -> bool:
    """runBothDirectionC2VProducerWaitsForOutOfOrderSlot: after a v2c round trip the cube's pushes X and Y
    land in slots 1 and 0; the subblocks read Y first (their cursors stand at slot 0), and a third push Z
    waits until slot 1 (X) is freed, however many slots are free."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(3, depth=2, subblocks=2, no_split=True)

    def push_cube(base):
        pto.tpush(pipe, fill_logical(tile("acc", dt, R, C, **ACC), lambda r, c: base + r * C + c),
                  direction="c2v")

    pto.tpush(pipe, fill_logical(tile("vec", dt, R, C), lambda r, c: 5000 + r * C + c), direction="v2c")
    pto.tpop(pipe, tile("mat", dt, R, C, **MAT_NZ), direction="v2c")
    pto.tfree(pipe)
    push_cube(1)
    push_cube(1001)
    ck.traps("pto.pipe.full", lambda: push_cube(2001))
    y = _pop_both_lanes(pipe, dt, R, C)
    ck.traps("pto.pipe.full", lambda: push_cube(2001))
    x = _pop_both_lanes(pipe, dt, R, C)
    push_cube(2001)
    z = _pop_both_lanes(pipe, dt, R, C)
    r, c = np.indices((R, C))
    for got, base in ((y, 1001), (x, 1), (z, 2001)):
        ck.eq(got, base + r * C + c)
    ck.eq(pipe.occupied, 0)
    return ck.ok


def single_subblock_dual_lane_pipe(args) -> bool:
    """runCubeToVectorNoSplitSingleSubblockOnDualLanePipe: a no_split pipe with one vector subblock frees
    each slot at its one free."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(1, depth=2, subblocks=1, no_split=True)
    for it in (0, 1):
        pto.tpush(pipe, _cube_mat(dt, R, C, it))
    for it in (0, 1):
        ck.eq(pto.tpop(pipe, tile("vec", dt, R, C)).values, _want(dt, R, C, it))
        pto.tfree(pipe)
        ck.eq(pipe.occupied, 1 - it)
    return ck.ok


# ------------------------------------------------------------------------------ tpushpop_vc(_nosplit)


def _cell(it, lane, n):
    return it * 100000 + lane * 1000 + np.arange(n) + 1


def _vc_setup(args):
    dt, R, C = _template(args)
    split = _SPLITS[args[3].split("::")[-1]]
    pr, pc = (R // 2, C) if split == UD else (R, C // 2)
    return dt, R, C, split, pr, pc


def _vc_push_both(pipe, dt, pr, pc, split, it):
    for lane in (0, 1):
        pto.tpush(pipe, fill_storage(tile("vec", dt, pr, pc), _cell(it, lane, pr * pc)), split, direction="v2c",
                  subblock=lane)


def _vc_want(dt, R, C, split, pr, pc, it):
    halves = [_cell(it, lane, pr * pc).reshape(pr, pc) for lane in (0, 1)]
    return np.concatenate(halves, axis=split - 1).astype(pto.get_dtype(dt).np)


def vc_split_single(args) -> bool:
    """runSplitSingleTile: each subblock pushes its half, the cube pops the joined tile."""
    dt, R, C, split, pr, pc = _vc_setup(args)
    ck = Checks()
    pipe = pto.TPipe(2, depth=2, subblocks=2)
    _vc_push_both(pipe, dt, pr, pc, split, 0)
    got = pto.tpop(pipe, tile("mat", dt, R, C), split)
    pto.tfree(pipe, split=split)
    ck.eq(got.values, _vc_want(dt, R, C, split, pr, pc, 0))
    return ck.ok


def vc_split_wraparound(args, dir_mask: int = 2, depth: int = 2, iterations: int = 5) -> bool:
    """runSplitWraparound(BothDir): the ring kept full, the cube popping tile k+1 before freeing tile k."""
    dt, R, C, split, pr, pc = _vc_setup(args)
    ck = Checks()
    pipe = pto.TPipe(dir_mask, depth=depth, subblocks=2)

    def pop_only():
        return pto.tpop(pipe, tile("mat", dt, R, C), split, direction="v2c").values.copy()

    for it in range(min(depth, iterations)):
        _vc_push_both(pipe, dt, pr, pc, split, it)
    got = [pop_only()]
    for it in range(iterations):
        if it + 1 < iterations:
            got.append(pop_only())
        pto.tfree(pipe, split=split)
        if it + depth < iterations:
            _vc_push_both(pipe, dt, pr, pc, split, it + depth)
    for it in range(iterations):
        ck.eq(got[it], _vc_want(dt, R, C, split, pr, pc, it))
    ck.eq(pipe.occupied, 0)
    return ck.ok


def vc_split_wraparound_both(args) -> bool:
    return vc_split_wraparound(args, dir_mask=3, depth=4, iterations=6)


def dir_both_gm_c2v_order(args) -> bool:
    """runDirBothGmFifoKeepsC2VOrderAcrossV2CPrefetch: c2v payloads keep their order across a v2c round trip
    on one four-slot ring; every pop checked against its rows."""
    ck = Checks()
    R, C, half = 16, 128, 8
    pipe = pto.TPipe(3, depth=4, subblocks=2)

    def push_c2v(base):
        pto.tpush(pipe, fill_logical(tile("acc", "f32", R, C, **ACC), lambda r, c: base + r * C + c + 1), UD,
                  direction="c2v")

    def pop_c2v(base):
        for lane in (0, 1):
            got = pto.tpop(pipe, tile("vec", "f32", half, C), UD, direction="c2v", subblock=lane)
            r, c = np.indices((half, C))
            ck.eq(got.values, base + (r + lane * half) * C + c + 1)
            pto.tfree(pipe, split=UD, subblock=lane)

    def push_pop_v2c():
        for lane in (0, 1):
            pto.tpush(pipe, fill_logical(tile("vec", "f32", half, C), lambda r, c: 7000 + lane * 1000 + r * C + c + 1),
                      UD, direction="v2c", subblock=lane)
        got = pto.tpop(pipe, tile("mat", "f32", R, C, **MAT_NZ), UD, direction="v2c")
        r, c = np.indices((R, C))
        ck.eq(got.values, 7000 + (r // half) * 1000 + (r % half) * C + c + 1)
        pto.tfree(pipe, split=UD)

    push_c2v(1000)
    push_c2v(2000)
    pop_c2v(1000)
    push_pop_v2c()
    push_c2v(3000)
    pop_c2v(2000)
    pop_c2v(3000)
    ck.eq(pipe.occupied, 0)
    return ck.ok


def vc_nosplit_single(args) -> bool:
    """runVectorToCubeNoSplitSingleTile."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(2, depth=2)
    pto.tpush(pipe, fill_storage(tile("vec", dt, R, C), seq(R * C, 1)))
    ck.eq(pto.tpop(pipe, tile("mat", dt, R, C)).values, _want(dt, R, C, 0))
    pto.tfree(pipe)
    return ck.ok


def vc_nosplit_wraparound(args) -> bool:
    """runVectorToCubeNoSplitWraparound: five tiles through two slots, each pop freed before the next push."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(2, depth=2)
    got = []

    def push(it):
        pto.tpush(pipe, fill_storage(tile("vec", dt, R, C), seq(R * C, it * 1000 + 1)))

    for it in (0, 1):
        push(it)
    for it in range(5):
        got.append(pto.tpop(pipe, tile("mat", dt, R, C)).values.copy())
        pto.tfree(pipe)
        if it + 2 < 5:
            push(it + 2)
    for it in range(5):
        ck.eq(got[it], _want(dt, R, C, it))
    return ck.ok


def vc_nosplit_inactive_lane(args) -> bool:
    """runVectorToCubeNoSplitInactiveLaneNoOp: subblock 1's unsplit push publishes nothing."""
    dt, R, C = _template(args)
    ck = Checks()
    pipe = pto.TPipe(2, depth=2, subblocks=2)
    pto.tpush(pipe, fill_storage(tile("vec", dt, R, C), seq(R * C, 7001)), subblock=1)
    ck.eq(pipe.occupied, 0)
    pto.tpush(pipe, fill_storage(tile("vec", dt, R, C), seq(R * C, 1)))
    ck.eq(pto.tpop(pipe, tile("mat", dt, R, C)).values, _want(dt, R, C, 0))
    pto.tfree(pipe)
    ck.eq(pipe.occupied, 0)
    return ck.ok


#: gtest helper function (or inline test name) -> runner(template arguments) -> every check held
SCENARIOS = {
    "v2c_gm_fifo_preserves_updown_and_leftright_layout": gm_fifo_v2c_split_layout,
    "a5_style_c2v_local_split_push_pop": c2v_local_split,
    "a5_style_c2v_dual_subblock_split_push_pop": c2v_dual_subblock_split,
    "v2c_split_with_injected_pipe_hook_waits_for_both_lanes_before_publish": v2c_split_waits_for_both,
    "a5_style_dir_both_updown_waits_for_matching_direction": dir_both_waits_for_direction(UD),
    "a5_style_dir_both_leftright_waits_for_matching_direction": dir_both_waits_for_direction(LR),
    "runCubeToVectorNoSplitInactiveLaneSkipsProtocol": inactive_lane_skips,
    "runCubeToVectorNoSplitDualLaneDelayedFree": dual_lane_delayed_free,
    "runCubeToVectorNoSplitDualLaneFastLaneWrapWaits": fast_lane_wrap_waits,
    "runCubeToVectorNoSplitGmSlotUsesValidShape": gm_slot_valid_shape,
    "runCubeToVectorNoSplitGmSlotUsesDynamicValidShape": lambda a: gm_slot_valid_shape(a, dir_mask=3),
    "runBothDirectionNoSplitC2VThenV2C": both_dir_c2v_then_v2c,
    "runBothDirectionC2VProducerWaitsForOutOfOrderSlot": c2v_waits_for_out_of_order_slot,
    "runCubeToVectorNoSplitSingleSubblockOnDualLanePipe": single_subblock_dual_lane_pipe,
    "runSplitSingleTile": vc_split_single,
    "runSplitWraparound": vc_split_wraparound,
    "runSplitWraparoundBothDir": vc_split_wraparound_both,
    "runDirBothGmFifoKeepsC2VOrderAcrossV2CPrefetch": dir_both_gm_c2v_order,
    "runVectorToCubeNoSplitSingleTile": vc_nosplit_single,
    "runVectorToCubeNoSplitWraparound": vc_nosplit_wraparound,
    "runVectorToCubeNoSplitInactiveLaneNoOp": vc_nosplit_inactive_lane,
}

#: gtests that check only the simulator's own thread hooks (no instruction's data)
HOOKS_ONLY = {"cpu_stub_prefers_injected_hooks_for_subblock_and_pipe_state":
              "checks that the simulator's injected subblock-id and shared-state hooks are called (no TPUSH/TPOP "
              "data)"}
