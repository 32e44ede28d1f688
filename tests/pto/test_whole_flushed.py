"""The prepared f32 calls of decision PTO118 on the targets that flush denormals (a2a3, a5) held bit for bit to
the exact path with ``flush=True``: :func:`jit.whole` with :data:`jit.FLUSH` on every f16 and bf16 code (widened),
f32 subnormals of both signs, the smallest normals, results that underflow to subnormals or overflow, NaN and
infinity lanes; and TADD ... TDIVS (with TMAX/TMIN/TMAXS/TMINS on a5, which select without flushing) on their
first (checked) and later (prepared) calls, with what sends a call back to its checks."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile, jit
from tilesim.pto import numerics as nx

from .helpers import make_tile, rand_bits
from .test_fast_paths import _every_narrow_code_as_f32, _random_f32

F32 = pto.get_dtype("f32")
ARITH = ["add", "sub", "mul", "div"]
ROWS, COLS = 8, 64
SENTINEL = 0x5EE5EE
#: scalars put against every lane: signed zeros, subnormals of both signs, the smallest normals, a value that
#: scales small normals into the subnormal range, 2**100 (overflow), infinities, the largest f32
SCALARS = [0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000, 0x3E800000, 0xBF000000,
           0x71800000, 0x7F800000, 0xFF800000, 0x7F7FFFFF]


def _edge_lanes(seed: int, n: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Operand pairs at the flush boundary: subnormals and the smallest normals of both signs against lanes of
    magnitude 2**-2 .. 2**2 (sums, differences, products and quotients near 2**-126), small normals against each
    other (products that underflow), and large lanes (products that overflow)."""
    rng = np.random.default_rng(seed)
    sign = lambda: rng.integers(0, 2, n, dtype=np.uint32) << np.uint32(31)  # noqa: E731
    tiny = rng.integers(1, 0x01000000, n, dtype=np.uint32) | sign()       # subnormals and 2**-126 .. 2**-125
    mid = rng.integers(0x3E800000, 0x40800000, n, dtype=np.uint32) | sign()
    small = rng.integers(0x1F000000, 0x21000000, n, dtype=np.uint32) | sign()
    big = rng.integers(0x5F000000, 0x7F800000, n, dtype=np.uint32) | sign()
    near = tiny ^ rng.integers(0, 4, n, dtype=np.uint32) ^ np.uint32(0x80000000)  # x + (-x'): tiny differences
    return (np.concatenate([tiny, mid, small, big, tiny]), np.concatenate([mid, tiny, small, big, near]))


def _tiles(x: np.ndarray) -> np.ndarray:
    """Lanes as a stack of ROWS x COLS tiles (the tail dropped), NaNs gathered in the last ones (so that most
    tiles are answered)."""
    x = x[np.argsort(np.isnan(x.view(np.float32)), kind="stable")]
    return x[: x.size // (ROWS * COLS) * ROWS * COLS].reshape(-1, ROWS, COLS)


def _check(code: int, a: np.ndarray, b: np.ndarray, want: np.ndarray, valid: tuple[int, int]) -> bool:
    """Run :func:`jit.whole` on a sentinel-filled dst: it answers exactly when no ``want`` lane is NaN, and then
    its lanes are ``want``'s; lanes outside the valid region keep the sentinel. Returns whether it answered."""
    R, C = valid
    out = np.full((ROWS, COLS), SENTINEL, np.uint32)
    ok = jit.whole(code, a, b, out, R, C)
    keep = np.ones((ROWS, COLS), bool)
    keep[:R, :C] = False
    assert (out[keep] == SENTINEL).all()
    assert ok == (not np.isnan(want.view(np.float32)).any())
    if ok:
        assert np.array_equal(out[:R, :C], want)
    return ok


def _exact(op: str, a, b, target: str = "a5") -> np.ndarray:
    p = pto.get_target(target)
    return nx.binary_exact(op, a, b, F32, flush=True, nan_mode=p.nan_mode, x86=p.x86_nans)


@pytest.mark.parametrize("op", ARITH)
@pytest.mark.parametrize("valid", [(ROWS, COLS), (5, 37)])
def test_flushed_tile_tile_kernel_equals_the_exact_path(op, valid):
    narrow = _every_narrow_code_as_f32()
    x, y = _edge_lanes(60)
    a = _tiles(np.concatenate([narrow, x, _random_f32(61, 8192)]))
    b = _tiles(np.concatenate([np.random.default_rng(62).permutation(narrow), y, _random_f32(63, 8192)]))
    R, C = valid
    want = _exact(op, a[:, :R, :C], b[:, :R, :C])
    answered = sum(_check(jit.WHOLE_OPS[op] | jit.TILE | jit.FLUSH, a[i], b[i], want[i], valid)
                   for i in range(len(a)))
    assert answered > len(a) // 4


@pytest.mark.parametrize("op", ARITH)
@pytest.mark.parametrize("first", [False, True])
def test_flushed_tile_scalar_kernel_equals_the_exact_path(op, first):
    x, y = _edge_lanes(64, 1024)
    a = _tiles(np.concatenate([_every_narrow_code_as_f32()[::7], x, y]))
    for k, s in enumerate(SCALARS):
        lane = np.full((1, 1), s, np.uint32)
        valid = (ROWS, COLS) if k % 2 else (3, 61)
        R, C = valid
        v = a[:, :R, :C]
        want = _exact(op, *((lane, v) if first else (v, lane)))
        code = jit.WHOLE_OPS[op] | jit.FLUSH | (jit.FIRST if first else 0)
        assert sum(_check(code, a[i], lane, want[i], valid) for i in range(len(a))) > 0


# ------------------------------------------------------------------- ops
TILE_OPS = {"tadd": "add", "tsub": "sub", "tmul": "mul", "tdiv": "div", "tmax": "max", "tmin": "min"}
SCALAR_OPS = {"tadds": "add", "tsubs": "sub", "tmuls": "mul", "tdivs": "div", "tmaxs": "max", "tmins": "min"}


def _prepared_ops(target: str, ops: dict) -> list[str]:
    """The ops prepared on ``target``: add ... div everywhere, max and min only under the ``first`` NaN rule."""
    return [n for n, k in ops.items() if k in ARITH or pto.get_target(target).nan_mode == "first"]


@pytest.fixture
def whole_codes(monkeypatch) -> list:
    """The :func:`jit.whole` codes run while a test runs."""
    calls, whole = [], jit.whole
    monkeypatch.setattr(jit, "whole", lambda code, *a: calls.append(code) or whole(code, *a))
    return calls


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_tile_ops_first_and_prepared_calls_equal_the_exact_path(target, whole_codes):
    """One tile pair refilled call after call with edge pairs, then lanes with NaNs and infinities (their calls go
    to the exact path); a partial valid region: dst keeps its bits outside it."""
    x, y = _edge_lanes(65, 2048)
    rng = np.random.default_rng(66)
    spec_x, spec_y = (rand_bits(rng, "f32", (x.size,), special=0.2) for _ in range(2))
    for name in _prepared_ops(target, TILE_OPS):
        a, b, d = (Tile("vec", "f32", 16, 64, valid=(15, 61)) for _ in range(3))
        d.bits[...] = SENTINEL
        before = len(whole_codes)
        for xs, ys in ((x, y), (spec_x, spec_y), (y, x)):
            for k in range(0, xs.size, 15 * 61):
                a.bits[:15, :61] = np.resize(xs[k:], (15, 61))
                b.bits[:15, :61] = np.resize(ys[k:], (15, 61))
                getattr(pto, name)(d, a, b, target=target)
                want = _exact(TILE_OPS[name], a.bits[:15, :61], b.bits[:15, :61], target)
                assert np.array_equal(d.bits[:15, :61], want), (name, k)
                assert (d.bits[15:] == SENTINEL).all() and (d.bits[:, 61:] == SENTINEL).all()
        flush = jit.FLUSH if TILE_OPS[name] in ARITH else 0
        assert whole_codes[before:] == [jit.WHOLE_OPS[TILE_OPS[name]] | jit.TILE | flush] * (len(whole_codes)
                                                                                            - before) != []


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("first", [False, True])
def test_scalar_ops_first_and_prepared_calls_equal_the_exact_path(target, first, whole_codes):
    """Each op's first call prepares it and the next ones (each with a new scalar: subnormals, the smallest
    normal, a NaN, an infinity) run the kernel; each equals the exact path."""
    x, y = _edge_lanes(67, 512)
    lanes = np.concatenate([x, y, rand_bits(np.random.default_rng(68), "f32", (512,), special=0.2)])
    for name in _prepared_ops(target, SCALAR_OPS):
        src, dst = make_tile(lanes[:20 * 40].reshape(20, 40), "f32", 24, 48), Tile("vec", "f32", 24, 48)
        dst.set_valid(20, 40)
        dst.bits[...] = SENTINEL
        before = len(whole_codes)
        for value in (1.5, -1e-45, 5.877471754111438e-39, 1.1754943508222875e-38, -0.25, 3, float("inf"),
                      float("nan"), 2.0 ** 100):
            getattr(pto, name)(*((dst, value, src) if first else (dst, src, value)), target=target)
            lane = nx.as_key(np.asarray(value, np.float32).view(np.uint32), F32).view(np.uint32)
            v = src.bits[:20, :40]
            want = _exact(SCALAR_OPS[name], *((lane, v) if first else (v, lane)), target)
            assert np.array_equal(dst.bits[:20, :40], want), (name, value)
            assert (dst.bits[20:] == SENTINEL).all() and (dst.bits[:, 40:] == SENTINEL).all()
        assert len(whole_codes) - before == 9


def test_what_sends_a_flushed_call_back_to_its_checks(whole_codes):
    """A new valid region prepares the call again (a mismatched one is refused, dst untouched); dst bound over
    src, dst == src and another target are not the prepared call; every result is the exact path's."""
    x = rand_bits(np.random.default_rng(69), "f32", (16, 32), special=0.3)
    src, dst = make_tile(x, "f32"), Tile("vec", "f32", 16, 32)
    pto.tmuls(dst, src, 1e-30, target="a5")
    for t in (src, dst):
        t.set_valid(4, 8)
    before = dst.bits.copy()
    pto.tmuls(dst, src, 1e-30, target="a5")
    before[:4, :8] = _exact("mul", x[:4, :8], np.float32(1e-30).view(np.uint32))
    assert np.array_equal(dst.bits, before)
    dst.set_valid(4, 16)
    with pytest.raises(TilesimError) as e:
        pto.tmuls(dst, src, 1e-30, target="a5")
    assert e.value.rule == "pto.op.valid_match" and np.array_equal(dst.bits, before)
    src.set_valid(16, 32)
    dst.set_valid(16, 32)
    for target in ("a5", "cpu", "a5"):  # a flushing target's entry does not answer cpu's call, nor the reverse
        pto.tadds(dst, src, 1e-40, target=target)
        assert np.array_equal(dst.bits, nx.binary_exact("add", x, np.float32(1e-40).view(np.uint32), F32,
                                                        flush=target == "a5", x86=target == "cpu"))
    calls = len(whole_codes)
    buf = np.zeros(4096, np.uint8)
    a, d = Tile("vec", "f32", 16, 32).bind(buf, 0), Tile("vec", "f32", 16, 32)
    a.bits[...] = x
    pto.tsubs(d, a, 1e-38, target="a2a3")
    d.bind(buf, 64)  # 16 lanes after a: overlapping it
    pto.tsubs(d, a, 1e-38, target="a2a3")
    assert np.array_equal(d.bits, _exact("sub", x, np.float32(1e-38).view(np.uint32), "a2a3"))
    for _ in range(2):
        a.bits[...] = x
        pto.tdiv(a, a, a, target="a2a3")
        assert np.array_equal(a.bits, _exact("div", x, x, "a2a3"))
    assert len(whole_codes) == calls + 1  # only the first tsubs, before the bind
