"""Issue 25's study axes: accumulator what-ifs, block-scaled inputs, the schedule's cost with memory (against
cycles computed by hand), the Pareto column, and plots with one mark per point."""

import csv
import io

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim.ame.cost import schedule
from tilesim.cli import app
from tilesim.errors import TilesimError
from tilesim.study import Shape, Sweep, run
from tilesim.study.inputs import generate


# ------------------------------------------------------------------ the schedule, by hand
@pytest.mark.parametrize("shape, options, want", [
    # INT8 -> INT16, 16,384 MACs/cycle: P = 64 cells, Kb = 16 x 8 = 128, two K-slices of one 64 x 64 block.
    # A and B slices: 64 rows x 128 bytes each = 16,384 bytes = 256 cycles at 64 B/cycle; the last slice adds
    # C: 64 rows x 64 INT16 = 8,192 bytes, so 384 cycles. Compute: 64 x 64 x 128 / 16,384 = 32 per slice.
    # cycles = 256 (first loads) + max(32, 256) + max(32, 384) = 896.
    ((64, 64, 256), dict(in_bits=8, out_bits=16, macs_per_cycle=16384),
     dict(compute=64, memory=640, cycles=896, bytes_moved=40960, bound="memory")),
    # BF16 -> FP32 decode, Llama-3-8B q: Kb = 8 x 8 = 64, 64 blocks of 16 x 64 (A pads to 16 rows), 64 slices.
    # A slice: 16 x 128 bytes, B slice: 64 x 128: 10,240 bytes = 160 cycles; C: 16 rows x 64 FP32 = 4,096 bytes,
    # so the last slice 224. Compute: 16 x 64 x 64 / 16,384 = 4. Memory per block 63 x 160 + 224 = 10,304,
    # x 64 blocks = 659,456; cycles = 659,456 + 160 (first loads).
    ((16, 4096, 4096), dict(in_bits=16, out_bits=32, macs_per_cycle=16384),
     dict(compute=16384, memory=659456, cycles=659616, bytes_moved=42205184, bound="memory")),
    # FP8 -> FP16 at 4,096 MACs/cycle (P = 16) and 1,024 B/cycle: 16 blocks of 64 x 64, one slice of K = 64.
    # Compute 64 x 64 x 64 / 4,096 = 64; bytes 64 x 64 (A) + 64 x 64 (B) + 64 x 128 (C) = 16,384 = 16 cycles.
    # cycles = 16 x 64 + 8 (the first A and B loads, 8,192 bytes) = 1,032.
    ((256, 256, 64), dict(in_bits=8, out_bits=16, macs_per_cycle=4096, bandwidth=1024),
     dict(compute=1024, memory=256, cycles=1032, bytes_moved=262144, bound="compute")),
    # FP4 with E8M0 scales per 32: Kb = 32 x 8 = 256, one slice of 64: A 16 x 32 bytes, B 64 x 32, scales
    # (16 + 64) rows x 2 blocks x 1 byte = 160, C 16 x 128 = 2,048: 4,768 bytes = 75 cycles (74.5 up);
    # the first loads 2,720 bytes = 43; compute 16 x 64 x 64 / 16,384 = 4. cycles = 75 + 43.
    ((16, 64, 64), dict(in_bits=4, out_bits=16, macs_per_cycle=16384, scale_bits=8, scale_block=32),
     dict(compute=4, memory=75, cycles=118, bytes_moved=4768, bound="memory")),
])
def test_schedule_by_hand(shape, options, want):
    s = schedule(*shape, **options)
    assert {k: getattr(s, k) for k in want} == want


# ------------------------------------------------------------------ accumulator what-ifs in a study
@pytest.fixture(scope="module")
def whatif_study():
    return run(Sweep(shapes=(Shape(16, 64, 2048),), fts=("int8",), accs=("proposal", "int32", "fp32", "fp16"),
                     seed=3))


def test_int16_against_int32(whatif_study):
    """The INT16 claim in one run: INT8 into INT16 wraps, INT32 does not, and INT32's error is the input
    quantisation alone (its accumulation is exact)."""
    by = {r["acc"]: r for r in whatif_study.records}
    assert [(a, by[a]["in_proposal"]) for a in ("int16", "int32", "fp32", "fp16")] == [
        ("int16", 1), ("int32", 0), ("fp32", 0), ("fp16", 0)]
    assert by["int16"]["wrapped"] > 0 and by["int32"]["wrapped"] == 0 and by["int32"]["acc_err_rel"] == 0
    a, b = generate(Shape(16, 64, 2048), "normal", seed=3)
    a, b = a.astype(np.float64), b.astype(np.float64)
    sa, sb = np.abs(a).max() / 127, np.abs(b).max() / 127
    q = np.round(a / sa) @ np.round(b / sb)  # exact integers: |q| < 2**53
    exact = a @ b / (sa * sb)
    assert by["int32"]["err_rel"] == pytest.approx(np.linalg.norm(q - exact) / np.linalg.norm(exact), rel=1e-9)
    assert by["int16"]["err_rel"] > 50 * by["int32"]["err_rel"]
    assert by["fp32"]["acc_err_rel"] < 1e-7  # INT8 products summed in FP32: 24 bits hold most sums exactly


def test_cli_int16_vs_int32(tmp_path):
    res = CliRunner().invoke(app, ["study", "-s", "16x64x512", "-f", "int8", "--acc", "int16", "--acc", "int32",
                                   "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "int8->int32 (what-if)" in res.output and "int8->int16 " in res.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "results.csv").read_text())))
    assert [(r["acc"], r["in_proposal"]) for r in rows] == [("int16", "1"), ("int32", "0")]
    assert "pareto.png" in (tmp_path / "report.md").read_text()


# ------------------------------------------------------------------ block-scaled inputs
@pytest.fixture(scope="module")
def mx_study():
    return run(Sweep(shapes=(Shape(16, 32, 128),), fts=("fp8_e4m3", "fp4_e2m1"), block_scales=("none", "e8m0"),
                     accs=("proposal", "fp32"), scale_ats=("after", "before"), dists=("outliers",), seed=2))


def test_block_scaled_points(mx_study):
    recs = mx_study.records
    # per format: 2 accumulators without scales, 2 x 2 with; before's FP32 is the proposal's own for BF16
    assert len(recs) == 2 * (2 + 3)
    by = {(r["ft"], r["block_scale"], r["scale_at"], r["acc"]): r for r in recs}
    for ft in ("fp8_e4m3", "fp4_e2m1"):
        plain, before = by[ft, "none", "", "fp16"], by[ft, "e8m0", "before", "fp32"]
        after, after32 = by[ft, "e8m0", "after", "fp16"], by[ft, "e8m0", "after", "fp32"]
        assert (after["mmacc_ft"], after["in_proposal"], after32["in_proposal"]) == (ft, 1, 0)
        assert (before["mmacc_ft"], before["in_proposal"]) == ("bf16", 1)
        assert after["block_size"] == 32 and plain["block_size"] == 0
        # one set of quantised values: the counts agree, and FP32 sums are within rounding of Q
        assert after["clipped_a"] == before["clipped_a"] and before["acc_err_rel"] < 1e-6
        assert after32["acc_err_rel"] < 1e-6
    # FP8: E8M0 puts each block's largest value in E4M3's top binade, so 16 products of up to 448^2 overflow the
    # proposal's FP16 accumulator of each K-slice; per-tensor FP8 never comes near it
    assert by["fp8_e4m3", "e8m0", "after", "fp16"]["err_rel"] == np.inf
    assert by["fp8_e4m3", "none", "", "fp16"]["err_rel"] < 0.05
    # FP4: without scales the outlier channels clip at 6 and small values flush; shared scales fix most of it
    fp4, fp4mx = by["fp4_e2m1", "none", "", "fp16"], by["fp4_e2m1", "e8m0", "after", "fp16"]
    assert fp4["clipped_a"] > 0 and fp4mx["flushed_a"] < fp4["flushed_a"] and fp4mx["err_rel"] < fp4["err_rel"] / 3


def test_schedule_blocks_given(tmp_path):
    """--schedule-block replaces make_plan's blocks: 16 x 64 x 64 blocks of the 64 x 64 x 256 INT8 GEMM of the
    worked example: 4 row blocks x 4 slices, each 16 x 64 + 64 x 64 bytes = 80 cycles, compute 4; C (16 rows x
    128 bytes) after each row block's last slice: +32. Memory 4 x (4 x 80 + 32) = 1,408; cycles + 80 first."""
    res = CliRunner().invoke(app, ["study", "-s", "64x64x256", "-f", "int8", "--schedule-block", "16x64x64",
                                   "--output-format", "csv"])
    assert res.exit_code == 0, res.output
    (row,) = csv.DictReader(io.StringIO(res.output))
    assert (row["blocks"], row["compute_cycles"], row["memory_cycles"], row["sched_cycles"]) == (
        "16x64x64", "64", "1408", "1488")
    res = CliRunner().invoke(app, ["study", "-s", "64x64x256", "--schedule-block", "16x64"])
    assert res.exit_code == 2 and "not MbxNbxKb" in res.output


def test_block_scale_errors():
    for options, words in ((dict(block_scales=("e5m2",)), "valid: none, e8m0, fp8_e4m3"),
                           (dict(block_scales=("e8m0",), block_sizes=(24,)), "whole K-slices"),
                           (dict(block_scales=("e8m0",), scale_ats=("middle",)), "valid: after, before"),
                           (dict(bandwidth=0), "bytes per cycle"),
                           (dict(accs=("int32",), fts=("bf16",)), "accumulate in floats")):
        sweep = Sweep(shapes=(Shape(16, 16, 64),), fts=options.pop("fts", ("fp8_e4m3",)), **options)
        with pytest.raises(TilesimError, match=words):
            sweep.check()


# ------------------------------------------------------------------ Pareto
def test_pareto_front(mx_study):
    recs = mx_study.records
    front = [r for r in recs if r["pareto"]]
    assert front and min(recs, key=lambda r: r["err_rel"]) in front
    cheapest = min(r["sched_cycles"] for r in recs)
    assert any(r["sched_cycles"] == cheapest for r in front)
    for r in recs:  # the definition, checked pair by pair
        beaten = any(q["err_rel"] <= r["err_rel"] and q["sched_cycles"] <= r["sched_cycles"] and
                     (q["err_rel"], q["sched_cycles"]) != (r["err_rel"], r["sched_cycles"]) for q in recs)
        assert r["pareto"] == int(not beaten)


# ------------------------------------------------------------------ plots: one mark per point
def _marks(ax) -> int:
    """Marks drawn for study points on ``ax``: scatter offsets, bars and lines whose gid starts 'points'."""
    n = sum(len(c.get_offsets()) for c in ax.collections if (c.get_gid() or "").startswith("points"))
    n += sum(1 for p in ax.patches if (p.get_gid() or "").startswith("points"))
    return n + sum(1 for line in ax.lines if (line.get_gid() or "").startswith("points"))


def test_every_plot_has_one_mark_per_point(tmp_path):
    """24 points (issue 25's bOVF x tiling case, and what-ifs): every plot draws each of them, per panel and
    per error column; a 4x4 that fell back is hatched, not hidden behind another bar."""
    from tilesim.study import plots, write

    sweep = Sweep(shapes=(Shape(16, 32, 64), Shape(32, 32, 32)), fts=("int8", "bf16"), bovfs=(0, 1),
                  tilings=("auto", "4x4", "2x2"), seed=4)
    study = run(sweep)
    recs, n = study.records, len(study.records)
    assert n == 24
    fig = plots.error_vs_format(recs)
    assert _marks(fig.axes[0]) == 2 * n  # total and accumulation alone
    assert [_marks(ax) for ax in plots.error_vs_k(recs).axes[:2]] == [n, n]
    cost = plots.cost_per_tiling(recs).axes[0]
    assert _marks(cost) == n
    assert sum(1 for p in cost.patches if p.get_hatch()) == sum(1 for r in recs if r["fallback"]) > 0
    assert [_marks(ax) for ax in plots.ulp_histogram(recs, study.histograms).axes[:2]] == [n, n]
    assert _marks(plots.pareto(recs).axes[0]) == n
    assert [r["point"] for r in recs] == list(range(n))
    files = write(study, tmp_path)
    assert len(list(csv.DictReader(io.StringIO((tmp_path / "results.csv").read_text())))) == n
    assert tmp_path / "pareto.png" in files


def test_compare_plot_draws_what_did_not_run():
    from tilesim.compare import evaluate
    from tilesim.compare.plot import figure

    cmp = evaluate("elwmul", dtype="bf16", shape="16x16")
    ax = figure(cmp).axes[0]
    missing = sum(1 for r in cmp.records if not r["ran"])
    assert missing > 0 and sum(1 for p in ax.patches if p.get_gid() == "did-not-run") == missing
    assert len(ax.get_yticklabels()) == len(cmp.records)


def test_fallback_marked_with_its_reason():
    """Issue 25: only BF16 (an FP32 accumulator) trips the guard; FP8 and INT8 pass it, and the runtime names
    2x2 because their 32 result tiles leave none for A and B across K-slices."""
    res = CliRunner().invoke(app, ["gemm", "64", "64", "64", "-f", "fp8_e4m3", "-f", "int8", "-f", "bf16", "--tiling",
                                   "4x4", "--output-format", "csv"])
    assert res.exit_code == 0, res.output
    rows = {r["ft"]: r for r in csv.DictReader(io.StringIO(res.output))}
    assert [rows[f]["fallback"].split(":")[0] for f in ("fp8_e4m3", "int8", "bf16")] == ["runtime", "runtime", "guard"]
    assert [rows[f]["guard_fallback"] for f in ("fp8_e4m3", "int8", "bf16")] == ["0", "0", "1"]
    res = CliRunner().invoke(app, ["gemm", "64", "64", "64", "-f", "fp8_e4m3", "-f", "bf16", "--tiling", "4x4"])
    assert "2x2 (fb: runtime)" in res.output and "2x2 (fb: guard)" in res.output
