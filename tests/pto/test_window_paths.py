"""Per-target TEXTRACT/TINSERT rules (PTO43) and ops a target lacks (THISTOGRAM on A2A3).

Each case is written out from pto-isa docs/isa/TEXTRACT.md and TINSERT.md ("A2A3/A5
implementation checks"), not from tilesim's table: (target, op, src, dst, the rule expected
or None for accepted).
"""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile

from .helpers import sentinel

ND = dict(blayout="row_major", slayout="none_box")
NZ = dict(blayout="col_major", slayout="row_major")
ZN = dict(blayout="row_major", slayout="col_major")
ZZ = dict(blayout="row_major", slayout="row_major")
ACC = dict(blayout="col_major", slayout="row_major", fractal=1024)


def _t(loc, dt, lay, rows=16, cols=32):
    return (loc, dt, rows, cols, lay)


CASES = [
    # ---- TEXTRACT, A2A3: Mat -> Left/Right (i8/f16/bf16/f32, same dtype) and Vec -> Vec
    ("a2a3", "textract", _t("mat", "f16", NZ), _t("left", "f16", ZZ, 16, 16), None),
    ("a2a3", "textract", _t("mat", "bf16", NZ), _t("right", "bf16", ZN, 16, 16), None),
    ("a2a3", "textract", _t("mat", "i8", NZ), _t("left", "i8", ZZ, 16, 32), None),
    ("a2a3", "textract", _t("mat", "i32", NZ), _t("left", "i32", ZZ, 16, 16), "pto.op.dtype"),
    ("a2a3", "textract", _t("mat", "f16", NZ), _t("mat", "f16", NZ, 16, 16), "pto.op.loc"),
    ("a2a3", "textract", _t("acc", "f32", ACC), _t("mat", "f16", NZ, 16, 16), "pto.op.loc"),
    ("a2a3", "textract", _t("vec", "u16", ND), _t("vec", "u16", ND, 8, 16), None),
    ("a2a3", "textract", _t("vec", "f16", NZ), _t("vec", "f16", ND, 16, 16), "pto.op.layout"),
    # ---- TEXTRACT, A5: Mat -> Left/Right/Scaling, Acc -> Mat/Vec, Vec -> Mat/Vec
    ("a5", "textract", _t("mat", "f8e4m3", NZ), _t("left", "f8e4m3", NZ, 16, 32), None),
    ("a5", "textract", _t("mat", "f16", NZ), _t("scaling", "f16", ND, 16, 16), None),
    ("a5", "textract", _t("mat", "u16", NZ), _t("right", "u16", ZN, 16, 16), "pto.op.dtype"),
    ("a5", "textract", _t("acc", "f32", ACC), _t("mat", "bf16", NZ, 16, 16), None),
    ("a5", "textract", _t("acc", "f32", ACC), _t("vec", "f32", ND, 16, 16), None),
    ("a5", "textract", _t("acc", "f32", ACC), _t("mat", "i32", NZ, 16, 16), "pto.op.dtype"),
    ("a5", "textract", _t("vec", "f16", ND), _t("vec", "f16", ND, 16, 16), None),
    ("a5", "textract", _t("vec", "f16", NZ), _t("vec", "f16", NZ, 16, 16), None),
    ("a5", "textract", _t("vec", "f16", NZ), _t("vec", "f16", ND, 16, 16), "pto.op.layout"),
    ("a5", "textract", _t("vec", "f32", ND), _t("left", "f32", NZ, 16, 16), "pto.op.loc"),
    # ---- TINSERT, A2A3: Acc -> Mat only, Nz both sides, f32 -> f16/bf16
    ("a2a3", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("mat", "f16", NZ), None),
    ("a2a3", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("mat", "bf16", NZ), None),
    ("a2a3", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("mat", "f32", NZ), "pto.op.dtype"),
    ("a2a3", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("mat", "f16", ND), "pto.op.layout"),
    ("a2a3", "tinsert", _t("vec", "f16", ND, 16, 16), _t("vec", "f16", ND), "pto.op.loc"),
    # ---- TINSERT, A5: Acc -> Mat/Vec, Vec -> Vec/Mat
    ("a5", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("mat", "f32", NZ), None),
    ("a5", "tinsert", _t("acc", "i32", ACC, 16, 16), _t("mat", "i32", NZ), None),
    ("a5", "tinsert", _t("acc", "i32", ACC, 16, 16), _t("mat", "f16", NZ), "pto.op.dtype"),
    ("a5", "tinsert", _t("acc", "f32", ACC, 16, 16), _t("vec", "f16", ND), None),
    ("a5", "tinsert", _t("vec", "f32", ND, 16, 16), _t("vec", "f32", ND), None),
    ("a5", "tinsert", _t("vec", "i16", ND, 16, 16), _t("vec", "i16", ND), "pto.op.dtype"),
    ("a5", "tinsert", _t("vec", "f16", NZ, 16, 16), _t("vec", "f16", ND), "pto.op.layout"),
    ("a5", "tinsert", _t("vec", "bf16", ND, 16, 16), _t("mat", "bf16", NZ), None),
    ("a5", "tinsert", _t("vec", "bf16", ND, 16, 16), _t("mat", "bf16", ND), "pto.op.layout"),
    ("a5", "tinsert", _t("vec", "f32", ND, 16, 16), _t("acc", "f32", ACC), "pto.op.loc"),
    ("a5", "tinsert", _t("mat", "f16", NZ, 16, 16), _t("mat", "f16", NZ), "pto.op.loc"),
]


def _tile(spec):
    loc, dt, rows, cols, lay = spec
    t = Tile(loc, dt, rows, cols, **lay)
    t.bits[...] = np.arange(t.bits.size).reshape(t.bits.shape) % 7
    return t


@pytest.mark.parametrize("target,op,src,dst,rule", CASES)
def test_window_paths(target, op, src, dst, rule):
    s, d = _tile(src), _tile(dst)
    fn = getattr(pto, op)
    if rule is None:
        fn(d, s, 0, 0, target=target)
        fn(_tile(dst), _tile(src), 0, 0, target="cpu")   # the CPU reference takes it too
        return
    before = sentinel(d)
    with pytest.raises(TilesimError) as e:
        fn(d, s, 0, 0, target=target)
    assert e.value.rule == rule and e.value.instruction == op.upper()
    assert (d.bits == before).all()
    if rule != "pto.op.dtype":
        fn(_tile(dst), _tile(src), 0, 0, target="cpu")    # every location pair and layout is a CPU path


def test_quant_forms_take_only_accumulator_paths():
    word = int(np.float32(1.0).view(np.uint32)) | (1 << 46)
    src = Tile("acc", "f32", 16, 16, **ACC)
    pto.tinsert(Tile("mat", "i8", 16, 32, **NZ), src, 0, 0, word, target="a2a3")
    pto.textract(Tile("vec", "i8", 16, 32, valid=(16, 16), **ND), src, 0, 0, word, target="a5")
    with pytest.raises(TilesimError) as e:
        pto.textract(Tile("vec", "i8", 16, 32, valid=(16, 16), **ND), src, 0, 0, word, target="a2a3")
    assert e.value.rule == "pto.op.loc"


def _histogram_tiles():
    src = Tile("vec", "u16", 8, 32)
    idx = Tile("vec", "u8", 32, 1, valid=(8, 1), blayout="col_major")
    dst = Tile("vec", "u32", 8, 256)
    return dst, src, idx


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_thistogram_runs_on_a5_and_cpu(target):
    dst, src, idx = _histogram_tiles()
    src.bits[...] = 0x0100
    idx.bits[...] = 1
    pto.thistogram(dst, src, idx, target=target)
    # the high byte (is_msb) of every element is 1: cumulative counts are 0 in bin 0 and 32 from bin 1 on
    assert (dst.bits[:, 0] == 0).all() and (dst.bits[:, 1:] == 32).all()


def test_thistogram_is_absent_on_a2a3():
    dst, src, idx = _histogram_tiles()
    before = sentinel(dst)
    with pytest.raises(TilesimError) as e:
        pto.thistogram(dst, src, idx, target="a2a3")
    assert e.value.rule == "pto.op.target" and "a2a3" in str(e.value)
    assert (dst.bits == before).all()


# ---------------------------------------------------------------- the same rules from .pto text
_TB = "!pto.tile_buf<loc={loc}, dtype={dt}, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, " \
      "slayout=row_major, fractal={fr}, pad=0>"
_ACC_T = _TB.format(loc="acc", dt="f32", fr=1024)
_MAT_T = _TB.format(loc="mat", dt="f32", fr=512)
_TILE_BUF_KERNEL = f"""module attributes {{"pto.target_arch" = "a3"}} {{
  func.func @k() {{
    %c0 = arith.constant 0 : index
    %a = pto.alloc_tile : {_ACC_T}
    %m = pto.alloc_tile : {_MAT_T}
    pto.tinsert ins(%a, %c0, %c0 : {_ACC_T}, index, index) outs(%m : {_MAT_T})
    return
  }}
}}
"""
_MEMREF_KERNEL = """module attributes {"pto.target_arch" = "a3"} {
  func.func @k() {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<16x16xf32, #pto.address_space<acc>>
    %m = memref.alloc() : memref<16x16xf32, #pto.address_space<mat>>
    pto.tinsert ins(%a, %c0, %c0 : memref<16x16xf32, #pto.address_space<acc>>, index, index)
               outs(%m : memref<16x16xf32, #pto.address_space<mat>>)
    return
  }
}
"""


def test_text_tile_buf_tinsert_breaks_the_a2a3_dtype_rule():
    with pytest.raises(TilesimError) as e:
        pto.run_text(_TILE_BUF_KERNEL, {}, source="k.pto")
    assert (e.value.rule, e.value.line, e.value.instruction) == ("pto.op.dtype", 6, "TINSERT")
    pto.run_text(_TILE_BUF_KERNEL.replace('"a3"', '"a5"'), {}, source="k.pto")   # f32 -> f32 is an A5 path


def test_text_memref_operands_skip_the_per_target_rules():
    """PTOAS verifies TEXTRACT/TINSERT per target on tile_buf operands only; memref forms pass."""
    pto.run_text(_MEMREF_KERNEL, {}, source="k.pto")


def test_text_thistogram_on_a3_is_refused_before_anything_runs():
    tail = "slayout=none_box, fractal=512, pad=0>"
    src = f"!pto.tile_buf<loc=vec, dtype=ui16, rows=8, cols=16, v_row=8, v_col=16, blayout=row_major, {tail}"
    idx = f"!pto.tile_buf<loc=vec, dtype=ui8, rows=32, cols=1, v_row=8, v_col=1, blayout=col_major, {tail}"
    dst = f"!pto.tile_buf<loc=vec, dtype=ui32, rows=8, cols=256, v_row=8, v_col=256, blayout=row_major, {tail}"
    text = f"""func.func @h() {{
  %s = pto.alloc_tile : {src}
  %i = pto.alloc_tile : {idx}
  %d = pto.alloc_tile : {dst}
  pto.thistogram ins(%s, %i : {src}, {idx}) outs(%d : {dst})
  return
}}
"""
    with pytest.raises(TilesimError) as e:
        pto.run_text(text, {}, "a2a3", source="h.pto")
    assert (e.value.rule, e.value.line) == ("pto.op.target", 5)
    pto.run_text(text, {}, "a5", source="h.pto")


def _vec(dt, rows=1, cols=32):
    return (f"!pto.tile_buf<loc=vec, dtype={dt}, rows={rows}, cols={cols}, v_row={rows}, v_col={cols}, "
            "blayout=row_major, slayout=none_box, fractal=512, pad=0>")


def _compare_gather(src_dt):
    s, t, d = _vec(src_dt), _vec("i8"), _vec("i32")
    k = "f32" if src_dt == "f32" else "i16"
    return f"""func.func @g() {{
  %k = arith.constant 0 : {k}
  %s = pto.alloc_tile : {s}
  %t = pto.alloc_tile : {t}
  %d = pto.alloc_tile : {d}
  %c = pto.alloc_tile : {d}
  pto.tgather ins(%s, %k, %t : {s}, {k}, {t}) outs(%d, %c : {d}, {d})
  return
}}
"""


def test_text_compare_form_tgather_src_dtype_per_target():
    """docs/isa/TGATHER.md: the compare form's src is f16/f32/i32 on A2A3, i16/u16/i32/u32/f16/f32 on A5."""
    with pytest.raises(TilesimError) as e:
        pto.run_text(_compare_gather("i16"), {}, "a2a3", source="g.pto")
    assert (e.value.rule, e.value.line) == ("pto.op.dtype", 7)
    with pytest.raises(TilesimError) as e:                    # past the dtype rule: A5's form is not modelled
        pto.run_text(_compare_gather("i16"), {}, "a5", source="g.pto")
    assert e.value.rule == "pto.tgather.form"
    pto.run_text(_compare_gather("f32"), {}, "a2a3", source="g.pto")   # A2A3 runs it (PTO159)


def test_text_tget_scale_addr_writes_a_scaling_tile():
    left = ("!pto.tile_buf<loc=left, dtype=f16, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
            "slayout=row_major, fractal=512, pad=0>")
    text = f"""func.func @s() {{
  %a = pto.alloc_tile : {left}
  %d = pto.alloc_tile : {_vec("f16", 16, 16)}
  pto.tget_scale_addr ins(%a : {left}) outs(%d : {_vec("f16", 16, 16)})
  return
}}
"""
    with pytest.raises(TilesimError) as e:
        pto.run_text(text, {}, "a5", source="s.pto")
    assert (e.value.rule, e.value.line) == ("pto.op.loc", 4)
    with pytest.raises(TilesimError) as e:
        pto.run_text(text, {}, "a2a3", source="s.pto")
    assert e.value.rule == "pto.op.target"                    # A5 only
