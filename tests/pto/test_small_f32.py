"""The small-tile f32 kernel (:mod:`tilesim.pto.ops.small_f32`, PTO165) held bit for bit to the exact paths:
every f16 and bf16 code (widened to f32) and random and special f32 lanes, 16x16 tile by 16x16 tile; where it
stands back, dst is untouched and the exact result shows why (a NaN lane; for max/min a NaN or zero)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.pto import Tile
from tilesim.pto import numerics as nx
from tilesim.pto.ops import small_f32

from .helpers import make_tile, rand_bits
from .test_fast_paths import _every_narrow_code_as_f32, _random_f32

F32 = pto.get_dtype("f32")
BINARY = ["add", "sub", "mul", "div", "max", "min"]
UNARY = ["sqrt", "recip", "exp", "log", "rsqrt"]


def _lanes(seed: int) -> np.ndarray:
    """Every narrow code and random lanes, the NaNs gathered at the end (so that most tiles are answered), in a
    whole number of 16x16 tiles."""
    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(seed, 20_000)])
    x = x[np.argsort(np.isnan(x.view(np.float32)), kind="stable")]
    return x[: x.size // 256 * 256]


def _exact(kind: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    if b is None:
        return nx.unary_exact(kind, a, F32, x86=True)
    return nx.binary_exact(kind, a, b, F32, nan_mode="first", x86=True)


def _tiles(kind: str, a: np.ndarray, b: np.ndarray | None):
    """(answered, want, got) per 16x16 tile of the kernel's run over a (and b)."""
    want = _exact(kind, a, b).reshape(-1, 16, 16)
    a = a.reshape(-1, 16, 16)
    b = a if b is None else b.reshape(-1, 16, 16)
    sentinel = np.random.default_rng(0).integers(0, 1 << 32, (16, 16), dtype=np.uint64).astype(np.uint32)
    code = small_f32.code(kind)
    for i in range(a.shape[0]):
        o = sentinel.copy()
        ok = small_f32.run(code, a[i], b[i], o, 16, 16)
        yield ok, want[i], o if ok else (o, sentinel)


@pytest.mark.parametrize("kind", BINARY)
def test_binary_kernel_equals_the_exact_path(kind):
    a = _lanes(11)
    b = a.copy()
    n = np.count_nonzero(~np.isnan(a.view(np.float32)))  # shuffled among themselves: the NaNs stay at the end
    b[:n] = np.random.default_rng(12).permutation(a[:n])
    b[:2000] = a[:2000] ^ np.uint32(0x80000000)  # x - x, x + -x, +-0 pairs
    answered = 0
    for ok, want, got in _tiles(kind, a, b):
        w = want.view(np.float32)
        stand_back = np.isnan(w).any() or (kind in ("max", "min") and (w == 0).any())
        assert ok == (not stand_back)
        if ok:
            assert np.array_equal(got, want)
            answered += 1
        else:
            assert np.array_equal(*got)  # dst untouched
    assert answered > 100


@pytest.mark.parametrize("kind", UNARY)
def test_unary_kernel_equals_the_exact_path(kind):
    a = _lanes(13)
    answered = 0
    for ok, want, got in _tiles(kind, a, None):
        if ok:
            assert np.array_equal(got, want)
            answered += 1
        else:
            assert np.array_equal(*got)
            if kind in ("sqrt", "recip"):
                assert np.isnan(want.view(np.float32)).any()
    assert answered > 20


@pytest.mark.parametrize("kind", ["exp", "log", "rsqrt"])
def test_transcendental_kernel_answers_ordinary_tiles(kind):
    """On ordinary inputs (no result near a rounding boundary, subnormal or infinite) the kernel answers: the
    certificate leaves to the exact path only about one lane in 2**19."""
    x = np.random.default_rng(14).uniform(0.01, 20, (64, 16, 16)).astype(np.float32).view(np.uint32)
    want = _exact(kind, x.reshape(-1), None).reshape(x.shape)
    code, answered = small_f32.code(kind), 0
    for i in range(x.shape[0]):
        o = np.zeros((16, 16), np.uint32)
        if small_f32.run(code, x[i], x[i], o, 16, 16):
            assert np.array_equal(o, want[i])
            answered += 1
    assert answered >= 62


@pytest.mark.parametrize("steps", [((1, 0), (1, 1)), ((1, 1), (1, 0)), ((1, 1), (0, 1)), ((0, 1), (1, 1))])
@pytest.mark.parametrize("kind", ["sub", "div", "max"])
def test_broadcast_steps(kind, steps):
    """A step of 0 repeats row 0 or column 0 of that operand, as the expand ops' Mode 1 and column forms read."""
    rng = np.random.default_rng(15)
    a, b = (rand_bits(rng, "f32", (16, 16), special=0.0, ties=0.0) for _ in range(2))  # no zeros: no 0/0
    (ars, acs), (brs, bcs) = steps
    wa = np.broadcast_to(a[: 16 if ars else 1, : 16 if acs else 1], (16, 16))
    wb = np.broadcast_to(b[: 16 if brs else 1, : 16 if bcs else 1], (16, 16))
    o = np.zeros((16, 16), np.uint32)
    assert small_f32.run(small_f32.code(kind, *steps), a, b, o, 12, 9)
    assert np.array_equal(o[:12, :9], _exact(kind, wa, wb)[:12, :9])
    assert not o[12:].any() and not o[:, 9:].any()  # only the region asked for is written


def _reference(fn, *tiles: Tile, **kw) -> Tile:
    """fn's result through the general path: the same tiles, 128x64 (over small_f32.SMALL lanes), same valid."""
    def big(t: Tile) -> Tile:
        rows, cols = (128, 1) if t.cols == 1 else (128, 64)
        b = Tile("vec", "f32", rows, cols, valid=t.valid, blayout=t.blayout)
        b.bits[: t.rows, : t.cols] = t.bits
        return b
    big_tiles = [big(t) for t in tiles]
    assert big_tiles[0].rows * big_tiles[0].cols > small_f32.SMALL
    fn(*big_tiles, **kw)
    return big_tiles[0]


CASES = {
    "tadd": lambda d, a, b, c: pto.tadd(d, a, b, target="cpu"),
    "tdiv": lambda d, a, b, c: pto.tdiv(d, a, b, target="cpu"),
    "tmax": lambda d, a, b, c: pto.tmax(d, a, b, target="cpu"),
    "texp": lambda d, a, b, c: pto.texp(d, a, target="cpu"),
    "trsqrt": lambda d, a, b, c: pto.trsqrt(d, a, target="cpu"),
    "trowexpandsub": lambda d, a, b, c: pto.trowexpandsub(d, a, c, target="cpu"),
    "trowexpanddiv src0": lambda d, a, b, c: pto.trowexpanddiv(d, c, a, target="cpu"),
    "tcolexpandmul": lambda d, a, b, c: pto.tcolexpandmul(d, a, b, target="cpu"),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("valid", [(16, 16), (5, 11)])
@pytest.mark.parametrize("special", [0.0, 0.1])
def test_ops_through_the_kernel_equal_the_general_path(name, valid, special):
    """Each op at 16x16 (the kernel's size) against the same op on 128x64 tiles (the general path), with and
    without special lanes (NaNs send the whole call to the general path); lanes outside dst's valid region
    keep their bits."""
    rng = np.random.default_rng(16)
    R, C = valid
    a, b = (make_tile(rand_bits(rng, "f32", (16, 16), special=special), "f32") for _ in range(2))
    c = Tile("vec", "f32", 16, 1, blayout="col_major")
    c.bits[...] = rand_bits(rng, "f32", (16, 1), special=special)
    d = make_tile(rand_bits(rng, "f32", (16, 16)), "f32")
    for t in (a, b, d):
        t.set_valid(R, C)
    c.set_valid(R, 1)
    if name == "tcolexpandmul":
        b.set_valid(1, C)
    fn = lambda d, a, b, c: CASES[name](d, a, b, c)  # noqa: E731
    want = _reference(fn, d, a, b, c)
    fn(d, a, b, c)
    assert np.array_equal(d.bits, want.bits[:16, :16])


def test_dst_overlapping_a_source_reads_the_source_whole():
    """dst bound 32 bytes after src0 in one buffer: every source lane is read before any dst lane is written."""
    rng = np.random.default_rng(17)
    x, y = (rand_bits(rng, "f32", (16, 16), special=0.0) for _ in range(2))
    buf = np.zeros(4096, np.uint8)
    a, d = Tile("vec", "f32", 16, 16).bind(buf, 0), Tile("vec", "f32", 16, 16).bind(buf, 32)
    a.bits[...] = x
    pto.tmul(d, a, make_tile(y, "f32"), target="cpu")
    assert np.array_equal(d.bits, nx.binary_exact("mul", x, y, F32))


def test_cached_plan_follows_the_valid_region():
    """A call with a smaller valid region after a full one writes only that region (the cached checks and plan
    are keyed by valid regions as well as types)."""
    a, b = make_tile(np.full((16, 16), 0x3F800000, np.uint32), "f32"), Tile("vec", "f32", 16, 16)
    d = Tile("vec", "f32", 16, 16)
    pto.tadd(d, a, b, target="cpu")
    for t in (a, b, d):
        t.set_valid(4, 8)
    a.bits[...] = 0x40000000
    pto.tadd(d, a, b, target="cpu")
    assert (d.bits[:4, :8] == 0x40000000).all() and (d.bits[4:] == 0x3F800000).all()
    assert (d.bits[:4, 8:] == 0x3F800000).all()


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("along_rows", [True, False])
@pytest.mark.parametrize("want_val", [False, True])
def test_line_kernel_equals_extreme(kind, along_rows, want_val):
    """The first max/min of each row or column, and its lanes, against :func:`reduce.extreme` (whose own
    reference is the simulator's scan) on tiles with many ties, signed zeros, infinities and some NaNs."""
    from tilesim.pto.ops.reduce import extreme
    rng = np.random.default_rng(18)
    code, answered = small_f32.line_code(kind, along_rows, True, want_val), 0
    for _ in range(200):
        R, C = (int(v) for v in rng.integers(1, 17, 2))
        x = rand_bits(rng, "f32", (16, 16), special=float(rng.choice([0.0, 0.02, 0.2])), ties=0.5)
        idx, val = np.full((16, 16), 7, np.uint32), np.full((16, 16), 7, np.uint32)
        ok = small_f32.lines(code, x, R, C, idx, val)
        want_i, want_v = extreme(x[:R, :C], F32, kind, "first", 1 if along_rows else 0)
        out = (slice(0, R), 0) if along_rows else (0, slice(0, C))
        key = x[:R, :C].view(np.float32)
        assert ok == (not np.isnan(key).any() and not (want_val and (want_v.view(np.float32) == 0).any()))
        if ok:
            answered += 1
            assert np.array_equal(idx[out], want_i)
            if want_val:
                assert np.array_equal(val[out], want_v)
            idx[out], val[out] = 7, 7
        assert (idx == 7).all() and (val == 7).all()  # nothing else written (nothing at all when not ok)
    assert answered > 50


def test_tcolargmax_with_values_through_the_kernel_equals_the_general_path():
    rng = np.random.default_rng(19)
    x = rand_bits(rng, "f32", (16, 16), special=0.0, ties=0.6)
    small, big = make_tile(x, "f32"), Tile("vec", "f32", 128, 64, valid=(16, 16))
    big.bits[:16, :16] = x
    got = pto.tcolargmax(Tile("vec", "i32", 1, 16), small, dst_val=Tile("vec", "f32", 1, 16), target="cpu")
    want = pto.tcolargmax(Tile("vec", "i32", 1, 64, valid=(1, 16)), big,
                          dst_val=Tile("vec", "f32", 1, 64, valid=(1, 16)), target="cpu")
    for g, w in zip(got, want):
        assert np.array_equal(g.valid_bits, w.valid_bits)


@pytest.mark.parametrize("name", ["trowmax", "trowmin"])
@pytest.mark.parametrize("special", [0.0, 0.1])
@pytest.mark.parametrize("dst_cols", [1, 8])
def test_row_max_min_through_the_kernel_equal_the_general_path(name, special, dst_cols):
    """TROWMAX/TROWMIN at 16x16 (the kernel) against 128x64 tiles (the general path), into a one-column
    col_major dst and into an ND dst with one valid column; ties and zeros (ties=0.5) and specials."""
    rng = np.random.default_rng(20)
    x = rand_bits(rng, "f32", (16, 16), special=special, ties=0.5)
    blayout = "col_major" if dst_cols == 1 else "row_major"
    small, big = make_tile(x, "f32"), Tile("vec", "f32", 128, 64, valid=(16, 16))
    big.bits[:16, :16] = x
    got = getattr(pto, name)(Tile("vec", "f32", 16, dst_cols, valid=(16, 1), blayout=blayout), small, target="cpu")
    want = getattr(pto, name)(Tile("vec", "f32", 128, dst_cols, valid=(16, 1), blayout=blayout), big, target="cpu")
    assert np.array_equal(got.valid_bits, want.valid_bits)


def test_the_small_ops_take_the_kernel(monkeypatch):
    """At 16x16 f32 on cpu, without NaNs, these ops answer from one kernel call each (the benchmark's ops): this
    module's, or for element-wise ops on ND tiles apart in memory :func:`jit.whole` (PTO114) and for exp its
    prepared transcendental kernel (PTO115)."""
    from tilesim.pto import jit, transcend
    calls = []
    for mod, fn in ((small_f32, "run"), (small_f32, "lines"), (jit, "whole"), (transcend, "run_prepared")):
        real = getattr(mod, fn)
        monkeypatch.setattr(mod, fn, lambda *a, real=real: calls.append(1) or real(*a))
    x = np.random.default_rng(21).uniform(1, 2, (16, 16)).astype(np.float32)
    a, b, d = Tile.from_array(x), Tile.from_array(x), Tile("vec", "f32", 16, 16)
    col, idx = Tile("vec", "f32", 16, 1, blayout="col_major"), Tile("vec", "i32", 1, 16)
    for op in (lambda: pto.tadd(d, a, b, target="cpu"), lambda: pto.tmul(d, a, b, target="cpu"),
               lambda: pto.texp(d, a, target="cpu"), lambda: pto.trowmax(col, a, target="cpu"),
               lambda: pto.tcolargmax(idx, a, target="cpu"), lambda: pto.trowexpandsub(d, a, col, target="cpu")):
        n = len(calls)
        op()
        assert len(calls) == n + 1
