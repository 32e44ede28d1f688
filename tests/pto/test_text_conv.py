"""The ``.pto`` forms of TIMG2COL, the SET_* registers and TPREFETCH_ASYNC (decision PTO187): the same values and
the same refusals as their Python forms, with the statement's file:line:col."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import ParseError, StateError, TilesimError
from tilesim.pto import BlockConfig, ConvTile, Tile
from tilesim.pto.text.interp import Interpreter, run_text
from tilesim.pto.text.parser import parse

CONV = "!pto.conv_tile<mat, 1x1x2x2x8xf32, filter_h=2, filter_w=2, fmap_h=2, fmap_w=2, pad_list=[1, 0, 1, 0], " \
       "pad_value=-1.5>"
LEFT = {"a5": "!pto.tile_buf<left, 16x32xf32, valid=4x32, blayout=col_major, slayout=row_major>",
        "cpu": "!pto.tile_buf<left, 16x32xf32, valid=4x32, blayout=col_major, slayout=row_major>",
        "a2a3": "!pto.tile_buf<left, 16x32xf32, valid=4x32, slayout=row_major>"}    # A2A3's Left tile: Zz (PTO187)
SETS = """  pto.setfmatrix ins(%fm : {conv}) outs() {{mode = #pto<fmatrix_mode b_manual>}}
  pto.set_img2col_rpt %fm : {conv} -> () {{mode = #pto<fmatrix_mode b_manual>}}
  pto.set_img2col_padding ins(%fm : {conv}) outs() {{mode = #pto<fmatrix_mode b_manual>}}
"""
KERNEL = """func.func @k(%fm : {conv}, %out : {left}) {{
{sets}  pto.timg2col ins(%fm : {conv}) outs(%out : {left}) {{mode = #pto<fmatrix_mode b_manual>}}
  return
}}
"""


def _fmap() -> np.ndarray:
    return (np.arange(32, dtype=np.float32) + 1).reshape(1, 1, 2, 2, 8)     # channel 0: 1, 9, 17, 25


def _kernel(target: str, sets: str = SETS) -> str:
    return KERNEL.format(conv=CONV, left=LEFT[target], sets=sets.format(conv=CONV))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_timg2col_program_gives_the_python_forms_values(target):
    out = run_text(_kernel(target), {"fm": _fmap()}, target)["out"]
    src = ConvTile("f32", (1, 1, 2, 2, 8), filter_h=2, filter_w=2, fmap_h=2, fmap_w=2, pad_list=(1, 0, 1, 0),
                   pad_value=-1.5)
    src.values[...] = _fmap()
    dst = Tile("left", "f32", 16, 32, (4, 32), "row_major" if target == "a2a3" else "col_major", "row_major")
    cfg = BlockConfig()
    for op in (pto.setfmatrix, pto.set_img2col_rpt, pto.set_img2col_padding):
        op(src, mode="b_manual", config=cfg, target=target)
    pto.timg2col(dst, src, mode="b_manual", config=cfg, target=target)
    assert np.array_equal(out.view(np.uint32), dst.values[:4, :32].view(np.uint32))
    # by hand: output pixel (0, 0) is the 2x2 window at (-1, -1): pads but for the fmap's (0, 0) at (kh, kw) = (1, 1)
    assert out[0, ::8].tolist() == [-1.5, -1.5, -1.5, 1.0]


def test_ssa_form_scalar_positions_and_the_page_spelling():
    text = f"""func.func @k(%fm : {CONV}, %out : {LEFT['a5']}) {{
  %m = arith.constant 1 : index
  %k = arith.constant 8 : index
  pto.SETFMATRIX %fm : {CONV} -> ()
  pto.set_img2col_rpt ins(%fm : {CONV}) outs()
  pto.set_img2col_padding ins(%fm : {CONV}) outs()
  pto.timg2col ins(%fm, %m, %k : {CONV}, index, index) outs(%out : {LEFT['a5']})
  return
}}
"""
    out = run_text(text, {"fm": _fmap()}, "a5")["out"]
    # row 0 is output pixel 1 (oh 0, ow 1); column c is k = 8 + c: column 0 the (kh, kw) = (0, 1) tap, in the
    # top pad; column 16 the (1, 1) tap, fmap (0, 1), whose channel 0 is 9
    assert out[0, 0] == -1.5 and out[0, 16] == 9.0


def test_each_block_has_its_own_registers():
    text = f"""func.func @k(%fm : {CONV}, %s : f32) {{
  %b = pto.get_block_idx
  %c0 = arith.constant 0 : i64
  %first = arith.cmpi eq, %b, %c0 : i64
  scf.if %first {{
    pto.setfmatrix ins(%fm : {CONV}) outs()
    pto.set_quant_scalar ins(%s : f32) outs() {{outType = i8}}
  }}
  return
}}
"""
    it = Interpreter(parse(text), {"fm": _fmap(), "s": -0.5}, "a5", blocks=2)
    it.run()
    one, two = it._registers[(0, 0)], it._registers.get((1, 0), BlockConfig())
    assert one.banks["a"].fmatrix == 0x00_01_00_01_0002_0002       # pads (1, 0, 1, 0) from bit 32; H 2, W 2
    assert one.quant_scalar == 0xFFFFFFFF_BF000000 | 1 << 46        # -0.5 sign-extended, i8's bit 46
    assert two.banks["a"].fmatrix is None and two.quant_scalar is None


def _raises(text: str, rule: str, where: str, inputs=None, target="a5", cls=TilesimError):
    with pytest.raises(cls, match=rule) as e:
        run_text(text, inputs if inputs is not None else {"fm": _fmap()}, target, source="k.pto")
    assert str(e.value).startswith(f"k.pto:{where}:"), str(e.value)
    return e.value


def test_refusals_are_the_python_forms_with_the_statements_place():
    no_sets = _kernel("a5", sets="")
    _raises(no_sets, "pto.timg2col.config", "2:3", cls=StateError)
    wrong = _kernel("a5").replace("left, 16x32xf32", "vec, 16x32xf32")
    _raises(wrong, "pto.op.loc", "5:3")
    _raises(_kernel("a5").replace("outs() {mode = #pto<fmatrix_mode b_manual>}",
                                  "outs() {mode = #pto<fmatrix_mode c_manual>}", 1), "pto.img2col.mode", "2:3")
    _raises(_kernel("a5").replace("b_manual>}\n  pto.set_img2col_rpt", "b_manual>, config = 1}\n  pto.set_img2col_rpt"),
            "pto.interp.attr", "2:3")
    quant = """func.func @k(%s : f32) {{
  {stmt}
  return
}}
"""
    _raises(quant.format(stmt="pto.set_quant_scalar ins(%s : f32) outs()"), "pto.interp.attr", "2:3", {"s": 1.0})
    _raises(quant.format(stmt="pto.set_quant_scalar ins(%s : f32) outs() {outType = q9}"), "pto.dtype", "2:3",
            {"s": 1.0})
    vec = """func.func @k() {
  %c0 = arith.constant 0 : index
  %fp = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 1x128xu64>
  pto.set_quant_vector ins(%fp : !pto.tile_buf<vec, 1x128xu64>) outs()
  return
}
"""
    _raises(vec, "pto.op.loc", "4:3", {})


def test_conv_tile_type_and_input_refusals():
    bad_pad = _kernel("cpu").replace("pad_value=-1.5", "pad_value=0.1")
    e = _raises(bad_pad, "pto.parse.conv_tile", "1:20", target="cpu", cls=ParseError)
    assert "binary64" in str(e)
    _raises(_kernel("cpu").replace("fmap_h=2,", "fmap_h=70000,"), "pto.convtile.field", "1:20", target="cpu")
    _raises(_kernel("cpu").replace("filter_h=2,", "filter_h=2, filter_h=1,"), "pto.parse.conv_tile", "1:20",
            target="cpu")
    _raises(_kernel("cpu"), "pto.interp.input", "1:1", {"fm": _fmap().reshape(1, 1, 4, 8)}, "cpu")
    _raises(_kernel("cpu"), "pto.interp.input", "1:1", {}, "cpu")
    alloc = f"""func.func @k() {{
  %c0 = arith.constant 0 : index
  %fm = pto.alloc_tile addr = %c0 : {CONV}
  pto.setfmatrix ins(%fm : {CONV}) outs()
  return
}}
"""
    _raises(alloc, "pto.interp.valid_operand", "3:3", {})
    assert run_text(alloc.replace("addr = %c0 ", ""), {}, "a5") == {}


PREFETCH = """func.func @k(%g : !pto.ptr<f32>, %ws : !pto.ptr<{ws}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %v = pto.make_tensor_view %g, shape = [%c4, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c4, %c{cols}] : !pto.tensor_view<?x?xf32> -> \
!pto.partition_tensor_view<4x{cols}xf32>
  %e = pto.tprefetch_async ins(%p, %ws : !pto.partition_tensor_view<4x{cols}xf32>, !pto.ptr<{ws}>) outs()
  %done = pto.wait_async_event %e
  return
}}
"""


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tprefetch_async_changes_nothing_and_checks_its_operands(target):
    g = np.arange(32, dtype=np.float32)
    inputs = {"g": g, "ws": np.zeros(256, np.uint8)}
    assert run_text(PREFETCH.format(ws="u8", cols=8), inputs, target) == {}
    assert np.array_equal(g, np.arange(32, dtype=np.float32))
    _raises(PREFETCH.format(ws="u8", cols=4), "pto.prefetch.contiguous", "8:3", inputs, target)
    _raises(PREFETCH.format(ws="f32", cols=8), "pto.prefetch.workspace", "8:3",
            {"g": g, "ws": np.zeros(4, np.float32)}, target)
