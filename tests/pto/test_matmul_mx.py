"""TMATMUL_MX (+ _ACC, _BIAS) against a scalar reference of the pto-isa CPU MX matmul."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError
from tilesim.pto import Tile

from . import oracle as o
from . import oracle_ops as oo
from .helpers import seed


def _tiles(rng, M, K, N, adt, bdt, sdt):
    a = Tile("left", adt, 16, 64, valid=(M, K), blayout="col_major", slayout="row_major")
    b = Tile("right", bdt, 64, 16, valid=(K, N), blayout="row_major", slayout="col_major")
    c = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
    a.bits[...] = rng.integers(0, 1 << a.dtype.format.bits, a.bits.shape)
    b.bits[...] = rng.integers(0, 1 << b.dtype.format.bits, b.bits.shape)
    sa = Tile("scaling", sdt, 16, 32, fractal=32, slayout="row_major")
    sb = Tile("scaling", sdt, 16, 32, fractal=32, slayout="row_major")
    if sdt == "f8e8m0":
        sa.bits[...] = rng.integers(110, 140, sa.bits.shape)
        sb.bits[...] = rng.integers(110, 140, sb.bits.shape)
    else:
        sa.values[...] = rng.choice([0.5, 1.0, 2.0, 0.375, 3.0], sa.bits.shape).astype(np.float16)
        sb.values[...] = rng.choice([0.5, 1.0, 2.0, 0.375, 3.0], sb.bits.shape).astype(np.float16)
    return a, b, c, sa, sb


def _val(t, r, c, target="a5"):
    """An operand's value: fp8 codes as the OCP formats define them, or (cpu) as the simulator reads them."""
    if not t.dtype.name.startswith(("f8", "f4")):
        return float(t.values[r, c])
    return (o.dec_fp8_sim if target == "cpu" else o.dec_fp8)(int(t.bits[r, c]), t.dtype.name)


@pytest.mark.parametrize("adt,bdt", [("f8e4m3", "f8e4m3"), ("f8e5m2", "f8e4m3"), ("f8e5m2", "f8e5m2"),
                                     ("f4e2m1", "f4e2m1"), ("f4e1m2", "f4e1m2"), ("f4e1m2", "f4e2m1")])
@pytest.mark.parametrize("sdt", ["f8e8m0", "f16"])
@pytest.mark.parametrize("form", ["plain", "acc", "bias"])
@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_tmatmul_mx(adt, bdt, sdt, form, target):
    rng = np.random.default_rng(seed("mx", adt, bdt, sdt, form))
    M, K, N = 5, 64, 7
    a, b, c, sa, sb = _tiles(rng, M, K, N, adt, bdt, sdt)
    sa.bits[0, 0] = 0xFF if sdt == "f8e8m0" else sa.bits[0, 0]  # NaN on a5, 2**128 on cpu
    other = None
    if form == "plain":
        pto.tmatmul_mx(c, a, sa, b, sb, target=target)
    elif form == "acc":
        c_in = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
        c_in.values[...] = rng.uniform(-100, 100, c_in.bits.shape).astype(np.float32)
        pto.tmatmul_mx_acc(c, c_in, a, sa, b, sb, target=target)
        other = c_in.values
    else:
        bias = Tile("bias", "f32", 1, 16)
        bias.values[...] = rng.uniform(-100, 100, bias.bits.shape).astype(np.float32)
        pto.tmatmul_mx_bias(c, a, sa, b, sb, bias, target=target)
        other = np.broadcast_to(bias.values, (16, 16))
    for i in range(M):
        for j in range(N):
            row = [_val(a, i, k, target) for k in range(K)]
            col = [_val(b, k, j, target) for k in range(K)]
            s0 = [_val(sa, i, g, target) for g in range(2)]
            s1 = [_val(sb, g, j, target) for g in range(2)]
            exp = oo.mx_dot(row, col, s0, s1)
            if other is not None:
                exp = o.binary("add", exp, int(np.float32(other[i, j]).view(np.uint32)), "f32")
            got = int(c.bits[i, j])
            assert got == exp or (o.is_nan_bits(got, "f32") and o.is_nan_bits(exp, "f32")), (i, j)


def test_mx_nan_code_gives_nan():
    rng = np.random.default_rng(1)
    a, b, c, sa, sb = _tiles(rng, 2, 64, 2, "f8e4m3", "f8e4m3", "f8e8m0")
    a.bits[...], b.bits[...] = 0x38, 0x38  # 1.0
    a.bits[0, 5] = 0x7F  # OCP E4M3 NaN
    pto.tmatmul_mx(c, a, sa, b, sb, target="a5")
    assert np.isnan(c.values[0, :2]).all() and not np.isnan(c.values[1, :2]).any()


def test_mx_codes_on_cpu_are_the_simulators():
    """On cpu every fp8 code is a number (E4M3 0x7F = 480, E5M2 0x7C = 2**16, E8M0 0xFF = 2**128): PTO75."""
    assert [o.dec_fp8_sim(c, "f8e4m3") for c in (0x7F, 0xFF, 0x80, 0x01)] == [480.0, -480.0, 0.0, 2.0 ** -9]
    assert [o.dec_fp8_sim(c, "f8e5m2") for c in (0x7C, 0x7F)] == [2.0 ** 16, 1.75 * 2 ** 16]
    assert [o.dec_fp8_sim(c, "f8e8m0") for c in (0x00, 0xFF)] == [2.0 ** -127, 2.0 ** 128]
    rng = np.random.default_rng(2)
    a, b, c, sa, sb = _tiles(rng, 1, 64, 1, "f8e4m3", "f8e5m2", "f8e8m0")
    a.bits[...], b.bits[...], sa.bits[...], sb.bits[...] = 0, 0, 127, 127
    a.bits[0, 0], b.bits[0, 0], a.bits[0, 1], b.bits[1, 0], sb.bits[1, 0] = 0x7F, 0x7C, 0x38, 0x3C, 0xFF
    a.bits[0, 40], b.bits[40, 0] = 0x38, 0x3C  # 1 * 1 * 2**128: the sum overflows float32
    pto.tmatmul_mx(c, a, sa, b, sb, target="cpu")
    assert c.values[0, 0] == np.inf
    a.bits[0, 40] = 0
    pto.tmatmul_mx(c, a, sa, b, sb, target="cpu")
    assert c.values[0, 0] == 480.0 * 2 ** 16 + 1
    assert oo.mx_dot([1.0, 2.0], [3.0, 0.5], [2.0], [0.25]) == 0x40000000  # (3 + 1) * 0.5 = 2.0


def test_mx_checks():
    rng = np.random.default_rng(0)
    a, b, c, sa, sb = _tiles(rng, 4, 64, 4, "f8e4m3", "f8e4m3", "f8e8m0")
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_mx(c, a, Tile("scaling", "f8e8m0", 16, 32, valid=(4, 1), fractal=32, slayout="row_major"), b,
                       sb)
    assert e.value.rule == "pto.tmatmul_mx.scale"
    with pytest.raises(DtypeError) as e:
        pto.tmatmul_mx(c, Tile("left", "f16", 16, 64, blayout="col_major", slayout="row_major"), sa, b, sb)
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(GeometryError) as e:
        pto.tmatmul_mx(c, Tile("left", "f8e4m3", 16, 64, slayout="row_major"), sa, b, sb)
    assert e.value.rule == "pto.op.layout"


@pytest.mark.parametrize("sdt", ["f16", "f32"])
def test_float_scales_round_their_product_on_cpu(sdt):
    """The simulator multiplies two half (float) scales in half (float): the product is rounded to the scale
    type, and may overflow to Inf; the NPU model keeps it exact (PTO75)."""
    rng = np.random.default_rng(3)
    a, b, c, sa, sb = _tiles(rng, 1, 64, 1, "f8e4m3", "f8e4m3", sdt)
    a.bits[...], b.bits[...] = 0, 0
    a.bits[0, 0], b.bits[0, 0], a.bits[0, 40], b.bits[40, 0] = 0x38, 0x38, 0x38, 0x38  # 1.0 in groups 0 and 1
    big = 300.0 if sdt == "f16" else 3e30
    sa.values[0, :2] = [0.1, big]
    sb.values[:2, 0] = [0.1, big]
    s0, s1 = (float(sa.values[0, 0]), float(sa.values[0, 1])), (float(sb.values[0, 0]), float(sb.values[1, 0]))
    pto.tmatmul_mx(c, a, sa, b, sb, target="cpu")
    rounded = o.dec(o.round_bits(s0[0] * s1[0], sdt), sdt)  # exact product (<= 48 bits) rounded once
    # big * big overflows the scale type; times group 1's zero elements: x86's default NaN
    assert rounded != s0[0] * s1[0] and int(c.bits[0, 0]) == 0xFFC00000
    sa.values[0, 1] = sb.values[1, 0] = 1.0
    pto.tmatmul_mx(c, a, sa, b, sb, target="cpu")
    ones = [1.0] + [0.0] * 31 + [1.0]  # k = 0 in group 0, k = 32 (standing for 40) in group 1
    assert int(c.bits[0, 0]) == oo.mx_dot(ones, ones, [rounded, 1.0], [1.0, 1.0])
    pto.tmatmul_mx(c, a, sa, b, sb, target="a5")
    assert int(c.bits[0, 0]) == oo.mx_dot(ones, ones, [s0[0] * s1[0], 1.0], [1.0, 1.0])


def test_fp8_and_fp4_do_not_mix():
    """The simulator compiles fp8 x fp8 and fp4 x fp4 MX pairs only."""
    rng = np.random.default_rng(4)
    a, b, c, sa, sb = _tiles(rng, 2, 64, 2, "f4e2m1", "f4e2m1", "f8e8m0")
    pto.tmatmul_mx(c, a, sa, b, sb, target="cpu")
    b8 = Tile("right", "f8e4m3", 64, 16, valid=(64, 2), blayout="row_major", slayout="col_major")
    with pytest.raises(DtypeError):
        pto.tmatmul_mx(c, a, sa, b8, sb, target="cpu")


def test_fp4_e2m1_codes():
    """Every f4e2m1 code's value, against the OCP definition and the simulator's reading (the same: finite)."""
    t = Tile("vec", "f4e2m1", 1, 32)
    t.bits[0, :16] = np.arange(16)
    want = [o.dec_fp8(c, "f4e2m1") for c in range(16)]
    assert t.values[0, :16].astype(np.float64).tolist() == want
    assert [abs(o.dec_fp8_sim(c, "f4e2m1")) for c in range(16)] == [abs(w) for w in want]
    assert max(want) == 6.0 and want[1] == 0.5


def test_fp4_e1m2_codes():
    """Every f4e1m2 code's value (pto-isa's E1M2, bias 1: subnormals m/4, normals 1 + m/4), the same as the
    simulator's reading up to the sign of zero; Tile.values decodes them though ml_dtypes has no such type."""
    t = Tile("left", "f4e1m2", 16, 64, blayout="col_major", slayout="row_major")
    t.bits[0, :16] = np.arange(16)
    want = [(-1) ** (c >> 3) * ((c & 3) / 4 if not c & 4 else 1 + (c & 3) / 4) for c in range(16)]
    got = t.values[0, :16]
    assert got.dtype == np.float64 and got.tolist() == want and np.signbit(got[8])
    assert [o.dec_fp8(c, "f4e1m2") for c in range(16)] == want
    assert [abs(o.dec_fp8_sim(c, "f4e1m2")) for c in range(16)] == [abs(w) for w in want]
    assert pto.get_dtype("float4_e1m2x2_t").format.name == "fp4_e1m2_b1"
