"""The cocotb + Icarus Verilog examples: tilesim passes each good build and catches each planted bug."""

import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tilesim.verify.check import check

pytest.importorskip("cocotb_tools.runner", reason="cocotb is not installed (pip install -e '.[test]')")
if shutil.which("iverilog") is None:
    pytest.skip("iverilog is not on PATH (apt-get install iverilog; .ci/run installs it)", allow_module_level=True)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cocotb" / "run.py"


def _example():
    spec = importlib.util.spec_from_file_location("cocotb_example_run", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_good_build_passes(tmp_path):
    tests, failed, dump = _example().run(tmp_path, n=16)
    assert (tests, failed) == (1, 0)
    assert check(tmp_path / "golden", dump).ok          # the dump the design wrote matches bit for bit


def test_planted_bug_is_caught_in_saturating_vectors(tmp_path):
    tests, failed, dump = _example().run(tmp_path, bug=True, n=16)
    assert (tests, failed) == (1, 1)
    result = check(tmp_path / "golden", dump)
    assert not result.ok
    per_class = result.per_class()
    n_sat, failing_sat, _ = per_class["saturation"]
    assert n_sat > 0 and failing_sat == n_sat           # wrap instead of saturate: every clamping vector fails
    for v in result.failing:                             # and only those
        assert "saturation" in result.golden.tags(v)
    clamped = {m.expected for m in result.mismatches if m.operand == "c"}
    assert clamped <= {0x7FFF, 0x8000}                   # every wrong element is one tilesim clamped
    assert {m.operand for m in result.mismatches} == {"c", "mxstatus"}   # and sat_hit never rose


def _pipe_tags(n):
    from tilesim.verify.commands import make_vectors
    vs = make_vectors("ame", "mmacc", ft="int8", sat=1, tiling="1x1", m=2, k=4, n=n, seed=1)
    return Counter(c for t in vs.tags for c in t)


def test_pipelined_good_build_passes_with_cross_coverage(tmp_path):
    tests, failed, out = _example().run_pipe(tmp_path, n=16)
    assert (tests, failed) == (1, 0)
    cov = json.loads((out / "coverage.json").read_text())
    assert cov["keys"] == ["class", "rnd", "sat"] and cov["transactions"] >= 16
    assert {b["class"]: b["count"] for b in cov["bins"]} == dict(_pipe_tags(16))   # the counts are the tags
    assert json.loads((out / "mismatches.json").read_text()) == []


def test_pipelined_planted_bug_is_caught(tmp_path):
    tests, failed, out = _example().run_pipe(tmp_path, bug=True, n=16)
    assert (tests, failed) == (1, 1)
    bad = json.loads((out / "mismatches.json").read_text())
    assert bad and {m[1] for m in bad} <= {"c", "mxstatus"}
