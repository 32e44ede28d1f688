"""TMOV, TEXTRACT, TINSERT (+ _FP) against the scalar references in oracle_ops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, SpecGapError, TilesimError
from tilesim.pto import Tile
from tilesim.pto.targets import get_target

from . import oracle_ops as oo
from .helpers import TARGETS, rand_bits, seed, sentinel

ACC = dict(blayout="col_major", slayout="row_major", fractal=1024)
NZ = dict(blayout="col_major", slayout="row_major")


def _acc(dt, vr=16, vc=16, rng=None, rows=16, cols=16):
    t = Tile("acc", dt, rows, cols, valid=(vr, vc), **ACC)
    t.bits[...] = rand_bits(rng or np.random.default_rng(1), dt, t.bits.shape)
    return t


def _expect_cast(src_bits, s, d, relu=None):
    out = np.zeros(src_bits.shape, np.uint64)
    for idx, b in np.ndenumerate(src_bits):
        b = int(b)
        if relu == "before":
            b = oo.relu_before(b, s)
        v = oo.cast(b, s, d)
        out[idx] = oo.relu_after(v, d) if relu == "after" else v
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("s,d", [("f32", "f32"), ("f32", "f16"), ("f32", "bf16"), ("i32", "i32")])
@pytest.mark.parametrize("relu", [False, True])
def test_tmov_acc_to_mat(target, s, d, relu):
    rng = np.random.default_rng(seed("tmov", target, s, d, relu))
    src = _acc(s, 16, 13, rng)
    dst = Tile("mat", d, 16, 16, valid=(16, 13), **NZ)
    before = sentinel(dst)
    pto.tmov(dst, src, relu_pre_mode="normal_relu" if relu else "no_relu", target=target)
    exp = _expect_cast(src.bits[:, :13], s, d, "after" if relu else None)
    assert (dst.bits[:, :13].astype(np.uint64) == exp).all()
    assert (dst.bits[:, 13:] == before[:, 13:]).all()


@pytest.mark.parametrize("dt", ["f16", "bf16", "f32", "i8", "f8e4m3"])
def test_tmov_mat_to_left_right_is_a_logical_copy(dt):
    rng = np.random.default_rng(seed("m2l", dt))
    per = 32 // pto.get_dtype(dt).size
    mat = Tile("mat", dt, 32, 2 * per, **NZ)
    mat.bits[...] = rand_bits(rng, dt, mat.bits.shape)
    left = Tile("left", dt, 32, 2 * per, blayout="row_major", slayout="row_major")
    pto.tmov(left, mat, target="a2a3")
    assert (left.bits == mat.bits).all()
    # the bytes sit in a different order: the layouts differ, the logical tile does not
    assert not (left.storage() == mat.storage()).all()


def test_tmov_bias_widens_f16():
    mat = Tile.from_array(np.array([[1.5, -2.0, 65504.0, 2.0 ** -24]], np.float16), loc="mat")
    bias = Tile("bias", "f32", 1, 8, valid=(1, 4))
    pto.tmov(bias, mat, target="a2a3")
    assert bias.valid_values.tolist() == [[1.5, -2.0, 65504.0, 2.0 ** -24]]


def test_tmov_checks():
    src = _acc("f32")
    with pytest.raises(GeometryError) as e:
        pto.tmov(Tile("vec", "f32", 16, 16), src, target="a2a3")
    assert e.value.rule == "pto.op.loc" and "acc->mat" in str(e.value)
    pto.tmov(Tile("vec", "f32", 16, 16), src, acc_to_vec_mode="#pto.acc_to_vec_mode<dual_mode_split_m>",
             target="a5")
    with pytest.raises(GeometryError) as e:
        pto.tmov(Tile("mat", "f16", 16, 16, valid=(16, 8), **NZ), src, target="a5")
    assert e.value.rule == "pto.op.valid_match"
    with pytest.raises(GeometryError) as e:      # cpu: src's valid region would pass dst's storage (PTO181)
        pto.tmov(Tile("mat", "f32", 16, 8, valid=(16, 8), **NZ), src, target="cpu")
    assert e.value.rule == "pto.op.valid_match"
    with pytest.raises(DtypeError) as e:
        pto.tmov(Tile("mat", "i8", 16, 32, valid=(16, 16), **NZ), src, target="a5")
    assert e.value.rule == "pto.op.dtype" and "f32->f16" in str(e.value)
    with pytest.raises(TilesimError) as e:
        pto.tmov(Tile("mat", "f32", 16, 16, **NZ), src, relu_pre_mode="sometimes")
    assert e.value.rule == "pto.tmov.relu_pre_mode"
    with pytest.raises(TilesimError) as e:
        pto.tmov(Tile("mat", "f32", 16, 16, **NZ), "src")
    assert e.value.rule == "pto.op.operand"
    d = Tile("mat", "f32", 16, 16, **NZ)
    d.bits[...] = 7
    with pytest.raises(TilesimError):
        pto.tmov(d, src, acc_to_vec_mode="nonsense", target="a5")
    assert (d.bits == 7).all()  # a trapping move leaves dst alone


ZZ, NN = (dict(blayout=b, slayout=b, fractal=32) for b in ("row_major", "col_major"))


@pytest.mark.parametrize("kind", ["left", "right"])
def test_tmov_of_a_smaller_valid_region_on_cpu(kind):
    """PTO181: the simulator's TMOV copies src's valid region element by element (its equal-shape assert is
    compiled out, -DNDEBUG): dst's other elements keep their bits; the NPUs refuse the pair. The E8M0 scale
    move of tmatmul_mx_nddn: ND scales loaded with valid K/32 groups, the scale tile valid over all of them."""
    rng = np.random.default_rng(seed("tmov-valid", kind))
    if kind == "left":
        src = Tile("mat", "f8e8m0", 48, 4, valid=(45, 3), **ZZ)
        dst = Tile("scaling", "f8e8m0", 48, 4, valid=(45, 4), **ZZ)
    else:
        src = Tile("mat", "f8e8m0", 64, 64, valid=(3, 61), **NN)
        dst = Tile("scaling", "f8e8m0", 4, 64, valid=(4, 61), **NN)
    src.bits[...] = rand_bits(rng, "f8e8m0", src.bits.shape)
    before = sentinel(dst)
    for t in ("a5", "a2a3"):
        with pytest.raises(TilesimError) as e:
            pto.tmov(dst, src, target=t)
        assert e.value.rule in ("pto.op.valid_match", "pto.op.loc")
        assert (dst.bits == before).all()
    pto.tmov(dst, src, target="cpu")
    want = before.copy()
    for r in range(src.valid_rows):
        for c in range(src.valid_cols):
            want[r, c] = src.bits[r, c]
    assert (dst.bits == want).all()


@given(r0=st.integers(0, 10), c0=st.integers(0, 40), vr=st.integers(1, 6), vc=st.integers(1, 24),
       relu=st.booleans(), dt=st.sampled_from(["f32", "f16", "i16", "bf16", "u8"]))
def test_textract_tinsert_windows(r0, c0, vr, vc, relu, dt):
    """The window semantics, on the CPU reference (every dtype and location pair; A2A3/A5 rules below)."""
    rng = np.random.default_rng(seed("tx", r0, c0, vr, vc, dt))
    per = 32 // pto.get_dtype(dt).size
    src = Tile("vec", dt, 16, 64)
    src.bits[...] = rand_bits(rng, dt, src.bits.shape)
    dst = Tile("vec", dt, 8, -(-vc // per) * per, valid=(vr, vc))
    before = sentinel(dst)
    if r0 + vr > 16 or c0 + vc > 64:
        with pytest.raises(GeometryError) as e:
            pto.textract(dst, src, r0, c0, relu_pre_mode=relu, target="cpu")
        assert e.value.rule == "pto.op.window" and (dst.bits == before).all()
        return
    pto.textract(dst, src, r0, c0, relu_pre_mode=relu, target="cpu")
    exp = _expect_cast(src.bits[r0:r0 + vr, c0:c0 + vc], dt, dt, "before" if relu else None)
    assert (dst.bits[:vr, :vc].astype(np.uint64) == exp).all()
    assert (dst.bits[vr:] == before[vr:]).all() and (dst.bits[:, vc:] == before[:, vc:]).all()
    # insert it back somewhere else: the inverse window
    big = Tile("vec", dt, 16, 64)
    keep = sentinel(big)
    pto.tinsert(big, dst, r0, c0, target="cpu")
    assert (big.bits[r0:r0 + vr, c0:c0 + vc] == dst.bits[:vr, :vc]).all()
    mask = np.ones(big.bits.shape, bool)
    mask[r0:r0 + vr, c0:c0 + vc] = False
    assert (big.bits[mask] == keep[mask]).all()


def test_tinsert_window_and_index_checks():
    src = Tile("vec", "f32", 8, 8)
    with pytest.raises(GeometryError) as e:
        pto.tinsert(Tile("vec", "f32", 8, 16), src, 1, 0)
    assert e.value.rule == "pto.op.window"
    with pytest.raises(TilesimError) as e:
        pto.textract(Tile("vec", "f32", 8, 8), Tile("vec", "f32", 8, 8), -1, 0)
    assert e.value.rule == "pto.op.index"


def _words(rng, n, vector):
    w = rng.integers(0, 1 << 62, size=n, dtype=np.uint64)
    if not vector:  # a sensible float scale in the low bits, random offset/sign above
        scale = rng.choice(np.array([0.5, 0.01, 3.75, -1.25, 1e-3, 2.0 ** -130, 7e37], np.float32), n)
        w = (w & np.uint64(0xFFFFFFFF00000000)) | scale.view(np.uint32).astype(np.uint64)
    return w


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("s,d", [("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("f32", "bf16"), ("i32", "i8"),
                                 ("i32", "u8"), ("i32", "f16"), ("i32", "i16")])
@pytest.mark.parametrize("relu", [False, True])
def test_quant_forms(vector, s, d, relu):
    if vector and (s, d) in (("f32", "f16"), ("f32", "bf16")):
        pytest.skip("no vector quant mode for this pair")
    rng = np.random.default_rng(seed("q", vector, s, d, relu))
    src = _acc(s, 16, 16, rng)
    per = 32 // pto.get_dtype(d).size
    dst = Tile("mat", d, 16, max(16, per), valid=(16, 16), **NZ)
    if vector:
        words = _words(rng, 16, True)
        fp = Tile("scaling", "u64", 1, 16)
        fp.bits[0] = words
        pto.textract_fp(dst, src, fp, 0, 0, relu_pre_mode=relu, target="cpu")
    else:
        words = _words(rng, 1, False)
        pto.textract(dst, src, 0, 0, int(words[0]), relu_pre_mode=relu, target="cpu")
        words = np.repeat(words, 16)
    exp = [[oo.quantize(int(src.bits[i, j]), s, d, int(words[j]), vector, relu) for j in range(16)]
           for i in range(16)]
    assert dst.bits[:, :16].astype(np.uint64).tolist() == exp


def test_tmov_fp_and_scalar_forms_route_to_quant():
    src = Tile("acc", "f32", 16, 16, **ACC)
    src.values[...] = 2.5
    fp = Tile("scaling", "u64", 1, 16)
    fp.bits[0] = (np.uint64(1) << np.uint64(46)) | (np.uint64(127) << np.uint64(23))  # scale 1.0, signed
    dst = Tile("mat", "i8", 16, 32, valid=(16, 16), **NZ)
    pto.tmov(dst, src, fp, target="cpu")
    assert (dst.valid_values == 2).all()  # rint(2.5) = 2 (ties to even)
    word = int(np.float32(3.0).view(np.uint32)) | (1 << 46)
    pto.tmov(dst, src, word, target="a5")  # the .pto operand order: a scalar where fp would be
    assert (dst.valid_values == 8).all()  # rint(7.5) = 8
    pto.tmov(dst, src, word, target="cpu")  # the CPU simulator ignores TMOV's scalar: (int8_t)2.5f (PTO47)
    assert (dst.valid_values == 2).all()
    with pytest.raises(TilesimError) as e:
        pto.tmov(dst, src, 1 << 64, target="cpu")  # still checked
    assert e.value.rule == "pto.op.range"
    with pytest.raises(DtypeError) as e:
        pto.tmov(Tile("mat", "f32", 16, 16, **NZ), src, fp, target="a5")
    assert e.value.rule == "pto.op.dtype"
    plain = pto.tmov(Tile("mat", "f32", 16, 16, **NZ), src, fp, target="cpu")  # no vector mode: a copy (PTO74)
    assert (plain.values == 2.5).all()
    with pytest.raises(GeometryError) as e:
        pto.tinsert_fp(dst, src, Tile("scaling", "u64", 1, 4), 0, 0)
    assert e.value.rule == "pto.op.fp_cols"


def test_fp_nan_to_int_is_undefined_on_cpu():
    """A NaN that reaches TEXTRACT_FP's integer cast is C++ undefined behaviour: x86-64's 0, marked; strict
    refuses it and leaves dst as it was; ReLU first makes it 0, defined (PTO74)."""
    src = Tile("acc", "f32", 16, 16, **ACC)
    src.values[...] = 1.5
    src.values[2, 3] = np.nan
    fp = Tile("scaling", "u64", 1, 16)
    fp.bits[0] = (np.uint64(1) << np.uint64(46)) | (np.uint64(127 << 10) << np.uint64(13))  # scale 1.0, signed
    dst = Tile("vec", "i8", 16, 32, valid=(16, 16))
    pto.textract_fp(dst, src, fp, target="cpu")
    assert dst.values[2, 3] == 0 and dst.values[0, 0] == 2
    assert np.argwhere(dst.undefined).tolist() == [[2, 3]]
    pto.textract_fp(dst, src, fp, relu_pre_mode=True, target="cpu")
    assert not dst.undefined.any()
    before = dst.bits.copy()
    with pytest.raises(SpecGapError) as e:
        pto.textract_fp(dst, src, fp, target=get_target("cpu").with_(strict=True))
    assert e.value.rule == "pto.tcvt.undefined" and (dst.bits == before).all()
    pto.tinsert_fp(dst, src, fp, 0, 0, target="a5")  # the NPUs define it: 0, unmarked
    assert dst.values[2, 3] == 0


@pytest.mark.parametrize("d", ["f32", "bf16", "u64", "f8e4m3", "f8e8m0"])
def test_fp_pairs_without_a_quant_mode_on_cpu(d):
    """On cpu a pair with no vector-quant mode is the simulator's plain conversion; fp8 destinations (its
    truncating MXType conversion, not modelled) and every such pair on the NPUs are refused (PTO74)."""
    src = Tile("acc", "i32", 16, 16, **ACC)
    src.bits[...] = np.arange(-128, 128).reshape(16, 16).astype(np.int32).view(np.uint32)
    dst = Tile("vec", d, 16, 32 if pto.get_dtype(d).size < 4 else 16, valid=(16, 16))
    fp = Tile("scaling", "u64", 1, 16)
    if d.startswith("f8"):
        with pytest.raises(DtypeError):
            pto.textract_fp(dst, src, fp, target="cpu")
        return
    pto.textract_fp(dst, src, fp, relu_pre_mode=True, target="cpu")
    assert dst.valid_values.astype(np.float64).tolist() == np.maximum(np.arange(-128, 128), 0).reshape(16, 16).tolist()
    with pytest.raises(DtypeError):
        pto.textract_fp(dst, src, fp, target="a5")


def test_scalar_quant_forms_on_cpu():
    """TEXTRACT/TINSERT with a pre-quant scalar on cpu (PTO47): a pair with no scalar mode is the plain C++
    cast after ReLU (the NPUs refuse it); columns whose quant word the simulator reads past the vector it
    filled are undefined (marked; strict refuses and leaves dst alone)."""
    src = Tile("acc", "f32", 16, 32, **ACC)
    src.values[...] = -1.75
    src.values[:, 1] = 2.75
    word = int(np.float32(2.0).view(np.uint32)) | (1 << 46)  # scale 2.0, signed 8-bit range
    dst = Tile("vec", "i32", 16, 32, valid=(4, 8))
    pto.textract(dst, src, 0, 0, word, target="cpu")  # f32 -> i32 has no scalar mode: (int32_t)v
    assert dst.valid_values[:, :2].tolist() == [[-1, 2]] * 4
    pto.textract(dst, src, 0, 0, word, relu_pre_mode=True, target="cpu")
    assert dst.valid_values[:, :2].tolist() == [[0, 2]] * 4
    with pytest.raises(DtypeError):
        pto.textract(dst, src, 0, 0, word, target="a5")
    d8 = Tile("vec", "i8", 16, 32, valid=(4, 8))
    pto.textract(d8, src, 0, 0, word, target="cpu")  # rint(v * 2) in [-128, 127]
    assert d8.valid_values[:, :2].tolist() == [[-4, 6]] * 4 and not d8.undefined.any()
    pto.textract(d8, src, 0, 1, word, target="cpu")  # scalars[c + 1] for c < 8: the last column reads past
    assert d8.undefined[:4, :8].tolist() == [[False] * 7 + [True]] * 4
    before = d8.bits.copy()
    with pytest.raises(SpecGapError):
        pto.textract(d8, src, 0, 2, word, target=get_target("cpu").with_(strict=True))
    assert (d8.bits == before).all()
    big = Tile("vec", "i8", 16, 32)
    # an acc src is not row-major: TInsert.hpp fills one word per valid row (4) and reads one per column (8)
    pto.tinsert(big, Tile("acc", "f32", 16, 32, valid=(4, 8), **ACC), 0, 0, word, target="cpu")
    assert big.undefined[:4, :8].tolist() == [[False] * 4 + [True] * 4] * 4


def test_quant_nan_payloads_on_cpu():
    """f32 -> f16 scalar quant: Inf * 0 is x86's default NaN (sign set) on cpu, and a NaN source keeps its
    sign and top payload bits; the NPUs give the canonical NaN (PTO49)."""
    src = Tile("acc", "f32", 16, 16, **ACC)
    src.values[...] = 1.0
    src.values[0, 0] = np.inf
    src.bits[0, 1] = 0xFFA12345  # a negative signalling NaN
    zero = int(np.float32(0.0).view(np.uint32))
    got = {}
    for target in ("cpu", "a5"):
        dst = Tile("vec", "f16", 16, 16)
        pto.textract(dst, src, 0, 0, zero, target=target)
        got[target] = [int(b) for b in dst.bits[0, :3]]
    assert got["cpu"] == [0xFE00, 0xFE00 | (0x212345 >> 13), 0]
    assert got["a5"][:2] == [0x7E00, 0x7E00] and got["a5"][2] == 0
