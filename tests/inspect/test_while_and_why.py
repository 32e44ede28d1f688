"""PTO steps inside scf.while carry iteration numbers; why lines keep only the rules whose dtype condition the
step's source tiles meet (PTO100)."""

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


def test_why_keeps_only_rules_for_the_source_dtype():
    """PTO8 states u16/u32 sources for the float compare and 2-byte sources for the f16 index and the int16
    row counter; PTO2's NaN rule needs a float source."""
    text = {d: " | ".join(why("pto.tcolargmax", "a2a3", "a5", (d, d))) for d in ("u32", "u16", "f16", "f32", "i32")}
    unsigned, index, counter = "compares u16/u32", "index through f16", "rows in int16"
    assert unsigned in text["u32"] and index not in text["u32"] and counter not in text["u32"]
    assert "PTO2" not in text["u32"] and "PTO2" not in text["i32"]
    assert unsigned in text["u16"] and index in text["u16"] and counter in text["u16"]
    assert unsigned not in text["f16"] and index in text["f16"] and "PTO2" in text["f16"]
    assert unsigned not in text["f32"] and index not in text["f32"] and "PTO2" in text["f32"]
    # a step without dtypes (a trace file written before they were recorded) keeps every row
    assert all(s in " | ".join(why("pto.tcolargmax", "a2a3", "a5")) for s in (unsigned, index, counter, "PTO2"))


def test_why_general_rows_need_a_float_source():
    assert [r.split(":")[0] for r in why("pto.tadd", "cpu", "a5", ("f32", "f32"))] == ["PTO4", "PTO91"]
    assert why("pto.tadd", "cpu", "a5", ("i32", "i32")) == []
    assert "PTO9:" in " ".join(why("pto.tcmp", "a2a3", "a5", ("i32", "i32")))
    assert "PTO9:" not in " ".join(why("pto.tcmp", "a2a3", "a5", ("f32", "f32")))


def test_steps_record_their_source_dtypes_through_the_file(tmp_path):
    from tilesim.inspect.steps import load, save
    x = dict(np.load("examples/pto/layernorm_inputs.npz"))
    steps = trace_file("examples/pto/layernorm.pto", x, "cpu").steps
    assert steps[0].op == "pto.tload" and steps[0].dtypes == ()
    assert steps[2].op == "pto.trowsum" and steps[2].dtypes == ("f32",)
    save(tmp_path / "t.npz", steps)
    assert [s.dtypes for s in load(tmp_path / "t.npz")[0]] == [s.dtypes for s in steps]
