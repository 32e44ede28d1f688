"""pto.bind_tile (PTO158): a local memref's bytes as a tile of the config's layout and valid shape."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError

_CFG = "{config = #pto.tile_buf_config<blayout=%d : i32, slayout=%d : i32, s_fractal_size=512, pad=0 : i32>}"


def _program(shape: str, valid: str, blayout: int, slayout: int) -> str:
    return f"""
module {{
  func.func @k(%x: memref<{shape}xf16, #pto.address_space<gm>>, %y: memref<{shape}xf16, #pto.address_space<gm>>,
               %whole: memref<{shape}xf16, #pto.address_space<gm>>) {{
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %a = memref.alloc() : memref<{shape}xf16, #pto.address_space<vec>>
    %z = arith.constant 0.0 : f16
    %av = pto.bind_tile %a{valid} {_CFG % (blayout, slayout)}
      : memref<{shape}xf16, #pto.address_space<vec>> -> memref<{shape}xf16, #pto.address_space<vec>>
    pto.tload ins(%x : memref<{shape}xf16, #pto.address_space<gm>>) outs(%av : memref<{shape}xf16, #pto.address_space<vec>>)
    pto.tstore ins(%av : memref<{shape}xf16, #pto.address_space<vec>>) outs(%y : memref<{shape}xf16, #pto.address_space<gm>>)
    pto.tstore ins(%a : memref<{shape}xf16, #pto.address_space<vec>>) outs(%whole : memref<{shape}xf16, #pto.address_space<gm>>)
    return
  }}
}}"""


def test_a_bound_nz_tile_aliases_the_memref_and_round_trips():
    x = (np.arange(16 * 16 * 16) % 1999).astype(np.float16).reshape(16, 16, 16)
    out = pto.run_text(_program("16x16x16", ", %c16, %c16", 1, 1), {"x": x}, "a5")
    assert (out["y"] == x).all()
    # %a's bytes are the Nz tile's: 16x16 boxes of 512 bytes, box (r, c) holding rows 16r.., columns 16c..
    flat = x.reshape(256, 16)
    assert (out["whole"].reshape(-1)[:256] == flat[:16, :16].reshape(-1)).all()


def test_valid_dims_of_a_2d_memref_shrink_the_region():
    g8, g16, v = ("memref<8x16xf16, #pto.address_space<gm>>", "memref<16x32xf16, #pto.address_space<gm>>",
                  "memref<16x32xf16, #pto.address_space<vec>>")
    text = f"""
func.func @k(%x: {g8}, %whole: {g16}) {{
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : {v}
  %av = pto.bind_tile %a, %c8, %c16 {_CFG % (0, 0)} : {v} -> {v}
  pto.tload ins(%x : {g8}) outs(%av : {v})
  pto.tstore ins(%a : {v}) outs(%whole : {g16})
  return
}}"""
    x = np.arange(8 * 16, dtype=np.float16).reshape(8, 16)
    out = pto.run_text(text, {"x": x, "whole": np.zeros((16, 32), np.float16)}, "a5")
    assert (out["whole"][:8, :16] == x).all() and not out["whole"][8:].any() and not out["whole"][:, 16:].any()


def test_part_of_a_rank3_memref_is_refused():
    x = np.zeros((16, 16, 16), np.float16)
    with pytest.raises(TilesimError, match=r"pto.bind_tile.valid.*PTOAS's tile is dims 0 x 1"):
        pto.run_text(_program("16x16x16", ", %c8, %c16", 1, 1), {"x": x}, "a5")
    with pytest.raises(TilesimError, match="pto.interp.attr"):
        pto.run_text(_program("16x16x16", "", 3, 1), {"x": x}, "a5")
