"""Vector sets end to end: golden vs itself, one flipped bit, hex read back, JUnit, coverage."""

import json
import shutil
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.verify.check import check, load_golden
from tilesim.verify.commands import make_vectors
from tilesim.verify.stimulus import pto as pto_gen
from tilesim.verify.stimulus import tensix as tensix_gen

from .readmemh import data_line_numbers, readmemh

runner = CliRunner()
FLIPS = max(6, settings().max_examples // 20)


def _cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_golden_checks_against_itself(golden, tmp_path):
    r = _cli("check", golden, golden, "--junit", tmp_path / "j.xml")
    assert r.exit_code == 0, r.output
    assert "PASS" in r.output
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    m = json.loads((golden / "manifest.json").read_text())
    assert int(suite.get("tests")) == m["count"] == len(suite.findall("testcase"))
    assert suite.get("failures") == "0" and not suite.findall("testcase/failure")


@pytest.mark.parametrize("op", pto_gen.OPS)
def test_every_pto_op_round_trips(op, tmp_path):
    vs = make_vectors("pto", op, n=1, seed=1, min_per_class=1)
    vs.write(tmp_path)
    assert check(tmp_path, tmp_path).ok


@pytest.mark.parametrize("op", tensix_gen.OPS)
@pytest.mark.parametrize("opts", [{}, {"srca": "TF32", "rounding_model": "doc"}, {"srca": "FP16", "dst32": False},
                                  {"srca": "INT8"}])
def test_every_tensix_op_round_trips(op, opts, tmp_path):
    make_vectors("tensix", op, n=1, seed=2, **opts).write(tmp_path)
    assert check(tmp_path, tmp_path).ok


def test_hex_files_read_back_with_readmemh(golden):
    g = load_golden(golden)
    m = g.manifest
    assert [o.file for o in g.operands if o.role == "input"] == m["inputs"]
    assert [o.file for o in g.operands if o.role == "output"] == m["outputs"]
    for o in g.operands:
        words = readmemh(golden / o.file)
        assert words == g.arrays[o.name].reshape(-1).astype(np.uint64).tolist()
        width = -(-o.lane_bits // 4)
        lines = open(golden / o.file).read().splitlines()
        data = [ln for ln in lines if not ln.startswith("//")]
        assert all(len(ln) == width for ln in data)                      # one datum per line, lane width
        assert sum(ln.startswith("// vector ") for ln in lines) == g.count  # a comment heads each vector


def test_coverage_counts_match_the_tags(golden):
    m = json.loads((golden / "manifest.json").read_text())
    cov = json.loads((golden / "coverage.json").read_text())
    tags = Counter(c for v in m["vectors"] for c in v["classes"])
    assert cov["classes"] == {c: tags.get(c, 0) for c in cov["classes"]}
    assert set(tags) <= set(cov["classes"])
    assert all(cov["classes"][c] >= m["min_per_class"] for c in m["classes"])
    assert set(m["classes"]) == set(cov["required"])


@pytest.mark.parametrize("isa,op,opts", [("formats", "encode", {"format": "fp6_e2m3"}),
                                         ("ame", "mmacc", {"ft": "int4", "bovf": 1}),
                                         ("pto", "tcolargmin", {"target": "a5"}),
                                         ("tensix", "elwadd", {})])
def test_min_per_class_is_guaranteed(isa, op, opts):
    vs = make_vectors(isa, op, n=1, min_per_class=3, **opts)
    hits = Counter(c for t in vs.tags for c in t)
    assert vs.classes and all(hits[c] >= 3 for c in vs.classes)
    assert vs.count == 3 * len(vs.classes)


def test_same_seed_same_vectors():
    a = make_vectors("pto", "tmax", n=8, seed=5)
    b = make_vectors("pto", "tmax", n=8, seed=5)
    c = make_vectors("pto", "tmax", n=8, seed=6)
    assert all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays)
    assert a.tags == b.tags
    assert not all(np.array_equal(a.arrays[k], c.arrays[k]) for k in a.arrays)


def _flip_dump(golden, tmp, operand, line_index, value):
    """A dump: the golden's output hex files, with data line ``line_index`` of ``operand`` replaced."""
    g = load_golden(golden)
    dump = tmp / "dump"
    shutil.rmtree(dump, ignore_errors=True)
    dump.mkdir()
    for o in g.outputs:
        shutil.copy(golden / o.file, dump / o.file)
    o = next(x for x in g.outputs if x.name == operand)
    lines = open(dump / o.file).read().splitlines()
    at = data_line_numbers(dump / o.file)[line_index] - 1
    lines[at] = f"{value:0{-(-o.lane_bits // 4)}x}"
    (dump / o.file).write_text("\n".join(lines) + "\n")
    return dump


@settings(max_examples=FLIPS, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_one_flipped_bit_is_one_mismatch(golden, tmp_path, data):
    g = load_golden(golden)
    o = data.draw(st.sampled_from(g.outputs))
    v = data.draw(st.integers(0, g.count - 1))
    e = data.draw(st.integers(0, o.size - 1))
    bit = data.draw(st.integers(0, o.lane_bits - 1))
    from tilesim.verify import lanes
    old = int(g.arrays[o.name][v].reshape(-1)[e])
    new = old ^ (1 << bit)
    both_nan = lanes.nan_mask(np.array([old, new], np.uint64), o.fmt).all()
    assume(not (o.nan_any and both_nan))          # NaN payloads the op does not define match (decision V5)
    dump = _flip_dump(golden, tmp_path, o.name, v * o.size + e, new)
    res = check(golden, dump)
    assert len(res.mismatches) == 1
    m = res.mismatches[0]
    assert (m.vector, m.operand, m.expected, m.got) == (v, o.name, old, new)
    assert m.index == tuple(int(i) for i in np.unravel_index(e, o.shape))
    assert res.failing == [v]


def test_flip_exits_1_with_table_and_junit(golden, tmp_path):
    g = load_golden(golden)
    o = g.outputs[0]
    old = int(g.arrays[o.name].reshape(-1)[-1])
    new = old ^ 1 if not (o.nan_any and o.lane_bits > 1) else old ^ (1 << (o.lane_bits - 1))   # the sign bit
    dump = _flip_dump(golden, tmp_path, o.name, g.count * o.size - 1, new)
    r = _cli("check", golden, dump, "--junit", tmp_path / "j.xml", "--max-report", 5)
    assert r.exit_code == 1, r.output
    assert "FAIL" in r.output and "mismatches (first 1 of 1)" in r.output
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    failed = [tc.get("name") for tc in suite.findall("testcase") if tc.find("failure") is not None]
    assert failed == [f"vector_{g.count - 1:05d}"] and suite.get("failures") == "1"


def test_nan_payloads_match_only_where_undefined(tmp_path):
    vs = make_vectors("formats", "decode", n=8, format="fp16")
    vs.write(tmp_path / "g")
    g = load_golden(tmp_path / "g")
    assert next(o for o in g.outputs if o.name == "value").nan_any
    value = g.arrays["value"].copy()
    nan = np.isnan(value.view(np.float64))
    assert nan.any()
    value[nan] ^= np.uint64(1)                      # another payload, still NaN
    np.savez(tmp_path / "dump.npz", value=value)
    assert check(tmp_path / "g", tmp_path / "dump.npz").ok
    # the AME INT16 result has no NaN rule: every bit counts
    make_vectors("ame", "mmacc", n=4, m=2, k=2).write(tmp_path / "a")
    ga = load_golden(tmp_path / "a")
    c = ga.arrays["c"].copy()
    c.reshape(-1)[0] ^= 1
    np.savez(tmp_path / "a.npz", c=c, mxstatus=ga.arrays["mxstatus"])
    assert len(check(tmp_path / "a", tmp_path / "a.npz").mismatches) == 1


def test_vectors_cli_writes_the_files_and_prints_coverage(tmp_path):
    r = _cli("vectors", "pto", "trowmax", "--n", 6, "--seed", 1, "-o", tmp_path / "v", "--target", "a5",
             "--dtype", "f16")
    assert r.exit_code == 0, r.output
    assert "coverage: pto trowmax" in r.output
    m = json.loads((tmp_path / "v" / "manifest.json").read_text())
    assert (m["isa"], m["op"], m["seed"], m["config"]["target"], m["config"]["dtype"]) == \
        ("pto", "trowmax", 1, "a5", ["f16", "f16"])
    assert m["tilesim_version"] and m["count"] >= 6
    for f in m["inputs"] + m["outputs"] + ["vectors.npz", "coverage.json"]:
        assert (tmp_path / "v" / f).is_file()
