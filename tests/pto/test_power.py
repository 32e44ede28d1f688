"""TPOW and TPOWS (decision PTO132) against independent oracles: the C library's ``pow`` (what the simulator
calls) for the float lanes on target cpu, exact rationals for the NPUs' single rounding, and Python's integers
for the wrapping integer powers."""

from __future__ import annotations

import ctypes
import ctypes.util
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.errors import TilesimError
from tilesim.pto import Tile, tpow, tpows
from tilesim.pto.ops.power import _dyadic_power, float_pow

_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.pow.restype, _libm.pow.argtypes = ctypes.c_double, (ctypes.c_double, ctypes.c_double)


def _c_pow_f16(base: np.ndarray, exp: np.ndarray, via_f32: bool) -> np.ndarray:
    """f16 codes of C's ``pow`` of f16 codes, cast as TPow.hpp (half(float(r))) or OP_POWS (half(r)) does."""
    out = np.empty(base.size, np.uint16)
    for i, (b, e) in enumerate(zip(base.view(np.float16).astype(float), exp.view(np.float16).astype(float))):
        r = _libm.pow(b, e)
        with np.errstate(over="ignore"):
            out[i] = np.array(np.float32(r) if via_f32 else r).astype(np.float16).view(np.uint16)
    return out


def _run(fn, dt, base, exp, target="cpu"):
    n = base.size
    b, e, d = (Tile("vec", dt, 1, n) for _ in range(3))
    b.bits[0], d.bits[0] = base, 0
    if isinstance(exp, np.ndarray):
        e.bits[0] = exp
        return fn(d, b, e, target=target).bits[0].copy()
    return fn(d, b, exp, target=target).bits[0].copy()


# every f16 code as base, against exponents that hit the exact, odd, even and fractional paths
_EXPS16 = [0.5, 2.0, 3.0, -1.0, -2.5, 1 / 3, 7.0, -0.25]


@pytest.mark.parametrize("e", _EXPS16)
def test_cpu_f16_every_base_matches_c_pow(e):
    base = np.arange(1 << 16, dtype=np.uint16)
    exp = np.full(base.size, np.float16(e).view(np.uint16), np.uint16)
    got = _run(tpow, "f16", base, exp)
    want = _c_pow_f16(base, exp, via_f32=True)
    nan = (want & 0x7C00 == 0x7C00) & (want & 0x3FF != 0)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.all((got[nan] & 0x7C00 == 0x7C00) & (got[nan] & 0x3FF != 0))


@pytest.mark.parametrize("b", [2.0, 0.5, -2.0, 10.0, 1.0009765625, -0.999, 0.0, -1.0])
def test_cpu_f16_every_exponent_matches_c_pow_tpows_chain(b):
    """TPOWS rounds the double straight to half; every f16 code as the exponent of TPOW, the same base."""
    exp = np.arange(1 << 16, dtype=np.uint16)
    base = np.full(exp.size, np.float16(b).view(np.uint16), np.uint16)
    got = _run(tpow, "f16", base, exp)
    want = _c_pow_f16(base, exp, via_f32=True)
    ok = ~((want & 0x7C00 == 0x7C00) & (want & 0x3FF != 0))
    assert np.array_equal(got[ok], want[ok])


def test_cpu_tpows_f16_rounds_once_from_double():
    """TPOWS: half(pow) has one rounding, TPOW's half(float(pow)) two; both equal the C library's."""
    base = np.arange(0x3C00, 0x4400, dtype=np.uint16)   # [1, 4)
    s = np.float16(2.5)
    got = _run(tpows, "f16", base, s)
    want = _c_pow_f16(base, np.full(base.size, s.view(np.uint16)), via_f32=False)
    assert np.array_equal(got, want)


def test_cpu_f32_double_rounding_midpoint():
    """(1 + 2**-12)**2 = 1 + 2**-11 + 2**-24 is an f32 midpoint, exact in double: ties to even."""
    got = _run(tpows, "f32", np.array([np.float32(1 + 2 ** -12).view(np.uint32)] * 8, np.uint32), 2.0)
    assert got[0] == np.float32(1 + 2 ** -11).view(np.uint32)


@settings(max_examples=100, deadline=None)
@given(st.floats(width=32, allow_nan=False), st.floats(width=32, allow_nan=False))
def test_cpu_f32_matches_c_pow(x, y):
    """Random f32 pairs: the cpu result is float(C's pow(double x, double y)), NaN aside."""
    with np.errstate(over="ignore"):
        want = np.float32(_libm.pow(x, y))
    b = np.full(8, np.float32(x).view(np.uint32), np.uint32)
    got = _run(tpows, "f32", b, np.float32(y))[0]
    if np.isnan(want):
        assert np.isnan(np.uint32(got).view(np.float32))
    else:
        assert got == want.view(np.uint32)


def _nearest_f16(q: Fraction) -> int:
    """The f16 code nearest the rational q (ties to an even code), by exact comparison."""
    c = int(np.float16(float(q)).view(np.uint16))
    cands = [c - 1, c, c + 1]
    dist = [abs(Fraction(float(np.uint16(k).view(np.float16))) - q) for k in cands]
    best = min(dist)
    return min((k for k, d in zip(cands, dist) if d == best), key=lambda k: k % 2)


def test_npu_rounds_the_exact_power_once():
    """a5: the power rounded once to f16 (not through f32), against exact rationals."""
    pairs = [(1.5, 2, Fraction(9, 4)), (3.0, 3, Fraction(27)), (2.25, 0.5, Fraction(3, 2)),
             (0.75, 3, Fraction(27, 64)), (-3.0, 3, Fraction(-27)), (1 + 2 ** -10, 11, Fraction(1025, 1024) ** 11),
             (1 + 2 ** -9, 7, Fraction(513, 512) ** 7), (3.0, -2, Fraction(1, 9))]
    base = np.float16([p[0] for p in pairs]).view(np.uint16)
    exp = np.float16([p[1] for p in pairs]).view(np.uint16)
    got = _run(tpow, "f16", np.resize(base, 16), np.resize(exp, 16), target="a5")[:len(pairs)]
    assert got.tolist() == [_nearest_f16(q) for _, _, q in pairs]


def test_cpu_f32_huge_integer_exponents_near_one():
    """(1 + 2**-23) ** 2**30 is an exact dyadic of 24 * 2**30 bits: decided without computing it."""
    x = np.float32(1 + 2 ** -23)
    for y in (2.0 ** 30, -(2.0 ** 30), 3.0 * 2 ** 27, 2.0 ** 24 + 2):
        got = _run(tpows, "f32", np.full(8, x.view(np.uint32), np.uint32), np.float32(y))[0]
        with np.errstate(over="ignore"):
            assert got == np.float32(_libm.pow(float(x), y)).view(np.uint32)


@pytest.mark.parametrize("fmt,np_t", [("fp16", np.float16), ("fp32", np.float32)])
def test_numpy_casts_from_float64_match_the_codec_at_every_boundary(fmt, np_t):
    """The power path rounds float64 with numpy's casts: at every midpoint between codes of the format (f16: all
    of them; f32: 2**16 spread ones) and a float64 ulp either side, they equal the codec's rounding."""
    from tilesim import formats
    if fmt == "fp16":
        codes = np.arange(0x7C00, dtype=np.uint16)
    else:
        codes = np.random.default_rng(5).integers(0, 0x7F800000, 1 << 16, dtype=np.uint32)
    lo, hi = codes.view(np_t).astype(np.float64), (codes + 1).view(np_t).astype(np.float64)
    mid = (lo + hi) / 2                                              # exact in float64
    v = np.concatenate([mid, np.nextafter(mid, 0), np.nextafter(mid, np.inf), lo])
    v = np.concatenate([v, -v])
    with np.errstate(over="ignore"):
        got = v.astype(np_t).view(codes.dtype)
    assert np.array_equal(got, formats.encode(v, fmt).astype(codes.dtype))


def test_dyadic_powers_are_found_exactly():
    assert _dyadic_power(2.25, 0.5) == Fraction(3, 2)
    assert _dyadic_power(2.0 ** -3, 1 / 3 * 3) == Fraction(1, 8)
    assert _dyadic_power(9.0, -0.5) is None and _dyadic_power(3.0, 0.5) is None


def test_special_cases_follow_c99():
    inf, nan = np.inf, np.nan
    x = np.array([-0.0, -0.0, 0.0, -inf, -inf, -1.0, 0.5, 2.0, nan, 1.0, -8.0])
    y = np.array([-3.0, 3.0, -2.0, 3.0, -3.0, inf, -inf, -inf, 0.0, nan, 1 / 3])
    got = float_pow(x, y, ("fp64", "fp32")).astype(np.uint32).view(np.float32)
    want = [-inf, -0.0, inf, -inf, -0.0, 1.0, inf, 0.0, 1.0, 1.0, nan]
    for g, w in zip(got, want):
        assert (np.isnan(g) and np.isnan(w)) or (g == w and np.signbit(g) == np.signbit(w))


@pytest.mark.parametrize("dt", ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"])
def test_integer_powers_wrap(dt):
    rng = np.random.default_rng(7)
    from tilesim.pto import get_dtype
    d = get_dtype(dt)
    n = 256 // d.size * 2
    base = rng.integers(0, 1 << d.bits, n, dtype=np.uint64).astype(d.lane)
    base[:4] = np.array([1, 0, (1 << d.bits) - 1, 2], np.uint64).astype(d.lane)
    exp = rng.integers(0, 80, n).astype(d.lane)
    exp[:4] = 5
    if d.signed:
        exp[-4:] = np.array([-1, -2, -3, -1], np.int64).astype(d.np).view(d.lane)
        base[-4:] = np.array([-1, -1, 5, 0], np.int64).astype(d.np).view(d.lane)
    got = _run(tpow, dt, base, exp)
    for g, b, e in zip(got, base.view(d.np).tolist(), exp.view(d.np).tolist()):
        if e < 0:
            want = (1 if e % 2 == 0 else -1) if b == -1 else (1 if b == 1 else 0)
        else:
            want = pow(b, e, 1 << d.bits)
        assert int(g) == want % (1 << d.bits), (b, e)


def test_cpu_integer_tpows_is_the_truncated_double_pow():
    got = _run(tpows, "i32", np.array([3, -3, 10, 2, 0, 1, 7, 5], np.int32).view(np.uint32), -1)
    assert got.view(np.int32).tolist() == [0, 0, 0, 0, -(2 ** 31), 1, 0, 0]  # 0 ** -1 = Inf: x86's 0x80000000


def test_cpu_integer_tpows_out_of_range_is_undefined_and_strict_refuses():
    from tilesim.pto import get_target
    b, d = Tile("vec", "i16", 1, 16), Tile("vec", "i16", 1, 16)
    b.values[0] = 300
    tpows(d, b, 3, target="cpu")
    assert d.undefined is not None and d.undefined[0].all()
    with pytest.raises(TilesimError) as e:
        tpows(d, b, 3, target=get_target("cpu").with_(strict=True))
    assert e.value.rule == "pto.tcvt.undefined"


def test_refusals():
    b, e, d = (Tile("vec", "f16", 1, 16) for _ in range(3))
    with pytest.raises(TilesimError) as err:
        tpow(d, b, e, target="a2a3")        # A2A3: f32 and integers only
    assert err.value.rule == "pto.op.dtype"
    f = [Tile("vec", "f32", 1, 8) for _ in range(3)]
    with pytest.raises(TilesimError) as err:
        tpow(*f, target="a2a3")              # A2A3 reads tmp for floats
    assert err.value.operand == "tmp"
    tpow(*f, Tile("vec", "f32", 1, 8), target="a2a3")
    cm = [Tile("vec", "f32", 8, 1, blayout="col_major") for _ in range(2)]
    tpow(cm[0], cm[1], Tile("vec", "f32", 8, 1, blayout="col_major"), target="cpu")  # TPow.hpp: any layout
    with pytest.raises(TilesimError) as err:
        tpows(cm[0], cm[1], 2.0, target="cpu")                                         # OP_POWS: row-major
    assert err.value.rule == "pto.op.layout"
    with pytest.raises(TilesimError):
        tpows(f[0], f[1], "two", target="cpu")
    before = f[0].bits.copy()
    with pytest.raises(TilesimError):
        tpow(f[0], f[1], Tile("vec", "f32", 1, 8, valid=(1, 4)), target="cpu")
    assert np.array_equal(before, f[0].bits)


def test_pto_dps_forms():
    """``pto.tpow ins(%b, %e, %tmp) outs(%d)`` and ``pto.tpows ins(%b, %s, %tmp) outs(%d)`` (scalar f32)."""
    import io

    from tilesim import pto
    t = ("!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=8, v_row=1, v_col=8, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
    text = f"""module {{
  func.func @k() {{
    %b = pto.alloc_tile : {t}
    %e = pto.alloc_tile : {t}
    %m = pto.alloc_tile : {t}
    %d = pto.alloc_tile : {t}
    %c3 = arith.constant 3.0 : f32
    %c2 = arith.constant 2.0 : f32
    pto.texpands ins(%c3 : f32) outs(%b : {t})
    pto.texpands ins(%c2 : f32) outs(%e : {t})
    pto.tpow ins(%b, %e, %m : {t}, {t}, {t}) outs(%d : {t})
    pto.tprint ins(%d : {t})
    pto.tpows ins(%d, %c3, %m : {t}, f32, {t}) outs(%d : {t})
    pto.tprint ins(%d : {t})
    return
  }}
}}
"""
    for target in ("cpu", "a2a3", "a5"):
        out = io.StringIO()
        pto.run_text(text, {}, target, stdout=out)
        assert "9." in out.getvalue() and "729." in out.getvalue(), out.getvalue()
