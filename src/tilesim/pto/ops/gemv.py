"""TGEMV, TGEMV_ACC, TGEMV_BIAS and TGEMV_MX (with its acc and bias forms): one row of A times B (decision
PTO135; docs/isa/TGEMV.md, TGEMV_MX.md).

pto-isa's CPU simulator runs each as the TMATMUL op of the same form (include/pto/cpu/TMatmul.hpp:
``TGEMV_IMPL`` calls ``TMATMUL_IMPL`` ...), so on ``cpu`` M is a's valid rows like TMATMUL's. The NPUs' pages
fix M = 1: a's valid rows must be 1 there (rule ``pto.tgemv.m``). Every other check and the arithmetic are
TMATMUL's and TMATMUL_MX's (:mod:`.matmul`, :mod:`.matmul_mx`).
"""

from __future__ import annotations

from ..tile import Tile
from ._common import Op
from .matmul import matmul_acc_into, matmul_bias_into, matmul_into
from .matmul_mx import mx_acc_into, mx_bias_into, mx_into

__all__ = ["tgemv", "tgemv_acc", "tgemv_bias", "tgemv_mx", "tgemv_mx_acc", "tgemv_mx_bias"]


def _op(name: str, a: Tile, target) -> Op:
    op = Op(name, target)
    if not op.prof.x86_nans and a.valid_rows != 1:
        op.fail(f"{op.inst} multiplies one row: a's valid rows must be 1 on {op.prof.name}, not {a.valid_rows} "
                "(TMATMUL takes more)", "a", "pto.tgemv.m", a.valid_rows)
    return op


def tgemv(c: Tile, a: Tile, b: Tile, *, target=None) -> Tile:
    """TGEMV: ``c[0, :N] = a[0, :K] @ b[:K, :N]`` (cpu: TMATMUL over a's valid rows).

    >>> from tilesim.pto import Tile
    >>> a = Tile("left", "f32", 16, 8, blayout="col_major", slayout="row_major", valid=(1, 8))
    >>> b = Tile("right", "f32", 8, 16, slayout="col_major")
    >>> c = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
    >>> a.values[0, :8], b.values[...] = 1, 2
    >>> tgemv(c, a, b, target="a5").values[0, :3].tolist()
    [16.0, 16.0, 16.0]
    """
    return matmul_into(_op("tgemv", a, target), c, a, b)


def tgemv_acc(c: Tile, c_in: Tile, a: Tile, b: Tile, *, target=None) -> Tile:
    """TGEMV_ACC (``pto.tgemv.acc``): ``c = c_in + a @ b`` (TMATMUL_ACC's arithmetic)."""
    return matmul_acc_into(_op("tgemv_acc", a, target), c, c_in, a, b)


def tgemv_bias(c: Tile, a: Tile, b: Tile, bias: Tile, *, target=None) -> Tile:
    """TGEMV_BIAS (``pto.tgemv.bias``): ``c[0, j] = (a @ b)[0, j] + bias[0, j]`` (TMATMUL_BIAS's arithmetic)."""
    return matmul_bias_into(_op("tgemv_bias", a, target), c, a, b, bias)


def tgemv_mx(c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, *, target=None) -> Tile:
    """TGEMV_MX (``pto.tgemv.mx``): one row of TMATMUL_MX (scales per 32 along K)."""
    return mx_into(_op("tgemv_mx", a, target), c, a, a_scale, b, b_scale)


def tgemv_mx_acc(c: Tile, c_in: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, *, target=None) -> Tile:
    """TGEMV_MX with c_in: ``c = c_in + tgemv_mx(...)`` (TMATMUL_MX_ACC's arithmetic)."""
    return mx_acc_into(_op("tgemv_mx_acc", a, target), c, c_in, a, a_scale, b, b_scale)


def tgemv_mx_bias(c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, bias: Tile, *, target=None) -> Tile:
    """TGEMV_MX with bias: ``tgemv_mx(...)[0, j] + bias[0, j]`` (TMATMUL_MX_BIAS's arithmetic)."""
    return mx_bias_into(_op("tgemv_mx_bias", a, target), c, a, a_scale, b, b_scale, bias)
