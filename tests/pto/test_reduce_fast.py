"""The whole-tile max/min/arg fast paths (``extreme``, and ``line_extremes`` for the value-only reduces) equal the
element scan they replaced (``extreme_scan``)."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, strategies as st

from tilesim.pto import get_dtype
from tilesim.pto.ops.reduce import extreme, extreme_scan, line_extremes
from tilesim.pto.targets import NAN_MODES

DTS = ("f32", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
_SPECIAL16 = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x0001, 0x8001, 0x3C00, 0xBC00]
_SPECIAL32 = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x00000001, 0x80000001,
              0x3F800000, 0xBF800000]
_SPECIALBF = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x0001, 0x8001, 0x3F80, 0xBF80]


@st.composite
def lanes(draw):
    """A (rows, cols) lane array: few distinct values (ties), NaN, +-0, +-Inf and subnormals."""
    dt = get_dtype(draw(st.sampled_from(DTS)))
    rows, cols = draw(st.integers(1, 300)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    pool = rng.integers(0, 1 << dt.bits, draw(st.integers(1, 6)), dtype=np.uint64).astype(dt.lane)
    if dt.is_float:
        special = {"f16": _SPECIAL16, "f32": _SPECIAL32, "bf16": _SPECIALBF}[dt.name]
        pool = np.concatenate([pool, np.array(draw(st.lists(st.sampled_from(special), max_size=4)), dt.lane)])
    bits = rng.choice(pool, (rows, cols))
    return dt, bits if draw(st.booleans()) else np.ascontiguousarray(bits.T)


@given(lanes(), st.sampled_from(("max", "min")), st.sampled_from(NAN_MODES), st.integers(0, 1), st.booleans(),
       st.booleans(), st.booleans())
def test_fast_extreme_equals_the_scan(case, kind, nan_mode, axis, float_view, nan_index_last, need_index):
    dt, bits = case
    assume(not (float_view and nan_mode == "spec"))  # the A2A3 unsigned-as-float view has no spec rule
    idx, val = extreme(bits, dt, kind, nan_mode, axis, float_view=float_view, nan_index_last=nan_index_last,
                       need_index=need_index)
    want_idx, want_val = extreme_scan(bits, dt, kind, nan_mode, axis, float_view=float_view,
                                      nan_index_last=nan_index_last)
    assert val.dtype == want_val.dtype and np.array_equal(val, want_val)
    if need_index:
        assert np.array_equal(idx, want_idx)


@given(lanes(), st.sampled_from(("max", "min")), st.sampled_from(NAN_MODES), st.integers(0, 1))
def test_line_extremes_equal_the_scan(case, kind, nan_mode, axis):
    dt, bits = case
    val = line_extremes(bits, dt, kind, nan_mode, axis)
    want = extreme_scan(bits, dt, kind, nan_mode, axis)[1]
    assert val.dtype == want.dtype and np.array_equal(val, want)


@given(lanes(), st.sampled_from(("max", "min")), st.sampled_from(NAN_MODES), st.integers(0, 1), st.booleans())
def test_index_only_extreme_equals_the_scan(case, kind, nan_mode, axis, nan_index_last):
    dt, bits = case
    idx, val = extreme(bits, dt, kind, nan_mode, axis, nan_index_last=nan_index_last, need_value=False)
    assert val is None and np.array_equal(idx, extreme_scan(bits, dt, kind, nan_mode, axis,
                                                            nan_index_last=nan_index_last)[0])


@given(st.sampled_from(("f32", "f16", "i32", "u16")), st.integers(0, 2 ** 32 - 1), st.sampled_from(NAN_MODES))
def test_long_rows_column_arg_equals_the_scan(dtname, seed, nan_mode):
    """Rows of >= 1024 elements take the one-row ufunc buffer (PTO65); numpy's buffer size is restored."""
    dt = get_dtype(dtname)
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 1 << dt.bits, 5, dtype=np.uint64).astype(dt.lane)
    if dt.is_float:
        pool = np.concatenate([pool, np.array((_SPECIAL32 if dt.name == "f32" else _SPECIAL16)[:6], dt.lane)])
    bits = rng.choice(pool, (int(rng.integers(1, 40)), int(rng.integers(1024, 1300))))
    before = np.getbufsize()
    idx, val = extreme(bits, dt, "max", nan_mode, 0)
    want_idx, want_val = extreme_scan(bits, dt, "max", nan_mode, 0)
    assert np.getbufsize() == before
    assert np.array_equal(idx, want_idx) and np.array_equal(val, want_val)
