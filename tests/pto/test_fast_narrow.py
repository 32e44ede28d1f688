"""The f16/bf16 element-wise fast path (:func:`tilesim.pto.numerics.fast_narrow_into`, decision PTO171) against the
exact path it stands in for: every f16 and bf16 code through sqrt and 1/x, every code paired with many others
through + - * /, and the rounding step alone on every f32 tie and its neighbours."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import formats
from tilesim.pto import get_dtype, jit
from tilesim.pto import numerics as nx

CODES = np.arange(65536, dtype=np.uint32).astype(np.uint16)


def _pairs(rolls: int) -> tuple[np.ndarray, np.ndarray]:
    """Every code against ``rolls`` others (each code meets the same partners' offsets, so every code is an a
    and a b ``rolls`` times), plus every code against each special: +-0, +-1, +-Inf, the largest and smallest."""
    rng = np.random.default_rng(rolls)
    shifts = rng.integers(1, 65536, rolls)
    a = np.concatenate([CODES] * rolls)
    b = np.concatenate([np.roll(CODES, int(s)) for s in shifts])
    return a, b


_SPECIAL = {"f16": [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7BFF, 0x0001, 0x8001, 0x0400],
            "bf16": [0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7F7F, 0x0001, 0x8001, 0x0080]}


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_fast_path_equals_the_exact_path(dt, op):
    d = get_dtype(dt)
    a, b = _pairs(12)
    sp = np.array(_SPECIAL[dt], np.uint16)
    a = np.concatenate([a, np.repeat(CODES, sp.size), np.tile(sp, CODES.size)])
    b = np.concatenate([b, np.tile(sp, CODES.size), np.repeat(CODES, sp.size)])
    want = nx.binary_exact(op, a, b, d, x86=True)
    assert np.array_equal(nx.binary(op, a, b, d, x86=True), want)  # NaN results: the exact path's payloads
    ok = ~np.isnan(nx.as_f32(want, d))
    got = np.empty(int(ok.sum()), np.uint16)
    assert nx.fast_narrow_into(op, a[ok], b[ok], got, d)
    assert np.array_equal(got, want[ok])


@pytest.mark.parametrize("dt", ["f16", "bf16"])
@pytest.mark.parametrize("op", ["sqrt", "recip"])
def test_unary_fast_path_equals_the_exact_path_on_every_code(dt, op):
    d = get_dtype(dt)
    want = nx.unary_exact(op, CODES, d, x86=True)
    assert np.array_equal(nx.unary(op, CODES, d, x86=True), want)
    ok = ~np.isnan(nx.as_f32(want, d))
    got = np.empty(int(ok.sum()), np.uint16)
    assert nx.fast_narrow_into(op, CODES[ok], None, got, d)
    assert np.array_equal(got, want[ok])


def _ties_and_neighbours(dt: str) -> np.ndarray:
    """f32 lanes at every rounding tie of ``dt`` (the midpoint of each pair of neighbouring positive codes,
    normal and subnormal, and the overflow threshold past the largest), one f32 ulp either side, each code, all
    with both signs, and random f32 lanes over every binade."""
    d = get_dtype(dt)
    with np.errstate(invalid="ignore"):  # signaling NaNs quieted by the widening (dropped just below)
        v = nx.as_f32(CODES, d).astype(np.float64)
    v = v[: int(np.flatnonzero(v == np.inf)[0]) + 1]  # +0 .. +Inf, in order
    mid = (v[:-1] + v[1:]) / 2
    mid[-1] = v[-2] + (v[-2] - v[-3]) / 2  # past the largest finite: the overflow threshold
    mid32 = mid.astype(np.float32).view(np.uint32)  # exact: a tie of an 11-bit (or 8-bit) format fits in f32
    x = np.concatenate([mid32, mid32 + np.uint32(1), mid32 - np.uint32(1), v[:-1].astype(np.float32).view(np.uint32)])
    x = np.concatenate([x, x | np.uint32(0x80000000)])
    rand = np.random.default_rng(7).integers(0, 1 << 32, 400_000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([x, rand])
    return x[~np.isnan(x.view(np.float32))]


@pytest.mark.parametrize("dt", ["f16", "bf16"])
def test_the_rounding_step_equals_formats_encode_at_every_tie(dt):
    """The fast path's one departure from the exact path is how it rounds the float32 result
    (:func:`tilesim.pto.numerics.round_narrow`); here that step against :func:`tilesim.formats.encode`."""
    d = get_dtype(dt)
    x = _ties_and_neighbours(dt).view(np.float32)
    assert np.array_equal(nx.round_narrow(x.copy(), d), formats.encode(x, d.format))


def test_f16_widening_kernel_on_every_code():
    """numba's f16 -> f32 widening equals numpy's on every code that is not a NaN (NaN inputs give NaN results,
    which the exact path takes), and keeps a NaN a NaN."""
    out = np.empty(CODES.size, np.uint32)
    jit.f16_widen(CODES, out)
    f16 = CODES.view(np.float16)
    nan = np.isnan(f16)
    assert np.array_equal(out[~nan], f16[~nan].astype(np.float32).view(np.uint32))
    assert np.isnan(out[nan].view(np.float32)).all()


def test_f16_rounding_kernel_equals_numpys_cast():
    """numba's f32 -> f16 rounding (the fast path's, on contiguous results) against numpy's cast on the ties and
    their neighbours and on random lanes; ``test_the_rounding_step_equals_formats_encode_at_every_tie`` holds it
    to :func:`tilesim.formats.encode`."""
    x = _ties_and_neighbours("f16")
    out = np.empty(x.size, np.uint16)
    jit.f16_round(x, out)
    with np.errstate(over="ignore"):
        assert np.array_equal(out, x.view(np.float32).astype(np.float16).view(np.uint16))
