"""TLOG and TRECIP of integer tiles, and TCMPS of i8/u32 sources into u8 masks, on target ``cpu`` (PTO121):
every code of the 8- and 16-bit dtypes against the oracle (``math.log``, truncated; ``Fraction``), the 32-bit
ones around every ``e^k``; the traps and refusals. The simulator's own values are in tests/pto/golden."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, SpecGapError

from . import oracle as o
from .helpers import lane, make_tile

SMALL = ("i8", "u8", "i16", "u16")


def _every_code(dt: str) -> np.ndarray:
    n = 1 << o.INTS[dt][0]
    return np.arange(n, dtype=np.uint64).astype({256: np.uint8, 65536: np.uint16}[n]).reshape(-1, 256)


def _run(op: str, bits: np.ndarray, dt: str, target="cpu"):
    dst = make_tile(np.zeros_like(bits), dt)
    getattr(pto, op)(dst, make_tile(bits, dt), target=target)
    R, C = bits.shape
    return dst, dst.bits[:R, :C]


@pytest.mark.parametrize("dt", SMALL)
def test_tlog_of_every_code(dt):
    bits = _every_code(dt)
    dst, got = _run("tlog", bits, dt)
    want = np.array([o.unary("log", int(x), dt, x86=True) for x in bits.ravel()]).reshape(bits.shape)
    assert (got == want).all()
    values = bits.view({"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16}[dt]).astype(np.int64)
    assert (dst.undefined[: bits.shape[0], : bits.shape[1]] == (values <= 0)).all()  # ln 0 = -inf, ln x<0 = NaN


@pytest.mark.parametrize("dt", ("i32", "u32"))
def test_tlog_around_every_power_of_e(dt):
    edges = [v for k in range(1, 23) for c in (math.ceil(math.e ** k),) for v in (c - 2, c - 1, c, c + 1)]
    edges = [v for v in edges + [0, 1, 2, 2 ** 31 - 1] if v < 2 ** o.INTS[dt][0] // (2 if dt[0] == "i" else 1)]
    bits = np.array(edges, np.int64).astype(np.uint32).reshape(1, -1)
    _, got = _run("tlog", bits, dt)
    want = [o.unary("log", int(x), dt, x86=True) for x in bits.ravel()]
    assert got.ravel().tolist() == want


@pytest.mark.parametrize("dt", SMALL + ("i32", "u32", "i64", "u64"))
def test_trecip_of_integers(dt):
    rng = np.random.default_rng(5)
    if dt in SMALL:
        bits = _every_code(dt)
    else:
        bits = rng.integers(0, 2 ** 63, (4, 64), dtype=np.uint64).astype(lane(dt))
        bits[0, :3] = [1, 2, bits.dtype.type(-1 % 2 ** (8 * bits.itemsize))]
    bits = np.where(bits == 0, bits.dtype.type(1), bits)
    _, got = _run("trecip", bits, dt)
    want = np.array([o.unary("recip", int(x), dt) for x in bits.ravel()], np.uint64).reshape(bits.shape)
    assert (got == want).all()


def test_integer_trecip_by_zero_traps_and_leaves_dst():
    bits = np.array([[3, 0, 1]], np.uint32)
    dst = make_tile(np.full((1, 3), 7, np.uint32), "i32")
    before = dst.bits.copy()
    with pytest.raises(SpecGapError) as e:
        pto.trecip(dst, make_tile(bits, "i32"), target="cpu")
    assert e.value.rule == "pto.op.div_zero" and "(0, 1)" in str(e.value)
    assert (dst.bits == before).all()


def test_strict_cpu_refuses_the_undefined_log():
    strict = pto.get_target("cpu").with_(strict=True)
    ok = make_tile(np.array([[1, 5, 100]], np.uint32), "i32")
    assert _run("tlog", ok.bits[:1, :3], "i32", strict)[1].tolist() == [[0, 1, 4]]
    with pytest.raises(SpecGapError, match=r"ln\(0\)") as e:
        _run("tlog", np.array([[1, 0]], np.uint32), "i32", strict)
    assert e.value.rule == "pto.tcvt.undefined"


@pytest.mark.parametrize("dt,target", [("i64", "cpu"), ("u64", "cpu"), ("i32", "a5"), ("i16", "a2a3")])
def test_integer_tlog_is_refused_elsewhere(dt, target):
    """64-bit: a double log near e^k (k >= 37) truncates by the libm's last bit; the NPUs: floats only."""
    with pytest.raises(DtypeError):
        _run("tlog", np.ones((1, 4), np.uint64 if dt[1:] == "64" else np.uint32), dt, target)


@pytest.mark.parametrize("dt", ("i8", "u32"))
def test_tcmps_of_i8_and_u32_into_a_u8_mask(dt):
    vals = np.array([[0, 1, 2, 3, 4, 5, 6, 7] * 4], np.uint64).astype(np.uint8 if dt == "i8" else np.uint32)
    src = make_tile(vals, dt)
    dst = pto.Tile("vec", "u8", 1, 32, valid=(1, 4))
    pto.tcmps(dst, src, 3, "ge", target="cpu")
    assert dst.bits[0, :4].tolist() == [0b11111000] * 4  # element j is bit j % 8 of byte j // 8
