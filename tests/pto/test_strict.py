"""The ``strict`` switch of .pto runs (issue 11, PTO64-PTO65): on target ``cpu`` a float->int TCVT of NaN, ±Inf
or an out-of-range value is a C++-undefined cast. Without strict the run gives x86-64's values, counts the
marked elements and warns (stderr on the command line); with strict it stops with a SpecGapError that names
the op, the operand, the rule and the first offending element. The expected counts and positions come from
the planted inputs, not from the code under test."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim import pto
from tilesim.cli import app
from tilesim.errors import SpecGapError, TilesimError
from tilesim.pto.ops.convert_cpu import UndefinedCastWarning
from tilesim.pto.text import Interpreter

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "examples" / "pto" / "cvt_to_int.pto"
BAD = {(2, 3): np.nan, (5, 1): 3e9, (7, 7): -np.inf}        # undefined casts to i32, in row-major order


def _x(bad=BAD) -> np.ndarray:
    x = np.arange(64, dtype=np.float32).reshape(8, 8) * 1.5 - 40
    for (r, c), v in bad.items():
        x[r, c] = v
    return x


def _run(strict: bool, target: str = "cpu", x=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = pto.run_file(KERNEL, {"x": _x() if x is None else x}, target=target, strict=strict)
    return out, [w for w in caught if issubclass(w.category, UndefinedCastWarning)]


def test_without_strict_the_run_warns_with_the_count_and_gives_x86_values():
    out, caught = _run(strict=False)
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert f"{KERNEL}:17: pto.tcvt: {len(BAD)} elements" in msg and "undefined" in msg
    y, x = out["y"], _x()
    for (r, c) in BAD:                                   # cvttss2si's "integer indefinite" value
        assert y[r, c] == np.int32(-2 ** 31)
    ok = np.isfinite(x) & (np.abs(x) < 2 ** 31)
    assert (y[ok] == np.rint(x[ok]).astype(np.int32)).all()


def test_a_clean_input_warns_nothing():
    out, caught = _run(strict=False, x=_x({}))
    assert caught == [] and (out["y"] == np.rint(_x({})).astype(np.int32)).all()
    out, caught = _run(strict=True, x=_x({}))            # strict changes nothing where nothing is undefined
    assert caught == [] and (out["y"] == np.rint(_x({})).astype(np.int32)).all()


def test_strict_stops_at_the_first_undefined_element():
    with pytest.raises(SpecGapError) as ei:
        _run(strict=True)
    e = ei.value
    assert (e.instruction, e.operand, e.rule) == ("TCVT", "src", "pto.tcvt.undefined")
    assert e.line == 17 and np.isnan(e.value) and "(2, 3)" in str(e)   # the first in row-major order


def test_interpreter_counts_per_statement_and_per_block():
    it = Interpreter(pto.parse(KERNEL.read_text(), str(KERNEL)), {"x": _x()}, "cpu", blocks=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCastWarning)
        it.run()
    assert it.undefined == [(17, "pto.tcvt", len(BAD))] * 2
    assert len(it.undefined_summary()) == 1 and f"{2 * len(BAD)} elements" in it.undefined_summary()[0]


def test_saturating_targets_have_nothing_undefined():
    """a5 saturates by default (NaN and +big to +max, -Inf to min): no warning; strict is accepted (PTO64)."""
    top, low = np.int32(2 ** 31 - 1), np.int32(-2 ** 31)
    for strict in (False, True):
        out, caught = _run(strict=strict, target="a5")
        assert caught == [] and [out["y"][r, c] for r, c in BAD] == [top, top, low]


def test_strict_must_be_a_bool():
    with pytest.raises(TilesimError) as ei:
        pto.run_file(KERNEL, {"x": _x()}, target="cpu", strict="yes")
    assert ei.value.rule == "pto.interp.strict"


def test_cpu_expand_marks_its_destination_too():
    src = pto.Tile.from_array(np.array([[np.nan], [2.0], [np.inf]], np.float32))
    dst = pto.Tile("vec", "i32", 3, 8, valid=(3, 8))
    pto.trowexpand(dst, src, target="cpu")
    assert dst.undefined[:3, :8].sum(axis=1).tolist() == [8, 0, 8]
    with pytest.raises(SpecGapError) as ei:
        pto.trowexpand(dst, src, target=pto.get_target("cpu").with_(strict=True))
    assert ei.value.rule == "pto.tcvt.undefined" and ei.value.instruction == "TROWEXPAND"


# ------------------------------------------------------------------------------------------- command line
def _cli(tmp_path, *extra):
    np.save(tmp_path / "x.npy", _x())
    return CliRunner().invoke(app, ["run", str(KERNEL), "--target", "cpu", "--input", f"x={tmp_path / 'x.npy'}",
                                    *extra])


def test_cli_warns_on_stderr_without_strict(tmp_path):
    res = _cli(tmp_path)
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith("warning: ") and f"{len(BAD)} elements" in res.stderr and "strict" in res.stderr
    assert "warning" not in res.stdout and "cvt_to_int.pto on cpu" in res.stdout


def test_cli_strict_is_an_error_with_op_rule_and_element(tmp_path):
    res = _cli(tmp_path, "--strict")
    assert res.exit_code == 2 and "Traceback" not in res.output
    flat = " ".join(res.output.split())
    assert "TCVT" in flat and "pto.tcvt.undefined" in flat and "(2, 3)" in flat and "nan" in flat


def test_cli_strict_does_not_apply_to_other_isas():
    res = CliRunner().invoke(app, ["run", str(ROOT / "examples" / "tensix" / "elwmul_hifi4.tt"), "--strict"])
    assert res.exit_code != 0 and "--strict does not apply to Tensix programs" in " ".join(res.output.split())
