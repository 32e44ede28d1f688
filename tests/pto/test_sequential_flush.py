"""PTO194: the NPUs' f32-accumulated sums and products (every step's subnormal result flushed to a zero of its
sign) in one numba pass, held bit for bit to the numpy loop they replace, on values whose partial sums and
products cross into the subnormal range, with NaNs and infinities mixed in."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tilesim.pto import get_dtype
from tilesim.pto import numerics as nx
from tilesim.pto.ops import reduce as rd

#: values whose sums cancel to subnormals (1.5 - 1.25 = 0.25 of 2^-126) and whose products underflow, and others
_NEAR = np.array([1.5, -1.5, 1.25, -1.25, 2.0, -1.0, 1.0, 0.0, -0.0, 2.0 ** -20, -(2.0 ** -20), 3.0, 0.5, np.inf,
                  -np.inf, np.nan], np.float64)
_PAIRS = [("f32", "f32", False), ("f32", "f32", True), ("f16", "f32", True), ("bf16", "f32", True),
          ("f16", "f16", True), ("bf16", "bf16", True)]


@st.composite
def _case(draw):
    R, C = draw(st.integers(1, 6)), draw(st.integers(0, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    src, dst, acc_f32 = draw(st.sampled_from(_PAIRS))
    scale = draw(st.sampled_from([2.0 ** -126, 2.0 ** -14, 1.0, 2.0 ** -63]))
    nan_rate = draw(st.sampled_from([0.0, 0.05]))
    x = rng.choice(_NEAR[:-3], (R, C)) * scale
    special = rng.random((R, C)) < nan_rate
    x[special] = rng.choice(_NEAR[-3:], int(special.sum()))
    dt = get_dtype(src)
    return x.astype(dt.np).view(dt.lane), dt, get_dtype(dst), acc_f32


@settings(max_examples=80, deadline=None)
@given(_case(), st.sampled_from(["sum", "prod"]), st.integers(0, 1), st.booleans())
def test_one_pass_equals_the_loop(case, kind, axis, flush):
    bits, src, dst, acc_f32 = case
    got = rd.sequential(kind, bits, src, dst, axis, flush, acc_f32)
    want = nx.from_f32(rd._sequential_loop(kind, rd._as_acc_f32(bits, src, flush), dst, axis, flush, False), dst,
                       flush=flush)
    np.testing.assert_array_equal(got, want)


def test_a_step_that_lands_below_the_normal_range_is_flushed():
    """1.5 + (-1.25) of 2^-126 is a subnormal: flushed it is +0, and the next 2^-126 stays as it is."""
    f32 = get_dtype("f32")
    x = (np.array([[1.5, -1.25, 1.0]]) * 2.0 ** -126).astype(np.float32).view(np.uint32)
    flushed = rd.sequential("sum", x, f32, f32, 1, True, True).view(np.float32)
    kept = rd.sequential("sum", x, f32, f32, 1, False, True).view(np.float32)
    assert flushed[0] == np.float32(2.0 ** -126) and kept[0] == np.float32(1.25 * 2.0 ** -126)
