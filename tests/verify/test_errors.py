"""Bad input to `tilesim vectors` and `tilesim check` is a TilesimError naming what and where."""

import re
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.errors import ParseError, TilesimError
from tilesim.verify.check import check
from tilesim.verify.commands import make_vectors

from .readmemh import data_line_numbers

runner = CliRunner()


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    d = tmp_path_factory.mktemp("gold")
    make_vectors("ame", "mmacc", n=3, m=2, k=2, sat=1).write(d)
    return d


def _dump(gold, tmp_path):
    dump = tmp_path / "dump"
    dump.mkdir()
    for f in ("c.hex", "mxstatus.hex"):
        shutil.copy(gold / f, dump / f)
    return dump


@pytest.mark.parametrize("args,rule", [
    (["vectors", "riscv", "mmacc"], "verify.isa"),
    (["vectors", "ame", "mmaccc"], "verify.op"),
    (["vectors", "pto", "tadd", "--ft", "int8"], "verify.option"),
    (["vectors", "formats", "encode", "--target", "a5"], "verify.option"),
    (["vectors", "tensix", "elwmul", "--argmax"], "verify.option"),
    (["vectors", "ame", "mmacc", "--n", "0"], "verify.opt.n"),
    (["vectors", "ame", "mmacc", "--min-per-class", "-1"], "verify.opt.min_per_class"),
    (["vectors", "pto", "tadd", "--dtype", "i8", "--target", "a2a3"], "pto.op.dtype"),
    (["vectors", "ame", "mmacc", "--k", "99"], "ame.geom.k"),
    (["vectors", "formats", "encode", "-f", "fp9"], "format"),
    (["vectors", "tensix", "gmpool", "--rounding-model", "exact"], "tt.rounding"),
])
def test_vectors_bad_option(args, rule, tmp_path):
    r = runner.invoke(app, args + ["-o", str(tmp_path / "v")])
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error:") and rule in r.output
    assert "Traceback" not in r.output


def test_missing_dump_file(gold, tmp_path):
    dump = _dump(gold, tmp_path)
    (dump / "mxstatus.hex").unlink()
    with pytest.raises(TilesimError) as e:
        check(gold, dump)
    assert e.value.rule == "verify.dump.missing" and "mxstatus.hex" in str(e.value)
    r = runner.invoke(app, ["check", str(gold), str(dump)])
    assert r.exit_code == 2 and "mxstatus.hex" in r.output


@pytest.mark.parametrize("change", ["drop", "extra"])
def test_wrong_number_of_lines(gold, tmp_path, change):
    dump = _dump(gold, tmp_path)
    path = dump / "c.hex"
    lines = path.read_text().splitlines()
    if change == "drop":
        del lines[data_line_numbers(path)[-1] - 1]
    else:
        lines.append("0000")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as e:
        check(gold, dump)
    assert e.value.rule == "verify.hex.count"
    assert str(path) in str(e.value) and e.value.line is not None
    if change == "extra":
        assert e.value.line == len(lines)


@settings(max_examples=max(10, settings().max_examples // 10), deadline=None)
@given(junk=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e"
                                                                                     "\x85\u2028\u2029"),
                    min_size=1, max_size=12),
       where=st.integers(0, 5))
def test_bad_hex_line_names_file_and_line(gold, tmp_path_factory, junk, where):
    text = junk.split("//")[0]
    words = re.sub(r"/\*.*?\*/", " ", text).split()
    if "@" in text or all(re.fullmatch(r"[0-9a-fA-FxXzZ?_]*[0-9a-fA-FxXzZ?][0-9a-fA-FxXzZ?_]*", w) for w in words):
        return                      # blank, a comment, words (X and Z included) or an address: not a bad token
    dump = _dump(gold, tmp_path_factory.mktemp("bad"))
    path = dump / "c.hex"
    lines = path.read_text().splitlines()
    at = data_line_numbers(path)[where] - 1
    lines[at] = junk
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as e:
        check(gold, dump)
    assert e.value.rule in ("verify.hex.syntax", "verify.hex.width")   # a wide word before the bad token
    assert (e.value.source, e.value.line) == (str(path), at + 1)


def test_too_wide_datum(gold, tmp_path):
    dump = _dump(gold, tmp_path)
    path = dump / "mxstatus.hex"
    lines = path.read_text().splitlines()
    at = data_line_numbers(path)[0] - 1
    lines[at] = "1f"                              # mxstatus is 4 bits wide
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParseError) as e:
        check(gold, dump)
    assert e.value.rule == "verify.hex.width" and e.value.line == at + 1


def test_bad_npz_dump(gold, tmp_path):
    np.savez(tmp_path / "d.npz", c=np.zeros(5, np.uint16))
    with pytest.raises(TilesimError) as e:
        check(gold, tmp_path / "d.npz")
    assert e.value.rule == "verify.dump.shape"
    np.savez(tmp_path / "f.npz", c=np.zeros((3, 1, 2, 2), np.float32))
    with pytest.raises(TilesimError) as e:
        check(gold, tmp_path / "f.npz")
    assert e.value.rule == "verify.dump.dtype"


def test_not_a_golden_directory(tmp_path):
    r = runner.invoke(app, ["check", str(tmp_path), str(tmp_path)])
    assert r.exit_code == 2 and "manifest.json" in r.output
    (tmp_path / "manifest.json").write_text("{not json")
    r = runner.invoke(app, ["check", str(tmp_path), str(tmp_path)])
    assert r.exit_code == 2 and "not JSON" in r.output
    r = runner.invoke(app, ["check", str(tmp_path), str(tmp_path), "--max-report", "-1"])
    assert r.exit_code == 2 and "--max-report" in r.output
