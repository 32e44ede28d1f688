"""The fast GEMM engine against the instruction-by-instruction program on the Core, its rounding against
formats.encode on every boundary, and the GEMM's input checks, wrap count and progress bar."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from tilesim import formats
from tilesim.ame import engine, engine_jit, rounding
from tilesim.ame.gemm import TILING_CHOICES, gemm, plan_gemm
from tilesim.errors import DtypeError, EncodingError, GeometryError

from .helpers import random_lanes
from .test_gemm import _program_result

FTS = sorted({f.name for f in formats.AME_CODES.values()})


def _values(rng, f, shape, extremes: bool) -> np.ndarray:
    """Values of ``f`` from random lanes (edges, specials, small values); with ``extremes``, every K-slice
    of every row also holds the format's largest and smallest magnitudes, so float64 certificates fail."""
    codes = formats.canonical(random_lanes(rng, f, int(np.prod(shape))), f).astype(f.dtype).reshape(shape)
    v = formats.decode(codes, f)
    if extremes and f.is_float:
        e = formats.elements_per_row(f)
        v[:, ::e] = f.max * rng.choice([-1, 1] if f.signed else [1], v[:, ::e].shape)
        v[:, e - 1::e] = f.min_subnormal  # the least positive value (E8M0 has no zero, and f.min is 0.0)
    return v


@pytest.mark.parametrize("ft", [ft for ft in FTS if formats.get(ft).is_float])
def test_the_tiny_extreme_is_a_positive_value_of_the_format(ft):
    """The generator's tiny extreme is the format's least positive value, never E8M0's missing zero (which
    gemm(quantize=True) refuses): a draw of the property below once failed on it."""
    f = formats.get(ft)
    e = formats.elements_per_row(f)
    tiny = _values(np.random.default_rng(0), f, (2, 2 * e), True)[:, e - 1::e]
    assert (tiny > 0).all() and np.array_equal(formats.decode(formats.encode(tiny, f), f), tiny)


@settings(max_examples=max(1, round(50 * settings.default.max_examples / 150)), deadline=None)
@given(data=st.data())
def test_fast_gemm_equals_the_program_on_the_core(data):
    """Every Ft, RND, SAT, bOVF, model and tiling; blocks of C from one row to many; inputs with specials,
    cancellations and, in half the cases, tiny and huge values in one slice. Every code and flag."""
    ft = data.draw(st.sampled_from(FTS), "ft")
    f = formats.get(ft)
    bovf, sat = data.draw(st.integers(0, 1), "bOVF"), data.draw(st.integers(0, 1), "SAT")
    rnd = data.draw(st.sampled_from(["rne", "rup", "rdn", "rtz"]), "RND")
    model = data.draw(st.sampled_from(["fused", "sequential", "chain_then_add"]), "model")
    e = formats.elements_per_row(f)
    m, n, k = data.draw(st.integers(1, 24), "M"), data.draw(st.integers(1, 24), "N"), data.draw(st.integers(1, 3 * e))
    with_c = data.draw(st.booleans(), "C input")
    tiling = data.draw(st.sampled_from(TILING_CHOICES), "tiling")
    extremes = data.draw(st.booleans(), "tiny and huge")
    block = data.draw(st.sampled_from([1, 7, 64, engine.BLOCK_ELEMENTS]), "block elements")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    try:
        plan = plan_gemm(m, n, k, ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, with_c=with_c)
    except GeometryError as err:
        assert err.rule == "ame.gemm.capacity"
        event("capacity")
        return
    a, b = _values(rng, f, (m, k), extremes), _values(rng, f, (k, n), extremes)
    c = _values(rng, plan.acc, (m, n), False) if with_c else None
    event("engine" if engine.supports(plan.ft, plan.acc) else "batched")
    with mock.patch.object(engine, "BLOCK_ELEMENTS", block), mock.patch.object(engine, "INT_BLOCK_ELEMENTS", block), \
            mock.patch.object(engine, "COLS_PER_BLOCK", max(1, block // 4)):
        r = gemm(a, b, c, ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=model, quantize=True)
    want, run = _program_result(plan, a, b, c, model)
    if plan.acc.name == "q32_32":  # mst gives float64, which cannot hold every q32_32 code
        assert np.array_equal(r.values, want)
    else:
        assert np.array_equal(r.codes, formats.encode(want, plan.acc))
    assert r.status == run.core.status


def test_the_exact_fallback_runs_where_the_certificate_fails():
    """BF16 2**100 and 2**-100 in one slice: float64 cannot sum them; those results, and only those, go
    to the exact path, and still equal the program."""
    rng = np.random.default_rng(4)
    a = formats.quantize(rng.standard_normal((40, 24)), "bf16")
    b = formats.quantize(rng.standard_normal((24, 30)), "bf16")
    a[3, 0], a[3, 1] = 2.0**100, 2.0**-100
    calls = []
    real = engine.mac

    def spy(ac, *args):
        calls.append(ac.shape[0])
        return real(ac, *args)

    with mock.patch.object(engine, "mac", spy):
        r = gemm(a, b, ft="bf16")
    assert calls and calls[0] == 30  # row 3's results of slice 0, nothing else
    plan = plan_gemm(40, 30, 24, ft="bf16")
    want, run = _program_result(plan, a, b, None, "fused")
    assert np.array_equal(r.codes, formats.encode(want, plan.acc)) and r.status == run.core.status


def _boundaries(f) -> np.ndarray:
    """Every finite value of a 16-bit format, its neighbours' midpoints, and float64 values just off them."""
    if f.name == "fp16":
        v = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)
    else:  # FP32: random codes, biased toward the extremes
        rng = np.random.default_rng(0)
        codes = np.concatenate([rng.integers(0, 1 << 32, 200_000), np.arange(0, 4096), (0x7F7FFFFF - np.arange(4096)),
                                0x80000000 + np.arange(4096), 0xFF7FFFFF - np.arange(4096)])
        v = codes.astype(np.uint32).view(np.float32)
        v = v[np.isfinite(v)].astype(np.float64)
    v = np.sort(v[np.isfinite(v)])
    mid = (v[:-1] + v[1:]) / 2
    top = v[-1] + (v[-1] - v[-2]) / 2  # the overflow threshold, and beyond
    x = np.concatenate([v, mid, [top, -top, 2 * top, -2 * top, 2.0**-1100]])
    return np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)])


@pytest.mark.parametrize("acc", ["fp16", "fp32"])
@pytest.mark.parametrize("rnd", ["rne", "rup", "rdn", "rtz"])
def test_fast_rounding_equals_encode(acc, rnd):
    """numpy's casts plus the ``nextafter`` steps equal formats.encode on every boundary, with the flag."""
    f = formats.get(acc)
    x = _boundaries(f)
    codes, values, inexact, sat = rounding.round_values(x, f, rnd, False)
    want, fl = formats.encode(x, f, rounding=rnd, return_flags=True)
    assert np.array_equal(codes, want)
    assert np.array_equal(values, formats.decode(want, f), equal_nan=True)
    assert inexact == bool(fl.inexact.any()) and not sat
    exact = formats.decode(want[:1000], f)
    assert not rounding.round_values(exact, f, rnd, False)[2]


def test_wrapped_counts_results_that_left_the_range():
    """INT8 -> INT16 without SAT: wrapped = results that differ from the exact sum; with SAT none wrap."""
    rng = np.random.default_rng(1)
    a, b = rng.integers(-128, 128, (30, 600)), rng.integers(-128, 128, (600, 20))
    exact = a @ b
    r = gemm(a, b, ft="int8")
    assert np.array_equal(r.values, (exact + 2**15) % 2**16 - 2**15)
    assert r.wrapped == np.count_nonzero(np.abs(exact) > 2**15 - 1) > 0
    assert gemm(a[:, :1], b[:1], ft="int8").wrapped == 0  # one product: at most 2**14
    s = gemm(a, b, ft="int8", sat=1)
    assert s.wrapped == 0 and s.status["sat_hit"]


def test_inputs_the_format_cannot_hold_are_errors_unless_quantized():
    with pytest.raises(EncodingError) as e:
        gemm(np.full((4, 5), 0.5), np.ones((5, 7)), ft="int8")
    assert e.value.rule == "ame.gemm.quantize" and e.value.operand == "a" and "quantize=True" in str(e.value)
    assert gemm(np.full((4, 5), 0.5), np.ones((5, 7)), ft="int8", quantize=True).values[0, 0] == 0  # RNE: 0.5 -> 0
    with pytest.raises(EncodingError) as e:
        gemm(np.ones((4, 5)), np.full((5, 7), 300.0), ft="int8")
    assert e.value.operand == "b" and "300" in str(e.value)
    with pytest.raises(EncodingError) as e:
        gemm(np.ones((2, 2)), np.ones((2, 2)), np.full((2, 2), 0.1), ft="bf16")
    assert e.value.operand == "c"
    with pytest.raises(DtypeError):
        gemm(np.array([["a"]]), np.ones((1, 1)))


@pytest.mark.parametrize("a, kw, shown", [
    ([[1, 300]], {"ft": "int8"}, "a[0, 1] = 300 is not a int8 value (it would be stored as 44)"),  # wraps: 300 - 256
    ([[1, 300]], {"ft": "int8", "sat": 1}, "a[0, 1] = 300 is not a int8 value (it would be stored as 127)"),
    ([[0.1]], {"ft": "bf16", "rnd": "rup"}, "a[0, 0] = 0.1 is not a bf16 value (it would be stored as 0.10009765625)"),
    ([[np.nan]], {"ft": "int8"}, "a[0, 0] = nan is not a int8 value"),
])
def test_the_refusal_names_the_element_and_what_rnd_and_sat_would_store(a, kw, shown):
    """formats.fit decides what is refused; the GEMM's own rule id and wording name it, with what RND and SAT
    would store (0.1 rounded up to BF16's step of 2**-11 there: 205 * 2**-11 = 0.10009765625)."""
    with pytest.raises(EncodingError) as e:
        gemm(np.array(a), np.ones((len(a[0]), 1)), **kw)
    assert e.value.rule == "ame.gemm.quantize" and shown in str(e.value) and "quantize=True" in str(e.value)
    with pytest.raises(GeometryError):
        gemm(np.ones(3), np.ones((3, 1)))
    nan = gemm(np.array([[np.nan]]), np.ones((1, 1)), ft="bf16")  # NaN is a bf16 value
    assert np.isnan(nan.values[0, 0])


def test_progress_bar_appears_after_the_delay(monkeypatch):
    import io

    from rich.console import Console

    from tilesim.ame import progress
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    seen = []
    rng = np.random.default_rng(0)
    a = formats.quantize(rng.standard_normal((300, 16)), "bf16")
    r = gemm(a, a.T, ft="bf16", progress=True, on_slice=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (300 * 300, 300 * 300) and r.codes.shape == (300, 300)
    out = io.StringIO()
    with progress.bar(10, show=True, console=Console(file=out, force_terminal=True)) as tick:
        tick(5, 10)
    assert "GEMM (10 MACs)" in out.getvalue()
    monkeypatch.setattr(progress, "DELAY_S", 60.0)
    out = io.StringIO()
    with progress.bar(10, show=True, console=Console(file=out, force_terminal=True)) as tick:
        tick(5, 10)
    assert out.getvalue() == ""  # a short computation draws nothing


@pytest.mark.parametrize("name", FTS + ["fp32", "int64", "q32_32", "fix24_16", "fix16_6"])
def test_lane_shortcuts_equal_the_codec_on_every_code(name):
    """The views and tables of tilesim.ame.lanes against formats.decode/decode_int, every code (64-bit:
    a sample), and int_codes back."""
    from tilesim.ame import lanes
    f = formats.get(name)
    if f.lane_bits <= 16:
        raw = np.arange(1 << f.lane_bits, dtype=np.uint64)
    else:
        raw = np.random.default_rng(0).integers(0, 1 << 63, 50_000, dtype=np.uint64) >> np.uint64(64 - f.lane_bits)
    codes = formats.canonical(raw, f).astype(f.dtype)
    if f.is_integer:
        v = lanes.int_values(codes, f)
        assert np.array_equal(v, formats.decode_int(codes, f))
        assert np.array_equal(lanes.int_codes(v, f), codes)
    else:
        assert np.array_equal(lanes.float_values(codes, f), formats.decode(codes, f), equal_nan=True)


@pytest.mark.parametrize("bits, k", [(8, 1000), (8, 3000), (8, 5000), (16, 300), (24, 300), (62, 3)])
def test_integer_products_are_exact_in_every_branch(bits, k):
    """float32 in one K-chunk (INT8, K = 1000) and in several summed in float64 (K = 3000), float64 (K = 5000,
    INT16), int64 (24 bits) and Python ints (62 bits): each equals the product in Python ints, extremes included."""
    rng = np.random.default_rng(bits)
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    a, b = rng.integers(lo, hi, (7, k), endpoint=True), rng.integers(lo, hi, (5, k), endpoint=True)
    a[0], b[0], a[1] = lo, lo, hi  # the largest sums of both signs
    want = a.astype(object) @ b.astype(object).T
    cache = {}
    for _ in range(2):  # the second call reuses B from the cache
        got = engine._imatmul(a, b, cache)
        assert np.array_equal(got.astype(object), want)
    assert ("b32" in cache) == (bits == 8 and k <= 4 * 1024)


@pytest.mark.parametrize("ft", ["bf16", "fp8_e4m3", "fp8_e5m2", "fp16", "fp4_e2m1"])
@pytest.mark.parametrize("rnd", ["rne", "rup", "rdn", "rtz"])
@pytest.mark.parametrize("sat", [0, 1])
def test_fused_slice_kernel_equals_the_numpy_step(ft, rnd, sat):
    """The fused K-slices in numba (``engine_jit.fused_slices``) against the numpy steps they replaced
    (``engine_jit.ENABLED = False``): codes and flags, with specials, exact zero sums (-0 and +0 terms) and
    slices whose certificate fails."""
    f = formats.get(ft)
    rng = np.random.default_rng(len(ft) + 7 * sat + ord(rnd[1]))
    e = formats.elements_per_row(f)
    a, b = _values(rng, f, (33, 3 * e), True), _values(rng, f, (3 * e, 29), False)
    a[:4], b[:, :4] = 0.0, -0.0  # exact zero sums from signed zero terms
    a[4, : 2 * e], b[: 2 * e, 4] = 1.0, -1.0
    results = []
    for jit in (True, False):
        with mock.patch.object(engine_jit, "ENABLED", jit):
            r = gemm(a, b, ft=ft, rnd=rnd, sat=sat, quantize=True)
        results.append((r.codes, r.status))
    assert np.array_equal(results[0][0], results[1][0]) and results[0][1] == results[1][1]
