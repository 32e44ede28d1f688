"""The NPUs' 4-bit forms (decision PTO189), on every 4-bit code and every 16-bit source code, against oracles
written from the pages: docs/isa/TCVT.md's pairs (A2A3 FP16 <-> S4, A5 BF16 <-> FP4_E1M2X2/FP4_E2M1X2), the
value tables of the 4-bit formats written out by hand, rounding by comparing with the neighbours in those
tables, and the packing of pto-isa's ``int4b_t`` (two codes a byte, element 2k in the low nibble)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError
from tilesim.pto import Tile

MODES = ("CAST_RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "NONE")
#: the non-negative values of codes 0..7 (code | 8 is the negative), OCP MX's E2M1 and tilesim's E1M2 (PTO146)
VALUES = {"f4e2m1": (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0),
          "f4e1m2": (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75)}


def _all_16_bit(dt: str) -> tuple[Tile, np.ndarray]:
    """A 256 x 256 tile holding every 16-bit code once, and those codes as float64 values."""
    t = Tile("vec", dt, 256, 256)
    t.bits[...] = np.arange(65536, dtype=np.uint16).reshape(256, 256)
    codes = t.bits.astype(np.uint32)
    with np.errstate(invalid="ignore"):                                # signalling NaNs widen quietly
        x = t.bits.view(np.float16).astype(np.float64) if dt == "f16" else \
            (codes << 16).view(np.float32).astype(np.float64)
    sub = (codes & (0x7C00 if dt == "f16" else 0x7F80)) == 0         # the NPUs read subnormals as zero
    return t, np.where(sub, np.copysign(0.0, x), x)


def _int4_oracle(x: float, mode: str) -> int:
    """f16 -> int4b_t on A2A3: the integer by the mode (NONE, and ODD, which has no vconv_f162s4 variant, take
    the default intrinsic: truncation, as tilesim reads it for every float -> int pair), saturated to -8..7,
    NaN to 7; the nibble."""
    if math.isnan(x):
        return 7
    if math.isinf(x):
        v = 7 if x > 0 else -8
    else:
        a = abs(x)
        near = math.floor(a + 0.5) if a % 1 != 0.5 else (math.floor(a) + (math.floor(a) % 2))
        v = {"CAST_RINT": math.copysign(near, x), "ROUND": math.copysign(math.floor(a + 0.5), x),
             "FLOOR": math.floor(x), "CEIL": math.ceil(x), "TRUNC": math.trunc(x), "NONE": math.trunc(x),
             "ODD": math.trunc(x)}[mode]
        v = int(min(max(v, -8), 7))
    return v & 0xF


@pytest.mark.parametrize("mode", MODES)
def test_a2a3_f16_to_int4_every_code(mode):
    src, x = _all_16_bit("f16")
    dst = Tile("vec", "i4", 256, 256)
    pto.tcvt(dst, src, mode, target="a2a3")
    want = np.array([_int4_oracle(v, mode) for v in x.ravel()], np.uint8).reshape(256, 256)
    assert np.array_equal(dst.bits, want)


def test_a2a3_int4_to_f16_every_code():
    src, dst = Tile("vec", "i4", 1, 64, (1, 16)), Tile("vec", "f16", 1, 16)
    src.bits[0, :16] = np.arange(16)
    pto.tcvt(dst, src, target="a2a3")
    assert dst.values[0].tolist() == [0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1]


def _fp4_oracle(x: np.ndarray, dt: str, mode: str) -> np.ndarray:
    """bf16 -> fp4 on A5 by the value table: the neighbours below and above |x| (saturated at the largest),
    the mode choosing between them (ODD and NONE: nearest even), the sign bit kept; NaN to 7."""
    vals = np.array(VALUES[dt])
    a = np.minimum(np.abs(np.nan_to_num(x)), vals[-1])
    lo = np.searchsorted(vals, a, side="right") - 1                  # the code of the largest value <= |x|
    hi = np.minimum(lo + (vals[lo] < a), 7)                          # ... and of the smallest >= |x|
    neg = np.signbit(x)
    d_lo, d_hi = a - vals[lo], vals[hi] - a
    nearest = np.where(d_lo < d_hi, lo, np.where(d_hi < d_lo, hi, np.where(lo % 2 == 0, lo, hi)))
    code = {"CAST_RINT": nearest, "ODD": nearest, "NONE": nearest, "ROUND": np.where(d_lo < d_hi, lo, hi),
            "FLOOR": np.where(neg, hi, lo), "CEIL": np.where(neg, lo, hi), "TRUNC": lo}[mode]
    code = np.where(neg, code | 8, code)
    return np.where(np.isnan(x), 7, code).astype(np.uint8)


@pytest.mark.parametrize("dt", ["f4e2m1", "f4e1m2"])
@pytest.mark.parametrize("mode", MODES)
def test_a5_bf16_to_fp4_every_code(dt, mode):
    src, x = _all_16_bit("bf16")
    dst = Tile("vec", dt, 256, 256)
    pto.tcvt(dst, src, mode, target="a5")
    assert np.array_equal(dst.bits, _fp4_oracle(x, dt, mode))


@pytest.mark.parametrize("dt", ["f4e2m1", "f4e1m2"])
def test_a5_fp4_to_bf16_every_code(dt):
    src, dst = Tile("vec", dt, 1, 64, (1, 16)), Tile("vec", "bf16", 1, 16)
    src.bits[0, :16] = np.arange(16)
    pto.tcvt(dst, src, target="a5")
    want = [*VALUES[dt], *(-v for v in VALUES[dt])]
    assert dst.bits[0].tolist() == [int(np.float32(v).view(np.uint32)) >> 16 for v in want]


def test_a5_fp4_writes_whole_bytes_over_zeroed_rows():
    """A5 zeroes the valid rows' bytes, then writes validCols / 2 whole bytes: an odd width's last element is 0."""
    src = Tile("vec", "bf16", 4, 16, (2, 5))
    src.values[...] = np.float32(1.0).astype(src.dtype.np)
    dst = Tile("vec", "f4e2m1", 4, 64, (2, 5))
    dst.bits[...] = 0x3
    pto.tcvt(dst, src, target="a5")
    assert dst.bits[:2].tolist() == [[2, 2, 2, 2, 0] + [0] * 59] * 2 and (dst.bits[2:] == 0x3).all()


def test_packed_int4_load_and_store_every_byte():
    """A5's int4b_t global memory is two codes a byte (cpu's is one), like fp4's: all 256 bytes round-trip."""
    gm = np.arange(256, dtype=np.uint8).reshape(2, 128)
    t = Tile("vec", "i4", 2, 256)
    pto.tload(t, gm, target="a5")
    assert np.array_equal(t.bits[:, 0::2], gm & 0xF) and np.array_equal(t.bits[:, 1::2], gm >> 4)
    for dt in ("f4e2m1", "f4e1m2"):
        f = pto.tload(Tile("vec", dt, 2, 256), gm, target="a5")
        out = np.zeros_like(gm)
        pto.tstore(out, f, target="a5")
        assert np.array_equal(out, gm)
    one = pto.tload(Tile("vec", "i4", 2, 128), gm, target="cpu")       # cpu: one byte an element (PTO153)
    assert np.array_equal(one.bits, gm)


@pytest.mark.parametrize("op,args,target", [
    ("tcvt", ("i4", "f16"), "a5"), ("tcvt", ("f16", "i4"), "a5"), ("tcvt", ("bf16", "f4e2m1"), "a2a3"),
    ("tcvt", ("f4e1m2", "bf16"), "a2a3"), ("tcvt", ("f32", "f4e2m1"), "a5"), ("tcvt", ("bf16", "i4"), "a2a3"),
    ("tload", ("i4",), "a2a3"), ("tload", ("f4e2m1",), "a2a3"), ("tstore", ("i4",), "a5"),
    ("tstore", ("f4e1m2",), "a2a3"),
])
def test_forms_the_pages_leave_out_are_refused(op, args, target):
    gm = np.zeros((1, 32), np.uint8)
    with pytest.raises(DtypeError) as e:
        if op == "tcvt":
            pto.tcvt(Tile("vec", args[1], 1, 64, (1, 16)), Tile("vec", args[0], 1, 64, (1, 16)), target=target)
        elif op == "tload":
            pto.tload(Tile("vec", args[0], 1, 64), gm, target=target)
        else:
            pto.tstore(gm, Tile("vec", args[0], 1, 64), target=target)
    assert e.value.rule == "pto.op.dtype"
