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


# ------------------------------------------------- the one-pass exp, log, 1/sqrt kernels (PTO190)
def _without_fused(monkeypatch):
    """Route f32 exp/log/rsqrt/expdif around :mod:`tilesim.pto.transcend` (the paths it replaced)."""
    monkeypatch.setattr(nx, "_fused", lambda *args: False)


def _grid(bits: np.ndarray, cols: int) -> np.ndarray:
    return bits[:bits.size // cols * cols].reshape(-1, cols)


@pytest.mark.parametrize("name", ["exp", "log", "rsqrt"])
def test_one_pass_kernels_equal_the_exact_path_on_every_narrow_code_and_random_f32(name):
    """Every f16/bf16 code widened, random raw f32 lanes and rand_bits' specials, as a 2-D tile split into row
    chunks (threads) and as a strided valid region: the kernels' bits, and the exact path's on their marked
    lanes, against the exact reference."""
    x = _grid(np.concatenate([_every_narrow_code_as_f32(), _random_f32(11)]), 331)
    with np.errstate(invalid="ignore"):
        want = nx._transcendental_exact(name, nx.as_f32(x, F32).astype(np.float64), F32, False)
    assert np.array_equal(nx.unary(name, x, F32, x86=True), nx.unary_exact(name, x, F32, x86=True))
    finite = np.isfinite(want.view(np.float32))  # NaN results leave the call to the exact path: one (1.0) here
    x, want = np.where(finite, x, np.uint32(0x3F800000)), want.copy()
    want[~finite] = nx._transcendental_exact(name, np.ones(1), F32, False)[0]
    out = np.full(x.shape, 7, np.uint32)
    assert nx.fast_f32(name, x, out=out) is not None
    assert np.array_equal(out, want)
    wide = np.zeros((x.shape[0], 512), np.uint32)  # a valid region of 331 of 512 columns
    wide[:, :331] = x
    out = np.zeros_like(wide)
    assert nx.fast_f32(name, wide[:, :331], out=out[:, :331]) is not None
    assert np.array_equal(out[:, :331], want)
    assert not out[:, 331:].any()


@pytest.mark.parametrize("name", ["exp", "log", "rsqrt"])
def test_one_pass_kernels_mark_the_lanes_near_a_rounding_boundary(name):
    """2**21 consecutive f32 codes where the function varies slowly (so results come near f32 midpoints about
    as often as chance allows): the kernels' answer equals the numpy float64 + certificate path's on each."""
    start = {"exp": 0x3F000000, "log": 0x3F900000, "rsqrt": 0x40100000}[name]
    x = np.arange(start, start + (1 << 21), dtype=np.uint32).reshape(-1, 1024)
    ref = nx._certified(name, x.view(np.float32), None)[0]
    out = np.empty_like(x)
    assert nx.fast_f32(name, x, out=out) is not None
    assert np.array_equal(out, ref)


def test_one_pass_kernels_err_by_less_than_their_stated_bound():
    """The float64 values the kernels certify err by less than their proven bounds (exp: 2**-44.5, within
    ``transcend.EXP_EPS``: its polynomial alone errs by up to 2**-45.6, and here its reduction is not contracted
    into an FMA; log and 1/sqrt: ``LOG_BOUND``, ``RSQRT_BOUND``, below EPS, which set their windows; log's fast
    pass: ``LOG4_BOUND``) relative to
    50-digit decimal arithmetic, on inputs across each kernel's domain, log's reduced argument at its ends and, for
    1/sqrt, the inputs whose f32 estimate errs most (where its bound is nearly reached)."""
    from decimal import Decimal, localcontext

    from numba import njit

    from tilesim.pto import transcend

    @njit
    def values(kind, x, out):
        for i in range(x.size):
            b = x[i]
            if kind == 0:
                p, k = transcend._exp(np.float64(np.uint32(b).view(np.float32)))
                out[i] = p * 2.0 ** k
            else:
                out[i] = transcend._log(b)[0] if kind == 1 else transcend._rsqrt(b)[0] if kind == 2 else \
                    transcend._log4(b)

    rng = np.random.default_rng(12)
    domains = {"exp": (-87.29, 88.69), "log": (2.0 ** -126, 3e38), "rsqrt": (2.0 ** -126, 3e38)}
    exact = {"exp": lambda d: d.exp(), "log": lambda d: d.ln(), "rsqrt": lambda d: 1 / d.sqrt()}
    bound = {"exp": transcend.EXP_EPS / 2 ** 0.5, "log": transcend.LOG_BOUND, "rsqrt": transcend.RSQRT_BOUND}
    assert max(bound.values()) < transcend.EPS
    domains["log4"], exact["log4"], bound["log4"] = domains["log"], exact["log"], transcend.LOG4_BOUND  # PTO113
    for kind, (name, (lo, hi)) in enumerate(domains.items()):
        v = rng.uniform(lo, hi, 1500) if name == "exp" else np.exp2(rng.uniform(np.log2(lo), np.log2(hi), 1500))
        ends = np.uint32([0x3F3504F2, 0x3F3504F3, 0x3FB504F3, 0x3FB504F4]).view(np.float32)  # log's m at its ends
        x = np.concatenate([v, 1 + rng.uniform(-2 ** -10, 2 ** -10, 500), [1.0, 0.5, 2.0, 1.5], ends]).astype(
            np.float32)
        if name == "rsqrt":  # of 2**20 codes below 1 and 2**20 from 2, the 200 whose 1 / sqrtf(x) errs most
            c = (np.arange(1 << 21, dtype=np.uint32) + np.uint32(0x3F800000 - (1 << 20))
                 + (np.arange(1 << 21) >= 1 << 20) * np.uint32(1 << 23)).view(np.float32)  # both exponent parities
            d = np.abs((np.float32(1) / np.sqrt(c)).astype(np.float64) * np.sqrt(c.astype(np.float64)) - 1)
            x = np.concatenate([x, c[np.argpartition(d, -200)[-200:]]])
        got = np.empty(x.size)
        values(kind, x.view(np.uint32), got)
        with localcontext() as ctx:
            ctx.prec = 50
            for xi, yi in zip(x.tolist(), got.tolist()):
                want = exact[name](Decimal(xi))
                if want:
                    assert abs((Decimal(yi) - want) / want) < Decimal(bound[name]), (name, xi)
                else:
                    assert yi == 0.0


def test_exp_second_tier_values_err_by_less_than_their_bound():
    """The second tier's double-doubles (decision PTO198) against 50-digit decimal arithmetic: within
    ``transcend.EXP_DD_EPS`` relative, their value in [0.99, 2.02], on random inputs across its domain, small and
    tiny ones, and inputs next to the table's points n ln2 / 64."""
    from decimal import Decimal, localcontext

    from tilesim.pto import transcend
    rng = np.random.default_rng(16)
    points = np.arange(-4000, 4000, 37) * (np.log(2.0) / 64)
    x = np.concatenate([rng.uniform(-87.29, 88.69, 1500), rng.uniform(-2 ** -6, 2 ** -6, 300),
                        np.ldexp(rng.choice([-1.0, 1.0], 100), -rng.integers(20, 140, 100)),
                        np.nextafter(points.astype(np.float32), np.float32(np.inf)),
                        np.nextafter(points.astype(np.float32), np.float32(-np.inf)), [0.0, 88.69, -87.29]])
    with localcontext() as ctx:
        ctx.prec = 50
        for xi in x.astype(np.float32).tolist():
            hi, lo, k = transcend.exp_dd(xi)
            got = Decimal(hi) + Decimal(lo)
            assert Decimal("0.99") <= got <= Decimal("2.02") and hi == hi + lo, xi
            want = Decimal(xi).exp() / Decimal(2) ** k
            assert abs(got - want) / want < Decimal(transcend.EXP_DD_EPS), xi


def test_exp_second_tier_equals_the_exact_path():
    """The second tier alone on every f16/bf16 code widened and random f32 lanes with ``|x| < 200``: the exact
    path's code inside its domain (-87.3, 88.7), where it leaves no lane undecided; the mark outside."""
    from tilesim.pto import transcend
    a = nx.as_f32(np.concatenate([_every_narrow_code_as_f32(), _random_f32(17, 20_000)]), F32)
    a = a[np.abs(a) < 200].astype(np.float64)
    got = np.array([transcend._exp_dd_code(v) for v in a.tolist()], np.uint32)
    inside = (a > -87.3) & (a < 88.7)
    assert (got[~inside] == transcend.MARK).all()
    assert np.array_equal(got[inside], nx._transcendental_exact("exp", a[inside], F32, False))


def test_exp_second_look_gives_the_lanes_near_a_midpoint_to_the_second_tier():
    """The f32 inputs of [0.5, 0.53) whose exp comes within 2**11 float64 ulps of an f32 midpoint (numpy's float64
    exp finds them), between others, as one row: the fast pass flags it, the second look finds the lanes within its
    window and gives each the second tier's code (the exact path's), and leaves the others as they were."""
    from tilesim.pto import transcend
    a = np.arange(0x3F000000, 0x3F000000 + (1 << 21), dtype=np.uint32).view(np.float32)
    bits = np.exp(a.astype(np.float64)).view(np.uint64)
    near = a[((bits + np.uint64((1 << 28) + (1 << 11))) & np.uint64((1 << 29) - 1)) <= np.uint64(1 << 12)]
    assert near.size > 8
    a = np.stack([near, np.float32(0.75) + near / 8]).T.reshape(-1)  # near lanes and others, alternating
    want = nx._transcendental_exact("exp", a.astype(np.float64), F32, False)
    o, bad = np.empty(a.size, np.uint32), np.empty(4, np.int64)
    assert transcend._exp_row(a.view(np.uint32), o)
    first = o.copy()
    assert transcend._exp_fix(a, o, 0, bad, 0) == 0
    assert np.array_equal(o, want)
    mark = np.full(a.size, transcend.MARK)
    transcend._exp_fix(a, mark, 0, bad, 0)
    taken = mark != transcend.MARK  # the lanes the second tier wrote
    assert 0 < taken.sum() <= near.size and not taken[1::2].any()
    assert np.array_equal(o[~taken], first[~taken])


def _log_fast_values(x: np.ndarray) -> np.ndarray:
    """log's fast pass value (``transcend._log4``) of each f32 code of ``x``."""
    from numba import njit

    from tilesim.pto import transcend

    @njit
    def values(x, out):
        for i in range(x.size):
            out[i] = transcend._log4(x[i])

    out = np.empty(x.size)
    values(x, out)
    return out


def test_log_row_flag_is_raised_wherever_the_marking_pass_marks():
    """Rows of log inputs (random positive normals, each with one lane of its own: a lane within the marking
    pass's window, one within the fast pass's only, a neighbour of one, zero, -0, a negative, a subnormal, the
    least normal, the largest finite, inf, NaN): the fast pass flags every row where the marking pass marks a
    lane and those where a lane comes within its own window, and writes, on the rows it does not flag, the marking
    pass's bits; the tile kernel's bits and list are the marking pass's (decision PTO113)."""
    from tilesim.pto import transcend
    a = np.arange(0x3F800000, 0x40000000, dtype=np.uint32)  # [1, 2): a few lanes come within either window
    o = np.empty_like(a)
    transcend._log_row(a, o)
    near = a[o == transcend.MARK]
    fast = a[((_log_fast_values(a).view(np.uint64) + transcend._LOG4_SHIFT) & transcend._LOW29)
             <= transcend._LOG4_NEAR]
    fast = np.setdiff1d(fast, near)[:8]
    assert near.size >= 2 and fast.size == 8
    rng = np.random.default_rng(21)
    odd = [*near.tolist(), *fast.tolist(), *(near + 1).tolist(), 0, 0x80000000, 0xBF800000, 0x00000001,
           0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0xFF800000]
    rows = np.exp2(rng.uniform(-120, 120, (len(odd) + 8, 96))).astype(np.float32).view(np.uint32)
    rows[:len(odd), 40] = odd  # the last 8 rows: random lanes only
    flags = []
    for row in rows:
        flagged, marked = np.empty_like(row), np.empty_like(row)
        n = transcend._log_row(row, marked)
        flags.append(transcend._log_flag_row(row, flagged))
        assert flags[-1] or (not n and np.array_equal(flagged, marked))
    assert all(flags[:near.size + fast.size]) and not any(flags[-8:])
    out, bad = np.empty_like(rows), np.empty(64, np.int64)
    nb = transcend._log_k(rows.reshape(-1), 96, out.reshape(-1), 96, rows.shape[0], 96, bad)
    want = np.empty_like(rows)
    for i, row in enumerate(rows):
        transcend._log_row(row, want[i])
    assert np.array_equal(out, want) and np.array_equal(bad[:nb], np.flatnonzero(want == transcend.MARK))


def test_certificate_windows_follow_their_bounds():
    """A window is twice its bound in float64 ulps, rounded up to a power of two, about the midpoint: EPS's is
    the shared one (2**10), log's 2**5 (its fast pass's 2**11), 1/sqrt's 2**9 and its second tier's 2**2."""
    from tilesim.pto import transcend as tr
    half = {tr.EPS: 1 << 10, tr.LOG_BOUND: 1 << 5, tr.RSQRT_BOUND: 1 << 9, tr.RSQRT2_BOUND: 1 << 2,
            tr.LOG4_BOUND: 1 << 11}
    assert tr._window(tr.EPS) == (tr._SHIFT, tr._NEAR)
    for bound, h in half.items():
        shift, near = tr._window(bound)
        assert h >= 2 * bound * 2.0 ** 53 and near == 2 * h
        inside = [((1 << 28) + d + int(shift)) & int(tr._LOW29) <= near for d in range(-h - 1, h + 2)]
        assert inside == [False] + [True] * (2 * h + 1) + [False]  # the dropped bits at the midpoint, +-h: in


def test_rsqrt_second_tier_rounds_the_lanes_it_certifies_as_the_exact_path_does():
    """Every lane forced into 1/sqrt's second tier (all marked and listed after three other entries, as the tile
    loop lists a row's marks): the lanes it certifies hold the exact path's bits and leave the list, which keeps
    the rest in order (every lane outside the domain, few others); a full list (-1) is left alone; and its
    float64 values err by less than ``RSQRT2_BOUND`` against 50-digit decimal arithmetic."""
    from decimal import Decimal, localcontext

    from tilesim.pto import transcend
    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(16)])
    o = np.full_like(x, transcend.MARK)
    bad = np.concatenate([[-7, -7, -7], np.arange(x.size) + 1000])
    kept = transcend._rsqrt_again(x, o, 1000, bad, 3, bad.size)
    done = o != transcend.MARK
    assert (bad[:3] == -7).all() and np.array_equal(bad[3:kept], np.flatnonzero(~done) + 1000)
    with np.errstate(invalid="ignore"):
        assert np.array_equal(o[done], nx.unary_exact("rsqrt", x, F32, x86=True)[done])
    domain = x - np.uint32(0x00800000) < np.uint32(0x7F000000)
    assert not done[~domain].any() and np.count_nonzero(domain & ~done) <= 2
    o[:] = transcend.MARK
    assert transcend._rsqrt_again(x, o, 0, bad, 0, -1) == -1 and (o == transcend.MARK).all()
    v = x[domain][::97].view(np.float32).tolist()
    with localcontext() as ctx:
        ctx.prec = 50
        for xi in v:
            want = 1 / Decimal(xi).sqrt()
            assert abs((Decimal(1.0 / np.sqrt(xi)) - want) / want) < Decimal(transcend.RSQRT2_BOUND), xi


def test_economization_lowers_a_square_to_its_chebyshev_constant():
    """x**2 on [-1, 1] is T_2 / 2 + 1/2: lowered to degree 1 it is 1/2, changed by at most 1/2; on [0, 1] x**2 is
    T_2(2x - 1) / 8 + x - 1/8."""
    from fractions import Fraction

    from tilesim.pto.transcend import economized
    assert economized([0, 0, Fraction(1)], Fraction(-1), Fraction(1), 1) == ([Fraction(1, 2), 0], Fraction(1, 2))
    assert economized([0, 0, Fraction(1)], Fraction(0), Fraction(1), 1) == ([Fraction(-1, 8), 1], Fraction(1, 8))


def test_economized_polynomials_stay_within_their_stated_bounds():
    """The exact (Fraction) exp and atanh polynomials against 50-digit decimal exp and atanh at 401 points of
    their intervals (the ends included): exp within 2**-45.55 relative, Q within 2**-47.2 (log's fast pass's, of
    degree 4, within 2**-40.01), as the module says; and the changes economization reports below those it states."""
    from decimal import Decimal, localcontext
    from fractions import Fraction

    from tilesim.pto import transcend

    def at(c, x):
        return sum(ck * x ** k for k, ck in enumerate(c))

    stated = {"exp": (transcend._EXP_CHANGE, -46.05), "log": (transcend._LOG_CHANGE, -47.2),
              "log4": (transcend._LOG4_CHANGE, -40.01)}  # economized's own bounds on its changes
    assert all(change < 2.0 ** e for change, e in stated.values()), stated
    with localcontext() as ctx:
        ctx.prec = 50
        for i in range(-200, 201):
            r = transcend.EXP_R * i / 200
            want = (Decimal(r.numerator) / Decimal(r.denominator)).exp()
            got = Decimal(at(transcend._EXP_POLY, r).numerator) / Decimal(at(transcend._EXP_POLY, r).denominator)
            assert abs(got - want) / want < Decimal(2) ** Decimal("-45.55"), r
            w = transcend.LOG_W * (i + 200) / 400
            if w:
                s = Decimal(w.numerator).sqrt() / Decimal(w.denominator).sqrt()  # S = 2 atanh(S/2)'s argument
                q = (((2 + s) / (2 - s)).ln() / s - 1) / (s * s)
                got = at(transcend._LOG_POLY, Fraction(s * s))
                assert abs(Decimal(got.numerator) / Decimal(got.denominator) - q) < Decimal(2) ** Decimal("-47.2"), w
                got = at(transcend._LOG4_POLY, Fraction(s * s))  # the fast pass's (PTO113)
                assert abs(Decimal(got.numerator) / Decimal(got.denominator) - q) < Decimal(2) ** Decimal("-40.01"), w


def test_a_full_list_of_marks_changes_no_bit(monkeypatch):
    """A tile whose marked lanes overflow the kernels' list (its capacity lowered to 5): the caller finds the
    marks itself, and the bits equal the exact path's."""
    from tilesim.pto import transcend
    x = _grid(np.concatenate([_random_f32(13, 4000), _every_narrow_code_as_f32()[::37]]), 97)
    want = {name: nx.unary_exact(name, x, F32, x86=True) for name in ("exp", "log", "rsqrt")}
    monkeypatch.setattr(transcend, "_BAD_CAP", 5)
    for name, w in want.items():
        assert np.array_equal(nx.unary(name, x, F32, x86=True), w)
        ok = np.isfinite(w.view(np.float32)).all(axis=1)
        out = np.empty_like(x[ok])
        assert nx.fast_f32(name, x[ok], out=out) is not None
        assert np.array_equal(out, w[ok])


@pytest.mark.parametrize("fam", ["row", "col"])
def test_expdif_one_pass_equals_the_path_it_replaces(monkeypatch, fam):
    """TROWEXPANDEXPDIF / TCOLEXPANDEXPDIF on cpu, f32, with NaNs, infinities and subnormal differences in some
    calls and not in others, a valid region smaller than the tiles, and a large tile split into row chunks."""
    rng = np.random.default_rng(14)
    op = getattr(pto, f"t{fam}expandexpdif")
    for shape, special in (((40, 72), 0.0), ((40, 72), 0.1), ((256, 256), 0.0)):
        R, C = shape
        a = rand_bits(rng, "f32", shape, special=special, lo=-60, hi=60)
        b = rand_bits(rng, "f32", (R, 1) if fam == "row" else (1, C), special=special, lo=-30, hi=30)
        src0 = make_tile(a, "f32", R + 3, C + 8)
        src1 = make_tile(b, "f32", blayout="col_major") if fam == "row" else make_tile(b, "f32")
        got = op(make_tile(np.zeros(shape, np.uint32), "f32", R + 3, C + 8), src0, src1, target="cpu")
        with monkeypatch.context() as m:
            _without_fused(m)
            want = op(make_tile(np.zeros(shape, np.uint32), "f32", R + 3, C + 8), src0, src1, target="cpu")
        assert np.array_equal(got.valid_bits, want.valid_bits)


@pytest.mark.parametrize("name", ["texp", "tlog", "trsqrt"])
def test_unary_ops_with_a_small_valid_region_equal_the_path_they_replace(monkeypatch, name):
    rng = np.random.default_rng(15)
    a = rand_bits(rng, "f32", (130, 300), lo=0.01 if name != "texp" else -80, hi=90)
    got = getattr(pto, name)(make_tile(np.zeros_like(a), "f32", 140, 320), make_tile(a, "f32", 131, 304),
                             target="cpu")
    _without_fused(monkeypatch)
    want = getattr(pto, name)(make_tile(np.zeros_like(a), "f32", 140, 320), make_tile(a, "f32", 131, 304),
                              target="cpu")
    assert np.array_equal(got.bits, want.bits)


def test_log_split_without_a_shift_gives_the_shifted_splits_values():
    """log's ``e`` kept as ``e 2**23`` (no shift; ``LN2 2**-23`` in place of ``LN2``, PTO115) gives, bit for bit, the
    values of the split it replaced (``e`` shifted down, then converted; transcribed here), for both passes (each
    in a loop of its own, as in the kernels: a product shared by two sums would not be contracted), on every
    positive normal f16/bf16 code widened and random f32 code (the others' rows are flagged: their values are not
    used)."""
    from numba import njit

    from tilesim.pto import transcend as tr

    @njit(error_model="numpy", fastmath={"contract"})
    def shifted(x, out, five):
        for i in range(x.size):
            b = x[i]
            e = np.int32(np.uint32(b) - np.uint32(0x3F3504F3)) >> np.int32(23)
            m = np.float64(np.uint32(np.uint32(b) - (np.uint32(e) << np.uint32(23))).view(np.float32))
            s = (2.0 * m - 2.0) / (m + 1.0)
            w = s * s
            w2 = w * w
            if five:
                q = (tr._A0 + w * tr._A1) + w2 * ((tr._A2 + w * tr._A3) + w2 * (tr._A4 + w * tr._A5))
            else:
                q = (tr._F0 + w * tr._F1) + w2 * ((tr._F2 + w * tr._F3) + w2 * tr._F4)
            out[i] = np.float64(e) * tr._LN2 + ((s * w) * q + s)

    @njit(error_model="numpy", fastmath={"contract"})
    def unshifted(x, out, five):
        for i in range(x.size):
            out[i] = tr._log(x[i])[0] if five else tr._log4(x[i])

    x = np.concatenate([_every_narrow_code_as_f32(), _random_f32(13)])
    x = x[x - np.uint32(0x00800000) < np.uint32(0x7F000000)]
    assert tr._LN2_23 * 2.0 ** 23 == tr._LN2
    for five in (False, True):
        want, got = np.empty(x.size), np.empty(x.size)
        shifted(x, want, five)
        unshifted(x, got, five)
        assert np.array_equal(got.view(np.uint64), want.view(np.uint64)), five
