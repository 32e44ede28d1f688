"""The expand family: broadcast a column or row, and the expand-binary ops.

* ``trowexpand(dst, src)``: ``dst[i, j] = src[i, 0]``; ``tcolexpand``: ``dst[i, j] = src[0, j]``
  (bit copies over dst's valid region).
* ``trowexpand{add,sub,mul,div,max,min,expdif}(dst, src0, src1, tmp=None)``:
  ``dst = src0 (op) src1`` where exactly one source has dst's valid shape
  (row-major) and the other is broadcast per row: **Mode 1** a col-major tile
  with one valid column (one value per row), or **Mode 2** a row-major tile
  with ``32 / sizeof(T)`` valid columns, read as ``b[i, j mod (32/sizeof T)]``.
  Operand order is kept, so ``sub``/``div`` with the broadcast operand first
  compute ``s_i - src1[i, j]``. The tmp overload is Mode 1 only.
* ``tcolexpand{...}(dst, src0, src1)``: ``dst[i, j] = src0[i, j] (op) src1[0, j]``.
* ``expdif`` is ``exp(a - b)``: the difference is rounded to the dtype, then exp'd
  (TSUB then TEXP, as the implementations do).
"""

from __future__ import annotations

import numpy as np

from .. import numerics as nx
from ..tile import Tile
from . import convert_cpu, small_f32
from ._common import Op

__all__ = ["trowexpand", "tcolexpand"]  # the binary ops are added below

_BINARY = ("add", "sub", "mul", "div", "max", "min", "expdif")


def _apply(kind: str, a: np.ndarray, b: np.ndarray, op: Op, dt) -> np.ndarray:
    p = op.prof
    if kind == "expdif":  # cpu: exp of the difference in double, one rounding, NaNs as x86 gives them (PTO93)
        d = nx.binary("sub", a, b, dt, flush=p.flush_denormals, instruction=op.inst, x86=p.x86_nans)
        r = nx.unary("exp", d, dt, flush=p.flush_denormals, instruction=op.inst)
        return nx.x86_nans(r, d, d, dt) if p.x86_nans else r
    return nx.binary(kind, a, b, dt, flush=p.flush_denormals, nan_mode=p.nan_mode, instruction=op.inst,
                     x86=p.x86_nans)


def _expand(name: str, dst: Tile, src: Tile, target) -> Tile:
    op = Op(name, target)

    def static():
        op.tile(dst, "dst")
        op.tile(src, "src")
        op.layout(src, "src", ("ND",), "ND (row_major, none_box)")
        op.layout(dst, "dst", ("ND",), "ND (row_major, none_box)")
        if not op.prof.expand_casts:
            op.same_dtype(dst, src, "src", "dst")
            op.dtypes(name, (dst.dtype,), ("dst",))
    op.static((dst, src), static)
    if op.prof.expand_casts:
        return _expand_cast(op, dst, src)
    if op.zero_noop(dst, src):
        return dst
    op.nonzero(src, "src")
    R, C = dst.valid
    if name == "trowexpand":  # the line copied first, as in _expand_cast
        op.rows_match(dst, src, "src", "dst")
        dst.bits[:R, :C] = src.bits[:R, :1].copy()
    else:
        op.cols_match(dst, src, "src", "dst")
        dst.bits[:R, :C] = src.bits[:1, :C].copy()
    return dst


def _expand_cast(op: Op, dst: Tile, src: Tile) -> Tile:
    """The CPU simulator's expand: any source dtype, C++-cast to dst's; src read at dst's valid rows/cols."""
    R, C = dst.valid
    if R == 0 or C == 0:
        return dst
    row = op.name == "trowexpand"
    need, have = (R, src.rows) if row else (C, src.cols)
    if need > have:
        op.fail(f"src has {have} {'rows' if row else 'cols'}; the expand reads {need} (dst's valid {need})", "src",
                "pto.op.src_capacity", (need, have))
    # the line copied first: numpy's broadcasting copy from a row of a tile's bits ran at 1.6x the time of one
    # from a fresh array (256 x 1024 f32); the copy also makes dst aliasing src safe
    line = (src.bits[:R, 0] if row else src.bits[0, :C]).copy()
    if src.dtype == dst.dtype:  # a cast to the same type: the bits, all defined
        dst.bits[:R, :C] = line[:, None] if row else line[None, :]
        dst.mark_undefined((slice(0, R), slice(0, C)), False)
        return dst
    lanes, undefined = convert_cpu.cast(line, src.dtype, dst.dtype)
    convert_cpu.refuse_undefined(op, undefined, line, src.dtype, dst.dtype)
    dst.bits[:R, :C] = lanes[:, None] if row else lanes[None, :]
    dst.mark_undefined((slice(0, R), slice(0, C)), undefined[:, None] if row else undefined[None, :])
    return dst


def trowexpand(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TROWEXPAND: ``dst[i, j] = src[i, 0]`` for the valid region of dst (bits copied).

    vec, ND; same dtype; ``src.vr == dst.vr`` and src not empty (A2A3 returns
    silently on an empty region).
    """
    return _expand("trowexpand", dst, src, target)


def tcolexpand(dst: Tile, src: Tile, *, target=None) -> Tile:
    """TCOLEXPAND: ``dst[i, j] = src[0, j]``; ``src.vc == dst.vc``."""
    return _expand("tcolexpand", dst, src, target)


def _row_binary(name: str, kind: str, dst: Tile, src0: Tile, src1: Tile, tmp, target) -> Tile:
    op = Op(name, target)

    def checks():
        """They read only the operands' types and valid regions; the plan: (src0 full?, kernel code), or None
        for an empty dst."""
        for t, n in ((dst, "dst"), (src0, "src0"), (src1, "src1")):
            op.tile(t, n)
        op.layout(dst, "dst", ("ROW_MAJOR",), "a row_major block layout")
        op.same_dtype(dst, src0, "src0", "dst")
        op.same_dtype(dst, src1, "src1", "dst")
        op.dtypes(name, (dst.dtype,), ("dst",))
        if tmp is not None:
            op.tile(tmp, "tmp", None)
        R, C = dst.valid
        if R == 0 or C == 0:
            return None
        full0 = src0.valid == dst.valid and src0.is_row_major
        full1 = src1.valid == dst.valid and src1.is_row_major
        if not (full0 or full1):
            op.fail(f"one source must be row_major with dst's valid shape {R}x{C} (src0 {src0.valid_rows}x"
                    f"{src0.valid_cols}, src1 {src1.valid_rows}x{src1.valid_cols})", "src0,src1",
                    "pto.op.expand_full", (src0.valid, src1.valid))
        ex, ex_name = (src1, "src1") if full0 else (src0, "src0")
        per_block = 32 // dst.dtype.size
        if ex.is_row_major:
            if ex.valid_cols != per_block:
                op.fail(f"a row_major broadcast operand (Mode 2) needs {per_block} valid columns (32 bytes), "
                        f"not {ex.valid_cols}; or give a col_major tile with one valid column (Mode 1), as TROWSUM "
                        f"writes: !pto.tile_buf<vec, {R}x1x{dst.dtype}, blayout=col_major>", ex_name,
                        "pto.op.expand_shape", ex.valid_cols)
            if tmp is not None:
                op.fail("the tmp overload supports only Mode 1 (a col_major operand with one column)", "tmp",
                        "pto.op.expand_tmp_mode", ex.layout)
        elif ex.valid_cols != 1:
            op.fail(f"a col_major broadcast operand (Mode 1) needs 1 valid column, not {ex.valid_cols}", ex_name,
                    "pto.op.expand_shape", ex.valid_cols)
        if ex.valid_rows != R:
            op.fail(f"the broadcast operand needs dst's {R} valid rows, not {ex.valid_rows}", ex_name,
                    "pto.op.rows_match", ex.valid_rows)
        if ex.valid_cols != 1:  # Mode 2 takes the general path
            return full0, None
        steps = ((1, 1), (1, 0)) if full0 else ((1, 0), (1, 1))  # Mode 1 reads row i, column 0
        return full0, small_f32.plan(op.prof, kind, dst, (src0, src1), *steps)
    plan = op.static((dst, src0, src1, tmp), checks)
    if plan is None:
        return dst
    full0, code = plan
    R, C = dst.valid
    if code is not None and small_f32.run(code, src0.bits, src1.bits, dst.bits, R, C):
        return dst
    ex = src1 if full0 else src0
    # Mode 1 broadcasts the column as it is; Mode 2 repeats its 32-byte row along dst's columns
    wide = ex.bits[:R, :1] if ex.valid_cols == 1 else ex.bits[:R][:, np.arange(C) % ex.valid_cols]
    a, b = (src0.bits[:R, :C], wide) if full0 else (wide, src1.bits[:R, :C])
    return _write(kind, a, b, op, dst)


def _write(kind: str, a: np.ndarray, b: np.ndarray, op: Op, dst: Tile) -> Tile:
    """dst's valid region = a (op) b: straight into dst where the f32 fast path vouches for the bits."""
    p = op.prof
    if dst.dtype.name == "f32" and not p.flush_denormals and nx.fast_f32_into(kind, a, b, dst.valid_bits,
                                                                              p.nan_mode):
        return dst
    dst.valid_bits[...] = _apply(kind, a, b, op, dst.dtype)
    return dst


def _col_binary(name: str, kind: str, dst: Tile, src0: Tile, src1: Tile, target) -> Tile:
    op = Op(name, target)

    def checks():
        """They read only the operands' types and valid regions; the plan: the kernel code, or False for an
        empty dst."""
        for t, n in ((dst, "dst"), (src0, "src0"), (src1, "src1")):
            op.tile(t, n)
            op.layout(t, n, ("ROW_MAJOR",), "a row_major block layout")
        op.same_dtype(dst, src0, "src0", "dst")
        op.same_dtype(dst, src1, "src1", "dst")
        op.dtypes(name, (dst.dtype,), ("dst",))
        if 0 in dst.valid:
            return False
        op.valid_match(dst, src0, "src0", "dst")
        op.cols_match(dst, src1, "src1", "dst")
        op.nonzero(src1, "src1")
        return small_f32.plan(op.prof, kind, dst, (src0, src1), (1, 1), (0, 1))
    code = op.static((dst, src0, src1), checks)
    if code is False:
        return dst
    R, C = dst.valid
    if code is not None and small_f32.run(code, src0.bits, src1.bits, dst.bits, R, C):
        return dst
    return _write(kind, src0.bits[:R, :C], src1.bits[:1, :C], op, dst)


def _make(fam: str, kind: str):
    name = f"t{fam}expand{kind}"
    what = {"add": "+", "sub": "-", "mul": "*", "div": "/", "max": "max", "min": "min", "expdif": "exp(a - b)"}[kind]
    if fam == "row":
        def fn(dst: Tile, src0: Tile, src1: Tile, tmp: Tile | None = None, *, target=None) -> Tile:
            return _row_binary(name, kind, dst, src0, src1, tmp, target)
        fn.__doc__ = (f"{name.upper()}: ``dst[i, j] = src0 {what} src1`` with one source broadcast per row "
                      "(Mode 1: col_major, 1 column; Mode 2: row_major, 32 bytes per row, index j mod n).\n\n"
                      "Raises: ``pto.op.expand_full``, ``pto.op.expand_shape``, ``pto.op.expand_tmp_mode``, "
                      "``pto.op.rows_match``, ``pto.op.dtype``.")
    else:
        def fn(dst: Tile, src0: Tile, src1: Tile, *, target=None) -> Tile:
            return _col_binary(name, kind, dst, src0, src1, target)
        fn.__doc__ = (f"{name.upper()}: ``dst[i, j] = src0[i, j] {what} src1[0, j]``; src0 has dst's valid "
                      "shape, src1 dst's valid columns; all row_major.")
    fn.__name__ = fn.__qualname__ = name
    return fn


for _fam in ("row", "col"):
    for _kind in _BINARY:
        _f = _make(_fam, _kind)
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
