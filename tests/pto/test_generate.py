"""TCI and TTRI (tile generators) against the scalar transcriptions in :mod:`tests.pto.oracle_ops`."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, SpecGapError, TilesimError
from tilesim.pto import Tile

from . import oracle_ops as oo

_INT_RANGE = {"i16": (-(1 << 15), (1 << 15) - 1), "u16": (0, (1 << 16) - 1), "i32": (-(1 << 31), (1 << 31) - 1),
              "u32": (0, (1 << 32) - 1), "i8": (-128, 127), "u64": (0, (1 << 64) - 1)}


@given(dt=st.sampled_from(["i16", "u16", "i32", "u32"]), data=st.data(), descending=st.booleans(),
       target=st.sampled_from(["a2a3", "a5", "cpu"]))
def test_tci_integers_wrap_like_the_cpu_loop(dt, data, descending, target):
    lo, hi = _INT_RANGE[dt]
    start = data.draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, lo + 3, hi - 3])))
    cols = 64 // pto.get_dtype(dt).size
    n = data.draw(st.integers(0, cols))
    dst = Tile("vec", dt, 1, cols, valid=(1, n))
    dst.bits[...] = 0x5A
    pto.tci(dst, start, descending=descending, target=target)
    assert [int(b) for b in dst.bits[0, :n]] == oo.tci_row(start, n, descending, dt)
    assert (dst.bits[0, n:] == 0x5A).all()          # outside the valid region: untouched


@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_tci_floats_round_once_on_a2a3(dt):
    """Large starts make start + k inexact in f16/bf16: each element is the exact sum rounded once (PTO37)."""
    cols = 128 // pto.get_dtype(dt).size
    for start in (0.0, -5.5, 2040.0, 65504.0 if dt == "f16" else 3.0e8 if dt != "bf16" else 2.0 ** 20):
        for descending in (False, True):
            dst = Tile("vec", dt, 1, cols)
            pto.tci(dst, start, descending=descending, target="a2a3")
            assert [int(b) for b in dst.bits[0]] == oo.tci_row(start, cols, descending, dt), (start, descending)


def test_tci_checks():
    with pytest.raises(DtypeError):
        pto.tci(Tile("vec", "f32", 1, 16), 1.0, target="a5")        # A5: integer sequences only
    with pytest.raises(TilesimError) as e:
        pto.tci(Tile("vec", "i32", 2, 16), 0, target="a2a3")
    assert e.value.rule == "pto.tci.rows"
    with pytest.raises(TilesimError) as e:
        pto.tci(Tile("vec", "i16", 1, 16), 1 << 15, target="a2a3")
    assert e.value.rule == "pto.tci.start"
    with pytest.raises(TilesimError) as e:
        pto.tci(Tile("vec", "f16", 1, 16), 0.1, target="a2a3")
    assert e.value.rule == "pto.tci.start"
    with pytest.raises(TilesimError) as e:
        pto.tci(Tile("vec", "i32", 1, 16), 0, descending="maybe", target="a2a3")
    assert e.value.rule == "pto.tci.descending"


@given(dt=st.sampled_from(["i32", "u16", "f16", "f32"]), upper=st.booleans(), diagonal=st.integers(-40, 40),
       vr=st.integers(0, 24), vc=st.integers(0, 16), target=st.sampled_from(["a2a3", "a5", "cpu"]))
def test_ttri_matches_the_cpu_loops(dt, upper, diagonal, vr, vc, target):
    cols = max(16, 32 // pto.get_dtype(dt).size)
    dst = Tile("vec", dt, 24, cols, valid=(vr, vc))
    dst.bits[...] = 7
    pto.ttri(dst, diagonal, upper_or_lower=int(upper), target=target)
    want = [[oo.ttri_cell(r, c, diagonal, upper, dt) for c in range(vc)] for r in range(vr)]
    assert dst.bits[:vr, :vc].tolist() == want
    assert (dst.bits[vr:] == 7).all() and (dst.bits[:, vc:] == 7).all()


def test_ttri_checks():
    with pytest.raises(DtypeError):
        pto.ttri(Tile("vec", "bf16", 16, 16), 0, target="a2a3")      # A2A3's list has no bf16; A5's has
    pto.ttri(Tile("vec", "bf16", 16, 16), 0, target="a5")
    with pytest.raises(TilesimError) as e:
        pto.ttri(Tile("vec", "f32", 16, 16, blayout="col_major"), 0, target="a5")
    assert e.value.rule == "pto.op.layout"
    with pytest.raises(TilesimError) as e:
        pto.ttri(Tile("vec", "f32", 16, 16), 0, upper_or_lower=2, target="a5")
    assert e.value.rule == "pto.ttri.upper_or_lower"


_KERNEL = """
module {
  func.func @gen(%y: !pto.ptr<i32>, %d: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %s = arith.constant 100 : i32
    %yv = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<8x8xi32>
    %row = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %m = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tci ins(%s {descending = true} : i32) outs(%row : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.ttri ins(%d {upperOrLower = 1 : i32} : i32) outs(%m : !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tcolexpandmul ins(%m, %row : !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%m : !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%m : !pto.tile_buf<loc=vec, dtype=i32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<8x8xi32>) {pto.inferred_layout = true}
    return
  }
}
"""


def test_generators_from_text():
    """An upper-triangular mask (diagonal 1) times the descending row 100, 99, ... from a .pto kernel."""
    y = pto.run_text(_KERNEL, {"d": 1}, "a5")["y"]
    r, c = np.indices((8, 8))
    assert (y == np.where(c >= r + 1, 100 - c, 0)).all()


@pytest.mark.parametrize("dt", ["i32", "i64"])
def test_tci_signed_overflow_on_cpu_is_marked(dt):
    """cpu (PTO71): an i32/i64 TCI sequence that leaves the type is signed overflow, undefined in C++; tilesim
    gives x86-64's wrap (golden vectors tci.npz), marks those lanes, and a strict cpu refuses them."""
    bits = 32 if dt == "i32" else 64
    hi = (1 << (bits - 1)) - 1
    dst = Tile("vec", dt, 1, 32, valid=(1, 6))
    pto.tci(dst, hi - 2, target="cpu")
    want = [((hi - 2 + k + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for k in range(6)]
    assert dst.valid_values[0].tolist() == want
    assert dst.undefined[0, :6].tolist() == [False, False, False, True, True, True]
    pto.tci(dst, -hi - 1 + 5, descending=True, target="cpu")
    assert not dst.undefined.any()
    with pytest.raises(SpecGapError) as e:
        pto.tci(dst, hi, target=pto.get_target("cpu").with_(strict=True))
    assert (e.value.rule, e.value.operand) == ("pto.tci.overflow", "start") and "(0, 1)" in str(e.value)


_TCI_PTO = """module {
  func.func @seq(%y: !pto.ptr<i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %s = arith.constant 2147483645 : i32
    %yv = pto.make_tensor_view %y, shape = [%c1, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xi32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c8] : !pto.tensor_view<?x?xi32> -> !pto.partition_tensor_view<1x8xi32>
    %w = pto.alloc_tile : !pto.tile_buf<vec, 1x8xi32>
    pto.tci ins(%s : i32) outs(%w : !pto.tile_buf<vec, 1x8xi32>)
    pto.tstore ins(%w : !pto.tile_buf<vec, 1x8xi32>) outs(%yp : !pto.partition_tensor_view<1x8xi32>)
    return
  }
}
"""


def test_tci_overflow_in_a_pto_run_warns_and_strict_stops():
    """A .pto run on cpu: the 5 overflowing lanes wrap (x86-64), the run warns with their count and says why;
    strict stops at the statement's line naming the first element."""
    y = {"y": np.zeros((1, 8), np.int32)}
    with pytest.warns(UserWarning, match=r":10: pto.tci: 5 elements computed by a signed overflow"):
        out = pto.run_text(_TCI_PTO, y, target="cpu")
    assert out["y"][0].tolist() == [2**31 - 3, 2**31 - 2, 2**31 - 1, -2**31, -2**31 + 1, -2**31 + 2, -2**31 + 3,
                                    -2**31 + 4]
    with pytest.raises(SpecGapError, match=r"element \(0, 3\)") as e:
        pto.run_text(_TCI_PTO, y, target="cpu", strict=True)
    assert e.value.rule == "pto.tci.overflow" and e.value.line == 10
