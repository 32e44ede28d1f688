"""MGATHER and MSCATTER: global memory read or written at the elements (or rows) an index tile names
(decision PTO134; pto-isa include/pto/cpu/MGather.hpp, MScatter.hpp; docs/isa/MGATHER.md, MSCATTER.md).

The global table is a numpy array, as for TLOAD/TSTORE: ``coalesce="elem"`` reads it flat (capacity: its size),
``coalesce="row"`` as rows of its last axis (capacity: its row count; a 2-D array). An index is read as C's
``size_t`` (a negative one is huge), then remapped by the out-of-bounds mode: ``clamp`` to capacity - 1,
``wrap`` modulo capacity, ``zero`` (MGATHER: the lane or row reads 0), ``skip`` (MSCATTER: no write);
``undefined`` takes the index as it is, and an index past capacity is refused (``pto.mgather.index``,
``pto.mscatter.index``): out-of-bounds memory in C++, and no bound on the NPUs.

* Elem: element (i, j) of dst (MGATHER) or of src (MSCATTER) pairs with indexes' element (i, j).
* Row: row i pairs with the i-th index; on cpu that is the index tile's storage element i (``indexes.data()[i]``),
  on the NPUs its i-th valid element along a [1, R] tile (or [R, 1] on A5).

MSCATTER visits src's valid region row by row: with ``atomic="none"`` the last writer wins; ``add`` adds in
that order (each sum rounded in the dtype), ``max``/``min`` keep C++'s ``std::max(table, src)``/``std::min``
(the table's value unless src compares greater/less). On cpu, Row mode's max/min compare src with the table's
element at the *row index* (the simulator reads ``base[idx]``), as the simulator does. The NPUs read an index
as ``uint32_t`` (a negative one is 2**32 less than C's size_t makes it).

A2A3's NZ form (decision PTO188; npu/a2a3/MGather.hpp, MScatter.hpp): the table is a 5-D array, its
GlobalTensor's shape ``(B, BCols, BRows, 16, C0)`` with C0 = 32 bytes of elements (any strides: a padded
tensor is a view), and the tile is Nz (512-byte fractals). Logical row ``i`` is block row ``i // 16``, row
``i % 16``; logical column ``j`` is block column ``b = j // C0``, at ``(b // BCols, b % BCols)``, element
``j % C0``: BRows * 16 rows of B * BCols * C0 columns. Row mode copies whole logical rows (all those columns,
past the valid ones; ``zero`` first zeroes the whole tile); Elem mode splits a flat index into (row, column)
of that logical shape. MSCATTER's Elem mode visits the valid region block column by block column, then row
by row, then along the block, as the kernel does, so the last writer and the order of sums follow it.

On A5 the UB tile may also be DN (its SIMT kernels address it through ``tile_offset_2d``). MGATHER's GM -> L1
form (decision PTO110) takes a mat dst, on cpu of any layout; on the NPUs an Nz one (512-byte fractals), with
its indexes a 2-D int32/uint32 global array read as ``uint32_t``: Row mode writes the valid region (``zero``
first zeroes the whole tile), Elem mode the whole tile, zero past the valid region (its NZ scratch, copied whole).
"""

from __future__ import annotations

import numpy as np

from ...errors import DtypeError, TilesimError
from .. import numerics as nx
from ..tile import Tile
from ._common import Op

__all__ = ["mgather", "mscatter"]

_GATHER_OOB = ("undefined", "clamp", "wrap", "zero")
_SCATTER_OOB = ("undefined", "skip", "clamp", "wrap")
#: A5's atomicMax/atomicMin dtypes (docs/isa/MSCATTER.md); A2A3 has none, cpu takes every dtype
_MINMAX_A5 = ("i32", "u32", "f32")
#: an NZ fractal: FRACTAL_NZ_ROW rows of one C0_SIZE_BYTE block
_NZ_ROWS, _C0_BYTES = 16, 32
#: the UB tile layouts beside A2A3's NZ form: A5's SIMT kernels address through tile_offset_2d (PTO110)
_UB_LAYOUTS = {"a5": ("ND", "DN")}
#: MGATHER's GM -> L1 dtypes (MGatherCheckGm2L1; docs/isa/MGATHER.md "GM → L1 Gather"), PTO110
_L1_DTYPES = {"a2a3": ("i8", "u8", "i16", "u16", "i32", "u32", "f16", "bf16", "f32")}
_L1_DTYPES["a5"] = _L1_DTYPES["a2a3"] + ("hif8", "f8e4m3", "f8e5m2")


def _choice(op: Op, value, allowed: tuple[str, ...], operand: str) -> str:
    v = str(value).lower().rsplit("::", 1)[-1]
    if v not in allowed:
        op.fail(f"{operand} must be one of {', '.join(allowed)}", operand, f"pto.{op.name}.mode", value, TilesimError)
    return v


def _table(op: Op, gm, t: Tile, coalesce: str, operand: str) -> tuple[np.ndarray, int, int]:
    """(the table's lanes, flat and writable through, capacity, row stride) with its checks."""
    if not isinstance(gm, np.ndarray):
        op.fail("expected a numpy array (global memory)", operand, "pto.op.operand", type(gm).__name__, TilesimError)
    if gm.dtype.itemsize != t.dtype.size:
        op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {t.dtype} {t.dtype.size}", operand,
                "pto.mem.elem_size", str(gm.dtype), DtypeError)
    if coalesce == "row" and gm.ndim != 2:
        op.fail(f"Row mode needs a 2-D table (rows x row width), not {gm.ndim}-D", operand, "pto.mem.shape",
                gm.shape, TilesimError)
    if not gm.flags.c_contiguous:
        op.fail("the table must be C-contiguous", operand, "pto.mem.shape", gm.strides, TilesimError)
    flat = gm.reshape(-1).view(t.dtype.lane)
    return flat, (gm.shape[0] if coalesce == "row" else gm.size), (gm.shape[1] if coalesce == "row" else 1)


def _is_nz(op: Op, gm) -> bool:
    """Whether the call is A2A3's NZ form: a 5-D table (B, BCols, BRows, 16, C0)."""
    return op.prof.gm_index_nz and isinstance(gm, np.ndarray) and gm.ndim == 5


def _nz_table(op: Op, gm: np.ndarray, t: Tile, operand: str, rule: str) -> tuple[np.ndarray, int, int]:
    """(the NZ table's lanes, flat in its index order: a view, or a copy of a strided table; logical rows;
    logical columns) with the NZ checks (``pto.mgather.nz``, ``pto.mscatter.nz``)."""
    if gm.dtype.itemsize != t.dtype.size:
        op.fail(f"global elements are {gm.dtype.itemsize} bytes, the tile's {t.dtype} {t.dtype.size}", operand,
                "pto.mem.elem_size", str(gm.dtype), DtypeError)
    c0 = _C0_BYTES // t.dtype.size
    if gm.shape[3:] != (_NZ_ROWS, c0):
        op.fail(f"an NZ table's last two sizes are {_NZ_ROWS} x {c0} (one {_C0_BYTES}-byte {t.dtype} block), not "
                f"{gm.shape[3]} x {gm.shape[4]}", operand, rule, gm.shape)
    b, bcols, brows = gm.shape[:3]
    return gm.view(t.dtype.lane).reshape(-1), brows * _NZ_ROWS, b * bcols * c0


def _nz_addr(shape: tuple, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Flat positions, in an NZ table's index order, of its logical (row, column) elements."""
    rows, cols = rows.astype(np.int64), cols.astype(np.int64)
    bcols, c0 = shape[1], shape[4]
    blk = cols // c0
    return np.ravel_multi_index((blk // bcols, blk % bcols, rows // _NZ_ROWS, rows % _NZ_ROWS, cols % c0), shape)


def _checks(op: Op, t: Tile, idx, role: str, coalesce: str, nz: bool = False) -> tuple[int, int]:
    """The tile checks; returns the valid region (rows, cols) the op visits. On cpu MGATHER's dst may be a mat
    tile of any layout and its indexes a global array (the simulator's GM-to-L1 form); on A2A3 an NZ table
    takes an Nz tile (512-byte fractals)."""
    cpu = op.prof.x86_nans
    op.tile(t, role, ("vec", "mat") if op.name == "mgather" else "vec")
    R, C = t.valid
    if not cpu and t.loc == "mat":
        _l1_checks(op, t, idx, nz)
    if isinstance(idx, np.ndarray) and (cpu or t.loc == "mat") and op.name == "mgather":
        if idx.dtype.kind not in "iu":
            op.fail(f"indexes must be integers, not {idx.dtype}", "indexes", "pto.op.dtype", str(idx.dtype),
                    DtypeError)
        if idx.ndim != 2 or (coalesce == "row" and idx.size < R) or (coalesce == "elem" and idx.shape < (R, C)):
            op.fail(f"global indexes of shape {idx.shape} do not cover {R}x{C} ({coalesce} mode)", "indexes",
                    "pto.mgather.shape", idx.shape)
        return R, C
    op.tile(idx, "indexes")
    if nz:
        op.layout(t, role, ("Nz",), "the Nz layout with an NZ (5-D) table")
        if t.fractal != 512:
            op.fail(f"an NZ table pairs with 512-byte fractals, not {t.fractal}", role, "pto.op.layout", t.fractal)
    elif not cpu:
        hint = " (or Nz, with an NZ table: a 5-D array B x BCols x BRows x 16 x C0)" if op.prof.gm_index_nz else ""
        lays = _UB_LAYOUTS.get(op.prof.name, ("ND",))
        op.layout(t, role, lays, f"an {' or '.join(lays)} layout" + hint)
    op.dtypes(op.name, (t.dtype, idx.dtype), (role, "indexes"))
    if cpu:
        if coalesce == "row" and idx.numel < R:
            op.fail(f"Row mode reads {R} indexes from a tile of {idx.numel}", "indexes", f"pto.{op.name}.shape",
                    idx.numel)
        return R, C
    want = ((1, R), (R, 1)) if op.prof.name == "a5" else ((1, R),)
    if (coalesce == "row" and idx.valid not in want) or (coalesce == "elem" and idx.valid != (R, C)):
        shown = " or ".join(f"{r}x{c}" for r, c in want) if coalesce == "row" else f"{R}x{C}"
        op.fail(f"indexes' valid region must be {shown} for {coalesce} mode", "indexes", f"pto.{op.name}.shape",
                idx.valid)
    return R, C


def _l1_checks(op: Op, t: Tile, idx, nz: bool) -> None:
    """The NPUs' GM -> L1 form (MGatherCheckGm2L1): an ND table, an Nz mat dst of whole fractals, i32/u32
    global indexes."""
    if nz:
        op.fail("a GM -> L1 gather reads an ND table (a 2-D array), not an NZ one", "src", "pto.mgather.nz", 5)
    allowed = _L1_DTYPES.get(op.prof.name, _L1_DTYPES["a2a3"])
    if t.dtype.name not in allowed:
        op.fail(f"a GM -> L1 gather takes {'/'.join(allowed)}, not {t.dtype}", "dst", "pto.op.dtype", str(t.dtype),
                DtypeError)
    op.layout(t, "dst", ("Nz",), "the Nz layout for a GM -> L1 gather")
    c0 = _C0_BYTES // t.dtype.size
    if t.fractal != 512 or t.rows % _NZ_ROWS or t.cols % c0:
        op.fail(f"a GM -> L1 gather needs 512-byte fractals, rows a multiple of {_NZ_ROWS} and cols of {c0}, not "
                f"{t.rows}x{t.cols} ({t.fractal}-byte fractals)", "dst", "pto.mgather.shape", (t.rows, t.cols))
    if not isinstance(idx, np.ndarray) or idx.dtype not in (np.int32, np.uint32):
        what = str(idx.dtype) if isinstance(idx, np.ndarray) else type(idx).__name__
        op.fail(f"a GM -> L1 gather reads its indexes from global memory: an int32/uint32 numpy array, not {what}",
                "indexes", "pto.op.dtype", what, DtypeError)


def _indexes(op: Op, idx: Tile, R: int, C: int, coalesce: str) -> np.ndarray:
    """The (R, C) (elem) or (R,) (row) indexes as C's size_t (uint64)."""
    if isinstance(idx, np.ndarray):  # global indexes (the GM-to-L1 form): size_t on cpu, uint32_t on the NPUs
        raw = idx[:R, :C] if coalesce == "elem" else idx.reshape(-1)[:R]
        return raw.astype(np.int64).view(np.uint64) if op.prof.x86_nans else raw.astype(np.uint32).astype(np.uint64)
    if coalesce == "elem":
        raw = idx.bits[:R, :C]
    elif op.prof.x86_nans:
        raw = idx.storage()[:R]
    else:
        raw = idx.bits[0, :R] if idx.valid == (1, R) else idx.bits[:R, 0]
    if not op.prof.x86_nans:              # the NPUs' remap takes a uint32_t (PTO188)
        return raw.astype(np.uint32).astype(np.uint64)
    return nx.int_view(raw, idx.dtype).astype(np.int64).view(np.uint64)


def _remap(op: Op, k: np.ndarray, cap: int, oob: str) -> tuple[np.ndarray, np.ndarray]:
    """(indexes remapped by the out-of-bounds mode, mask of the lanes still out of bounds)."""
    c = np.uint64(cap)
    if oob == "clamp":
        k = np.minimum(k, c - np.uint64(1))
    elif oob == "wrap":
        k = k % c
    out = k >= c
    if oob == "undefined" and out.any():
        at = tuple(int(v) for v in np.argwhere(out)[0])
        v = int(k[at])
        op.fail(f"index {v if v < 2 ** 63 else v - 2 ** 64} at {at} is past the table's {cap} "
                f"{'rows' if k.ndim == 1 else 'elements'} (out-of-bounds memory; use oob='clamp', "
                "'wrap' or the skip/zero mode)", "indexes", f"pto.{op.name}.index", v)
    return np.where(out, np.uint64(0), k), out


def mgather(dst: Tile, src: np.ndarray, indexes: Tile | np.ndarray, *, coalesce: str = "elem", oob: str = "undefined",
            target=None) -> Tile:
    """MGATHER: dst's valid (i, j) = table[indexes[i, j]] (elem) or table[indexes[i], j] (row); see the module.
    dst may also be a mat tile (cpu: any layout; the NPUs: Nz, PTO110) and indexes a 2-D global array (the
    GM-to-L1 form).

    >>> from tilesim.pto import Tile
    >>> d, i = Tile("vec", "f32", 1, 8, valid=(1, 4)), Tile("vec", "i32", 1, 8, valid=(1, 4))
    >>> i.values[0, :4] = (3, 0, 3, 9)
    >>> mgather(d, np.arange(8, dtype=np.float32), i, oob="wrap").valid_values.tolist()
    [[3.0, 0.0, 3.0, 1.0]]
    """
    op = Op("mgather", target)
    coalesce = _choice(op, coalesce, ("elem", "row"), "coalesce")
    oob = _choice(op, oob, _GATHER_OOB, "oob")
    nz = _is_nz(op, src)
    R, C = _checks(op, dst, indexes, "dst", coalesce, nz)
    if nz:
        return _mgather_nz(op, dst, src, indexes, R, C, coalesce, oob)
    flat, cap, stride = _table(op, src, dst, coalesce, "src")
    if R == 0 or C == 0:
        return dst
    k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), cap, oob)
    if coalesce == "row":
        addr, out = k[:, None] * np.uint64(stride) + np.arange(C, dtype=np.uint64)[None, :], out[:, None]
    else:
        addr = k
    past = ~out & (addr >= np.uint64(flat.size))
    if past.any():
        op.fail(f"a row read passes the table's {flat.size} elements", "src", "pto.mgather.index", int(addr.max()))
    vals = flat[np.where(out, np.uint64(0), addr)]
    if dst.loc == "mat" and not op.prof.x86_nans and (coalesce == "elem" or oob == "zero"):
        dst.bits[...] = 0                 # the NPUs' L1 forms: a zeroed NZ scratch copied whole, or a zeroed tile
    dst.bits[:R, :C] = np.where(out, dst.dtype.lane.type(0), vals)
    return dst


def mscatter(dst: np.ndarray, src: Tile, indexes: Tile, *, coalesce: str = "elem", atomic: str = "none",
             oob: str = "undefined", conflict: str = "last", target=None) -> np.ndarray:
    """MSCATTER: table[indexes[i, j]] (elem) or table[indexes[i], j] (row) = atom(that, src's valid (i, j)), in
    place; returns ``dst``. See the module.

    >>> from tilesim.pto import Tile
    >>> s, i = Tile("vec", "i32", 1, 8, valid=(1, 4)), Tile("vec", "i32", 1, 8, valid=(1, 4))
    >>> s.values[0, :4], i.values[0, :4] = (1, 2, 3, 4), (5, 5, 0, 5)
    >>> mscatter(np.zeros(8, np.int32), s, i, atomic="add").tolist()
    [3, 0, 0, 0, 0, 7, 0, 0]
    """
    op = Op("mscatter", target)
    coalesce = _choice(op, coalesce, ("elem", "row"), "coalesce")
    atomic = _choice(op, atomic, ("none", "add", "max", "min"), "atomic")
    oob = _choice(op, oob, _SCATTER_OOB, "oob")
    conflict = _choice(op, conflict, ("last", "default"), "conflict")
    if atomic == "add":
        op.dtypes("mscatter_add", (src.dtype,), ("src",))
    elif atomic != "none" and not op.prof.x86_nans and (op.prof.name == "a2a3" or src.dtype.name not in _MINMAX_A5):
        op.fail(f"atomic {atomic} takes {'/'.join(_MINMAX_A5)} on A5 and nothing on A2A3 (MScatterCheck)", "atomic",
                "pto.op.dtype", (atomic, str(src.dtype)), DtypeError)
    nz = _is_nz(op, dst)
    R, C = _checks(op, src, indexes, "src", coalesce, nz)
    if nz:
        return _mscatter_nz(op, dst, src, indexes, R, C, coalesce, atomic, oob, conflict)
    flat, cap, stride = _table(op, dst, src, coalesce, "dst")
    if R == 0 or C == 0:
        return dst
    k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), cap, oob)
    rows = k
    if coalesce == "row":
        k, out = k[:, None] * np.uint64(stride) + np.arange(C, dtype=np.uint64)[None, :], np.repeat(out[:, None], C, 1)
    keep = ~out
    if (k[keep] >= np.uint64(flat.size)).any():
        op.fail(f"a row write passes the table's {flat.size} elements", "dst", "pto.mscatter.index", int(k.max()))
    if coalesce == "row" and atomic in ("max", "min") and op.prof.x86_nans:
        _row_extreme_cpu(op, flat, rows, out[:, 0], src.bits[:R, :C], int(stride), atomic, src.dtype)
    else:
        _write(op, flat, k[keep].astype(np.int64), src.bits[:R, :C][keep], atomic, conflict, src.dtype)
    return dst


def _write(op: Op, flat: np.ndarray, addr: np.ndarray, vals: np.ndarray, atomic: str, conflict: str, dt) -> None:
    """MSCATTER's writes of ``vals`` at ``addr``, both in visiting order."""
    first = np.unique(addr, return_index=True)[1]
    sequential = op.prof.x86_nans or op.prof.mscatter_sequential      # cpu's and A2A3's loops (PTO109)
    if atomic == "none" and conflict == "default" and not sequential and first.size < addr.size:
        op.fail("two lanes write one table element and Conflict::Default leaves the winner to the warp "
                "scheduler (use conflict='last')", "indexes", "pto.mscatter.conflict", int(addr.size - first.size),
                TilesimError)
    if atomic == "none":
        last = addr.size - 1 - np.unique(addr[::-1], return_index=True)[1]
        flat[addr[last]] = vals[last]
    else:
        _accumulate(op, flat, addr, vals, atomic, dt)


def _whole_rows(op: Op, t: Tile, cols: int, role: str, rule: str) -> np.ndarray:
    """The columns an NZ Row-mode copy moves (every logical column of the table), which must lie in t."""
    if cols > t.cols:
        op.fail(f"Row mode moves whole rows of the NZ table ({cols} columns), past the tile's {t.cols}", role,
                rule, cols)
    return np.arange(cols)


def _mgather_nz(op: Op, dst: Tile, src: np.ndarray, indexes: Tile, R: int, C: int, coalesce: str,
                oob: str) -> Tile:
    """MGATHER's A2A3 NZ form (see the module)."""
    flat, rows, cols = _nz_table(op, src, dst, "src", rule="pto.mgather.nz")
    if R == 0 or C == 0:
        return dst
    if coalesce == "row":
        c = _whole_rows(op, dst, cols, "dst", rule="pto.mgather.nz")
        k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), rows, oob)
        new = np.zeros_like(dst.bits) if oob == "zero" else dst.bits.copy()
        r = np.flatnonzero(~out)
        new[r[:, None], c[None, :]] = flat[_nz_addr(src.shape, k[r][:, None], c[None, :])]
        dst.bits[...] = new
        return dst
    k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), rows * cols, oob)
    vals = flat[_nz_addr(src.shape, k // np.uint64(cols), k % np.uint64(cols))]
    dst.bits[:R, :C] = np.where(out, dst.dtype.lane.type(0), vals)
    return dst


def _mscatter_nz(op: Op, dst: np.ndarray, src: Tile, indexes: Tile, R: int, C: int, coalesce: str, atomic: str,
                 oob: str, conflict: str) -> np.ndarray:
    """MSCATTER's A2A3 NZ form (see the module); the table is written back whole (a strided one is a copy)."""
    flat, rows, cols = _nz_table(op, dst, src, "dst", rule="pto.mscatter.nz")
    if R == 0 or C == 0:
        return dst
    if coalesce == "row":
        c = _whole_rows(op, src, cols, "src", rule="pto.mscatter.nz")
        k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), rows, oob)
        r = np.flatnonzero(~out)
        addr = _nz_addr(dst.shape, k[r][:, None], c[None, :]).reshape(-1)
        vals = src.bits[r[:, None], c[None, :]].reshape(-1)
    else:
        k, out = _remap(op, _indexes(op, indexes, R, C, coalesce), rows * cols, oob)
        r, c = np.indices((R, C)).reshape(2, -1)
        c0 = _C0_BYTES // src.dtype.size
        order = np.lexsort((c % c0, r, c // c0))         # block column, then row, then along the block
        order = order[~out.reshape(-1)[order]]
        kk = k.reshape(-1)[order]
        addr = _nz_addr(dst.shape, kk // np.uint64(cols), kk % np.uint64(cols))
        vals = src.bits[:R, :C].reshape(-1)[order]
    _write(op, flat, addr, vals, atomic, conflict, src.dtype)
    dst.view(src.dtype.lane)[...] = flat.reshape(dst.shape)
    return dst


def _combine(op: Op, table: np.ndarray, v: np.ndarray, atomic: str, dt) -> np.ndarray:
    """C++'s ``t += v``, ``std::max(t, v)`` or ``std::min(t, v)`` on lanes of dt."""
    if atomic == "add":
        if dt.is_float:
            p = op.prof
            return nx.binary("add", table, v, dt, flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst,
                             x86=p.x86_nans)
        return (table.astype(np.uint64) + v.astype(np.uint64)).astype(dt.lane)  # wraps modulo 2**bits
    tv, vv = (nx.as_f32(x, dt) if dt.is_float else nx.int_view(x, dt) for x in (table, v))
    take = (tv < vv) if atomic == "max" else (vv < tv)
    return np.where(take, v, table)


def _accumulate(op: Op, flat: np.ndarray, addr: np.ndarray, vals: np.ndarray, atomic: str, dt) -> None:
    """The atomic ops in visiting order: the n-th write to each element in round n."""
    order = np.argsort(addr, kind="stable")
    a = addr[order]
    start = np.r_[0, np.flatnonzero(a[1:] != a[:-1]) + 1]
    rank = np.arange(a.size) - np.repeat(start, np.diff(np.r_[start, a.size]))
    for n in range(int(rank.max()) + 1 if rank.size else 0):
        sel = order[rank == n]
        flat[addr[sel]] = _combine(op, flat[addr[sel]], vals[sel], atomic, dt)


def _row_extreme_cpu(op: Op, flat: np.ndarray, rows: np.ndarray, skip: np.ndarray, src: np.ndarray, stride: int,
                     atomic: str, dt) -> None:
    """The simulator's Row-mode max/min: row i's element j becomes op(table[idx], src[i, j]), idx the row index
    itself (not the element's address), in order, so a write to table[idx] changes the later reads."""
    for i, (idx, s) in enumerate(zip(rows.astype(np.int64), skip)):
        if s:
            continue
        base = idx * stride
        j0 = idx - base  # the column whose write lands on table[idx], if it is in this row
        C = src.shape[1]
        ref = np.full(C, flat[idx], flat.dtype)
        if 0 <= j0 < C:
            new0 = _combine(op, flat[idx: idx + 1], src[i, j0: j0 + 1], atomic, dt)[0]
            ref[j0 + 1:] = new0
        flat[base: base + C] = _combine(op, ref, src[i], atomic, dt)
