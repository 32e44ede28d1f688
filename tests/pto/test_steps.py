"""Prepared statements of the ``.pto`` interpreter (``pto/text/steps.py``): a loop body's tile ops run as
prepared steps, with the same results and the same errors as the general way."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import GeometryError
from tilesim.pto.text.interp import Interpreter

T = "!pto.tile_buf<vec, 16x16xf32>"
DYN = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, " \
      "slayout=none_box, fractal=512, pad=0>"
V = "!pto.partition_tensor_view<16x16xf32>"


def _views(ptr: str, name: str) -> str:
    return (f"    %{name}v = pto.make_tensor_view %{ptr}, shape = [%c16, %c16], strides = [%c16, %c1] : "
            f"!pto.tensor_view<?x?xf32>\n"
            f"    %{name} = pto.partition_view %{name}v, offsets = [%c0, %c0], sizes = [%c16, %c16] : "
            f"!pto.tensor_view<?x?xf32> -> {V}\n")


def _program(body: str, b_type: str = T, b_alloc: str = "pto.alloc_tile") -> str:
    return (f"module {{\n  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<f32>) attributes "
            f"{{pto.entry}} {{\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
            f"    %c3 = arith.constant 3 : index\n    %c8 = arith.constant 8 : index\n"
            f"    %c16 = arith.constant 16 : index\n{_views('x', 'xp')}{_views('y', 'yp')}{_views('z', 'zp')}"
            f"    %a = pto.alloc_tile : {T}\n    %b = {b_alloc} : {b_type}\n"
            f"    pto.tload ins(%xp : {V}) outs(%a : {T})\n    pto.tload ins(%yp : {V}) outs(%b : {b_type})\n"
            f"{body}    return\n  }}\n}}\n")


def _inputs():
    x, y = np.random.default_rng(0).standard_normal((2, 16, 16)).astype(np.float32)
    return x, y, {"x": x, "y": y, "z": np.zeros((16, 16), np.float32)}


def test_a_prepared_step_reads_the_tiles_bound_in_each_iteration():
    """The loop swaps its two carried tiles every iteration: the prepared TADD must follow the bindings."""
    body = (f"    %p, %q = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %a, %t = %b) -> ({T}, {T}) {{\n"
            f"      pto.tadd ins(%s, %t : {T}, {T}) outs(%s : {T})\n"
            f"      pto.texp ins(%t : {T}) outs(%t : {T})\n"
            f"      scf.yield %t, %s : {T}, {T}\n    }}\n"
            f"    pto.tstore ins(%p : {T}) outs(%zp : {V})\n")
    x, y, inputs = _inputs()
    run = Interpreter(pto.parse(_program(body)), inputs, "cpu")
    out = run.run()
    assert sorted(s.op for s in run._steps.values() if s is not None) == ["pto.tadd", "pto.texp"]
    s, t = x.copy(), y.copy()
    for _ in range(3):
        s = s + t
        t = pto.texp(pto.Tile("vec", "f32", 16, 16), pto.Tile.from_array(t), target="cpu").values.copy()
        s, t = t, s
    assert np.array_equal(out["z"], s)


def test_a_prepared_step_still_checks_valid_shapes_and_names_its_line():
    """The second iteration halves %b's valid rows: the prepared TADD refuses it, at its own line."""
    body = (f"    scf.for %i = %c0 to %c3 step %c1 {{\n"
            f"      %k = arith.muli %i, %c8 : index\n      %r = arith.subi %c16, %k : index\n"
            f"      pto.set_validshape %b, %r, %c16 : {DYN}\n"
            f"      pto.tadd ins(%a, %b : {T}, {DYN}) outs(%a : {T})\n    }}\n")
    text = _program(body, DYN, "pto.alloc_tile valid_row = %c16 valid_col = %c16")
    with pytest.raises(GeometryError) as e:
        pto.run_text(text, _inputs()[2], target="cpu")
    assert e.value.rule == "pto.op.valid_match"
    assert e.value.line == text.splitlines().index(next(ln for ln in text.splitlines() if "pto.tadd" in ln)) + 1
