"""The Python entry points of TPUSH, TPOP, TALLOC, TFREE, TSYNC, TGET_SCALE_ADDR and TMOV_FP (PTO152)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import GeometryError, StateError, TilesimError
from tilesim.pto import Tile

ACC = dict(blayout="col_major", slayout="row_major", fractal=1024)


def _rule(call):
    with pytest.raises(TilesimError) as e:
        call()
    return e.value.rule


def _acc(rows=16, cols=16):
    t = Tile("acc", "f32", rows, cols, **ACC)
    t.values[...] = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    return t


def test_push_pop_whole_and_split():
    pipe = pto.TPipe(1)
    acc = _acc()
    pto.tpush(pipe, acc)
    pto.tpush(pipe, acc, 1)                 # rows in halves: subblock 0 (the one tilesim runs) takes the top
    pto.tpush(pipe, acc, 2)                 # columns in halves: the left
    whole = pto.tpop(pipe, Tile("vec", "f32", 16, 16))
    top = pto.tpop(pipe, Tile("vec", "f32", 8, 16), 1)
    left = pto.tpop(pipe, Tile("vec", "f32", 16, 8), 2)
    assert (whole.values == acc.values).all()
    assert (top.values == acc.values[:8]).all() and (left.values == acc.values[:, :8]).all()
    assert _rule(lambda: pto.tpop(pipe, Tile("vec", "f32", 16, 16))) == "pto.pipe.empty"


def test_pipe_checks():
    acc = _acc()
    both = pto.TPipe(3)
    assert _rule(lambda: pto.tpush(both, acc)) == "pto.pipe.direction"
    pto.tpush(both, acc, direction="c2v")
    assert _rule(lambda: pto.tpop(both, Tile("vec", "f32", 16, 16), direction="v2c")) == "pto.pipe.empty"
    assert _rule(lambda: pto.tpop(both, Tile("vec", "f16", 16, 16), direction="c2v")) == "pto.pipe.dtype"
    c2v = pto.TPipe(1)
    pto.tpush(c2v, acc, 1)
    assert _rule(lambda: pto.tpop(c2v, Tile("vec", "f32", 8, 16), 2)) == "pto.pipe.split"
    pto.tpop(c2v, Tile("vec", "f32", 8, 16), 1)         # the trapping pop left the payload in place
    pto.tpush(c2v, acc)
    assert _rule(lambda: pto.tpop(c2v, Tile("vec", "f32", 8, 16))) == "pto.pipe.shape"
    v2c = pto.TPipe(2)
    vec = Tile("vec", "f32", 16, 16)
    assert _rule(lambda: pto.tpush(v2c, vec, 1)) == "pto.pipe.subblocks"
    assert _rule(lambda: pto.tpush(v2c, vec, 3)) == "pto.pipe.split"
    assert _rule(lambda: pto.tpush(v2c, vec, direction="c2v")) == "pto.pipe.direction"
    assert _rule(lambda: pto.tpush(v2c, Tile("left", "f16", 16, 16, blayout="row_major", slayout="row_major"))) \
        == "pto.op.loc"
    assert _rule(lambda: pto.tpush("pipe", vec)) == "pto.op.operand"
    assert _rule(lambda: pto.TPipe(4)) == "pto.pipe.dir_mask"
    assert _rule(lambda: pto.tfree(v2c, split=5)) == "pto.pipe.split"


def test_global_slots():
    """TALLOC hands out a slot, TPUSH commits it, TPOP returns it, TFREE releases it, each once."""
    pipe = pto.TPipe(2)
    slot = pto.talloc(pipe, (4, 8), "f16")
    assert slot.dtype == np.float16 and slot.shape == (4, 8) and not slot.any()
    slot[...] = 1.5
    assert _rule(lambda: pto.tpush(pipe, np.zeros((4, 8), np.float16))) == "pto.pipe.slot"
    pto.tpush(pipe, slot)
    assert _rule(lambda: pto.tpush(pipe, slot)) == "pto.pipe.slot"     # committed already
    got = pto.tpop(pipe)
    assert got is slot and (got == 1.5).all()
    with pytest.raises(StateError):
        pto.tpop(pipe)
    pto.tfree(pipe, got)
    assert _rule(lambda: pto.tfree(pipe, got)) == "pto.pipe.slot"
    assert _rule(lambda: pto.talloc(pipe, (0, 8), "f16")) == "pto.pipe.slot"
    assert _rule(lambda: pto.talloc(pipe, (4, 8), "f17")) == "pto.dtype.name"
    assert pto.tsync() is None and pto.tsync(slot, pipe) is None


def test_tget_scale_addr():
    src = pto.tassign(Tile("mat", "f8e8m0", 16, 64), 0x2000, target="a5")
    dst = pto.tget_scale_addr(Tile("scaling", "f8e8m0", 16, 64), src, target="a5")
    assert dst.addr == 0x2000 >> 4
    mem = pto.memory.Memory("a5")
    placed = mem.place(Tile("mat", "f8e8m0", 16, 64), 0x400)
    assert pto.tget_scale_addr(Tile("scaling", "f8e8m0", 16, 64), placed, memory=mem).addr == 0x40
    assert _rule(lambda: pto.tget_scale_addr(Tile("scaling", "f8e8m0", 16, 64), src, target="a2a3")) == \
        "pto.op.target"
    assert _rule(lambda: pto.tget_scale_addr(Tile("mat", "f8e8m0", 16, 64), src, target="a5")) == "pto.op.loc"
    assert _rule(lambda: pto.tget_scale_addr(Tile("scaling", "f8e8m0", 16, 32), src, target="a5")) == \
        "pto.op.valid_match"
    assert _rule(lambda: pto.tget_scale_addr(Tile("scaling", "f8e8m0", 16, 64), Tile("mat", "f8e8m0", 16, 64),
                                             target="a5")) == "pto.mem.unplaced"


def test_tmov_fp_is_tmov_with_an_fp_tile():
    rng = np.random.default_rng(3)
    src = Tile("acc", "i32", 16, 16, **ACC)
    src.bits[...] = rng.integers(-1000, 1000, (16, 16)).astype(np.int32).view(np.uint32)
    fp = Tile("scaling", "u64", 1, 16)
    fp.bits[0] = (np.uint64(1) << np.uint64(46)) | (np.uint64(120 << 10) << np.uint64(13))   # 2^-7, signed
    a = pto.tmov_fp(Tile("mat", "i8", 16, 32, valid=(16, 16), **dict(ACC, fractal=512)), src, fp,
                    relu_pre_mode=True, target="a5")
    b = pto.tmov(Tile("mat", "i8", 16, 32, valid=(16, 16), **dict(ACC, fractal=512)), src, fp,
                 relu_pre_mode=True, target="a5")
    exp = np.clip(np.rint(src.values.astype(np.float64) / 128), -128, 127).clip(0)
    assert (a.valid_values == exp).all() and (b.bits == a.bits).all()
    with pytest.raises(GeometryError):
        pto.tmov_fp(Tile("mat", "i8", 16, 32, valid=(8, 16), **dict(ACC, fractal=512)), src, fp, target="a5")
    assert _rule(lambda: pto.tmov_fp(a, src, 3, target="a5")) == "pto.op.operand"


def test_tget_scale_addr_on_cpu_aliases_src():
    """The simulator points dst's data at src's: dst reads and writes src's bytes (any tiles that fit)."""
    src = Tile("vec", "f32", 2, 8)
    src.values[...] = np.arange(16, dtype=np.float32).reshape(2, 8)
    dst = pto.tget_scale_addr(Tile("vec", "f32", 2, 8), src, target="cpu")
    assert (dst.values == src.values).all()
    src.values[0, 3] = 42.0
    assert dst.values[0, 3] == 42.0
    dst.values[1, 0] = -1.0
    assert src.values[1, 0] == -1.0
    small = pto.tget_scale_addr(Tile("vec", "i16", 1, 16), src, target="cpu")      # the first 32 bytes, as i16
    assert small.bits[0, 6:8].view(np.float32)[0] == 42.0
    assert _rule(lambda: pto.tget_scale_addr(Tile("vec", "f32", 4, 8), src, target="cpu")) == "pto.mem.bounds"


# ------------------------------------------------------------ two vector subblocks, slot counts (PTO178)


def _vec(rows, cols, start):
    t = Tile("vec", "f32", rows, cols)
    t.values[...] = start + np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    return t


@pytest.mark.parametrize("split", [1, 2])
def test_two_subblocks_take_and_give_halves(split):
    c2v = pto.TPipe(1, subblocks=2)
    acc = _acc()
    pto.tpush(c2v, acc, split)
    shape = (8, 16) if split == 1 else (16, 8)
    halves = [pto.tpop(c2v, Tile("vec", "f32", *shape), split, subblock=k).values.copy() for k in (1, 0)][::-1]
    assert (np.concatenate(halves, axis=split - 1) == acc.values).all()
    v2c = pto.TPipe(2, subblocks=2, depth=1)
    low, high = _vec(*shape, 100), _vec(*shape, 500)
    pto.tpush(v2c, high, split, subblock=1)             # the order of the two halves does not matter
    assert v2c.occupied == 0
    assert _rule(lambda: pto.tpush(v2c, high, split, subblock=1)) == "pto.pipe.subblocks"
    assert _rule(lambda: pto.tpush(v2c, _vec(4, 8, 0), split, subblock=0)) == "pto.pipe.shape"
    pto.tpush(v2c, low, split, subblock=0)
    assert v2c.occupied == 1
    got = pto.tpop(v2c, Tile("mat", "f32", 16, 16), split)
    assert (got.values == np.concatenate([low.values, high.values], axis=split - 1)).all()


def test_inactive_subblock_and_no_split():
    """Subblock 1 takes no part in an unsplit transfer: its v2c push does nothing, its c2v pop is zeros;
    on a no_split pipe it pops (zeros) and the slot waits for both frees."""
    v2c = pto.TPipe(2, subblocks=2)
    pto.tpush(v2c, _vec(16, 16, 7), subblock=1)
    assert v2c.occupied == 0
    for no_split, held in ((False, 0), (True, 1)):
        pipe = pto.TPipe(1, subblocks=2, no_split=no_split, depth=2)
        pto.tpush(pipe, _acc())
        mine = _vec(16, 16, 3)
        assert not pto.tpop(pipe, mine, subblock=1).values.any()
        pto.tfree(pipe, subblock=1)
        assert pipe.occupied == 1
        assert (pto.tpop(pipe, Tile("vec", "f32", 16, 16)).values == _acc().values).all()
        pto.tfree(pipe)
        assert pipe.occupied == 0
        assert len(pipe.ring.slots) == 0
    no_split = pto.TPipe(1, subblocks=2, no_split=True)
    pto.tpush(no_split, _acc())
    pto.tpop(no_split, Tile("vec", "f32", 16, 16))
    pto.tfree(no_split)
    assert no_split.occupied == 1                       # subblock 1 has not popped and freed it yet


def test_slot_count_checks():
    assert _rule(lambda: pto.TPipe(1, depth=0)) == "pto.pipe.depth"
    assert _rule(lambda: pto.TPipe(1, depth=2.5)) == "pto.pipe.depth"
    assert _rule(lambda: pto.TPipe(1, subblocks=3)) == "pto.pipe.subblocks"
    pipe = pto.TPipe(1, depth=1, subblocks=2)
    assert _rule(lambda: pto.tpush(pipe, _acc(), subblock=1)) == "pto.pipe.subblocks"      # the cube has one
    assert _rule(lambda: pto.tpop(pipe, Tile("vec", "f32", 16, 16), subblock=2)) == "pto.pipe.subblocks"
    assert _rule(lambda: pto.tfree(pipe)) == "pto.pipe.free"
    pto.tpush(pipe, _acc())
    with pytest.raises(StateError) as e:
        pto.tpush(pipe, _acc(32))
    assert e.value.rule == "pto.pipe.full" and pipe.occupied == 1
    assert (pto.tpop(pipe, Tile("vec", "f32", 16, 16)).values == _acc().values).all()
    pto.tfree(pipe)
    pto.tpush(pipe, _acc(32))                            # the freed slot takes the next push
    assert pipe.occupied == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["push", "pop", "free"]), max_size=30), st.integers(1, 4))
@example(["push", "push", "free", "push", "pop"], 2)  # a random seed's find: the refilled slot 0 is not read first
def test_ring_is_a_bounded_fifo(steps, depth):
    """One subblock, one direction: pops return pushes in order, a push traps exactly when ``depth`` slots
    are pushed and not freed, a pop exactly when every pushed payload is popped (a deque as the oracle); a free
    before the first pop discards the first pushed tile, once (PTO197)."""
    pipe, pushed, popped, n, consumed = pto.TPipe(1, depth=depth), [], [], 0, False
    for step in steps:
        if step == "push":
            t = _acc()
            t.values[0, 0] = n
            if len(pushed) + len(popped) == depth:
                assert _rule(lambda: pto.tpush(pipe, t)) == "pto.pipe.full"
                continue
            pto.tpush(pipe, t)
            pushed.append(n)
            n += 1
        elif step == "pop":
            if not pushed:
                assert _rule(lambda: pto.tpop(pipe, Tile("vec", "f32", 16, 16))) == "pto.pipe.empty"
                continue
            assert pto.tpop(pipe, Tile("vec", "f32", 16, 16)).values[0, 0] == pushed[0]
            popped.append(pushed.pop(0))
            consumed = True
        elif popped:
            pto.tfree(pipe)
            popped.pop(0)
        elif pushed and not consumed:
            pto.tfree(pipe)
            pushed.pop(0)
            consumed = True
        else:
            assert _rule(lambda: pto.tfree(pipe)) == "pto.pipe.free"
        assert pipe.occupied == len(pushed) + len(popped)


# ---------------------------------------------------------------- quantising pushes (PTO179)


def _acc_of(dt, values):
    t = Tile("acc", dt, 16, 16, **ACC)
    t.values[...] = values
    return t


def _pushed(acc, quant, cfg):
    pipe = pto.TPipe(1)
    pto.tpush(pipe, acc, quant=quant, config=cfg, target="cpu")
    return pto.tpop(pipe, Tile("vec", "bf16" if quant == "F322BF16" else "f16", 16, 16)).values


def test_quantising_push_scalar_modes():
    """F322F16 scales by the quant scalar (1.0 when unset) and casts with no clamp; DEQF16 clamps to +-65504
    first. The oracle is numpy's own float16 cast of the scaled values."""
    from tilesim.pto.conv import BlockConfig
    v = np.linspace(-70000, 70000, 256, dtype=np.float32).reshape(16, 16)
    cfg = BlockConfig()
    got = _pushed(_acc_of("f32", v), "F322F16", cfg)
    with np.errstate(over="ignore"):
        assert np.array_equal(got, v.astype(np.float16), equal_nan=True) and np.isinf(got).any()
    pto.set_quant_scalar(2.0, out_dtype="f16", config=cfg, target="cpu")
    ints = np.arange(-128, 128, dtype=np.int32).reshape(16, 16) * 300
    got = _pushed(_acc_of("i32", ints), "DEQF16", cfg)
    assert np.array_equal(got, np.clip(ints * np.float32(2), -65504, 65504).astype(np.float16))
    got = _pushed(_acc_of("f32", v), "F322BF16", BlockConfig())
    assert np.array_equal(np.asarray(got, np.float32), v.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_quantising_push_vector_mode_and_checks():
    from tilesim.pto.conv import BlockConfig
    cfg = BlockConfig()
    scales = np.arange(1, 17, dtype=np.float32) / 4
    fp = Tile("scaling", "u64", 1, 16)
    fp.bits[0] = scales.view(np.uint32).astype(np.uint64)     # the gen_data words: the f32 bits, zero-extended
    ints = np.arange(256, dtype=np.int32).reshape(16, 16) - 128
    acc = _acc_of("i32", ints)
    assert _rule(lambda: _pushed(acc, "VDEQF16", cfg)) == "pto.pipe.quant"      # no SET_QUANT_VECTOR yet
    pto.set_quant_vector(fp, config=cfg, target="cpu")
    # the 19-bit scale of each word (bits 13..31): sign, 8-bit exponent, 10-bit mantissa, as gen_data.py decodes
    m1 = (scales.view(np.uint32) >> 13) & 0x7FFFF
    decoded = (1 + (m1 & 0x3FF) / 1024) * 2.0 ** (((m1 >> 10) & 0xFF).astype(int) - 127)
    assert np.array_equal(_pushed(acc, "VDEQF16", cfg), (ints * decoded).astype(np.float16))
    pipe = pto.TPipe(3)
    assert _rule(lambda: pto.tpush(pipe, acc, quant="NOPE", direction="c2v")) == "pto.pipe.quant"
    assert _rule(lambda: pto.tpush(pipe, acc, 1, quant="DEQF16", direction="c2v")) == "pto.pipe.quant"
    assert _rule(lambda: pto.tpush(pipe, acc, quant="DEQF16", direction="v2c")) == "pto.pipe.quant"
    assert _rule(lambda: pto.tpush(pipe, acc, quant="F322F16", direction="c2v")) == "pto.op.dtype"
    assert _rule(lambda: pto.tpush(pipe, Tile("vec", "i32", 16, 16), quant="DEQF16", direction="c2v")) \
        == "pto.op.loc"
    assert pipe.occupied == 0


def test_shapes_the_simulator_would_read_misaligned():
    """The simulator moves split halves of the whole tile, v2c rows at the producer's static width, and reads a
    slot at the consumer's static width: tilesim refuses what those would read differently (PTO178)."""
    acc = Tile("acc", "f32", 32, 16, valid=(16, 16), **ACC)
    assert _rule(lambda: pto.tpush(pto.TPipe(1), acc, 1)) == "pto.pipe.shape"
    narrow = Tile("vec", "f32", 16, 16, valid=(16, 8))
    assert _rule(lambda: pto.tpush(pto.TPipe(2), narrow)) == "pto.pipe.shape"
    pipe = pto.TPipe(1)
    pto.tpush(pipe, _acc())
    wide = Tile("vec", "f32", 16, 32, valid=(16, 16))
    assert _rule(lambda: pto.tpop(pipe, wide)) == "pto.pipe.shape"
    assert pipe.occupied == 1


def test_tfree_before_any_pop_discards_the_first_pushed_tile():
    """pto-isa's TfreeDiscardsQueuedTileInCpuSimPipe (PTO197): push, free, push, pop gives the second tile; the
    simulator frees its consumer's slot 0 (built at 3186c381 with -O0 and asserts on: the test passes)."""
    pipe = pto.TPipe(1, depth=4)
    first, second = _acc(), _acc()
    first.values[...] = 1.0
    second.values[...] = 101.0
    pto.tpush(pipe, first)
    pto.tfree(pipe)
    assert pipe.occupied == 0
    pto.tpush(pipe, second)
    assert (pto.tpop(pipe, Tile("vec", "f32", 16, 16)).values == 101.0).all()
    pto.tfree(pipe)
    assert _rule(lambda: pto.tfree(pipe)) == "pto.pipe.free"     # a second free: the simulator's double free
