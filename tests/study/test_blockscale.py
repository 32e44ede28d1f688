"""The block-scaled quantiser (issue 25) against independent implementations: gfloat's MX block formats
(``quantize_block`` with ``compute_scale_amax``), and a Fraction transcription of OCP MX v1.0 §6.3 and of the
E4M3-scale rule, on random and edge blocks (all-zero, NaN, max-exponent, subnormal-only)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import formats
from tilesim.errors import TilesimError
from tilesim.study.blockscale import emax_of, quantize_blocks

gfloat = pytest.importorskip("gfloat")
from gfloat import formats as gf  # noqa: E402

MX = {"fp8_e4m3": gf.format_info_mxfp8_e4m3, "fp8_e5m2": gf.format_info_mxfp8_e5m2,
      "fp6_e3m2": gf.format_info_mxfp6_e3m2, "fp6_e2m3": gf.format_info_mxfp6_e2m3,
      "fp4_e2m1": gf.format_info_mxfp4_e2m1}


def _edge_blocks(rng) -> dict[str, np.ndarray]:
    return {
        "random": rng.standard_normal(32) * 2.0 ** rng.integers(-20, 20),
        "outlier": np.r_[rng.standard_normal(31), 3e4],
        "all_zero": np.zeros(32),
        "signed_zeros": np.r_[-0.0, np.zeros(31)],
        "max_exponent": np.r_[2.0**140, 2.0**135, -(2.0**127), rng.standard_normal(29)],  # X clipped at 2**127
        "subnormal_only": rng.standard_normal(32) * 2.0**-140,  # X clipped at 2**-127: all flush
        "tiny_and_one": np.r_[1.0, rng.standard_normal(31) * 2.0**-12],
        "nan": np.r_[np.nan, rng.standard_normal(31)],
    }


@pytest.mark.parametrize("elem", list(MX))
def test_e8m0_blocks_equal_gfloat(elem):
    rng = np.random.default_rng([25, len(elem)])
    blocks = _edge_blocks(rng)
    blocks.update({f"random{i}": rng.standard_normal(32) * rng.uniform(0.1, 100) for i in range(20)})
    for name, v in blocks.items():
        if name == "nan" and not formats.get(elem).has_nan:
            continue  # gfloat encodes the elements of a NaN block too, and FP6 and FP4 have no NaN
        want = gfloat.quantize_block(MX[elem], v, gfloat.compute_scale_amax)
        q = quantize_blocks(v[None, :], elem, "e8m0", 32)
        np.testing.assert_array_equal(q.values[0], want, err_msg=f"{elem} {name}")
        if np.isfinite(v).all():
            assert q.scales[0, 0] == gfloat.compute_scale_amax(MX[elem].etype.emax, v), name


def test_mxint8_is_int8_times_its_scale():
    """gfloat's MXINT8 holds int8 x 2**-6; tilesim's INT8 elements are whole, so its scales are 2**-6 of
    gfloat's and the values agree."""
    rng = np.random.default_rng(8)
    for v in list(_edge_blocks(rng).values())[:-1] + [rng.standard_normal(32) for _ in range(10)]:
        want = gfloat.quantize_block(gf.format_info_mxint8, v, gfloat.compute_scale_amax)
        q = quantize_blocks(v[None, :], "int8", "e8m0", 32)
        if v.any() and np.abs(v).max() < 2.0**120:
            np.testing.assert_array_equal(q.values[0], want)


@pytest.mark.parametrize("elem", ["fp8_e4m3", "fp4_e2m1", "int8"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_infinity_make_a_nan_block(elem, bad):
    """OCP: a NaN scale makes its block NaN. tilesim's choice (S10): an infinity, like a NaN, gives a NaN scale
    (gfloat saturates an infinity to the largest element; FP6, FP4 and INT8 have no NaN element at all)."""
    for scale in ("e8m0", "fp8_e4m3"):
        q = quantize_blocks(np.r_[bad, np.ones(31), np.ones(32)][None, :], elem, scale, 32)
        alone = quantize_blocks(np.ones((1, 32)), elem, scale, 32)
        assert np.isnan(q.scales[0, 0]) and np.isnan(q.values[0, :32]).all()
        assert np.array_equal(q.values[:, 32:], alone.values)  # the next block is untouched


def _fraction_e4m3_scale(block, elem: str):
    """Oracle of the E4M3-scale rule: X = RNE_E4M3(amax / max) with Fractions, then P = RNE(V / X) clamped."""
    fmt = formats.get(elem)
    e4m3 = [Fraction(float(x)) for x in formats.decode(np.arange(127, dtype=np.uint8), "fp8_e4m3")]  # +0..448
    top = Fraction(fmt.max_exact)
    target = max(abs(Fraction(float(v))) for v in block) / top
    x = _rne(target, e4m3)
    if x == 0:
        return 0.0, [0.0] * len(block)
    grid = sorted({abs(Fraction(float(c))) for c in formats.decode(
        np.unique(formats.canonical(np.arange(1 << fmt.lane_bits, dtype=np.uint64), fmt)).astype(fmt.dtype), fmt)
        if np.isfinite(c)})
    out = []
    for v in block:
        r = Fraction(float(v)) / x
        if fmt.is_float:
            p = _rne(min(abs(r), top), grid) * (-1 if r < 0 else 1)
        else:  # integers: Python rounds half to even; two's complement reaches -128
            p = min(max(round(r), int(fmt.min_exact)), int(fmt.max_exact))
        out.append(float(p * x) if p else (-0.0 if r < 0 else 0.0))
    return float(x), out


def _rne(v: Fraction, grid: list) -> Fraction:
    """v rounded to nearest on a sorted grid of non-negative values, ties to the even code (its index)."""
    hi = next((i for i, g in enumerate(grid) if g >= v), len(grid) - 1)
    if grid[hi] == v or hi == 0:
        return grid[hi]
    lo = hi - 1
    d_lo, d_hi = v - grid[lo], grid[hi] - v
    return grid[lo] if d_lo < d_hi or (d_lo == d_hi and lo % 2 == 0) else grid[hi]


@pytest.mark.parametrize("elem", ["fp4_e2m1", "fp8_e4m3", "int8"])
def test_e4m3_scales_equal_a_fraction_oracle(elem):
    rng = np.random.default_rng([4, len(elem)])
    blocks = [rng.standard_normal(16) * s for s in (1, 7, 1e-3, 300)] + [np.r_[7.0, 8.0, np.zeros(14)],
                                                                         np.r_[3e5, np.ones(15)], np.zeros(16)]
    for v in blocks:
        q = quantize_blocks(v[None, :], elem, "fp8_e4m3", 16)
        x, want = _fraction_e4m3_scale(v, elem)
        assert q.scales[0, 0] == x and q.values[0].tolist() == want, v


def test_counts_and_short_last_block():
    x = np.r_[np.ones(31), 1e6, 1e-9, np.ones(3)][None, :]  # K = 36: blocks of 32 and 4
    q = quantize_blocks(x, "fp4_e2m1", "e8m0", 32)
    assert q.scales.shape == (1, 2) and q.values.shape == (1, 36)
    assert q.flushed == 32 / 36  # every 1 of the first block (scale 2**17) and the 1e-9 flush; 1e6 clips to 6
    assert q.clipped == 1 / 36 and emax_of(formats.get("fp4_e2m1")) == 2


@pytest.mark.parametrize("elem, scale, block, words", [
    ("fp8_e4m3", "e5m2", 32, "unknown block scale"), ("fp8_e4m3", "e8m0", 0, "block size 0"),
    ("uf4_e2m2", "e8m0", 32, "signed element format"), ("e8m0", "e8m0", 32, "signed element format"),
])
def test_refused(elem, scale, block, words):
    with pytest.raises(TilesimError, match=words) as e:
        quantize_blocks(np.ones((1, 32)), elem, scale, block)
    assert e.value.rule == "study.block"


@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32),
                          st.floats(-1e-30, 1e-30), st.sampled_from([0.0, -0.0, 448.0, 449.0, 6.0, 7.0])),
                min_size=32, max_size=32),
       st.sampled_from(sorted(MX)))
@settings(max_examples=60)
def test_e8m0_blocks_equal_gfloat_on_any_block(values, elem):
    """Any finite block, magnitudes from float32's extremes to tiny and the element formats' edges."""
    v = np.array(values, np.float64)
    want = gfloat.quantize_block(MX[elem], v, gfloat.compute_scale_amax)
    np.testing.assert_array_equal(quantize_blocks(v[None, :], elem, "e8m0", 32).values[0], want)
