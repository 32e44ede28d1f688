"""TRESHAPE: a view of src's bytes under another shape and dtype, with the ISA page's and cpu's checks (PTO129)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile

from .helpers import TARGETS, rand_bits, seed


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pair", [("i32", 8, 16, "i16", 4, 64), ("f32", 16, 16, "f32", 8, 32),
                                  ("u8", 8, 64, "i64", 4, 16), ("bf16", 16, 16, "f16", 4, 64)])
def test_treshape_aliases(target, pair):
    """dst reads src's bytes in storage order, and a write through either shows in the other."""
    sdt, sr, sc, ddt, dr, dc = pair
    rng = np.random.default_rng(seed("treshape", target, pair))
    src = Tile("vec", sdt, sr, sc)
    src.bits[...] = rand_bits(rng, sdt, src.bits.shape)
    want = src.bits.tobytes()
    dst = pto.treshape(Tile("vec", ddt, dr, dc, valid=(1, 1)), src, target=target)
    assert dst.bits.tobytes() == want and dst.valid == (1, 1)
    dst.bits[0, 0] = 0
    assert src.bits.tobytes()[: dst.dtype.size] == bytes(dst.dtype.size)
    src.bits[-1, -1] = 1
    assert dst.bits.tobytes()[-src.dtype.size:] == src.bits[-1:, -1:].tobytes()


@pytest.mark.parametrize("target", TARGETS)
def test_treshape_refusals_leave_dst_alone(target):
    """Location, byte size and boxing must match on every target; the dtype kinds on cpu only."""
    src = Tile("vec", "f32", 16, 16)
    cases = [(Tile("mat", "f32", 16, 16, blayout="col_major", slayout="row_major"), GeometryError,
              "pto.treshape.loc"),
             (Tile("vec", "f32", 8, 16), GeometryError, "pto.treshape.bytes"),
             (Tile("vec", "f32", 16, 16, slayout="row_major", blayout="col_major"), GeometryError,
              "pto.treshape.box")]
    for dst, cls, rule in cases:
        before = dst.bits.copy()
        with pytest.raises(cls) as e:
            pto.treshape(dst, src, target=target)
        assert e.value.rule == rule and (dst.bits == before).all()
        assert "TRESHAPE" in str(e.value)
    cross = Tile("vec", "i32", 16, 16)
    if target == "cpu":      # the simulator's static_assert: integer with integer, float with float
        with pytest.raises(DtypeError, match="pto.op.dtype"):
            pto.treshape(cross, src, target=target)
    else:
        assert pto.treshape(cross, src, target=target).bits.tobytes() == src.bits.tobytes()


def _program(form: str, a: str, b: str) -> str:
    pre = "" if form.startswith("%r =") else f"%r = pto.alloc_tile : {b}\n    "
    return f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {a}
    %c = arith.constant 65539 : i32
    pto.texpands ins(%c : i32) outs(%a : {a})
    {pre}{form}
    pto.tprint ins(%r : {b})
    return
  }}
}}
"""


def _buf(dt, r, c):
    return (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout=row_major, "
            "slayout=none_box, fractal=512, pad=0>")


@pytest.mark.parametrize("dps", [False, True])
def test_treshape_pto_forms(dps):
    """SSA ``%r = pto.treshape %a : A -> B`` and DPS ``ins(%a) outs(%r)``: i32 65539 read as i16 pairs 3, 1."""
    a, b = _buf("i32", 2, 8), _buf("i16", 1, 32)
    form = f"pto.treshape ins(%a : {a}) outs(%r : {b})" if dps else f"%r = pto.treshape %a : {a} -> {b}"
    for target in TARGETS:
        out = io.StringIO()
        pto.run_text(_program(form, a, b), {}, target, stdout=out)
        assert "[[" + " ".join(["3 1"] * 16) + "]]" in out.getvalue()


def test_treshape_pto_refusal_names_the_line():
    a, b = _buf("f32", 2, 8), _buf("i32", 2, 8)
    with pytest.raises(TilesimError) as e:
        pto.run_text(_program(f"%r = pto.treshape %a : {a} -> {b}", a, b), {}, "cpu", stdout=io.StringIO())
    assert e.value.rule == "pto.op.dtype" and e.value.line == 6


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("bl", ["row_major", "col_major"])
def test_tsubview_reads_and_writes_src(target, bl):
    """dst(i, j) is src(row_idx + i, col_idx + j) over dst's valid region, through both tiles; a dst of src's
    own type at the far corner runs past src's storage, as on chip (src moves to a larger buffer once)."""
    rng = np.random.default_rng(seed("tsubview", target, bl))
    rows, cols = (16, 32) if bl == "row_major" else (32, 16)
    src = Tile("vec", "i32", rows, cols, blayout=bl)
    src.bits[...] = rand_bits(rng, "i32", src.bits.shape)
    want = src.bits.copy()
    r, c = rows // 2, cols // 2
    dst = pto.tsubview(Tile("vec", "i32", rows, cols, valid=(r, c), blayout=bl), src, r, c, target=target)
    assert (dst.valid_bits == want[r:, c:]).all() and (src.bits == want).all()
    dst.bits[r - 1, c - 1] = 7
    assert src.bits[-1, -1] == 7


@pytest.mark.parametrize("target", TARGETS)
def test_tsubview_refusals(target):
    src, part = Tile("vec", "f32", 16, 32), Tile("vec", "f32", 16, 32, valid=(8, 32))
    bad = [((Tile("vec", "f32", 16, 32, valid=(9, 32)), src, 8, 0), GeometryError, "pto.tsubview.bounds"),
           ((Tile("vec", "i32", 8, 32), src, 0, 0), DtypeError, "pto.op.same_dtype"),
           ((Tile("vec", "f32", 8, 32), src, -1, 0), GeometryError, "pto.tsubview.index"),
           ((Tile("vec", "f32", 8, 32), src, 0, 1.5), GeometryError, "pto.tsubview.index"),
           ((Tile("mat", "f32", 16, 32, blayout="col_major", slayout="row_major"), src, 0, 0), GeometryError,
            "pto.tsubview.loc")]
    if target != "cpu":      # the NPUs' Auto-mode checks
        bad += [((Tile("vec", "f32", 16, 32, valid=(9, 32)), part, 0, 0), GeometryError, "pto.tsubview.valid"),
                ((Tile("vec", "f32", 32, 16, valid=(8, 8), blayout="col_major"), src, 0, 0), GeometryError,
                 "pto.tsubview.layout")]
    for (dst, s, r, c), cls, rule in bad:
        before = dst.bits.copy()
        with pytest.raises(cls) as e:
            pto.tsubview(dst, s, r, c, target=target)
        assert e.value.rule == rule, (rule, e.value)
        assert (dst.bits == before).all() and dst._mem is not s._mem
    viewed = Tile("vec", "f32", 16, 32)
    pto.tsubview(Tile("vec", "f32", 8, 32), viewed, 8, 0, target=target)       # fits: no move
    with pytest.raises(GeometryError, match="pto.tsubview.span"):             # would move a viewed tile
        pto.tsubview(Tile("vec", "f32", 16, 32, valid=(8, 8)), viewed, 8, 8, target=target)


def test_tsubview_pto_dps():
    """``pto.tsubview ins(%src, %r, %c : T, index, index) outs(%dst : T)`` in a Memory-placed program."""
    a, d = _buf("i32", 4, 8), ("!pto.tile_buf<loc=vec, dtype=i32, rows=4, cols=8, v_row=2, v_col=4, "
                               "blayout=row_major, slayout=none_box, fractal=512, pad=0>")
    text = f"""module {{
  func.func @k() {{
    %a = pto.alloc_tile : {a}
    %d = pto.alloc_tile : {d}
    %c9 = arith.constant 9 : i32
    %r = arith.constant 2 : index
    %c = arith.constant 4 : index
    pto.texpands ins(%c9 : i32) outs(%a : {a})
    pto.tsubview ins(%a, %r, %c : {a}, index, index) outs(%d : {d})
    %c1 = arith.constant 1 : i32
    pto.texpands ins(%c1 : i32) outs(%d : {d})
    pto.tprint ins(%a : {a})
    return
  }}
}}
"""
    for target in TARGETS:
        out = io.StringIO()
        pto.run_text(text, {}, target, stdout=out)
        assert "[9 9 9 9 9 9 9 9]\n [9 9 9 9 9 9 9 9]\n [9 9 9 9 1 1 1 1]\n [9 9 9 9 1 1 1 1]]" in out.getvalue(), \
            out.getvalue()
