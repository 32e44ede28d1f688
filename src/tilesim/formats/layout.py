"""Byte layout of elements in a tile row (the AME decisions' layout).

Elements are little-endian in their lane; 4-bit lanes pack two per byte, the
lower-indexed element in bits [3:0]; 6-bit codes take one byte (bits [5:0]);
12-bit codes take a 16-bit lane, sign-extended for signed formats; TF32 takes a
32-bit lane as an FP32 pattern with the low 13 bits zero.
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .checks import codes_array, count as _count
from .codec import _as_codes, canonical
from .registry import get

__all__ = ["pack", "unpack", "elements_per_row"]


def elements_per_row(fmt, row_bytes: int = 16) -> int:
    """Elements of ``fmt`` in a row of ``row_bytes`` bytes (AME rows are 16 bytes).

    >>> [elements_per_row(f) for f in ("int4", "fp6_e3m2", "int8", "int12", "fp16", "fp32", "fp64")]
    [32, 16, 16, 8, 8, 4, 2]
    """
    fmt = get(fmt)
    row_bytes = _count(row_bytes, "row_bytes", "formats.elements_per_row", 1)
    return row_bytes * 8 // fmt.lane_bits


def pack(codes, fmt) -> np.ndarray:
    """Lay out lane codes as bytes: ``(..., n)`` codes give ``(..., n * lane_bits / 8)`` uint8.

    Raises:
        FormatError: a code that is not a canonical lane code, or an odd count of 4-bit codes.
    """
    fmt = get(fmt)
    c = _as_codes(codes, fmt, "formats.pack")
    if c.ndim == 0:
        c = c.reshape(1)
    if fmt.lane_bits == 4:
        if c.shape[-1] % 2:
            raise FormatError(f"4-bit elements pack in pairs; got {c.shape[-1]}", instruction="formats.pack",
                              operand="codes", rule="formats.pairs", value=c.shape[-1])
        lo, hi = c[..., 0::2], c[..., 1::2]
        return (lo | (hi << np.uint64(4))).astype(np.uint8)
    lanes = c.astype(fmt.dtype).astype(fmt.dtype.newbyteorder("<"))
    return np.ascontiguousarray(lanes).view(np.uint8).reshape(*c.shape[:-1], -1)


def unpack(data, fmt, count: int | None = None) -> np.ndarray:
    """Read ``count`` lane codes from the last axis of a uint8 array (all by default).

    Bits outside the code are ignored and the canonical fill is restored
    (sign extension for INT12, zeros elsewhere), as a reader of the tile would.

    Raises:
        FormatError: ``data`` that is not bytes (integers 0..255, at least 1-D), or ``count``
            more than the bytes hold.
    """
    fmt = get(fmt)
    d = codes_array(data, "formats.unpack", "data", "data is bytes (uint8)")
    if d.ndim == 0 or (d.size and (d.min() < 0 or d.max() > 255)):
        raise FormatError("data is bytes: a 1-D or wider array of integers 0..255 (uint8)",
                          instruction="formats.unpack", operand="data", rule="formats.bytes",
                          value=f"{d.dtype}{list(d.shape)}")
    d = d.astype(np.uint8)
    avail = d.shape[-1] * 8 // fmt.lane_bits
    count = avail if count is None else _count(count, "count", "formats.unpack")
    if count > avail:
        raise FormatError(f"{count} {fmt.name} elements do not fit in {d.shape[-1]} bytes (at most {avail})",
                          instruction="formats.unpack", operand="count", rule="formats.count", value=count)
    if fmt.lane_bits == 4:
        lanes = np.stack([d & 0xF, d >> 4], axis=-1).reshape(*d.shape[:-1], -1)
    else:
        nbytes = fmt.lane_bits // 8
        whole = d[..., : d.shape[-1] // nbytes * nbytes]
        lanes = np.ascontiguousarray(whole).view(fmt.dtype.newbyteorder("<")).astype(fmt.dtype)
    return canonical(lanes[..., :count], fmt).astype(fmt.dtype)
