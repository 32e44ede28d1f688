"""TMATMUL_MX (+ _ACC, _BIAS): the microscaled fp8 matmul, as the pto-isa CPU reference computes it.

``c[i, j] = sum_k a[i, k] * b[k, j] * (sa[i, k // 32] * sb[k // 32, j])``
(include/pto/cpu/TMatmul.hpp ``TMatmulMX``): the product of the two fp8
values and the two scales is exact in float64; each step adds it to a float32
accumulator in float64 and rounds the sum to float32 (two roundings, as the
C++ ``float += double`` does). ``_acc`` then adds ``c_in`` and ``_bias`` adds
``bias[0, j]``, each one float32 addition.

Operands are read as their formats define them (OCP E4M3 and E5M2, E8M0;
decision PTO50), so a NaN code makes the sum NaN. Both may instead be OCP
FP4 E2M1 or E1M2 with bias 1 (pto-isa's ``float4_e2m1x2_t``, ``float4_e1m2x2_t``; every code finite;
the two may mix). On ``cpu`` they are read
as the simulator's own fp8 class (include/pto/cpu/MXTypes.hpp) reads them:
every code a finite number (E4M3 0x7F = 480, E5M2 0x7C = 65536, E8M0 0xFF =
2**128; decision PTO75). Scales may be E8M0 or f16/bf16/f32 values.
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import DtypeError
from ...formats.format import Domain, Format, Kind
from .. import numerics as nx
from ..dtypes import DType
from ..tile import Tile
from ._common import Op
from .matmul import cube_operands

__all__ = ["tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias"]

_GROUP = 32
_FP8, _FP4 = ("f8e4m3", "f8e5m2"), ("f4e2m1", "f4e1m2")


#: the CPU simulator's reading of the fp8 element codes: the OCP fields with no special codes (PTO75)
_SIM_FP8 = {name: Format(name=f"{name}_sim", kind=Kind.FLOAT, bits=8, signed=True, lane_bits=8, exp_bits=e,
                         man_bits=m, bias=b, domain=Domain.FINITE)
            for name, e, m, b in (("f8e4m3", 4, 3, 7), ("f8e5m2", 5, 2, 15))}


def _values(bits: np.ndarray, dt: DType, sim: bool = False) -> np.ndarray:
    """Exact float64 values of fp8 / f16 / bf16 / f32 lanes (``sim``: fp8 and E8M0 as the CPU simulator reads
    them: E8M0 0xFF is 2**128, the other codes as the format says)."""
    if sim and dt.name in _SIM_FP8:
        return formats.decode(bits, _SIM_FP8[dt.name])
    v = bits.view(dt.np).astype(np.float64) if dt.has_view else formats.decode(bits, dt.format)
    return np.where(bits == 0xFF, 2.0 ** 128, v) if sim and dt.name == "f8e8m0" else v


def _mx(op: Op, c: Tile, a: Tile, sa: Tile, b: Tile, sb: Tile) -> tuple[np.ndarray, int, int]:
    op.tile(sa, "a_scale", None)
    op.tile(sb, "b_scale", None)
    M, K, N = cube_operands(op, c, a, b, "col_major")
    scales = ("f8e8m0", "f16", "bf16", "f32")
    elems = _FP8 if a.dtype.name in _FP8 else _FP4  # fp8 with fp8, fp4 with fp4 (the simulator's combos)
    for t, n, ok in ((a, "a", _FP8 + _FP4), (b, "b", elems), (c, "c", ("f32",)),
                     (sa, "a_scale", scales), (sb, "b_scale", scales)):
        if t.dtype.name not in ok:
            op.fail(f"{n} must be {' or '.join(ok)}, not {t.dtype}", n, "pto.op.dtype", str(t.dtype), DtypeError)
    G = -(-K // _GROUP)
    if sa.valid_rows < M or sa.valid_cols < G:
        op.fail(f"a_scale needs {M}x{G} valid scales (one per row and 32 columns of a)", "a_scale",
                "pto.tmatmul_mx.scale", sa.valid)
    if sb.valid_rows < G or sb.valid_cols < N:
        op.fail(f"b_scale needs {G}x{N} valid scales (one per 32 rows and column of b)", "b_scale",
                "pto.tmatmul_mx.scale", sb.valid)
    sim = op.prof.mx_sim_codes
    x, y = _values(a.bits[:M, :K], a.dtype, sim), _values(b.bits[:K, :N], b.dtype, sim)
    s0, s1 = _values(sa.bits[:M, :G], sa.dtype, sim), _values(sb.bits[:G, :N], sb.dtype, sim)
    acc = np.zeros((M, N), np.float32)
    with np.errstate(all="ignore"):
        for k in range(K):
            g = k // _GROUP
            p = x[:, k:k + 1] * y[k:k + 1, :] * _scale_product(s0[:, g:g + 1], s1[g:g + 1, :], sa.dtype, sb.dtype, sim)
            acc = (acc.astype(np.float64) + p).astype(np.float32)
    return acc, M, N


def _scale_product(s0: np.ndarray, s1: np.ndarray, t0: DType, t1: DType, sim: bool) -> np.ndarray:
    """``sa * sb`` in float64: exact, or (cpu, two float scales) rounded to the wider scale type, as the
    simulator's C++ ``half * half`` / ``float * float`` is (PTO75)."""
    p = s0 * s1
    if not sim or "f8e8m0" in (t0.name, t1.name):
        return p
    wide = t0 if t0.size >= t1.size else t1
    return _values(nx.from_f64(p, wide, flush=False), wide)


def _finish(op: Op, c: Tile, acc: np.ndarray, M: int, N: int, other: np.ndarray | None = None,
            other_first: bool = True) -> Tile:
    """Write the sums; with ``other`` (c_in: ``c_in + sum``; bias: ``sum + bias``) one float32 addition, its
    NaNs on ``cpu`` as x86-64 gives them (the default NaN for Inf - Inf; PTO75)."""
    r = acc.view(np.uint32) if op.prof.x86_nans else nx.from_f32(acc, c.dtype, flush=False)  # cpu: x86's NaNs
    if other is not None:
        a, b = (other, r) if other_first else (r, other)
        r = nx.binary("add", a, b, c.dtype, instruction=op.inst, x86=op.prof.x86_nans)
    c.bits[:M, :N] = r
    return c


def tmatmul_mx(c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, *, target=None) -> Tile:
    """TMATMUL_MX (``pto.tmatmul.mx``): ``c = (a * a_scale) @ (b * b_scale)`` with one scale per 32 along K.

    a, b: f8E4M3/f8E5M2 (or f4e2m1/f4e1m2, fp4 with fp4) left/right tiles; c: f32 acc; scales E8M0 (or f16/bf16/f32).
    Rules: ``pto.op.loc``, ``pto.op.layout``, ``pto.op.dtype``, ``pto.tmatmul.shape``,
    ``pto.op.range``, ``pto.tmatmul_mx.scale`` (a scale tile too small).
    """
    return mx_into(Op("tmatmul_mx", target), c, a, a_scale, b, b_scale)


def mx_into(op: Op, c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile) -> Tile:
    """TMATMUL_MX's work under ``op`` (TGEMV_MX shares it)."""
    return _finish(op, c, *_mx(op, c, a, a_scale, b, b_scale))


def tmatmul_mx_acc(c: Tile, c_in: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, *, target=None) -> Tile:
    """TMATMUL_MX_ACC (``pto.tmatmul.mx.acc``): ``c = c_in + tmatmul_mx(...)`` (one float32 addition)."""
    return mx_acc_into(Op("tmatmul_mx_acc", target), c, c_in, a, a_scale, b, b_scale)


def mx_acc_into(op: Op, c: Tile, c_in: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile) -> Tile:
    """TMATMUL_MX_ACC's work under ``op`` (TGEMV_MX_ACC shares it)."""
    op.tile(c_in, "c_in", "acc")
    op.same_dtype(c, c_in, "c_in", "c")
    acc, M, N = _mx(op, c, a, a_scale, b, b_scale)
    if c_in.valid_rows < M or c_in.valid_cols < N:
        op.fail(f"c_in needs {M}x{N} valid elements", "c_in", "pto.tmatmul.acc_in", c_in.valid)
    return _finish(op, c, acc, M, N, c_in.bits[:M, :N])


def tmatmul_mx_bias(c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, bias: Tile, *, target=None) -> Tile:
    """TMATMUL_MX_BIAS (``pto.tmatmul.mx.bias``): ``tmatmul_mx(...)[i, j] + bias[0, j]`` (f32 bias tile, one row)."""
    return mx_bias_into(Op("tmatmul_mx_bias", target), c, a, a_scale, b, b_scale, bias)


def mx_bias_into(op: Op, c: Tile, a: Tile, a_scale: Tile, b: Tile, b_scale: Tile, bias: Tile) -> Tile:
    """TMATMUL_MX_BIAS's work under ``op`` (TGEMV_MX_BIAS shares it)."""
    op.tile(bias, "bias", "bias")
    op.same_dtype(c, bias, "bias", "c")
    acc, M, N = _mx(op, c, a, a_scale, b, b_scale)
    if bias.rows != 1 or bias.valid_cols < N:
        op.fail(f"bias must be one row with {N} valid columns", "bias", "pto.tmatmul.bias", bias.describe())
    return _finish(op, c, acc, M, N, np.broadcast_to(bias.bits[:1, :N], (M, N)), other_first=False)
