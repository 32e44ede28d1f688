"""TQUANT (INT8 sym/asym) and TRANDOM (Philox-4x32) against scalar references and published vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, TilesimError
from tilesim.pto import Tile

from . import oracle_ops as oo
from .helpers import rand_bits, seed


@pytest.mark.parametrize("asym", [False, True])
@pytest.mark.parametrize("pdt", ["f32", "f16", "i32"])
def test_tquant(asym, pdt):
    rng = np.random.default_rng(seed("tquant", asym, pdt))
    src = Tile("vec", "f32", 5, 40, valid=(5, 37))
    src.bits[...] = rand_bits(rng, "f32", src.bits.shape, lo=-300, hi=300)
    fp = Tile("vec", pdt, 8, 32 // pto.get_dtype(pdt).size, valid=(3, 1))  # 3 valid rows: the last repeats
    fp.bits[...] = rand_bits(rng, pdt, fp.bits.shape, special=0.0, lo=-3, hi=3)
    off = None
    if asym:
        off = Tile("vec", pdt, 8, 32 // pto.get_dtype(pdt).size, valid=(5, 1))
        off.bits[...] = rand_bits(rng, pdt, off.bits.shape, special=0.0, lo=0, hi=128)
    dst = Tile("vec", "u8" if asym else "i8", 5, 64, valid=(5, 37))
    pto.tquant(dst, src, fp, off, quant_type="#pto<quant_type INT8_ASYM>" if asym else "INT8_SYM")
    for (i, j), x in np.ndenumerate(src.bits[:5, :37]):
        s = float(fp.values[min(i, 2), 0])
        z = float(off.values[i, 0]) if asym else None
        assert int(dst.bits[i, j]) == oo.tquant(int(x), s, z), (i, j)


@pytest.mark.parametrize("target", ["a2a3", "a5", "cpu"])
@pytest.mark.parametrize("sdt", ["i8", "i16"])
def test_tdequant(sdt, target):
    """Per-row parameters: column 0 on the NPUs, column min(c, P-1) on cpu (PTO38); f32 rounding per step."""
    rng = np.random.default_rng(seed("tdequant", sdt, target))
    src = Tile("vec", sdt, 6, 64, valid=(5, 37))
    src.bits[...] = rng.integers(0, 1 << (8 * pto.get_dtype(sdt).size), src.bits.shape)
    scale, offset = Tile("vec", "f32", 6, 8, valid=(5, 3)), Tile("vec", "f32", 6, 8, valid=(5, 3))
    scale.bits[...] = rand_bits(rng, "f32", scale.bits.shape, lo=-4, hi=4)
    offset.bits[...] = rand_bits(rng, "f32", offset.bits.shape, lo=-300, hi=300)
    dst = Tile("vec", "f32", 6, 40, valid=(5, 37))
    pto.tdequant(dst, src, scale, offset, target=target)
    prof = pto.get_target(target)
    x = src.bits.view(pto.get_dtype(sdt).np)
    for (i, j), got in np.ndenumerate(dst.bits[:5, :37]):
        k = min(j, 2) if target == "cpu" else 0
        want = oo.tdequant(int(x[i, j]), int(offset.bits[i, k]), int(scale.bits[i, k]), prof.flush_denormals,
                           prof.nan_mode)
        assert int(got) == want, (i, j)


def test_tdequant_checks():
    src, scale = Tile("vec", "i8", 4, 32), Tile("vec", "f32", 4, 8, valid=(4, 1))
    with pytest.raises(DtypeError):
        pto.tdequant(Tile("vec", "f16", 4, 32), src, scale, scale)
    with pytest.raises(DtypeError):
        pto.tdequant(Tile("vec", "f32", 4, 32), Tile("vec", "i32", 4, 32), scale, scale)
    with pytest.raises(TilesimError) as e:
        pto.tdequant(Tile("vec", "f32", 4, 32), src, Tile("vec", "f32", 4, 8, valid=(3, 1)), scale)
    assert e.value.rule == "pto.op.rows_match"
    with pytest.raises(TilesimError) as e:
        pto.tdequant(Tile("vec", "f32", 4, 32, valid=(4, 16)), src, scale, scale)
    assert e.value.rule == "pto.op.valid_match"


def test_tquant_checks():
    src, fp = Tile("vec", "f32", 2, 8), Tile("vec", "f32", 2, 8)
    with pytest.raises(DtypeError) as e:
        pto.tquant(Tile("vec", "u8", 2, 32), src, fp)
    assert e.value.rule == "pto.tquant.quant_type"
    with pytest.raises(TilesimError) as e:
        pto.tquant(Tile("vec", "u8", 2, 32, valid=(2, 8)), src, fp, quant_type="INT8_ASYM")
    assert e.value.rule == "pto.tquant.offset"
    with pytest.raises(TilesimError) as e:
        pto.tquant(Tile("vec", "i8", 2, 32, valid=(2, 8)), src, fp, quant_type="FP4")
    assert e.value.rule == "pto.tquant.quant_type"
    with pytest.raises(DtypeError) as e:
        pto.tquant(Tile("vec", "i8", 2, 32, valid=(2, 16)), Tile("vec", "f16", 2, 16), fp)
    assert e.value.rule == "pto.op.dtype"


def test_trandom_known_answers():
    # Random123's published Philox-4x32-10 known-answer vectors (kat_vectors): lane 0 -> columns 0, 64, 128, 192
    t = Tile("vec", "u32", 1, 256)
    for args, exp in [((0, 0, 0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
                      ((-1, -1, -1, -1, -1, -1), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
                      ((0xA4093822, 0x299F31D0, 0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
                       (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]:
        pto.trandom(t, *args)
        assert tuple(int(v) for v in t.bits[0, [0, 64, 128, 192]]) == exp


@given(rows=st.integers(1, 3), vc=st.integers(1, 520), rounds=st.sampled_from([7, 10]),
       ctr=st.integers(0, (1 << 128) - 1), key=st.tuples(st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1)),
       dt=st.sampled_from(["i32", "u32"]))
def test_trandom_layout(rows, vc, rounds, ctr, key, dt):
    cols = -(-vc // 8) * 8
    t = Tile("vec", dt, 3, cols, valid=(rows, vc))
    words = [(ctr >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
    pto.trandom(t, *key, *words, rounds=rounds)
    chunks = -(-vc // 256)
    for r in range(rows):
        for c in range(0, vc, 37):
            chunk, rest = divmod(c, 256)
            q, lane = divmod(rest, 64)
            n = (ctr + (r * chunks + chunk) * (cols // 4) + lane) % (1 << 128)
            assert int(t.bits[r, c]) == oo.philox(n, key, rounds)[q]


def test_trandom_checks():
    with pytest.raises(TilesimError) as e:
        pto.trandom(Tile("vec", "u32", 1, 8), 0, 0, 0, 0, 0, 0, rounds=8)
    assert e.value.rule == "pto.trandom.rounds"
    with pytest.raises(DtypeError):
        pto.trandom(Tile("vec", "f32", 1, 8), 0, 0, 0, 0, 0, 0)
    with pytest.raises(TilesimError) as e:
        pto.trandom(Tile("vec", "u32", 1, 8), 0, 1 << 40, 0, 0, 0, 0)
    assert e.value.rule == "pto.trandom.operand"


def test_tdequant_integer_dst_on_cpu_wraps_like_the_simulator():
    """cpu (PTO71): an integer dst computes ``(src - offset) * scale`` in C++ integers and stores the low bits
    (i16: 300 - (-200) = 500, times 200 = 100000, stored as 100000 - 2 * 65536); other targets refuse it."""
    src = Tile.from_array(np.array([[300, -7]], np.int16))
    off = Tile.from_array(np.array([[-200, -200]], np.int16))
    sc = Tile.from_array(np.array([[200, 200]], np.int16))
    dst = Tile.from_array(np.zeros((1, 2), np.int16))
    pto.tdequant(dst, src, sc, off, target="cpu")
    assert dst.valid_values.tolist() == [[100000 - 2 * 65536, (-7 + 200) * 200 - 65536]]
    with pytest.raises(DtypeError):
        pto.tdequant(dst, src, sc, off, target="a5")
