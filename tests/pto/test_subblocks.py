"""Two vector subblocks (PTO157): where a vector function pushes half of the cube's tile (split 1 or 2), it runs
as subblocks 0 and 1, each with its own buffers, and the cube's pop joins their halves."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError

VEC = ("!pto.tile_buf<loc=vec, dtype=f32, rows={r}, cols={c}, v_row={r}, v_col={c}, blayout=row_major, "
       "slayout=none_box, fractal=512, pad=0>")
MAT = ("!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, slayout=row_major, "
       "fractal=512, pad=0>")


def program(split: int, cube_push_split: int | None = None) -> str:
    """Each subblock loads its half of x (rows, or columns for split 2) and pushes it; the cube joins the halves,
    doubles them, and pushes the 16x16 tile back with split ``cube_push_split``; each subblock stores what it pops
    into its half of y, and writes get_subblock_num into n."""
    hr, hc = (8, 16) if split == 1 else (16, 8)
    back = split if cube_push_split is None else cube_push_split
    br, bc = (8, 16) if back == 1 else (16, 8) if back == 2 else (16, 16)
    half, got = VEC.format(r=hr, c=hc), VEC.format(r=br, c=bc)
    return f"""
module {{
  func.func @cube(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: !pto.ptr<i32>)
      attributes {{pto.kernel_kind = #pto.kernel_kind<cube>}} {{
    %imp = pto.import_reserved_buffer {{name = "c2v_fifo", peer_func = @vec}} -> i32
    %res = pto.reserve_buffer {{name = "v2c_fifo", size = 8192, location = #pto.address_space<mat>, auto = true}} -> i32
    pto.aic_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %imp : i32, v2c_consumer_buf = %res : i32)
    %m = pto.tpop_from_aiv {{split = {split}}} -> {MAT}
    pto.tpush_to_aiv(%m : {MAT}) {{split = {back}}}
    pto.tfree_from_aiv {{split = {split}}}
    return
  }}
  func.func private @vec(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: !pto.ptr<i32>)
      attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %hr = arith.constant {hr} : index
    %hc = arith.constant {hc} : index
    %br = arith.constant {br} : index
    %bc = arith.constant {bc} : index
    %loc = pto.reserve_buffer {{name = "c2v_fifo", size = 8192, location = #pto.address_space<vec>, auto = true}} -> i32
    %imp = pto.import_reserved_buffer {{name = "v2c_fifo", peer_func = @cube}} -> i32
    pto.aiv_initialize_pipe {{dir_mask = 3, slot_size = 1024}} (c2v_consumer_buf = %loc : i32, v2c_consumer_buf = %imp : i32)
    %sbi = pto.get_subblock_idx
    %sbn = pto.get_subblock_num
    %sb = arith.index_cast %sbi : i64 to index
    %r0 = arith.muli %sb, %hr : index
    %xv = pto.make_tensor_view %x, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %yv = pto.make_tensor_view %y, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<16x16xf32>
    %nv = pto.make_tensor_view %n, shape = [%c1, %c1], strides = [%c1, %c1] : !pto.tensor_view<1x1xi32>
    %h = pto.alloc_tile : {half}
    {"%xp = pto.partition_view %xv, offsets = [%r0, %c0], sizes = [%hr, %hc]" if split == 1 else
     "%c8 = arith.constant 8 : index" + chr(10) + "    %k0 = arith.muli %sb, %c8 : index" + chr(10) +
     "    %xp = pto.partition_view %xv, offsets = [%c0, %k0], sizes = [%hr, %hc]"} : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<{hr}x{hc}xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<{hr}x{hc}xf32>) outs(%h : {half})
    pto.tpush_to_aic(%h : {half}) {{split = {split}}}
    %g = pto.tpop_from_aic {{split = {back}}} -> {got}
    {"%s0 = arith.muli %sb, %br : index" + chr(10) + "    %yp = pto.partition_view %yv, offsets = [%s0, %c0], sizes = [%br, %bc]"
     if back == 1 else "%c8b = arith.constant 8 : index" + chr(10) + "    %s0 = arith.muli %sb, %c8b : index" + chr(10) +
     "    %yp = pto.partition_view %yv, offsets = [%c0, %s0], sizes = [%br, %bc]" if back == 2 else
     "%yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%br, %bc]"} : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<{br}x{bc}xf32>
    pto.tstore ins(%g : {got}) outs(%yp : !pto.partition_tensor_view<{br}x{bc}xf32>)
    %w = arith.index_cast %sbn : i64 to i32
    pto.tnotify ins(%w : i32) outs(%nv : !pto.tensor_view<1x1xi32>) {{op = #pto.notify_op<Set>}}
    pto.tfree_from_aic {{split = {back}}}
    return
  }}
}}
"""


@pytest.mark.parametrize("split", [1, 2])
def test_the_cube_joins_the_subblocks_halves_and_each_pops_its_own(split):
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    out = pto.run_text(program(split), {"x": x}, "a5")
    # a half from one subblock only, or the halves in the wrong order, would not give x back
    assert (out["y"].reshape(16, 16) == x).all() and out["n"].tolist() == [[2]]


def test_the_pipes_with_two_subblocks():
    from tilesim.pto.text.pipes import Pipes
    p = Pipes(two_subblocks=True)
    top, bottom = pto.Tile("vec", "f32", 8, 16), pto.Tile("vec", "f32", 8, 16)
    top.values[...], bottom.values[...] = 1.0, 2.0
    with pytest.raises(TilesimError, match="pto.pipe.subblocks"):
        p.push("v2c", top, 0, "pto.tpush_to_aic", 0)                  # a whole tile would arrive twice
    p.push("v2c", bottom, 1, "pto.tpush_to_aic", 1)
    assert not p.ready("v2c", 0)                                       # the cube waits for both halves
    p.push("v2c", top, 1, "pto.tpush_to_aic", 0)
    whole = p.pop("v2c", pto.Tile("mat", "f32", 16, 16, blayout="col_major", slayout="row_major"), 1, 0, "pop")
    assert (whole.values[:8] == 1).all() and (whole.values[8:] == 2).all()
    p.push("c2v", whole, 0, "pto.tpush_to_aiv")                        # split 0: each subblock its own copy
    for sub in (0, 1):
        got = p.pop("c2v", pto.Tile("vec", "f32", 16, 16), 0, sub, "pop")
        assert (got.values == whole.values).all()
    assert p.leftovers() == []


def test_a_tfree_before_the_first_pop_drops_the_first_payload():
    """PTO197 in `.pto`: the consumer's TFREE before its first pop drops the oldest unsplit payload (the
    simulator frees its slot 0), once; after a pop, TFREE changes nothing (pops take their payload)."""
    from tilesim.pto.text.pipes import Pipes
    p = Pipes()
    tiles = [pto.Tile("vec", "f32", 8, 16) for _ in range(3)]
    for k, t in enumerate(tiles):
        t.values[...] = k
        p.push("c2v", t, 0, "pto.tpush_to_aiv")
    p.free("c2v", 0)
    assert (p.pop("c2v", pto.Tile("vec", "f32", 8, 16), 0, 0, "pop").values == 1).all()
    p.free("c2v", 0)
    p.free("c2v", 0)
    assert (p.pop("c2v", pto.Tile("vec", "f32", 8, 16), 0, 0, "pop").values == 2).all()
    p.free("v2c", 0)                                                   # nothing queued: nothing to drop
    assert p.leftovers() == []
