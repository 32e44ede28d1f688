"""Tables at 80 columns show every number in full (issue 20): src/tilesim/tables.py, and the gemm, study and
compare tables under a real pseudo-terminal 80 columns wide."""

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from rich.console import Console
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.compare.cli import SUMMARY as COMPARE
from tilesim.study.view import SUMMARY, columns_for, show
from tilesim.tables import tables

ROOT = Path(__file__).resolve().parents[1]
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def _printed(console: Console, columns, rows, title="") -> str:
    with console.capture() as cap:
        for t in tables(console, columns, rows, title):
            console.print(t)
    return cap.get()


def _cells(text: str) -> list[str]:
    return [c.strip() for line in text.splitlines() for c in re.split(r"[│┃]", line) if c.strip()]


@settings(max_examples=40)
@given(st.integers(20, 200), st.lists(st.lists(st.from_regex(r"[0-9a-z.,>/-]{1,14}", fullmatch=True),
                                               min_size=6, max_size=6), min_size=1, max_size=9))
def test_every_cell_is_shown_in_full_at_any_width(width, rows):
    console = Console(width=width, force_terminal=True, color_system=None)
    columns = [(f"col {i}", "right" if i % 2 else "left") for i in range(6)]
    text = _printed(console, columns, rows)
    assert "…" not in text
    if width >= 40:  # room for a header and a value side by side: nothing is folded either
        cells = _cells(text)
        assert all(c in cells for row in rows for c in row) and all(h in cells for h, _ in columns)
        assert max(len(line) for line in text.splitlines()) <= width


def test_a_table_that_fits_is_the_usual_table():
    console = Console(width=80, force_terminal=True, color_system=None)
    text = _printed(console, [("Ft", "left"), ("err", "right")], [["bf16", "0.002"], ["int8", "0.25"]])
    assert text.splitlines()[1].split() == ["┃", "Ft", "┃", "err", "┃"]


def test_the_study_table_at_80_columns():
    rec = {"layer": "q_proj", "m": 16, "n": 4096, "k": 4096, "ft": "fp8_e4m3", "acc": "fp32", "dist": "normal",
           "bovf": 0, "rnd": "rne", "sat": 0, "accumulation": "fused", "tiling_requested": "auto", "tiling": "2x2",
           "mmacc": 1_048_576, "macs": 268_435_456, "useful_share": 1.0, "tiles_loaded": 123_456,
           "tiles_stored": 6_543, "cycles": 16_384, "err_rel": 0.0412345, "acc_err_rel": 1.23e-08,
           "acc_ulp_max": 65536.0, "inexact": True, "sat_hit": False, "guard_fallback": False, "wrapped": 0,
           "sched_cycles": 20_480, "bound": "memory", "acc_err_row": 2.5e-08, "acc_ulp_p99": 3.0,
           "clipped_a": 0.0074, "clipped_b": 0.0086, "in_proposal": 1, "fallback": ""}
    records = [rec, {**rec, "ft": "bf16", "layer": "k_proj", "err_rel": 0.00237}]
    console = Console(width=80, force_terminal=True, color_system=None)
    with console.capture() as cap:
        show(records, console, title="study")
    text = cap.get()
    cells = _cells(text)
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    for r in records:
        assert all(cell(r) in cells for _, _, cell in columns_for(records))


def _on_a_pty(*args: str, columns: int = 80) -> str:
    """``tilesim ARGS`` with stdout and stderr on a pseudo-terminal ``columns`` wide; the text without escapes."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")} | {
        "TERM": "xterm", "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.Popen([sys.executable, "-c", "from tilesim.cli import main; main()", *args], stdin=slave,
                         stdout=slave, stderr=slave, env=env, cwd=ROOT)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert p.wait(timeout=120) == 0, out.decode(errors="replace")
    return _ANSI.sub("", out.decode())


def _on_an_80_column_console(monkeypatch, *args: str) -> str:
    from tilesim import cli
    monkeypatch.setattr(cli, "console", Console(width=80, force_terminal=True, color_system=None))
    with cli.console.capture() as cap:
        assert CliRunner().invoke(app, list(args)).exit_code == 0
    return cap.get()


@pytest.mark.parametrize("args, terminal", [
    (["gemm", "16", "16", "32", "-f", "int8", "-f", "bf16", "-f", "fp8_e4m3"], "pty"),   # the real thing, once
    (["compare", "colmax", "--shape", "16x16"], "console"),
    (["compare", "gemm", "--shape", "16x16x16", "-f", "fp16"], "console"),
    (["study", "-s", "16x16x32", "-f", "int8", "-f", "fp8_e5m2", "--sat", "0", "--sat", "1"], "console")])
def test_gemm_study_and_compare_tables_at_80_columns(monkeypatch, args, terminal):
    text = _on_a_pty(*args) if terminal == "pty" else _on_an_80_column_console(monkeypatch, *args)
    records = json.loads(CliRunner().invoke(app, [*args, "--output-format", "json"]).output)
    columns = COMPARE if args[0] == "compare" else columns_for(records)
    cells = _cells(text)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines() if line[:1] in "┏┃┡│└") <= 80
    for r in records:
        for header, _, cell in columns:
            assert cell(r) in cells or cell(r) == "", (header, cell(r))


@pytest.mark.parametrize("args", [["formats"], ["quantize", "0.1", "-3.5", "1e-40", "300", "-f", "fp64"]])
def test_the_formats_and_quantize_tables_wrap_at_80_columns(monkeypatch, args):
    text = _on_an_80_column_console(monkeypatch, *args)
    assert "…" not in text and max(map(len, text.splitlines())) <= 80
    if args[0] == "formats":
        cells = _cells(text)
        assert "1.79769e+308" in cells and "4.94066e-324" in cells  # fp64's max and min subnormal
        assert "float64, f64, binary64" in cells
