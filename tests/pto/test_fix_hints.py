"""Errors that name the real fix (issue 20): a TLOAD straight from a !pto.ptr names make_tensor_view and
partition_view; a layout the type did not name is reported as the target's default."""

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError

PTR = """module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {
    %t = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32>
    pto.tload ins(%x : !pto.ptr<f32>) outs(%t : !pto.tile_buf<vec, 8x64xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 8x64xf32>) outs(%y : !pto.ptr<f32>)
    return
  }
}
"""


def test_a_tload_from_a_pointer_names_the_views_to_make():
    with pytest.raises(TilesimError) as e:
        pto.run_text(PTR, {"x": np.ones((8, 64), np.float32)}, "a5")
    err = e.value
    assert err.rule == "pto.interp.ptr" and err.operand == "x" and err.line == 4
    assert "pto.make_tensor_view %x" in str(err) and "pto.partition_view" in str(err)
    assert "2-D numpy array" not in str(err)


LEFT = {"plain": "!pto.tile_buf<left, 16x16xf16>", "slayout only": "!pto.tile_buf<left, 16x16xf16, slayout=col_major>"}
MATMUL = """module {{
  func.func @k() {{
    %a = pto.alloc_tile : {L}
    %b = pto.alloc_tile : {R}
    %c = pto.alloc_tile : {C}
    pto.tmatmul ins(%a, %b : {L}, {R}) outs(%c : {C})
    return
  }}
}}
"""
R = "!pto.tile_buf<right, 16x16xf16, blayout=row_major, slayout=col_major>"
C = "!pto.tile_buf<acc, 16x16xf32, blayout=col_major, slayout=row_major, fractal=1024>"


@pytest.mark.parametrize("left, says", [
    ("plain", "not col_major/none_box (the type names no layout: col_major is a5's default blayout for a left "
              "tile, none_box is the default slayout)"),
    ("slayout only", "not col_major/col_major (the type names no blayout: col_major is a5's default blayout for "
                     "a left tile)"),
])
def test_a_layout_the_type_did_not_name_is_reported_as_the_targets_default(left, says):
    with pytest.raises(TilesimError) as e:
        pto.run_text(MATMUL.format(L=LEFT[left], R=R, C=C), {}, "a5")
    assert e.value.rule == "pto.op.layout" and says in str(e.value), str(e.value)


def test_a_layout_the_type_named_has_no_note():
    left = "!pto.tile_buf<left, 16x16xf16, blayout=col_major, slayout=col_major>"
    with pytest.raises(TilesimError) as e:
        pto.run_text(MATMUL.format(L=left, R=R, C=C), {}, "a5")
    assert "not col_major/col_major;" in str(e.value) and "the type names no" not in str(e.value)
