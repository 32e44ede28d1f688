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
