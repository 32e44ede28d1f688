"""The reduce family: row and column sum, max, min, product, and the four arg ops.

Semantics (spec §1a, §6, §9): only the valid region is read; row reduces
write column 0 of rows ``[0, vr)``, column reduces write row 0 of columns
``[0, vc)``; nothing else in a destination changes.

* max/min scan in increasing index order; ties keep the lowest index
  (+0 and -0 compare equal, so the first one's bits win). NaN follows the
  target's ``nan_mode`` (see :mod:`tilesim.pto.targets`).
* Sums run sequentially from +0 (so an all -0 line sums to +0). TROWSUM of
  f16/bf16 accumulates in f32 and rounds once at the end; TCOLSUM and the
  products accumulate in the destination type, rounding after every step;
  integers wrap. The order is the CPU reference's on every target (the NPUs'
  reduction trees are not published): see decisions PTO5.
* Arg ops give the index of the first extreme; the value+index mode also
  writes the value. A2A3 column-arg quirks come from the profile.

Each op's loop runs over one axis only (columns for a row reduce, rows for a
column reduce), each step vectorised over the other axis.
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import UnsupportedError
from .. import jit
from .. import numerics as nx
from ..dtypes import DType, get_dtype
from ..targets import CPU_CAST_FIRST, CPU_CAST_FIRST_BF16
from ..tile import Tile, to_bits
from . import convert_cpu, small_f32
from ._common import Op

__all__ = [
    "trowsum", "trowmax", "trowmin", "trowprod", "tcolsum", "tcolmax", "tcolmin", "tcolprod",
    "trowargmax", "trowargmin", "tcolargmax", "tcolargmin",
]

_ROW_DST = ("ND", "DN1")
_ROW_DST_WHAT = "ND, or DN with exactly one column"


# ------------------------------------------------------------ extremes
_REDUCE = {"max": np.maximum.reduce, "min": np.minimum.reduce}
_ARG = {"max": np.ndarray.argmax, "min": np.ndarray.argmin}  # the methods: numpy's functions wrap them


def extreme(bits: np.ndarray, dt: DType, kind: str, nan_mode: str, axis: int, *, float_view: bool = False,
            nan_index_last: bool = False, need_index: bool = True,
            need_value: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(index, value lanes) of the first max/min along ``axis`` under a NaN rule, as whole-tile operations.

    Without ``need_value`` (index-only arg ops) the value is None.

    The extreme of each line first (numpy's NaN-propagating max/min), then
    the first element that reaches it: that is the strict-compare scan's
    answer for every line without a NaN (ties keep the lowest index, and -0
    == +0, so the first zero's bits win). Lines with a NaN, and lines whose
    extreme is a zero where the rule or a value-only answer needs more, go
    through :func:`extreme_scan` (the general rule, and this function's
    reference in the tests). f16 keys are widened to f32 (exact; numpy's
    float16 reductions are slow).
    """
    if float_view or dt.name in ("bf16", "f16"):
        key = nx.as_key(bits, dt, float_view=float_view)
        need_index |= key.dtype != dt.np  # a value read back from a widened or reinterpreted key needs its position
        if key.dtype == np.float16:
            key = key.astype(np.float32)
    else:
        key = bits.view(dt.np)
    counts = None
    if axis == 1 and need_index:  # numpy's argmax/argmin: the first extreme, or the first NaN (one pass)
        idx = _ARG[kind](key, axis=1)
        if key.dtype == np.float32:  # one numba call gathers the extremes and counts their NaNs and zeros
            ext = np.empty(key.shape[0], np.float32)
            counts = jit.picked(key, idx, ext)
        else:
            ext = key[np.arange(key.shape[0]), idx]
    else:
        idx, ext = None, _REDUCE[kind](key, axis=axis)  # NaN-propagating
    special = None
    if key.dtype.kind == "f":
        zeros_matter = nan_mode == "spec" or not need_index
        # cheap tests (no ufunc reductions) for the common case: no NaN and, where it matters, no zero
        nans, zeros = counts or (np.count_nonzero(ext != ext), ext.size - np.count_nonzero(ext))
        if nans or (zeros_matter and zeros):
            special = (ext != ext) | (ext == 0) if zeros_matter else ext != ext
    if need_index:
        idx = _first_reaching(key, ext, axis) if idx is None else idx
        val = np.take_along_axis(bits, np.expand_dims(idx, axis), axis)[0 if axis == 0 else (slice(None), 0)] \
            if need_value else None
    else:
        idx, val = None, _key_bits(ext, dt)
    if special is not None:
        lines = np.flatnonzero(special)
        sub_idx, sub_val = extreme_scan(np.take(bits, lines, axis=1 - axis), dt, kind, nan_mode, axis,
                                        float_view=float_view, nan_index_last=nan_index_last)
        if val is not None:
            val[lines] = sub_val
        if idx is not None:
            idx[lines] = sub_idx
    return idx, val


def line_extremes(bits: np.ndarray, dt: DType, kind: str, nan_mode: str, axis: int) -> np.ndarray:
    """Value lanes of each line's first max/min (the max/min reduces): numpy's reduce of the lanes viewed as
    numbers when no line's extreme is a NaN or a zero (then every NaN rule agrees, and equal values have equal
    bits), else :func:`extreme`'s general rule. f32 and the integers only; f16/bf16 go to :func:`extreme`."""
    if dt.name not in ("bf16", "f16"):
        ext = _REDUCE[kind](bits.view(dt.np), axis=axis)
        if dt.is_int or not (np.count_nonzero(ext != ext) or np.count_nonzero(ext) != ext.size):
            return ext.view(dt.lane)
    return extreme(bits, dt, kind, nan_mode, axis, need_index=False)[1]


def _first_reaching(key: np.ndarray, ext: np.ndarray, axis: int) -> np.ndarray:
    """Index of the first element of each line equal to its extreme (lines without NaN).

    Along rows numpy's argmax of the equality finds it. Down columns (a
    strided argmax is slow in numpy) each row is weighted ``n - i`` where it
    reaches the extreme and the largest weight is taken: two passes that
    run over the rows in memory order. (numpy 2's ufunc buffering copies the
    rows of the broadcast compare into its buffer to make longer loops; for
    rows of 1024 or more elements a one-row buffer avoids that copy.)
    """
    if axis == 1:
        return (key == ext[:, None]).argmax(axis=1)
    n, m = key.shape
    if n * m <= 4096:  # a small tile: the strided argmax costs less than the weighting's extra calls
        return (key == ext).argmax(axis=0)
    if m >= 1024:  # long rows: a buffer of one row stops numpy copying them to grow its loop (2x faster here)
        old = np.setbufsize(m // 16 * 16)
        try:
            eq = key == ext
        finally:
            np.setbufsize(old)
    else:
        eq = key == ext
    if n <= 256:  # weights n-1-i fit a byte; a line that reaches only at its last row scores 0 -> n-1
        w = eq.view(np.uint8)
        np.multiply(w, np.arange(n - 1, -1, -1, dtype=np.uint8)[:, None], out=w)
        return (n - 1) - w.max(axis=0).astype(np.int64)
    wdt = np.uint16 if n < 65536 else np.uint32
    first = n - np.multiply(eq, np.arange(n, 0, -1, dtype=wdt)[:, None], dtype=wdt).max(axis=0).astype(np.int64)
    return np.minimum(first, n - 1)  # a NaN line reaches nothing; its caller replaces it


def extreme_scan(bits: np.ndarray, dt: DType, kind: str, nan_mode: str, axis: int, *, float_view: bool = False,
                 nan_index_last: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(index, value lanes) of the first max/min along ``axis``, every NaN rule, element-index arithmetic.

    ``first``: a NaN at index 0 wins, later ones are ignored. ``propagate``
    gives the first NaN (with ``nan_index_last``, the A2A3 column scan, the
    index of the last element instead); ``spec`` ignores NaNs (all-NaN:
    index 0 and the canonical NaN) and prefers +0 (max) or -0 (min) among zeros.
    """
    key = nx.as_key(bits, dt, float_view=float_view)
    if key.dtype == np.float16:
        key = key.astype(np.float32)
    pick, red = (np.argmax, np.max) if kind == "max" else (np.argmin, np.min)
    floaty = key.dtype.kind == "f"
    ext = red(key, axis=axis)
    anynan = np.isnan(ext) if floaty else np.zeros(ext.shape, bool)
    has_nan = bool(anynan.any())
    nan = np.isnan(key) if has_nan else None
    clean = np.where(nan, key.dtype.type(-np.inf if kind == "max" else np.inf), key) if has_nan else key
    idx = pick(clean, axis=axis)
    if has_nan:
        if nan_mode == "first":
            idx = np.where(nan.take(0, axis=axis), 0, idx)
        elif nan_mode == "propagate":
            idx = np.where(anynan, np.argmax(nan, axis=axis), idx)
        else:
            idx = np.where(nan.all(axis=axis), 0, idx)
    val = np.take_along_axis(bits, np.expand_dims(idx, axis), axis).squeeze(axis)
    if has_nan and nan_mode == "propagate" and nan_index_last:
        idx = np.where(anynan, bits.shape[axis] - 1, idx)
    if floaty and nan_mode == "spec":
        sign = dt.lane.type(1 << (dt.bits - 1))
        want_pos = kind == "max"
        has_pref = ((key == 0) & (((bits & sign) == 0) == want_pos)).any(axis=axis)
        vkey = nx.as_key(val, dt, float_view=float_view)
        val = np.where((vkey == 0) & has_pref, (val & ~sign) | (dt.lane.type(0) if want_pos else sign), val)
        if has_nan:
            val = np.where(nan.all(axis=axis), dt.lane.type(nx.canonical_nan(dt)), val)
    return idx, val


def _key_bits(ext: np.ndarray, dt: DType) -> np.ndarray:
    """Lanes of extreme values read back from comparison keys (exact: each is one of the elements)."""
    if dt.name == "bf16":
        return (ext.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if dt.name == "f16":
        return ext.astype(np.float16).view(np.uint16)
    return (ext if ext.dtype == dt.np else ext.astype(dt.np)).view(dt.lane)


# ----------------------------------------------------------- sums, prods
def _as_acc_f32(bits: np.ndarray, dt: DType, flush: bool) -> np.ndarray:
    return nx.as_f32(nx.flush_bits(bits, dt) if flush else bits, dt)


def _ftz32(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < np.float32(2.0 ** -126), np.copysign(np.float32(0), x), x)


def sequential(kind: str, bits: np.ndarray, src: DType, dst: DType, axis: int, flush: bool,
               acc_f32: bool, x86: bool = False, layout: str = "ND", cast_from: DType | None = None) -> np.ndarray:
    """Sequential sum or product along ``axis``, as lanes of ``dst``.

    ``acc_f32``: float sources accumulate in float32 and round once to ``dst``
    at the end (TROWSUM); otherwise every step rounds to ``dst`` (TCOLSUM, products).
    ``x86``: NaN results keep payloads as the CPU simulator's ``acc op x`` does
    (the accumulator is the first operand, so the first NaN of a line wins, quieted).
    ``cast_from``: the dtype ``bits`` were cast from (PTO67), whose loop's operand order applies.
    """
    if src.is_int and dst.is_float:  # C++ casts each element to dst's type first (exact: a widening)
        bits, src = convert_cpu.cast(bits, src, dst)[0], dst
    if x86 and not src.is_int:
        return _sequential_x86(kind, bits, src, dst, axis, acc_f32, layout, cast_from or src)
    n = bits.shape[axis]
    if src.is_int:
        v = nx.int_view(bits, src)
        with np.errstate(over="ignore"):
            r = (v.sum(axis=axis, dtype=v.dtype) if kind == "sum" else v.prod(axis=axis, dtype=v.dtype))
        return r.astype(dst.np).view(dst.lane) if dst.name != "u64" else r.view(np.uint64)
    x = _as_acc_f32(bits, src, flush)
    line = (lambda i: x[:, i]) if axis == 1 else (lambda i: x[i, :])
    acc = np.full(x.shape[1 - axis], 0.0 if kind == "sum" else 1.0, np.float32)
    step_round = not acc_f32 and dst.name != "f32"
    with np.errstate(all="ignore"):
        for i in range(n):
            acc = acc + line(i) if kind == "sum" else acc * line(i)
            if flush:
                acc = _ftz32(acc)
            if step_round:
                acc = nx.as_f32(nx.from_f32(acc, dst, flush=flush), dst)
    return nx.from_f32(acc, dst, flush=flush)


_F32 = get_dtype("f32")
#: the pairs whose elements the CPU simulator's loops cast to dst first (accepted on cpu only, PTO67)
_CAST_FIRST = CPU_CAST_FIRST | CPU_CAST_FIRST_BF16
#: (src, dst) whose cast g++ leaves in f32 in a product (excess precision): each step rounds once (PTO67)
_UNROUNDED = {("f16", "bf16"), ("bf16", "f16")}


#: (kind, axis, src, dst, src layout) -> (unroll, steps of each unrolled group whose machine code puts the element
#: first), as clang 19 -O2 unrolls the simulator's ``acc op= x`` loops for f16 sources (PTO70); unlisted:
#: the element first where each step rounds to dst, else the accumulator first; bf16 sources (g++ 14's code, which
#: neither unrolls them this way nor vectorises TROWSUM): the accumulator first in every step (PTO78)
_X86_ORDER = {
    ("sum", 0, "f16", "f16", "ND"): (4, {3}), ("sum", 0, "f16", "f16", "DN"): (4, {0, 2, 3}),
    ("sum", 0, "f16", "f32", "ND"): (4, {3}), ("sum", 0, "f16", "f32", "DN"): (1, {0}),
    ("prod", 0, "f16", "f16", "ND"): (4, {3}), ("prod", 0, "f16", "f16", "DN"): (1, {0}),
    ("prod", 0, "f16", "f32", "ND"): (4, {1, 2, 3}), ("prod", 0, "f16", "f32", "DN"): (1, {0}),
    ("prod", 1, "f16", "f16", "ND"): (8, {4, 6, 7}), ("prod", 1, "f16", "f32", "ND"): (2, {1}),
    ("prod", 1, "f32", "f16", "ND"): (2, {0, 1}), ("prod", 0, "f32", "f16", "ND"): (4, {2, 3}),  # cast first, PTO67
}


def _sequential_x86(kind: str, bits: np.ndarray, src: DType, dst: DType, axis: int, acc_f32: bool,
                    layout: str = "ND", loop_src: DType | None = None) -> np.ndarray:
    """:func:`sequential` without flushing, NaN payloads as x86-64 carries them (f32 lanes between steps).
    f32 into f32: :func:`tilesim.pto.jit.sequential`, with :func:`_sequential_x86_loop` only for the lines whose
    result is NaN."""
    if src.name == dst.name == "f32" and (loop_src is None or loop_src.name == "f32"):
        return _by_lines(bits, axis, lambda *a: jit.sequential(kind == "prod", *a, axis),
                         lambda sub: _sequential_x86_loop(kind, sub, src, dst, axis, acc_f32, layout, loop_src))
    return _sequential_x86_loop(kind, bits, src, dst, axis, acc_f32, layout, loop_src)


def _sequential_x86_loop(kind: str, bits: np.ndarray, src: DType, dst: DType, axis: int, acc_f32: bool,
                         layout: str = "ND", loop_src: DType | None = None) -> np.ndarray:
    """:func:`_sequential_x86`'s reference: the loop over the reduced axis, each step vectorised over lines."""
    x = nx.as_f32(bits, src).view(np.uint32)
    if src.name != "f32":  # a widened NaN keeps its payload (numpy's widening does), quieted by the first op
        x = np.where(nx.is_nan(bits, src), _to_lanes(bits, src, _F32), x)
    line = (lambda i: x[:, i]) if axis == 1 else (lambda i: x[i, :])
    acc = np.full(x.shape[1 - axis], np.float32(0.0 if kind == "sum" else 1.0)).view(np.uint32)
    step_round = not acc_f32 and dst.name != "f32"
    fn = np.add if kind == "sum" else np.multiply
    n = bits.shape[axis]
    gxx = (src.name, dst.name, (loop_src or src).name)  # with bf16, g++'s code: the accumulator first (PTO78)
    unroll, swapped = _X86_ORDER.get((kind, axis, (loop_src or src).name, dst.name, layout),
                                     (1, frozenset({0}) if step_round and "bf16" not in gxx else ()))
    with np.errstate(all="ignore"):
        for i in range(n):
            xi = line(i)
            r = fn(acc.view(np.float32), xi.view(np.float32)).view(np.uint32)
            x_first = i < n // unroll * unroll and i % unroll in swapped
            acc = nx.x86_nans(r, acc, xi, _F32, b_first=x_first)
            if step_round:
                acc = _to_lanes(_to_lanes(acc, _F32, dst), dst, _F32)
    return _to_lanes(acc, _F32, dst)


def _by_lines(bits: np.ndarray, axis: int, kernel, exact) -> np.ndarray:
    """f32 lanes of a reduce of f32 lanes along ``axis`` by a numba ``kernel(flat, row step, out, R, C) -> any
    NaN``; the lines whose result is NaN (whose payload the operand order decides), and every line where the rows
    are not contiguous, come from ``exact`` (the reference loop) applied to those lines only."""
    flat = jit.rows(bits.view(np.float32), bits.shape)
    if flat is None:
        return exact(bits)
    out = np.empty(bits.shape[1 - axis], np.float32)
    if not kernel(flat[0], flat[1], out, *bits.shape):
        return out.view(np.uint32)
    lines = np.flatnonzero(np.isnan(out))
    out = out.view(np.uint32)
    out[lines] = exact(np.take(bits, lines, axis=1 - axis))
    return out


def _vectorised_rowsum(bits: np.ndarray) -> np.ndarray:
    """:func:`_vectorised_rowsum_exact` by :func:`tilesim.pto.jit.rowsum`, the loop only for rows summing to NaN."""
    return _by_lines(bits, 1, jit.rowsum, _vectorised_rowsum_exact)


def _vectorised_rowsum_exact(bits: np.ndarray) -> np.ndarray:
    """TROWSUM of an ND source (f32 lanes) as the CPU simulator's vectorised loop adds (PTO91): two 4-lane partial
    sums over each 8 columns, added, the 4 lanes summed in order, then the remaining columns one by one.
    NaN payloads follow each step's operand order in clang's code (:data:`_ROWSUM_FIRST`, PTO70)."""
    rows, n = bits.shape
    m = n // 8 * 8
    body, combine, lanes, tail = _ROWSUM_FIRST

    def add(a, b, b_first):
        with np.errstate(all="ignore"):
            r = (a.view(np.float32) + b.view(np.float32)).view(np.uint32)
        return nx.x86_nans(r, a, b, _F32, b_first=b_first)

    acc = np.zeros(rows, np.uint32)
    if m:
        p = bits[:, :m].reshape(rows, m // 8, 2, 4)
        parts = np.zeros((rows, 2, 4), np.uint32)
        for k in range(m // 8):
            parts = add(parts, p[:, k], body)
        v = add(parts[:, 0], parts[:, 1], combine)
        acc = add(add(add(v[:, 0], v[:, 1], lanes), v[:, 2], lanes), v[:, 3], lanes)
    for j in range(m, n):
        acc = add(acc, bits[:, j], tail)
    return acc


#: whether the element (not the partial sum) is the first operand in each step of the vectorised
#: TROWSUM: the 8-column body, the two halves' sum, the lanes' sum, the remainder
_ROWSUM_FIRST = (False, True, True, False)


def _to_lanes(bits: np.ndarray, s: DType, d: DType) -> np.ndarray:
    """A C++ float cast of float lanes (nearest even; NaN payloads kept, quieted); to the same type: ``bits``."""
    return bits if s == d else convert_cpu.cast(bits, s, d)[0]


# ------------------------------------------------------------- row family
def _row_reduce(name: str, dst: Tile, src: Tile, tmp, target) -> Tile:
    op = Op(name, target)

    def checks():
        op.tile(src, "src")
        op.tile(dst, "dst")
        op.layout(src, "src", ("ND",), "ND (row_major, none_box)")
        op.layout(dst, "dst", _ROW_DST, _ROW_DST_WHAT)
        op.dtypes(name, (src.dtype, dst.dtype), ("src", "dst"))
        op.tmp(tmp, src)
        if name in ("trowmax", "trowmin") and dst.dtype == src.dtype:
            return _small_line(op.prof, name[4:], True, src, (dst,), False)
        return None
    code = op.static((src, dst, tmp), checks)
    if op.prof.empty_reduce_cpu and 0 in src.valid:
        op.rows_match(src, dst, "dst", "src")
        if name != "trowmin":  # TRowMin returns early; the others' loops run
            dst.bits[: src.valid_rows, 0] = _empty_lines(name, src.bits[: src.valid_rows, 0], src.dtype, dst.dtype)
        return dst
    op.nonzero(src, "src")
    op.rows_match(src, dst, "dst", "src")
    if code is not None and small_f32.lines(code, src.bits, *src.valid, dst.bits, dst.bits):
        return dst
    bits, sdt, undefined = src.valid_bits, src.dtype, None
    pair = (sdt.name, dst.dtype.name)
    if pair in _CAST_FIRST and not (name == "trowprod" and pair in _UNROUNDED):  # cpu only (PTO67)
        bits, undefined = convert_cpu.cast(bits, sdt, dst.dtype)
        convert_cpu.refuse_undefined(op, undefined, src.valid_bits, sdt, dst.dtype)
        sdt = dst.dtype
    f = op.prof.flush_denormals
    if name in ("trowmax", "trowmin"):
        out = _convert_exact(line_extremes(bits, sdt, name[4:], op.prof.nan_mode, 1), sdt, dst.dtype)
    elif name == "trowsum" and op.prof.x86_nans and src.is_nd and sdt.name in ("f32", "f16"):
        out = _to_lanes(_vectorised_rowsum(_to_lanes(bits, sdt, _F32)), _F32, dst.dtype)
    else:
        out = sequential(name[4:], bits, sdt, dst.dtype, 1, f, acc_f32=name == "trowsum",
                         x86=op.prof.x86_nans, layout="ND" if src.is_nd else "DN", cast_from=src.dtype)
    dst.bits[: src.valid_rows, 0] = out
    if undefined is not None:
        dst.mark_undefined((slice(0, src.valid_rows), 0), undefined.any(axis=1))
    return dst


def _convert_exact(lanes: np.ndarray, src: DType, dst: DType) -> np.ndarray:
    """Widen lanes exactly (the CPU reference's mixed max/min); same dtype: unchanged."""
    if src is dst or src == dst:
        return lanes
    return convert_cpu.cast(lanes, src, dst)[0]


def _empty_lines(name: str, first: np.ndarray, src: DType, dst: DType) -> np.ndarray:
    """What the CPU simulator's reduce loops give for empty lines: +0, 1, or the line's first element."""
    kind = name[4:]
    if kind in ("max", "min"):
        return _convert_exact(first, src, dst)
    one = formats.encode(np.array([0.0 if kind == "sum" else 1.0]), dst.format)[0]
    return np.full(first.shape, one, dst.lane)


def trowsum(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TROWSUM: ``dst[i, 0] = sum_j src[i, j]`` over the valid region, sequentially in j.

    src: vec, ND. dst: vec, ND or DN with one column; ``dst.vr == src.vr``.
    f16/bf16 accumulate in f32 and round once; f32 adds in f32; integers wrap.
    tmp: optional scratch, never written by the simulator, size not checked.

    Raises: ``pto.op.layout``, ``pto.op.dtype``, ``pto.op.valid_nonzero``, ``pto.op.rows_match``.

    >>> src = Tile.from_array(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    >>> dst = Tile("vec", "f32", 2, 8, valid=(2, 1))
    >>> trowsum(dst, src).valid_values.ravel().tolist()
    [6.0, 15.0]
    """
    return _row_reduce("trowsum", dst, src, tmp, target)


def trowmax(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TROWMAX: ``dst[i, 0] = max_j src[i, j]``; first of equal values wins; NaN per the target's nan_mode.

    Constraints as :func:`trowsum`.
    """
    return _row_reduce("trowmax", dst, src, tmp, target)


def trowmin(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TROWMIN: ``dst[i, 0] = min_j src[i, j]``; as :func:`trowmax`."""
    return _row_reduce("trowmin", dst, src, tmp, target)


def trowprod(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TROWPROD: ``dst[i, 0] = prod_j src[i, j]`` from 1, rounding to the dtype after each product."""
    return _row_reduce("trowprod", dst, src, tmp, target)


# ---------------------------------------------------------- column family
def _col_reduce(name: str, dst: Tile, src: Tile, tmp, target, is_binary: bool = False) -> Tile:
    op = Op(name, target)

    def checks():
        op.tile(src, "src")
        op.tile(dst, "dst")
        op.layout(src, "src", ("ND",), "ND (row_major, none_box)")
        op.layout(dst, "dst", ("ND",), "ND (row_major, none_box)")
        op.dtypes(name, (src.dtype, dst.dtype), ("src", "dst"))
        op.tmp(tmp, src)
    op.static((src, dst, tmp), checks)
    op.cols_match(src, dst, "dst", "src")
    if op.prof.empty_reduce_cpu and 0 in src.valid:
        if name != "tcolmin":  # TColMin returns early; the others' loops run
            dst.bits[0, : src.valid_cols] = _empty_lines(name, src.bits[0, : src.valid_cols], src.dtype, dst.dtype)
        return dst
    if op.zero_noop(src):
        return dst
    op.nonzero(src, "src")
    bits = src.valid_bits
    f = op.prof.flush_denormals
    if (src.dtype.name, dst.dtype.name) in _CAST_FIRST:  # cpu only (PTO67)
        out, undefined = _cast_first_cols(op, name, bits, src.dtype, dst.dtype)
        dst.bits[0, : src.valid_cols] = out
        dst.mark_undefined((0, slice(0, src.valid_cols)), undefined)
        return dst
    if name in ("tcolmax", "tcolmin"):
        out = _convert_exact(line_extremes(bits, src.dtype, name[4:], op.prof.nan_mode, 0), src.dtype, dst.dtype)
    elif is_binary and op.prof.colsum_pairwise:
        out = _pairwise_sum(bits, src.dtype, dst.dtype, f)
    else:
        out = sequential(name[4:], bits, src.dtype, dst.dtype, 0, f, acc_f32=False, x86=op.prof.x86_nans,
                         layout="ND" if src.is_nd else "DN")
    dst.bits[0, : src.valid_cols] = out
    return dst


def _cast_first_cols(op: Op, name: str, bits: np.ndarray, s: DType, d: DType) -> tuple[np.ndarray, np.ndarray]:
    """TCOLPROD and TCOLMIN into a dtype that is not a widening, as the CPU simulator's loops run (PTO67):
    the product multiplies ``static_cast<D>(x)``; the min starts from ``D(src[0])`` and takes ``D(x)`` where
    ``x < min`` in the pair's common type. Returns dst's lanes and which came from an undefined cast."""
    lanes, undefined = convert_cpu.cast(bits, s, d)
    if name == "tcolprod" and (s.name, d.name) in _UNROUNDED:
        return sequential("prod", bits, s, d, 0, False, acc_f32=False, x86=True), undefined.any(axis=0)
    if name == "tcolprod":
        convert_cpu.refuse_undefined(op, undefined, bits, s, d)
        return sequential("prod", lanes, d, d, 0, False, acc_f32=False, x86=True, cast_from=s), undefined.any(axis=0)
    ks, kd = _common_key(bits, s, d), _common_key(lanes, d, s)
    cur, out, taken = kd[0], lanes[0], np.zeros(bits.shape, bool)
    taken[0] = True
    with np.errstate(invalid="ignore"):
        for i in range(1, bits.shape[0]):
            taken[i] = ks[i] < cur
            cur, out = np.where(taken[i], kd[i], cur), np.where(taken[i], lanes[i], out)
    convert_cpu.refuse_undefined(op, undefined & taken, bits, s, d)  # each cast the loop ran
    return out, (undefined & taken).any(axis=0)


def _common_key(bits: np.ndarray, t: DType, other: DType) -> np.ndarray:
    """Values of ``t`` lanes in the common type of a C++ comparison with ``other`` (C's usual arithmetic
    conversions): f32 keys if either is a float (clang computes f16 in f32, so an integer converts to f32);
    else ints promoted to int, the signedness and width the rules give (an unsigned type at least as wide wins)."""
    if t.is_float or other.is_float:
        return nx.as_f32(bits if t.is_float else convert_cpu.cast(bits, t, _F32)[0], t if t.is_float else _F32)
    size = {x: np.dtype(x.lane).itemsize for x in (t, other)}
    (bt, st), (bo, so) = ((max(8 * size[x], 32), x.name[0] == "i" or size[x] < 4) for x in (t, other))
    if st == so:
        signed, width = st, max(bt, bo)
    else:
        ub, sb = (bo, bt) if st else (bt, bo)
        signed, width = ub < sb, max(ub, sb)
    v = nx.int_view(bits, t)
    if signed:
        return v.astype(np.int64)
    return v.astype(np.int64).astype(np.uint64) if width == 64 else (v.astype(np.int64) % (1 << 32)).astype(np.uint64)


def _pairwise_sum(bits: np.ndarray, src: DType, dst: DType, flush: bool) -> np.ndarray:
    """TCOLSUM isBinary: rows summed in adjacent pairs, level by level; an odd last row moves up unchanged."""
    if src.is_int:  # modular sums do not depend on the order
        return sequential("sum", bits, src, dst, 0, flush, acc_f32=False)
    rows = [_convert_exact(bits[i], src, dst) for i in range(bits.shape[0])]
    while len(rows) > 1:
        nxt = [nx.binary("add", rows[i], rows[i + 1], dst, flush=flush) for i in range(0, len(rows) - 1, 2)]
        if len(rows) % 2:
            nxt.append(rows[-1])
        rows = nxt
    return nx.binary("add", np.zeros_like(rows[0]), rows[0], dst, flush=flush)


def tcolsum(dst: Tile, src: Tile, tmp: Tile | None = None, *, is_binary: bool = False, target=None) -> Tile:
    """TCOLSUM: ``dst[0, j] = sum_i src[i, j]``, sequentially in i from +0, rounding to dst's dtype each step.

    ``is_binary`` selects the pairwise-tree path of the 4-argument form (float
    dtypes; integer sums are exact modulo 2**bits either way). ND -> ND;
    ``src.vc == dst.vc``; an empty valid region returns without writing.
    """
    return _col_reduce("tcolsum", dst, src, tmp, target, is_binary)


def tcolmax(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TCOLMAX: ``dst[0, j] = max_i src[i, j]``; ties keep the lowest row; NaN per nan_mode."""
    return _col_reduce("tcolmax", dst, src, tmp, target)


def tcolmin(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TCOLMIN: ``dst[0, j] = min_i src[i, j]``."""
    return _col_reduce("tcolmin", dst, src, tmp, target)


def tcolprod(dst: Tile, src: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
    """TCOLPROD: ``dst[0, j] = prod_i src[i, j]``, rounding to dst's dtype after each product."""
    return _col_reduce("tcolprod", dst, src, tmp, target)


# -------------------------------------------------------------- arg ops
def _row_arg(name: str, dst_idx: Tile, src: Tile, tmp, dst_val: Tile | None, target):
    op = Op(name, target)

    def checks():  # they read only the operands' types and valid regions (Tile.key)
        op.tile(src, "src")
        op.tile(dst_idx, "dst_idx")
        op.layout(src, "src", ("ND",), "ND (row_major, none_box)")
        if dst_val is not None:
            op.tile(dst_val, "dst_val")
            op.same_dtype(src, dst_val, "dst_val", "src")
        op.dtypes("trowarg_val" if dst_val is not None else "trowarg", (src.dtype, dst_idx.dtype),
                  ("src", "dst_idx"))
        op.tmp(tmp, src)
        op.layout(dst_idx, "dst_idx", ("DN1", "ND_VC1"), "DN with one column, or ND with one valid column")
        if dst_val is not None:
            op.layout(dst_val, "dst_val", ("DN1", "ND_VC1"), "DN with one column, or ND with one valid column")
        op.nonzero(src, "src")
        op.rows_match(src, dst_idx, "dst_idx", "src")
        if dst_val is not None:
            op.rows_match(src, dst_val, "dst_val", "src")
    op.static((src, dst_idx, dst_val, tmp), checks)
    idx, val = extreme(src.valid_bits, src.dtype, name[-3:], op.prof.nan_mode, 1, need_value=dst_val is not None)
    idx_lanes = _index_lanes(idx, dst_idx.dtype, op, src.valid_cols)
    dst_idx.bits[: src.valid_rows, 0] = idx_lanes
    if dst_val is not None:
        dst_val.bits[: src.valid_rows, 0] = val
        return dst_val, dst_idx
    return dst_idx


def _index_lanes(idx: np.ndarray, dt: DType, op: Op, below: int | None = None) -> np.ndarray:
    """Index lanes of ``dt``: a plain cast when every index fits (the common case), else to_bits' range error.
    ``below``: a bound every index is known to lie under (then no pass over the indices checks them)."""
    if (below is not None and below - 1 <= dt.format.int_max) or (idx.size and int(idx.max()) <= dt.format.int_max):
        return idx.astype(dt.np).view(dt.lane)
    return to_bits(idx, dt, what=op.inst)


def trowargmax(dst_idx: Tile, src: Tile, tmp: Tile | None = None, *, dst_val: Tile | None = None, target=None):
    """TROWARGMAX: ``dst_idx[i, 0]`` = the lowest column index of row i's maximum.

    Index-only mode (``dst_val=None``) or value+index mode (``dst_val`` gets the
    maximum, with src's dtype). src: vec ND. dst_idx/dst_val: DN with one column,
    or ND with one valid column; valid rows equal src's. Index dtypes: i32/u32
    (A2A3 value+index with an f16 source also i16/u16).

    Returns: ``dst_idx``, or ``(dst_val, dst_idx)``.

    >>> src = Tile.from_array(np.array([[1, 7, 7, 2]], np.float32))
    >>> idx = Tile("vec", "i32", 1, 8, valid=(1, 1))
    >>> int(trowargmax(idx, src).valid_values[0, 0])
    1
    """
    return _row_arg("trowargmax", dst_idx, src, tmp, dst_val, target)


def trowargmin(dst_idx: Tile, src: Tile, tmp: Tile | None = None, *, dst_val: Tile | None = None, target=None):
    """TROWARGMIN: the lowest column index of each row's minimum; as :func:`trowargmax`."""
    return _row_arg("trowargmin", dst_idx, src, tmp, dst_val, target)


def _small_line(prof, kind: str, along_rows: bool, src: Tile, outs: tuple, want_idx: bool) -> int | None:
    """:func:`.small_f32.lines`' code when a max/min reduce or arg op takes it: a small f32 source and outputs
    whose lanes are C-contiguous, 4-byte lanes out, the ``first`` rule (the strict-compare scan is then every
    line's answer without a NaN); ``outs`` are the index tile then the value tile (or the value tile alone)."""
    ok = (src.dtype.name == "f32" and prof.nan_mode == "first" and all(t.dtype.size == 4 for t in outs)
          and src.rows * src.cols <= small_f32.SMALL
          and all(t.blayout == "row_major" or t.is_boxed or t.cols == 1 for t in (src, *outs)))
    want_val = len(outs) == 2 or not want_idx
    return small_f32.line_code(kind, along_rows, want_idx, want_val) if ok else None


def _col_arg(name: str, dst_idx: Tile, src: Tile, tmp, dst_val: Tile | None, target):
    op = Op(name, target)
    prof = op.prof

    def checks():
        op.tile(src, "src")
        op.tile(dst_idx, "dst_idx")
        op.layout(src, "src", ("NONEBOX",), "ND or DN (none_box)")
        op.layout(dst_idx, "dst_idx", ("ND",), "ND (row_major, none_box)")
        if dst_val is not None:
            op.tile(dst_val, "dst_val")
            op.layout(dst_val, "dst_val", ("ND",), "ND (row_major, none_box)")
            op.same_dtype(src, dst_val, "dst_val", "src")
        op.dtypes("tcolarg_val" if dst_val is not None else "tcolarg", (src.dtype, dst_idx.dtype),
                  ("src", "dst_idx"))
        op.tmp(tmp, src)
        op.nonzero(src, "src")
        if dst_idx.valid_rows != 1:
            op.fail(f"must have exactly 1 valid row, not {dst_idx.valid_rows}", "dst_idx", "pto.op.dst_rows",
                    dst_idx.valid_rows)
        op.cols_match(src, dst_idx, "dst_idx", "src")
        if dst_val is not None:
            if dst_val.valid_rows != 1:
                op.fail(f"must have exactly 1 valid row, not {dst_val.valid_rows}", "dst_val", "pto.op.dst_rows",
                        dst_val.valid_rows)
            op.cols_match(src, dst_val, "dst_val", "src")
        if prof.int16_row_counter and src.dtype.size == 2 and src.valid_rows > 32767:
            op.fail(f"{prof.name} counts rows of 2-byte sources in int16: at most 32767 valid rows", "src",
                    "pto.a2a3.row_counter", src.valid_rows, UnsupportedError)
        return _small_line(prof, name[-3:], False, src, (dst_idx,) if dst_val is None else (dst_idx, dst_val),
                           True)
    code = op.static((src, dst_idx, dst_val, tmp), checks)
    R, C = src.valid
    if code is not None and small_f32.lines(code, src.bits, R, C, dst_idx.bits,
                                            dst_idx.bits if dst_val is None else dst_val.bits):
        return dst_idx if dst_val is None else (dst_val, dst_idx)
    two_byte = src.dtype.size == 2
    kind = name[-3:]
    float_view = prof.colarg_unsigned_as_float
    # A2A3 (propagate): !(old >= new) is true once a NaN is involved, so every later row takes the index.
    idx, val = extreme(src.valid_bits, src.dtype, kind, prof.nan_mode, 0, float_view=float_view,
                       nan_index_last=True, need_value=dst_val is not None)
    below = src.valid_rows
    if prof.colarg_f16_index and two_byte and dst_val is None:
        # A2A3 half index-only path: s16 -> f16 (round half away) -> s32; exact only up to 2048.
        idx = formats.decode(formats.encode(idx.astype(np.int64), "fp16", rounding="rmm"), "fp16").astype(np.int64)
        below = None  # rounding can carry an index past the last row
    idx_lanes = _index_lanes(idx, dst_idx.dtype, op, below)
    dst_idx.bits[0, : src.valid_cols] = idx_lanes
    if dst_val is not None:
        dst_val.bits[0, : src.valid_cols] = val
        return dst_val, dst_idx
    return dst_idx


def tcolargmax(dst_idx: Tile, src: Tile, tmp: Tile | None = None, *, dst_val: Tile | None = None, target=None):
    """TCOLARGMAX: ``dst_idx[0, j]`` = the lowest row index of column j's maximum.

    Index-only (``dst_val=None``) or value+index mode. src: vec, ND or DN.
    dst_idx/dst_val: vec ND, one valid row, ``vc == src.vc``. Index dtypes:
    index-only i32/u32; value+index i16/u16 for 2-byte sources, i32/u32 for
    4-byte ones (CPU: i32/u32 always). A2A3 quirks (profile): u16/u32 compared
    as f16/f32 bits, f16 index-only indices rounded through f16 (exact to
    2048), at most 32767 rows for 2-byte sources, NaN drifts the index to the
    last row. ``tmp`` is optional scratch (A2A3: must have src's dtype).

    Returns: ``dst_idx``, or ``(dst_val, dst_idx)``.

    >>> src = Tile.from_array(np.array([[1, 9], [5, 9], [5, 2]], np.float32))
    >>> idx = Tile("vec", "u32", 1, 8, valid=(1, 2))
    >>> tcolargmax(idx, src).valid_values.tolist()
    [[1, 0]]
    """
    return _col_arg("tcolargmax", dst_idx, src, tmp, dst_val, target)


def tcolargmin(dst_idx: Tile, src: Tile, tmp: Tile | None = None, *, dst_val: Tile | None = None, target=None):
    """TCOLARGMIN: the lowest row index of each column's minimum; as :func:`tcolargmax`."""
    return _col_arg("tcolargmin", dst_idx, src, tmp, dst_val, target)

