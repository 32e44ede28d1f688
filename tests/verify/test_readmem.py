"""Dumps as a simulator writes them: every $readmemh/$readmemb form, X and Z words, --x-policy, --only."""

import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.errors import ParseError, TilesimError
from tilesim.verify.check import check, load_golden
from tilesim.verify.commands import make_vectors
from tilesim.verify.hexfile import read_mem

from .readmemh import readmemh

runner = CliRunner()


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    d = tmp_path_factory.mktemp("gold")
    make_vectors("ame", "mmacc", n=6, m=2, k=2, sat=1, seed=4).write(d)
    return d


def _words(gold, name):
    return load_golden(gold).arrays[name].reshape(-1).tolist()


def _dump(gold, tmp_path, **texts):
    """The golden's outputs as a dump, with the files in ``texts`` replaced."""
    dump = tmp_path / "dump"
    dump.mkdir(exist_ok=True)
    for o in load_golden(gold).outputs:
        shutil.copy(gold / o.file, dump / o.file)
    for name, text in texts.items():
        (dump / name.replace("_", ".")).write_text(text)
    return dump


@pytest.mark.parametrize("form", ["one_per_line", "several_per_line", "addresses_out_of_order", "block_comment",
                                  "underscores", "upper_case"])
def test_every_readmemh_form_reads(gold, tmp_path, form):
    w = _words(gold, "c")
    h = [f"{x:04x}" for x in w]
    text = {
        "one_per_line": "\n".join(h),
        "several_per_line": "// four a line\n" + "\n".join(" ".join(h[i:i + 4]) for i in range(0, len(h), 4)),
        "addresses_out_of_order": f"@{len(h) - 1:x} {h[-1]}\n@0\n" + " ".join(h[:-1]),
        "block_comment": "/* a header\n   over lines */ " + " /* mid */ ".join(h),
        "underscores": "\n".join(x[:2] + "_" + x[2:] for x in h),
        "upper_case": "@0000_0000\n" + "\t".join(x.upper() for x in h),
    }[form] + "\n"
    path = tmp_path / "c.hex"
    path.write_text(text)
    assert read_mem(path, len(w), 16).values.tolist() == w
    assert readmemh(path) == w
    assert check(gold, _dump(gold, tmp_path, c_hex=text)).ok


def test_readmemb_reads_binary_words(gold, tmp_path):
    w = _words(gold, "mxstatus")
    dump = _dump(gold, tmp_path)
    (dump / "mxstatus.hex").unlink()
    (dump / "mxstatus.bin").write_text("@0 " + " ".join(f"{x:04b}"[:2] + "_" + f"{x:04b}"[2:] for x in w) + "\n")
    assert check(gold, dump).ok


def test_x_and_z_are_mismatches_of_their_own_kind(gold, tmp_path):
    w = _words(gold, "mxstatus")
    h = [f"{x:x}" for x in w]
    h[1], h[3], h[4] = "x", "Z", "?"
    dump = _dump(gold, tmp_path, mxstatus_hex=" ".join(h) + "\n")
    res = check(gold, dump)
    assert [(m.vector, m.kind) for m in res.mismatches] == [(1, "x"), (3, "z"), (4, "z")]
    assert res.per_kind() == {"x": 1, "z": 2}
    assert res.failing == [1, 3, 4]
    ign = check(gold, dump, x_policy="ignore")
    assert ign.ok and ign.ignored == {"c": 0, "mxstatus": 3}
    r = runner.invoke(app, ["check", str(gold), str(dump)])
    assert r.exit_code == 1 and "mxstatus 3 (x 1, z 2)" in r.output and "x (X)" in r.output
    r = runner.invoke(app, ["check", str(gold), str(dump), "--x-policy", "ignore"])
    assert r.exit_code == 0 and "3 X/Z ignored" in r.output
    r = runner.invoke(app, ["check", str(gold), str(dump), "--x-policy", "zero"])
    assert r.exit_code == 2 and "verify.opt.x_policy" in r.output


def test_a_partly_x_word_shows_its_x_digits(gold, tmp_path):
    w = _words(gold, "c")
    h = [f"{x:04x}" for x in w]
    h[2] = h[2][:2] + "x" + h[2][3]
    res = check(gold, _dump(gold, tmp_path, c_hex="\n".join(h) + "\n"))
    (m,) = res.mismatches
    assert m.kind == "x" and m.xbits == 0xF0 and m.shown(1) == h[2] + " (X)"


@pytest.mark.parametrize("text,rule,line", [
    ("0 0 0 0 0 " + "f" * 30 + "\n", "verify.hex.width", 1),  # far wider than any lane
    ("@0 0 0\n@1 0\n", "verify.hex.address", 2),          # address 1 written twice
    ("@ff 0\n", "verify.hex.count", 1),                    # past the end
    ("0 0\n@zz 0\n", "verify.hex.syntax", 2),              # an address is hex only
    ("0 /* never closed\n0\n", "verify.hex.syntax", 1),
    ("0 g\n", "verify.hex.syntax", 1),
    ("0 1f\n", "verify.hex.width", 1),                     # mxstatus is 4 bits
    ("@2 0 0 0 0\n", "verify.hex.count", 1),               # addresses 0 and 1 never written
])
def test_bad_memory_files_name_the_rule_and_line(gold, tmp_path, text, rule, line):
    with pytest.raises(ParseError) as e:
        check(gold, _dump(gold, tmp_path, mxstatus_hex=text))
    assert e.value.rule == rule and e.value.line == line
    assert e.value.source.endswith("mxstatus.hex")


def test_only_checks_the_chosen_outputs(gold, tmp_path):
    dump = _dump(gold, tmp_path)
    (dump / "mxstatus.hex").unlink()
    with pytest.raises(TilesimError) as e:
        check(gold, dump)
    assert e.value.rule == "verify.dump.missing"
    res = check(gold, dump, only="c")
    assert res.ok and res.missing == ["mxstatus"] and res.skipped == ["mxstatus"] and list(res.per_operand) == ["c"]
    r = runner.invoke(app, ["check", str(gold), str(dump), "--only", "c", "--junit", str(tmp_path / "j.xml")])
    assert r.exit_code == 0 and "not checked: mxstatus (missing from the dump)" in r.output
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    skipped = [tc for tc in suite.findall("testcase") if tc.find("skipped") is not None]
    assert [tc.get("name") for tc in skipped] == ["output_mxstatus"] and suite.get("skipped") == "1"
    assert "missing from the dump" in skipped[0].find("skipped").get("message")
    # a selected output still has to be there, and --only names outputs only
    r = runner.invoke(app, ["check", str(gold), str(dump), "--only", "mxstatus"])
    assert r.exit_code == 2 and "mxstatus.hex" in r.output
    r = runner.invoke(app, ["check", str(gold), str(dump), "--only", "c,a"])
    assert r.exit_code == 2 and "verify.opt.only" in r.output


def test_flag_words_are_shown_by_name(gold, tmp_path):
    w = _words(gold, "mxstatus")
    v = next(i for i, x in enumerate(w) if x == 0)
    h = [f"{x:x}" for x in w]
    h[v] = "d"                                    # guard_fallback, inexact, sat_hit
    r = runner.invoke(app, ["check", str(gold), str(_dump(gold, tmp_path, mxstatus_hex="\n".join(h) + "\n"))],
                      env={"COLUMNS": "200"})
    assert r.exit_code == 1
    assert "d (guard_fallback inexact sat_hit)" in r.output and "0 (-)" in r.output
    assert "ULP" not in r.output                  # a status word has no ULP distance


def test_dst32_rows_show_the_fp32_datum(tmp_path):
    make_vectors("tensix", "elwadd", n=2, seed=1, srca="BF16").write(tmp_path / "g")
    g = load_golden(tmp_path / "g")
    o = next(x for x in g.outputs if x.name == "dst_out")
    assert o.fmt == "tt.dst32rows.FP32"
    d = g.arrays["dst_out"].copy()
    d[0, 8, 0] ^= 1                               # the low half of Dst32b[0], column 0
    arrays = {x.name: g.arrays[x.name] for x in g.outputs} | {"dst_out": d}
    np.savez(tmp_path / "d.npz", **arrays)
    (m,) = check(tmp_path / "g", tmp_path / "d.npz").mismatches
    from tilesim.tensix import layouts
    hi, lo = int(g.arrays["dst_out"][0, 0, 0]), int(g.arrays["dst_out"][0, 8, 0])
    want = float(layouts.dst32_values(np.array([hi << 16 | lo]), "FP32")[0])
    assert m.value(m.expected, 0) == f"{want:.9g}" and m.ulp == 1


@settings(max_examples=max(10, settings().max_examples // 5), deadline=None)
@given(data=st.data())
def test_readmem_agrees_with_an_independent_reader(tmp_path_factory, data):
    lane_bits = data.draw(st.integers(1, 64))
    count = data.draw(st.integers(1, 12))
    words = data.draw(st.lists(st.integers(0, (1 << lane_bits) - 1), min_size=count, max_size=count))
    seps = data.draw(st.lists(st.sampled_from([" ", "\n", "\t", " // c\n", " /* c\n */ "]), min_size=count,
                              max_size=count))
    text = "".join(f"{w:x}{s}" for w, s in zip(words, seps))
    d = tmp_path_factory.mktemp("m")
    for name, body in (("plain.hex", text), ("addressed.hex", "@0 " + text)):   # the one-pass and token readers
        (d / name).write_text(body)
        assert read_mem(d / name, count, lane_bits).values.tolist() == readmemh(d / name) == words


@settings(max_examples=max(30, settings().max_examples // 2), deadline=None)
@given(text=st.text(st.sampled_from("0123456789abcdefxzXZ?_@/* \n\tg"), max_size=60),
       count=st.integers(1, 6), lane_bits=st.integers(1, 64), radix=st.sampled_from([16, 2]))
def test_fuzz_memory_text_reads_or_names_the_rule(tmp_path_factory, text, count, lane_bits, radix):
    path = tmp_path_factory.mktemp("f") / "m.hex"
    path.write_text(text)
    try:
        mem = read_mem(path, count, lane_bits, radix)
    except ParseError as e:
        assert e.rule.startswith("verify.hex.") and e.line >= 1 and e.column >= 1
        return
    assert mem.values.shape == (count,)
    if lane_bits < 64:
        assert not ((mem.values | mem.xbits | mem.zbits) >> np.uint64(lane_bits)).any()
