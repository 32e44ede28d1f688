"""Lane codes to values and back on the hot paths: views and tables instead of the general codec.

The results equal :func:`tilesim.formats.decode_int`, :func:`tilesim.formats.decode`
and the canonical two's complement codes for every lane code (the tests check
every code of every AME format); what is saved is the per-call checking, which
the callers' codes (read from tiles, or encoded by the codec) do not need.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import formats
from ..formats import Format, Kind

__all__ = ["whole_int_lane", "int_values", "int_codes", "float_values"]

_TABLE_BITS = 16  # formats with lanes this narrow decode by table lookup


def whole_int_lane(fmt: Format):
    """The signed numpy dtype whose two's complement is ``fmt``'s code (INT8/16/32/64), else ``None``."""
    if fmt.kind is Kind.INT and fmt.signed and fmt.bits == fmt.lane_bits == fmt.dtype.itemsize * 8:
        return np.dtype(f"i{fmt.dtype.itemsize}")
    return None


def int_values(codes: np.ndarray, fmt: Format) -> np.ndarray:
    """:func:`tilesim.formats.decode_int` (int64), by a view where the code is a whole lane."""
    whole = whole_int_lane(fmt)
    return formats.decode_int(codes, fmt) if whole is None else codes.view(whole).astype(np.int64)


def int_codes(v, fmt: Format) -> np.ndarray:
    """Lane codes of in-range integers ``v`` (units of 2**-frac): two's complement bits, canonical fill."""
    v = np.asarray(v).astype(np.int64)
    whole = whole_int_lane(fmt)
    if whole is not None:
        return v.astype(whole).view(fmt.dtype)
    return formats.canonical(v.astype(np.uint64) & np.uint64(fmt.code_mask), fmt).astype(fmt.dtype)


@lru_cache(maxsize=None)
def _table(fmt: Format) -> np.ndarray:
    """float64 value of every canonical lane code of a narrow float format (other lanes: NaN, never read)."""
    table = np.full(1 << fmt.lane_bits, np.nan)
    codes = np.unique(formats.canonical(np.arange(1 << fmt.lane_bits, dtype=np.uint64), fmt))
    table[codes.astype(np.intp)] = formats.decode(codes.astype(fmt.dtype), fmt)
    table.flags.writeable = False
    return table


def float_values(codes: np.ndarray, fmt: Format) -> np.ndarray:
    """:func:`tilesim.formats.decode` (float64) of canonical lane codes: a view for FP32, a table up to 16 bits."""
    if fmt.name == "fp32":
        with np.errstate(invalid="ignore"):  # signalling NaNs arrive quiet: a NaN is all a value says
            return codes.view(np.float32).astype(np.float64)
    if fmt.lane_bits <= _TABLE_BITS:
        return _table(fmt)[codes]
    return formats.decode(codes, fmt)
