"""Programs end to end: the runner, every example against numpy, the CLI, the demo, the cost model."""

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim.ame import BadGeom, THROUGHPUTS, assemble, run_program
from tilesim.ame.cost import Cost, Throughput
from tilesim.ame.demo import EXAMPLES, examples_dir
from tilesim.cli import app
from tilesim.errors import GeometryError, TilesimError

EX = examples_dir()


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.program)
def test_every_example_runs_and_matches_numpy(ex):
    inputs = {k: np.load(EX / f) for k, f in ex.inputs.items()}
    r = run_program(assemble((EX / ex.program).read_text()), inputs)
    y, ref = r.outputs["y"], ex.reference(inputs["x"], inputs["w"])
    assert y.shape == ref.shape and np.array_equal(y, ref)
    assert r.cost.mmacc == 1 and r.cost.macs == r.executed[0].macs


def test_example_flags():
    runs = {}
    for ex in EXAMPLES:
        inputs = {k: np.load(EX / f) for k, f in ex.inputs.items()}
        runs[ex.program] = run_program(assemble((EX / ex.program).read_text()), inputs)
    st = {k: r.core.status for k, r in runs.items()}
    assert st["int8_to_int8.s"] == {"guard_fallback": False, "badgeom": False, "inexact": False, "sat_hit": False}
    assert st["int8_to_int16_sat_guard4x4.s"]["sat_hit"]
    assert runs["int8_to_int16_sat_guard4x4.s"].executed[0].plan.tiling.name == "4x4"
    assert st["fp8_e4m3_to_fp16.s"]["inexact"] and not st["fp8_e4m3_to_fp16.s"]["guard_fallback"]
    fb = runs["bf16_guard_fallback.s"]
    assert fb.executed[0].plan.tiling.name == "2x2" and fb.x[10] == 0b101  # csrr a0, mxstatus


def test_registers_arrays_and_formats():
    prog = assemble("""
        li x0, 5                      # x0 stays zero
        li t1, -1
        li x3, Ft=int8 | SAT=1
        csrw mxcfg, x3
        csrr x4, mxcfg
        csrw mxtile, K=2 | M=2 | TILING=1x1
        mld tr0, a[0:2, 0:2]
        mld tr1, a[0:2, 0:2], int8
        mld tr9, a[0:2, 0:2], fp32    # a named format, not Ft
        MMACC.T tr2, tr0, tr1, 1
        mst tr2, y[2:4, 2:4]          # created on first store, zero elsewhere
        mst tr2, y[0:2, 4:6], int16
        mst tr9, f[0:2, 0:2], fp32
    """)
    r = run_program(prog, {"a": np.array([[200, -1], [2, 3]])})  # 200 saturates to 127 in INT8 (SAT=1)
    assert r.x[0] == 0 and r.x[6] == 2**64 - 1 and r.x[4] == 0x1010
    want = [[127 * 127 + 1, 127 * 2 - 3], [127 * 2 - 3, 13]]
    assert r.outputs["y"].tolist() == [[0] * 4 + want[0], [0] * 4 + want[1], [0, 0] + want[0] + [0, 0],
                                       [0, 0] + want[1] + [0, 0]]
    assert r.outputs["f"].tolist() == [[200.0, -1.0], [2.0, 3.0]] and r.outputs["f"].dtype == np.float64
    assert r.outputs["y"].dtype == np.int64 and r.cost.tiles_loaded == 3 and r.cost.tiles_stored == 3


@pytest.mark.parametrize("text,inputs,line,col,rule,err", [
    ("mld tr0, nope[0:2, 0:2]", {}, 2, 10, "ame.run.array", TilesimError),
    ("mld tr0, a[0:4, 0:2]", {"a": np.zeros((2, 2))}, 2, 10, "ame.run.bounds", GeometryError),
    ("csrw mxtile, K=0\nMMACC.T tr0, tr1, tr2", {}, 3, 1, "ame.geom.k", BadGeom),
    ("csrw mxcfg, Ft=0x16\nmst tr0, y[0:2, 0:2]", {}, 3, 1, "ame.run.format", TilesimError),
    ("csrw mxcfg, RND=5\nmld tr0, a[0:2, 0:2]", {"a": np.zeros((2, 2))}, 3, 1, "ame.run.rnd", TilesimError),
])
def test_runtime_errors_have_positions(text, inputs, line, col, rule, err):
    with pytest.raises(err) as info:
        run_program(assemble("li x1, 1\n" + text, source="p.s"), inputs)
    e = info.value
    assert (e.source, e.line, e.column, e.rule) == ("p.s", line, col, rule), str(e)


def test_cost_model():
    c = Cost()
    c.add_mmacc(macs=65536, tiles_read=40, tiles_written=32)
    c.add_mmacc(macs=100, tiles_read=2, tiles_written=1)
    # ceil(65536 / rate) + at least one cycle for the small one
    assert [c.cycles(t.macs_per_cycle) for t in THROUGHPUTS] == [17, 5, 3]
    assert [t.cells for t in THROUGHPUTS] == [16, 64, 128]  # the proposal's 4k/16k/32k points
    assert Throughput(1000).label == "1000 MACs/cycle (3.90625 cells)"


def test_tiles_read_counts_c_only_when_accumulating():
    prog = "csrw mxtile, K=16 | M=16 | TILING=2x2\nMMACC.T tr4, tr0, tr2, {}"
    acc = run_program(assemble(prog.format(0))).executed[0]
    over = run_program(assemble(prog.format(1))).executed[0]
    assert (acc.tiles_read, over.tiles_read, acc.tiles_written) == (12, 4, 8)  # INT16: 2 tiles per result


# ------------------------------------------------------------ the command line
runner = CliRunner()


def _args(ex):
    out = []
    for k, f in ex.inputs.items():
        out += ["--input", f"{k}={EX / f}"]
    return out


def test_cli_run(tmp_path):
    ex = EXAMPLES[1]
    out = tmp_path / "y.npz"
    res = runner.invoke(app, ["run", str(EX / ex.program), *_args(ex), "--output", str(out)])
    assert res.exit_code == 0, res.output
    for words in ("mx.sat_hit", "cycles at 4096 MACs/cycle (16 cells)", "cycles at 32768", "65,536"):
        assert words in res.output
    with np.load(out) as z:
        assert set(z.files) == {"y", "ame_tiles"} and z["ame_tiles"].shape == (32, 256)
        inputs = {k: np.load(EX / f) for k, f in ex.inputs.items()}
        assert np.array_equal(z["y"], ex.reference(inputs["x"], inputs["w"]))


def test_cli_options_and_trace():
    ex = EXAMPLES[3]
    res = runner.invoke(app, ["run", str(EX / ex.program), *_args(ex), "--trace", "--macs-per-cycle", "1024",
                              "--accumulation", "sequential"])
    assert res.exit_code == 0, res.output
    assert "bf16 -> fp32, 2x2, C tiles 16..31, 8192 MACs; guard_fallback, inexact" in res.output
    assert "cycles at 1024 MACs/cycle (4 cells)" in res.output and "cycles at 4096" not in res.output


@pytest.mark.parametrize("args,words", [
    (["--target", "a5"], "--target does not apply to AME programs"),
    (["--macs-per-cycle", "0"], "rule ame.cost.rate"),
    (["--accumulation", "pairwise"], "chain_then_add"),  # refused with the choices listed
])
def test_cli_bad_options(args, words):
    ex = EXAMPLES[0]
    res = runner.invoke(app, ["run", str(EX / ex.program), *_args(ex), *args])
    assert res.exit_code == 2 and words in res.output


def test_cli_reports_parse_errors(tmp_path):
    prog = tmp_path / "bad.s"
    prog.write_text("csrw mxcfg, Ft=int8\nMMACC.T tr0, tr1, tr99\n")
    res = runner.invoke(app, ["run", str(prog)])
    assert res.exit_code == 2 and "bad.s:2:19: rule ame.asm.tile" in res.output


def test_demo_has_the_ame_section():
    res = runner.invoke(app, ["demo"])
    assert res.exit_code == 0, res.output
    assert "RISC-V AME MAC" in res.output and res.output.count("identical") == len(EXAMPLES)
