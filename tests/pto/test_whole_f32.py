"""The prepared element-wise calls of decisions PTO114 and PTO115 held bit for bit to the exact paths:
:func:`jit.whole` on every f16 and bf16 code (widened to f32) and random and special f32 lanes, tile by tile (a tile
with a NaN result goes to the exact path, and says so); and the ops that use it or the transcendental kernels, on
their first (checked) and later (prepared) calls, with what must send a call back to its checks (a new valid region,
a new placement, overlap, a bad scalar, another target)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile, jit, transcend
from tilesim.pto import numerics as nx

from .helpers import make_tile, rand_bits
from .test_fast_paths import _every_narrow_code_as_f32, _random_f32

F32 = pto.get_dtype("f32")
BINARY = ["add", "sub", "mul", "div", "max", "min"]
#: scalars put against every lane: signed zeros, a tie maker, infinities, the largest f32, a subnormal
SCALARS = [0x00000000, 0x80000000, 0x3FC00000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0xC2C80000]
ROWS, COLS = 8, 64


def _tiles() -> np.ndarray:
    """Every narrow code and random lanes, as a stack of ROWS x COLS tiles, NaNs gathered at the end (so that
    most tiles are answered)."""
    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(31, 20_000)])
    x = x[np.argsort(np.isnan(x.view(np.float32)), kind="stable")]
    return x[: x.size // (ROWS * COLS) * ROWS * COLS].reshape(-1, ROWS, COLS)


def _check(code: int, a: np.ndarray, b: np.ndarray, want: np.ndarray, valid: tuple[int, int]) -> bool:
    """Run :func:`jit.whole` on a sentinel-filled dst; where it answers, its lanes are ``want``'s, and lanes outside
    the valid region keep the sentinel; where it does not, a ``want`` lane is NaN. Returns whether it answered."""
    R, C = valid
    out = np.full((ROWS, COLS), 0x5EE5EE, np.uint32)
    ok = jit.whole(code, a, b, out, R, C)
    keep = np.ones((ROWS, COLS), bool)
    keep[:R, :C] = False
    assert (out[keep] == 0x5EE5EE).all()
    if ok:
        assert np.array_equal(out[:R, :C], want)
    else:
        assert np.isnan(want.view(np.float32)).any()
    return ok


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("valid", [(ROWS, COLS), (5, 37)])
def test_tile_tile_kernel_equals_the_exact_path(op, valid):
    """Both operands tiles: one row over whole rows (valid = the tile), or row by row."""
    a = _tiles()
    b = a.copy().reshape(-1)
    n = np.count_nonzero(~np.isnan(b.view(np.float32)))  # shuffled among themselves: the NaNs stay at the end
    b[:n] = np.random.default_rng(32).permutation(b[:n])
    b = b.reshape(a.shape)
    b[:4] = a[:4] ^ np.uint32(0x80000000)  # x - x, x + -x, signed zero pairs
    R, C = valid
    want = nx.binary_exact(op, a[:, :R, :C], b[:, :R, :C], F32, nan_mode="first", x86=True)
    answered = sum(_check(jit.WHOLE_OPS[op] | jit.TILE, a[i], b[i], want[i], valid) for i in range(len(a)))
    assert answered == len(a) if op in ("max", "min") else answered > len(a) // 4


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("first", [False, True])
def test_tile_scalar_kernel_equals_the_exact_path(op, first):
    """A scalar (a 1 x 1 array) put second or (FIRST) first, against every lane; full and partial valid regions."""
    a = _tiles()
    for k, s in enumerate(SCALARS):
        lane = np.full((1, 1), s, np.uint32)
        valid = (ROWS, COLS) if k % 2 else (3, 61)
        R, C = valid
        x = a[:, :R, :C]
        want = nx.binary_exact(op, *((lane, x) if first else (x, lane)), F32, nan_mode="first", x86=True)
        code = jit.WHOLE_OPS[op] | (jit.FIRST if first else 0)
        answered = sum(_check(code, a[i], lane, want[i], valid) for i in range(len(a)))
        assert answered == len(a) if op in ("max", "min") else answered > len(a) // 4


@pytest.mark.parametrize("op", ["sqrt", "abs", "neg"])
def test_unary_kernel_equals_the_exact_path(op):
    a = _tiles()
    want = nx.unary_exact(op, a, F32, x86=True)
    answered = sum(_check(jit.WHOLE_OPS[op], a[i], a[i], want[i], (ROWS, COLS)) for i in range(len(a)))
    assert answered == len(a) if op != "sqrt" else answered > len(a) // 4


# ------------------------------------------------------------------- ops
SCALAR_OPS = {"tadds": "add", "tsubs": "sub", "tmuls": "mul", "tdivs": "div", "tmaxs": "max", "tmins": "min"}
TILE_OPS = {"tadd": "add", "tsub": "sub", "tmul": "mul", "tdiv": "div", "tmax": "max", "tmin": "min"}
UNARY_OPS = {"tsqrt": "sqrt", "trecip": "recip", "tabs": "abs", "tneg": "neg", "trelu": "relu"}


def _pair(seed: int, special: float, shape=(24, 48), valid=None):
    rng = np.random.default_rng(seed)
    R, C = valid or shape
    x = rand_bits(rng, "f32", (R, C), special=special)
    src = make_tile(x, "f32", *shape)
    dst = make_tile(rand_bits(rng, "f32", (R, C)), "f32", *shape)
    return x, src, dst


@pytest.mark.parametrize("name", SCALAR_OPS)
@pytest.mark.parametrize("special", [0.0, 0.1])
@pytest.mark.parametrize("first", [False, True])
def test_scalar_ops_first_and_prepared_calls_equal_the_exact_path(name, special, first):
    """The first call runs the checks and prepares the call; the next ones run it (each with a new scalar, among
    them a NaN, whose result the exact path decides); each equals the exact path; outside the valid region dst
    keeps its bits."""
    x, src, dst = _pair(40, special, valid=(20, 40))
    outside = dst.bits.copy()
    fn = getattr(pto, name)
    for value in (1.5, -0.0, 3, float("inf"), float("nan"), -7.25e-41):
        fn(dst, value, src, target="cpu") if first else fn(dst, src, value, target="cpu")
        lane = nx.as_key(np.asarray(value, np.float32).view(np.uint32), F32).view(np.uint32)
        want = nx.binary_exact(SCALAR_OPS[name], *((lane, x) if first else (x, lane)), F32, nan_mode="first",
                               x86=True)
        assert np.array_equal(dst.bits[:20, :40], want), value
        outside[:20, :40] = want
        assert np.array_equal(dst.bits, outside)


@pytest.mark.parametrize("name", SCALAR_OPS)
def test_a_call_with_its_scalar_on_the_other_side_is_not_the_prepared_one(name):
    """The same tiles with the scalar second, first, second, first: each call equals the exact path in its own
    operand order (a call prepared with the scalar on one side is not reused for the other)."""
    x, src, dst = _pair(41, 0.0, valid=(20, 40))
    fn = getattr(pto, name)
    lane = nx.as_key(np.asarray(1.5, np.float32).view(np.uint32), F32).view(np.uint32)
    for first in (False, True, False, True):
        fn(dst, 1.5, src, target="cpu") if first else fn(dst, src, 1.5, target="cpu")
        want = nx.binary_exact(SCALAR_OPS[name], *((lane, x) if first else (x, lane)), F32, nan_mode="first",
                               x86=True)
        assert np.array_equal(dst.bits[:20, :40], want), first


@pytest.mark.parametrize("name", TILE_OPS)
@pytest.mark.parametrize("special", [0.0, 0.1])
def test_tile_ops_first_and_prepared_calls_equal_the_exact_path(name, special):
    for shape in ((16, 16), (24, 48)):  # the small kernel's size too: a prepared call takes it from then on
        x, a, d = _pair(41, special, shape)
        y = rand_bits(np.random.default_rng(42), "f32", shape, special=special)
        b = make_tile(y, "f32")
        want = nx.binary_exact(TILE_OPS[name], x, y, F32, nan_mode="first", x86=True)
        for _ in range(2):
            getattr(pto, name)(d, a, b, target="cpu")
            assert np.array_equal(d.bits, want)


@pytest.mark.parametrize("name", UNARY_OPS)
@pytest.mark.parametrize("special", [0.0, 0.1])
def test_unary_ops_first_and_prepared_calls_equal_the_exact_path(name, special):
    x, a, d = _pair(43, special)
    want = nx.unary_exact(UNARY_OPS[name], x, F32, x86=True)
    for _ in range(2):
        getattr(pto, name)(d, a, target="cpu")
        assert np.array_equal(d.bits, want)


def test_a_new_valid_region_or_placement_sends_the_call_back_to_its_checks():
    """A prepared call is keyed by its tiles' keys: after set_valid it writes only the new region; after dst is
    bound over src (overlap) the general path reads src whole first; a mismatched valid region is refused."""
    x, src, dst = _pair(44, 0.0, (16, 32))
    pto.tadds(dst, src, 1.0, target="cpu")
    for t in (src, dst):
        t.set_valid(4, 8)
    before = dst.bits.copy()
    pto.tadds(dst, src, 2.0, target="cpu")
    before[:4, :8] = nx.binary_exact("add", x[:4, :8], np.uint32(0x40000000), F32)
    assert np.array_equal(dst.bits, before)
    dst.set_valid(4, 16)
    with pytest.raises(TilesimError) as e:
        pto.tadds(dst, src, 2.0, target="cpu")
    assert e.value.rule == "pto.op.valid_match"
    buf = np.zeros(4096, np.uint8)
    a, d = Tile("vec", "f32", 16, 32).bind(buf, 0), Tile("vec", "f32", 16, 32)
    a.bits[...] = x
    pto.tmuls(d, a, 3.0, target="cpu")
    d.bind(buf, 64)  # 16 lanes after a: overlapping it
    pto.tmuls(d, a, 3.0, target="cpu")
    assert np.array_equal(d.bits, nx.binary_exact("mul", x, np.uint32(0x40400000), F32))


@pytest.mark.parametrize("bad, rule", [(np.ones(3), "pto.op.operand"), ("1", "pto.op.operand"),
                                       (2 ** 70, None)])
def test_a_prepared_call_still_refuses_a_bad_scalar(bad, rule):
    """A scalar that is not a float or an int of int64's range takes the checked path, which says why."""
    x, src, dst = _pair(45, 0.0)
    pto.tadds(dst, src, 1.0, target="cpu")
    before = dst.bits.copy()
    try:
        pto.tadds(dst, src, bad, target="cpu")
    except TilesimError as e:
        assert rule is None or e.rule == rule
        assert e.instruction == "TADDS" and np.array_equal(dst.bits, before)
    else:
        assert rule is None  # 2**70 rounds to an f32: the checked path's answer
        assert np.array_equal(dst.bits, nx.binary_exact("add", x, np.float32(2.0 ** 70).view(np.uint32), F32))


def test_in_place_and_other_targets_keep_their_general_path():
    """dst == src (overlap) is never prepared; on a flushing target the call gives the exact path's flushed
    result (PTO118's prepared call, tested in test_whole_flushed.py)."""
    x, src, _ = _pair(46, 0.1)
    want = nx.binary_exact("mul", x, np.uint32(0x3FC00000), F32, x86=True)
    for _ in range(2):
        src.bits[...] = x
        pto.tmuls(src, src, 1.5, target="cpu")
        assert np.array_equal(src.bits, want)
    x, src, dst = _pair(47, 0.0)
    for _ in range(2):
        pto.tadds(dst, src, 1.5, target="a5")
        assert np.array_equal(dst.bits, nx.binary_exact("add", x, np.uint32(0x3FC00000), F32, flush=True))


# ------------------------------------------------ transcendental ops (PTO115)
TRANSCEND_OPS = {"texp": "exp", "tlog": "log", "trsqrt": "rsqrt"}
SENTINEL = 0x5EE5EE


def _want(kind: str, x: np.ndarray) -> np.ndarray:
    """The reference: numpy's float64 value rounded where 2**-45 decides it, else 60-digit decimal; a NaN result
    as the CPU simulator's x86 code gives it."""
    with np.errstate(invalid="ignore"):
        x64 = nx.as_f32(x, F32).astype(np.float64)
    return nx.x86_nans(nx._transcendental_exact(kind, x64, F32, False), x, x, F32)


@pytest.fixture
def kernel_calls(monkeypatch) -> list:
    """The prepared transcendental kernel calls made while a test runs."""
    calls, run = [], transcend.run_prepared
    monkeypatch.setattr(transcend, "run_prepared", lambda p, x, out: calls.append(p[3:5]) or run(p, x, out))
    return calls


@pytest.mark.parametrize("name", TRANSCEND_OPS)
def test_transcendental_ops_first_and_prepared_calls_equal_the_exact_path(name, kernel_calls):
    """One tile pair, a partial valid region, refilled call after call: every f16/bf16 code and random and special
    f32 lanes, first with their signs cleared and NaNs left out (marked lanes: zeros, subnormals, infinities, lanes
    near a boundary, which the certified path finishes), then as they are (NaN results: the exact path). Every
    call after the first is prepared; each equals the reference, and dst keeps its bits outside the region."""
    kind = TRANSCEND_OPS[name]
    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(48)])
    positive = x & np.uint32(0x7FFFFFFF)
    lanes = np.concatenate([positive[~np.isnan(positive.view(np.float32))], x])
    R, C = 61, 509
    src, dst = Tile("vec", "f32", 64, 512, valid=(R, C)), Tile("vec", "f32", 64, 512, valid=(R, C))
    dst.bits[...] = SENTINEL
    n = -(-lanes.size // (R * C))
    for k in range(n):
        chunk = np.resize(lanes[k * R * C:], R * C).reshape(R, C)
        src.bits[:R, :C] = chunk
        getattr(pto, name)(dst, src, target="cpu")
        assert np.array_equal(dst.bits[:R, :C], _want(kind, chunk)), k
        assert (dst.bits[R:] == SENTINEL).all() and (dst.bits[:, C:] == SENTINEL).all()
    assert kernel_calls == [(R, C)] * n


def test_what_sends_a_transcendental_call_back_to_its_checks(kernel_calls):
    """A new valid region prepares the call again (only the new region written; a mismatched one refused, dst
    untouched); dst bound over src, dst == src and a flushing target are never prepared, and give the reference."""
    x, src, dst = _pair(49, 0.0, (16, 32))
    x &= np.uint32(0x7FFFFFFF)
    src.bits[...] = x
    for _ in range(2):
        pto.tlog(dst, src, target="cpu")
    assert kernel_calls == [(16, 32)] * 2
    for t in (src, dst):
        t.set_valid(4, 8)
    before = dst.bits.copy()
    pto.tlog(dst, src, target="cpu")
    before[:4, :8] = _want("log", x[:4, :8])
    assert np.array_equal(dst.bits, before) and kernel_calls[-1] == (4, 8)
    dst.set_valid(4, 16)
    with pytest.raises(TilesimError) as e:
        pto.tlog(dst, src, target="cpu")
    assert e.value.rule == "pto.op.valid_match" and np.array_equal(dst.bits, before)
    calls = len(kernel_calls)
    buf = np.zeros(4096, np.uint8)
    a, d = Tile("vec", "f32", 16, 32).bind(buf, 0), Tile("vec", "f32", 16, 32)
    a.bits[...] = x
    pto.trsqrt(d, a, target="cpu")
    d.bind(buf, 64)  # 16 lanes after a: overlapping it
    pto.trsqrt(d, a, target="cpu")
    assert np.array_equal(d.bits, _want("rsqrt", x))
    a.bits[...] = x
    for _ in range(2):
        pto.texp(a, a, target="cpu")
        assert np.array_equal(a.bits, _want("exp", x))
        a.bits[...] = x
    assert len(kernel_calls) == calls + 1  # only the first trsqrt, before the bind
    x, src, dst = _pair(50, 0.0)
    for _ in range(2):
        pto.texp(dst, src, target="a5")
        assert np.array_equal(dst.bits[:24, :48], nx.unary("exp", x, F32, flush=True))
    assert len(kernel_calls) == calls + 1
