"""Encode: every mode, every format, at and around every midpoint, against oracles.

The Fraction oracle (``oracle.py``) is written from docs/decisions.md alone;
gfloat is the independent library oracle for the float formats it can model.
"""

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim import formats
from tilesim.formats import Domain

from . import oracle
from .gfloat_map import MODES, info

ALL = [f for f in formats.all_formats() if f.domain is not Domain.TAPERED]  # HiF8 has its own oracle: test_hif8
SMALL = [f for f in ALL if f.bits <= 16]
MODE_NAMES = list(MODES)
FLAG_NAMES = formats.Flags.NAMES


def probe_values(f, limit=None, seed=0):
    """Every finite value, the midpoints between neighbours and the float64 just below
    and above each, plus values around max, below the smallest step, and specials."""
    vals = np.unique(formats.decode(np.array(list(oracle.codes_of(f)), np.uint64), f))
    vals = vals[np.isfinite(vals)]
    if not f.signed:
        vals = vals[vals >= 0]
    mids = (vals[:-1] + vals[1:]) / 2
    top = float(oracle.step_above_max(f))
    extra = [top, (f.max + top) / 2, 2 * top, f.min_subnormal / 2, f.min_subnormal / 4, 1e-300, 1e300]
    pts = np.concatenate([vals, mids, np.nextafter(mids, -np.inf), np.nextafter(mids, np.inf), extra])
    pts = np.concatenate([pts, np.nextafter(pts, np.inf), np.nextafter(pts, -np.inf)])
    pts = np.concatenate([pts, -pts, [0.0, -0.0, np.inf, -np.inf, np.nan]])
    if limit is not None and pts.size > limit:
        rng = np.random.default_rng(seed)
        pts = np.concatenate([pts[-5:], rng.choice(pts, limit, replace=False)])
    return pts


def check_against_oracle(f, x, mode, saturate=False, flush=False):
    codes, flags = formats.encode(x, f, rounding=mode, saturate=saturate, flush_subnormals=flush,
                                  return_flags=True)
    bits = flags.bits()
    for i, xi in enumerate(x.tolist()):
        want, wflags = oracle.encode(oracle.as_value(xi), f, mode, saturate, flush)
        got = int(codes[i])
        gflags = {n for j, n in enumerate(FLAG_NAMES) if bits[i] >> j & 1}
        assert (got, gflags) == (want, wflags), (
            f"{f.name} {mode} sat={saturate} flush={flush} x={xi!r}: got {got:#x} {sorted(gflags)}, "
            f"want {want:#x} {sorted(wflags)}")


@pytest.mark.parametrize("f", [f for f in SMALL if f.bits <= 8], ids=lambda f: f.name)
@pytest.mark.parametrize("mode", MODE_NAMES)
def test_small_formats_all_probes_vs_fraction(f, mode):
    x = probe_values(f)
    check_against_oracle(f, x, mode)
    check_against_oracle(f, x, mode, saturate=True)
    if f.is_float:
        check_against_oracle(f, x, mode, flush=True)


@pytest.mark.parametrize("f", [f for f in SMALL if f.bits > 8], ids=lambda f: f.name)
@pytest.mark.parametrize("mode", MODE_NAMES)
def test_wider_formats_sampled_probes_vs_fraction(f, mode):
    x = probe_values(f, limit=1500, seed=hash((f.name, mode)) % 2**32)
    check_against_oracle(f, x, mode)
    check_against_oracle(f, x[::3], mode, saturate=True)


def _same_values(a, b):
    return (a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("f", [f for f in SMALL if f.is_float and f.domain is not Domain.SCALE],
                         ids=lambda f: f.name)
@pytest.mark.parametrize("mode", MODE_NAMES)
def test_all_probes_vs_gfloat(f, mode):
    """Every midpoint of every 16-bit-or-smaller float format, all modes, against gfloat."""
    import gfloat
    fi = info(f)
    x = probe_values(f)
    x = x[~np.isnan(x)]
    if not f.signed:
        x = x[~np.signbit(x)]
    # formats without Inf/NaN saturate by policy; gfloat needs sat=True for them
    sat_default = f.domain is Domain.FINITE
    for sat in {sat_default, True}:
        got = formats.quantize(x, f, rounding=mode, saturate=sat)
        want = np.asarray(gfloat.round_ndarray(fi, x, MODES[mode], sat=sat), np.float64)
        bad = ~_same_values(got, want)
        assert not bad.any(), f"{f.name} {mode} sat={sat}: x={x[bad][:5]} got={got[bad][:5]} want={want[bad][:5]}"


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_tf32_vs_gfloat(mode):
    import gfloat
    f = formats.get("tf32")
    rng = np.random.default_rng(3)
    sig = rng.integers(0, 2**53, 200000).astype(np.float64)
    x = np.ldexp(sig, rng.integers(-200, 80, sig.size)) * rng.choice([-1.0, 1.0], sig.size)
    got = formats.quantize(x, f, rounding=mode)
    want = np.asarray(gfloat.round_ndarray(info(f), x, MODES[mode]), np.float64)
    assert _same_values(got, want).all()


@pytest.mark.parametrize("f", SMALL, ids=lambda f: f.name)
def test_encode_decode_roundtrip_every_code(f):
    codes = np.array(list(oracle.codes_of(f)), np.uint64)
    vals = formats.decode(codes, f)
    keep = ~np.isnan(vals)
    for mode in MODE_NAMES:
        back = formats.encode(vals[keep], f, rounding=mode)
        assert (back == codes[keep]).all(), f"{f.name} {mode}"
    nan = formats.encode(np.array([np.nan]), f)
    assert (np.isnan(formats.decode(nan, f)) if f.has_nan else nan == formats.encode(f.max, f)).all()


@pytest.mark.parametrize("name", ["int32", "int64", "uint32", "uint64", "q16_16", "q32_32", "fix24_14", "fp32", "tf32",
                                  "fp64"])
@given(data=st.data())
def test_wide_formats_hypothesis(name, data):
    f = formats.get(name)
    scale = 2.0 ** (f.bits - 1 - f.frac_bits) if f.is_integer else 2.0 ** f.emax
    x = data.draw(st.lists(st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(-4 * scale, 4 * scale),
        st.integers(-(2**62), 2**62).map(lambda n: n / 2.0 ** (f.frac_bits + 1)),
        st.floats(-2.0, 2.0)), min_size=1, max_size=20))
    mode = data.draw(st.sampled_from(MODE_NAMES))
    sat = data.draw(st.booleans())
    check_against_oracle(f, np.array(x, np.float64), mode, saturate=sat)


# uf16_e8m8 builds a float64 table for each rounding, saturation and flush it draws (15 s in all), so it runs
# under -m slow; its probes against gfloat and the Fraction oracle above still run by default.
@pytest.mark.parametrize("f", [pytest.param(f, marks=[pytest.mark.slow] if f.name == "uf16_e8m8" else [])
                               for f in SMALL], ids=lambda f: f.name)
@given(x=st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True), min_size=1, max_size=30),
       mode=st.sampled_from(MODE_NAMES), sat=st.booleans(), flush=st.booleans())
def test_any_float64_hypothesis(f, x, mode, sat, flush):
    check_against_oracle(f, np.array(x, np.float64), mode, saturate=sat, flush=flush and f.is_float)


def test_exact_integer_inputs():
    big = np.array([2**63 - 1, -(2**63), 2**53 + 1, -(2**53) - 1], np.int64)
    assert (formats.decode_int(formats.encode(big, "int64"), "int64") == big).all()
    u = np.array([2**64 - 1, 2**63 + 3], np.uint64)
    assert (formats.encode(u, "uint64") == u).all()
    assert formats.encode(u, "int64", saturate=True).view(np.int64).tolist() == [2**63 - 1] * 2
    # 2**53 + 1 is not a float64: the integer path rounds it once, RNE to 2**53 in fp32 terms
    assert formats.decode(formats.encode(np.array([2**53 + 1]), "fp64"), "fp64")[0] == 2.0**53
    assert formats.decode(formats.encode(np.array([2**24 + 1]), "fp32", rounding="rup"), "fp32")[0] == 2**24 + 2
    assert formats.decode_int(formats.encode(np.array([3]), "q32_32"), "q32_32")[0] == 3 << 32


def test_parts_with_sticky():
    # 1 + 2**-60 (sig = 2**60 + 1 at exp -60) and a sticky tail: RUP to bf16 must go up
    p = formats.Parts.finite([False, False], [(1 << 60), (1 << 60)], -60, sticky=[True, False])
    assert formats.encode(p, "bf16", rounding="rup").tolist() == [0x3F81, 0x3F80]
    assert formats.encode(p, "bf16", rounding="rne").tolist() == [0x3F80, 0x3F80]


@pytest.mark.parametrize("mode", MODE_NAMES)
def test_overflow_e4m3(mode):
    x = np.array([448.0, 460.0, 464.0, 465.0, 480.0, 1e9, -465.0, -1e9])
    c, fl = formats.encode(x, "e4m3", rounding=mode, return_flags=True)
    v = formats.decode(c, "e4m3")
    # 464 is the midpoint 448|480 (virtual): RNE ties to 448 (even), RMM to NaN
    expect_nan = {"rne": [465, 480, 1e9, -465, -1e9], "rmm": [464, 465, 480, 1e9, -465, -1e9],
                  "rtz": [], "rup": [460, 464, 465, 480, 1e9], "rdn": [-465, -1e9]}[mode]
    assert set(x[np.isnan(v)].tolist()) == set(float(e) for e in expect_nan)
    assert (np.abs(v[~np.isnan(v)]) == 448).all()
    assert (fl.overflow == np.isin(x, expect_nan) | (np.abs(x) > 464) & (mode != "rne") & (mode != "rmm")
            & ((np.abs(x) >= 465) | (mode == "rup") & (x > 0) | (mode == "rdn") & (x < 0))).any()


def test_overflow_ieee_directed():
    x = np.array([1e6, -1e6])
    assert formats.quantize(x, "fp16", "rne").tolist() == [math.inf, -math.inf]
    assert formats.quantize(x, "fp16", "rtz").tolist() == [65504.0, -65504.0]
    assert formats.quantize(x, "fp16", "rup").tolist() == [math.inf, -65504.0]
    assert formats.quantize(x, "fp16", "rdn").tolist() == [65504.0, -math.inf]
    assert formats.quantize(x, "fp16", "rne", saturate=True).tolist() == [65504.0, -65504.0]


def test_overflow_integers_wrap_and_saturate():
    x = np.array([127.4, 127.5, 128, 300, -128.5, -129, -300, 1e30, -1e30])
    assert formats.decode(formats.encode(x, "int8"), "int8").tolist() == [127, -128, -128, 44, -128, 127, -44, 0, 0]
    assert formats.decode(formats.encode(x, "int8", saturate=True), "int8").tolist() == [
        127, 127, 127, 127, -128, -128, -128, 127, -128]
    _, fl = formats.encode(x, "int8", saturate=True, return_flags=True)
    assert fl.saturated.tolist() == [False, True, True, True, False, True, True, True, True]
    u = formats.encode(np.array([-1.0, 256.0, 255.5]), "uint8")
    assert u.tolist() == [255, 0, 0]
    assert formats.encode(np.array([-1.0, 256.0]), "uint8", saturate=True).tolist() == [0, 255]


def test_fixed_point_rounding():
    # q4_3 has a step of 1/8; 1/16 is a tie
    x = np.array([1 / 16, 3 / 16, -1 / 16, -3 / 16, 15.875, 15.9375, -16.0, -16.0625])
    rne = formats.decode(formats.encode(x, "q4_3"), "q4_3").tolist()
    assert rne == [0.0, 0.25, 0.0, -0.25, 15.875, -16.0, -16.0, -16.0]
    rmm = formats.decode(formats.encode(x, "q4_3", "rmm", saturate=True), "q4_3").tolist()
    assert rmm == [0.125, 0.25, -0.125, -0.25, 15.875, 15.875, -16.0, -16.0]


def test_specials_policy():
    nan, inf = np.nan, np.inf
    # NaN into formats without NaN: +max, invalid
    c, fl = formats.encode([nan], "fp4_e2m1", return_flags=True)
    assert c.tolist() == [0x7] and fl.invalid.tolist() == [True]
    # Inf into E4M3: NaN (invalid) or max when saturating
    assert formats.encode([inf, -inf], "e4m3").tolist() == [0x7F, 0x7F]
    assert formats.encode([inf, -inf], "e4m3", saturate=True).tolist() == [0x7E, 0xFE]
    # canonical NaNs
    assert formats.encode([nan], "fp16").tolist() == [0x7E00]
    assert formats.encode([nan], "bf16").tolist() == [0x7FC0]
    assert formats.encode([nan], "fp32").tolist() == [0x7FC00000]
    assert formats.encode([nan], "e5m2").tolist() == [0x7E]
    # -0
    assert formats.encode([-0.0], "fp8_e4m3").tolist() == [0x80]
    assert formats.encode([-0.0], "uf4_e2m2").tolist() == [0]
    assert formats.encode([-0.0], "int8").tolist() == [0]


def test_e8m0_policy():
    x = np.array([3.0, 1.5, 0.75, 2.0**-128, 2.0**-140, 0.0, -1.0, 2.0**128, 1.5 * 2.0**127])
    c, fl = formats.encode(x, "e8m0", return_flags=True)
    assert c.tolist() == [128, 128, 126, 0, 0, 255, 255, 255, 254]
    assert fl.invalid.tolist() == [False] * 5 + [True, True, False, False]
    assert fl.underflow.tolist() == [False] * 3 + [True, True] + [False] * 4


def test_subnormal_flush_and_underflow():
    f = formats.get("fp16")
    tiny = np.array([2.0**-25, 3 * 2.0**-25, 2.0**-14 - 2.0**-26, 2.0**-20])
    c, fl = formats.encode(tiny, f, return_flags=True)
    assert c.tolist() == [0x0000, 0x0002, 0x0400, 0x0010]
    assert fl.underflow.tolist() == [True, True, False, False]
    c2 = formats.encode(tiny, f, flush_subnormals=True)
    assert c2.tolist() == [0x0000, 0x0000, 0x0400, 0x0000]
    assert formats.encode(-tiny, f, flush_subnormals=True).tolist() == [0x8000, 0x8000, 0x8400, 0x8000]


def test_float32_and_float16_inputs_exact():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(10000).astype(np.float32)
    assert (formats.encode(x, "bf16") == formats.encode(x.astype(np.float64), "bf16")).all()
    h = x.astype(np.float16)
    assert (formats.encode(h, "e4m3") == formats.encode(h.astype(np.float64), "e4m3")).all()


def test_large_arrays_are_chunked_consistently():
    rng = np.random.default_rng(6)
    x = rng.standard_normal(200_001) * 100
    c, fl = formats.encode(x, "e4m3", return_flags=True)
    c2, fl2 = formats.encode(x[:1000], "e4m3", return_flags=True)
    assert (c[:1000] == c2).all() and (fl.bits()[:1000] == fl2.bits()).all()
    assert c.shape == x.shape and fl.inexact.shape == x.shape
    x3 = x.reshape(3, -1, 1)
    assert (formats.encode(x3, "e4m3").reshape(-1) == c).all()


def test_bad_mode_lists_valid():
    from tilesim.errors import FormatError
    with pytest.raises(FormatError, match="rne, rtz, rup, rdn, rmm"):
        formats.encode([1.0], "fp16", rounding="nearest")


def _numpy_integer_reference(x, f, mode, saturate):
    """Independent reference for integer/fixed formats of 16 bits or fewer: float64
    floor/ceil/rint and v - floor(v) are exact (not floor(v + 0.5)), so the rounding
    is too; then wrap or clamp in int64."""
    y = x * 2.0 ** f.frac_bits
    r = {"rne": np.rint, "rtz": np.trunc, "rup": np.ceil, "rdn": np.floor,
         "rmm": lambda v: np.sign(v) * (np.floor(np.abs(v)) + (np.abs(v) - np.floor(np.abs(v)) >= 0.5))}[mode](y)
    lo, hi = (-(2 ** (f.bits - 1)), 2 ** (f.bits - 1) - 1) if f.signed else (0, 2**f.bits - 1)
    n = r.astype(np.int64)
    if saturate:
        n = np.clip(n, lo, hi)
    else:
        n = (n - lo) % (2**f.bits) + lo
    return (n & (2**f.lane_bits - 1)) if f.signed else n


@pytest.mark.parametrize("f", [f for f in SMALL if f.is_integer], ids=lambda f: f.name)
def test_integer_formats_every_midpoint_vs_numpy(f):
    vals = formats.decode(np.array(list(oracle.codes_of(f)), np.uint64), f)
    vals = np.unique(vals)
    step = 2.0 ** -f.frac_bits
    mids = np.concatenate([vals + step / 2, [vals[0] - step / 2, vals[0] - 3 * step, vals[-1] + 3 * step]])
    x = np.concatenate([vals, mids, np.nextafter(mids, -np.inf), np.nextafter(mids, np.inf)])
    x = np.concatenate([x, -x])
    x = x[np.abs(x) < 2.0 ** (f.bits - f.frac_bits + 1)]  # wrap of far values is tested elsewhere
    for mode in MODE_NAMES:
        for sat in (False, True):
            got = formats.encode(x, f, mode, saturate=sat).astype(np.int64)
            want = _numpy_integer_reference(x, f, mode, sat)
            assert (got == want).all(), (f.name, mode, sat, x[got != want][:5])
