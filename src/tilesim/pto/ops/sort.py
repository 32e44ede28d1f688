"""TSORT32 and THISTOGRAM (pto-isa include/pto/cpu/TSort32.hpp, THistogram.hpp).

TSORT32: each row of src is cut into blocks of 32 valid columns; each block
is sorted by score, largest first, ties by the index from ``idx`` (uint32)
ascending, and written to dst as (score, index) records of 8 bytes starting
at dst column ``2 * j0`` (j0 = the block's first column): for 4-byte scores
the lanes ``score, index``; for 2-byte scores ``score, 0, index low half,
index high half``. NaN scores sort after every number (the reference's
comparator is undefined for NaN; decision PTO59); -0 and +0 tie.

TMRGSORT (include/pto/cpu/TMrgSort.hpp, docs/isa/TMRGSORT.md) merges
8-byte (value, index) records (f32: 2 lanes, f16: 4), largest value first:
``tmrgsort(dst, executed, src0, src1[, src2[, src3]], tmp, exhausted=...)``
merges 2-4 sorted lists into dst's valid records; at each step the head of
the lowest-numbered list wins unless a later head is strictly greater (so
ties keep list order, and a NaN head wins only from the first candidate
list); with ``exhausted`` the merge stops as soon as one list is used up.
``executed`` (4 lanes) receives how many records each list gave.
``tmrgsort(dst, src, block_len)`` merges each group of four consecutive
``block_len``-lane blocks of src. Records are copied whole (decision PTO39).
On cpu the groups run over dst's valid columns and any ``block_len`` of
whole records is taken; one of no whole records does nothing; records may
hold integers (any type whose size divides 8) as well (PTO71).

THISTOGRAM: per row, a cumulative 256-bin histogram of one byte of each
src element, written to dst's columns 0..255 (uint32). u16 sources: with
``is_msb`` the high byte counts; otherwise the low byte counts among the
elements whose high byte equals the row's ``idx[row, 0]``. u32 sources count
byte ``byte`` (3 = MSB) among elements whose higher bytes equal idx[0..2, 0].
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..tile import Tile
from ._cast import RELU, word
from ._common import Op

__all__ = ["tsort32", "thistogram", "tmrgsort"]

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


def _mrg_tiles(op: Op, named: list) -> None:
    """Every TMRGSORT tile: vec, one row, row-major, f16/f32, one dtype."""
    for t, n in named:
        op.tile(t, n)
        op.layout(t, n, ("ROW_MAJOR",), "a row_major block layout")
        if t.rows != 1:
            op.fail(f"must have one row (it has {t.rows})", n, "pto.tmrgsort.rows", t.rows)
        if t.dtype != named[0][0].dtype:
            op.fail(f"must have {named[0][1]}'s dtype {named[0][0].dtype}, not {t.dtype}", n, "pto.op.same_dtype",
                    str(t.dtype), DtypeError)
    dt = named[0][0].dtype
    # cpu: the simulator's records take any type whose size divides 8 (bf16 stays out, PTO88; PTO71)
    ok = dt.name in ("f16", "f32") or op.prof.x86_nans and dt.is_int and 8 % dt.size == 0
    if not ok:
        op.fail(f"records hold f16 or f32 values{' (or integers on cpu)' if op.prof.x86_nans else ''}, not {dt}",
                named[0][1], "pto.op.dtype", str(dt), DtypeError)


def _keys(records: np.ndarray, dt) -> np.ndarray:
    """The values that order records: their first lane, as a number (exact for every dtype)."""
    v = records[:, 0].view(dt.np)
    return v.astype(np.float64) if dt.is_float else v


def _merge(lists: list[np.ndarray], keys: list[np.ndarray], room: int, exhausted: bool) -> tuple[list, list[int]]:
    """The CPU reference's merge loop over whole records; returns the records taken and the per-list counts."""
    pos = [0] * len(lists)
    out = []
    while len(out) < room:
        pick = -1
        for i, k in enumerate(keys):
            if pos[i] < len(k) and (pick < 0 or k[pos[i]] > keys[pick][pos[pick]]):
                pick = i
        if pick < 0:
            break
        out.append(lists[pick][pos[pick]])
        pos[pick] += 1
        if exhausted and any(p == len(k) for p, k in zip(pos, keys)):
            break
    return out, pos


def tmrgsort(dst: Tile, *operands, exhausted=False, target=None) -> Tile:
    """TMRGSORT: ``(dst, executed, src0, src1[, src2[, src3]], tmp)`` merges 2-4 sorted record lists;
    ``(dst, src, block_len)`` merges groups of four sorted blocks of one list (see the module docstring).

    ``executed`` is a 4-lane integer array (or None) that receives the records taken from each list.
    Rules: ``pto.tmrgsort.form``, ``pto.tmrgsort.rows``, ``pto.tmrgsort.tmp_cols``, ``pto.tmrgsort.block_len``,
    ``pto.op.dtype``, ``pto.op.same_dtype``, ``pto.op.layout``.
    """
    op = Op("tmrgsort", target)
    if len(operands) == 2 and isinstance(operands[0], Tile) and not isinstance(operands[1], Tile):
        return _mrg_blocks(op, dst, operands[0], operands[1])
    has_counts = bool(operands) and not isinstance(operands[0], Tile)
    executed, tiles = (operands[0], operands[1:]) if has_counts else (None, operands)
    if not 3 <= len(tiles) <= 5 or not all(isinstance(t, Tile) for t in tiles):
        op.fail("takes dst, executed, 2 to 4 source tiles and tmp, or dst, src and block_len", "operands",
                "pto.tmrgsort.form", len(operands), TilesimError)
    *srcs, tmp = tiles
    _mrg_tiles(op, [(dst, "dst"), *[(t, f"src{i}") for i, t in enumerate(srcs)], (tmp, "tmp")])
    if not op.prof.x86_nans and tmp.cols < sum(t.cols for t in srcs):  # cpu: tmp is never read (PTO164)
        op.fail(f"needs at least {sum(t.cols for t in srcs)} columns (the sources' together), has {tmp.cols}", "tmp",
                "pto.tmrgsort.tmp_cols", tmp.cols)
    if executed is not None:
        executed = np.asarray(executed)
        if executed.shape != (4,) or executed.dtype.kind not in "iu" or executed.dtype.itemsize < 2:
            op.fail("must be 4 integer lanes of at least 16 bits (vector<4xi16>)", "executed", "pto.op.operand",
                    getattr(executed, "shape", None), TilesimError)
    k = 8 // dst.dtype.size
    lists = [t.bits[0, : t.valid_cols // k * k].reshape(-1, k) for t in srcs]
    keys = [_keys(rec, t.dtype) for rec, t in zip(lists, srcs)]
    ex = str(exhausted).strip().lower()
    if ex not in ("true", "false", "0", "1"):
        op.fail("must be true or false", "exhausted", "pto.tmrgsort.exhausted", exhausted, TilesimError)
    out, pos = _merge(lists, keys, dst.valid_cols // k, ex in ("true", "1"))
    if out:
        dst.bits[0, : len(out) * k] = np.concatenate(out)
    if executed is not None:
        executed[...] = np.array(pos + [0] * (4 - len(pos)), np.int64).astype(executed.dtype)
    return dst


def _mrg_blocks(op: Op, dst: Tile, src: Tile, block_len) -> Tile:
    _mrg_tiles(op, [(dst, "dst"), (src, "src")])
    if isinstance(block_len, (bool, np.bool_)) or not isinstance(block_len, (int, np.integer)):
        op.fail("must be an integer", "block_len", "pto.op.operand", block_len, TilesimError)
    n = int(block_len)
    k = 8 // dst.dtype.size
    if op.prof.x86_nans:  # cpu: groups over dst's valid columns; a block_len of no whole records does nothing
        if not 0 <= n < 1 << 32:
            op.fail("must be a uint32", "block_len", "pto.tmrgsort.block_len", n, TilesimError)
        if dst.valid_cols > src.cols:
            op.fail(f"dst's {dst.valid_cols} valid columns would read past src's {src.cols} columns", "src",
                    "pto.tmrgsort.block_len", src.cols)
        if n == 0 or n % k:
            return dst
        end = dst.valid_cols
    else:
        if n <= 0 or n % 64 or src.valid_cols % (4 * n) or not 1 <= src.valid_cols // (4 * n) <= 255:
            op.fail(f"must be a positive multiple of 64 with src's {src.valid_cols} valid columns a multiple of "
                    f"4 * block_len, 1 to 255 times", "block_len", "pto.tmrgsort.block_len", n, TilesimError)
        end = min(src.valid_cols, dst.valid_cols)
    for base in range(0, end - 4 * n + 1, 4 * n):
        blocks = [src.bits[0, base + b * n: base + (b + 1) * n].reshape(-1, k) for b in range(4)]
        keys = [_keys(r, src.dtype) for r in blocks]
        out, _ = _merge(blocks, keys, 4 * n // k, False)
        dst.bits[0, base: base + 4 * n] = np.concatenate(out)
    return dst
