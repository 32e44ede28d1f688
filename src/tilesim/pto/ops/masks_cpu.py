"""Compare masks and selects as pto-isa's CPU simulator lays them out (target ``cpu``, PTO94).

The NPU rule (:mod:`.elementwise`) packs one bit per element, row by row, into
the mask dtype's words. The simulator's loops (pto-isa ``include/pto/cpu/TCmp.h``,
``TCmps.hpp``, ``TSel.hpp``) differ:

* TCMP zeroes the whole dst tile, then packs each valid row into at most
  ``dst.valid_cols`` words (8 bits a word for u8, 32 for u32).
* TCMPS compares EQ and NE as ``|double(a) - double(b)|`` against 1e-9 (NE is
  also true when either is NaN), packs the comparison of the whole source tile
  (zeros outside its valid region) into bytes, row after row over the
  tile's full width, zeroes dst, and lays the byte stream into dst's valid
  region row by row, one byte per element whatever dst's dtype.
* TSEL reads the mask as one bit stream: element ``k`` of dst's valid region
  (row-major) takes bit ``k mod 8`` of mask element ``k div 8``, the mask's
  elements counted row-major over its valid columns; only each element's
  low 8 bits are read.
"""

from __future__ import annotations

import numpy as np

from .. import numerics as nx
from ..tile import Tile
from ._common import Op

_NATIVE = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def tcmp_pack(pred: np.ndarray, dst: Tile) -> None:
    """TCMP's dst: all zero, then each valid row's bits in ``min(words, dst.valid_cols)`` words."""
    R, C = pred.shape
    W = dst.dtype.bits
    words = min(-(-C // W), dst.valid_cols)
    padded = np.zeros((R, -(-C // W) * W), np.uint64)
    padded[:, :C] = pred
    weights = np.uint64(1) << np.arange(W, dtype=np.uint64)
    packed = (padded.reshape(R, -1, W) * weights).sum(axis=2, dtype=np.uint64).astype(dst.dtype.lane)
    dst.bits[...] = 0
    dst.bits[:R, :words] = packed[:, :words]


def tcmps_predicate(a: np.ndarray, s: np.ndarray, dt, mode: str) -> np.ndarray:
    """``CmpCall``: EQ/NE through the double difference and a 1e-9 tolerance, the others compare natively."""
    ka, ks = nx.as_key(a, dt), nx.as_key(np.asarray(s, dt.lane), dt)
    if mode in _NATIVE:
        return _NATIVE[mode](ka, ks)
    with np.errstate(invalid="ignore"):
        x, y = ka.astype(np.float64), np.float64(ks)
        diff = np.abs(x - y)
        if mode == "eq":
            return diff < 1e-9
        return np.isnan(x) | bool(np.isnan(y)) | (diff > 1e-9)


def tcmps_write(pred: np.ndarray, src: Tile, dst: Tile) -> None:
    """Lay TCMPS's byte stream (the whole source tile, row-major, 8 elements a byte) into dst's valid region."""
    H, W = src.rows, src.cols
    full = np.zeros((H, W), bool)
    R, C = pred.shape
    full[:R, :C] = pred
    stream = np.packbits(full[:, : W // 8 * 8].reshape(H, -1, 8), axis=2, bitorder="little").ravel()
    dst.bits[...] = 0
    dr, dc = dst.valid
    if dc == 0:
        return
    n = min(stream.size, dst.rows * dst.cols, dr * dc)
    k = np.arange(n)
    dst.bits[k // dc, k % dc] = stream[:n].astype(dst.dtype.lane)


def sel_bits(op: Op, mask: Tile, R: int, C: int) -> np.ndarray:
    """TSEL's (R, C) selection bits from the mask's bit stream."""
    k = np.arange(R * C)
    byte = k // 8
    mc = mask.valid_cols
    if R * C and (mc == 0 or (byte[-1] // mc) >= mask.rows):
        op.fail(f"a mask with {mask.rows} rows of {mc} valid elements (8 bits each) does not hold the "
                f"{R * C} bits of a {R}x{C} selection", "mask", "pto.op.mask_cols", mask.valid)
    if R * C == 0:
        return np.zeros((R, C), bool)
    low = mask.bits[byte // mc, byte % mc].astype(np.uint64) & np.uint64(0xFF)
    return ((low >> (k % 8).astype(np.uint64)) & np.uint64(1)).astype(bool).reshape(R, C)
