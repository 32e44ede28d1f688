"""The ``.tt`` runner, the examples, and the demo section."""

from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.errors import ParseError, StateError
from tilesim.tensix.cli import parse_program, run_file, run_program
from tilesim.tensix.demo import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]


def quiet():
    return Console(file=open("/dev/null", "w"), width=200)


def test_gmpool_example_against_numpy():
    out = run_file(ROOT / "examples/tensix/gmpool_argmax.tt", {}, quiet())
    a = next(s.args[1] for s in parse_program((ROOT / "examples/tensix/gmpool_argmax.tt").read_text())
             if s.kind == "array" and s.args[0] == "a")
    assert (out["max"][0] == a.max(axis=0)).all()                       # quarter-integers: exact in BF16
    assert (out["row_of_max"][0] == a[:8].argmax(axis=0)).all()         # distinct values: no ties


def test_elwmul_example_and_input_override():
    out = run_file(ROOT / "examples/tensix/elwmul_hifi4.tt", {"a": np.full((8, 16), 3.0), "b": np.full((8, 16), 0.5)},
                   quiet())
    assert (out["product"] == 1.5).all() and out["product_bits"].dtype == np.uint32


def test_cli_run_and_demo(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["run", str(ROOT / "examples/tensix/gmpool_argmax.tt"), "--trace", "-o",
                              str(tmp_path / "o.npz")])
    assert res.exit_code == 0, res.output
    assert "TT_GMPOOL(3, 1, 0, 1, 0)" in res.output
    assert set(np.load(tmp_path / "o.npz").files) == {"max", "max_bits", "row_of_max"}
    res = runner.invoke(app, ["run", str(ROOT / "examples/tensix/elwmul_hifi4.tt"), "--rounding-model", "ieee"])
    assert res.exit_code == 2 and "ieee" in res.output and "hardware" in res.output  # the choices
    res = runner.invoke(app, ["demo"])
    assert res.exit_code == 0 and "GMPOOL with ArgMax" in res.output and "ELWMUL at HiFi4" in res.output
    assert EXAMPLES.is_dir()


def test_directives():
    prog = """
    .thread 1
    .config CFG_STATE_ID_StateID = 1
    .config ALU_FORMAT_SPEC_REG0_SrcA = FP16     # by name
    .config ALU_FORMAT_SPEC_REG1_SrcB = 1
    .array x 1x16 = 1 2 3 4 5 6 7 8 \\
                    9 10 11 12 13 14 15 16
    .array h 2x16 fill=0.5
    .unpack srca x FP16 row=8
    .unpack srcb h FP16 flip=1
    TT_SETRWC(0, 0, 0, 0, 8, 0b0001)            # RWC.SrcA = 8
    TT_ELWADD(0, 0, 0, 0, 16)
    .pack y FP16 row=16 rows=1
    """
    m, out = run_program(parse_program(prog), {})
    assert m.config[1]["ALU_FORMAT_SPEC_REG0_SrcA"] == 1 and m.rwc[1].srca == 8
    assert out["y"][0].tolist() == [v + 0.5 for v in range(1, 17)]


@pytest.mark.parametrize("text, rule, line", [
    (".bogus 1", "tt.prog.directive", 1),
    ("\n.thread 5", "tt.prog.thread", 2),
    (".config X", "tt.prog.syntax", 1),
    (".config FIDELITY_BASE_Phase = two", "tt.prog.value", 1),
    (".config ALU_FORMAT_SPEC_REG0_SrcA = FP99", "tt.fmt.code", 1),
    (".array a 2x2 = 1 2 3", "tt.prog.value", 1),
    (".unpack srcc a BF16", "tt.prog.syntax", 1),
    (".unpack srca a BF16 rows=3", "tt.prog.option", 1),
    (".pack", "tt.prog.syntax", 1),
])
def test_parse_errors(text, rule, line):
    with pytest.raises(Exception) as e:
        parse_program(text, "p.tt")
    assert e.value.rule == rule and e.value.line == line


def test_run_errors_are_located():
    with pytest.raises(ParseError) as e:
        run_program(parse_program("TT_ZEROACC(3, 0, 0)\n.unpack srca nothing BF16\n"), {})
    assert e.value.rule == "tt.prog.array" and e.value.line == 2
    with pytest.raises(StateError) as e:
        run_program(parse_program("\n\nTT_MVMUL(0, 0, 0, 0)"), {}, source="q.tt")
    assert e.value.line == 3 and str(e.value).startswith("q.tt:3:1:")
