"""TCONCAT, TPACK, TFILLPAD (+ _INPLACE/_EXPAND), TPREFETCH and TPRINT against the scalar references."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile

from . import oracle_ops as oo
from .helpers import rand_bits, seed, sentinel

DTS = ["f32", "f16", "bf16", "i8", "i16", "i32", "u8", "u16", "u32"]


def _tile(dt, rows, cols, vr, vc, rng, pad="null"):
    t = Tile("vec", dt, rows, cols, valid=(vr, vc), pad=pad)
    t.bits[...] = rand_bits(rng, dt, t.bits.shape)
    return t


@given(dt=st.sampled_from(DTS), vr=st.integers(1, 5), c0=st.integers(1, 40), c1=st.integers(1, 40))
def test_tconcat(dt, vr, c0, c1):
    rng = np.random.default_rng(seed("cat", dt, vr, c0, c1))
    per = 32 // pto.get_dtype(dt).size
    up = lambda n: -(-n // per) * per  # noqa: E731
    a, b = _tile(dt, 5, up(c0), vr, c0, rng), _tile(dt, 5, up(c1), vr, c1, rng)
    d = Tile("vec", dt, 6, up(c0 + c1), valid=(vr, c0 + c1))
    keep = sentinel(d)
    pto.tconcat(d, a, b)
    for r in range(6):
        exp = [int(x) for x in a.bits[r, :c0]] + [int(x) for x in b.bits[r, :c1]] if r < vr else None
        got = [int(x) for x in d.bits[r, : c0 + c1]]
        assert got == (exp if r < vr else [int(x) for x in keep[r, : c0 + c1]])
    assert (d.bits[:, c0 + c1:] == keep[:, c0 + c1:]).all()


def test_tconcat_checks():
    a = Tile("vec", "f32", 2, 8)
    with pytest.raises(GeometryError) as e:
        pto.tconcat(Tile("vec", "f32", 2, 24), a, a)
    assert e.value.rule == "pto.tconcat.cols"
    with pytest.raises(DtypeError) as e:
        pto.tconcat(Tile("vec", "f32", 2, 16), a, Tile("vec", "i32", 2, 8))
    assert e.value.rule == "pto.op.same_dtype"
    with pytest.raises(GeometryError) as e:
        pto.tconcat(Tile("vec", "f32", 2, 16), a, Tile("vec", "f32", 1, 8))
    assert e.value.rule == "pto.op.rows_match"


@given(dt=st.sampled_from(DTS), it=st.sampled_from(["i32", "u16", "i8"]), vr=st.integers(1, 4),
       data=st.data())
def test_tconcat_indexed_takes_each_rows_byte_counts(dt, it, vr, data):
    """PTO162: row r takes src0_idx[r, 0] / sizeof(index) columns of src0, then src1_idx[r, 0] / sizeof(index)
    of src1 (past their valid columns too); dst_idx[r, 0] gets the two byte counts' sum; other lanes stay."""
    rng = np.random.default_rng(seed("cat-idx", dt, it, vr))
    per = 32 // pto.get_dtype(dt).size
    a, b = _tile(dt, 4, 2 * per, vr, 3, rng), _tile(dt, 4, per, vr, 5, rng)
    d = Tile("vec", dt, 4, 3 * per, valid=(vr, 8))
    size = pto.get_dtype(it).size
    b0 = data.draw(st.lists(st.integers(0, 2 * per * size), min_size=vr, max_size=vr))
    b1 = data.draw(st.lists(st.integers(0, per * size), min_size=vr, max_size=vr))
    i0, i1, di = (Tile("vec", it, 4, 32 // size, valid=(vr, 1)) for _ in range(3))
    i0.bits[:vr, 0], i1.bits[:vr, 0] = b0, b1
    keep, keep_i = sentinel(d), sentinel(di)
    pto.tconcat(d, a, b, i0, i1, dst_idx=di, target="cpu")
    for r in range(4):
        n0, n1 = (b0[r] // size, b1[r] // size) if r < vr else (0, 0)
        exp = [int(x) for x in a.bits[r, :n0]] + [int(x) for x in b.bits[r, :n1]] + \
            [int(x) for x in keep[r, n0 + n1:]]
        assert [int(x) for x in d.bits[r]] == exp
        assert int(di.bits[r, 0]) == (b0[r] + b1[r] if r < vr else int(keep_i[r, 0]))
    assert (di.bits[:, 1:] == keep_i[:, 1:]).all()


def test_tconcat_indexed_checks():
    a, d = Tile("vec", "f32", 2, 8, valid=(2, 4)), Tile("vec", "f32", 2, 16, valid=(2, 8))
    i32, i16 = Tile("vec", "i32", 2, 8, valid=(2, 1)), Tile("vec", "i16", 2, 16, valid=(2, 1))
    with pytest.raises(TilesimError) as e:
        pto.tconcat(d, a, a, i32)
    assert e.value.rule == "pto.op.operand"
    with pytest.raises(DtypeError) as e:
        pto.tconcat(d, a, a, i32, i16)
    assert e.value.rule == "pto.op.same_dtype"
    f = Tile("vec", "f32", 2, 8, valid=(2, 1))
    with pytest.raises(DtypeError) as e:
        pto.tconcat(d, a, a, f, f)
    assert e.value.rule == "pto.op.dtype"
    i32.bits[1, 0] = 9 * 4                                  # 9 columns: src0 holds 8
    with pytest.raises(TilesimError) as e:
        pto.tconcat(d, a, a, i32, Tile("vec", "i32", 2, 8, valid=(2, 1)))
    assert e.value.rule == "pto.tconcat.cols" and "row 1" in str(e.value)
    i32.values[1, 0] = -4                                   # a negative count wraps, as C++'s unsigned
    with pytest.raises(TilesimError) as e:
        pto.tconcat(d, a, a, i32, Tile("vec", "i32", 2, 8, valid=(2, 1)))
    assert e.value.rule == "pto.tconcat.cols"


@pytest.mark.parametrize("s,d", [("i32", "i16"), ("u32", "u8"), ("f32", "u16"), ("i16", "i8")])
def test_tpack_keeps_low_bytes(s, d):
    rng = np.random.default_rng(seed("pack", s, d))
    src = _tile(s, 4, 64, 3, 40, rng)
    dst = Tile("vec", d, 4, 64, valid=(3, 40))
    keep = sentinel(dst)
    pto.tpack(dst, src, target="a5")
    nb = 8 * pto.get_dtype(d).size
    for (i, j), b in np.ndenumerate(src.bits[:3, :40]):
        assert int(dst.bits[i, j]) == int(b) % (1 << nb)
    assert (dst.bits[3:] == keep[3:]).all()
    with pytest.raises(DtypeError) as e:
        pto.tpack(Tile("vec", s, 4, 64, valid=(3, 40)), src)
    assert e.value.rule == "pto.tpack.sizes"


@pytest.mark.parametrize("dt", DTS + ["f8e4m3", "f8e5m2", "f8e8m0"])
@pytest.mark.parametrize("pad", ["zero", "max", "min"])
@pytest.mark.parametrize("name", ["tfillpad", "tfillpad_inplace", "tfillpad_expand"])
def test_tfillpad(dt, pad, name):
    rng = np.random.default_rng(seed("pad", dt, pad, name))
    per = 32 // pto.get_dtype(dt).size
    src = _tile(dt, 6, 2 * per, 4, per + 3, rng, pad=pad)
    src_bits = src.bits.copy()
    if name == "tfillpad_inplace":
        dst = src  # one tile is its own source and destination
    else:
        big = name == "tfillpad_expand"
        dst = Tile("vec", dt, 8 if big else 6, (3 if big else 2) * per, valid=(2, per), pad=pad)
    getattr(pto, name)(dst, src)
    code = oo.pad_code(dt, pad)
    for (i, j), b in np.ndenumerate(dst.bits):
        inside = i < 4 and j < per + 3
        assert int(b) == (int(src_bits[i, j]) if inside else code), (i, j)


def test_tfillpad_checks():
    src = Tile("vec", "f32", 4, 8)
    with pytest.raises(GeometryError) as e:
        pto.tfillpad(Tile("vec", "f32", 4, 8), src)
    assert e.value.rule == "pto.tfillpad.pad"
    with pytest.raises(GeometryError) as e:
        pto.tfillpad(Tile("vec", "f32", 4, 16, pad="max"), src)
    assert e.value.rule == "pto.tfillpad.shape"
    with pytest.raises(GeometryError) as e:
        pto.tfillpad_expand(Tile("vec", "f32", 2, 16, pad="max"), src)
    assert e.value.rule == "pto.tfillpad_expand.shape"
    with pytest.raises(DtypeError) as e:
        pto.tfillpad(Tile("vec", "i32", 4, 8, pad="max"), src)
    assert e.value.rule == "pto.op.same_dtype"
    d = Tile("vec", "f32", 4, 8, valid=(0, 8), pad="max")
    keep = sentinel(d)
    pto.tfillpad(d, src)  # an empty destination is left alone
    assert (d.bits == keep).all()


def test_tprefetch_checks_and_writes_nothing():
    t = Tile("vec", "f16", 16, 16)
    keep = sentinel(t)
    assert pto.tprefetch(t, np.ones((16, 16), np.float16)) is t
    assert (t.bits == keep).all()
    with pytest.raises(DtypeError) as e:
        pto.tprefetch(t, np.ones((16, 16), np.float32))
    assert e.value.rule == "pto.mem.elem_size"
    with pytest.raises(TilesimError) as e:
        pto.tprefetch(t, Tile("vec", "f16", 16, 16))
    assert e.value.rule == "pto.op.operand"


@pytest.mark.parametrize("blayout", ["row_major", "col_major"])
def test_cpu_tprefetch_copies_from_a_tile(blayout):
    """PTO163: on cpu a tile src is read as the simulator reads src.data(): element (r, c) of dst from flat
    position r * dst.cols + c of src's storage (row-major storage: the same element; col-major: its storage
    order); lanes past dst's valid region stay; a2a3 and a5 take global memory only."""
    rng = np.random.default_rng(seed("prefetch-tile", blayout))
    src = Tile("vec", "i16", 16, 16, blayout=blayout)
    src.bits[...] = rand_bits(rng, "i16", (16, 16))
    dst = Tile("vec", "i16", 16, 16, valid=(13, 9))
    keep = sentinel(dst)
    pto.tprefetch(dst, src, target="cpu")
    flat = (src.bits if blayout == "row_major" else src.bits.T).ravel()
    assert (dst.bits[:13, :9] == flat[np.arange(13)[:, None] * 16 + np.arange(9)]).all()
    assert (dst.bits[13:] == keep[13:]).all() and (dst.bits[:, 9:] == keep[:, 9:]).all()
    with pytest.raises(DtypeError) as e:
        pto.tprefetch(dst, Tile("vec", "f32", 16, 16), target="cpu")
    assert e.value.rule == "pto.mem.elem_size"
    with pytest.raises(TilesimError) as e:
        pto.tprefetch(dst, src, target="a2a3")
    assert e.value.rule == "pto.op.operand"


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "i8", "u8", "i32", "u32", "i16"])
def test_tprint_format(dt):
    rng = np.random.default_rng(seed("print", dt))
    t = _tile(dt, 3, 32, 2, 5, rng)
    buf = io.StringIO()
    text = pto.tprint(t, out=buf)
    assert buf.getvalue() == text
    lines = text.splitlines()
    assert lines[0] == "TPRINT 2x5"
    for r in range(2):
        assert lines[1 + r] == " ".join(oo.print_cell(int(b), dt) for b in t.bits[r, :5])
    assert len(lines) == 3


def test_tprint_example(capsys):
    t = Tile.from_array(np.array([[1.5, -2.0, 0.00005, 123456.78125]], np.float32))
    pto.tprint(t)
    assert capsys.readouterr().out == "TPRINT 1x4\n  1.5000  -2.0000   0.0000 123456.7812\n"
    assert pto.tprint(t, fmt="Width10_Precision6", out=io.StringIO()).splitlines()[1].startswith("  1.500000")
    with pytest.raises(GeometryError) as e:
        pto.tprint(t, fmt="huge")
    assert e.value.rule == "pto.tprint.format"


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16", "i8", "u16"])
def test_tfillpad_custom_pad_is_the_words_low_bytes(dt, target):
    """``custom:0xWORD`` (pto-isa's PadValueCustom) pads with the word's first little-endian bytes."""
    import struct
    size = pto.get_dtype(dt).size
    per = 32 // size
    for word in (0xBF80, 0x3FC00000, 0xDEADBEEF):
        want = int.from_bytes(struct.pack("<I", word)[:size], "little")
        src = Tile("vec", dt, 4, per, valid=(3, 1))
        dst = Tile("vec", dt, 4, per, pad=f"custom:{word:#x}")
        pto.tfillpad(dst, src, target=target)
        assert dst.pad == f"custom:0x{word:08x}"
        assert int(dst.bits[3, 0]) == want and int(dst.bits[0, 1]) == want


def test_custom_pad_checks_and_cpu_tload():
    for bad in ("custom", "custom:", "custom:0x100000000", "custom:-1", "custom:zz"):
        with pytest.raises(GeometryError) as e:
            Tile("vec", "bf16", 16, 16, pad=bad)
        assert e.value.rule == "pto.tile.pad"
    # the CPU simulator's TLOAD knows no custom pad: the tile is filled with 0 first (TLoad.hpp's getPadValue)
    dst = Tile("vec", "bf16", 16, 16, valid=(2, 3), pad="custom:0xbf80")
    pto.tload(dst, np.ones((2, 3), np.uint16), target="cpu")
    assert not dst.bits[2:].any() and (dst.bits[:2, :3] == 1).all()
