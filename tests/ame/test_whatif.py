"""Accumulator what-ifs (issue 25): a GEMM accumulated in another format than the proposal's equals the
scalar Fraction oracle of ``tests/ame/oracle.py`` run K-slice by K-slice with that accumulator."""

from fractions import Fraction

import numpy as np
import pytest

from tilesim import formats
from tilesim.ame import whatif
from tilesim.ame.gemm import gemm, plan_gemm
from tilesim.errors import TilesimError

from . import oracle as o


def _oracle(a, b, ft, acc, rnd, saturate, model, k_step):
    """Codes of C = A x B (C starts at +0) with every K-slice of ``k_step`` one MAC of ``model``."""
    f, af = formats.get(ft), formats.get(acc)
    m, k = a.shape
    out = np.zeros((m, b.shape[1]), np.int64)
    for i in range(m):
        for j in range(b.shape[1]):
            if af.is_float:
                c = "+0"
                for k0 in range(0, k, k_step):
                    terms = []
                    for kk in range(k0, min(k, k0 + k_step)):
                        x, y = (Fraction(int(v)) if not f.is_float else Fraction(float(v)) for v in (a[i, kk],
                                                                                                   b[kk, j]))
                        terms.append(o.mul(x if x else "+0", y if y else "+0"))
                    code, _, _ = o.mac_float(c, terms, af, rnd, saturate and not af.has_inf, model)
                    c = o.float_value(code, af)
                out[i, j] = code
            else:
                c = 0
                for k0 in range(0, k, k_step):
                    prods = [int(a[i, kk]) * int(b[kk, j]) for kk in range(k0, min(k, k0 + k_step))]
                    code, _, _ = o.mac_int(c, prods, 0, af, rnd, saturate, model)
                    c = o.int_value(code, af)
                out[i, j] = code
    return out


@pytest.mark.parametrize("acc", ["int8", "int16", "int32", "fp16", "bf16", "fp32"])
@pytest.mark.parametrize("model", ["fused", "sequential", "chain_then_add"])
def test_int8_into_every_accumulator(acc, model):
    """INT8 inputs whose sums overflow INT8, INT16's 16-bit range after a few slices (wrap or saturate), and
    FP16 (to Inf), and whose sums BF16 rounds: every accumulator and model against the oracle."""
    rng = np.random.default_rng([25, len(acc), len(model)])
    a = rng.integers(-128, 128, (3, 40))
    b = rng.integers(-128, 128, (40, 2))
    a[0], b[:, 0] = 127, 127  # row 0 x column 0: 40 x 127^2 = 645,160 (> INT16 and FP16 range)
    for rnd, sat in (("rne", 0), ("rtz", 1), ("rdn", 0)):
        r = gemm(a, b, ft="int8", acc=acc, accumulation=model, rnd=rnd, sat=sat, tiling="1x1")
        assert r.plan.acc.name == acc and r.plan.in_proposal == (acc == "int16")
        want = _oracle(a, b, "int8", acc, rnd, bool(sat), model, 16)
        assert np.array_equal(r.codes.astype(np.int64), want), (rnd, sat)


@pytest.mark.parametrize("ft, acc", [("bf16", "bf16"), ("bf16", "fp16"), ("fp8_e4m3", "fp32"), ("fp16", "bf16")])
def test_float_inputs_into_other_float_accumulators(ft, acc):
    rng = np.random.default_rng([25, len(ft), len(acc)])
    a = formats.quantize(rng.standard_normal((2, 24)) * 30, ft, saturate=True)
    b = formats.quantize(rng.standard_normal((24, 3)) * 30, ft, saturate=True)
    for model in ("fused", "sequential"):
        r = gemm(a, b, ft=ft, acc=acc, accumulation=model, tiling="1x1")
        want = _oracle(a, b, ft, acc, "rne", False, model, formats.elements_per_row(ft))
        assert np.array_equal(r.codes.astype(np.int64), want) and not r.plan.in_proposal


def test_whatif_keeps_the_proposal_plan_but_emits_no_program():
    p = plan_gemm(16, 4096, 4096, ft="int8", acc="int32")
    q = plan_gemm(16, 4096, 4096, ft="int8")
    assert (p.acc.name, q.acc.name, p.k_step) == ("int32", "int16", q.k_step)
    assert p.tiles_per_result == 2 * q.tiles_per_result  # 32-bit results take twice the tiles
    assert plan_gemm(16, 16, 16, ft="int8", acc="proposal").acc.name == "int16"
    with pytest.raises(TilesimError, match="no mxcfg selects") as e:
        p.program()
    assert e.value.rule == "ame.gemm.acc"


@pytest.mark.parametrize("ft, acc, words", [
    ("bf16", "int32", "accumulate in floats"),
    ("int8", "e8m0", "holds no negative sums"),
    ("int8", "uf16_e8m8", "holds no negative sums"),
    ("int64", "fp64", "do not all fit FP64"),
    ("int8", "nosuch", "nosuch"),
])
def test_refused_accumulators(ft, acc, words):
    with pytest.raises(TilesimError, match=words):
        plan_gemm(16, 16, 16, ft=ft, acc=acc)


def test_carriers_hold_every_value():
    """Each integer and fixed-point format's carrier holds all its values exactly (exhaustive to 16 bits)."""
    for f in formats.AME_CODES.values():
        if f.is_float or f.bits > 16:
            continue
        c = whatif.carrier(f)
        codes = np.unique(formats.canonical(np.arange(1 << f.lane_bits, dtype=np.uint64), f))
        v = formats.decode(codes.astype(f.dtype), f)
        assert np.array_equal(formats.quantize(v, c), v), f.name
