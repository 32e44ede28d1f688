"""MGATHER and MSCATTER (decision PTO134) against scalar transcriptions of the CPU simulator's loops
(include/pto/cpu/MGather.hpp, MScatter.hpp): size_t indexes, the out-of-bounds remaps, the visiting order."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.errors import TilesimError
from tilesim.pto import Tile, mgather, mscatter


def _size_t(v: int) -> int:
    return v % 2 ** 64


def _remap(k: int, cap: int, oob: str):
    """The index the simulator uses, or None where it reads 0 (zero) or skips the write (skip)."""
    k = _size_t(k)
    if oob == "clamp":
        return min(k, cap - 1)
    if oob == "wrap":
        return k % cap
    return None if k >= cap else k


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from(["clamp", "wrap", "zero"]), st.sampled_from(["elem", "row"]))
def test_cpu_mgather_matches_the_loop(seed, oob, coalesce):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((6, 16)).astype(np.float32)
    dst = Tile("vec", "f32", 4, 16, valid=(3, 13))
    dst.bits[...] = 7
    idx = Tile("vec", "i32", 4, 16) if coalesce == "elem" else Tile("vec", "i32", 1, 8, valid=(1, 3))
    cap = table.size if coalesce == "elem" else table.shape[0]
    idx.bits[...] = rng.integers(-3, cap + 9, idx.bits.shape).astype(np.int32).view(np.uint32)
    want = dst.bits.copy()
    flat = table.reshape(-1).view(np.uint32)
    for i in range(3):
        for j in range(13):
            raw = int(idx.bits[i, j].view(np.int32)) if coalesce == "elem" else int(idx.bits[0, i].view(np.int32))
            k = _remap(raw, cap, oob)
            want[i, j] = 0 if k is None else flat[k if coalesce == "elem" else k * 16 + j]
    mgather(dst, table, idx, coalesce=coalesce, oob=oob, target="cpu")
    assert np.array_equal(dst.bits, want)


def _scatter_loop(table, src, idx, coalesce, atomic, oob, R, C):
    """MScatter.hpp's loop on Python numbers (ints here, so the sums are exact and wrap at 32 bits)."""
    flat = table.reshape(-1)
    cap = flat.size if coalesce == "elem" else table.shape[0]
    for i in range(R):
        raw = [int(idx[i, j]) for j in range(C)] if coalesce == "elem" else [int(idx.reshape(-1)[i])] * C
        for j in range(C):
            k = _remap(raw[j], cap, "skip" if oob == "skip" else oob)
            if k is None:
                continue
            e = k if coalesce == "elem" else k * table.shape[1] + j
            ref = flat[e] if coalesce == "elem" or atomic in ("none", "add") else flat[k]   # Row max/min: base[idx]
            v = int(src[i, j])
            flat[e] = {"none": v, "add": (int(flat[e]) + v + 2 ** 31) % 2 ** 32 - 2 ** 31,
                       "max": max(int(ref), v) if int(ref) < v else int(ref),
                       "min": v if v < int(ref) else int(ref)}[atomic]
    return table


@pytest.mark.parametrize("coalesce", ["elem", "row"])
@pytest.mark.parametrize("atomic", ["none", "add", "max", "min"])
@pytest.mark.parametrize("oob", ["skip", "clamp", "wrap"])
def test_cpu_mscatter_matches_the_loop(coalesce, atomic, oob):
    rng = np.random.default_rng(zlib.crc32(f"{coalesce}{atomic}{oob}".encode()))
    table = rng.integers(-50, 50, (5, 8)).astype(np.int32)
    src = Tile("vec", "i32", 4, 16, valid=(3, 6))
    src.bits[...] = rng.integers(-2 ** 31, 2 ** 31, src.bits.shape).astype(np.int64).astype(np.int32).view(np.uint32)
    cap = table.size if coalesce == "elem" else table.shape[0]
    if coalesce == "elem":
        idx = Tile("vec", "i32", 4, 16, valid=(3, 6))
        idx.bits[...] = rng.integers(-2, cap + 3, idx.bits.shape).astype(np.int32).view(np.uint32)
        ii = idx.bits.view(np.int32)
    else:
        idx = Tile("vec", "i32", 1, 8, valid=(1, 3))
        idx.bits[0, :3] = np.array([0, cap + 1, 0] if oob != "skip" else [1, 9, 1], np.int32).view(np.uint32)
        ii = idx.bits.view(np.int32)
    want = _scatter_loop(table.copy(), src.bits.view(np.int32), ii, coalesce, atomic, oob, 3, 6)
    got = mscatter(table.copy(), src, idx, coalesce=coalesce, atomic=atomic, oob=oob, target="cpu")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("coalesce", ["elem", "row"])
def test_a2a3_conflict_default_is_its_loops_last_writer(coalesce):
    """A2A3's MSCATTER takes no ScatterConflict (its page): the kernel's row-major loop keeps the last writer,
    so conflict="default" is accepted there and gives what "last" gives (PTO109)."""
    rng = np.random.default_rng(7 if coalesce == "elem" else 8)
    table = rng.integers(-50, 50, (5, 8)).astype(np.int32)
    src = Tile("vec", "i32", 4, 8, valid=(3, 6))
    src.bits[...] = rng.integers(-99, 99, src.bits.shape).astype(np.int32).view(np.uint32)
    if coalesce == "elem":
        idx = Tile("vec", "i32", 4, 8, valid=(3, 6))
        idx.bits[...] = rng.integers(0, 6, idx.bits.shape).astype(np.int32).view(np.uint32)   # many collisions
    else:
        idx = Tile("vec", "i32", 1, 8, valid=(1, 3))
        idx.bits[0, :3] = np.array([4, 1, 4], np.int32).view(np.uint32)
    want = _scatter_loop(table.copy(), src.bits.view(np.int32), idx.bits.view(np.int32), coalesce, "none", "skip",
                         3, 6)
    got = mscatter(table.copy(), src, idx, coalesce=coalesce, conflict="default", target="a2a3")
    assert np.array_equal(got, want)
    with pytest.raises(TilesimError) as e:                           # A5's SIMT lanes race
        mscatter(table.copy(), src, idx, coalesce=coalesce, conflict="default", target="a5")
    assert e.value.rule == "pto.mscatter.conflict"


def test_float_atomic_add_rounds_each_sum_in_order():
    src, idx = Tile("vec", "f32", 1, 8, valid=(1, 3)), Tile("vec", "i32", 1, 8, valid=(1, 3))
    src.values[0, :3] = (2.0 ** 24, 1.0, 1.0)
    idx.values[0, :3] = (0, 0, 0)
    out = mscatter(np.zeros(4, np.float32), src, idx, atomic="add", target="cpu")
    assert out[0] == 2.0 ** 24                     # (2^24 + 1) + 1, each sum rounded to even, not 2^24 + 2


def test_gm2l1_form_on_cpu():
    table = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    dst = Tile("mat", "f32", 16, 16, blayout="col_major", slayout="row_major")
    idx = np.arange(15, -1, -1, dtype=np.int32).reshape(1, 16)
    mgather(dst, table, idx, coalesce="row", target="cpu")
    assert np.array_equal(dst.values, table[15::-1])


def test_refusals():
    table = np.zeros((4, 8), np.float32)
    t = Tile("vec", "f32", 1, 8, valid=(1, 4))
    idx = Tile("vec", "i32", 1, 8, valid=(1, 4))
    idx.values[0, :4] = (0, 1, 40, 2)
    before = t.bits.copy()
    for target in ("cpu", "a5"):
        with pytest.raises(TilesimError) as e:                       # undefined: out-of-bounds memory
            mgather(t, table, idx, target=target)
        assert e.value.rule == "pto.mgather.index" and np.array_equal(t.bits, before)
        with pytest.raises(TilesimError) as e:
            mscatter(table, t, idx, target=target)
        assert e.value.rule == "pto.mscatter.index" and not table.any()
    with pytest.raises(TilesimError):                                # A2A3 has no atomic max/min
        mscatter(table, t, idx, atomic="max", oob="skip", target="a2a3")
    with pytest.raises(TilesimError):                                # the page's Row index shape
        mgather(Tile("vec", "f32", 4, 8), table, Tile("vec", "i32", 1, 8, valid=(1, 3)), coalesce="row",
                target="a5")
    with pytest.raises(TilesimError):
        mgather(t, np.zeros(8, np.float16), idx, oob="wrap", target="cpu")   # element sizes differ
    with pytest.raises(TilesimError):
        mgather(t, table, idx, oob="bogus", target="cpu")
    dup = Tile("vec", "i32", 1, 8, valid=(1, 4))
    dup.values[0, :4] = (1, 1, 2, 3)
    with pytest.raises(TilesimError) as e:                           # A5: Conflict::Default's winner is unknown
        mscatter(table, t, dup, conflict="default", target="a5")
    assert e.value.rule == "pto.mscatter.conflict"


def test_pto_dps_forms_take_partition_views():
    from tilesim import pto
    t = ("!pto.tile_buf<loc=vec, dtype={}, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
    T, I = t.format("f32"), t.format("i32")  # noqa: E741
    view = "!pto.partition_tensor_view<4x8xf32>"
    text = f"""module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %three = arith.constant 3 : i32
    %xv = pto.make_tensor_view %x, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> {view}
    %yv = pto.make_tensor_view %y, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c4, %c8] : !pto.tensor_view<?x?xf32> -> {view}
    %i = pto.alloc_tile : {I}
    %d = pto.alloc_tile : {T}
    pto.texpands ins(%three : i32) outs(%i : {I})
    pto.mgather ins(%xp, %i : {view}, {I}) outs(%d : {T})
    pto.mscatter ins(%d, %i : {T}, {I}) outs(%yp : {view})
    return
  }}
}}
"""
    x = np.arange(32, dtype=np.float32).reshape(4, 8) + 10
    for target in ("cpu", "a2a3", "a5"):
        y = pto.run_text(text, {"x": x}, target)["y"]
        assert y.reshape(-1).tolist() == [0, 0, 0, 13] + [0] * 28
