"""TTRANS, TINTERLEAVE and TDEINTERLEAVE (PTO125) against loops written from the ISA pages' formulas, every
dtype of each target; the shape checks and A2A3's missing (de)interleave."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import GeometryError, TilesimError
from tilesim.pto import Tile

from .helpers import TARGETS, rand_bits


def _sigs(op, t):
    return [s[0] for s in sorted(pto.get_target(t).dtypes[op])]


def _tile(dt, rows, cols, valid, rng, blayout="row_major"):
    t = Tile("vec", dt, rows, cols, valid=valid, blayout=blayout)
    t.bits[...] = rand_bits(rng, dt, t.bits.shape)
    return t


@pytest.mark.parametrize("target,dt", [(t, d) for t in TARGETS for d in _sigs("ttrans", t)])
def test_ttrans(target, dt):
    rng = np.random.default_rng(len(dt) + len(target))
    src = _tile(dt, 32, 64, (5, 37), rng)
    dst = _tile(dt, 64, 64, (37, 5), rng)
    before = dst.bits.copy()
    pto.ttrans(dst, src, target=target)
    for r in range(5):
        for c in range(37):
            assert dst.bits[c, r] == src.bits[r, c]
    before[:37, :5] = dst.bits[:37, :5]
    assert (dst.bits == before).all()  # nothing outside dst's valid region written


@pytest.mark.parametrize("dt", ["i8", "f16", "f32", "u32"])
def test_interleave_and_deinterleave(dt):
    rng = np.random.default_rng(9)
    R, C = 3, 10
    s0, s1 = (_tile(dt, 4, 64, (R, C), rng) for _ in range(2))
    d0, d1 = (_tile(dt, 4, 64, (R, C), rng) for _ in range(2))
    pto.tinterleave(d0, d1, s0, s1, target="a5")
    for i in range(R):
        stream = [v for k in range(C) for v in (s0.bits[i, k], s1.bits[i, k])]
        assert d0.bits[i, :C].tolist() == stream[:C] and d1.bits[i, :C].tolist() == stream[C:]
    e0, e1 = (_tile(dt, 4, 64, (R, C), rng) for _ in range(2))
    pto.tdeinterleave(e0, e1, d0, d1, target="cpu")  # the inverse
    assert (e0.bits[:R, :C] == s0.bits[:R, :C]).all() and (e1.bits[:R, :C] == s1.bits[:R, :C]).all()
    one = _tile(dt, 4, 64, (R, 2 * C), rng)
    pto.tdeinterleave(e0, e1, one, target="a5")
    for i in range(R):
        assert e0.bits[i, :C].tolist() == one.bits[i, 0: 2 * C: 2].tolist()
        assert e1.bits[i, :C].tolist() == one.bits[i, 1: 2 * C: 2].tolist()


def test_shape_checks_and_a2a3():
    rng = np.random.default_rng(1)
    a, b, c, d = (_tile("f32", 4, 16, (2, 5), rng) for _ in range(4))
    with pytest.raises(GeometryError, match="even"):
        pto.tinterleave(a, b, c, d, target="a5")
    with pytest.raises(TilesimError) as e:
        pto.tinterleave(a, b, c, d, target="a2a3")
    assert e.value.rule == "pto.op.target"
    with pytest.raises(GeometryError, match="transpose"):
        pto.ttrans(_tile("f32", 8, 16, (2, 5), rng), a, target="a5")
    with pytest.raises(GeometryError, match="twice"):
        pto.tdeinterleave(a, b, _tile("f32", 4, 16, (2, 5), rng), target="a5")


def test_pto_dps_form():
    text = """
module {
  func.func @k() {
    %a = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %b = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %c = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %d = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    %c7 = arith.constant 7 : i32
    %c1 = arith.constant 1 : i32
    pto.texpands ins(%c7 : i32) outs(%a : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.texpands ins(%c1 : i32) outs(%b : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tinterleave ins(%a, %b : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%c, %d : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>, !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tprint ins(%c : !pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=8, v_row=1, v_col=4, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    return
  }
}
"""
    out = io.StringIO()
    pto.run_text(text, {}, "a5", stdout=out)
    assert re.search(r"7\D+1\D+7\D+1", out.getvalue()), out.getvalue()
