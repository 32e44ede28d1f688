"""The command line's core behaviour (issue 9): one-line errors with a caret, --debug, --version, flags that
take 0/1, choices, output paths checked first, and a fuzz of every registered command."""

import re
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
import typer
from hypothesis import HealthCheck, given, settings, strategies as st
from typer.testing import CliRunner

from tilesim import cli
from tilesim.cli import app
from tilesim.errors import ParseError

ROOT = Path(__file__).resolve().parents[1]
AME = ROOT / "examples" / "ame"
runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _flat(text: str) -> str:
    """Output with rich's box drawing and line wrapping removed."""
    return re.sub(r"[\s│╭╮╰╯─]+", " ", text)


def test_version():
    res = _run("--version")
    assert res.exit_code == 0 and res.output.strip() == f"tilesim {metadata.version('tilesim')}"


@pytest.mark.parametrize("args, saturating", [(["--saturate", "1"], True), (["--saturate"], True),
                                              (["--saturate", "0"], False), (["--saturate=1"], True)])
def test_flags_take_0_or_1(args, saturating):
    res = _run("quantize", "300", "-f", "int8", *args)
    assert res.exit_code == 0, res.output
    assert ("0x7F" in res.output) == saturating and "│ 1.0" not in res.output  # 1 is not a second value
    assert res.output.count("300.0") == 1


@pytest.mark.parametrize("args, words", [
    (["gemm", "8", "8", "8", "--sat", "2"], "Invalid value for '--sat'"),
    (["gemm", "8", "8", "8", "--bovf", "5"], "Invalid value for '--bovf'"),
    (["run", AME / "int8_to_int8.s", "--trace=yes"], "--trace is a flag"),
    (["run", AME / "int8_to_int8.s", "--quantize", "2"], "--quantize is a flag"),
    (["quantize", "1", "--saturate", "3"], "--saturate is a flag"),
    (["quantize", "1", "-r", "nearest"], "'rne', 'rtz', 'rup', 'rdn', 'rmm'"),
    (["gemm", "8", "8", "8", "--rnd", "rmm"], "'rne', 'rup', 'rdn', 'rtz'"),
    (["quantize", "1", "-f", "0xZZ"], "rule cli.number"),
    (["quantize", "1", "two"], "'two' is not a number"),
    (["run", AME / "int8_to_int8.s", "--target", "a9"], "'cpu', 'a2a3', 'a5'"),
])
def test_bad_options_are_refused_with_what_is_accepted(args, words):
    res = _run(*args)
    assert res.exit_code == 2 and words in _flat(res.output), res.output
    assert "Traceback" not in res.output


def test_help_lists_choices():
    out = _flat(runner.invoke(app, ["run", "--help"], env={"COLUMNS": "250"}).output)
    for words in ("cpu|a2a3|a5", "fused|sequential|chain_then_add", "hardware|doc"):
        assert words in out
    assert "rne|rup|rdn|rtz" in _flat(runner.invoke(app, ["gemm", "--help"], env={"COLUMNS": "250"}).output)


def test_output_path_is_checked_before_the_run(tmp_path):
    prog = AME / "int8_to_int8.s"
    ins = ["-i", f"x={AME / 'x_int8.npy'}", "-i", f"w={AME / 'w_int8.npy'}"]
    for bad, words in ((tmp_path / "no" / "y.npz", "does not exist"), (tmp_path, "is a folder")):
        res = _run("run", prog, *ins, "-o", bad)
        assert res.exit_code == 2 and words in _flat(res.output) and "cost" not in res.output
    res = _run("gemm", "8", "8", "8", "--emit", tmp_path / "no" / "g.s")
    assert res.exit_code == 2 and "does not exist" in _flat(res.output) and "GEMM" not in res.output


def test_inputs_are_checked(tmp_path):
    prog = AME / "int8_to_int8.s"
    np.savez(tmp_path / "two.npz", a=np.zeros(2), b=np.ones(2))
    (tmp_path / "junk.npy").write_text("not numpy")
    for spec, words in ((f"x={tmp_path / 'two.npz'}", "holds 2 arrays (a, b)"),
                        (f"x={tmp_path / 'none.npy'}", "no such file"),
                        (f"x={tmp_path / 'junk.npy'}", "cannot read"),
                        (f"x={tmp_path / 'x.csv'}", "not a .npy or .npz file")):
        res = _run("run", prog, "-i", spec)
        assert res.exit_code == 2 and words in res.output and "rule cli.input" in res.output, res.output


def test_text_errors_print_the_line_and_a_caret(tmp_path):
    prog = tmp_path / "bad.s"
    prog.write_text("csrw mxcfg, Ft=int8\nMMACC.T tr0, tr1, tr99\n")
    res = _run("run", prog)
    lines = res.output.splitlines()
    assert res.exit_code == 2 and lines[0] == f"error: {prog}:2:19: rule ame.asm.tile: tile register tr99 does not " \
                                              "exist (tr0..tr31)"
    assert lines[1:] == ["2 | MMACC.T tr0, tr1, tr99", "  |                   ^"]


def test_debug_shows_the_traceback(tmp_path):
    prog = tmp_path / "bad.s"
    prog.write_text("li x1, 02\n")  # once a 74-line int() traceback
    res = _run("run", prog)
    assert res.exit_code == 2 and "rule ame.asm.literal" in res.output and "Traceback" not in res.output
    res = _run("--debug", "run", prog)
    assert isinstance(res.exception, ParseError)


def test_a_bug_is_one_line_that_says_so(monkeypatch, tmp_path):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    prog = tmp_path / "p.s"
    prog.write_text("li x1, 1\n")
    monkeypatch.setattr(cli, "_load", lambda spec: broken)
    res = _run("run", prog)
    assert res.exit_code == 3 and "internal error: ZeroDivisionError: boom" in res.output
    assert "bug in tilesim" in res.output and "Traceback" not in res.output


# ------------------------------------------------------------------------- fuzz every registered command
_COMMANDS = {name: cmd for name, cmd in typer.main.get_command(app).commands.items() if name != "demo"}
_WORDS = ["0", "1", "2", "-1", "3", "8", "17", "0.1", "-3e4", "nan", "inf", "x", "", "=", "--", "-", "int8", "bf16",
          "fp8_e4m3", "0x11", "0xZZ", "rne", "rmm", "2x2", "4x4", "3x3", "a5", "cpu", "doc", "fused",
          f"x={AME / 'x_int8.npy'}", f"w={AME / 'w_int8.npy'}", str(AME / "x_real.npy"), str(AME / "int8_to_int8.s"),
          str(AME / "bf16_guard_fallback.s"), str(ROOT / "examples/pto/col_argmax.pto"),
          str(ROOT / "examples/pto/col_argmax_inputs.npz"), str(ROOT / "examples/tensix/elwmul_hifi4.tt"),
          str(ROOT / "README.md"), "/nonexistent/dir/y.npz", str(AME), "2x2x²", "16x²", "-3.5", "-inf", "9" * 30,
          "csv", "json", "--output-format", "--seed", "--shape", "16x16x16"]


@st.composite
def _argv(draw):
    name = draw(st.sampled_from(sorted(_COMMANDS)))
    opts = [o for p in _COMMANDS[name].params for o in getattr(p, "opts", []) if o.startswith("-")]
    words = st.one_of(st.sampled_from(_WORDS), st.sampled_from(opts or ["--help"]), st.text(max_size=5))
    return [name, *draw(st.lists(words, max_size=8))]


@settings(max_examples=settings().max_examples * 2 // 5, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                                HealthCheck.too_slow])
@given(_argv())
def test_fuzz_commands_never_show_a_traceback(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)  # relative -o/--emit paths land in a temporary folder
    res = runner.invoke(app, argv)
    assert res.exit_code in (0, 2), (argv, res.exit_code, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), (argv, repr(res.exception))
    assert "Traceback" not in res.output


def test_a_program_that_is_not_text(tmp_path):
    prog = tmp_path / "bin.s"
    prog.write_bytes(b"\xff\xfe\x00li x1, 1")
    res = _run("run", prog)
    assert res.exit_code == 2 and "rule cli.text" in res.output


def test_a_flag_with_an_off_switch_takes_0():
    from tilesim.clikit import _fold_flag_values

    cmd = typer.main.get_command(app).commands["run"]
    assert _fold_flag_values(cmd, ["p.s", "--trace", "0", "--quantize", "1"]) == ["p.s", "--no-trace", "--quantize"]
    assert _fold_flag_values(cmd, ["p.s", "--quantize=0", "--", "--trace", "2"]) == ["p.s", "--", "--trace", "2"]


# ------------------------------------------------------------------------- one grammar (issue 20)
@pytest.mark.parametrize("args, shown", [(["quantize", "-3.5", "-f", "int4"], "-4.0"),
                                         (["quantize", "-f", "int4", "1", "-3.5"], "-4.0"),
                                         (["quantize", "-inf", "-f", "fp8_e5m2", "--saturate", "1"], "-57344.0"),
                                         (["quantize", "-f", "int4", "--", "-3.5"], "-4.0")])
def test_negative_numbers_are_values(args, shown):
    res = _run(*args)
    assert res.exit_code == 0 and shown in res.output, res.output


@pytest.mark.parametrize("args, words", [
    (["gemm", "8", "8", "8", "--bogus"], "tilesim gemm: rule cli.usage: No such option: --bogus"),
    (["gemm", "8", "8", "x"], "tilesim gemm: rule cli.usage: Invalid value for 'k'"),
    (["quantize"], "tilesim quantize: rule cli.usage: Missing argument 'values'"),
    (["nocommand"], "tilesim: rule cli.usage: No such command 'nocommand'"),
    (["gemm", "-3", "8", "8"], "rule ame.gemm.shape: M=-3"),
    (["quantize", "1", "-f"], "tilesim quantize: rule cli.usage: Option '-f' requires an argument"),
])
def test_usage_errors_are_one_line(args, words, capfd):
    with pytest.raises(SystemExit) as e:
        app(args, prog_name="tilesim")  # the real entry point, as the shell runs it
    err = capfd.readouterr().err
    assert e.value.code == 2 and err.startswith("error: ") and words in err, err
    assert err.count("\n") == 1 and not set("╭│╰") & set(err)


def test_version_and_help_take_0_or_1():
    assert _run("--version", "1").output.strip() == f"tilesim {metadata.version('tilesim')}"
    res = _run("--version", "0")
    assert metadata.version("tilesim") not in res.output and res.exit_code == 2  # no version; no command either
    assert "Missing argument 'values'" in _run("quantize", "--help", "0").output
    assert "Round numbers to a format" in _run("quantize", "--help", "1").output


@pytest.mark.parametrize("args", [["gemm", "8", "8", "8"], ["study", "-s", "8x8x8"], ["compare", "colmax"]])
def test_f_is_the_number_format_and_the_output_form_has_its_own_name(args):
    res = _run(*args, "-f", "csv")
    assert res.exit_code == 2 and "rule cli.format" in res.output and "--output-format csv" in _flat(res.output)
    res = _run(*args, "-f", "fp16" if args[0] == "compare" else "int8", "--output-format", "csv", "--seed", "1")
    assert res.exit_code == 0 and res.output.splitlines()[1].count(",") > 5, res.output
    assert ("fp16" if args[0] == "compare" else "int8") in res.output.splitlines()[1]


def test_old_spellings_are_hidden_aliases():
    res = _run("gemm", "8", "8", "8", "--ft", "int8", "--output-format", "csv")
    assert res.exit_code == 0 and ",int8," in res.output
    res = _run("compare", "colmax", "--dtype", "fp16", "--shape", "16x16", "--output-format", "csv")
    assert res.exit_code == 0 and ",fp16," in res.output, res.output
    help_text = runner.invoke(app, ["gemm", "--help"], env={"COLUMNS": "250"}).output
    assert "--output-format" in help_text and "--ft" not in help_text


@pytest.mark.parametrize("isa, op, fmt, key", [("ame", "mmacc", "int4", "ft"), ("pto", "tadd", "f16", "dtype"),
                                              ("formats", "encode", "fp8_e5m2", "format")])
def test_vectors_take_f_as_their_number_format(tmp_path, isa, op, fmt, key):
    res = _run("vectors", isa, op, "-f", fmt, "--n", "4", "-o", tmp_path / "v")
    assert res.exit_code == 0, res.output
    assert fmt in (tmp_path / "v" / "manifest.json").read_text()


@pytest.mark.parametrize("args, words", [
    (["gemm", "8", "8", "8", "--seed", "-1"], "Invalid value for '--seed'"),
    (["study", "-s", "8x8x8", "--seed", "-1"], "Invalid value for '--seed'"),
    (["compare", "colmax", "--seed", "-1"], "Invalid value for '--seed'"),
    (["vectors", "ame", "mmacc", "--seed", "-1"], "verify.opt.seed"),
    (["study", "-s", "2x2x²"], "rule cli.number: '2x2x²' holds '²' (U+00B2)"),
    (["compare", "colmax", "--shape", "2x²"], "rule cli.number: '2x²' holds '²' (U+00B2)"),
    (["gemm", "8", "8", "8", "--block", "2x²"], "rule ame.gemm.shape"),
])
def test_seeds_and_shapes_are_clean_errors(args, words):
    res = _run(*args)
    assert res.exit_code == 2 and words in res.output, res.output


def test_a_big_seed_is_a_seed():
    res = _run("gemm", "8", "8", "8", "--seed", "9" * 30, "--output-format", "csv")
    assert res.exit_code == 0 and len(res.output.splitlines()) == 2


@settings(max_examples=60)
@given(st.lists(st.floats(allow_nan=False, width=32).map(repr)
                | st.sampled_from(["-inf", "inf", "nan", "-0.0", "-1e3"]), min_size=1, max_size=6),
       st.integers(0, 6), st.sampled_from([["-f", "int4"], ["--format=int4"], ["-r", "rtz"], ["--saturate"]]))
def test_fuzz_values_and_options_in_any_order(values, at, option):
    from tilesim.clikit import _negatives_as_values

    cmd = typer.main.get_command(app).commands["quantize"]
    argv = values[:at] + option + values[at:]
    ctx = cmd.make_context("quantize", _negatives_as_values(cmd, argv))
    assert list(ctx.params["values"]) == values
