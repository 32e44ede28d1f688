"""TAND/TOR/TXOR/TNOT, their scalar forms and the shifts (PTO122) against Python's integer operators: every
pair of 8-bit codes, every 8-bit code by every accepted count, random wider lanes; the count and dtype
refusals, per target; and the ``.pto`` forms. The simulator's own values are in tests/pto/golden."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, SpecGapError

from . import oracle as o
from .helpers import lane, make_tile

INTS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
LOGIC = {"tand": lambda a, b: a & b, "tor": lambda a, b: a | b, "txor": lambda a, b: a ^ b}


def _signed(v: int, dt: str) -> int:
    bits, signed = o.INTS[dt]
    v %= 1 << bits
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _shift_oracle(kind: str, x: int, n: int, dt: str) -> int:
    """C++ on the promoted value: Python's << then the low bits; Python's >> is arithmetic on a signed value."""
    v = _signed(x, dt)
    return o.int_bits(v << n if kind == "shl" else v >> n, dt)


def _run(op: str, a, b, dt: str, target="cpu", scalar=False):
    dst = make_tile(np.zeros_like(a), dt)
    getattr(pto, op)(dst, make_tile(a, dt), b if scalar else make_tile(b, dt), target=target)
    return dst.bits[: a.shape[0], : a.shape[1]]


@pytest.mark.parametrize("op", LOGIC)
@pytest.mark.parametrize("dt", ("i8", "u8"))
def test_logic_of_every_pair_of_bytes(op, dt):
    a, b = (x.astype(np.uint8) for x in np.meshgrid(np.arange(256), np.arange(256)))
    got = _run(op, a, b, dt)
    want = np.array([LOGIC[op](int(x), int(y)) for x, y in zip(a.ravel(), b.ravel())]).reshape(a.shape)
    assert (got == want).all()


@pytest.mark.parametrize("dt", INTS[2:])
def test_logic_and_not_of_wide_lanes(dt):
    rng = np.random.default_rng(11)
    a, b = (rng.integers(0, 2 ** 63, (4, 64), dtype=np.uint64).astype(lane(dt)) * 3 for _ in range(2))
    for op, f in LOGIC.items():
        want = [[f(int(x), int(y)) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
        assert _run(op, a, b, dt).tolist() == want
        want = [[f(int(x), int(b[0, 0])) for x in ra] for ra in a]
        scalar = b[0, :1].view(pto.get_dtype(dt).np)[0]  # the same code as a number of the dtype
        assert _run(op + "s", a, scalar, dt, scalar=True).tolist() == want
    dst = make_tile(np.zeros_like(a), dt)
    pto.tnot(dst, make_tile(a, dt), target="cpu")
    assert dst.bits[:4, :64].tolist() == [[o.int_bits(~int(x), dt) for x in r] for r in a]


@pytest.mark.parametrize("target,widths", [("cpu", 32), ("a5", 8)])
@pytest.mark.parametrize("dt", ("i8", "u8"))
@pytest.mark.parametrize("kind", ("shl", "shr"))
def test_every_byte_by_every_count(kind, dt, target, widths):
    x, n = (v.astype(np.uint8) for v in np.meshgrid(np.arange(256), np.arange(widths)))
    got = _run("t" + kind, x, n, dt, target)
    want = np.array([_shift_oracle(kind, int(a), int(c), dt) for a, c in zip(x.ravel(), n.ravel())])
    assert (got.ravel() == want).all()


@pytest.mark.parametrize("dt", INTS[2:])
def test_wide_shifts_and_scalar_shifts(dt):
    rng = np.random.default_rng(12)
    bits = o.INTS[dt][0]
    width = max(32, bits)
    x = rng.integers(0, 2 ** 63, (4, 32), dtype=np.uint64).astype(lane(dt)) * 5
    n = rng.integers(0, width, (4, 32)).astype(lane(dt))
    for kind in ("shl", "shr"):
        want = [[_shift_oracle(kind, int(a), int(c), dt) for a, c in zip(ra, rc)] for ra, rc in zip(x, n)]
        assert _run("t" + kind, x, n, dt).tolist() == want
        c = width - 1
        want = [[_shift_oracle(kind, int(a), c, dt) for a in r] for r in x]
        assert _run(f"t{kind}s", x, c, dt, scalar=True).tolist() == want


@pytest.mark.parametrize("dt,count,target", [("i16", 32, "cpu"), ("i16", 16, "a5"), ("i32", -1, "cpu"),
                                             ("u64", 64, "cpu"), ("u8", 8, "a2a3")])
def test_a_count_out_of_range_is_refused_and_dst_kept(dt, count, target):
    x = np.ones((1, 8), lane(dt))
    n = np.zeros((1, 8), lane(dt))
    n[0, 5] = np.array(count).astype(np.int64).astype(lane(dt))
    dst = make_tile(np.full((1, 8), 9, lane(dt)), dt)
    before = dst.bits.copy()
    with pytest.raises(SpecGapError) as e:
        pto.tshl(dst, make_tile(x, dt), make_tile(n, dt), target=target)
    assert e.value.rule == "pto.op.shift_count" and "(0, 5)" in str(e.value) and str(count) in str(e.value)
    assert (dst.bits == before).all()


@pytest.mark.parametrize("op,dt,target", [("tand", "f32", "cpu"), ("tand", "i64", "a5"), ("tshl", "i64", "a2a3"),
                                          ("tshls", "u8", "a2a3"), ("tnot", "f16", "a5")])
def test_dtypes_outside_the_pages_are_refused(op, dt, target):
    a = np.zeros((1, 8), lane(dt))
    dst = make_tile(a.copy(), dt)
    args = (make_tile(a, dt),) if op == "tnot" else (make_tile(a, dt), 1 if op.endswith("s") else make_tile(a, dt))
    with pytest.raises(DtypeError):
        getattr(pto, op)(dst, *args, target=target)


def test_pto_text_forms():
    a = np.array([[12, -1, 5, 7]], np.int32)
    b = np.array([[10, 3, 1, 2]], np.int32)
    text = """%d = pto.tand %a, %b : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>
%e = pto.tshl %d, %b : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>
%c1 = arith.constant 1 : i32
%f = pto.tshrs %a, %c1 : (!pto.tile<...>, i32) -> !pto.tile<...>
%g = pto.tnot %a : !pto.tile<...> -> !pto.tile<...>
%h = pto.txor %a, %b : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>
%k = pto.tors %a, %c1 : (!pto.tile<...>, i32) -> !pto.tile<...>
"""
    out = pto.run_text(text, {"a": a, "b": b}, "a5")
    assert out["d"].tolist() == [[12 & 10, -1 & 3, 5 & 1, 7 & 2]]
    assert out["e"].tolist() == [[(12 & 10) << 10, 3 << 3, 1 << 1, 2 << 2]]
    assert out["f"].tolist() == [[6, -1, 2, 3]] and out["g"].tolist() == [[-13, 0, -6, -8]]
    assert out["h"].tolist() == [[12 ^ 10, -1 ^ 3, 5 ^ 1, 7 ^ 2]] and out["k"].tolist() == [[13, -1, 5, 7]]
