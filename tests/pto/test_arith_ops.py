"""TREM/TREMS, TPART*, TAXPY, TADDC against the scalar references (oracle.binary, oracle_ops.rem)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, SpecGapError
from tilesim.pto import Tile

from . import oracle_ops as oo
from .helpers import FACTS, TARGETS, nan_blind, rand_bits, seed, sentinel


def _tile(dt, vr, vc, rng, rows=4, cols=64, **kw):
    t = Tile("vec", dt, rows, cols, valid=(vr, vc))
    t.bits[...] = rand_bits(rng, dt, t.bits.shape, **kw)
    return t


def _nonzero(t, dt):
    """Replace zero divisors (which trap), and subnormal ones (zero once flushed), by 1."""
    if dt in ("f16", "f32", "bf16"):
        v = t.values.astype(np.float32)
        zero = np.abs(v) < np.finfo(t.values.dtype).tiny
        one = Tile.from_array(np.ones((1, 1), np.float32), dt).bits[0, 0]
    else:
        zero, one = t.values == 0, 1
    t.bits[zero] = one


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16", "i32", "i16", "u16", "i64"])
def test_trem_trems(target, dt):
    if (dt,) not in pto.get_target(target).dtypes["trem"]:
        pytest.skip("dtype not on this target")
    rng = np.random.default_rng(seed("rem", target, dt))
    ftz = FACTS[target]["ftz"]
    a, b = _tile(dt, 3, 40, rng), _tile(dt, 3, 40, rng, lo=-9, hi=9)
    _nonzero(b, dt)
    d = Tile("vec", dt, 4, 64, valid=(3, 40))
    keep = sentinel(d)
    pto.trem(d, a, b, Tile("vec", dt, 4, 64), target=target)
    for (i, j), x in np.ndenumerate(a.bits[:3, :40]):
        got, want = int(d.bits[i, j]), oo.rem(int(x), int(b.bits[i, j]), dt, ftz)
        assert nan_blind([[got]], dt, target) == nan_blind([[want]], dt, target), (i, j)  # cpu: PTO91
    assert (d.bits[3:] == keep[3:]).all()
    s = b.values[0, 0].item()
    pto.trems(d, a, s, target=target)
    for (i, j), x in np.ndenumerate(a.bits[:3, :40]):
        got, want = int(d.bits[i, j]), oo.rem(int(x), int(b.bits[0, 0]), dt, ftz)
        assert nan_blind([[got]], dt, target) == nan_blind([[want]], dt, target)


def test_trem_examples_and_zero():
    a = Tile.from_array(np.array([[-7, 7, -6, 5]], np.int32))
    b = Tile.from_array(np.array([[3, -3, 3, 5]], np.int32))
    d = Tile("vec", "i32", 1, 8, valid=(1, 4))
    assert pto.trem(d, a, b).valid_values.tolist() == [[2, -2, 0, 0]]
    f = Tile.from_array(np.array([[-7.5, 7.5, -4.0]], np.float32))
    g = Tile.from_array(np.array([[2.0, -2.0, 2.0]], np.float32))
    r = pto.trem(Tile("vec", "f32", 1, 8, valid=(1, 3)), f, g, target="cpu").valid_values
    assert r.tolist() == [[0.5, -0.5, -0.0]] and np.signbit(r[0, 2])
    with pytest.raises(SpecGapError) as e:
        pto.trems(d, a, 0)
    assert e.value.rule == "pto.op.div_zero"
    with pytest.raises(DtypeError):
        pto.trem(Tile("vec", "i16", 1, 16), Tile("vec", "i16", 1, 16), Tile("vec", "i16", 1, 16), target="a2a3")


@given(op=st.sampled_from(["add", "mul", "max", "min"]), dt=st.sampled_from(["f32", "f16", "i32", "i16"]),
       target=st.sampled_from(TARGETS), r0=st.integers(0, 4), c0=st.integers(0, 40), r1=st.integers(0, 4),
       c1=st.integers(0, 40), s=st.integers(0, 1000))
def test_tpart(op, dt, target, r0, c0, r1, c1, s):
    rng = np.random.default_rng(s)
    a, b = _tile(dt, r0, c0, rng), _tile(dt, r1, c1, rng)
    R, C = max(r0, r1), max(c0, c1)
    d = Tile("vec", dt, 4, 64, valid=(R, C))
    keep = sentinel(d)
    getattr(pto, "tpart" + op)(d, a, b, target=target)
    f = FACTS[target]
    for i in range(R):
        for j in range(C):
            in0, in1 = i < r0 and j < c0, i < r1 and j < c1
            x, y = int(a.bits[i, j]), int(b.bits[i, j])
            exp = oo.binary(op, x, y, dt, f["ftz"], f["nan"]) if in0 and in1 else x if in0 else y if in1 else 0
            assert nan_blind([[int(d.bits[i, j])]], dt, target) == nan_blind([[exp]], dt, target)  # cpu: PTO91
    assert (d.bits[R:] == keep[R:]).all() and (d.bits[:, C:] == keep[:, C:]).all()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("sdt,ddt", [("f16", "f16"), ("f32", "f32"), ("f16", "f32")])
def test_taxpy(target, sdt, ddt):
    rng = np.random.default_rng(seed("axpy", target, sdt, ddt))
    f = FACTS[target]
    src, dst = _tile(sdt, 3, 33, rng), _tile(ddt, 3, 33, rng)
    before = dst.bits.copy()
    scalar = np.float16(1.375) if sdt == "f16" else np.float32(-0.3)
    sbits = int(np.asarray(scalar).view(np.uint16 if sdt == "f16" else np.uint32))
    pto.taxpy(dst, src, scalar, target=target)
    for (i, j), x in np.ndenumerate(src.bits[:3, :33]):
        p = oo.binary("mul", int(x), sbits, sdt, f["ftz"])
        if sdt != ddt:
            p = oo.cast(p, sdt, ddt)
        assert int(dst.bits[i, j]) == oo.binary("add", int(before[i, j]), p, ddt, f["ftz"])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16", "i16", "i32"])
def test_taddc(target, dt):
    rng = np.random.default_rng(seed("addc", target, dt))
    f = FACTS[target]
    a, b, c = (_tile(dt, 2, 20, rng) for _ in range(3))
    d = Tile("vec", dt, 4, 64, valid=(2, 20))
    pto.taddc(d, a, b, c, target=target)
    wide = "f32" if target == "cpu" and dt == "f16" else dt  # cpu: f16 sums in f32, one rounding (PTO95)
    up = lambda v: v if wide == dt else oo.round_bits(oo.dec(v, dt), wide)
    for (i, j), x in np.ndenumerate(a.bits[:2, :20]):
        s01 = oo.binary("add", up(int(x)), up(int(b.bits[i, j])), wide, f["ftz"])
        r = oo.binary("add", s01, up(int(c.bits[i, j])), wide, f["ftz"])
        want = r if wide == dt else oo.round_bits(oo.dec(r, wide), dt)
        assert nan_blind([[int(d.bits[i, j])]], dt, target) == nan_blind([[want]], dt, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16", "i16", "i32"])
@pytest.mark.parametrize("op", ["tsubc", "taddsc", "tsubsc"])
def test_carry_forms(op, target, dt):
    """``(src0 op x) + src2``, x a tile (TSUBC) or a scalar (TADDSC, TSUBSC), as TADDC (PTO124)."""
    rng = np.random.default_rng(seed(op, target, dt))
    f = FACTS[target]
    a, b, c = (_tile(dt, 2, 20, rng) for _ in range(3))
    d = Tile("vec", dt, 4, 64, valid=(2, 20))
    first = "add" if op == "taddsc" else "sub"
    if op == "tsubc":
        pto.tsubc(d, a, b, c, target=target)
        mid = lambda i, j: int(b.bits[i, j])  # noqa: E731
    else:
        sc = b.values[0, 0]
        getattr(pto, op)(d, a, sc, c, target=target)
        mid = lambda i, j: int(b.bits[0, 0])  # noqa: E731
    wide = "f32" if target == "cpu" and dt == "f16" else dt  # cpu: f16 sums in f32, one rounding (PTO95)
    up = lambda v: v if wide == dt else oo.round_bits(oo.dec(v, dt), wide)  # noqa: E731
    for (i, j), x in np.ndenumerate(a.bits[:2, :20]):
        s01 = oo.binary(first, up(int(x)), up(mid(i, j)), wide, f["ftz"])
        r = oo.binary("add", s01, up(int(c.bits[i, j])), wide, f["ftz"])
        want = r if wide == dt else oo.round_bits(oo.dec(r, wide), dt)
        assert nan_blind([[int(d.bits[i, j])]], dt, target) == nan_blind([[want]], dt, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
def test_relu_forms(target, dt):
    """TSUBRELU ``relu(a - b)`` (NaN and -0 give +0), TLRELU and TPRELU ``a > 0 ? a : a * slope`` (PTO124)."""
    rng = np.random.default_rng(seed("relu", target, dt))
    f = FACTS[target]
    a, b = (_tile(dt, 2, 20, rng) for _ in range(2))
    d1, d2, d3 = (Tile("vec", dt, 4, 64, valid=(2, 20)) for _ in range(3))
    pto.tsubrelu(d1, a, b, target=target)
    pto.tprelu(d2, a, b, target=target)
    pto.tlrelu(d3, a, b.values[0, 0], target=target)
    for (i, j), x in np.ndenumerate(a.bits[:2, :20]):
        x, y = int(x), int(b.bits[i, j])
        diff = oo.binary("sub", x, y, dt, f["ftz"])
        v = oo.dec(diff, dt)
        assert int(d1.bits[i, j]) == (diff if v > 0 else 0)
        pos = oo.dec(oo.binary("add", x, 0, dt, f["ftz"]), dt) > 0  # x as the target reads it (flushed)
        for d, slope in ((d2, y), (d3, int(b.bits[0, 0]))):
            want = x if pos else oo.binary("mul", x, slope, dt, f["ftz"])
            assert nan_blind([[int(d.bits[i, j])]], dt, target) == nan_blind([[want]], dt, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16", "i32", "i16"])
@pytest.mark.parametrize("op", ["tmuladddst", "tfusedmuladd", "tfusedmuladdrelu"])
def test_mul_add_forms(op, target, dt):
    """Two roundings (product, then sum; on cpu an f16 sum in f32 rounded once, and TFUSEDMULADD's whole f16
    expression in f32), TFUSEDMULADDRELU's ReLU after (PTO126)."""
    if dt not in [s[0] for s in pto.get_target(target).dtypes[op]]:
        pytest.skip("not a dtype of the target")
    rng = np.random.default_rng(seed(op, target, dt))
    f = FACTS[target]
    a, b, d = (_tile(dt, 2, 20, rng) for _ in range(3))
    d0 = d.bits.copy()
    getattr(pto, op)(d, a, b, target=target)
    cpu16 = target == "cpu" and dt == "f16"
    up = lambda v: oo.round_bits(oo.dec(v, dt), "f32") if cpu16 else v  # noqa: E731
    down = lambda v: oo.round_bits(oo.dec(v, "f32"), dt) if cpu16 else v  # noqa: E731
    w = "f32" if cpu16 else dt
    for (i, j), x in np.ndenumerate(a.bits[:2, :20]):
        x, y, z = int(x), int(b.bits[i, j]), int(d0[i, j])
        if op == "tmuladddst":
            want = down(oo.binary("add", up(oo.binary("mul", x, y, dt, f["ftz"])), up(z), w, f["ftz"]))
        elif op == "tfusedmuladd":
            want = down(oo.binary("add", oo.binary("mul", up(x), up(z), w, f["ftz"]), up(y), w, f["ftz"]))
        else:
            want = down(oo.binary("add", up(oo.binary("mul", x, z, dt, f["ftz"])), up(y), w, f["ftz"]))
            want = want if oo.dec(want, dt) > 0 else 0  # NaN and -0 give +0
        assert nan_blind([[int(d.bits[i, j])]], dt, target) == nan_blind([[want]], dt, target)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("vc", [1, 7, 20])
def test_tpairreducesum(target, dt, vc):
    """Pair sums (an odd last element plus +0), the rest of each valid row 0; cpu zeroes the whole tile (PTO127)."""
    rng = np.random.default_rng(seed("pairsum", target, dt))
    f = FACTS[target]
    src = _tile(dt, 3, vc, rng)
    dst = _tile(dt, 3, vc, rng)
    before = dst.bits.copy()
    pto.tpairreducesum(dst, src, target=target)
    cpu16 = target == "cpu" and dt == "f16"
    up = lambda v: oo.round_bits(oo.dec(v, dt), "f32") if cpu16 else v  # noqa: E731
    down = lambda v: oo.round_bits(oo.dec(v, "f32"), dt) if cpu16 else v  # noqa: E731
    w = "f32" if cpu16 else dt
    mid = (vc + 1) // 2
    for i in range(3):
        for k in range(vc):
            if k < mid:
                x = int(src.bits[i, 2 * k])
                y = int(src.bits[i, 2 * k + 1]) if 2 * k + 1 < vc else 0
                want = down(oo.binary("add", up(x), up(y), w, f["ftz"]))
            else:
                want = 0
            assert nan_blind([[int(dst.bits[i, k])]], dt, target) == nan_blind([[want]], dt, target)
    outside = np.ones(dst.bits.shape, bool)
    outside[:3, :vc] = False
    assert (dst.bits[outside] == (0 if target == "cpu" else before[outside])).all()


def _column(t: Tile, c: int) -> Tile:
    """Column c of t's valid region as a col_major one-column tile (TROWEXPAND's broadcast operand)."""
    col = Tile("vec", t.dtype.name, 32 // t.dtype.size, 1, valid=(t.valid_rows, 1), blayout="col_major")
    col.bits[: t.valid_rows, 0] = t.bits[: t.valid_rows, c]
    return col


_INT_MIN_CALLS = {  # op -> call(dst, a, b) putting a's INT_MIN over b's -1 (decision PTO72)
    "tdiv": lambda d, a, b, t: pto.tdiv(d, a, b, target=t),
    "trem": lambda d, a, b, t: pto.trem(d, a, b, target=t),
    "tdivs": lambda d, a, b, t: pto.tdivs(d, a, b.values.dtype.type(-1), target=t),
    "tdivs_first": lambda d, a, b, t: pto.tdivs(d, a.values.dtype.type(a.values[0, 1]), b, target=t),
    "trems": lambda d, a, b, t: pto.trems(d, a, b.values.dtype.type(-1), target=t),
    "trowexpanddiv": lambda d, a, b, t: pto.trowexpanddiv(d, a, _column(b, 1), target=t),
    "tcolexpanddiv": lambda d, a, b, t: pto.tcolexpanddiv(d, a, Tile.from_array(b.valid_values[:1].copy()), target=t),
}


@pytest.mark.parametrize("call", sorted(_INT_MIN_CALLS))
@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64])
def test_int_min_over_minus_one(call, dt):
    """On cpu, 32/64-bit INT_MIN / -1 (and rem) is refused where the CPU simulator's idiv traps (SIGFPE), naming
    the op, the divisor and the element, leaving dst as it was; 8/16-bit types divide after promotion to int, so
    there it wraps as the simulator gives it (tests/pto/golden/tdiv_overflow); NPU targets keep wrapping."""
    lo = np.iinfo(dt).min
    a = Tile.from_array(np.array([[6, lo, 9], [lo, lo, 4]], dt))
    b = Tile.from_array(np.array([[3, -1, 2], [7, -1, 2]], dt))
    d = Tile.from_array(np.full((2, 3), 5, dt))
    name = call.removesuffix("_first")
    if (Tile.from_array(a.values).dtype.name,) not in pto.get_target("cpu").dtypes[name]:
        pytest.skip("dtype not on cpu")
    if np.dtype(dt).itemsize >= 4:
        with pytest.raises(SpecGapError) as e:
            _INT_MIN_CALLS[call](d, a, b, "cpu")
        assert (e.value.rule, e.value.instruction, e.value.operand) == ("pto.op.div_overflow", name.upper(), "divisor")
        assert " at element (0, 1)" in str(e.value) and str(lo) in str(e.value)
        assert (d.valid_values == 5).all()
    else:
        _INT_MIN_CALLS[call](d, a, b, "cpu")
        want = 0 if "rem" in call else lo
        assert d.values[0, 1] == want
    if dt in (np.int16, np.int32) and call in ("tdiv", "tdivs"):
        _INT_MIN_CALLS[call](d, a, b, "a5")
        assert d.values[0, 1] == lo  # the NPU pages say nothing of a trap: two's complement wrap, as before


@pytest.mark.parametrize("dt", [np.int32, np.float32])
def test_trems_zero_scalar_with_tmp_on_cpu(dt):
    """On cpu, TREMS with a tmp skips a zero (or -0.0) scalar: its assert is compiled out, so dst keeps its bytes
    (golden vectors trems.npz); strict refuses it; without tmp (no such check) an integer zero still traps."""
    a = Tile.from_array(np.array([[7, -7, 5]], dt))
    d = Tile.from_array(np.full((1, 3), 9, dt))
    for zero in ((dt(0), dt(-0.0)) if dt == np.float32 else (dt(0),)):
        pto.trems(d, a, zero, Tile.from_array(np.zeros((1, 3), dt)), target="cpu")
        assert (d.valid_values == 9).all()
        with pytest.raises(SpecGapError) as e:
            pto.trems(d, a, zero, Tile.from_array(np.zeros((1, 3), dt)), target=pto.get_target("cpu").with_(strict=True))
        assert (e.value.rule, e.value.operand) == ("pto.op.div_zero", "scalar")
    if dt == np.int32:
        with pytest.raises(SpecGapError):
            pto.trems(d, a, dt(0), target="cpu")
