"""TSORT32 and THISTOGRAM (pto-isa include/pto/cpu/TSort32.hpp, THistogram.hpp).

TSORT32: each row of src is cut into blocks of 32 valid columns; each block
is sorted by score, largest first, ties by the index from ``idx`` (uint32)
ascending, and written to dst as (score, index) records of 8 bytes starting
at dst column ``2 * j0`` (j0 = the block's first column): for 4-byte scores
the lanes ``score, index``; for 2-byte scores ``score, 0, index low half,
index high half``. NaN scores sort after every number (the reference's
comparator is undefined for NaN; decision PTO59); -0 and +0 tie.

THISTOGRAM: per row, a cumulative 256-bin histogram of one byte of each
src element, written to dst's columns 0..255 (uint32). u16 sources: with
``is_msb`` the high byte counts; otherwise the low byte counts among the
elements whose high byte equals the row's ``idx[row, 0]``. u32 sources count
byte ``byte`` (3 = MSB) among elements whose higher bytes equal idx[0..2, 0].
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError
from .. import numerics as nx
from ..tile import Tile
from ._cast import RELU, word
from ._common import Op

__all__ = ["tsort32", "thistogram"]

_SORT_DTYPES = ("i32", "i16", "f16", "bf16", "f32")


def tsort32(dst: Tile, src: Tile, idx: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TSORT32: sort 32-element blocks of each row by score (descending) with their indices.

    Rules: ``pto.op.dtype`` (src in i32/i16/f16/bf16/f32, dst = src's dtype, idx u32),
    ``pto.op.valid_match`` (idx's valid shape = src's), ``pto.op.layout`` (ND tiles),
    ``pto.tsort32.dst_cols`` (dst too narrow for the records).
    """
    op = Op("tsort32", target)
    for t, n in ((dst, "dst"), (src, "src"), (idx, "idx")):
        op.tile(t, n)
        op.layout(t, n, ("ND",), "ND (row_major, none_box)")
    if tmp is not None:
        op.tile(tmp, "tmp", None)
    if src.dtype.name not in _SORT_DTYPES:
        op.fail(f"src dtype {src.dtype} is not one of {', '.join(_SORT_DTYPES)}", "src", "pto.op.dtype",
                str(src.dtype), DtypeError)
    op.same_dtype(src, dst, "dst", "src")
    if idx.dtype.name != "u32":
        op.fail(f"idx must be u32, not {idx.dtype}", "idx", "pto.op.dtype", str(idx.dtype), DtypeError)
    op.valid_match(src, idx, "idx", "src")
    R, C = src.valid
    if R == 0 or C == 0:
        return dst
    per = 8 // src.dtype.size                       # lanes per record
    last = 32 * ((C - 1) // 32)
    need = 2 * last + (C - last) * per
    if dst.cols < need or dst.valid_rows < R:
        op.fail(f"dst needs {R} valid rows and {need} columns for the records, has {dst.valid_rows}x{dst.cols}",
                "dst", "pto.tsort32.dst_cols", (dst.valid_rows, dst.cols))
    out = dst.bits.copy()
    for j0 in range(0, C, 32):
        n = min(32, C - j0)
        key = nx.as_key(src.bits[:R, j0:j0 + n], src.dtype).astype(np.float64)
        ids = idx.bits[:R, j0:j0 + n].astype(np.uint32)
        nan = np.isnan(key)
        order = np.lexsort((ids, np.where(nan, 0.0, -key), nan), axis=1)
        scores = np.take_along_axis(src.bits[:R, j0:j0 + n], order, axis=1)
        index = np.take_along_axis(ids, order, axis=1)
        rec = np.zeros((R, n, per), dst.dtype.lane)
        rec[:, :, 0] = scores
        if per == 2:
            rec[:, :, 1] = index
        else:
            rec[:, :, 2] = index & np.uint32(0xFFFF)
            rec[:, :, 3] = index >> np.uint32(16)
        out[:R, 2 * j0: 2 * j0 + n * per] = rec.reshape(R, n * per)
    dst.bits[...] = out
    return dst


def thistogram(dst: Tile, src: Tile, idx: Tile, *, is_msb=True, byte: int | None = None, target=None) -> Tile:
    """THISTOGRAM: cumulative per-row 256-bin histogram of one byte of src (see the module docstring).

    src u16 or u32, idx u8 (one column), dst u32 with at least 256 valid columns and src's valid rows.
    Rules: ``pto.op.dtype``, ``pto.thistogram.bins``, ``pto.thistogram.idx``, ``pto.thistogram.byte``.
    """
    op = Op("thistogram", target)
    for t, n in ((dst, "dst"), (src, "src"), (idx, "idx")):
        op.tile(t, n)
    for t, n, want in ((src, "src", ("u16", "u32")), (idx, "idx", ("u8",)), (dst, "dst", ("u32",))):
        if t.dtype.name not in want:
            op.fail(f"{n} must be {' or '.join(want)}, not {t.dtype}", n, "pto.op.dtype", str(t.dtype), DtypeError)
    wide = src.dtype.name == "u32"
    top = 3 if wide else 1
    b = byte if byte is not None else (top if word(op, is_msb, "is_msb", RELU) else 0)
    if not isinstance(b, (int, np.integer)) or not 0 <= b <= top:
        op.fail(f"byte must be 0..{top} for a {src.dtype} source", "byte", "pto.thistogram.byte", b)
    R, C = src.valid
    if dst.valid_cols < 256 or dst.valid_rows < R:
        op.fail(f"dst needs {R} valid rows and 256 valid columns, has {dst.valid_rows}x{dst.valid_cols}", "dst",
                "pto.thistogram.bins", dst.valid)
    filters = (top - b) if wide else (1 - b)       # how many higher bytes must match idx
    need_rows = filters if wide else R
    if filters and (idx.valid_rows < need_rows or idx.valid_cols < 1):
        op.fail(f"idx needs {need_rows} valid rows with one column", "idx", "pto.thistogram.idx", idx.valid)
    v = src.bits[:R, :C].astype(np.uint32)
    take = np.ones(v.shape, bool)
    for k in range(filters):
        hb = top - k                                # the byte compared with the filter
        want = idx.bits[k, 0] if wide else idx.bits[:R, 0][:, None]
        take &= ((v >> np.uint32(8 * hb)) & np.uint32(0xFF)) == want
    bins = (v >> np.uint32(8 * b)) & np.uint32(0xFF)
    flat = (np.arange(R)[:, None] * 256 + bins.astype(np.int64))[take]
    counts = np.bincount(flat, minlength=R * 256).reshape(R, 256)
    dst.bits[:R, :256] = np.cumsum(counts, axis=1).astype(np.uint32)
    return dst
