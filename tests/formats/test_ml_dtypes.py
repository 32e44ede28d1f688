"""Cross-check against ml_dtypes from float32 inputs (ml_dtypes rounds f32 correctly;
from float64 it double-rounds through f32, jax-ml/ml_dtypes casts float64 via float32)."""

import numpy as np
import pytest

from tilesim import formats

ml_dtypes = pytest.importorskip("ml_dtypes")

PAIRS = [("bf16", ml_dtypes.bfloat16), ("fp16", np.float16), ("fp8_e4m3", ml_dtypes.float8_e4m3fn),
         ("fp8_e5m2", ml_dtypes.float8_e5m2), ("fp6_e3m2", ml_dtypes.float6_e3m2fn),
         ("fp6_e2m3", ml_dtypes.float6_e2m3fn), ("fp4_e2m1", ml_dtypes.float4_e2m1fn)]


def random_float32(n, seed):
    """Random bit patterns: every class of float32 (subnormals, Inf, NaN) appears."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    # and values in the formats' own ranges, where most of the interesting rounding is
    near = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 18, n)).astype(np.float32)
    return np.concatenate([bits.view(np.float32), near])


@pytest.mark.parametrize("name,dt", PAIRS, ids=[p[0] for p in PAIRS])
def test_matches_ml_dtypes(name, dt):
    x = random_float32(300_000, seed=len(name))
    ours = formats.decode(formats.encode(x, name), name)
    with np.errstate(all="ignore"):
        theirs = x.astype(dt).astype(np.float64)
    f = formats.get(name)
    if not f.has_nan:
        # ml_dtypes turns NaN into -0 for FP4/FP6; tilesim gives +max (decision F5)
        keep = ~np.isnan(x)
        ours, theirs = ours[keep], theirs[keep]
    same = (ours.view(np.uint64) == theirs.view(np.uint64)) | (np.isnan(ours) & np.isnan(theirs))
    assert same.all(), f"{x[~same][:5]} -> {ours[~same][:5]} vs {theirs[~same][:5]}"


def test_e8m0_differs_only_at_ties():
    """ml_dtypes rounds E8M0 ties up; tilesim ties to the even code (decision F6)."""
    rng = np.random.default_rng(9)
    e = rng.integers(-126, 127, 100_000)
    x = np.concatenate([np.ldexp(rng.uniform(1, 2, e.size), e), np.ldexp(1.5, e)]).astype(np.float32)
    ours = formats.decode(formats.encode(x, "e8m0"), "e8m0")
    theirs = x.astype(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    diff = ours != theirs
    mant = np.frexp(x[diff].astype(np.float64))[0]
    assert (mant == 0.75).all()  # ties are 1.5 * 2**e
    assert (theirs[diff] > ours[diff]).all()
    assert diff.sum() > 0
