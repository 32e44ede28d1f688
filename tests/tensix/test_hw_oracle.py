"""The vectorised ``hardware`` model equals the scalar transcription of the spec's rules, over
random data of every float type combination, fidelity phase, Dst width and SrcB flushing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.tensix.fpu.common import FpuMode
from tilesim.tensix.fpu.elementwise import elw_kernel
from tilesim.tensix.fpu.matmul import matmul_kernel
from tilesim.tensix.rounding import acc_from_dst

from . import hw_oracle
from .helpers import datums

MODES = [FpuMode(s, d32, a, b, fl) for s, a, b in (("BF16", 5, 5), ("BF16", 0, 4), ("TF32", 4, 4), ("TF32", 4, 5),
                                                   ("FP16", 1, 1))
         for d32 in (False, True) for fl in (True, False)]


def _data(rng, mode, shape):
    style = mode.style if mode.style != "TF32" else "TF32"
    d = datums(rng, style, shape, garbage=0, exp_lo=110, exp_hi=140)
    if style == "FP16":
        d = d & ~np.uint32(0xE0)
    return d


def _dst(rng, mode, shape):
    if mode.dst32:
        e = rng.integers(100, 150, shape)
        v = (rng.integers(0, 2, shape) << 31) | (e << 23) | rng.integers(0, 1 << 23, shape)
        v = np.where(rng.random(shape) < 0.1, rng.integers(0, 1 << 32, shape), v)
        from tilesim.tensix.layouts import dst32_from_fp32
        return dst32_from_fp32(v.astype(np.uint32))
    return rng.integers(0, 1 << 16, shape).astype(np.uint16)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: f"{m.style}-{m.srca_fmt}-{m.srcb_fmt}-{'d32' if m.dst32 else 'd16'}-{'fl' if m.flush_b else 'nofl'}")
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_elementwise(mode, seed):
    rng = np.random.default_rng(seed)
    a, b = _data(rng, mode, (8, 16)), _data(rng, mode, (8, 16))
    raw = _dst(rng, mode, (8, 16))
    valid = rng.random(8) < 0.9
    acc = acc_from_dst(np.where(valid[:, None], raw, 0).astype(raw.dtype), mode.dst32, mode.exp8)
    for op in ("mul", "add", "sub"):
        for phase in (range(4) if op == "mul" else (0,)):
            got = acc_from_dst(elw_kernel(op, a, b, raw, valid, mode, phase, True, "hardware"), mode.dst32, mode.exp8)
            for i in range(8):
                for j in range(16):
                    if op == "mul":
                        t = hw_oracle.product(int(a[i, j]), int(b[i, j]), mode.exp8, mode.dst32, phase, mode.a_man,
                                              mode.b_man, mode.flush_b)
                    else:
                        t = hw_oracle.elwadd_term(int(a[i, j]), int(b[i, j]), mode.exp8, mode.dst32, mode.a_man,
                                                  mode.b_man, mode.flush_b, op == "sub")
                    want = hw_oracle.accumulate([t], int(acc[i, j]), mode.dst32, mode.exp8)
                    assert int(got[i, j]) == want, (op, phase, i, j, hex(int(got[i, j])), hex(want))


@pytest.mark.parametrize("mode", [m for m in MODES if m.flush_b], ids=lambda m: f"{m.style}-{m.srcb_fmt}-{'d32' if m.dst32 else 'd16'}")
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=6)
def test_matmul(mode, seed):
    rng = np.random.default_rng(seed)
    a, b = _data(rng, mode, (16, 16)), _data(rng, mode, (8, 16))
    raw = _dst(rng, mode, (8, 16))
    valid = np.ones(8, bool)
    acc = acc_from_dst(raw, mode.dst32, mode.exp8)
    for phase in range(4):
        got = acc_from_dst(matmul_kernel(a, b, raw, valid, mode, phase, "hardware"), mode.dst32, mode.exp8)
        for i in range(8):
            for j in range(16):
                terms = hw_oracle.matmul_terms([int(x) for x in a[:, j]], [int(x) for x in b[i]], mode.exp8,
                                               mode.dst32, phase, mode.a_man, mode.b_man)
                want = hw_oracle.accumulate(terms, int(acc[i, j]), mode.dst32, mode.exp8)
                assert int(got[i, j]) == want, (phase, i, j, hex(int(got[i, j])), hex(want))
