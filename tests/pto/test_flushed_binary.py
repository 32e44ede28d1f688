"""numerics.binary on flushing targets (the NPUs): f32 add/sub/mul/div take fast_f32's lanes, then flush the
result, when no source lane is subnormal; held bit for bit to binary_exact (which flushes sources and result)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.pto import numerics as nx

F32 = pto.get_dtype("f32")


def _lanes(seed: int) -> np.ndarray:
    """Every f16 and bf16 code widened to f32, random codes, and normals just above the subnormal range whose
    products and quotients underflow into it."""
    codes = np.arange(65536, dtype=np.uint32)
    rng = np.random.default_rng(seed)
    tiny = (np.uint32(0x00800000) + rng.integers(0, 1 << 24, 20_000).astype(np.uint32)) | (
        rng.integers(0, 2, 20_000).astype(np.uint32) << np.uint32(31))
    return np.concatenate([codes.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32),
                           codes << np.uint32(16), rng.integers(0, 1 << 32, 40_000).astype(np.uint32), tiny])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_flushed_binary_equals_the_exact_path(op, monkeypatch):
    a = _lanes(0)
    b = np.random.default_rng(1).permutation(a)
    exact = nx.binary_exact(op, a, b, F32, flush=True)
    assert np.array_equal(nx.binary(op, a, b, F32, flush=True), exact)           # subnormals, NaNs: exact path
    normal = ((a & 0x7FFFFFFF) >= 0x00800000) & ((b & 0x7FFFFFFF) >= 0x00800000)
    with np.errstate(all="ignore"):
        r = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}[op])(
            a.view(np.float32), b.view(np.float32))
    keep = normal & ~np.isnan(r) & ~np.isnan(a.view(np.float32)) & ~np.isnan(b.view(np.float32))
    x, y = a[keep][: keep.sum() // 16 * 16].reshape(-1, 16), b[keep][: keep.sum() // 16 * 16].reshape(-1, 16)
    taken = []
    fast = nx.fast_f32
    monkeypatch.setattr(nx, "fast_f32", lambda *args, **kw: (taken.append(1), fast(*args, **kw))[1])
    got = nx.binary(op, x, y, F32, flush=True)
    assert taken and np.array_equal(got, nx.binary_exact(op, x, y, F32, flush=True))
    assert np.count_nonzero(((got & 0x7FFFFFFF) - 1) < 0x7FFFFF) == 0                  # no subnormal result left
    row = y[:1]                                                                         # a row broadcast (expands)
    assert np.array_equal(nx.binary(op, x, row, F32, flush=True), nx.binary_exact(op, x, row, F32, flush=True))
