"""TSTORE's fixpipe forms (relu, pre-quant scalar, TSTORE_FP) against the scalar references in oracle_ops."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, SpecGapError, TilesimError
from tilesim.pto import Tile
from tilesim.pto.targets import get_target

from . import oracle_ops as oo
from .helpers import rand_bits, seed

ACC = dict(blayout="col_major", slayout="row_major", fractal=1024)


def _src(loc, dt, rng, r=16, c=16):
    t = Tile(loc, dt, r, c, **(ACC if loc == "acc" else {}))
    t.bits[...] = rand_bits(rng, dt, t.bits.shape)
    return t


def _words(rng, n, vector):
    w = rng.integers(0, 2 ** 63, n, dtype=np.uint64)
    if not vector:  # a float scale in the low half, offset and sign bits above
        scale = rng.choice(np.array([0.5, 0.01, 3.75, -1.25, 1e-3, 2.0 ** -130], np.float32), n)
        w = (w & np.uint64(0xFFFFFFFF00000000)) | scale.view(np.uint32).astype(np.uint64)
    return w


def _gm(d, shape=(16, 16)):
    return np.zeros(shape, pto.get_dtype(d).np)


@pytest.mark.parametrize("target,loc", [("cpu", "vec"), ("cpu", "acc"), ("a2a3", "acc"), ("a5", "acc")])
@pytest.mark.parametrize("s,d", [("f32", "i8"), ("f32", "u8"), ("i32", "i8"), ("i32", "f16"), ("i32", "i16")])
@pytest.mark.parametrize("relu", [False, True])
def test_scalar_quant_store(target, loc, s, d, relu):
    rng = np.random.default_rng(seed("tsq", target, loc, s, d, relu))
    src, word = _src(loc, s, rng), int(_words(rng, 1, False)[0])
    gm = _gm(d)
    if target != "cpu" and d == "i16":  # CheckAcc2gm has no i32 -> i16 quant store
        with pytest.raises(DtypeError) as e:
            pto.tstore(gm, src, word, relu_pre_mode=relu, target=target)
        assert e.value.rule == "pto.op.dtype" and not gm.any()
        return
    pto.tstore(gm, src, word, relu_pre_mode=relu, target=target)
    exp = [[oo.quantize(int(src.bits[i, j]), s, d, word, False, relu) for j in range(16)] for i in range(16)]
    assert gm.view(pto.get_dtype(d).lane).astype(np.uint64).tolist() == exp


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("s,d", [("f32", "i8"), ("i32", "u8"), ("i32", "f16")])
def test_vector_quant_store_words_per_column_or_row(target, s, d):
    """TSTORE_FP: one quant word per column; the CPU simulator indexes them by row for a tile that is not
    row-major (an acc tile), the NPUs by column (PTO150)."""
    rng = np.random.default_rng(seed("tsv", target, s, d))
    for loc in ("acc", "vec") if target == "cpu" else ("acc",):
        src = _src(loc, s, rng, 16, 16)
        words = _words(rng, 16, True)
        fp = Tile("scaling", "u64", 1, 16)
        fp.bits[0] = words
        gm = _gm(d)
        pto.tstore_fp(gm, src, fp, target=target)
        per_row = target == "cpu" and loc == "acc"
        exp = [[oo.quantize(int(src.bits[i, j]), s, d, int(words[i if per_row else j]), True, False)
                for j in range(16)] for i in range(16)]
        assert gm.view(pto.get_dtype(d).lane).astype(np.uint64).tolist() == exp
        again = _gm(d)
        pto.tstore(again, src, fp, target=target)  # the same through TSTORE's fp operand
        assert (again == gm).all()


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_relu_store_casts_the_relued_source(target):
    """No quant word: ReLU ``v > 0 ? v : 0`` on the source value, then the value conversion (i32 acc -> f16,
    the PTOAS tstore_forms program), and an atomic add in the destination type."""
    rng = np.random.default_rng(seed("tsr", target))
    src = _src("acc", "i32", rng)
    src.bits[0, :4] = np.array([-5, 0, 2049, 70000], np.int32).view(np.uint32)
    gm = _gm("f16")
    pto.tstore(gm, src, relu_pre_mode="normal_relu", target=target)
    exp = [[oo.cast(oo.relu_before(int(b), "i32"), "i32", "f16") for b in row] for row in src.bits]
    assert gm.view(np.uint16).astype(np.uint64).tolist() == exp
    assert gm[0, :4].tolist() == [0.0, 0.0, 2048.0, np.inf]
    pto.tstore(gm, src, relu_pre_mode=True, atomic="atomic_add", st_phase="final", target=target)
    assert gm[0, 2] == 4096.0


def test_cpu_pairs_without_a_quant_mode_are_cpp_casts():
    """On cpu a scalar store whose pair has no quant mode is the plain store (relu, then C++ cast), as the
    simulator's NoQuant path; a NaN reaching an integer cast is undefined: strict refuses it, gm unchanged."""
    src = Tile("vec", "f32", 8, 8)
    src.values[...] = -2.5
    src.values[1, 1] = 7.75
    gm = _gm("i32", (8, 8))
    pto.tstore(gm, src, 0x3F800000, relu_pre_mode=True, target="cpu")  # f32 -> i32: no scalar mode
    assert gm[1, 1] == 7 and (gm[0] == 0).all()
    src.values[2, 2] = np.nan
    before = gm.copy()
    with pytest.raises(SpecGapError) as e:
        pto.tstore(gm, src, 0, target=get_target("cpu").with_(strict=True))
    assert e.value.rule == "pto.tcvt.undefined" and (gm == before).all()


def test_checks():
    rng = np.random.default_rng(5)
    acc, vec = _src("acc", "f32", rng), _src("vec", "f32", rng)
    gm8 = _gm("i8")
    before = gm8.copy()
    cases = [
        (lambda: pto.tstore(gm8, vec, 0x3F800000, target="a2a3"), GeometryError, "pto.op.loc"),
        (lambda: pto.tstore(_gm("f16"), vec, relu_pre_mode=True, target="a5"), GeometryError, "pto.op.loc"),
        (lambda: pto.tstore(gm8, acc, relu_pre_mode=True, target="a2a3"), DtypeError, "pto.op.dtype"),
        (lambda: pto.tstore(_gm("f32"), acc, 0x3F800000, target="a2a3"), DtypeError, "pto.op.dtype"),
        (lambda: pto.tstore(gm8, acc, 1 << 64, target="cpu"), TilesimError, "pto.op.range"),
        (lambda: pto.tstore(gm8, acc, relu_pre_mode="leaky", target="cpu"), TilesimError,
         "pto.tstore.relu_pre_mode"),
        (lambda: pto.tstore_fp(gm8, acc, Tile("scaling", "u64", 1, 8), target="a5"), GeometryError,
         "pto.op.fp_cols"),
        (lambda: pto.tstore_fp(gm8, acc, 3, target="cpu"), TilesimError, "pto.op.operand"),
        (lambda: pto.tstore(np.zeros((8, 16), np.int8), acc, 0x3F800000, target="cpu"), GeometryError,
         "pto.mem.window"),
    ]
    for call, cls, rule in cases:
        with pytest.raises(cls) as e:
            call()
        assert e.value.rule == rule, (rule, e.value)
        assert (gm8 == before).all()


ACC_T = ("!pto.tile_buf<loc=acc, dtype=i32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
         "slayout=row_major, fractal=1024, pad=0>")
VEC_T = ("!pto.tile_buf<loc=vec, dtype=i32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
VIEW = "!pto.tensor_view<?x?x{t}>"
PART = "!pto.partition_tensor_view<16x16x{t}>"
PROGRAM = f"""
module {{
  func.func @k(%arg0: !pto.ptr<f16>, %arg1: !pto.ptr<i8>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %pre = arith.constant 70369792753664 : i64
    %tv0 = pto.make_tensor_view %arg0, shape = [%c16, %c16], strides = [%c16, %c1] : {VIEW.format(t="f16")}
    %tv1 = pto.make_tensor_view %arg1, shape = [%c16, %c16], strides = [%c16, %c1] : {VIEW.format(t="i8")}
    %d0 = pto.partition_view %tv0, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW.format(t="f16")} -> \
{PART.format(t="f16")}
    %d1 = pto.partition_view %tv1, offsets = [%c0, %c0], sizes = [%c16, %c16] : {VIEW.format(t="i8")} -> \
{PART.format(t="i8")}
    %acc = pto.alloc_tile : {ACC_T}
    %vec = pto.alloc_tile : {VEC_T}
    pto.texpands ins(%c16 : index) outs(%vec : {VEC_T})
    pto.tmov ins(%vec : {VEC_T}) outs(%acc : {ACC_T})
    pto.tstore ins(%acc : {ACC_T}) outs(%d0 : {PART.format(t="f16")})
        {{atomicType = #pto<atomic_type atomic_add>, reluPreMode = #pto<relu_pre_mode normal_relu>}}
    pto.tstore ins(%acc : {ACC_T}, %pre : i64) outs(%d1 : {PART.format(t="i8")})
        {{reluPreMode = #pto<relu_pre_mode normal_relu>}}
    return
  }}
}}
"""


def test_pto_statement_forms():
    """The PTOAS spellings: reluPreMode and atomicType attributes, the pre-quant scalar as a second ins."""
    word = int(np.float32(0.25).view(np.uint32)) | (1 << 46)
    assert word == 70369792753664
    out = pto.run_text(PROGRAM, {"arg0": np.full((16, 16), 1.0, np.float16), "arg1": np.zeros((16, 16), np.int8)},
                       "cpu")
    assert (out["arg0"] == 17.0).all() and (out["arg1"] == 4).all()


@pytest.mark.parametrize("op", ["tstore", "textract", "tinsert"])
def test_saturate_bit(op):
    """The control register's saturate bit (``quant_saturate_inf``, the simulator's task cookie bit 48): f32 ->
    f16 pre-quant turns NaN to 0 and clamps +-Inf to +-65504; f32 -> bf16 turns NaN to 0 (PTO151). Without it
    NaN and infinities pass."""
    vals = np.array([[np.nan, np.inf, -np.inf, 1e6, -3.0, 0.5, 2.0, 1.0]], np.float32)
    word = int(np.float32(2.0).view(np.uint32))
    sat = get_target("cpu").with_(quant_saturate_inf=True)
    for d, want_sat in (("f16", [0, 65504, -65504, 65504, -6, 1, 4, 2]),
                        ("bf16", [0, np.inf, -np.inf, 2e6, -6, 1, 4, 2])):
        for prof, want in ((sat, want_sat), ("cpu", [np.nan, np.inf, -np.inf, 65504 if d == "f16" else 2e6,
                                                    -6, 1, 4, 2])):
            src = Tile("vec", "f32", 1, 8)
            src.values[...] = vals
            if op == "tstore":
                gm = _gm(d, (1, 8))
                pto.tstore(gm, src, word, target=prof)
                got = gm.astype(np.float64)
            else:
                dst = Tile("vec", d, 1, 16, valid=(1, 8))
                getattr(pto, op)(dst, src, 0, 0, word, target=prof)
                got = dst.valid_values.astype(np.float64)
            exp = np.array([want], np.float64).astype(pto.get_dtype(d).np).astype(np.float64)
            assert np.array_equal(got, exp, equal_nan=True), (d, prof, got)
