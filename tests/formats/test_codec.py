"""Decode: every code of every format of 16 bits or fewer, against two oracles."""

import math
from fractions import Fraction

import numpy as np
import pytest

from tilesim import formats
from tilesim.errors import FormatError

from . import oracle
from .gfloat_map import info

SMALL = [f for f in formats.all_formats() if f.bits <= 16 and f.domain is not formats.Domain.TAPERED]  # HiF8: test_hif8
ids = [f.name for f in SMALL]


def _as_float(v):
    if v == "nan":
        return math.nan
    if v in ("+inf", "-inf"):
        return math.inf if v == "+inf" else -math.inf
    if v == "-0":
        return -0.0
    return float(v)


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bitwise-identical float64 (NaN == NaN, -0 != +0)."""
    return (a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))


@pytest.mark.parametrize("f", SMALL, ids=ids)
def test_decode_every_code_vs_fraction_oracle(f):
    codes = np.array(list(oracle.codes_of(f)), dtype=np.uint64)
    got = formats.decode(codes, f)
    want = np.array([_as_float(oracle.value_of(int(c), f)) for c in codes])
    # every value must also be exact: float64 must equal the Fraction
    for c, g in zip(codes[:: max(1, len(codes) // 4096)], got[:: max(1, len(codes) // 4096)]):
        v = oracle.value_of(int(c), f)
        if not isinstance(v, str):
            assert Fraction(g) == v
    assert _same(got, want).all()


@pytest.mark.parametrize("f", [f for f in SMALL if info(f) is not None], ids=lambda f: f.name)
def test_decode_every_code_vs_gfloat(f):
    import gfloat
    fi = info(f)
    codes = np.array(list(oracle.codes_of(f)), dtype=np.uint64)
    want = gfloat.decode_ndarray(fi, (codes >> np.uint64(f.lane_shift)).astype(np.int64))
    assert _same(formats.decode(codes, f), np.asarray(want, np.float64)).all()


@pytest.mark.parametrize("name", ["tf32", "fp32", "int32", "q16_16", "fix24_16"])
def test_decode_wide_sampled(name):
    f = formats.get(name)
    rng = np.random.default_rng(1)
    raw = rng.integers(0, 1 << f.bits, 20000, dtype=np.uint64)
    codes = formats.canonical(raw << np.uint64(f.lane_shift), f)
    got = formats.decode(codes, f)
    want = np.array([_as_float(oracle.value_of(int(c), f)) for c in codes])
    assert _same(got, want).all()


def test_decode_fp32_fp64_bit_views():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1000) * 10.0 ** rng.integers(-300, 300, 1000)
    assert _same(formats.decode(x.view(np.uint64), "fp64"), x).all()
    with np.errstate(over="ignore"):
        y = x.astype(np.float32)
    assert _same(formats.decode(y.view(np.uint32), "fp32"), y.astype(np.float64)).all()


def test_decode_int_exact_64bit():
    vals = np.array([-(2**63), 2**63 - 1, -1, 2**53 + 1], dtype=np.int64)
    assert formats.decode_int(vals.view(np.uint64), "int64").tolist() == vals.tolist()
    assert formats.decode_int(np.array([2**64 - 1], np.uint64), "uint64").tolist() == [2**64 - 1]
    p = formats.decode_exact(np.array([2**63 + 1], np.uint64), "q32_32")
    v = (-1 if p.sign[0] else 1) * Fraction(int(p.sig[0])) * Fraction(2) ** int(p.exp[0])
    assert v == Fraction(-(2**63) + 1, 2**32)


@pytest.mark.parametrize("f", SMALL, ids=ids)
def test_decode_exact_matches_decode(f):
    codes = np.array(list(oracle.codes_of(f)), dtype=np.uint64)
    p = formats.decode_exact(codes, f)
    fin = p.cls == 0
    val = np.where(p.sign, -1.0, 1.0) * np.ldexp(p.sig.astype(np.float64), p.exp.astype(np.int64))
    assert _same(val[fin], formats.decode(codes, f)[fin]).all()
    assert np.isnan(formats.decode(codes, f)[p.cls == 2]).all()


def test_strict_codes():
    with pytest.raises(FormatError, match="not a 16-bit lane code of int12"):
        formats.decode([0x0FFF], "int12")  # must be sign-extended: 0xFFFF
    with pytest.raises(FormatError, match="tf32"):
        formats.decode([0x3F800001], "tf32")
    with pytest.raises(FormatError, match="fp6_e3m2"):
        formats.decode([0x40], "fp6_e3m2")
    with pytest.raises(FormatError):
        formats.decode([256], "int8")
    with pytest.raises(FormatError, match="integers"):
        formats.decode([1.5], "int8")
    assert formats.decode(np.array([-1], np.int8), "int8").tolist() == [-1.0]
    assert formats.decode([0xFFFF], "int12").tolist() == [-1.0]


def test_canonical_fills():
    assert formats.canonical(np.array([0xABCD]), "int12").tolist() == [0xFBCD]
    assert formats.canonical(np.array([0x3F801FFF]), "tf32").tolist() == [0x3F800000]
    assert formats.canonical(np.array([0xFF]), "fp6_e2m3").tolist() == [0x3F]
