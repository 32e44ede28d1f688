"""The 8-bit float tile dtypes (f8E4M3FN/f8E4M3, f8E5M2, E8M0): names, values, tiles (decision PTO50)."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError

from . import oracle as o

FP8 = ("f8e4m3", "f8e5m2", "f8e8m0")


@pytest.mark.parametrize("spelling, name", [
    ("f8E4M3FN", "f8e4m3"), ("f8E4M3", "f8e4m3"), ("float8_e4m3_t", "f8e4m3"), ("f8E5M2", "f8e5m2"),
    ("float8_e5m2_t", "f8e5m2"), ("f8E8M0FNU", "f8e8m0"), ("float8_e8m0_t", "f8e8m0"),
    (ml_dtypes.float8_e4m3fn, "f8e4m3"), (ml_dtypes.float8_e5m2, "f8e5m2"),
])
def test_spellings(spelling, name):
    assert pto.get_dtype(spelling).name == name


@pytest.mark.parametrize("dt", FP8)
def test_every_code_decodes_as_the_ocp_definition(dt):
    t = pto.Tile("vec", dt, 8, 32)
    t.bits[...] = np.arange(256, dtype=np.uint8).reshape(8, 32)
    got = t.values.astype(np.float64).reshape(-1)
    for code in range(256):
        want = o.dec_fp8(code, dt)
        assert (math.isnan(want) and math.isnan(got[code])) or got[code] == want, (dt, hex(code))
        assert pto.get_dtype(dt).size == 1


@pytest.mark.parametrize("dt", ("f8e4m3", "f8e5m2"))
def test_fill_rounds_once_to_nearest_even(dt):
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.normal(0, 64, 200), rng.normal(0, 2.0 ** -8, 56)]).astype(np.float32)
    t = pto.Tile("vec", dt, 8, 32).fill(x.reshape(8, 32))
    want = x.astype({"f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2}[dt])
    got = t.values.reshape(-1)
    both_nan = np.isnan(got.astype(np.float32)) & np.isnan(want.astype(np.float32))
    assert np.all(both_nan | (got.view(np.uint8) == want.view(np.uint8)))


def test_fp8_tiles_follow_the_byte_alignment_rule():
    pto.Tile("left", "f8E4M3FN", 16, 32, blayout="col_major", slayout="row_major")
    with pytest.raises(GeometryError) as e:
        pto.Tile("vec", "f8e5m2", 4, 16)
    assert e.value.rule == "pto.tile.align"


def test_older_tables_leave_fp8_out():
    assert not set(FP8) & set(pto.dtypes.ALL)
    with pytest.raises(DtypeError) as e:
        pto.tadd(pto.Tile("vec", "f8e4m3", 1, 32), pto.Tile("vec", "f8e4m3", 1, 32),
                 pto.Tile("vec", "f8e4m3", 1, 32))
    assert e.value.rule == "pto.op.dtype"
