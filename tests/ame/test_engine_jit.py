"""The GEMM engine's kernels (tilesim.ame.engine_jit) against the numpy path they stand in front of: every code
and flag of fused GEMMs into FP16 and FP32, their rounding against formats.encode on every boundary, and their
certificate's spans against the numpy bounds."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st
from numba import njit

from tilesim import formats
from tilesim.ame import engine, engine_jit
from tilesim.ame.accum import accumulator
from tilesim.ame.gemm import gemm

from .test_engine import _boundaries, _values

#: Float Ft whose accumulator (bOVF=0) the kernels take, and whose products the engine computes.
FAST_FTS = sorted(f.name for f in {*formats.AME_CODES.values()}
                  if f.is_float and accumulator(f, 0).name in ("fp16", "fp32") and engine.supports(f, accumulator(f, 0)))


@njit(cache=True)
def _round_all(x, man, emin, max_finite, mode):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = engine_jit.round_to(x[i], man, emin, max_finite, mode)
    return out


@pytest.mark.parametrize("acc, rnd", [(acc, rnd) for acc in ("fp16", "fp32") for rnd in engine_jit.MODES]
                         + [("fp32", "fp32_rne")])
def test_round_to_equals_encode(acc, rnd):
    """Every FP16 value (FP32: a sample biased to the extremes), the midpoints and the values just off them,
    overflow included: the kernel's rounding (and FP32 RNE by the processor's conversion) gives
    formats.encode's code, and differs from its input where encode says inexact."""
    f = formats.get(acc)
    x = _boundaries(f)
    x = x[np.abs(x) > 0]  # 2**-1100 stays: a float64 subnormal
    mode = engine_jit.FP32_RNE if rnd == "fp32_rne" else engine_jit.MODES.index(rnd)
    rnd = "rne" if rnd == "fp32_rne" else rnd
    y = _round_all(x, f.man_bits, f.emin, f.max, mode)
    want, fl = formats.encode(x, f, rounding=rnd, return_flags=True)
    assert np.array_equal(y.astype(np.float16 if acc == "fp16" else np.float32).view(f.dtype), want)
    assert np.array_equal(y != x, fl.inexact)


def test_spans_equal_the_numpy_bounds():
    """Slices holding zeros only, Inf, NaN, subnormals, and a ragged last slice, in both layouts: the kernel's
    span is the numpy bounds' top minus low, NOT_FINITE where a value is not finite."""
    rng = np.random.default_rng(3)
    for name in ("bf16", "fp8_e4m3", "fp8_e5m2", "fp16"):
        f = formats.get(name)
        e = formats.elements_per_row(f)
        v = _values(rng, f, (30, 5 * e - 3), True)
        v[4] = 0.0
        v[5, : 2 * e] = -0.0
        v[6, e + 1] = np.inf
        v[7, 3] = np.nan
        low, top, bad = engine._slice_bounds(v, f, e)
        want = np.where(bad, engine_jit.NOT_FINITE, top.astype(np.int64) - low).T
        by_rows = engine._by_slice(v, e)  # (slices, rows, e)
        assert np.array_equal(engine_jit.spans(by_rows, f.man_bits, f.emin, False), want)
        assert np.array_equal(engine_jit.spans(by_rows.transpose(0, 2, 1).copy(), f.man_bits, f.emin, True), want)


def _signed_zeros(rng, f, shape) -> np.ndarray:
    """Values of ``f`` from {+-0, +-1, +-2}: many sums are exact zeros, whose sign comes from the terms."""
    return rng.choice(np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0]), shape)


@settings(max_examples=max(1, round(60 * settings.default.max_examples / 150)), deadline=None)
@given(data=st.data())
def test_kernels_equal_the_numpy_path(data):
    """Every Ft the kernels take, every RND, C or not; inputs with specials, cancellations to signed zeros,
    and tiny and huge values in one slice (results leave the fast path there and resume on the numpy path);
    blocks of C of one element to many, over several slices per BLAS call. Every code and flag."""
    ft = data.draw(st.sampled_from(FAST_FTS), "ft")
    f = formats.get(ft)
    acc = accumulator(f, 0)
    rnd = data.draw(st.sampled_from(engine_jit.MODES), "RND")
    e = formats.elements_per_row(f)
    m, n, k = data.draw(st.integers(1, 40), "M"), data.draw(st.integers(1, 40), "N"), data.draw(st.integers(1, 6 * e))
    kind = data.draw(st.sampled_from(["random", "extremes", "signed zeros"]), "inputs")
    with_c = data.draw(st.booleans(), "C input")
    block = data.draw(st.sampled_from([1, 7, 64, engine.BLOCK_ELEMENTS]), "block elements")
    cols = data.draw(st.sampled_from([1, 5, engine.COLS_PER_BLOCK]), "columns per block")
    per_call = data.draw(st.integers(1, 4), "slices per call")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    if kind == "signed zeros":
        a, b = _signed_zeros(rng, f, (m, k)), _signed_zeros(rng, f, (k, n))
    else:
        a, b = _values(rng, f, (m, k), kind == "extremes"), _values(rng, f, (k, n), kind == "extremes")
    c = _values(rng, acc, (m, n), False) if with_c else None
    took = []
    real = engine_jit.fused_slices

    def spy(*args):
        took.append(True)
        return real(*args)

    run = {}
    for on in (True, False):
        with mock.patch.object(engine_jit, "ENABLED", on), mock.patch.object(engine, "BLOCK_ELEMENTS", block), \
                mock.patch.object(engine, "COLS_PER_BLOCK", cols), mock.patch.object(engine, "SLICES_PER_CALL", per_call), \
                mock.patch.object(engine_jit, "fused_slices", spy):
            run[on] = gemm(a, b, c, ft=ft, rnd=rnd, quantize=True)
    assert took  # the kernels ran, and only with ENABLED
    event(kind)
    assert np.array_equal(run[True].codes, run[False].codes)
    assert run[True].status == run[False].status


def test_results_that_fail_resume_on_the_numpy_path_from_their_slice():
    """NaN in slice 2 of one row of A, 2**-100 beside values near 1 in slice 1 of another (no certificate): row
    9 takes the exact models in slice 1 and then passes the fast checks again; row 2 stays on the exact path
    from slice 2 on, its C being NaN; the other rows never leave the kernel."""
    rng = np.random.default_rng(5)
    a = formats.quantize(rng.standard_normal((20, 40)), "bf16")
    b = formats.quantize(rng.standard_normal((40, 12)), "bf16")
    a[2, 17], a[9, 8] = np.nan, 2.0**-100
    calls = []
    real = engine.mac

    def spy(ac, *args):
        calls.append(ac.shape[0])
        return real(ac, *args)

    with mock.patch.object(engine, "mac", spy):
        fast = gemm(a, b, ft="bf16")
    assert calls == [12, 12, 12, 12]  # row 9 in slice 1; row 2 in slices 2, 3 and 4 (NaN + anything)
    with mock.patch.object(engine_jit, "ENABLED", False):
        slow = gemm(a, b, ft="bf16")
    assert np.array_equal(fast.codes, slow.codes) and fast.status == slow.status
    assert np.isnan(fast.values[2]).all() and not np.isnan(np.delete(fast.values, 2, 0)).any()
