"""The .pto parser (lark) and interpreter: the spec's and seeds' lines, malformed input, running kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim import pto
from tilesim.cli import app
from tilesim.errors import ParseError, TilesimError
from tilesim.pto.text import parse
from tilesim.pto.text.types import tile_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pto"

KEYED = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=16, v_col=128, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")

# Lines in the forms of the pto-isa pages (TCOLARGMAX, TROWMAX) and the PTOAS syntax.
SPEC_LINES = [
    "%7 = pto.make_tensor_view %arg0, shape = [%c16, %c128], strides = [%c128, %c1] : !pto.tensor_view<?x?xf32>",
    f"%0 = pto.alloc_tile : {KEYED}",
    "%11 = pto.partition_view %7, offsets = [%c0, %c0], sizes = [%c16, %c128] : !pto.tensor_view<?x?xf32> -> "
    "!pto.partition_tensor_view<16x128xf32>",
    f"pto.tload ins(%11 : !pto.partition_tensor_view<16x128xf32>) outs(%0 : {KEYED})",
    "pto.trowmax ins(%21 : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, "
    "slayout=none_box, fractal=512, pad=1>) outs(%22 : !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=1, v_row=32, "
    "v_col=1, blayout=col_major, slayout=none_box, fractal=512, pad=1>)",
    "%tb2 = pto.alloc_tile valid_row = %vr valid_col = %vc : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16, "
    "v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>",
    "pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]    pto.barrier <PIPE_ALL>",
    "%0 = pto.alloc_tile : !pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>",
    "pto.tcvt ins(%1{rmode = #pto<round_mode ROUND>} : " + KEYED + ") outs(%4 : " + KEYED.replace("f32", "bf16") + ")",
    "tadd %dst, %src0, %src1 : !pto.tile<f32, 16, 16>",
    "%d = pto.op %a, %b : (!pto.tile<16x16xf32>, !pto.tile<16x16xf32>) -> !pto.tile<16x16xf32>",
    "pto.op ins(%a, %b : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%d : !pto.tile_buf<...>)",
    # seed 001
    "%dstIdx = tcolargmax %src : !pto.tile<...> -> !pto.tile<...>",
    "%dstIdx = pto.tcolargmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>",
    "pto.tcolargmax ins(%src, %tmp : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%dstIdx : !pto.tile_buf<...>)",
    "%dstVal, %dstIdx = tcolargmax %src : !pto.tile<...> -> !pto.tile<...>, !pto.tile<...>",
    "%dstVal, %dstIdx = pto.tcolargmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> (!pto.tile<...>, "
    "!pto.tile<...>)",
    "pto.tcolargmax ins(%src, %tmp : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%dstVal, %dstIdx : "
    "!pto.tile_buf<...>, !pto.tile_buf<...>)",
    "# Manual mode: resources must be bound explicitly before issuing the instruction.\n"
    "# pto.tassign %arg0, @tile(0x1000)\n"
    "%dstIdx = pto.tcolargmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>",
    # seed 003
    "%dst = trowmax %src : !pto.tile<...> -> !pto.tile<...>",
    "%dst = pto.trowmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>",
    "pto.trowmax ins(%src, %tmp : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%dst : !pto.tile_buf<...>)",
    # docs attribute forms
    "%dst = tcmp %src0, %src1 {cmpMode = #pto.cmp<EQ>} : !pto.tile<...> -> !pto.tile<...>",
    "%dst = tcvt %src {rmode = #pto.round_mode<CAST_RINT>} : !pto.tile<...> -> !pto.tile<...>",
    "%t0 = tload %sv[%c0, %c0] : (!pto.memref<...>, index, index) -> !pto.tile<...>",
]


@pytest.mark.parametrize("line", SPEC_LINES, ids=lambda s: s.split("\n")[-1][:50])
def test_spec_and_seed_lines_parse(line):
    prog = parse(line)
    assert prog.stmts and all(st.op for st in prog.stmts)


def test_parse_structure():
    st = parse("%dstVal, %dstIdx = pto.tcolargmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> "
               "(!pto.tile<...>, !pto.tile<...>)").stmts[0]
    assert (st.kind, st.op, st.results, [o.name for o in st.ins]) == ("generic", "pto.tcolargmax",
                                                                      ["dstVal", "dstIdx"], ["src", "tmp"])
    assert len(st.in_types) == 2 and len(st.out_types) == 2 and st.out_types[0].is_placeholder
    st = parse("pto.tcolargmax ins(%src, %tmp : !pto.tile_buf<...>, !pto.tile_buf<...>) outs(%v, %i : "
               "!pto.tile_buf<...>, !pto.tile_buf<...>)").stmts[0]
    assert st.kind == "dps" and [o.name for o in st.outs] == ["v", "i"]
    st = parse("pto.tcmps ins(%a, %s {cmpMode = #pto<cmp lt>} : !pto.tile_buf<...>, f32) outs(%m : "
               "!pto.tile_buf<...>)").stmts[0]
    assert st.attrs == {"cmpMode": "#pto<cmp lt>"} and st.in_types[1].name == "f32"
    st = parse("tstore %t, %v : !pto.tile<f32, 16, 16> #atomic=add").stmts[0]
    assert st.attrs == {"atomic": "add"}
    st = parse("%c = arith.constant -1.5e2 : f32").stmts[0]
    assert st.ins[0].value == -150


@pytest.mark.parametrize("text,line,col,frag", [
    ("pto.trowmax ins(%a : !pto.tile_buf<...>) outs(%b", 1, 49, "end of input"),
    ("%x = pto.tadd %a, %b\n", 2, 1, "end of input"),
    ("module {\n  func.func @k() {\n    %x = pto.tadd %a, %b : !pto.tile<...>\n  }\n  }\n}", 6, 1, "'}'"),
    ("%x = = pto.tadd", 1, 6, "'='"),
    ("pto.tadd ins(%a $ %b)", 1, 17, "character '$'"),
    ("%x = pto.alloc_tile : !pto.tile_buf<loc=vec,\n dtype=f32 rows=16>", 2, 12, "'rows'"),
    ("func.func k() {}", 1, 11, "'k'"),
])
def test_malformed_text_reports_line_and_column(text, line, col, frag):
    with pytest.raises(ParseError) as e:
        parse(text, "bad.pto")
    err = e.value
    assert (err.line, err.column, err.rule) == (line, col, "pto.parse.syntax"), str(err)
    assert frag in err.detail and str(err).startswith(f"bad.pto:{line}:{col}:")


# ------------------------------------------------------------------- types
def _spec(text, target="a5"):
    ty = parse(f"%t = pto.alloc_tile : {text}").stmts[0].out_types[0]
    return tile_spec(ty, pto.get_target(target))


def test_tile_types():
    s = _spec(KEYED)
    assert (s.loc, s.dtype, s.rows, s.cols, s.valid, s.blayout, s.pad) == ("vec", "f32", 16, 128, (16, 128),
                                                                          "row_major", 0)
    s = _spec(KEYED.replace("v_row=16, v_col=128", "v_row=?, v_col=-1"))
    assert s.valid == (None, None) and s.dynamic
    s = _spec("!pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>")
    assert (s.rows, s.cols, s.valid, s.blayout, s.slayout, s.fractal) == (16, 128, (16, 1), "col_major", "none_box", 512)
    assert _spec("!pto.tile_buf<left, 32x32xf32, slayout=row_major>", "a5").blayout == "col_major"
    assert _spec("!pto.tile_buf<left, 32x32xf32, slayout=row_major>", "a2a3").blayout == "row_major"
    s = _spec("!pto.tile<16x1xf32>")
    assert (s.rows, s.cols, s.valid) == (16, 8, (16, 1))  # an SSA shape is the valid shape, padded to 32 bytes
    s = _spec("!pto.tile<loc=vec, f32, 16, 16, RowMajor, NoneBox, None, Zero>")
    assert (s.loc, s.rows, s.cols, s.blayout, s.slayout, s.pad) == ("vec", 16, 16, "row_major", "none_box", "zero")
    assert _spec("!pto.tile<...>") is None


@pytest.mark.parametrize("text,frag,rule", [
    (KEYED.replace("dtype=f32, rows=16", "rows=16, dtype=f32"), "order", "pto.parse.type"),
    (KEYED.replace("pad=0", "pad=0, colour=red"), "unknown tile_buf field", "pto.parse.type"),
    (KEYED.replace(", fractal=512", ""), "missing fractal", "pto.parse.type"),
    ("!pto.tile_buf<vec, f32>", "compact tile_buf", "pto.parse.type"),
    ("!pto.tile_buf<vec, 16x16xf32, shade=1>", "unknown compact", "pto.parse.type"),
    ("!pto.tile_buf<vec, 8x32xf16, valid=8x4, valid=8x8>", "duplicate valid", "pto.parse.tile_buf.duplicate"),
    ("!pto.tile_buf<vec, 8x?xf16>", "expected static shape", "pto.parse.tile_buf.static_shape"),
    ("!pto.tile_buf<vec, 8x32xf16, valid=8x4x1>", "exactly two dims", "pto.parse.tile_buf.valid_dims"),
    ("!pto.tile_buf<vec, 8x32xf16, valid=8x4xf16>", "exactly two dims", "pto.parse.tile_buf.valid_dims"),
])
def test_bad_tile_types(text, frag, rule):
    with pytest.raises(ParseError) as e:
        _spec(text)
    assert frag in e.value.detail and e.value.rule == rule and e.value.line == 1


# --------------------------------------------------------------- interpreter
def _softmax_ref(x):
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_example_kernels(target):
    x = np.load(EXAMPLES / "row_softmax_inputs.npz")["x"]
    y = pto.run_file(EXAMPLES / "row_softmax.pto", {"x": x}, target)["y"]
    assert y.shape == (8, 64) and np.abs(y - _softmax_ref(x)).max() < 1e-6
    # the same steps through the Python API give the same bits
    src = pto.Tile.from_array(x)
    mx = pto.Tile("vec", "f32", 8, 1, valid=(8, 1), blayout="col_major")
    e = pto.Tile("vec", "f32", 8, 64)
    pto.trowmax(mx, src, target=target)
    pto.trowexpandexpdif(e, src, mx, target=target)
    s = pto.Tile("vec", "f32", 8, 1, valid=(8, 1), blayout="col_major")
    pto.trowsum(s, e, target=target)
    pto.trowexpanddiv(e, e, s, target=target)
    assert (e.values == y).all()
    xa = np.load(EXAMPLES / "col_argmax_inputs.npz")["x"]
    out = pto.run_file(EXAMPLES / "col_argmax.pto", {"x": xa}, target)
    want = np.argmax(xa[:, :30], axis=0)
    assert (out["idx"].ravel() == want).all() and (out["vidx"].ravel() == want).all()
    assert (out["val"].ravel() == xa[:, :30].max(axis=0)).all() and out["idx"].dtype == np.uint32


def test_seed_forms_run():
    x = np.array([[3, 9, 1], [4, 4, 8]], np.float32)
    prog = ("%dst = pto.trowmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>\n"
            "%m = trowmax %src : !pto.tile<...> -> !pto.tile<...>\n"
            "%dstVal, %dstIdx = pto.tcolargmax %src, %tmp : (!pto.tile<...>, !pto.tile<...>) -> "
            "(!pto.tile<...>, !pto.tile<...>)\n"
            "%i = tcolargmax %src : !pto.tile<...> -> !pto.tile<...>\n")
    out = pto.run_text(prog, {"src": x, "tmp": x}, "a5")
    assert out["dst"].ravel().tolist() == [9, 8] and out["m"].ravel().tolist() == [9, 8]
    assert out["dstVal"].tolist() == [[4, 9, 8]] and out["dstIdx"].tolist() == [[1, 0, 1]]
    assert out["i"].tolist() == [[1, 0, 1]] and out["dstIdx"].dtype == np.int32


def test_assembly_dst_first_and_concrete_ssa_types():
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    out = pto.run_text("tadd %dst, %a, %a : !pto.tile<f32, 2, 8>\n"
                       "%d = pto.tmul %a, %a : (!pto.tile<2x8xf32>, !pto.tile<2x8xf32>) -> !pto.tile<2x8xf32>",
                       {"dst": np.zeros((2, 8), np.float32), "a": a})
    assert (out["d"] == a * a).all()


KERNEL = """
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index, %s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %half = arith.constant 0.5 : f32
    %xv = pto.make_tensor_view %x, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c2, %n] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x?xf32>
    %t = pto.alloc_tile valid_row = %c2 valid_col = %n : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<2x?xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    scf.for %i = %c0 to %c2 step %c1 {
      pto.tadds ins(%t, %s : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    }
    pto.tmuls ins(%t, %half : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c2, %n] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x?xf32>
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=?, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<2x?xf32>)
    return
  }
}
"""


def test_dynamic_valid_loops_scalars_and_lazy_outputs():
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    out = pto.run_text(KERNEL, {"x": x, "n": 5, "s": np.float32(1.0)}, "cpu")
    y = out["y"]
    assert y.shape == (2, 8)
    assert (y[:, :5] == (x[:, :5] + 2) * 0.5).all() and (y[:, 5:] == 0).all()


def _run_err(text, inputs=None, target="a5"):
    with pytest.raises(TilesimError) as e:
        pto.run_text(text, inputs or {}, target, source="k.pto")
    return e.value


def test_interpreter_errors_carry_lines():
    e = _run_err("%y = pto.tadd %a, %b : (!pto.tile<...>, !pto.tile<...>) -> !pto.tile<...>")
    assert (e.rule, e.line, e.column) == ("pto.interp.undefined", 1, 15)
    e = _run_err("\n%y = pto.tfrobnicate %a : !pto.tile<...> -> !pto.tile<...>", {"a": np.ones((1, 8), np.float32)})
    assert (e.rule, e.line) == ("pto.interp.op", 2)
    e = _run_err("\n\n%m = trowmax %src : !pto.tile<...> -> !pto.tile<4x1xf32>", {"src": np.ones((3, 8), np.float32)})
    assert (e.rule, e.line, e.instruction) == ("pto.op.rows_match", 3, "TROWMAX")
    assert str(e).startswith("k.pto:3:1: TROWMAX")
    bad = KERNEL.replace("valid_row = %c2 valid_col = %n ", "")
    assert _run_err(bad, {"x": np.zeros((2, 8), np.float32), "n": 5, "s": 1.0}).rule == "pto.interp.valid_operand"
    assert _run_err(KERNEL, {"x": np.full((2, 8), 0.1), "n": 5, "s": np.float32(1)}).rule == "pto.interp.input"
    assert _run_err(KERNEL, {"x": np.zeros((2, 8), np.float32), "n": 5}).rule == "pto.interp.input"
    assert _run_err(KERNEL, {"x": np.zeros((2, 8), np.float32), "n": 9, "s": np.float32(1)}).rule in (
        "pto.tile.valid", "pto.mem.window")
    e = _run_err("%t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>\npto.tassign %t, @tile(0x1010)")
    assert (e.rule, e.line) == ("pto.mem.align", 2)
    e = _run_err("%t = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>\n%i = pto.tcvt %t : !pto.tile<...> -> "
                 "!pto.tile<...>")
    assert e.rule == "pto.interp.infer"


def test_cli_run_and_demo(tmp_path):
    runner = CliRunner()
    out = tmp_path / "o.npz"
    r = runner.invoke(app, ["run", str(EXAMPLES / "col_argmax.pto"), "--target", "a2a3", "--input",
                            str(EXAMPLES / "col_argmax_inputs.npz"), "--output", str(out)])
    assert r.exit_code == 0, r.output
    assert "col_argmax.pto on a2a3" in r.output
    with np.load(out) as z:
        assert set(z.files) == {"idx", "val", "vidx"}
    r = runner.invoke(app, ["run", str(EXAMPLES / "row_softmax.pto"), "--rounding-model", "doc", "--input",
                            str(EXAMPLES / "row_softmax_inputs.npz")])
    assert r.exit_code == 2 and "does not apply" in r.output
    r = runner.invoke(app, ["demo"])
    assert r.exit_code == 0 and "Huawei PTO" in r.output and "col_argmax.pto" in r.output


TB = ("!pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=8, v_row=2, v_col=8, blayout=row_major, slayout=none_box, "
      "fractal=512, pad=0>")


@pytest.mark.parametrize("text,inputs,rule", [
    ("%c = arith.constant true : f32", {}, "pto.interp.constant"),
    ("%t = pto.alloc_tile : !pto.tile<...>", {}, "pto.interp.type"),
    ("%a = arith.constant 2 : index\n%v = pto.make_tensor_view %a, shape = [%a], strides = [%a] : "
     "!pto.tensor_view<?xf32>", {}, "pto.interp.operand"),
    ("func.func @k(%p: !pto.ptr<f32>) {\n%c2 = arith.constant 2 : index\n"
     "%v = pto.make_tensor_view %p, shape = [%c2, %c2], strides = [%c2] : !pto.tensor_view<?x?xf32>\nreturn\n}",
     {}, "pto.interp.view"),
    ("func.func @k(%p: !pto.ptr<f32>) {\n%c2 = arith.constant 2 : index\n"
     "%v = pto.make_tensor_view %p, shape = [%c2, %c2], strides = [%c2, %c2] : !pto.tensor_view<2x2xf32>\n"
     "%w = pto.partition_view %v, offsets = [%c2, %c2], sizes = [%c2, %c2] : !pto.tensor_view<2x2xf32> -> "
     "!pto.partition_tensor_view<2x2xf32>\nreturn\n}", {}, "pto.mem.window"),
    (f"%t = pto.alloc_tile : {TB}\n%c = arith.constant 1.0 : f32\nscf.for %i = %c to %c step %c {{\n}}", {},
     "pto.interp.index"),
    ("%x = arith.constant 1 : index\npto.tassign %x, @tile(0)", {}, "pto.interp.operand"),
    ("func.func @a() {\nreturn\n}", {}, None),
])
def test_more_interpreter_rules(text, inputs, rule):
    if rule is None:
        with pytest.raises(TilesimError) as e:
            pto.run_text(text, inputs, entry="b")
        assert e.value.rule == "pto.interp.entry"
        return
    e = _run_err(text, inputs)
    assert e.rule == rule and e.line >= 1


def test_tload_window_shape_must_match_the_tile():
    k = KERNEL.replace("valid_row = %c2 valid_col = %n", "valid_row = %c2 valid_col = %c8")
    e = _run_err(k, {"x": np.zeros((2, 8), np.float32), "n": 5, "s": np.float32(1)})
    assert e.rule == "pto.tload.shape"


INDEXED = """
module {
 func.func @k(%p: !pto.ptr<f32>, %q: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %bits = arith.constant 0x3FC00000 : f32
  %v = pto.make_tensor_view %p, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %w = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
  %t = tload %w[%ROW, %c0] : (!pto.partition_tensor_view<2x8xf32>, index, index) -> !pto.tile<...>
  %u = pto.tadds %t, %bits : (!pto.tile<...>, f32) -> !pto.tile<...>
  %qv = pto.make_tensor_view %q, shape = [%c2, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %qw = pto.partition_view %qv, offsets = [%c0, %c0], sizes = [%c2, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x8xf32>
  tstore %u, %qw[%c0, %c0] : !pto.tile<...>
  return
 }
}
"""


def test_indexed_views_and_hex_float_constants():
    p = np.arange(32, dtype=np.float32).reshape(4, 8)
    q = pto.run_text(INDEXED.replace("%ROW", "%c2"), {"p": p})["q"]
    assert (q == p[2:] + 1.5).all()  # 0x3FC00000 is the bit pattern of 1.5
    e = _run_err(INDEXED.replace("%ROW", "%c4"), {"p": p})
    assert e.rule == "pto.mem.window" and e.line == 12
