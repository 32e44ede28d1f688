"""numerics.flush_bits: every 8- and 16-bit lane code of each float dtype, and f32 codes around the subnormal range,
against the field definition (exponent field zero, mantissa nonzero) and numpy's own subnormal test."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tilesim.pto import numerics as nx
from tilesim.pto.dtypes import DTYPES


def _by_fields(bits: np.ndarray, fmt) -> np.ndarray:
    exp = ((1 << fmt.exp_bits) - 1) << fmt.man_bits
    man = (1 << fmt.man_bits) - 1
    sub = ((bits.astype(np.uint64) & exp) == 0) & ((bits.astype(np.uint64) & man) != 0)
    return np.where(sub, bits & bits.dtype.type(1 << (fmt.bits - 1)), bits)


@pytest.mark.parametrize("name", sorted(n for n, d in DTYPES.items() if d.is_float))
def test_flush_bits_by_the_fields(name):
    dt = DTYPES[name]
    if dt.lane.itemsize <= 2:
        bits = np.arange(1 << (8 * dt.lane.itemsize), dtype=np.uint64).astype(dt.lane)
    else:
        rng = np.random.default_rng(0)
        around = np.arange(-300, 300, dtype=np.int64)
        edges = np.concatenate([e + around for e in (0, 1 << 23, 0x80000000, 0x80800000, 0x7F800000)])
        bits = np.concatenate([rng.integers(0, 1 << 32, 1 << 16), edges % (1 << 32)]).astype(np.uint32)
    got = nx.flush_bits(bits.reshape(-1, 8), dt).ravel()
    assert got.dtype == dt.lane and np.array_equal(got, _by_fields(bits, dt.format))
    flat = nx.flush_bits(bits[bits != bits], dt)          # an empty tile
    assert flat.size == 0


@pytest.mark.parametrize("name, np_type", [("f16", np.float16), ("f32", np.float32), ("bf16", ml_dtypes.bfloat16)])
def test_flush_bits_zeroes_what_numpy_calls_subnormal(name, np_type):
    dt = DTYPES[name]
    bits = np.arange(1 << 16, dtype=np.uint32).astype(dt.lane) if dt.lane.itemsize == 2 else \
        np.random.default_rng(1).integers(0, 1 << 32, 1 << 16).astype(np.uint32) >> np.uint32(7)
    with np.errstate(invalid="ignore"):
        v = bits.view(np_type).astype(np.float64)
    sub = (v != 0) & (np.abs(v) < float(ml_dtypes.finfo(np_type).tiny))
    got = nx.flush_bits(bits, dt)
    assert not np.shares_memory(got, bits)
    assert np.array_equal(got[~sub], bits[~sub])
    assert np.array_equal(got[sub].view(np_type).astype(np.float64), np.zeros(np.count_nonzero(sub)))
    assert np.array_equal(np.signbit(got[sub].view(np_type).astype(np.float64)), np.signbit(v[sub]))
