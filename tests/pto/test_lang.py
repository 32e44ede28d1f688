"""The .pto language on the byte-addressed memory model: placement and aliasing, control flow, calls,
global memory, blocks, sync, generic dispatch, and every malformed program as a TilesimError.

Expected values come from numpy on the inputs (the oracle), never from tilesim.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto.memory import Memory
from tilesim.pto.text.interp import Interpreter

F32_8x8 = "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=8, v_row=8, v_col=8, blayout=row_major, " \
          "slayout=none_box, fractal=512, pad=0>"
U32_8x8 = F32_8x8.replace("dtype=f32", "dtype=u32")
F32_4x16 = "!pto.tile_buf<loc=vec, dtype=f32, rows=4, cols=16, v_row=4, v_col=16, blayout=row_major, " \
           "slayout=none_box, fractal=512, pad=0>"


def _views(arg: str, name: str, r: int, c: int, dt: str = "f32") -> str:
    return (f"    %{name}v = pto.make_tensor_view %{arg}, shape = [%c{r}, %c{c}], strides = [%c{c}, %c1] "
            f": !pto.tensor_view<?x?x{dt}>\n"
            f"    %{name} = pto.partition_view %{name}v, offsets = [%c0, %c0], sizes = [%c{r}, %c{c}] "
            f": !pto.tensor_view<?x?x{dt}> -> !pto.partition_tensor_view<{r}x{c}x{dt}>\n")


CONSTS = "".join(f"    %c{n} = arith.constant {n} : index\n" for n in (0, 1, 2, 3, 4, 8, 16, 64))


def _err(text: str, inputs=None, **kw) -> TilesimError:
    with pytest.raises(TilesimError) as ei:
        pto.run_text(text, inputs or {}, **kw)
    return ei.value


# ----------------------------------------------------------------------------- memory model
ALIAS = f"""
module {{
  func.func @alias(%x: !pto.ptr<f32>, %y: !pto.ptr<u32>, %z: !pto.ptr<f32>) {{
{CONSTS}    %a0 = arith.constant 0 : i64
    %a128 = arith.constant 128 : i64
{_views("x", "xp", 8, 8)}{_views("y", "yp", 8, 8, "u32")}{_views("z", "zp", 4, 16)}
    %f = pto.alloc_tile addr = %a0 : {F32_8x8}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%f : {F32_8x8})
    %u = pto.alloc_tile addr = %a0 : {U32_8x8}
    pto.tstore ins(%u : {U32_8x8}) outs(%yp : !pto.partition_tensor_view<8x8xu32>)
    %w = pto.alloc_tile addr = %a0 : {F32_4x16}
    %o = pto.alloc_tile addr = %a128 : {F32_4x16}
    pto.tadd ins(%w, %w : {F32_4x16}, {F32_4x16}) outs(%o : {F32_4x16})
    pto.tstore ins(%o : {F32_4x16}) outs(%zp : !pto.partition_tensor_view<4x16xf32>)
    return
  }}
}}
"""


def test_tiles_at_one_address_share_bytes_in_each_dtype_and_shape():
    x = np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32)
    out = pto.run_text(ALIAS, {"x": x}, "a2a3")
    assert (out["y"] == x.view(np.uint32)).all()                  # same bytes read as u32
    # %o at byte 128 overlaps %w's second half; tadd reads %w (rows 0..3 of the 8x8 f32 bytes) first
    assert (out["z"] == x.reshape(4, 16) * 2).all()


def test_pointer_given_and_written_keeps_bit_patterns():
    """A pointer that is both an input and an output stores lane codes, not numbers (bf16 and f32)."""
    src = "\n".join([
        "module {", '  func.func @k(%x: !pto.ptr<bf16>, %y: !pto.ptr<bf16>) {', CONSTS,
        _views("x", "xp", 4, 16, "bf16"), _views("y", "yp", 4, 16, "bf16"),
        "    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=bf16, rows=4, cols=16, v_row=4, v_col=16, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>",
        "    pto.tload ins(%xp : !pto.partition_tensor_view<4x16xbf16>) outs(%t : !pto.tile_buf<loc=vec, dtype=bf16, "
        "rows=4, cols=16, v_row=4, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)",
        "    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=bf16, rows=4, cols=16, v_row=4, v_col=16, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<4x16xbf16>)",
        "    return", "  }", "}"])
    bf16 = pto.get_dtype("bf16").np
    bits = np.random.default_rng(2).integers(0, 0x7F00, 64).astype(np.uint16)
    x = bits.view(bf16).reshape(4, 16)
    y = np.zeros((4, 16), bf16)
    out = pto.run_text(src, {"x": x, "y": y}, "a5")
    assert (np.asarray(out["y"]).view(np.uint16) == bits.reshape(4, 16)).all()


def test_capacity_is_enforced_with_the_numbers():
    """Eight 128x128 f32 tiles (512 KiB) do not fit a2a3's 192 KiB UB (issue 9)."""
    ty = ("!pto.tile_buf<loc=vec, dtype=f32, rows=128, cols=128, v_row=128, v_col=128, blayout=row_major, "
          "slayout=none_box, fractal=512, pad=0>")
    allocs = "\n".join(f"    %t{i} = pto.alloc_tile : {ty}" for i in range(8))
    uses = "\n".join(f"    pto.tadd ins(%t{i}, %t{i} : {ty}, {ty}) outs(%t{i} : {ty})" for i in range(8))
    e = _err(f"module {{\n  func.func @k() {{\n{allocs}\n{uses}\n    return\n  }}\n}}\n", target="a2a3")
    assert e.rule == "pto.mem.capacity" and "196608" in str(e) and "65536" in str(e)
    m = Memory("a2a3")
    with pytest.raises(TilesimError) as ei:
        m.place(pto.Tile("vec", "f32", 128, 128), 0x28000)
    assert ei.value.rule == "pto.mem.bounds" and "0x28000" in str(ei.value)
    with pytest.raises(TilesimError) as ei:
        m.place(pto.Tile("vec", "f32", 8, 8), 0x10)
    assert ei.value.rule == "pto.mem.align"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([(8, 8), (16, 64), (64, 64), (1, 8), (32, 128)]), st.booleans()),
                min_size=1, max_size=24))
def test_auto_placement_never_overlaps_a_live_tile(ops):
    m = Memory("a5")
    live = []
    for (r, c), free in ops:
        if free and live:
            m.release(live.pop(0))
            continue
        try:
            t = m.place(pto.Tile("vec", "f32", r, c))
        except TilesimError as e:
            assert e.rule == "pto.mem.capacity"
            continue
        live.append(t)
        spans = sorted((x.addr, x.addr + x.span) for x in live)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
        assert spans[-1][1] <= pto.capacity("vec", "a5") and t.addr % 32 == 0


# ----------------------------------------------------------------------------- control flow and calls
FLOW = f"""
module {{
  func.func private @ext(%a: index) -> index
  func.func @scale(%t: {F32_8x8}, %o: {F32_8x8}, %s: f32) {{
    pto.tmuls ins(%t, %s : {F32_8x8}, f32) outs(%o : {F32_8x8})
    return
  }}
  func.func @count(%n: index) -> index {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r:2 = scf.while (%i = %c0, %acc = %c0) : (index, index) -> (index, index) {{
      %go = arith.cmpi slt, %i, %n : index
      scf.condition(%go) %i, %acc : index, index
    }} do {{
    ^bb0(%i2: index, %acc2: index):
      %i3 = arith.addi %i2, %c1 : index
      %a3 = arith.addi %acc2, %i2 : index
      scf.yield %i3, %a3 : index, index
    }}
    return %r#1 : index
  }}
  func.func @main(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index) attributes {{pto.entry}} {{
{CONSTS}{_views("x", "xp", 8, 8)}{_views("y", "yp", 8, 8)}
    %t = pto.alloc_tile : {F32_8x8}
    %o = pto.alloc_tile : {F32_8x8}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%t : {F32_8x8})
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {{
      %nx = arith.addi %acc, %c2 : index
      scf.yield %nx : index
    }}
    %tri = func.call @count(%n) : (index) -> index
    %big = arith.cmpi sgt, %tri, %c3 : index
    %s = scf.if %big -> (f32) {{
      scf.yield %two : f32
    }} else {{
      scf.yield %one : f32
    }}
    func.call @scale(%t, %o, %s) : ({F32_8x8}, {F32_8x8}, f32) -> ()
    %sf = arith.index_cast %sum : index to i32
    %sff = arith.sitofp %sf : i32 to f32
    pto.tadds ins(%o, %sff : {F32_8x8}, f32) outs(%o : {F32_8x8})
    pto.tstore ins(%o : {F32_8x8}) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    return
  }}
}}
"""


@pytest.mark.parametrize("n", [0, 2, 3, 5])
def test_for_while_if_and_calls(n):
    x = np.arange(64, dtype=np.float32).reshape(8, 8) / 8
    y = pto.run_text(FLOW, {"x": x, "n": n}, "a5")["y"]
    tri = n * (n - 1) // 2                                      # @count sums 0..n-1
    want = x * np.float32(2.0 if tri > 3 else 1.0) + np.float32(2 * n)
    assert (y == want).all()


def test_private_declaration_cannot_be_called_or_run():
    text = FLOW.replace("func.call @count(%n)", "func.call @ext(%n)")
    e = _err(text, {"x": np.zeros((8, 8), np.float32), "n": 1})
    assert e.rule == "pto.func.declared" and e.line > 1


BLOCKS = f"""
module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {{
{CONSTS}    %b = pto.get_block_idx
    %bi = arith.index_cast %b : i64 to index
    %row = arith.muli %bi, %c2 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c2, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x16xf32>
    %yp = pto.partition_view %yv, offsets = [%row, %c0], sizes = [%c2, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<2x16xf32>
    %t = pto.alloc_tile : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=16, v_row=2, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>
    pto.tload ins(%xp : !pto.partition_tensor_view<2x16xf32>) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=16, v_row=2, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    %bf = arith.sitofp %b : i64 to f32
    pto.tadds ins(%t, %bf : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=16, v_row=2, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>, f32) outs(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=16, v_row=2, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>)
    pto.tstore ins(%t : !pto.tile_buf<loc=vec, dtype=f32, rows=2, cols=16, v_row=2, v_col=16, blayout=row_major, slayout=none_box, fractal=512, pad=0>) outs(%yp : !pto.partition_tensor_view<2x16xf32>)
    return
  }}
}}
"""


def test_blocks_share_global_memory():
    x = np.ones((8, 16), np.float32)
    y = pto.run_text(BLOCKS, {"x": x}, "a5", blocks=4)["y"]
    assert (y == 1 + np.repeat(np.arange(4, dtype=np.float32), 2)[:, None]).all()
    y1 = pto.run_text(BLOCKS, {"x": x}, "a5")["y"]
    assert (y1[:2] == 1).all() and (y1[2:] == 0).all()


MEMREF = """
module {
  func.func @k(%a: memref<16x16xf16, #pto.address_space<gm>>, %b: memref<16x16xf16, #pto.address_space<gm>>) {
    %u = memref.alloc() : memref<16x16xf16, #pto.address_space<vec>>
    pto.tload ins(%a : memref<16x16xf16, #pto.address_space<gm>>) outs(%u : memref<16x16xf16, #pto.address_space<vec>>)
    pto.tadd ins(%u, %u : memref<16x16xf16, #pto.address_space<vec>>, memref<16x16xf16, #pto.address_space<vec>>) outs(%u : memref<16x16xf16, #pto.address_space<vec>>)
    pto.tstore ins(%u : memref<16x16xf16, #pto.address_space<vec>>) outs(%b : memref<16x16xf16, #pto.address_space<gm>>)
    return
  }
}
"""


def test_memref_arguments_and_alloc():
    a = (np.arange(256) % 17).astype(np.float16).reshape(16, 16)
    assert (pto.run_text(MEMREF, {"a": a}, "a2a3")["b"] == a * 2).all()


# ----------------------------------------------------------------------------- sync, dispatch, tprint
SYNC = f"""
module {{
  func.func @k(%t: {F32_8x8}, %o: {F32_8x8}) {{
    pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]
    pto.barrier <PIPE_ALL>
    pto.tabs ins(%t : {F32_8x8}) outs(%o : {F32_8x8})
    pto.pipe_barrier PIPE_V
    pto.tneg ins(%o : {F32_8x8}) outs(%o : {F32_8x8})
    pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID3>]
    pto.tprint ins(%o : {F32_8x8})
    return
  }}
}}
"""


def test_sync_ops_are_traced_and_do_not_swallow_the_next_op():
    t = -np.arange(64, dtype=np.float32).reshape(8, 8)
    buf = io.StringIO()
    it = Interpreter(pto.parse(SYNC), {"t": t, "o": t}, "a5", stdout=buf)
    out = it.run()
    assert (out["o"] == -np.abs(t)).all()                       # tabs and tneg both ran
    ops = [e[0] if isinstance(e, tuple) else str(e) for e in it.sync_traces[0]]
    assert len(ops) == 5
    assert any("EVENT_ID3" in i and "wait" in i for i in it.issues)      # no matching set_flag
    assert "63" in buf.getvalue()                               # tprint wrote the tile


def test_dotted_op_names_find_their_ops_table_entry(monkeypatch):
    from tilesim.pto import ops as ops_mod

    def tdouble_fast(dst, src, *, target=None):
        dst.values[...] = src.values * 2
        return dst
    monkeypatch.setitem(ops_mod.OPS, "tdouble_fast", tdouble_fast)
    text = SYNC.replace("pto.tneg", "pto.tdouble.fast")
    t = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = pto.run_text(text, {"t": t, "o": t}, "a5", stdout=io.StringIO())
    assert (out["o"] == 2 * t).all()


# ----------------------------------------------------------------------------- errors
def _body(lines: str, args: str = "") -> str:
    return f"module {{\n  func.func @k({args}) {{\n{CONSTS}{lines}\n    return\n  }}\n}}\n"


T = F32_8x8
CRASHES = [
    # a DPS op with the wrong number of operands
    (_body(f"    %t = pto.alloc_tile : {T}\n    pto.tadd ins(%t : {T}) outs(%t : {T})"), {}),
    # tcolargmax with an empty outs()
    (_body(f"    %t = pto.alloc_tile : {T}\n    pto.tcolargmax ins(%t : {T}) outs()"), {}),
    # arith.muli on a tile
    (_body(f"    %t = pto.alloc_tile : {T}\n    %m = arith.muli %t, %c2 : index"), {}),
    # set_validshape on a scalar
    (_body("    pto.set_validshape %c2, %c2, %c2 : index"), {}),
    # scf.for with step 0
    (_body("    scf.for %i = %c0 to %c4 step %c0 {\n    }"), {}),
    # floordivsi by zero
    (_body("    %q = arith.floordivsi %c4, %c0 : index"), {}),
    (_body("    %q = arith.remsi %c4, %c0 : index"), {}),
]


@pytest.mark.parametrize("text, inputs", CRASHES)
def test_former_crashes_are_tilesim_errors_with_a_position(text, inputs):
    e = _err(text, inputs)
    assert e.line and e.line > 2 and e.column


def test_division_by_zero_says_so():
    e = _err(_body("    %q = arith.divsi %c4, %c0 : index"))
    assert "zero" in str(e)


def test_trsqrt_with_tmp_operand():
    x = (np.arange(64, dtype=np.float32).reshape(8, 8) + 1)
    text = _body(f"    %o = pto.alloc_tile : {T}\n    %m = pto.alloc_tile : {T}\n"
                 f"    pto.trsqrt ins(%t, %m : {T}, {T}) outs(%o : {T})\n"
                 f"    pto.tstore ins(%o : {T}) outs(%yp : !pto.partition_tensor_view<8x8xf32>)",
                 f"%t: {T}, %y: !pto.ptr<f32>").replace("    return", _views("y", "yp", 8, 8) + "    return")
    # the view must exist before its use: put it first
    text = text.replace(f"    pto.tstore ins(%o : {T}) outs(%yp : !pto.partition_tensor_view<8x8xf32>)\n", "")
    text = text.replace("    return", f"    pto.tstore ins(%o : {T}) outs(%yp : !pto.partition_tensor_view<8x8xf32>)\n"
                                     "    return")
    y = pto.run_text(text, {"t": x}, "a5")["y"]                  # PTOAS emits this form: tmp is scratch
    assert np.allclose(y, 1 / np.sqrt(x), rtol=1e-6)


def test_missing_input_points_at_input_option():
    text = _body(f"    pto.tabs ins(%a : {T}) outs(%o : {T})", f"%a: {T}, %o: {T}")
    e = _err(text)
    assert e.rule == "pto.interp.input" and "--input a=" in str(e)
    e = _err(text, {"b": np.zeros((8, 8), np.float32)})
    assert e.rule == "pto.interp.input" and "'b'" in str(e) and "%a" in str(e)
    e = _err(text, {"a": np.zeros((4, 8), np.float32)})        # a 4x8 array for a declared 8x8 tile
    assert e.rule == "pto.interp.input" and "8x8" in str(e)
    e = _err(text, {"a": np.zeros((2, 8, 8), np.float32)})     # 3-D
    assert e.rule == "pto.interp.input"
    e = _err(text, {"a": np.full((8, 8), 0.1)})                # float64 that f32 cannot hold exactly
    assert e.rule == "pto.interp.input" and "float32" in str(e)


def test_declared_types_are_checked():
    e = _err(_body(f"    %t = pto.alloc_tile : {T.replace('f32', 'f33')}"))
    assert e.rule in ("pto.parse.type", "pto.dtype.name") and e.line == 11


def test_assembly_form_checks_inputs_against_declared_types():
    """Issue 9: the assembly form points at --input, and holds inputs to the declared shape and dtype."""
    src = "%y = pto.tabs %x : !pto.tile<64x128xf32> -> !pto.tile<64x128xf32>\n"
    e = _err(src)
    assert "--input x=" in str(e) and e.line == 1
    e = _err(src, {"x": np.ones((32, 128), np.float32)})
    assert e.rule == "pto.interp.input" and "64x128" in str(e)
    e = _err(src.replace("f32", "f33"), {"x": np.ones((64, 128), np.float32)})
    assert e.rule in ("pto.dtype.name", "pto.parse.type") and "f33" in str(e)


@pytest.mark.filterwarnings("ignore::tilesim.pto.text.interp.InputSizeWarning")  # the kernel reads rows 4..5 of 8
def test_window_past_the_view_static_is_an_error_dynamic_is_address_arithmetic():
    """Decision PTO26: PTOAS rejects a constant window outside a view whose type has that dim static; a run-time
    offset, or a ``?`` dim in the view's type, is address arithmetic bounded only by the buffer."""
    def kernel(row: str, dims: str = "?x?") -> str:
        return BLOCKS.replace("%row = arith.muli %bi, %c2 : index", f"%row = {row}").replace(
            "shape = [%c8, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>\n    %yv",
            f"shape = [%c2, %c16], strides = [%c16, %c1] : !pto.tensor_view<{dims}xf32>\n    %yv").replace(
            "%xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c2, %c16] : !pto.tensor_view<?x?xf32>",
            f"%xp = pto.partition_view %xv, offsets = [%row, %c0], sizes = [%c2, %c16] : !pto.tensor_view<{dims}xf32>")
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    e = _err(kernel("arith.constant 4 : index", "2x16"), {"x": x})
    assert e.rule == "pto.mem.window"
    for row in ("arith.addi %bi, %c4 : index", "arith.constant 4 : index"):
        y = pto.run_text(kernel(row), {"x": x}, "a5")["y"]
        assert (y[4:6] == x[4:6]).all()
    e = _err(kernel("arith.addi %bi, %c8 : index"), {"x": x})    # past the 8x16 buffer
    assert e.rule == "pto.mem.window"


def test_block_softmax_example_and_cli_blocks(tmp_path):
    """The demo's multi-function kernel: every block count gives the same bits, close to float64 softmax."""
    from pathlib import Path

    from typer.testing import CliRunner

    from tilesim.cli import app
    ex = Path(__file__).resolve().parents[2] / "examples" / "pto"
    inputs = dict(np.load(ex / "block_softmax_inputs.npz"))
    xs = inputs["x"].astype(np.float64) * 2
    e = np.exp(xs - xs.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    ys = [pto.run_file(ex / "block_softmax.pto", inputs, "a5", blocks=b)["y"] for b in (1, 3)]
    assert np.abs(ys[0] - ref).max() < 1e-6 and (ys[0].view(np.uint32) == ys[1].view(np.uint32)).all()
    out = tmp_path / "y.npz"
    r = CliRunner().invoke(app, ["run", str(ex / "block_softmax.pto"), "--target", "a5", "--blocks", "3",
                                 "--input", str(ex / "block_softmax_inputs.npz"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert (np.load(out)["y"].view(np.uint32) == ys[0].view(np.uint32)).all()
    r = CliRunner().invoke(app, ["run", str(ex / "block_softmax.pto"), "--blocks", "2"])
    assert r.exit_code != 0 and "--input x=" in r.output


# ----------------------------------------------------------------------------- module verifier (PTO34)
_CUBE = "attributes {pto.kernel_kind = #pto.kernel_kind<cube>}"
_VEC = "attributes {pto.kernel_kind = #pto.kernel_kind<vector>}"
_RES = ('    %{n} = pto.reserve_buffer {{name = "{b}", size = 2048, location = #pto.address_space<{loc}>, '
        'auto = true}} -> i32\n')
_IMP = '    %{n} = pto.import_reserved_buffer {{name = "{b}", peer_func = @{p}}} -> i32\n'
_ACC = ("!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
        "slayout=row_major, fractal=1024, pad=0>")
_VT = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row={v}, v_col={v}, blayout=row_major, "
       "slayout=none_box, fractal=512, pad=0>")


def _pair(cube_init: str, vec_init: str, push_split: int = 0, pop_split: int = 0, pop_args: str = "",
          v: str = "16") -> str:
    return (f"module {{\n  func.func @cube() {_CUBE} {{\n" + _RES.format(n="mine", b="v2c", loc="mat")
            + _IMP.format(n="theirs", b="c2v", p="vec") + cube_init
            + f"    %a = pto.alloc_tile : {_ACC}\n"
            f"    pto.tpush_to_aiv(%a : {_ACC}) {{split = {push_split}}}\n    return\n  }}\n"
            f"  func.func @vec() {_VEC} {{\n" + _RES.format(n="mine", b="c2v", loc="vec")
            + _IMP.format(n="theirs", b="v2c", p="cube") + vec_init
            + f"    %r = pto.tpop_from_aic{pop_args} {{split = {pop_split}}} -> {_VT.format(v=v)}\n"
            "    return\n  }\n}\n")


_INIT = ("    pto.{side}_initialize_pipe {{dir_mask = 1, slot_size = 1024{extra}}}\n"
         "      (c2v_consumer_buf = %{c} : i32, v2c_consumer_buf = %{v} : i32)\n")
CUBE_INIT = _INIT.format(side="aic", extra="", c="theirs", v="mine")
VEC_INIT = _INIT.format(side="aiv", extra="", c="mine", v="theirs")


@pytest.mark.parametrize("text, rule", [
    (_pair(CUBE_INIT, ""), "pto.pipe.peer"),
    (_pair(CUBE_INIT, VEC_INIT, push_split=1, pop_split=0), "pto.pipe.split"),
    (_pair(CUBE_INIT.replace("1024", "1024, nosplit = false"), VEC_INIT), "pto.pipe.nosplit"),
    (_pair(CUBE_INIT, VEC_INIT, pop_args="(%c4, %c4)"), "pto.pipe.valid_shape"),
    ("module {\n  func.func @k(%b: i32) {\n    %p = pto.initialize_l2l_pipe {dir_mask = 1, slot_size = 1024}"
     "(%b : i32) -> !pto.pipe\n    return\n  }\n}\n", "pto.pipe.local_addr"),
    (_body("    %tv = pto.make_tensor_view %x, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<8x64xf32>\n"
           "    %pv = pto.partition_view %tv, offsets = [%c0, %c0], sizes = [%c4, %c16] : "
           "!pto.tensor_view<8x64xf32> -> !pto.partition_tensor_view<4x64xf32>", "%x: !pto.ptr<f32>"),
     "pto.view.result_shape"),
])
def test_module_verifier_rejects_what_ptoas_rejects_in_any_function(text, rule):
    if "%c4" in text and "arith.constant 4" not in text:
        text = text.replace("  func.func @vec() " + _VEC + " {\n", "  func.func @vec() " + _VEC + " {\n"
                            "    %c4 = arith.constant 4 : index\n")
    with pytest.raises(TilesimError) as ei:
        Interpreter(pto.parse(text), {}, "a5").run()
    assert ei.value.rule == rule and ei.value.line > 1


def _tquant(dst: str, quant: str, offset: bool) -> str:
    """A TQUANT whose 8x8 u8/i8 dst is too narrow to place (8 bytes a row): only a check made before placement sees
    its quant_type/offset mismatch."""
    m = "memref<8x8x{}, #pto.address_space<vec>>".format
    ins = ["%s", "%fp"] + (["%off"] if offset else [])
    return ("module {\n  func.func @q() {\n"
            + "".join(f"    {v} = memref.alloc() : {m('f32')}\n" for v in ins)
            + f"    %d = memref.alloc() : {m(dst)}\n"
            + f"    pto.tquant ins({', '.join(ins)} : {', '.join([m('f32')] * len(ins))}) outs(%d : {m(dst)})"
            + f" {{quant_type = #pto<quant_type {quant}>}}\n    return\n  }}\n}}\n")


@pytest.mark.parametrize("dst, quant, offset, rule, frag", [
    ("ui8", "INT8_ASYM", False, "pto.tquant.offset", "requires an offset operand"),
    ("i8", "INT8_SYM", True, "pto.tquant.offset", "must not have an offset operand"),
    ("ui8", "INT8_SYM", False, "pto.tquant.quant_type", "dst element type i8 for INT8_SYM"),
    ("i8", "INT8_ASYM", True, "pto.tquant.quant_type", "dst element type u8 for INT8_ASYM"),
])
def test_tquant_operands_are_checked_against_quant_type_before_placement(dst, quant, offset, rule, frag):
    text = _tquant(dst, quant, offset)
    with pytest.raises(TilesimError) as ei:
        pto.run_text(text, {}, target="a5")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "pto.tquant" in ln)
    assert ei.value.rule == rule and frag in ei.value.detail and ei.value.line == line


def test_tquant_with_matching_operands_passes_the_verifier_and_fails_only_at_placement():
    with pytest.raises(TilesimError) as ei:
        pto.run_text(_tquant("ui8", "INT8_ASYM", True), {}, target="a5")
    assert ei.value.rule == "pto.tile.align"


def _tstore(tile: str, view: str) -> str:
    return ("module {\n  func.func @s(%p: !pto.partition_tensor_view<" + view + "xf32>) {\n"
            f"    %t = pto.alloc_tile : {tile}\n"
            f"    pto.tstore ins(%t : {tile}) outs(%p : !pto.partition_tensor_view<{view}xf32>)\n"
            "    return\n  }\n}\n")


@pytest.mark.parametrize("tile, view, bad", [
    (F32_8x8.replace("v_row=8", "v_row=4"), "8x8", True),           # 32 valid elements into 64
    ("!pto.tile_buf<vec, 8x8xf32, valid=8x2>", "4x2", True),         # 16 into 8
    (F32_8x8, "8x8", False),
    (F32_4x16, "8x8", False),                                        # the same count, reshaped: as PTOAS allows
    (F32_8x8.replace("v_row=8", "v_row=?"), "8x8", False),           # dynamic valid: checked when it runs
    ("!pto.tile_buf<vec, 8x8xf32, valid=2x8>", "1x16", False),
])
def test_tstore_element_count_of_static_valid_shape_and_view_must_match(tile, view, bad):
    from tilesim.pto.text.verify import verify
    if not bad:
        verify(pto.parse(_tstore(tile, view)))
        return
    with pytest.raises(TilesimError) as ei:
        verify(pto.parse(_tstore(tile, view)))
    assert ei.value.rule == "pto.tstore.count" and ei.value.line == 4 and "element count" in ei.value.detail


_MANUAL = ("module {\n  func.func @m() {\n"
           "    %r = pto.reserve_buffer {name = \"buf\", size = 4096, location = #pto.address_space<vec>, "
           "auto = {auto}{base}} -> i32\n    return\n  }\n}\n")


@pytest.mark.parametrize("level, auto, base, ok", [
    (None, "false", ", base = 0", False), ("level2", "false", ", base = 0", False),
    ("level3", "false", ", base = 0", True), (None, "true", "", True),
])
def test_manual_reserve_buffer_only_at_level3(level, auto, base, ok):
    from tilesim.pto.text.verify import verify
    program = pto.parse(_MANUAL.replace("{auto}", auto).replace("{base}", base))
    if ok:
        verify(program, level=level)
        return
    with pytest.raises(TilesimError) as ei:
        verify(program, level=level)
    assert ei.value.rule == "pto.mem.reserve_manual" and ei.value.line == 3 and "level3" in ei.value.detail


def test_module_verifier_accepts_a_consistent_pipe_pair():
    text = _pair(CUBE_INIT, VEC_INIT, pop_args="(%c4, %c4)", v="?").replace(
        "  func.func @vec() " + _VEC + " {\n", "  func.func @vec() " + _VEC + " {\n    %c4 = arith.constant 4 : index\n")
    from tilesim.pto.text.verify import verify
    verify(pto.parse(text))


_MAT = ("!pto.tile_buf<loc=mat, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
        "slayout=row_major, fractal=512, pad=0>")
_V16 = _VT.format(v="16")
PEERS = f"""
module {{
  func.func @host(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {{pto.entry}} {{
    func.call @cube(%x) : (!pto.ptr<f32>) -> ()
    func.call @vec(%x, %y) : (!pto.ptr<f32>, !pto.ptr<f32>) -> ()
    return
  }}
  func.func private @cube(%x: !pto.ptr<f32>) {_CUBE} {{
    %m = pto.tpop_from_aiv {{split = 0}} -> {_MAT}
    pto.tpush_to_aiv(%m : {_MAT}) {{split = 0}}
    return
  }}
  func.func private @vec(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) {_VEC} {{
{CONSTS}{_views("x", "xp", 16, 16)}{_views("y", "yp", 16, 16)}
    %t = pto.alloc_tile : {_V16}
    pto.tload ins(%xp : !pto.partition_tensor_view<16x16xf32>) outs(%t : {_V16})
    pto.tpush_to_aic(%t : {_V16}) {{split = 0}}
    %r = pto.tpop_from_aic {{split = 0}} -> {_V16}
    pto.tadd ins(%r, %t : {_V16}, {_V16}) outs(%r : {_V16})
    pto.tstore ins(%r : {_V16}) outs(%yp : !pto.partition_tensor_view<16x16xf32>)
    return
  }}
}}
"""


def test_cube_and_vector_functions_run_as_coroutines_over_their_pipes():
    """@cube is called first but pops what @vec pushes later: the calls take turns (PTO29)."""
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    assert (pto.run_text(PEERS, {"x": x}, "a5")["y"] == 2 * x).all()
    stuck = PEERS.replace(f"    pto.tpush_to_aic(%t : {_V16}) {{split = 0}}\n", "")
    e = _err(stuck, {"x": x}, target="a5")
    assert e.rule == "pto.pipe.empty" and e.line > 1
    # a vector push with split 1 is one subblock's half of the cube's tile; the other subblock is not modelled
    half = PEERS.replace(f"pto.tpush_to_aic(%t : {_V16}) {{split = 0}}", f"pto.tpush_to_aic(%t : {_V16}) {{split = 1}}")
    e = _err(half, {"x": x}, target="a5")
    assert e.rule == "pto.pipe.subblocks" and e.line > 1


def test_left_tile_buf_takes_the_targets_layout():
    """PTO35: as PTOAS's type parser, a Left tile_buf gets A2A3 row_major / A5 col_major whatever it says."""
    from tilesim.pto.targets import get_target
    from tilesim.pto.text.types import tile_spec
    for written in ("row_major", "col_major"):
        ty = pto.parse(f"module {{\n  func.func @k(%a: !pto.tile_buf<loc=left, dtype=f16, rows=16, cols=16, "
                       f"v_row=16, v_col=16, blayout={written}, slayout=row_major, fractal=512, pad=0>) {{\n"
                       "    return\n  }\n}\n").funcs[0].args[0][1]
        assert tile_spec(ty, get_target("a2a3")).blayout == "row_major"
        assert tile_spec(ty, get_target("a5")).blayout == "col_major"
        assert tile_spec(ty, get_target("cpu")).blayout == written


# ----------------------------------------------------------------------------- fuzz
ASSEMBLY = """%s = pto.tadd %x, %x : (!pto.tile<8x8xf32>, !pto.tile<8x8xf32>) -> !pto.tile<8x8xf32>
%m = pto.trowmax %s, %x : (!pto.tile<8x8xf32>, !pto.tile<8x8xf32>) -> !pto.tile<8x1xf32>
%z = tabs %s : !pto.tile<f32, 8, 8> -> !pto.tile<f32, 8, 8>
"""
SEEDS = [ALIAS, FLOW, BLOCKS, MEMREF, SYNC, PEERS, ASSEMBLY]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(0, 10 ** 6), st.sampled_from(
    ["", "%", "(", ")", "{", "}", ",", ":", "0", "-1", "f32", "index", "x", "<", ">", "=", "\n", "%c0", "@k",
     "scf.yield", "pto.tadd", "7", "i1", "ins(", "outs("]), st.integers(0, 3)), min_size=1, max_size=4))
def test_mutated_kernels_fail_only_with_tilesim_errors(seed, edits):
    text = seed
    for pos, tok, cut in edits:
        p = pos % (len(text) + 1)
        text = text[:p] + tok + text[p + cut:]
    x8 = np.ones((8, 8), np.float32)
    inputs = {"x": x8, "t": x8, "n": 2, "a": np.ones((16, 16), np.float16)}
    try:
        prog = pto.parse(text)
        names = {n for f in prog.funcs for n, _ in f.args}
        Interpreter(prog, {k: v for k, v in inputs.items() if k in names}, "a5", stdout=io.StringIO()).run()
    except TilesimError as e:
        assert e.line is None or e.line >= 1


def test_short_call_spelling():
    x = np.ones((8, 8), np.float32)
    y = pto.run_text(FLOW.replace("func.call @", "call @"), {"x": x, "n": 3}, "a5")["y"]
    assert (y == x * 1 + 6).all()                                  # @count(3) = 3, not > 3: scale 1


I32_8x8 = F32_8x8.replace("dtype=f32", "dtype=i32")
SPELLINGS = f"""
module {{
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) {{
{CONSTS}{_views("x", "xp", 8, 8)}{_views("y", "yp", 8, 8)}{_views("z", "zp", 8, 8)}
    %v = arith.constant dense<[1, 2, 3, 4]> : vector<4xi16>
    %k = arith.constant 7 : i32
    %t = pto.alloc_tile : {T}
    %o = pto.alloc_tile : {T}
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%t : {T})
    "pto.tadd"(%t, %t, %o) : ({T}, {T}, {T}) -> ()
    pto.tstore ins(%o{{atomic = #pto<atomic_type none>}} : {T}) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    %w = pto.alloc_tile : {I32_8x8}
    pto.tcvt ins(%t{{rmode = #pto<round_mode ROUND>}} : {T}) outs(%w : {I32_8x8}) {{note = 7 : i32}}
    %b = pto.alloc_tile : {T}
    pto.tcvt ins(%w : {I32_8x8}) outs(%b : {T})
    pto.tstore ins(%b : {T}) outs(%zp : !pto.partition_tensor_view<8x8xf32>)
    return
  }}
}}
"""


def test_attribute_and_operand_spellings():
    """Generic quoted form, attribute dicts inside ins(), dense<> vector constants, typed attributes."""
    x = (np.arange(64, dtype=np.float32).reshape(8, 8) * 0.75)
    try:
        out = pto.run_text(SPELLINGS, {"x": x}, "a5")
    except TilesimError as e:                    # the trailing {note = 7 : i32} is not a TCVT attribute
        assert e.rule == "pto.interp.attr" and e.line == 27 and "note" in str(e)
        out = pto.run_text(SPELLINGS.replace(" {note = 7 : i32}", ""), {"x": x}, "a5")
    assert (out["y"] == 2 * x).all()
    assert (out["z"] == np.floor(x + 0.5)).all()                   # ROUND: to nearest, ties away from zero


_LEFT8 = ("!pto.tile_buf<loc=left, dtype=f8E4M3FN, rows=16, cols=64, v_row=16, v_col=64, blayout=col_major, "
          "slayout=row_major, fractal=512, pad=0>")
_SCALE = ("!pto.tile_buf<loc={loc}, dtype=f16, rows=16, cols=64, v_row=16, v_col=64, blayout=row_major, "
          "slayout=row_major, fractal=512, pad=0>")
SCALE_ADDR = f"""
module {{
  func.func @k() {{
    %a = pto.alloc_tile addr = 1024 : {_LEFT8}
    %s = pto.alloc_tile : {_SCALE.format(loc="scaling")}
    pto.tget_scale_addr ins(%a : {_LEFT8}) outs(%s : {_SCALE.format(loc="scaling")})
    pto.tprint ins(%s : {_SCALE.format(loc="scaling")})
    return
  }}
}}
"""


def test_tget_scale_addr_places_the_scale_tile_at_the_shifted_address():
    """PTO41: on A5 the scale tile moves to its operand's address >> 4; elsewhere, or with a non-scaling dst,
    it is an error (PTOAS: only on A5, dst in the scaling address space)."""
    out = io.StringIO()
    Interpreter(pto.parse(SCALE_ADDR), {}, "a5", stdout=out).run()
    assert "@0x40:" in out.getvalue()                   # tprint names the tile's address: 1024 >> 4
    assert _err(SCALE_ADDR, {}, target="a2a3").rule == "pto.op.target"
    vec = SCALE_ADDR.replace(_SCALE.format(loc="scaling"), _SCALE.format(loc="vec").replace(
        "slayout=row_major", "slayout=none_box"))
    assert _err(vec, {}, target="a5").rule == "pto.op.loc"


def test_integer_literals_with_leading_zeros_are_decimal():
    """``08`` is decimal 8 (as MLIR reads it), not a Python octal error; hex keeps its base."""
    prog = pto.parse("func.func @k() {\n  %c = arith.constant 08 : index\n  %h = arith.constant 0x10 : index\n"
                 "  return\n}\n")
    assert [st.ins[0].value for st in prog.funcs[0].body[:2]] == [8, 16]
