"""Tile static rules, layouts and storage offsets; TASSIGN; target tables."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile, tassign


def _rule(**kw):
    with pytest.raises((GeometryError, DtypeError)) as e:
        Tile(**kw)
    return e.value.rule


@pytest.mark.parametrize("kw,rule", [
    (dict(loc="ub"), "pto.tile.loc"),
    (dict(dtype="f8"), "pto.dtype.name"),
    (dict(rows=0), "pto.tile.shape"),
    (dict(cols=-8), "pto.tile.shape"),
    (dict(rows=2.5), "pto.tile.shape"),
    (dict(rows=16, cols=8, valid=(17, 8)), "pto.tile.valid"),
    (dict(rows=16, cols=8, valid=(16, -1)), "pto.tile.valid"),
    (dict(blayout="diag"), "pto.tile.blayout"),
    (dict(slayout="zig"), "pto.tile.slayout"),
    (dict(fractal=256), "pto.tile.fractal"),
    (dict(pad="nan"), "pto.tile.pad"),
    (dict(pad=4), "pto.tile.pad"),
    (dict(dtype="f32", cols=12), "pto.tile.align"),                       # 48 bytes per row
    (dict(dtype="f16", rows=8, cols=1, blayout="col_major"), "pto.tile.align"),  # 16 bytes per column
    (dict(loc="mat", dtype="f16", rows=24, cols=16, slayout="row_major"), "pto.tile.box_rows"),
    (dict(loc="mat", dtype="f32", rows=16, cols=12, slayout="row_major"), "pto.tile.box_cols"),
    (dict(loc="acc", dtype="f32", rows=16, cols=8, fractal=1024, blayout="col_major", slayout="row_major"),
     "pto.tile.box_cols"),
])
def test_static_rules(kw, rule):
    assert _rule(**kw) == rule


def test_static_rules_allow():
    Tile("vec", "f16", 24, 16, slayout="row_major")   # vec tiles need not fill whole inner boxes of rows
    Tile("mat", "f16", 1, 16, slayout="row_major")    # nor do one-row tiles
    Tile("vec", "f32", 8, 1, blayout="col_major")     # DN with one column: 8 * 4 = 32 bytes
    Tile("vec", "u8", 1, 32)
    Tile("vec", "f32", 4, 8, valid=(0, 0))            # empty valid regions are legal statically
    assert Tile("vec", "f32", 4, 8, pad=1).pad == "zero"


@pytest.mark.parametrize("dtype,slayout,inner", [("f16", "row_major", (16, 16)), ("f32", "row_major", (16, 8)),
                                                 ("i8", "row_major", (16, 32)), ("f32", "col_major", (8, 16)),
                                                 ("f16", "none_box", (1, 1))])
def test_inner_box_512(dtype, slayout, inner):
    t = Tile("mat", dtype, 32, 32, slayout=slayout)
    assert (t.inner_rows, t.inner_cols) == inner


def test_inner_box_1024_and_mx():
    assert (lambda t: (t.inner_rows, t.inner_cols))(Tile("acc", "f32", 16, 16, blayout="col_major",
                                                         slayout="row_major", fractal=1024)) == (16, 16)
    assert (lambda t: (t.inner_rows, t.inner_cols))(Tile("mat", "u8", 16, 32, slayout="row_major", fractal=32)) == (16, 2)


# offsets derived by hand from the formulas of pto-isa include/pto/cpu/tile_offsets.hpp
def test_plain_offsets():
    nd = Tile("vec", "f32", 4, 8)
    assert nd.offsets(1, 2) == 10 and nd.layout == "ND"
    dn = Tile("vec", "f32", 8, 4, blayout="col_major")
    assert dn.offsets(1, 2) == 17 and dn.layout == "DN"


def test_boxed_offsets_f16_32x32():
    # inner boxes 16x16 (256 elements); rows = cols = 32, two boxes each way
    nz = Tile("mat", "f16", 32, 32, blayout="col_major", slayout="row_major")
    assert nz.layout == "Nz"
    assert nz.offsets(0, 16) == 32 * 16          # next box column: bc * rows * ic
    assert nz.offsets(16, 0) == 256              # next box row: br * n
    assert nz.offsets(17, 3) == 256 + 16 + 3
    zz = Tile("mat", "f16", 32, 32, blayout="row_major", slayout="row_major")
    assert zz.layout == "Zz" and zz.offsets(16, 0) == 32 * 16 and zz.offsets(0, 16) == 256
    zn = Tile("mat", "f16", 32, 32, blayout="row_major", slayout="col_major")
    assert zn.layout == "Zn" and zn.offsets(1, 0) == 1 and zn.offsets(0, 1) == 16
    nn = Tile("mat", "f16", 32, 32, blayout="col_major", slayout="col_major")
    assert nn.layout == "Nn" and nn.offsets(0, 16) == 512 and nn.offsets(3, 2) == 2 * 16 + 3


@pytest.mark.parametrize("blayout", ["row_major", "col_major"])
@pytest.mark.parametrize("slayout", ["none_box", "row_major", "col_major"])
def test_storage_round_trip_is_a_bijection(blayout, slayout):
    t = Tile("mat", "f32", 32, 16, blayout=blayout, slayout=slayout)
    off = t.offsets()
    assert sorted(off.ravel().tolist()) == list(range(t.numel))
    t.values[...] = np.arange(t.numel, dtype=np.float32).reshape(32, 16)
    lanes = t.storage()
    assert lanes[off[5, 7]] == t.bits[5, 7]
    u = Tile("mat", "f32", 32, 16, blayout=blayout, slayout=slayout).load_storage(lanes)
    assert (u.bits == t.bits).all()


def test_values_are_a_view_of_the_bits():
    t = Tile("vec", "bf16", 2, 16, valid=(2, 3))
    t.values[0, 0] = 1.0
    assert t.bits[0, 0] == 0x3F80
    t.bits[1, 2] = 0xC000
    assert t.valid_values[1, 2] == -2.0
    assert t.valid_values.shape == (2, 3)


def test_fill_rounds_once_and_checks_integers():
    t = Tile("vec", "bf16", 1, 16, valid=(1, 2))
    t.fill(np.array([[1 + 2.0 ** -8 + 2.0 ** -30, 1 + 2.0 ** -8]]))  # single rounding of the float64
    assert t.bits[0, 0] == 0x3F81 and t.bits[0, 1] == 0x3F80      # above the tie -> up; the tie -> even
    with pytest.raises(TilesimError) as e:
        Tile("vec", "i8", 1, 32).fill(np.array([[200]]))
    assert e.value.rule == "pto.value.range"
    with pytest.raises(GeometryError) as e:
        Tile("vec", "i8", 1, 32).fill(np.zeros((2, 2)))
    assert e.value.rule == "pto.tile.fill"
    with pytest.raises(GeometryError) as e:
        Tile("vec", "i8", 1, 32).load_storage(np.zeros(31, np.uint8))
    assert e.value.rule == "pto.tile.storage"


def test_from_array_and_set_valid():
    t = Tile.from_array(np.arange(6, dtype=np.int16).reshape(2, 3))
    assert (t.rows, t.cols, t.valid, t.dtype.name) == (2, 16, (2, 3), "i16")
    t.set_valid(1, 16)
    assert t.valid == (1, 16)
    with pytest.raises(GeometryError):
        t.set_valid(3, 1)


# ------------------------------------------------------------------- TASSIGN
@pytest.mark.parametrize("target,loc,cap", [("a2a3", "vec", 192 * 1024), ("a5", "vec", 256 * 1024),
                                            ("a2a3", "acc", 128 * 1024), ("a5", "acc", 256 * 1024),
                                            ("a2a3", "bias", 1024), ("a5", "scaling", 4096), ("cpu", "mat", 512 * 1024)])
def test_capacities(target, loc, cap):
    assert pto.capacity(loc, target) == cap


def _tassign_rule(tile, addr, target):
    with pytest.raises(GeometryError) as e:
        tassign(tile, addr, target=target)
    return e.value.rule


def test_tassign_rules():
    t = Tile("vec", "f32", 16, 256)  # 16 KiB
    assert tassign(t, 0x1000, target="a2a3").addr == 0x1000
    assert _tassign_rule(t, 0x1010, "a2a3") == "pto.mem.align"
    assert _tassign_rule(t, 192 * 1024 - 0x1000, "a2a3") == "pto.mem.bounds"
    tassign(t, 192 * 1024 - 0x4000, target="a2a3")  # ends exactly at the top
    tassign(t, 200 * 1024, target="a5")               # A5's UB is 256 KiB
    assert _tassign_rule(t, -32, "a5") == "pto.mem.bounds"
    assert _tassign_rule(Tile("vec", "f32", 256, 256), 0, "a2a3") == "pto.mem.size"
    prof = pto.get_target("a5").with_(capacities={"vec": 256 * 1024})
    assert _tassign_rule(Tile("bias", "f32", 1, 8), 0, prof) == "pto.mem.space"


def test_overlaps():
    a, b, c = Tile("vec", "f32", 4, 8), Tile("vec", "f32", 4, 8), Tile("mat", "f32", 4, 8)
    for t in (a, b, c):
        tassign(t, 0, target="a5")
    tassign(b, 64, target="a5")
    assert pto.overlaps([a, b, c]) == [(a, b)]


# ------------------------------------------------------------------- targets
def test_profiles_agree_with_the_spec():
    from .helpers import FACTS
    for name, f in FACTS.items():
        p = pto.get_target(name)
        assert p.nan_mode == f["nan"] and p.flush_denormals == f["ftz"]
        assert p.colarg_unsigned_as_float == f["colarg_float_view"] and p.colarg_f16_index == f["f16_index"]
    assert pto.get_target("a2a3").tmp_used and not pto.get_target("a5").tmp_used and not pto.get_target("cpu").tmp_used
    assert pto.get_target("a3") is pto.get_target("a2a3")


@pytest.mark.parametrize("op,target,sig,ok", [
    ("tcolarg", "a2a3", ("u16", "u32"), True), ("tcolarg", "a2a3", ("i16", "u32"), False),
    ("tcolarg", "a5", ("i8", "i32"), True), ("tcolarg_val", "a5", ("i8", "i16"), False),
    ("tcolarg_val", "a2a3", ("f16", "i16"), True), ("tcolarg_val", "a2a3", ("f16", "i32"), False),
    ("tcolarg_val", "cpu", ("f16", "i16"), False), ("tcolarg_val", "cpu", ("f16", "i32"), True),
    ("trowsum", "a5", ("u64", "u64"), True), ("trowsum", "a2a3", ("u64", "u64"), False),
    ("trowsum", "cpu", ("i16", "i32"), True), ("tcolmax", "cpu", ("i16", "i16"), False),
    ("tcolmax", "cpu", ("f16", "f32"), True), ("tcolsum", "cpu", ("i32", "i32"), False),
    ("trowexpanddiv", "a2a3", ("i32",), False), ("tmatmul", "a2a3", ("f32", "bf16", "bf16"), True),
    ("tmatmul", "a2a3", ("f16", "f16", "f16"), False), ("tcvt", "a2a3", ("i32", "f16"), True),
    ("tcvt", "a5", ("i32", "f16"), False),
])
def test_dtype_tables_spot_checks(op, target, sig, ok):
    assert (sig in pto.get_target(target).dtypes[op]) == ok


def test_target_errors():
    with pytest.raises(TilesimError) as e:
        pto.get_target("a9")
    assert e.value.rule == "pto.target.name"
    with pytest.raises(TilesimError) as e:
        pto.get_target("a5").with_(nan_mode="maybe")
    assert e.value.rule == "pto.target.nan_mode"
    assert pto.get_target("a5").with_(nan_mode="spec").name == "a5+nan_mode=spec"
    with pytest.raises(TilesimError) as e:
        pto.get_target("a5").with_(capacities={"l2": 1})
    assert e.value.rule == "pto.target.loc"


def test_dtype_names():
    assert pto.get_dtype("ui16") is pto.get_dtype("uint16_t") is pto.get_dtype("u16")
    assert pto.get_dtype(np.float32).name == "f32"
    with pytest.raises(DtypeError):
        pto.get_dtype("f8")


def test_kept_views_follow_placement_and_valid_region():
    """bits/valid_bits are made once per placement and valid region (PTO65), and still see the bytes."""
    from tilesim.pto.memory import Memory
    mem = Memory("a5")
    a = Tile("vec", "f32", 2, 8)
    a.fill(np.arange(16, dtype=np.float32).reshape(2, 8))
    mem.place(a, 0)                                   # now a view of UB at 0: the buffer's zeros
    assert not a.bits.any()
    b = Tile("vec", "f32", 2, 8)
    mem.place(b, 0)                                   # b aliases a
    b.values[1, 3] = 7.5
    assert a.values[1, 3] == 7.5 and a.valid_values[1, 3] == 7.5
    a.set_valid(1, 4)
    assert a.valid_bits.shape == (1, 4) and np.shares_memory(a.valid_bits, b.bits)


def test_static_checks_are_remembered_only_when_they_pass():
    """Op.static: a bad operand type raises on every call; a good one is not re-checked (PTO65)."""
    src = Tile.from_array(np.ones((2, 8), np.float32))
    bad = Tile("vec", "f16", 2, 16, valid=(2, 1))
    for _ in range(2):
        with pytest.raises(DtypeError):
            pto.trowmax(bad, src, target="a5")
    good = Tile("vec", "f32", 2, 8, valid=(2, 1))
    for _ in range(2):
        assert pto.trowmax(good, src, target="a5").valid_values.ravel().tolist() == [1.0, 1.0]
    with pytest.raises(GeometryError):                # same types, a dynamic check still runs
        pto.trowmax(good.set_valid(1, 1), src, target="a5")


def test_a_copied_or_unpickled_tile_still_views_its_bytes():
    import copy
    import pickle
    t = Tile.from_array(np.arange(16, dtype=np.float32).reshape(2, 8))
    for u in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        u.values[1, 2] = 99.0
        assert u.storage().view(np.float32)[10] == 99.0 and u.valid_values[1, 2] == 99.0
    assert t.values[1, 2] == 10.0
