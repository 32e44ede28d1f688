"""Tile byte layout: pack/unpack per the AME decisions (nibble order, lanes, sign extension)."""

import numpy as np
import pytest

from tilesim import formats
from tilesim.errors import FormatError

from . import oracle


@pytest.mark.parametrize("f", formats.all_formats(), ids=lambda f: f.name)
def test_roundtrip_random_rows(f):
    rng = np.random.default_rng(f.bits)
    n = formats.elements_per_row(f)
    raw = rng.integers(0, 2**63, (16, n), dtype=np.uint64) & np.uint64(f.code_mask)
    codes = formats.canonical(raw << np.uint64(f.lane_shift), f)
    data = formats.pack(codes, f)
    assert data.shape == (16, 16) and data.dtype == np.uint8
    assert (formats.unpack(data, f, n) == codes).all()


def test_int4_nibble_order():
    codes = formats.encode(np.array([1, -1, 2, -8]), "int4")
    assert formats.pack(codes, "int4").tolist() == [0xF1, 0x82]


def test_little_endian_lanes():
    assert formats.pack(np.array([0x1234], np.uint16), "fp16").tolist() == [0x34, 0x12]
    assert formats.pack(np.array([0x3F800000], np.uint32), "fp32").tolist() == [0, 0, 0x80, 0x3F]
    assert formats.pack(np.array([1], np.uint64), "int64").tolist() == [1, 0, 0, 0, 0, 0, 0, 0]


def test_unpack_restores_canonical_fill():
    # INT12 in a 16-bit lane: the top 4 bits are ignored and re-made from bit 11
    assert formats.unpack(np.array([0xFF, 0x0F], np.uint8), "int12").tolist() == [0xFFFF]
    assert formats.unpack(np.array([0xFF, 0xF7], np.uint8), "int12").tolist() == [0x07FF]
    # FP6 takes bits [5:0] of its byte
    assert formats.unpack(np.array([0xC1], np.uint8), "fp6_e2m3").tolist() == [0x01]
    # TF32: the low 13 bits of the lane are not part of the value
    assert formats.unpack(np.array([0xFF, 0xFF, 0x80, 0x3F], np.uint8), "tf32").tolist() == [0x3F80E000]


def test_errors():
    with pytest.raises(FormatError, match="pairs"):
        formats.pack(np.array([1, 2, 3], np.uint8), "int4")
    with pytest.raises(FormatError, match="do not fit"):
        formats.unpack(np.zeros(16, np.uint8), "fp16", 9)
    with pytest.raises(FormatError):
        formats.pack(np.array([0x40], np.uint8), "fp6_e3m2")


def test_exhaustive_small_codes_pack():
    for f in (formats.get("fp4_e2m1"), formats.get("fp6_e2m3"), formats.get("int12")):
        codes = np.array(list(oracle.codes_of(f)), np.uint64)
        codes = codes[: len(codes) // 2 * 2]
        assert (formats.unpack(formats.pack(codes, f), f) == codes).all()
