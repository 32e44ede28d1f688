"""TQUANT's MX forms (PTO145) against a scalar oracle written from docs/isa/TQUANT.md's algorithm and the
simulator's stated rules (Python floats and ints, one group at a time; E4M3 and E2M1 by searching every code),
and their refusals."""

from __future__ import annotations

import math
import struct
from functools import lru_cache

import ml_dtypes
import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import GeometryError, SpecGapError, TilesimError
from tilesim.pto import Tile

from .helpers import seed

E4M3 = [float(v) for v in np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)]
E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def nearest(value: float, table: list[float], codes) -> int:
    """The code whose value is nearest, ties to the even code, then the lower code."""
    return min(codes, key=lambda c: (abs(table[c] - value), c % 2, c))


def e4m3(v: float, alg: str) -> int:
    return _e4m3(v, math.copysign(1, v) < 0, alg)       # the sign apart: the cache equates -0.0 and 0.0


@lru_cache(maxsize=None)
def _e4m3(v: float, negative: bool, alg: str) -> int:
    if math.isnan(v):
        return 0x7F
    if alg == "nv" and abs(v) < 2.0 ** -10:
        return 0x80 if negative else 0
    return nearest(min(max(v, -448.0), 448.0), E4M3, [c for c in range(256) if c & 0x7F != 0x7F])


def e2m1(v: float) -> int:
    if math.isnan(v):
        return 7
    sign = 8 if math.copysign(1, v) < 0 else 0
    return sign | nearest(min(abs(v), 6.0), E2M1, range(8))


def group(vals: list[float], kind: str, alg: str) -> tuple[float, int, float]:
    """(abs max, E8M0 exponent, scale) of one group of f32 values."""
    if kind == "fp4" and alg == "ocp":
        m = struct.unpack("<f", struct.pack("<I", max((bits(v) >> 16) & 0x7FFF for v in vals) << 16))[0]
    elif kind == "fp4" and any(math.isnan(v) for v in vals):
        m = next(v for v in vals if math.isnan(v))
    else:
        m = max([abs(v) for v in vals if not math.isnan(v)] + [0.0])
    b = bits(m)
    ex, man = (b >> 23) & 0xFF, b & 0x7FFFFF
    if alg == "ocp":
        k = 8 if kind == "fp8" else 2
        e = 0xFF if ex == 0xFF and man else max(ex - k, 0) if ex > k else 0
    elif m == 0:
        e = 0
    else:
        d = bits(f32(m * f32(1 / (448.0 if kind == "fp8" else 6.0))))
        ex, man = (d >> 23) & 0xFF, d & 0x7FFFFF
        e = (0xFE if man == 0 else 0xFF) if ex == 0xFF else \
            ex + (man > 0 and ex != 0xFE and not (ex == 0 and man <= 0x400000))
    if e == 0xFF:
        return m, e, m
    s = 2.0 ** -127 if e == 254 or (alg == "nv" and e == 0xFE) else 2.0 ** (127 - e)
    return m, e, s


def oracle(x: np.ndarray, kind: str, alg: str, axis: int, bf16: bool):
    """(codes, exps, maxes, scales) of an f32 matrix: lines are rows (ND) or columns (DN)."""
    lines = x if axis else x.T
    codes = np.zeros(lines.shape, np.uint8)
    exps, maxes, scales = [], [], []
    for i, line in enumerate(lines):
        for g in range(line.size // 32):
            vals = [float(v) for v in line[32 * g: 32 * g + 32]]
            m, e, s = group(vals, kind, alg)
            exps.append(e), maxes.append(m), scales.append(s)
            for j, v in enumerate(vals):
                p = f32(v * s)
                if kind == "fp8":
                    codes[i, 32 * g + j] = e4m3(p, alg)
                elif math.isnan(s):
                    codes[i, 32 * g + j] = 7
                else:
                    if bf16:
                        p = float(np.float32(p).astype(ml_dtypes.bfloat16))
                    codes[i, 32 * g + j] = e2m1(p)
    return codes if axis else codes.T, exps, maxes, scales


def _src(rng, dt: str, shape) -> Tile:
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-20, 20, (shape[0], 1))
    x[0, :3] = [np.nan, np.inf, -0.0]
    x[1, :32] = 0.0
    x[2, 5] = 2.0 ** -140
    t = Tile("vec", dt, *shape)
    t.fill(x)
    return t


@pytest.mark.parametrize("alg", ["ocp_fp8", "nv_fp8", "ocp_fp4", "nv_fp4"])
@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("dt", ["f32", "f16", "bf16"])
def test_tquant_mx_cpu_matches_the_oracle(alg, axis, dt):
    kind = alg[-3:]
    rng = np.random.default_rng(seed("tquant_mx", alg, axis, dt))
    src = _src(rng, dt, (32, 64))
    if axis:
        src.set_valid(29, 64)
    else:
        src.set_valid(32, 50)
    dst = Tile("vec", "i8" if kind == "fp8" else "f4e2m1", 32, 64)
    exp = Tile("vec", "u8", 32, 64)
    mx, sc = Tile("vec", "f32", 1, 128), Tile("vec", "f32", 1, 128)
    pto.tquant_mx(dst, src, exp, mx, sc, alg=alg, grp_axis=axis, target="cpu")
    r, c = src.valid if axis else (32, src.valid_cols)
    x = np.asarray(src.values[:r, :c], np.float32)
    codes, exps, maxes, scales = oracle(x, kind, alg[:-4], axis, dt == "bf16")
    assert (dst.bits[:r, :c] == codes).all()
    n = len(exps)
    got_e = exp.bits[:r, : c // 32].ravel() if axis else exp.bits[: r // 32, :c].ravel()
    assert got_e.tolist() == exps
    np.testing.assert_array_equal(mx.values.ravel()[:n].view(np.uint32), np.float32(maxes).view(np.uint32))
    np.testing.assert_array_equal(sc.values.ravel()[:n].view(np.uint32), np.float32(scales).view(np.uint32))


def test_zz_exponents_and_refusals():
    rng = np.random.default_rng(seed("tquant_mx", "zz"))
    src = _src(rng, "f32", (16, 128))
    dst, exp, zz = Tile("vec", "i8", 16, 128), Tile("vec", "u8", 16, 32), Tile("vec", "u8", 16, 32)
    mx, sc = Tile("vec", "f32", 1, 64), Tile("vec", "f32", 1, 64)
    pto.tquant_mx(dst, src, exp, mx, sc, exp_zz=zz, target="cpu")
    flat = exp.storage()[:64].reshape(16, 4)                    # read flat, as the simulator does
    want = [flat[r, 2 * gb + k] for gb in range(2) for r in range(16) for k in range(2)]
    assert zz.storage()[:64].tolist() == [int(v) for v in want]
    with pytest.raises(TilesimError, match="pto.op.target"):
        pto.tquant_mx(dst, src, exp, mx, sc, target="a2a3")
    with pytest.raises(SpecGapError, match="pto.tquant_mx.special"):
        pto.tquant_mx(dst, src, exp, mx, sc, target="a5")
    with pytest.raises(TilesimError, match="pto.tquant_mx.alg"):
        pto.tquant_mx(dst, src, exp, mx, sc, alg="mxint8", target="cpu")
    with pytest.raises(GeometryError, match="pto.tquant_mx.exp"):
        pto.tquant_mx(dst, src, Tile("vec", "u8", 8, 32), mx, sc, target="cpu")
    with pytest.raises(GeometryError, match="pto.tquant_mx.scratch"):
        pto.tquant_mx(dst, src, exp, Tile("vec", "f32", 1, 8), sc, target="cpu")
    with pytest.raises(GeometryError, match="pto.tquant_mx.shape"):
        pto.tquant_mx(Tile("vec", "i8", 16, 96), src, exp, mx, sc, target="cpu")
    with pytest.raises(TilesimError, match="pto.tquant_mx.zz"):
        pto.tquant_mx(dst, src, exp, mx, sc, alg="nv_fp8", exp_zz=zz, target="cpu")
    with pytest.raises(TilesimError, match="pto.op.dtype"):
        pto.tquant_mx(Tile("vec", "f4e2m1", 16, 128), src, exp, mx, sc, alg="ocp_fp4", target="a5")


def test_hif4_element_is_f4e1m2():
    """TQUANT_HIF4's data element (docs/isa/TQUANT_HIF4.md's code table: bias 0, 0.m when the exponent bit is
    0, 1.m when it is 1, the sign mirrors) is tilesim's f4e1m2, over all 16 codes (PTO146)."""
    page = [s * (e + m / 4) for s in (1.0, -1.0) for e in (0, 1) for m in range(4)]
    got = pto.Tile("vec", "f4e1m2", 1, 32)
    got.bits[0, :16] = np.arange(16)
    assert [float(v) for v in got.values[0, :16]] == page
    assert [math.copysign(1, float(v)) for v in got.values[0, :16]] == [1.0] * 8 + [-1.0] * 8
