"""Table-driven fast paths, built by the exact code paths and therefore identical to them.

Decode: a format of 16 lane bits or fewer has at most 65536 codes, so its values
(and which raw lanes are canonical) fit a table indexed by the lane.

Encode: rounding an IEEE float input ``x`` to a float format with ``m``
mantissa bits depends only on x's sign, its exponent field, the top ``m + 1``
bits of its mantissa (the kept bits plus the guard bit; for values below the
target's smallest normal the guard bit only moves up), and whether any lower
bit is set (sticky). Input subnormals hold their leading bits lower in the
field, so where the target's smallest normal exponent is below the input's,
the index keeps that many more bits, and one more where it is not above it
(the ``underflow`` flag of a value just below the target's smallest normal is
decided with an unbounded exponent, one bit further down). The index ``sign|exponent|top
bits|sticky`` is at most 22 bits for every target of 16 bits or fewer from
float32, and for 8-bit targets from float64, so the whole function is a table
that the exact encoder fills once per (format, options).

Float64 into a float format without a float64 table (fp16, fp12): round to
float32 *to odd* first (toward zero, then set the last bit if anything was
lost), then use the float32 table. Rounding to odd at p' >= p + 2 bits followed
by any IEEE rounding to p bits equals rounding once (Boldo and Melquiond, "When
double rounding is odd", 2005). float32 has p' = 24, and the side conditions are
checked by :func:`via_float32`: m <= 21, no float32 overflow (emax <= 126, so a
float32 overflow and the true value round alike, flags included), and the
target's smallest step at least 4 float32 subnormal steps (emin - m >= -147).

Truncating targets (bf16 from float32, fp8_e5m2 from float16): when the target
is an IEEE format with the input's exponent field and bias and fewer mantissa
bits, its code is the input's top bits, and because sign-magnitude codes order
magnitudes as integers, rounding is an integer add before the shift (a carry
out of the mantissa bumps the exponent, up to Inf): nothing for rtz, half for
rmm, half minus one plus the last kept bit for rne, and all dropped bits for
rup on positives and rdn on negatives. Only NaN needs fixing (to the canonical
NaN). :func:`encode_by_carry` does that without a table and without flags; it
serves ``saturate=False, flush_subnormals=False`` calls that ask no flags.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .format import Domain
from .rounding import Rounding

__all__ = ["decode_table", "valid_table", "encode_table", "encode_with_table", "has_encode_table", "via_float32",
           "round_to_odd_float32", "truncates", "encode_by_carry", "MAX_INDEX_BITS"]

MAX_INDEX_BITS = 22
_INPUTS = {np.dtype(np.float16): (5, 10), np.dtype(np.float32): (8, 23), np.dtype(np.float64): (11, 52)}


@lru_cache(maxsize=None)
def decode_table(fmt) -> np.ndarray:
    """float64 value of every raw lane (non-canonical lanes decode as their canonical code)."""
    from .codec import _decode_any, canonical
    lanes = np.arange(1 << (fmt.dtype.itemsize * 8), dtype=np.uint64)
    return _decode_any(canonical(lanes, fmt), fmt)


@lru_cache(maxsize=None)
def valid_table(fmt) -> np.ndarray | None:
    """Which raw lanes are canonical codes; ``None`` when every lane of the dtype is."""
    from .codec import canonical
    lanes = np.arange(1 << (fmt.dtype.itemsize * 8), dtype=np.uint64)
    ok = canonical(lanes, fmt) == lanes
    return None if ok.all() else ok


def _layout(dtype, fmt):
    """(index shift, index bits) for float inputs of ``dtype`` into float ``fmt``, or None."""
    io = _INPUTS.get(np.dtype(dtype))
    if io is None or not fmt.is_float or fmt.domain is Domain.TAPERED:  # HiF8's fields vary with the value
        return None
    e, m = io
    # input subnormals hold their bits lower in the field: keep more if the target reaches lower
    emin_in = 2 - (1 << (e - 1))
    keep = fmt.man_bits + 1 + max(0, emin_in - fmt.emin)
    if fmt.emin <= emin_in:  # tininess of inputs just below the target's min normal needs one more
        keep += 1
    shift = m - keep
    bits = 1 + e + keep + 1
    if shift < 1 or bits > MAX_INDEX_BITS:
        return None
    return shift, bits


def has_encode_table(dtype, fmt) -> bool:
    return _layout(dtype, fmt) is not None


def via_float32(dtype, fmt) -> bool:
    """Float64 input that may go through float32 rounded to odd (see the module docstring)."""
    return (np.dtype(dtype) == np.float64 and not has_encode_table(dtype, fmt)
            and has_encode_table(np.float32, fmt) and fmt.man_bits <= 21 and fmt.emax <= 126
            and fmt.emin - fmt.man_bits >= -147)


def round_to_odd_float32(x: np.ndarray) -> np.ndarray:
    """float64 -> float32, rounded toward zero with the last bit set when inexact."""
    with np.errstate(over="ignore", invalid="ignore"):
        y = x.astype(np.float32)  # nearest; step back toward zero where it went up
        bits = y.view(np.uint32)
        back = y.astype(np.float64)
        bits -= (np.abs(back) > np.abs(x)).astype(np.uint32)  # sign-magnitude: -1 is one step toward 0
        bits |= (y.astype(np.float64) != x) & ~np.isnan(x)
    return y


def encode_with_table(x: np.ndarray, fmt, table: np.ndarray, out: np.ndarray, chunk: int = 1 << 18) -> None:
    """``out[:] = table[index(x)]``, in cache-sized blocks, without temporaries per block."""
    shift, _ = _layout(x.dtype, fmt)
    ut = np.dtype(f"u{x.dtype.itemsize}")
    b = x.view(ut)
    mask, one = ut.type((1 << shift) - 1), ut.type(1)
    sticky, idx = np.empty(min(chunk, b.size), ut), np.empty(min(chunk, b.size), ut)
    for s in range(0, b.size, chunk):
        bb = b[s:s + chunk]
        t, i = sticky[:bb.size], idx[:bb.size]
        np.bitwise_and(bb, mask, out=t)
        np.minimum(t, one, out=t)
        np.right_shift(bb, ut.type(shift), out=i)
        np.left_shift(i, one, out=i)
        np.bitwise_or(i, t, out=i)
        np.take(table, i, out=out[s:s + bb.size])


def truncates(dtype, fmt) -> bool:
    """``fmt`` is float input ``dtype`` with mantissa bits dropped (see the module docstring)."""
    io = _INPUTS.get(np.dtype(dtype))
    return (io is not None and fmt.is_float and fmt.signed and fmt.domain is Domain.IEEE and fmt.exp_bits == io[0]
            and fmt.bias == (1 << (io[0] - 1)) - 1 and fmt.man_bits < io[1])


def encode_by_carry(x: np.ndarray, fmt, mode: Rounding, out: np.ndarray, chunk: int = 1 << 18) -> None:
    """``out[:] = encode(x, fmt, mode)`` for a truncating target, by integer add and shift, in blocks."""
    ut = np.dtype(f"u{x.dtype.itemsize}")
    b = x.view(ut)
    drop = ut.type(_INPUTS[x.dtype][1] - fmt.man_bits)
    half, ones = ut.type(1 << (int(drop) - 1)), ut.type((1 << int(drop)) - 1)
    top = ut.type(x.dtype.itemsize * 8 - 1)
    lane = ut.type(fmt.lane_shift)
    nan = fmt.dtype.type(fmt.nan_code)
    t, isnan = np.empty(min(chunk, b.size), ut), np.empty(min(chunk, b.size), bool)
    for s in range(0, b.size, chunk):
        bb, o = b[s:s + chunk], out[s:s + chunk]
        i, n = t[:bb.size], isnan[:bb.size]
        if mode is Rounding.RNE:  # half - 1, plus the last kept bit
            np.right_shift(bb, drop, out=i)
            np.bitwise_and(i, ut.type(1), out=i)
            i += half - ut.type(1)
        elif mode in (Rounding.RUP, Rounding.RDN):  # every dropped bit, on one sign only
            np.right_shift(bb, top, out=i)
            if mode is Rounding.RUP:
                np.bitwise_xor(i, ut.type(1), out=i)
            i *= ones
        else:
            i.fill(half if mode is Rounding.RMM else 0)
        i += bb
        np.right_shift(i, drop, out=i)
        if lane:
            np.left_shift(i, lane, out=i)
        np.copyto(o, i, casting="unsafe")
        np.isnan(x[s:s + chunk], out=n)
        if n.any():
            o[n] = nan


@lru_cache(maxsize=64)
def encode_table(dtype, fmt, mode, saturate, flush):
    """(codes, flag bits) for every index, filled by the exact encoder."""
    from .codec import _encode_parts, to_parts
    shift, bits = _layout(dtype, fmt)
    dtype = np.dtype(dtype)
    ut = np.dtype(f"u{dtype.itemsize}")
    idx = np.arange(1 << bits, dtype=np.uint64)
    # the representative input: top bits in place, sticky as the lowest mantissa bit
    rep = ((idx >> np.uint64(1)) << np.uint64(shift)) | (idx & np.uint64(1))
    x = rep.astype(ut).view(dtype)
    codes, flags = _encode_parts(to_parts(x), fmt, mode, saturate, flush, True)
    return codes, flags.bits()
