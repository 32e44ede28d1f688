"""The unified tile register file: 32 tiles of 16 rows x 16 bytes, and matrices laid over them.

Row r of a tile is bytes ``[16 r, 16 r + 16)``; elements sit in a row as
:func:`tilesim.formats.pack` lays them (docs/decisions.md F8). A matrix wider
than one tile row continues in the next tiles, split by columns: with ``e``
elements per tile row, tile ``first + j`` holds columns ``[j e, (j + 1) e)``
of every row (the AME decisions' C-tile rule, used here for every matrix).

Reads and writes are pure: :func:`scatter` returns the new bytes of the tiles
it touches and leaves the caller to commit them, so an instruction can check
and compute everything before it changes any state. Writes change only the
bits of the elements written.
"""

from __future__ import annotations

import numpy as np

from ..formats import Format, elements_per_row, pack, unpack

__all__ = ["N_TILES", "TILE_BYTES", "ROWS", "ROW_BYTES", "span", "gather", "scatter"]

N_TILES = 32
ROWS = 16
ROW_BYTES = 16
TILE_BYTES = ROWS * ROW_BYTES


def span(cols: int, fmt: Format) -> int:
    """How many consecutive tiles a matrix of ``cols`` columns of ``fmt`` takes."""
    return -(-cols // elements_per_row(fmt))


def whole_lanes(fmt: Format) -> bool:
    """The codes fill their lanes of 8 to 64 bits: a tile's bytes are its codes (on a little-endian host)."""
    return fmt.bits == fmt.lane_bits >= 8 and np.little_endian


def _full_codes(tiles: np.ndarray, first: np.ndarray, fmt: Format, n: int):
    """(tile indices (S, n), raw bytes (S, n, 16, 16), codes (S, 16, n e)) of n tiles from each ``first``."""
    idx = np.asarray(first, np.intp)[:, None] + np.arange(n)
    raw = tiles[idx].reshape(idx.shape + (ROWS, ROW_BYTES))
    if whole_lanes(fmt):  # every bit pattern is a canonical code: the bytes viewed as lanes
        codes = raw.view(fmt.dtype)
    else:
        codes = unpack(raw, fmt)  # (S, n, 16, e)
    s, _, _, e = codes.shape
    return idx, raw, codes.transpose(0, 2, 1, 3).reshape(s, ROWS, n * e)


def gather(tiles: np.ndarray, first, fmt: Format, rows: int, cols: int) -> np.ndarray:
    """Codes (S, rows, cols) of the matrices that start at tiles ``first`` (S,)."""
    _, _, codes = _full_codes(tiles, first, fmt, span(cols, fmt))
    return codes[:, :rows, :cols]


def _byte_mask(elements: np.ndarray, fmt: Format) -> np.ndarray:
    """Which bits of each row byte the marked elements (..., e) occupy, as uint8 (..., 16)."""
    if fmt.lane_bits == 4:
        return (elements[..., 0::2] * np.uint8(0x0F) | elements[..., 1::2] * np.uint8(0xF0)).astype(np.uint8)
    return np.repeat(elements, fmt.lane_bits // 8, axis=-1).astype(np.uint8) * np.uint8(0xFF)


def scatter(tiles: np.ndarray, first, codes: np.ndarray, fmt: Format):
    """The new bytes after writing ``codes`` (S, rows, cols) as matrices from tiles ``first`` (S,).

    Returns:
        (indices (S n,), bytes (S n, 256)): every touched tile and its new content;
        bits outside the written elements keep their old values.
    """
    s, rows, cols = codes.shape
    n = span(cols, fmt)
    e = elements_per_row(fmt)
    if whole_lanes(fmt) and rows == ROWS and cols == n * e:  # whole tiles: their bytes are the codes
        idx = np.asarray(first, np.intp)[:, None] + np.arange(n)
        lanes = np.ascontiguousarray(codes.astype(fmt.dtype, copy=False).reshape(s, ROWS, n, e).transpose(0, 2, 1, 3))
        return idx.reshape(-1), lanes.view(np.uint8).reshape(s * n, TILE_BYTES)
    idx, raw, full = _full_codes(tiles, first, fmt, n)
    full = full.copy()
    full[:, :rows, :cols] = codes
    packed = pack(full.reshape(s, ROWS, n, e).transpose(0, 2, 1, 3), fmt)  # (S, n, 16, 16)
    written = np.zeros((ROWS, n * e), bool)
    written[:rows, :cols] = True
    mask = _byte_mask(written.reshape(ROWS, n, e).transpose(1, 0, 2), fmt)  # (n, 16, 16)
    new = (raw & ~mask) | (packed & mask)
    return idx.reshape(-1), new.reshape(s * n, TILE_BYTES)
