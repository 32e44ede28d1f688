"""Bound loop bodies (``pto/text/bound.py``, decisions PTO166 and PTO116): bodies holding ``alloc_tile``, integer
arith, partition views and windowed TLOAD/TSTORE run as bound calls after their first iteration, with the bits,
errors, undefined-lane counts and window notes of the general way (which a trace hook keeps every statement on)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto.memory import Memory
from tilesim.pto.text.interp import Interpreter

T = ("!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, slayout=none_box, "
     "fractal=512, pad=0>")
V = "!pto.partition_tensor_view<1x16xf32>"
TV = "!pto.tensor_view<?x?xf32>"
ROWS = 6


def _program(body: list[str], iters: int = 3) -> str:
    """x (ROWS x 16 f32) and z (ROWS x 16 f32) as views %xv, %zv; %acc (a tile at 0x400) is stored to z's last row
    after ``iters`` iterations of ``body``."""
    consts = "".join(f"    %c{k} = arith.constant {k} : index\n" for k in (0, 1, 2, 3, 5, 16))
    addrs = "".join(f"    %a{k} = arith.constant {k * 64} : i64\n" for k in range(5))
    views = "".join(f"    %{p}v = pto.make_tensor_view %{p}, shape = [%c{ROWS}, %c16], strides = [%c16, %c1] : {TV}\n"
                    for p in "xz").replace(f"%c{ROWS}", "%rows")
    lines = "".join(f"      {ln}\n" for ln in body)
    return (f"module {{\n  func.func @k(%x: !pto.ptr<f32>, %z: !pto.ptr<f32>) attributes {{pto.entry}} {{\n"
            f"{consts}    %rows = arith.constant {ROWS} : index\n    %n = arith.constant {iters} : index\n"
            f"    %top = arith.constant {ROWS - 1} : index\n{addrs}    %hi = arith.constant 1024 : i64\n{views}"
            f"    %acc = pto.alloc_tile addr = %hi : {T}\n"
            f"    %pa = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : {TV} -> {V}\n"
            f"    pto.tload ins(%pa : {V}) outs(%acc : {T})\n"
            f"    scf.for %i = %c0 to %n step %c1 {{\n{lines}    }}\n"
            f"    %pz = pto.partition_view %zv, offsets = [%top, %c0], sizes = [%c1, %c16] : {TV} -> {V}\n"
            f"    pto.tstore ins(%acc : {T}) outs(%pz : {V})\n    return\n  }}\n}}\n")


def _run(text: str, x: np.ndarray, target: str, general: bool):
    """(outputs or the error's (type, text, rule, line, column), warnings, undefined, notes, bound iterations)."""
    runs = []
    it = Interpreter(pto.parse(text), {"x": x.copy(), "z": np.zeros((ROWS, 16), np.float32)}, target,
                     trace=(lambda st, r: None) if general else None)
    calls = it._run_calls
    it._run_calls = lambda *a: (runs.append(1), calls(*a))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = {k: v.view(np.uint32).copy() for k, v in it.run().items()}
        except TilesimError as e:
            out = (type(e).__name__, str(e), e.rule, e.line, e.column)
    return out, [str(m.message) for m in w], it.undefined, it.issues, len(runs)


def _both(text: str, x: np.ndarray, target: str = "cpu"):
    """The run bound and the run the general way; asserts they agree and returns the bound one."""
    bound, general = _run(text, x, target, False), _run(text, x, target, True)
    assert general[4] == 0
    assert _bytes(bound[0]) == _bytes(general[0]) and bound[1:4] == general[1:4]
    return bound


def _bytes(out):
    return {k: (v.shape, v.tobytes()) for k, v in out.items()} if isinstance(out, dict) else out


def _x(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2, 2, (ROWS, 16)).astype(np.float32)


def test_a_qwen3_shaped_body_runs_bound_with_numpy_bits():
    """Per iteration: row i+1 of x is loaded into a tile at a fixed address, added to %acc, stored to row i+1 of z
    through a view whose offset is index arithmetic; the same bits as float32 numpy, both ways."""
    body = ["%r = arith.addi %i, %c1 : index",
            f"%t = pto.alloc_tile addr = %a1 : {T}",
            f"%p = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c1, %c16] : {TV} -> {V}",
            f"pto.tload ins(%p : {V}) outs(%t : {T})",
            f"pto.tadd ins(%acc, %t : {T}, {T}) outs(%acc : {T})",
            f"%u = pto.alloc_tile addr = %a2 : {T}",
            f"pto.tmul ins(%t, %acc : {T}, {T}) outs(%u : {T})",
            f"%q = pto.partition_view %zv, offsets = [%r, %c0], sizes = [%c1, %c16] : {TV} -> {V}",
            f"pto.tstore ins(%u : {T}) outs(%q : {V})", "scf.yield"]
    x = _x()
    out, _, _, _, n_bound = _both(_program(body, 4), x)
    assert n_bound == 3
    acc, z = x[0].copy(), np.zeros((ROWS, 16), np.float32)
    for i in range(4):
        acc = acc + x[i + 1]
        z[i + 1] = x[i + 1] * acc
    z[ROWS - 1] = acc
    assert np.array_equal(out["z"], z.view(np.uint32))


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_a_bound_body_fails_where_the_general_way_fails(target):
    """The view's row offset is 5 - 2i: the fourth iteration's -1 is refused at the partition_view (bound, as the
    second and third iterations ran), with the general way's text, rule, line and column."""
    body = ["%d = arith.muli %i, %c2 : index", "%r = arith.subi %c5, %d : index",
            f"%t = pto.alloc_tile addr = %a0 : {T}",
            f"%p = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c1, %c16] : {TV} -> {V}",
            f"pto.tload ins(%p : {V}) outs(%t : {T})", f"pto.tmax ins(%acc, %t : {T}, {T}) outs(%acc : {T})"]
    text = _program(body, 4)
    out, _, _, _, n_bound = _both(text, _x(1), target)
    assert n_bound == 3
    assert out[2] == "pto.mem.window"
    assert out[3] == next(k for k, ln in enumerate(text.splitlines(), 1) if "offsets = [%r" in ln)


def test_a_division_by_zero_in_a_bound_body_is_the_general_way_s():
    """arith.divui by 2 - i fails in the third iteration (bound), with SpecGapError's text at the divui."""
    body = ["%d = arith.subi %c2, %i : index", "%q = arith.divui %c16, %d : index",
            f"%t = pto.alloc_tile addr = %a0 : {T}", f"pto.tadd ins(%acc, %t : {T}, {T}) outs(%t : {T})"]
    out, _, _, _, n_bound = _both(_program(body, 4), _x(2))
    assert n_bound == 2
    assert out[0] == "SpecGapError" and out[2] == "pto.arith.div_zero"


def test_a_reused_tile_starts_each_iteration_without_undefined_lanes():
    """TCVT of NaN lanes to i32 on cpu marks them undefined; the tile at a fixed address is reused each iteration
    and a TMOV then overwrites it: every iteration's TCVT counts its lanes, as a new tile's would."""
    ti = ("!pto.tile_buf<loc=vec, dtype=i32, rows=1, cols=16, v_row=1, v_col=16, blayout=row_major, "
          "slayout=none_box, fractal=512, pad=0>")
    body = [f"%w = pto.alloc_tile addr = %a3 : {ti}",
            f"pto.tcvt ins(%acc{{rmode = #pto<round_mode CAST_RINT>}} : {T}) outs(%w : {ti})",
            f"%v = pto.alloc_tile addr = %a4 : {T}", f"pto.tadd ins(%acc, %acc : {T}, {T}) outs(%v : {T})"]
    x = _x(3)
    x[0, :3] = np.nan
    out, warned, undefined, _, n_bound = _both(_program(body, 4), x)
    assert n_bound == 3
    assert [n for _, op, n in undefined] == [3, 3, 3, 3]
    assert len(warned) == 1 and "12 elements" in warned[0]


def test_a_body_with_an_if_and_an_inner_loop_runs_bound():
    """An scf.if on the iteration (odd rows only) and an inner scf.for: the outer body is bound (the regions run
    the general way inside it, the inner body bound in its turn), with numpy's float32 bits."""
    body = ["%r = arith.addi %i, %c1 : index", "%two = arith.remui %i, %c2 : index",
            "%odd = arith.cmpi eq, %two, %c1 : index",
            f"%t = pto.alloc_tile addr = %a1 : {T}",
            f"%p = pto.partition_view %xv, offsets = [%r, %c0], sizes = [%c1, %c16] : {TV} -> {V}",
            f"pto.tload ins(%p : {V}) outs(%t : {T})",
            "scf.if %odd {", f"  pto.tmul ins(%t, %t : {T}, {T}) outs(%t : {T})", "}",
            "scf.for %j = %c0 to %c2 step %c1 {", f"  pto.tadd ins(%acc, %t : {T}, {T}) outs(%acc : {T})", "}"]
    x = _x(5)
    out, _, _, _, n_bound = _both(_program(body, 4), x)
    assert n_bound == 3 + 4   # the outer body's iterations 1-3, and each inner loop's second iteration
    acc = x[0].copy()
    for i in range(4):
        t = x[i + 1] * x[i + 1] if i % 2 else x[i + 1]
        acc = (acc + t) + t
    assert np.array_equal(out["z"][ROWS - 1], acc.view(np.uint32))


def test_a_body_that_binds_a_name_twice_or_shadows_one_keeps_the_general_way():
    """%t names two tiles in turn, or %acc is shadowed after a TADD that reads the outer one: not bound, and the
    general way's bits."""
    twice = [f"%t = pto.alloc_tile addr = %a0 : {T}", f"pto.tadd ins(%acc, %acc : {T}, {T}) outs(%t : {T})",
             f"%t = pto.alloc_tile addr = %a1 : {T}", f"pto.tmul ins(%t, %t : {T}, {T}) outs(%acc : {T})"]
    shadow = [f"pto.tadd ins(%acc, %acc : {T}, {T}) outs(%acc : {T})", f"%acc = pto.alloc_tile addr = %a2 : {T}",
              f"pto.tsub ins(%acc, %acc : {T}, {T}) outs(%acc : {T})"]
    for body in (twice, shadow):
        out, _, _, _, n_bound = _both(_program(body), _x(4))
        assert n_bound == 0 and isinstance(out, dict)


def test_relive_keeps_the_live_ranges_place_would():
    """Memory.relive leaves the live ranges and the next auto placement as placing the tile again would."""
    a, b = Memory("a5"), Memory("a5")
    for m in (a, b):
        for addr in (0, 64, 128):
            m.place(pto.Tile("vec", "f32", 1, 16), addr, name=f"t{addr}")
    ta, tb = a.live_tiles("vec")[1][2], b.live_tiles("vec")[1][2]
    a.place(ta, 64, name="again")
    b.relive(tb, "again")
    assert [(s, e, n) for s, e, _, n in a.live_tiles("vec")] == [(s, e, n) for s, e, _, n in b.live_tiles("vec")]
    assert a.place(pto.Tile("vec", "f32", 2, 16)).addr == b.place(pto.Tile("vec", "f32", 2, 16)).addr


# ------------------------------------------------------------------ generated bodies
_ARITH = ("addi", "subi", "muli", "divui", "remui")
_TILE_OPS = ("tadd", "tsub", "tmul", "tmax", "texp", "tabs")


@st.composite
def bodies(draw) -> list[str]:
    """A loop body: index arith on %i and constants; a row of x loaded into a tile at one of five addresses
    (aliasing each other) through a view at a computed row; more arith, tiles, views, loads and f32 tile ops; a tile
    stored to z at a computed row. Rows leave x or z in some iterations, and divisors reach zero."""
    idx, tiles, xviews, zviews = ["%i", "%c0", "%c1", "%c2", "%c3"], ["%acc"], [], []

    def arith(k: int, a: str | None = None) -> str:
        a, b = a or draw(st.sampled_from(idx)), draw(st.sampled_from(idx))
        idx.append(f"%s{k}")
        return f"%s{k} = arith.{draw(st.sampled_from(_ARITH))} {a}, {b} : index"

    def view(k: int, p: str) -> str:
        (xviews if p == "x" else zviews).append(f"%{p}{k}")
        return (f"%{p}{k} = pto.partition_view %{p}v, offsets = [{draw(st.sampled_from(idx[::-1][:3]))}, %c0], "
                f"sizes = [%c1, %c16] : {TV} -> {V}")

    def alloc(k: int) -> str:
        tiles.append(f"%t{k}")
        return f"%t{k} = pto.alloc_tile addr = %a{draw(st.integers(0, 4))} : {T}"

    body = [arith(0, "%i"), alloc(1), view(2, "x"), f"pto.tload ins(%x2 : {V}) outs(%t1 : {T})"]
    for k in range(4, 4 + draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["arith", "alloc", "xview", "zview", "tload", "tstore", "op", "op", "if"]))
        if kind == "arith":
            body.append(arith(k))
        elif kind == "alloc":
            body.append(alloc(k))
        elif kind in ("xview", "zview"):
            body.append(view(k, kind[0]))
        elif kind == "tload" and xviews:
            body.append(f"pto.tload ins({draw(st.sampled_from(xviews))} : {V}) outs({draw(st.sampled_from(tiles))} "
                        f": {T})")
        elif kind == "tstore" and zviews:
            body.append(f"pto.tstore ins({draw(st.sampled_from(tiles))} : {T}) outs({draw(st.sampled_from(zviews))} "
                        f": {V})")
        elif kind in ("op", "if"):
            op = draw(st.sampled_from(_TILE_OPS))
            srcs = [draw(st.sampled_from(tiles)) for _ in range(1 if op in ("texp", "tabs") else 2)]
            line = (f"pto.{op} ins({', '.join(srcs)} : {', '.join([T] * len(srcs))}) outs("
                    f"{draw(st.sampled_from(tiles))} : {T})")
            if kind == "if":   # the op runs in iterations where a < b
                a, b = draw(st.sampled_from(idx)), draw(st.sampled_from(idx))
                body += [f"%b{k} = arith.cmpi slt, {a}, {b} : index", f"scf.if %b{k} {{", f"  {line}", "}"]
            else:
                body.append(line)
    return [*body, view(99, "z"), f"pto.tstore ins({tiles[-1]} : {T}) outs(%z99 : {V})"]


@settings(max_examples=max(10, settings.default.max_examples // 3), deadline=None)
@given(body=bodies(), target=st.sampled_from(["cpu", "a5"]), seed=st.integers(0, 3))
def test_generated_bodies_run_bound_as_the_general_way(body, target, seed):
    """Bits, errors (text, rule, line, column), undefined lanes and window notes agree, bound or not; a body whose
    first iteration passed ran its other iterations bound, up to any failure."""
    x = _x(seed)
    x[seed, seed] = [np.nan, 1e-40, -0.0, np.inf][seed]  # a NaN, a subnormal (flushed on a5), -0, Inf
    out, _, _, _, n_bound = _both(_program(body, 4), x, target)
    if isinstance(out, dict):
        assert n_bound == 3
