"""PTO steps inside scf.while carry iteration numbers (PTO100); why lines keep only rules whose dtype condition
holds (PTO100)."""

import numpy as np

from tilesim.pto.trace import trace_file, why

T = "!pto.tile_buf<vec, 8x16xf32>"
V = "!pto.partition_tensor_view<8x16xf32>"
WHILE = f"""\
module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> {V}
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c16] : !pto.tensor_view<?x?xf32> -> {V}
    %a = pto.alloc_tile : {T}
    pto.tload ins(%xp : {V}) outs(%a : {T})
    %r = scf.while (%i = %c0) : (index) -> (index) {{
      pto.tadds ins(%a, %one : {T}, f32) outs(%a : {T})
      %go = arith.cmpi slt, %i, %c3 : index
      scf.condition(%go) %i : index
    }} do {{
    ^bb0(%i2: index):
      pto.tmuls ins(%a, %one : {T}, f32) outs(%a : {T})
      %i3 = arith.addi %i2, %c1 : index
      scf.yield %i3 : index
    }}
    pto.tstore ins(%a : {T}) outs(%yp : {V})
    return
  }}
}}
"""


def test_scf_while_steps_carry_iteration_numbers(tmp_path):
    p = tmp_path / "w.pto"
    p.write_text(WHILE)
    x = np.zeros((8, 16), np.float32)
    out, steps = trace_file(p, {"x": x, "y": np.zeros_like(x)}, "cpu")
    # the condition runs 4 times (i = 0, 1, 2, 3), the body 3 times; both regions of iteration k number k
    assert [(s.op, s.iters) for s in steps] == [("pto.tload", ())] + [
        x for k in range(3) for x in ((("pto.tadds", (k,)), ("pto.tmuls", (k,))))] + [
        ("pto.tadds", (3,)), ("pto.tstore", ())]
    assert (out["y"] == 4).all()
