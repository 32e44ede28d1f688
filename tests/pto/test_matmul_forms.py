"""TMATMUL_ACC and TMATMUL_BIAS: TMATMUL's exact FMA chain, then one float32 (or wrapping int32) addition."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError
from tilesim.pto import Tile

from . import oracle as o
from .helpers import TARGETS, rand_bits, seed
from .test_memory_matmul import _fma_step, _mm_tiles


def _chain(A, B, i, j, adt, cdt):
    row = [o.dec(int(v), adt) for v in A[i]]
    col = [o.dec(int(v), adt) for v in B[:, j]]
    if cdt == "i32":
        return sum(x * y for x, y in zip(row, col))
    acc = 0
    for x, y in zip(row, col):
        acc = _fma_step(acc, x, y)
    return acc


def _plus(acc, other_bits, cdt):
    """acc (chain result: f32 bits or exact int) + another lane of cdt, rounded once / wrapped."""
    if cdt == "i32":
        return o.int_bits(acc + o.dec(int(other_bits), "i32"), "i32")
    x, y = o.dec(acc, "f32"), o.dec(int(other_bits), "f32")
    if x == 0 and y == 0:
        neg = str(x).startswith("-") and str(y).startswith("-")
        return 0x80000000 if neg else 0
    return o.round_bits(Fraction(x) + Fraction(y), "f32")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("adt,cdt", [("f16", "f32"), ("bf16", "f32"), ("f32", "f32"), ("i8", "i32")])
@pytest.mark.parametrize("form", ["acc", "bias"])
def test_acc_and_bias_forms(target, adt, cdt, form):
    rng = np.random.default_rng(seed("mmf", target, adt, form))
    M, K, N = 4, 21, 6
    a, b, c = _mm_tiles(M, K, N, adt, cdt, target)
    A = rand_bits(rng, adt, (M, K), special=0.0, lo=-4, hi=4)
    B = rand_bits(rng, adt, (K, N), special=0.0, lo=-4, hi=4)
    a.bits[:M, :K], b.bits[:K, :N] = A, B
    if form == "acc":
        c_in = Tile("acc", cdt, c.rows, c.cols, blayout="col_major", slayout="row_major", fractal=1024)
        c_in.bits[...] = rand_bits(rng, cdt, c_in.bits.shape, special=0.0, lo=-50, hi=50)
        pto.tmatmul_acc(c, c_in, a, b, target=target)
        other = c_in.bits
    else:
        bias = Tile("bias", cdt, 1, 16, valid=(1, N))
        bias.bits[0] = rand_bits(rng, cdt, (16,), special=0.0, lo=-50, hi=50)
        pto.tmatmul_bias(c, a, b, bias, target=target)
        other = np.broadcast_to(bias.bits[:1], (M, 16))
    for i in range(M):
        for j in range(N):
            assert int(c.bits[i, j]) == _plus(_chain(A, B, i, j, adt, cdt), other[i, j], cdt)


def test_acc_in_place_accumulates():
    a, b, c = _mm_tiles(2, 32, 16, "f16", "f32", "cpu")
    a.values[:2, :32] = 1
    b.values[:32, :16] = 0.5
    pto.tmatmul(c, a, b, target="cpu")
    for _ in range(3):
        pto.tmatmul_acc(c, c, a, b, target="cpu")  # c may be its own c_in
    assert (c.values[:2, :16] == 64).all()


def test_form_checks():
    a, b, c = _mm_tiles(2, 32, 16, "f16", "f32", "cpu")
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_acc(c, Tile("acc", "f32", 32, 16, blayout="col_major", slayout="row_major"), a, b, target="cpu")
    assert e.value.rule == "pto.tmatmul.acc_in"
    with pytest.raises(DtypeError) as e:
        pto.tmatmul_bias(c, a, b, Tile("bias", "f16", 1, 16), target="cpu")
    assert e.value.rule == "pto.op.same_dtype"
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_bias(c, a, b, Tile("bias", "f32", 2, 16), target="cpu")
    assert e.value.rule == "pto.tmatmul.bias"
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_bias(c, a, b, Tile("bias", "f32", 1, 16, valid=(1, 3)), target="cpu")
    assert e.value.rule == "pto.tmatmul.bias" and "N = 16" in str(e.value)
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_bias(c, a, b, Tile("vec", "f32", 1, 16), target="cpu")
    assert e.value.rule == "pto.op.loc"
