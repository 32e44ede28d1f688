"""``tilesim study`` and its Python API: one record per point with the documented columns, the files
(CSV, valid PNGs of the stated size, report.md), the user's tensor files, and clear errors for bad input."""

import csv
import io
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim import formats
from tilesim.cli import app
from tilesim.errors import TilesimError
from tilesim.study import COLUMNS, Shape, Sweep, plots, read_tensor, run, tensors, write
from tilesim.study.inputs import generate

DOCS = Path(__file__).resolve().parents[2] / "docs" / "studies.md"
NAMES = [name for name, _ in COLUMNS]


@pytest.fixture(scope="module")
def study():
    sweep = Sweep(shapes=(Shape(16, 64, 64), Shape(16, 64, 256)), fts=("int8", "fp8_e4m3"), rnds=("rne", "rtz"),
                  tilings=("auto", "2x2"), dists=("outliers",), seed=1)
    return run(sweep)


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's signature and IHDR chunk (the PNG specification, section 11.2.2)."""
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and raw[12:16] == b"IHDR" and raw[-8:-4] == b"IEND"
    return struct.unpack(">II", raw[16:24])


def test_one_record_per_point(study):
    assert len(study.records) == 2 * 2 * 2 * 2 == len(study.sweep.points())
    assert [list(r) for r in study.records] == [NAMES] * len(study.records)
    assert [r["point"] for r in study.records] == list(range(len(study.records)))
    seen = {(r["k"], r["dist"], r["ft"], r["rnd"], r["tiling_requested"]) for r in study.records}
    assert len(seen) == len(study.records)
    for r in study.records:
        assert r["useful_macs"] == r["m"] * r["n"] * r["k"] and r["macs"] >= r["useful_macs"]
        assert r["tiling"] == r["tiling_requested"] or r["tiling_requested"] == "auto"
        assert r["cycles"] >= -(-r["macs"] // r["macs_per_cycle"]) and r["mmacc"] <= r["instructions"]
    # M = 16: auto takes 1x4, all MACs useful; 2x2 pads M to 32 and wastes half (AME17)
    auto = [r for r in study.records if r["tiling_requested"] == "auto"]
    assert {r["tiling"] for r in auto} == {"1x4"} and {r["useful_share"] for r in auto} == {1.0}
    assert {r["useful_share"] for r in study.records if r["tiling"] == "2x2"} == {0.5}


def test_errors_against_independent_references(study):
    """Recompute the int8 points' errors and wrap counts from exact integers, and the float points' total
    error from numpy, without the study's metrics."""
    for r in study.records:
        a, b = generate(Shape(r["m"], r["n"], r["k"]), r["dist"], seed=1)
        a, b = a.astype(np.float64), b.astype(np.float64)
        exact = a @ b
        if r["ft"] == "int8":
            sa, sb = np.abs(a).max() / 127, np.abs(b).max() / 127
            assert (r["scale_a"], r["scale_b"]) == (sa, sb)
            qa = formats.quantize(a / sa, "int8", rounding=r["rnd"]).astype(np.int64)
            qb = formats.quantize(b / sb, "int8", rounding=r["rnd"]).astype(np.int64)
            q = qa @ qb  # exact
            assert r["wrapped"] == int(((q < -2**15) | (q > 2**15 - 1)).sum())
            c = (q + 2**15) % 2**16 - 2**15  # INT16 wraps
            assert r["acc_err_rel"] == pytest.approx(np.linalg.norm(c - q) / np.linalg.norm(q), rel=1e-12)
            assert r["err_rel"] == pytest.approx(np.linalg.norm(c - exact / (sa * sb)) /
                                                 np.linalg.norm(exact / (sa * sb)), rel=1e-12)
        else:
            assert r["wrapped"] == 0 and r["inexact"] == 1
            quant = formats.quantize(a, r["ft"], rounding=r["rnd"]) @ formats.quantize(b, r["ft"], rounding=r["rnd"])
            floor = np.linalg.norm(quant - exact) / np.linalg.norm(exact)  # the inputs' quantisation alone
            assert abs(r["err_rel"] - floor) <= r["acc_err_rel"] * np.linalg.norm(quant) / np.linalg.norm(exact) + 1e-15
            assert r["acc_ulp_max"] >= 0.5 and 0 <= r["acc_ulp_over1"] <= 1


def test_files(study, tmp_path):
    files = write(study, tmp_path)
    names = {f.name for f in files}
    assert names == {"results.csv", "ulp_histogram.csv", "report.md", *plots.PLOTS}
    rows = list(csv.DictReader(io.StringIO((tmp_path / "results.csv").read_text())))
    assert len(rows) == len(study.records) and list(rows[0]) == NAMES
    for row, r in zip(rows, study.records):
        assert row["ft"] == r["ft"] and float(row["err_rel"]) == r["err_rel"] and int(row["cycles"]) == r["cycles"]
    hist = list(csv.DictReader(io.StringIO((tmp_path / "ulp_histogram.csv").read_text())))
    for point in (0, len(study.records) - 1):
        counts = [int(h["count"]) for h in hist if h["point"] == str(point) and h["against"] == "fp64"]
        assert sum(counts) == study.records[point]["m"] * study.records[point]["n"]
    for name in plots.PLOTS:
        assert _png_size(tmp_path / name) == (900, 500)
    report = (tmp_path / "report.md").read_text()
    linked = set(re.findall(r"\]\(([^)]+)\)", report))
    assert linked == {"results.csv", "ulp_histogram.csv", *plots.PLOTS}
    assert report.count("\n| ") == len(study.records) + 1  # header and one row per point


def test_documented_columns():
    """docs/studies.md lists exactly the columns of results.csv, in order."""
    documented = re.findall(r"^\| `(\w+)` \|", DOCS.read_text(), re.M)
    assert documented == NAMES


def test_user_tensors(tmp_path):
    """.npy and .safetensors (written by the safetensors library) read back as the same values."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    act = rng.standard_normal((2, 8, 32)).astype(np.float16)  # batch x tokens x features: 16 x 32 after folding
    w = rng.standard_normal((48, 32)).astype(np.float32)  # nn.Linear(32, 48).weight
    bf = formats.encode(rng.standard_normal((48, 32)), "bf16")
    np.save(tmp_path / "act.npy", act)
    save_file({"w": w, "bf": bf.view(np.uint16)}, str(tmp_path / "layer.safetensors"))
    save_file({"only": w}, str(tmp_path / "one.safetensors"))
    assert np.array_equal(read_tensor(str(tmp_path / "one.safetensors")), w)
    assert np.array_equal(read_tensor(str(tmp_path / "layer.safetensors:w")), w)
    t = tensors(str(tmp_path / "act.npy"), str(tmp_path / "layer.safetensors:w"))
    assert t.shape() == Shape(16, 48, 32)
    a, b = generate(Shape(16, 48, 32), "tensors", user=t)
    assert np.array_equal(a, act.reshape(16, 32).astype(np.float64)) and np.array_equal(b, w.T)
    runner = CliRunner()
    res = runner.invoke(app, ["study", "--activations", str(tmp_path / "act.npy"), "--weights",
                              str(tmp_path / "layer.safetensors:w"), "-f", "bf16", "--output-format", "csv"])
    assert res.exit_code == 0, res.output
    row = next(csv.DictReader(io.StringIO(res.output)))
    assert (row["m"], row["n"], row["k"], row["dist"]) == ("16", "48", "32", "tensors")
    bad = [
        (["--activations", str(tmp_path / "act.npy"), "-s", "16x48x64"], "the GEMM 16x48x64 needs M x K = 16 x 64"),
        (["--weights", str(tmp_path / "layer.safetensors:w"), "-m", "llama-3-8b", "--layer", "q"], "4096 x 4096"),
        (["--weights", str(tmp_path / "layer.safetensors")], "name one as FILE.safetensors:NAME"),
        (["--weights", str(tmp_path / "layer.safetensors:x")], "no tensor 'x'"),
        (["--weights", str(tmp_path / "missing.npy")], "no such file"),
        (["--weights", str(tmp_path / "act.npy")], "it needs N x K"),
    ]
    for args, words in bad:
        res = runner.invoke(app, ["study", *args])
        assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output, (args, res.output)


@pytest.mark.parametrize("args, words", [
    (["-m", "gpt-5"], "llama-3-8b"),
    (["-m", "llama-3-8b", "--layer", "qkv"], "gate"),
    (["-s", "16x64x64", "-f", "fp7"], "unknown format"),
    (["-s", "16x64x64", "--rnd", "nearest"], "rne, rup, rdn, rtz"),
    (["-s", "16x64x64", "--sat", "2"], "--sat"),
    (["-s", "16x64x64", "--accumulation", "kahan"], "sequential"),
    (["-s", "16x64x64", "--tiling", "3x3"], "1x4"),
    (["-s", "16x64x64", "--dist", "cauchy"], "outliers"),
    (["-s", "16x64x64", "--dist", "tensors"], "--activations"),
    (["-s", "16x64"], "MxNxK"),
    (["-s", "16x0x64"], "positive"),
    (["-m", "llama-3-8b", "--tokens", "0"], "--tokens"),
    ([], "nothing to run"),
    (["-s", "16x64x64", "--output-format", "xml"], "csv"),
    (["-s", "16x64x64", "--workers", "0"], "--workers"),
    (["-s", "16x64x64", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
    (["-s", "16x64x64", "-f", "fp64", "--tiling", "4x4"], "ame.gemm"),
])
def test_cli_errors(args, words):
    res = CliRunner().invoke(app, ["study", *args])
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output, res.output


def test_cli_study(tmp_path):
    """A preset study writes its folder; piped, the table is plain text with one line per point."""
    res = CliRunner().invoke(app, ["study", "-m", "llama-3-8b", "--layer", "k", "--layer", "v", "-t", "1", "-f",
                                   "int8", "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "auto chose" in res.output and "\x1b[" not in res.output and "│" not in res.output
    lines = [ln for ln in res.output.splitlines() if ln.startswith(("k 1x1024x4096", "v 1x1024x4096"))]
    assert len(lines) == 2
    rows = list(csv.DictReader(io.StringIO((tmp_path / "results.csv").read_text())))
    assert [(r["model"], r["layer"], r["m"], r["n"], r["k"], r["ft"]) for r in rows] == [
        ("llama-3-8b", layer, "1", "1024", "4096", "int8") for layer in ("k", "v")]
    res = CliRunner().invoke(app, ["study", "-s", "16x32x32", "--output-format", "json"])
    assert res.exit_code == 0 and '"tiling_why"' in res.output


def test_relative_error_does_not_depend_on_the_blas_thread_count():
    """S5: a record is the same in every process; BLAS's dot (np.linalg.norm) sums in a thread-dependent order."""
    import math

    from threadpoolctl import threadpool_limits

    from tilesim.study import metrics
    rng = np.random.default_rng(0)
    c, ref = rng.standard_normal((16, 14336)), rng.standard_normal((16, 14336))
    many = metrics.rel_error(c, ref)
    with threadpool_limits(1):
        one = metrics.rel_error(c, ref)
    assert many == one
    exact = math.sqrt(math.fsum((c - ref).ravel() ** 2)) / math.sqrt(math.fsum(ref.ravel() ** 2))
    assert abs(many - exact) <= 1e-14 * exact
