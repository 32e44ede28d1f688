"""The numba kernel of the hardware model's ELWMUL/ELWADD/ELWSUB (``fpu/jit.py``) against the numpy
reference path it replaces (``rounding.hw_*_term`` + ``hw_accumulate``): equal bits on random and
special datums, every float style, Dst width, flush flag, fidelity phase and accumulate mode."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tilesim.tensix.fpu.common import FpuMode
from tilesim.tensix.fpu.elementwise import elw_kernel
from tilesim.tensix.fpu.jit import PARALLEL_MIN

SPECIAL = np.array([0, 1, 0x40000, 0x7F, 0x80, 0x1F, 0x20, 0xFF, 0x3FF7F, 0x7FFFF, 0x400FF, 0x3F8FE, 0x0080,
                    0x20010, 0x20011], np.uint32)


def datums(rng, style, shape):
    d = rng.integers(0, 1 << 19, shape).astype(np.uint32)
    d = np.where(rng.random(shape) < 0.3, rng.choice(SPECIAL, shape), d).astype(np.uint32)
    if style == "FP16":       # the hardware model refuses FP16 datums with exponent bits 7:5 set
        d &= np.uint32(~0xE0 & 0x7FFFF)
    return d


@given(seed=st.integers(0, 2**32 - 1), style=st.sampled_from(["BF16", "FP16", "TF32"]), dst32=st.booleans(),
       flush=st.booleans(), op=st.sampled_from(["mul", "add", "sub"]), phase=st.integers(0, 3), add=st.booleans(),
       bcast=st.sampled_from([(8, 16), (1, 16), (8, 1), (1, 1)]))
def test_jit_equals_numpy_reference(seed, style, dst32, flush, op, phase, add, bcast):
    rng = np.random.default_rng(seed)
    code = {"BF16": 5, "FP16": 1, "TF32": 4}[style]
    mode = FpuMode(style, dst32, code, code, flush)
    a = datums(rng, style, (3, 8, 16))
    b = np.broadcast_to(datums(rng, style, (3, *bcast)), (3, 8, 16))
    dst = rng.integers(0, 1 << (32 if dst32 else 16), (3, 8, 16), dtype=np.uint64).astype(
        np.uint32 if dst32 else np.uint16)
    valid = rng.random((3, 8)) < 0.8
    phase = phase if op == "mul" else 0
    want = elw_kernel(op, a, b, dst, valid, mode, phase, add, "hardware", jit=False)
    have = elw_kernel(op, a, b, dst, valid, mode, phase, add, "hardware", jit=True)
    assert have.dtype == want.dtype and np.array_equal(have, want)


GM_STYLES = [("BF16", "BF16"), ("BF16", "TF32"), ("TF32", "TF32"), ("TF32", "BF16"), ("TF32", "INT32"),
             ("FP16", "FP16"), ("INT8", "INT32")]


@given(seed=st.integers(0, 2**32 - 1), styles=st.sampled_from(GM_STYLES), argmax=st.booleans(), strict=st.booleans())
def test_gmpool_jit_equals_numpy_reference(seed, styles, argmax, strict):
    """GMPOOL's numba column scan against the vectorised numpy version, ties and -0/+0 included."""
    from tilesim.tensix.fpu.pool import gmpool_kernel
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << 19, (4, 16, 16)).astype(np.uint32)
    a = np.where(rng.random(a.shape) < 0.4, rng.choice(SPECIAL, a.shape), a).astype(np.uint32)
    a[:, 8:] = np.where(rng.random((4, 8, 16)) < 0.3, a[:, :8], a[:, 8:])      # repeated values: ties
    b = rng.choice(np.array([127, 127, 0, 126, 15, 1, 0x7F | (3 << 8)], np.uint32), (4, 16))
    v = rng.integers(0, 1 << 32, (4, 16), dtype=np.uint64).astype(np.uint32)
    v[0] = 0xFFFFFFFF
    src, dst = styles
    want = gmpool_kernel(a, b, v, src, dst, argmax, strict, jit=False)
    have = gmpool_kernel(a, b, v, src, dst, argmax, strict, jit=True)
    assert have.dtype == want.dtype and np.array_equal(have, want)


def test_parallel_jit_equals_numpy_reference():
    """A batch large enough for the multi-threaded kernel (one combination: its compilation is slow)."""
    rng = np.random.default_rng(10)
    n = -(-PARALLEL_MIN // 128)
    mode = FpuMode("BF16", True, 5, 5, True)
    a, b = datums(rng, "BF16", (n, 8, 16)), datums(rng, "BF16", (n, 8, 16))
    dst = rng.integers(0, 1 << 32, (n, 8, 16), dtype=np.uint64).astype(np.uint32)
    valid = rng.random((n, 8)) < 0.8
    want = elw_kernel("mul", a, b, dst, valid, mode, 1, True, "hardware", jit=False)
    assert np.array_equal(elw_kernel("mul", a, b, dst, valid, mode, 1, True, "hardware", jit=True), want)


@given(seed=st.integers(0, 2**32 - 1), style=st.sampled_from(["BF16", "FP16", "TF32"]), dst32=st.booleans(),
       phase=st.integers(0, 3), rows=st.sampled_from([8, 4, 1]))
def test_mvmul_jit_equals_numpy_reference(seed, style, dst32, phase, rows):
    """MVMUL's numba kernel (two pre-summed K groups, then Dst) against ``hw_matmul_terms`` + ``hw_accumulate``."""
    from tilesim.tensix.fpu.matmul import matmul_kernel
    rng = np.random.default_rng(seed)
    code = {"BF16": 5, "FP16": 1, "TF32": 4}[style]
    mode = FpuMode(style, dst32, code, code, True)
    a, b = datums(rng, style, (3, 16, 16)), datums(rng, style, (3, rows, 16))
    b[0, :, 8:] = b[0, :, :8]  # equal groups: sums that cancel to zero
    dst = rng.integers(0, 1 << (32 if dst32 else 16), (3, rows, 16), dtype=np.uint64).astype(
        np.uint32 if dst32 else np.uint16)
    valid = rng.random((3, rows)) < 0.8
    want = matmul_kernel(a, b, dst, valid, mode, phase, "hardware", jit=False)
    have = matmul_kernel(a, b, dst, valid, mode, phase, "hardware", jit=True)
    assert have.dtype == want.dtype and np.array_equal(have, want)
