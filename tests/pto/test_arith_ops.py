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
