"""TCVT: every supported pair on every target, round modes, saturation, against the oracle."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import SpecGapError, TilesimError
from tilesim.pto import Tile

from . import oracle as o
from .helpers import TARGETS, make_tile, per_block, rand_bits, seed

MODES = ("CAST_RINT", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "NONE")
WRAP = {"cpu": {"u8"}, "a2a3": set(), "a5": set()}
A2A3_WRAP_PAIRS = {("f32", "i16"), ("f16", "i16"), ("f16", "i8")}
# read from include/pto/npu/a2a3/TCvt.hpp at 3186c381 (PTO107, PTO108): ODD where a switch has no CAST_ODD case
# goes to its default case (the suffix z truncates, r is nearest even, none: the unsuffixed intrinsic)
A2A3_ODD = {"f32": {"i64": "TRUNC", "i32": "TRUNC", "i16": "TRUNC", "f32": "RINT", "bf16": "RINT"},
            "f16": {"i32": "TRUNC", "i16": "TRUNC", "i8": "TRUNC", "u8": "TRUNC"}, "bf16": {"i32": "TRUNC"},
            "i16": {"f16": "NONE"}, "i32": {"f32": "NONE"}, "i64": {"f32": "RINT"}}
# A5 (npu/a5/TCvt.hpp tcvtDispatchByRound): RoundOType for f32 -> f16 only, else float -> int RoundZ, others RoundR;
# NONE takes that default too on both NPUs (a2a3: the switches' default cases)
A5_ODD_KEEPS = {("f32", "f16")}
# kIsNarrowingCvt: the only pairs whose no-tmp TCVT_IMPL passes the caller's SaturationMode on
A2A3_SAT_HONOURED = {("f16", "u8"), ("f16", "i8"), ("f32", "i16"), ("f16", "i16"), ("i64", "i32"), ("i32", "i16")}


def _expect(x: int, s: str, d: str, mode: str, target: str, sat: bool):
    """One lane; None where the spec says the result is undefined (the op must raise)."""
    npu = target != "cpu"
    ftz = npu
    if target == "a2a3":
        mode = A2A3_ODD.get(s, {}).get(d, mode) if mode == "ODD" else mode
        sat = sat or (s, d) not in A2A3_SAT_HONOURED
    if target == "a5" and mode == "ODD" and (s, d) not in A5_ODD_KEEPS:
        mode = "TRUNC" if s in o.FLOATS and d in o.INTS else "RINT"
    if npu and s == d == "f32" and mode == "NONE":
        mode = "RINT"
    if s in o.FLOATS:
        xb = o.flush(x, s) if ftz else x
        v = o.dec(xb, s)
        if d in o.FLOATS:
            if s == d:
                if s == "f32" and npu and math.isfinite(v):
                    r = o.to_integral(Fraction(v), mode)
                    b = o.round_bits(Fraction(r), d) if r != 0 else (xb & o.sign_bit(d))
                    return o.flush(b, d)
                return xb
            rounding = o.MODE_TO_ROUNDING[mode] if npu else "rne"
            b = o.round_bits(v, d, rounding)
            return o.flush(b, d) if ftz else b
        bits, signed = o.INTS[d]
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if math.isnan(v):
            return hi if sat else None
        if math.isinf(v):
            r = hi if v > 0 else lo
            return o.int_bits(r, d) if sat else None
        r = o.to_integral(Fraction(v), mode)
        if lo <= r <= hi:
            return o.int_bits(r, d)
        if sat:
            return o.int_bits(min(max(r, lo), hi), d)
        if (target == "cpu" and d == "u8") or (target == "a2a3" and (s, d) in A2A3_WRAP_PAIRS):
            return o.int_bits(r, d)
        return None
    v = o.dec(x, s)
    if d in o.FLOATS:
        rounding = o.MODE_TO_ROUNDING[mode] if npu else "rne"
        b = o.round_bits(Fraction(v), d, rounding) if v != 0 else 0
        return o.flush(b, d) if ftz else b
    bits, signed = o.INTS[d]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return o.int_bits(min(max(v, lo), hi) if sat else v, d)


CASES = [(t, s, d) for t in TARGETS for s, d in sorted(pto.get_target(t).dtypes["tcvt"])
         if not {s, d} & {"i4", "f4e2m1", "f4e1m2", "hif8"}]   # 4-bit pairs: test_sub_byte.py; hif8: test_hif8.py


@pytest.mark.parametrize("target,src,dst", CASES, ids=str)
def test_tcvt_matches_oracle(target, src, dst):
    rng = np.random.default_rng(seed(target, src, dst))
    shape = (2, per_block(src) + 7)
    span = 300.0 if dst in o.INTS else 1e5
    bits = rand_bits(rng, src, shape, special=0.15 if src in o.FLOATS else 0.1, lo=-span, hi=span)
    if src in o.FLOATS:  # add exact halves so every tie rule is exercised
        halves = (rng.integers(-20, 20, shape) + 0.5).astype(np.float32)
        pick = rng.random(shape) < 0.3
        hb = halves.astype(pto.get_dtype(src).np).view(bits.dtype)  # exact: small halves fit every float dtype
        bits = np.where(pick, hb, bits)
    for mode in MODES:
        for sat in (True, False):
            if target == "cpu":
                want = [[o.cpu_tcvt(int(v), src, dst, mode, sat) for v in row] for row in bits]
                d = make_tile(np.zeros(shape, dtype=np.uint64).astype(pto.get_dtype(dst).lane), dst)
                pto.tcvt(d, make_tile(bits, src), mode, sat, target=target)
                assert d.bits[: shape[0], : shape[1]].tolist() == [[w[0] for w in row] for row in want], (mode, sat)
                assert d.undefined[: shape[0], : shape[1]].tolist() == [[w[1] for w in row] for row in want]
                continue
            want = [[_expect(int(v), src, dst, mode, target, sat) for v in row] for row in bits]
            d = make_tile(np.zeros(shape, dtype=np.uint64).astype(pto.get_dtype(dst).lane), dst)
            if any(w is None for row in want for w in row):
                with pytest.raises(SpecGapError) as e:
                    pto.tcvt(d, make_tile(bits, src), mode, sat, target=target)
                assert e.value.rule == "pto.tcvt.range"
                continue
            pto.tcvt(d, make_tile(bits, src), mode, sat, target=target)
            assert d.bits[: shape[0], : shape[1]].tolist() == want, (mode, sat)


@pytest.mark.parametrize("mode,want", [("RINT", [2, -2, 4, 0]), ("CAST_RINT", [2, -2, 4, 0]), ("ROUND", [3, -3, 4, 1]),
                                       ("FLOOR", [2, -3, 3, 0]), ("CEIL", [3, -2, 4, 1]), ("TRUNC", [2, -2, 3, 0]),
                                       ("NONE", [2, -2, 3, 0]), ("ODD", [3, -3, 3, 1])])
def test_round_modes_by_hand(mode, want):
    s = Tile.from_array(np.array([[2.5, -2.5, 3.5, 0.5]], np.float32))
    d = Tile("vec", "i32", 1, 8, valid=(1, 4))
    assert pto.tcvt(d, s, mode, target="cpu").values[0, :4].tolist() == want


def test_saturation_and_specials_by_hand():
    s = Tile.from_array(np.array([[np.nan, np.inf, -np.inf, 6e4, -6e4, 127.5]], np.float16))
    d = Tile("vec", "i8", 1, 32, valid=(1, 6))
    pto.tcvt(d, s, "RINT", sat=True, target="cpu")
    assert d.values[0, :6].tolist() == [127, 127, -128, 127, -128, 127]  # NaN -> +max (§9.6)
    pto.tcvt(d, s, "RINT", sat=False, target="cpu")  # undefined in C++: x86-64's answer, marked
    assert d.values[0, :6].tolist() == [0, 0, 0, 96, -96, -128]
    assert d.undefined[0, :6].tolist() == [True] * 6  # 127.5 rounds to 128: out of range too
    with pytest.raises(SpecGapError) as e:
        pto.tcvt(d, s, "RINT", sat=False, target=pto.get_target("cpu").with_(strict=True))
    assert e.value.rule == "pto.tcvt.undefined"
    u = Tile.from_array(np.array([[300.0, -1.0]], np.float16))
    du = Tile("vec", "u8", 1, 32, valid=(1, 2))
    assert pto.tcvt(du, u, "RINT", sat=False, target="cpu").values[0, :2].tolist() == [44, 255]  # wraps mod 256
    assert pto.tcvt(du, u, "RINT", target="a5").values[0, :2].tolist() == [255, 0]  # NPU default: saturate


def test_npu_odd_takes_the_kernels_default():
    """The NPUs have no odd f16/f32/bf16 -> int intrinsic: ODD truncates there, where cpu sends a tie to odd."""
    s = Tile.from_array(np.array([[2.5, -2.5, 3.5, 0.75]], np.float16))
    d = Tile("vec", "i32", 1, 8, valid=(1, 4))
    assert pto.tcvt(d, s, "ODD", target="a2a3").values[0, :4].tolist() == [2, -2, 3, 0]
    assert pto.tcvt(d, s, "ODD", target="a5").values[0, :4].tolist() == [2, -2, 3, 0]
    assert pto.tcvt(d, s, "ODD", target="cpu").values[0, :4].tolist() == [3, -3, 3, 1]
    f32 = Tile.from_array(np.array([[2.5, -1.5, 0.5]], np.float32))
    g = Tile("vec", "f32", 1, 8, valid=(1, 3))
    for target in ("a2a3", "a5"):                 # f32 -> f32 NONE: the default case, round-only to even
        assert pto.tcvt(g, f32, "NONE", target=target).values[0, :3].tolist() == [2.0, -2.0, 0.0]
    d8 = Tile("vec", "i8", 1, 32, valid=(1, 4))
    assert pto.tcvt(d8, s, "ODD", target="a2a3").values[0, :4].tolist() == [2, -2, 3, 0]
    f = Tile.from_array(np.array([[1 + 2.0 ** -8 + 2.0 ** -20, 2.5]], np.float32))
    b = Tile("vec", "bf16", 1, 16, valid=(1, 2))
    for target in ("a2a3", "a5"):                 # vconv_f322bf16r, A5's RoundRType
        assert pto.tcvt(b, f, "ODD", target=target).values[0, :2].tolist() == [1.0078125, 2.5]
    h = Tile("vec", "f16", 1, 16, valid=(1, 2))     # f32 -> f16 has vconv_f322f16o: round to odd
    g = Tile.from_array(np.array([[1 + 2.0 ** -11 + 2.0 ** -20, 1 + 2.0 ** -11]], np.float32))
    for target in ("a2a3", "a5"):
        assert pto.tcvt(h, g, "ODD", target=target).values[0, :2].tolist() == [1.0009765625, 1.0009765625]


def test_a2a3_sat_off_without_tmp_saturates_the_wide_pairs():
    """TCVT_IMPL forces SaturationMode::ON unless the pair is one of kIsNarrowingCvt's."""
    s = Tile.from_array(np.array([[3e9, -3e9, np.nan]], np.float32))
    d = Tile("vec", "i32", 1, 8, valid=(1, 3))
    assert pto.tcvt(d, s, "RINT", sat=False, target="a2a3").values[0, :3].tolist() == [2**31 - 1, -2**31, 2**31 - 1]
    with pytest.raises(SpecGapError) as e:   # with tmp the kernel passes OFF on: out of range is undefined
        pto.tcvt(d, s, "RINT", sat=False, tmp=Tile("vec", "i32", 1, 64), target="a2a3")
    assert e.value.rule == "pto.tcvt.range"
    with pytest.raises(SpecGapError):        # a5 honours sat on every pair
        pto.tcvt(d, s, "RINT", sat=False, target="a5")
    h = Tile.from_array(np.array([[300.0, -200.0]], np.float16))   # a narrowing pair: OFF honoured (wraps)
    d8 = Tile("vec", "i8", 1, 32, valid=(1, 2))
    assert pto.tcvt(d8, h, "RINT", sat=False, target="a2a3").values[0, :2].tolist() == [44, 56]


def test_float_modes_on_npu_and_cpu():
    s = Tile.from_array(np.array([[1 + 2.0 ** -11 + 2.0 ** -20, 1 + 2.0 ** -11]], np.float32))
    d = Tile("vec", "f16", 1, 16, valid=(1, 2))
    assert d.values is not None
    pto.tcvt(d, s, "TRUNC", target="a5")
    assert d.values[0, :2].tolist() == [1.0, 1.0]
    pto.tcvt(d, s, "TRUNC", target="cpu")  # the CPU reference ignores the mode for float -> float
    assert d.values[0, :2].tolist() == [1.0009765625, 1.0]
    pto.tcvt(d, s, "ODD", target="a5")  # round to odd: truncate, set the last bit when inexact
    assert d.values[0, :2].tolist() == [1.0009765625, 1.0009765625]
    f = Tile.from_array(np.array([[2.5, -1.5]], np.float32))
    g = Tile("vec", "f32", 1, 8, valid=(1, 2))
    assert pto.tcvt(g, f, "RINT", target="a5").values[0, :2].tolist() == [2.0, -2.0]  # f32 -> f32 round-only
    assert pto.tcvt(g, f, "RINT", target="cpu").values[0, :2].tolist() == [2.5, -1.5]


def test_tcvt_errors():
    s = Tile("vec", "f32", 1, 8)
    with pytest.raises(TilesimError) as e:
        pto.tcvt(Tile("vec", "u8", 1, 32), Tile("vec", "f32", 1, 32), target="a2a3")
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(TilesimError) as e:
        pto.tcvt(Tile("vec", "f16", 1, 16), s, "BANKERS")
    assert e.value.rule == "pto.tcvt.rmode"
    with pytest.raises(TilesimError) as e:
        pto.tcvt(Tile("vec", "f16", 1, 16, valid=(1, 7)), s)
    assert e.value.rule == "pto.op.valid_match"
