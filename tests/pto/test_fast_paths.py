"""The f32 fast paths of :mod:`tilesim.pto.numerics` and the ops that use them, held bit for bit to the exact
paths they stand in for: every f16 and bf16 code (widened to f32), and random and special f32 inputs."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError
from tilesim.pto import Tile
from tilesim.pto import numerics as nx

from .helpers import make_tile, rand_bits

F32 = pto.get_dtype("f32")


def _every_narrow_code_as_f32() -> np.ndarray:
    """Every f16 code and every bf16 code, widened exactly to f32 lanes (131,072 of them)."""
    codes = np.arange(65536, dtype=np.uint32)
    f16 = codes.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    return np.concatenate([f16, codes << np.uint32(16)])


def _random_f32(seed: int, n: int = 40_000) -> np.ndarray:
    """Random lanes over every binade (raw bits), plus rand_bits' mix of specials, ties and subnormals."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([raw, rand_bits(rng, "f32", (n,))])


@pytest.mark.parametrize("name", ["exp", "log", "rsqrt"])
def test_transcendental_fast_path_equals_exact_path(name):
    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(1)])
    with np.errstate(invalid="ignore"):  # signaling NaNs quieted by the cast
        x64 = nx.as_f32(x, F32).astype(np.float64)
    fast = nx._transcendental(name, x64, F32, False)
    exact = nx._transcendental_exact(name, x64, F32, False)
    assert np.array_equal(fast, exact)


def test_transcendental_fast_path_sends_subnormal_and_special_results_to_the_exact_path():
    # exp(-100) and exp(-88) are f32 subnormals, exp(100) overflows, exp(NaN) is NaN: each lane is left to
    # the exact path, whose bits the fast path must return unchanged
    x = np.array([-100.0, -88.0, 100.0, np.nan, 0.0, 1.0, -np.inf, np.inf])
    assert np.array_equal(nx._transcendental("exp", x, F32, False), nx._transcendental_exact("exp", x, F32, False))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("x86", [True, False])
def test_binary_fast_path_equals_exact_path(op, x86):
    a = np.concatenate([_every_narrow_code_as_f32(), _random_f32(2)])
    b = np.random.default_rng(3).permutation(a)
    assert np.array_equal(nx.binary(op, a, b, F32, x86=x86), nx.binary_exact(op, a, b, F32, x86=x86))
    finite = a[np.isfinite(a.view(np.float32))]  # NaN-free lanes (and no inf - inf): the fast path answers
    got = nx.fast_f32(op, finite, finite[::-1].copy())
    assert got is not None
    assert np.array_equal(got, nx.binary_exact(op, finite, finite[::-1].copy(), F32, x86=x86))


@pytest.mark.parametrize("op", ["sqrt", "recip"])
def test_unary_fast_path_equals_exact_path(op):
    a = np.concatenate([_every_narrow_code_as_f32(), _random_f32(4)])
    assert np.array_equal(nx.unary(op, a, F32, x86=True), nx.unary_exact(op, a, F32, x86=True))
    pos = a[a.view(np.float32) > 0]
    assert nx.fast_f32(op, pos) is not None


def test_fast_path_with_dst_aliasing_a_source_and_with_nans():
    """dst the same tile as a source (the fast path writes through a temporary there), and a tile with one
    NaN (the whole call takes the exact path, with x86's payload order)."""
    rng = np.random.default_rng(5)
    x, y = rand_bits(rng, "f32", (16, 16), special=0.0), rand_bits(rng, "f32", (16, 16), special=0.0)
    want = Tile("vec", "f32", 16, 16)
    pto.tmul(want, make_tile(x, "f32"), make_tile(y, "f32"), target="cpu")
    a, b = make_tile(x, "f32"), make_tile(y, "f32")
    pto.tmul(a, a, b, target="cpu")
    assert np.array_equal(a.bits, want.bits)
    y[3, 5] = 0x7F800001  # a signaling NaN in src1: x86 quiets it
    a, b, d = make_tile(x, "f32"), make_tile(y, "f32"), Tile("vec", "f32", 16, 16)
    pto.tadd(d, a, b, target="cpu")
    assert np.array_equal(d.bits, nx.binary_exact("add", x, y, F32, x86=True))
    assert d.bits[3, 5] == 0x7FC00001


def test_cached_checks_still_refuse_a_bad_call_after_a_good_one():
    a, d = Tile("vec", "f32", 16, 16), Tile("vec", "f32", 16, 16)
    pto.tadd(d, a, a, target="cpu")
    small = Tile("vec", "f32", 16, 16, valid=(8, 16))
    with pytest.raises(GeometryError) as e:  # valid shapes are checked on every call
        pto.tadd(d, a, small, target="cpu")
    assert e.value.rule == "pto.op.valid_match"
    with pytest.raises(DtypeError) as e:
        pto.tadd(d, a, Tile("vec", "f16", 16, 16), target="cpu")
    assert e.value.rule == "pto.op.same_dtype"


@pytest.mark.parametrize("op", ["exp", "log", "rsqrt"])
def test_unary_transcendental_fast_path_equals_exact_path(op):
    a = np.concatenate([_every_narrow_code_as_f32(), _random_f32(6, 5000)])
    assert np.array_equal(nx.unary(op, a, F32, x86=True), nx.unary_exact(op, a, F32, x86=True))
    pos = a[a.view(np.float32) > 0]
    assert nx.fast_f32(op, pos) is not None


def test_cpu_f32_f16_casts_equal_the_exact_path():
    """TCVT's numpy casts on cpu (f32 -> f16, f16 -> f32) against the double-rounding reference they skip:
    every f16 code, every f16 rounding midpoint and its f32 neighbours, and random f32 lanes."""
    from tilesim.pto.ops import convert_cpu
    f16, f32 = pto.get_dtype("f16"), pto.get_dtype("f32")
    codes = np.arange(65536, dtype=np.uint16)
    finite = codes[np.isfinite(codes.view(np.float16))]
    lo = finite.view(np.float16).astype(np.float64)
    with np.errstate(over="ignore"):
        up = np.nextafter(finite.view(np.float16), np.float16(np.inf)).astype(np.float64)
    mid = np.concatenate([((lo + up) / 2)[np.isfinite(up)], [65520.0, -65520.0]])  # +-65520: the overflow edge
    mid32 = mid.astype(np.float32).view(np.uint32)
    src = np.concatenate([_random_f32(7), _every_narrow_code_as_f32(), mid32, mid32 + 1, mid32 - 1])
    src = src[~np.isnan(src.view(np.float32))]
    want = nx.from_f64(nx.as_f32(src, f32).astype(np.float64), f16, flush=False)
    assert np.array_equal(convert_cpu.convert(src, f32, f16, "CAST_RINT", False)[0], want)
    finite = finite[~np.isnan(finite.view(np.float16))]
    want = nx.from_f64(nx.as_f32(finite, f16).astype(np.float64), f32, flush=False)
    assert np.array_equal(convert_cpu.convert(finite, f16, f32, "CAST_RINT", False)[0], want)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("nan_mode", ["first", "propagate", "spec"])
def test_max_min_fast_path_and_blend_equal_the_exact_path(op, nan_mode):
    """numpy's maximum/minimum under the ``first`` rule (other rules take the exact path), and the bitwise
    select the exact path uses, against a plain ``np.where`` of the rule ``a < b ? b : a``."""
    a = np.concatenate([_every_narrow_code_as_f32(), _random_f32(8)])
    b = np.random.default_rng(9).permutation(a)
    b[:1000] = a[:1000] ^ np.uint32(0x80000000)  # +-0 and other sign pairs
    got = nx.binary(op, a, b, F32, nan_mode=nan_mode)
    assert np.array_equal(got, nx.binary_exact(op, a, b, F32, nan_mode=nan_mode))
    if nan_mode == "first":
        ka, kb = a.view(np.float32), b.view(np.float32)
        assert np.array_equal(got, np.where((kb > ka) if op == "max" else (kb < ka), b, a))
        pos = a[(a.view(np.float32) > 0) & np.isfinite(a.view(np.float32))]
        assert nx.fast_f32(op, pos, pos[::-1].copy()) is not None


def test_blend_is_where():
    rng = np.random.default_rng(10)
    for lane in (np.uint8, np.uint16, np.uint32, np.uint64):
        x, y = (rng.integers(0, np.iinfo(lane).max, 999, dtype=lane, endpoint=True) for _ in range(2))
        c = rng.random(999) < 0.5
        assert np.array_equal(nx.blend(c, x, y), np.where(c, x, y))


def test_kept_scalar_conversions_tell_signed_zeros_and_nan_payloads_apart():
    """Tile-scalar ops keep each scalar's lane code (``elementwise._scalar_bits``), keyed by its bytes."""
    src, dst = make_tile(np.full((16, 16), 0x80000000, np.uint32), "f32"), Tile("vec", "f32", 16, 16)
    assert pto.tadds(dst, src, -0.0, target="cpu").bits[0, 0] == 0x80000000
    assert pto.tadds(dst, src, 0.0, target="cpu").bits[0, 0] == 0x00000000
    for payload in (0x7FC00001, 0x7FC00002):
        s = np.array(payload, np.uint32).view(np.float32)[()]
        assert pto.texpands(dst, s, target="cpu").bits[0, 0] == payload
