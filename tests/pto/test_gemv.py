"""TGEMV and its forms (decision PTO135): TMATMUL's results under their own names, M = 1 on the NPUs."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile


def _tiles(M, rng, target):
    lb = "col_major" if target != "a2a3" else "row_major"
    a = Tile("left", "f16", 16, 32, blayout=lb, slayout="row_major", valid=(M, 29))
    b = Tile("right", "f16", 32, 16, slayout="col_major", valid=(29, 11))
    a.bits[...] = np.float16(rng.standard_normal(a.bits.shape)).view(np.uint16)
    b.bits[...] = np.float16(rng.standard_normal(b.bits.shape)).view(np.uint16)
    acc = lambda: Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024,  # noqa: E731
                       valid=(M, 11))
    bias = Tile("bias", "f32", 1, 16, valid=(1, 11))
    bias.values[...] = rng.standard_normal(bias.values.shape)
    c_in = acc()
    c_in.values[...] = rng.standard_normal(c_in.values.shape)
    return a, b, acc, c_in, bias


@pytest.mark.parametrize("target,M", [("cpu", 1), ("cpu", 7), ("a2a3", 1), ("a5", 1)])
def test_gemv_is_tmatmul(target, M):
    rng = np.random.default_rng(M)
    a, b, acc, c_in, bias = _tiles(M, rng, target)
    for gemv, mm, extra in ((pto.tgemv, pto.tmatmul, ()), (pto.tgemv_bias, pto.tmatmul_bias, (bias,))):
        got, want = gemv(acc(), a, b, *extra, target=target), mm(acc(), a, b, *extra, target=target)
        assert np.array_equal(got.bits, want.bits)
    got = pto.tgemv_acc(acc(), c_in, a, b, target=target)
    assert np.array_equal(got.bits, pto.tmatmul_acc(acc(), c_in, a, b, target=target).bits)
    # and against float64 on the valid region (the FMA chain is exact enough for f16 inputs)
    x, y = a.values[:M, :29].astype(np.float64), b.values[:29, :11].astype(np.float64)
    assert np.allclose(got.values[:M, :11], c_in.values[:M, :11] + x @ y, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_npus_take_one_row(target):
    rng = np.random.default_rng(0)
    a, b, acc, c_in, bias = _tiles(2, rng, target)
    c = acc()
    before = c.bits.copy()
    for call in (lambda: pto.tgemv(c, a, b, target=target), lambda: pto.tgemv_acc(c, c_in, a, b, target=target),
                 lambda: pto.tgemv_bias(c, a, b, bias, target=target)):
        with pytest.raises(TilesimError) as e:
            call()
        assert e.value.rule == "pto.tgemv.m" and e.value.instruction.startswith("TGEMV")
    assert np.array_equal(c.bits, before)


def test_errors_name_tgemv():
    a = Tile("left", "f16", 16, 32, blayout="col_major", slayout="row_major", valid=(1, 32))
    b = Tile("right", "f16", 16, 16, slayout="col_major")                  # K does not chain
    c = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
    with pytest.raises(TilesimError) as e:
        pto.tgemv(c, a, b, target="cpu")
    assert e.value.instruction == "TGEMV" and e.value.rule == "pto.tmatmul.shape"


def test_pto_dps_forms():
    """``pto.tgemv`` and ``pto.tgemv.acc`` in a program: they dispatch to TGEMV and TGEMV_ACC (one valid row
    runs on cpu and a5), and a two-row left tile is refused on a5 with the op's name and the statement's line."""
    L = "!pto.tile_buf<left, 16x16xf16, valid={m}x16, blayout=col_major, slayout=row_major>"
    R = "!pto.tile_buf<right, 16x16xf16, blayout=row_major, slayout=col_major>"
    C = "!pto.tile_buf<acc, 16x16xf32, valid={m}x16, blayout=col_major, slayout=row_major, fractal=1024>"
    text = """module {{
  func.func @k() {{
    %a = pto.alloc_tile : {L}
    %b = pto.alloc_tile : {R}
    %c = pto.alloc_tile : {C}
    %d = pto.alloc_tile : {C}
    pto.tgemv ins(%a, %b : {L}, {R}) outs(%c : {C})
    pto.tgemv.acc ins(%c, %a, %b : {C}, {L}, {R}) outs(%d : {C})
    return
  }}
}}
"""
    for target in ("cpu", "a5"):
        pto.run_text(text.format(L=L.format(m=1), R=R, C=C.format(m=1)), {}, target)
    with pytest.raises(TilesimError) as e:
        pto.run_text(text.format(L=L.format(m=2), R=R, C=C.format(m=2)), {}, "a5", source="k.pto")
    assert (e.value.rule, e.value.instruction, e.value.line) == ("pto.tgemv.m", "TGEMV", 7)
