"""A windowed TASSIGN on cpu (PTO176): bounded by the valid region's footprint, as pto-isa's simulator
bounds it; ops refuse a tile whose static span passes its buffer's end (``pto.mem.overhang``)."""

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import GeometryError, TilesimError
from tilesim.pto import Tile
from tilesim.pto.memory import Memory, sim_profile, tassign

ACC = {"blayout": "col_major", "slayout": "row_major", "fractal": 1024}
L0C, UB = 128 * 1024, 192 * 1024


def _strip():
    return Tile("acc", "i32", 128, 256, valid=(16, 256), **ACC)


def _nz(r, c, rows=128):
    """Element offset in a col_major/row_major (Nz) tile of 16x16 boxes, written out from the layout."""
    return (c // 16) * rows * 16 + (r // 16) * 256 + (r % 16) * 16 + c % 16


def _rule(f):
    with pytest.raises(GeometryError) as e:
        f()
    return e.value.rule


def test_the_last_strip_reaches_the_last_bytes_of_l0c():
    mem = Memory(sim_profile("a2a3"))
    strip = tassign(_strip(), 7 * 1024, memory=mem)
    assert strip.overhang == 7 * 1024 and mem.data["L0C"].size == L0C
    strip.bits[15, 255] = 0x01020304                       # the valid region's far corner
    strip.push()
    assert 7 * 1024 + 4 * (_nz(15, 255) + 1) == L0C
    assert mem.data["L0C"][-4:].view(np.int32)[0] == 0x01020304


def test_the_window_is_refused_one_step_over_and_on_the_npu():
    mem = Memory(sim_profile("a2a3"))
    assert _rule(lambda: tassign(_strip(), 7 * 1024 + 32, memory=mem)) == "pto.mem.bounds"
    assert _rule(lambda: tassign(_strip(), 1024, memory=Memory("a2a3"))) == "pto.mem.bounds"   # SA-0353
    assert tassign(Tile("vec", "u8", 2, 32, valid=(1, 32)), UB - 32, memory=mem).overhang == 32
    one_over = Tile("vec", "u8", 2, 32, valid=(2, 1))                                     # footprint 33 bytes
    assert _rule(lambda: tassign(one_over, UB - 32, memory=mem)) == "pto.mem.bounds"
    assert one_over.addr is None


def test_an_op_on_a_windowed_tile_traps_and_leaves_state_unchanged():
    mem = Memory(sim_profile("a2a3"))
    win = tassign(Tile("vec", "f32", 16, 64, valid=(8, 64)), UB - 8 * 64 * 4, memory=mem)
    other = tassign(Tile("vec", "f32", 8, 64), 0, memory=mem)
    win.values[...] = 2.0
    other.values[...] = 3.0
    before = mem.data["UB"].copy()
    for call in (lambda: pto.tadd(other, win, other, target=mem.prof),
                 lambda: pto.tadd(win, other, other, target=mem.prof),
                 lambda: pto.texp(win, other, target=mem.prof)):
        assert _rule(call) == "pto.mem.overhang"
    assert (mem.data["UB"] == before).all()
    pto.tadd(other, other, other, target=mem.prof)                                        # a placed tile runs
    assert (other.values == 6.0).all()


def test_pto_programs_place_windows_on_cpu_only():
    tb = "!pto.tile_buf<vec, 16x64xf32, valid=8x64>"
    prog = (f"%t = pto.alloc_tile : {tb}\npto.tassign %t, @tile({{addr}})\n%u = pto.alloc_tile : {tb}\n"
            f"pto.tadd ins(%t, %t : {tb}, {tb}) outs(%u : {tb})\n")

    def err(addr, target):
        with pytest.raises(TilesimError) as e:
            pto.run_text(prog.format(addr=addr), {}, target, source="w.pto")
        return e.value.rule, e.value.line

    assert err("0x3F800", "cpu") == ("pto.mem.overhang", 4)      # placed (footprint 2 KiB ends at 256 KiB)
    assert err("0x3F820", "cpu") == ("pto.mem.bounds", 2)
    assert err("0x3F800", "a5") == ("pto.mem.bounds", 2)         # the NPU bounds the whole 4 KiB
