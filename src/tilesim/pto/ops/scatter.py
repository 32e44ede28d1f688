"""TSCATTER: scatter src into dst by an index tile, or spread it by a fixed mask pattern (decision PTO133).

* Index form ``tscatter(dst, src, indexes)``: on ``cpu`` as pto-isa's simulator (include/pto/cpu/TScatter.hpp)
  does it: for each element (i, j) of indexes' valid region, in row-major order, src's (i, j) is written to
  dst's *storage offset* ``indexes[i, j]`` (read as ``unsigned``; the last writer wins); nothing else of dst
  changes. The NPUs follow docs/isa/TSCATTER.md: dst is zeroed (its whole capacity), then src's valid (i, j) is
  written to dst's element ``(indexes[i, j], j)``, the last writer winning. An index outside dst (its storage
  on cpu, its rows on the NPUs) is refused (``pto.tscatter.index``): C++ undefined behaviour on cpu,
  target-defined on the NPUs ("no bounds checks").
* Mask form ``tscatter(dst, src, mask_pattern=P, axis="row"|"col")``: the inverse of TGATHER's mask form.
  ``axis="row"``: in each of src's valid rows, dst's valid columns that the pattern selects take src's elements
  one after another (on cpu src is read as one row-major stream over its storage), the others 0; ``axis="col"``: dst's
  selected valid rows take src's rows in turn, the others 0. P1111 is TMOV. The NPUs zero dst first and check
  the page's shapes (``pto.tscatter.shape``); cpu's asserts are compiled out (``-DNDEBUG``), so it checks only
  that src's reads stay in src.
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..tile import Tile
from ._common import Op
from .gather import _pattern
from .move import tmov

__all__ = ["tscatter"]


def tscatter(dst: Tile, src: Tile, indexes: Tile | None = None, *, mask_pattern=None, axis: str = "row",
             target=None) -> Tile:
    """TSCATTER by ``indexes`` or by ``mask_pattern`` (see the module docstring).

    >>> from tilesim.pto import Tile
    >>> d, s, i = Tile("vec", "f32", 2, 8), Tile("vec", "f32", 1, 8), Tile("vec", "u32", 1, 8)
    >>> s.values[0] = range(1, 9); i.values[0] = (15, 14, 13, 12, 3, 2, 1, 0)
    >>> tscatter(d, s, i, target="cpu").values.tolist()[1][4:]
    [4.0, 3.0, 2.0, 1.0]
    """
    op = Op("tscatter", target)
    op.tile(dst, "dst")
    op.tile(src, "src")
    if (indexes is None) == (mask_pattern is None):
        op.fail("give exactly one of indexes or mask_pattern", "indexes", "pto.tscatter.form", None, TilesimError)
    if indexes is not None:
        return _by_index(op, dst, src, indexes)
    return _by_mask(op, dst, src, mask_pattern, axis)


def _by_index(op: Op, dst: Tile, src: Tile, idx: Tile) -> Tile:
    op.tile(idx, "indexes")
    op.same_dtype(dst, src, "src", "dst")
    cpu = op.prof.x86_nans
    op.dtypes("tscatter", (dst.dtype, idx.dtype), ("dst", "indexes"))
    if cpu:
        op.layout(dst, "dst", ("ND",), "an ND layout (the simulator writes storage offsets)")
    else:
        want = 4 if dst.dtype.size == 4 else 2
        if idx.dtype.size != want:
            op.fail(f"a {dst.dtype.size}-byte dst needs {want}-byte indexes, not {idx.dtype}", "indexes",
                    "pto.op.dtype", str(idx.dtype), DtypeError)
    R, C = idx.valid if cpu else src.valid
    if R == 0 or C == 0:
        return dst
    if idx.valid_rows < R or idx.valid_cols < C or src.valid_rows < R or src.valid_cols < C:
        op.fail(f"indexes' valid {idx.valid} and src's {src.valid} must cover the {R}x{C} scattered",
                "indexes", "pto.op.valid_match", idx.valid)
    k = nx.int_view(idx.bits[:R, :C], idx.dtype).astype(np.int64)
    if cpu:
        k = k & 0xFFFFFFFF  # static_cast<unsigned>
    bound = dst.numel if cpu else dst.rows
    bad = (k < 0) | (k >= bound)
    if bad.any():
        at = tuple(int(v) for v in np.argwhere(bad)[0])
        op.fail(f"index {int(k[at])} at {at} is outside dst's {'storage' if cpu else 'rows'} (0 .. {bound - 1}): "
                + ("undefined in C++" if cpu else "target-defined (the page checks no bounds)"), "indexes",
                "pto.tscatter.index", int(k[at]))
    if not cpu and C > dst.cols:
        op.fail(f"src's {C} valid columns pass dst's {dst.cols}", "src", "pto.tscatter.shape", C)
    flat = (k if cpu else k * dst.cols + np.arange(C)[None, :]).reshape(-1)
    vals = src.bits[:R, :C].reshape(-1)
    last = flat.size - 1 - np.unique(flat[::-1], return_index=True)[1]   # the last writer of each target
    out = dst.bits.reshape(-1) if cpu else np.zeros(dst.numel, dst.dtype.lane)
    out[flat[last]] = vals[last]
    dst.bits[...] = out.reshape(dst.bits.shape)
    return dst


def _by_mask(op: Op, dst: Tile, src: Tile, pattern, axis: str) -> Tile:
    period, sel = _pattern(op, pattern)
    if axis not in ("row", "col"):
        op.fail("axis must be 'row' or 'col'", "axis", "pto.tscatter.axis", axis, TilesimError)
    if period == 1:  # P1111: TMOV
        return tmov(dst, src, target=op.prof)
    for t, n in ((dst, "dst"), (src, "src")):
        op.layout(t, n, ("ND",), "an ND layout (row-major, no boxes)")
    if dst.dtype.size != src.dtype.size:
        op.fail(f"dst's {dst.dtype} and src's {src.dtype} differ in size", "dst", "pto.op.dtype",
                (str(src.dtype), str(dst.dtype)), DtypeError)
    op.dtypes("tscatter_mask", (src.dtype,), ("src",))
    cpu = op.prof.x86_nans
    if axis == "row":
        R, C = src.valid_rows, dst.valid_cols
        picked = np.arange(C) % period == sel
        n = int(picked.sum())
        if not cpu and (src.valid_cols != n or src.valid_rows != dst.valid_rows):
            op.fail(f"src's valid {src.valid} must be {dst.valid_rows}x{n} ({dst.valid_cols} columns / {period})",
                    "src", "pto.tscatter.shape", src.valid)
        if R * n > src.numel or R > dst.rows:
            op.fail(f"{R} rows of {n} selected columns read past src's {src.numel} elements or write past dst's "
                    f"{dst.rows} rows", "src", "pto.tscatter.shape", src.valid)
        # cpu reads src as one stream over its storage; the page takes row i's first n elements for row i
        stream = src.bits.reshape(-1)[: R * n].reshape(R, n) if cpu else src.bits[:R, :n]
        block = np.zeros((R, C), dst.dtype.lane)
        block[:, picked] = stream.view(dst.dtype.lane)
    else:
        R, C = dst.valid
        picked = np.arange(R) % period == sel
        n = int(picked.sum())
        if not cpu and (src.valid_rows != n or src.valid_cols != C):
            op.fail(f"src's valid {src.valid} must be {n}x{C} ({dst.valid_rows} rows / {period})", "src",
                    "pto.tscatter.shape", src.valid)
        if n > src.rows or C > src.cols:
            op.fail(f"{n} rows of {C} columns read past src's {src.rows}x{src.cols}", "src", "pto.tscatter.shape",
                    src.valid)
        block = np.zeros((R, C), dst.dtype.lane)
        block[picked] = src.bits[:n, :C].view(dst.dtype.lane)
    if not cpu:
        dst.bits[...] = 0
    dst.bits[:R, :C] = block
    return dst
