"""Cross coverage: class x configuration per vector set, merged over sets; every count equals the tags."""

import json
from collections import Counter

from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.verify import coverage
from tilesim.verify.commands import make_vectors

runner = CliRunner()


def test_cross_counts_equal_the_tags(golden):
    m = json.loads((golden / "manifest.json").read_text())
    cov = json.loads((golden / "coverage.json").read_text())
    tags = Counter(c for v in m["vectors"] for c in v["classes"])
    bins = cov["cross"]["bins"]
    assert {b["class"]: b["count"] for b in bins} == dict(tags)
    for k in cov["cross"]["keys"][2:]:                  # every configuration value is the manifest's
        want = m["config"][k]
        assert {b[k] for b in bins} == {",".join(map(str, want)) if isinstance(want, list) else want}


def test_merged_cross_keeps_each_configuration_apart(tmp_path):
    sets = {rnd: make_vectors("ame", "mmacc", ft="fp16", rnd=rnd, m=2, k=2, n=6, seed=1) for rnd in ("rne", "rtz")}
    for rnd, vs in sets.items():
        vs.write(tmp_path / rnd)
    r = runner.invoke(app, ["coverage", str(tmp_path / "rne"), str(tmp_path / "rtz"), "-o", str(tmp_path / "m.json")],
                      env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "cross coverage of 2 vector set(s)" in r.output
    merged = json.loads((tmp_path / "m.json").read_text())
    assert merged["keys"] == ["op", "class", "ft", "rnd", "sat", "bovf", "tiling"]
    for rnd, vs in sets.items():
        tags = Counter(c for t in vs.tags for c in t)
        got = {b["class"]: b["count"] for b in merged["bins"] if b["rnd"] == rnd}
        assert got == dict(tags)
    assert coverage.merge([merged]) == merged


def test_coverage_of_a_non_record_is_an_error(tmp_path):
    (tmp_path / "coverage.json").write_text("[1]")
    r = runner.invoke(app, ["coverage", str(tmp_path)])
    assert r.exit_code == 2 and "verify.coverage.file" in r.output
    r = runner.invoke(app, ["coverage", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "verify.coverage.file" in r.output
