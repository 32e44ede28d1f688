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


def _typed_program(dt: str, body: str, n_iters: int, tile: str | None = None) -> str:
    """x, y, z: 16x16 ``dt`` inputs loaded into %a, %b, %c; ``body`` (``@T`` for the tile type) runs n_iters
    times; %c is stored to z."""
    t, v = tile or f"!pto.tile_buf<vec, 16x16x{dt}>", f"!pto.partition_tensor_view<16x16x{dt}>"
    views = "".join(
        f"    %{p}v = pto.make_tensor_view %{p}, shape = [%c16, %c16], strides = [%c16, %c1] : "
        f"!pto.tensor_view<?x?x{dt}>\n    %{p}p = pto.partition_view %{p}v, offsets = [%c0, %c0], "
        f"sizes = [%c16, %c16] : !pto.tensor_view<?x?x{dt}> -> {v}\n" for p in "xyz")
    loads = "".join(f"    %{n} = pto.alloc_tile : {t}\n    pto.tload ins(%{p}p : {v}) outs(%{n} : {t})\n"
                    for n, p in (("a", "x"), ("b", "y"), ("c", "z")))
    return (f"module {{\n  func.func @k(%x: !pto.ptr<{dt}>, %y: !pto.ptr<{dt}>, %z: !pto.ptr<{dt}>) attributes "
            f"{{pto.entry}} {{\n    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
            f"    %n = arith.constant {n_iters} : index\n    %c16 = arith.constant 16 : index\n{views}{loads}"
            f"    scf.for %i = %c0 to %n step %c1 {{\n{body.replace('@T', t)}    }}\n"
            f"    pto.tstore ins(%c : {t}) outs(%zp : {v})\n    return\n  }}\n}}\n")


def _both_ways(text: str, inputs: dict, monkeypatch) -> tuple:
    """(outputs, warnings) of a run whose loop body is bound (PTO166), then of the general way (a trace hook
    keeps every statement on it), and how many iterations ran bound."""
    import warnings
    bound = []
    run_calls = Interpreter._run_calls
    monkeypatch.setattr(Interpreter, "_run_calls", lambda self, calls: (bound.append(1), run_calls(self, calls)))
    got = []
    for trace in (None, lambda st, results: None):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got.append((pto.run_text(text, dict(inputs), target="cpu", trace=trace), [str(m.message) for m in w]))
    return got, len(bound)


def test_a_bound_loop_body_runs_as_the_general_way(monkeypatch):
    """tadd/tmul/texp in a loop body run as bound calls after the first iteration, with the general way's bits;
    %c accumulates in f32 as numpy's float32 arithmetic does, iteration by iteration."""
    body = ("      pto.tadd ins(%c, %a : @T, @T) outs(%c : @T)\n      pto.tmul ins(%c, %b : @T, @T) outs(%c : @T)\n"
            "      pto.texp ins(%a : @T) outs(%b : @T)\n      scf.yield\n")
    rng = np.random.default_rng(1)
    x, y = (rng.uniform(-0.5, 0.5, (16, 16)).astype(np.float32) for _ in range(2))
    ((fast, _), (general, _)), n_bound = _both_ways(_typed_program("f32", body, 6),
                                                  {"x": x, "y": y, "z": np.zeros((16, 16), np.float32)}, monkeypatch)
    assert n_bound == 5
    assert np.array_equal(fast["z"].view(np.uint32), general["z"].view(np.uint32))
    c, b = np.zeros((16, 16), np.float32), y
    for _ in range(6):
        c = (c + x) * b
        b = pto.texp(pto.Tile("vec", "f32", 16, 16), pto.Tile.from_array(x), target="cpu").values.copy()
    assert np.array_equal(fast["z"].view(np.uint32), c.view(np.uint32))


def test_a_bound_loop_body_fails_as_the_general_way(monkeypatch):
    """%b counts down 2, 1, 0: the third iteration's TDIV divides by zero; bound or not, the same error, at
    the TDIV statement's line and column, and %c keeps the second iteration's quotient."""
    from tilesim.errors import SpecGapError
    body = "      pto.tsub ins(%b, %c : @T, @T) outs(%b : @T)\n      pto.tdiv ins(%a, %b : @T, @T) outs(%a : @T)\n"
    text = _typed_program("i32", body, 5)
    inputs = {"x": np.full((16, 16), 12, np.int32), "y": np.full((16, 16), 3, np.int32),
              "z": np.ones((16, 16), np.int32)}
    errors = []
    for trace in (None, lambda st, results: None):
        with pytest.raises(SpecGapError) as e:
            pto.run_text(text, dict(inputs), target="cpu", trace=trace)
        errors.append((str(e.value), e.value.rule, e.value.line, e.value.column))
    assert errors[0] == errors[1]
    assert errors[0][1] == "pto.op.div_zero"
    assert errors[0][2] == next(i for i, ln in enumerate(text.splitlines(), 1) if "pto.tdiv" in ln)


def test_a_bound_loop_body_counts_undefined_casts_as_the_general_way(monkeypatch):
    """TCVT of NaN lanes to i32 on cpu, each iteration: the same warning (lanes summed over iterations)."""
    ti = "!pto.tile_buf<vec, 16x16xi32>"
    body = (f"      pto.tcvt ins(%a{{rmode = #pto<round_mode CAST_RINT>}} : @T) outs(%w : {ti})\n"
            "      pto.tadd ins(%a, %b : @T, @T) outs(%a : @T)\n")
    text = _typed_program("f32", body, 4).replace("    scf.for", f"    %w = pto.alloc_tile : {ti}\n    scf.for")
    x = np.zeros((16, 16), np.float32)
    x[0, :3] = np.nan
    ((fast, w_fast), (general, w_general)), n_bound = _both_ways(
        text, {"x": x, "y": np.ones((16, 16), np.float32), "z": np.zeros((16, 16), np.float32)}, monkeypatch)
    assert n_bound == 3
    assert np.array_equal(fast["z"], general["z"])
    assert w_fast == w_general and len(w_fast) == 1 and "12 elements" in w_fast[0]


def test_a_bound_loop_body_pulls_and_pushes_boxed_tiles(monkeypatch):
    """Boxed (Nz) tiles in a bound body: each call refreshes their logical copy and writes it back, so a
    later TSTORE sees the bytes; the same bits as the general way."""
    nz = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=col_major, "
          "slayout=row_major, fractal=512, pad=0>")
    body = "      pto.tadd ins(%c, %a : @T, @T) outs(%c : @T)\n      pto.tmul ins(%c, %b : @T, @T) outs(%c : @T)\n"
    rng = np.random.default_rng(2)
    x, y = (rng.uniform(0.5, 1.5, (16, 16)).astype(np.float32) for _ in range(2))
    ((fast, _), (general, _)), n_bound = _both_ways(_typed_program("f32", body, 4, nz),
                                                    {"x": x, "y": y, "z": np.zeros((16, 16), np.float32)},
                                                    monkeypatch)
    assert n_bound == 3
    c = np.zeros((16, 16), np.float32)
    for _ in range(4):
        c = (c + x) * y
    assert np.array_equal(fast["z"], c) and np.array_equal(general["z"], c)
