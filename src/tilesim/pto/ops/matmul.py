"""TMATMUL: Left x Right -> Acc on the cube unit.

``C[i, j] = sum_k A[i, k] * B[k, j]`` for ``i < M = A.vr``, ``k < K = A.vc``,
``j < N = B.vc``. The accumulation model is the CPU reference's on every
target (the cube's internal order is not published; decision PTO12): for a
float accumulator, a sequential chain of fused multiply-adds in float32 from
+0, ``acc = fma(a, b, acc)``, one rounding per step; for int32, the exact
integer sum (wrapping modulo 2**32).

Exactness of the float path: ``a * b`` is exact in float64 (at most 48
significant bits); ``s = p + acc`` in float64 and its exact error by
TwoSum; the sum is then rounded to odd at 53 bits (the last bit set when the
error is non-zero) and converted to float32. Rounding to odd at p+2 or more
bits and then to nearest at p bits equals rounding the exact value once, so
each step is exactly ``fma`` in float32.
"""

from __future__ import annotations

import numpy as np

from .. import numerics as nx
from ..tile import Tile
from ..dtypes import get_dtype
from . import convert_cpu
from ._common import Op

__all__ = ["tmatmul", "tmatmul_acc", "tmatmul_bias", "fma32"]

_MAX = 4095


def fma32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (a, b, c float32 arrays; broadcasting)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    cc = c.astype(np.float64)
    with np.errstate(all="ignore"):
        s = p + cc
        bp = s - cc
        err = (p - bp) + (cc - (s - bp))  # TwoSum: s + err == p + c exactly (finite s)
    bits = s.view(np.int64)
    inexact = (err != 0) & np.isfinite(s)
    toward_zero = inexact & ((err < 0) != (s < 0))
    bits = np.where(toward_zero, bits - 1, bits)  # truncate toward zero at 53 bits
    bits = np.where(inexact, bits | 1, bits)        # ... and round to odd
    return bits.view(np.float64).astype(np.float32)


def cube_operands(op: Op, c: Tile, a: Tile, b: Tile, left_blayout: str | None) -> tuple[int, int, int]:
    """Check the acc/left/right tiles of a cube op (locations, layouts, chained shapes, sizes); return M, K, N.

    left_blayout: the Left tile's required block layout, or None for either.
    """
    op.tile(c, "c", "acc")
    op.tile(a, "a", "left")
    op.tile(b, "b", "right")
    lb = left_blayout
    if a.slayout != "row_major" or (lb is not None and a.blayout != lb):
        op.fail(f"left tile needs blayout {lb or 'row_major or col_major'} and slayout row_major, not "
                f"{a.layouts}; declare it !pto.tile_buf<loc=left, dtype=T, rows=M, cols=K, "
                f"blayout={lb or 'col_major'}, slayout=row_major, fractal=512> (PTOAS gives a loc=left tile_buf the "
                "target's block layout, decision PTO35) and TMOV or TEXTRACT it from a mat tile",
                "a", "pto.op.layout", a.layout)
    if not (b.blayout == "row_major" and b.slayout == "col_major"):
        op.fail(f"right tile needs blayout row_major and slayout col_major, not {b.layouts}; declare "
                "it !pto.tile_buf<loc=right, dtype=T, rows=K, cols=N, blayout=row_major, slayout=col_major, "
                "fractal=512> and TMOV or TEXTRACT it from a mat tile", "b", "pto.op.layout", b.layout)
    if not (c.blayout == "col_major" and c.slayout == "row_major"):
        op.fail(f"acc tile needs blayout col_major and slayout row_major, not {c.layouts}; declare it "
                "!pto.tile_buf<loc=acc, dtype=f32, rows=M, cols=N, blayout=col_major, slayout=row_major, "
                "fractal=1024> (i32 for i8 inputs)", "c", "pto.op.layout", c.layout)
    if a.rows != c.rows or a.cols != b.rows or b.cols != c.cols:
        op.fail(f"shapes a {a.rows}x{a.cols}, b {b.rows}x{b.cols}, c {c.rows}x{c.cols} do not chain", "a,b,c",
                "pto.tmatmul.shape", ((a.rows, a.cols), (b.rows, b.cols), (c.rows, c.cols)))
    M, K, N = a.valid_rows, a.valid_cols, b.valid_cols
    for name, v in (("M", M), ("K", K), ("N", N)):
        if not 1 <= v <= _MAX:
            op.fail(f"{name} = {v} is outside 1..{_MAX}", "a" if name != "N" else "b", "pto.op.range", v)
    return M, K, N


def _product(op: Op, c: Tile, a: Tile, b: Tile) -> tuple[np.ndarray, int, int]:
    """Check c, a, b for TMATMUL-family op ``op``; return (the product's lanes as int64 or float32, M, N)."""
    M, K, N = cube_operands(op, c, a, b, op.prof.matmul_left_blayout)
    op.dtypes("tmatmul", (c.dtype, a.dtype, b.dtype), ("c", "a", "b"))
    A, B = a.bits[:M, :K], b.bits[:K, :N]
    if c.dtype.name == "i32":
        return nx.int_view(A, a.dtype) @ nx.int_view(B, b.dtype), M, N
    x, y = nx.as_f32(A, a.dtype), nx.as_f32(B, b.dtype)
    acc = np.zeros((M, N), np.float32)
    for k in range(K):
        acc = fma32(x[:, k:k + 1], y[k:k + 1, :], acc)
    lanes = nx.from_f32(acc, c.dtype, flush=False)
    if op.prof.x86_nans:
        f32 = c.dtype
        nans = _fma_chain_nans(convert_cpu.cast(A, a.dtype, f32)[0], convert_cpu.cast(B, b.dtype, f32)[0])
        lanes = np.where(nx.is_nan(lanes, f32), nans, lanes)
    return lanes, M, N


_QUIET, _DEFAULT_NAN = np.uint32(0x00400000), np.uint32(0xFFC00000)


def _fma_chain_nans(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The NaN each lane of the CPU simulator's ``acc = fma(a, b, acc)`` chain ends with, if it ends with one
    (f32 lanes of A, B; PTO97): glibc's ``fma`` returns ``a * b + acc`` for NaN operands, so a step whose
    product is NaN (a's NaN quieted, else b's, else the default NaN for Inf x 0) replaces the accumulator's
    NaN, and a NaN accumulator survives other steps; a NaN from Inf - Inf in a sum is the default NaN."""
    f32 = get_dtype("f32")
    state = np.zeros((X.shape[0], Y.shape[1]), np.uint32)
    for k in range(X.shape[1]):
        a, b = X[:, k:k + 1], Y[k:k + 1, :]
        av, bv = a.view(np.float32), b.view(np.float32)
        invalid = (np.isinf(av) & (bv == 0)) | ((av == 0) & np.isinf(bv))
        prod = np.where(nx.is_nan(a, f32), a | _QUIET, np.where(nx.is_nan(b, f32), b | _QUIET,
                                                                 np.where(invalid, _DEFAULT_NAN, np.uint32(0))))
        state = np.where(prod != 0, prod, state)
    return np.where(state != 0, state, _DEFAULT_NAN)


def _write(c: Tile, r: np.ndarray, M: int, N: int) -> Tile:
    if c.dtype.name == "i32":
        c.bits[:M, :N] = r.astype(np.int32).view(np.uint32)
    else:
        c.bits[:M, :N] = r
    return c


def _add(op: Op, c: Tile, r: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``other + r`` in the accumulator's arithmetic (float32 rounded once; int32 wrapping); on cpu the
    NaN of ``other`` (c_in or bias) comes first, as in the simulator's ``acc + product`` (PTO97)."""
    if c.dtype.name == "i32":
        return r + nx.int_view(other, c.dtype)
    return nx.binary("add", other, r, c.dtype, instruction=op.inst, x86=op.prof.x86_nans)


def tmatmul(c: Tile, a: Tile, b: Tile, *, target=None) -> Tile:
    """TMATMUL: ``c[:M, :N] = a[:M, :K] @ b[:K, :N]`` with M, K from a's valid region and N from b's.

    Tiles: a is ``left``, b ``right``, c ``acc``; static shapes a.rows == c.rows,
    a.cols == b.rows, b.cols == c.cols (rule ``pto.tmatmul.shape``). Layouts as
    the CPU reference checks: left slayout row_major (blayout by target: A2A3
    row_major, A5 col_major), right row_major/col_major, acc col_major/row_major.
    dtypes (c, a, b): (i32, i8, i8), (f32, f16, f16), (f32, f32, f32), (f32, bf16, bf16).
    M, K, N must lie in 1..4095 (rule ``pto.op.range``).
    """
    return matmul_into(Op("tmatmul", target), c, a, b)


def matmul_into(op: Op, c: Tile, a: Tile, b: Tile) -> Tile:
    """TMATMUL's work under ``op`` (TGEMV shares it)."""
    return _write(c, *_product(op, c, a, b))


def tmatmul_acc(c: Tile, c_in: Tile, a: Tile, b: Tile, *, target=None) -> Tile:
    """TMATMUL_ACC (``pto.tmatmul.acc``): ``c = c_in + a @ b`` over M x N.

    The product is TMATMUL's (a chain of float32 FMAs from +0), then one
    float32 addition of ``c_in`` (pto-isa include/pto/cpu/TMatmul.hpp); int32
    wraps. c_in is an acc tile of c's type (rule ``pto.tmatmul.acc_in``); it may be c.
    """
    return matmul_acc_into(Op("tmatmul_acc", target), c, c_in, a, b)


def matmul_acc_into(op: Op, c: Tile, c_in: Tile, a: Tile, b: Tile) -> Tile:
    """TMATMUL_ACC's work under ``op`` (TGEMV_ACC shares it)."""
    op.tile(c_in, "c_in", "acc")
    if (c_in.dtype, c_in.rows, c_in.cols, c_in.layout) != (c.dtype, c.rows, c.cols, c.layout):
        op.fail(f"c_in must have c's type ({c.dtype} {c.rows}x{c.cols} {c.layout})", "c_in", "pto.tmatmul.acc_in",
                c_in.describe())
    r, M, N = _product(op, c, a, b)
    return _write(c, _add(op, c, r, c_in.bits[:M, :N]), M, N)


def tmatmul_bias(c: Tile, a: Tile, b: Tile, bias: Tile, *, target=None) -> Tile:
    """TMATMUL_BIAS (``pto.tmatmul.bias``): ``c[i, j] = (a @ b)[i, j] + bias[0, j]``, one float32 addition.

    bias: a ``bias`` tile with one row, row-major, of c's dtype, at least N valid
    columns (rules ``pto.op.loc``, ``pto.tmatmul.bias``, ``pto.op.same_dtype``).
    """
    return matmul_bias_into(Op("tmatmul_bias", target), c, a, b, bias)


def matmul_bias_into(op: Op, c: Tile, a: Tile, b: Tile, bias: Tile) -> Tile:
    """TMATMUL_BIAS's work under ``op`` (TGEMV_BIAS shares it)."""
    op.tile(bias, "bias", "bias")
    if bias.rows != 1 or not bias.is_row_major:
        op.fail(f"bias must be a one-row row-major tile, not {bias.rows}x{bias.cols} {bias.layout}", "bias",
                "pto.tmatmul.bias", bias.describe())
    op.same_dtype(c, bias, "bias", "c")
    r, M, N = _product(op, c, a, b)
    if bias.valid_cols < N:
        op.fail(f"bias has {bias.valid_cols} valid columns, N = {N} needed", "bias", "pto.tmatmul.bias",
                bias.valid_cols)
    return _write(c, _add(op, c, r, np.broadcast_to(bias.bits[:1, :N], (M, N))), M, N)
