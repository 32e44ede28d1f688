"""Progress without a terminal (issue 20, decision E15): a line on stderr at intervals when it is a log."""

import os
import pty
import re
import subprocess
import sys
import time
from pathlib import Path

from tilesim import progress

ROOT = Path(__file__).resolve().parents[1]
_LINE = re.compile(r"tilesim study: points (\d+)/(\d+) \((\d+)%\), \d+ s$")
_START = re.compile(r"tilesim study: running, \d+ s$")           # before the first point ends


def test_a_pipe_gets_a_line_per_interval_with_the_latest_state():
    r, w = os.pipe()
    with os.fdopen(r) as reader, os.fdopen(w, "w") as stream:
        with progress.reporting("tilesim gemm", stream, interval=0.05):
            time.sleep(0.12)
            progress.update("int8: K-slice", 3, 16)
            time.sleep(0.12)
        stream.close()
        lines = reader.read().splitlines()
    assert lines[0] == "tilesim gemm: running, 0 s"
    assert lines[-1] == "tilesim gemm: int8: K-slice 3/16 (18%), 0 s"
    assert 3 <= len(lines) <= 6


def test_nothing_on_a_terminal_or_a_captured_stream_or_when_off(capsys):
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as tty:
        for stream, interval in ((tty, 0.01), (sys.stderr, 0.01), (None, 0)):
            with progress.reporting("tilesim study", stream, interval=interval):
                assert progress._current == []
                time.sleep(0.03)
    os.close(master)
    assert capsys.readouterr().err == ""


def test_a_short_run_prints_nothing():
    r, w = os.pipe()
    with os.fdopen(r) as reader, os.fdopen(w, "w") as stream:
        with progress.reporting("tilesim compare", stream, interval=5):
            progress.update("anything", 1, 2)
        stream.close()
        assert reader.read() == ""


def test_a_study_in_ci_logs_its_points():
    env = {**os.environ, progress.INTERVAL_ENV: "0.2",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    args = ["study", "-s", "32x32x256", "-f", "int8", "-f", "bf16", "-f", "fp8_e4m3", "--sat", "0", "--sat", "1",
            "--output-format", "csv"]
    p = subprocess.run([sys.executable, "-c", "from tilesim.cli import main; main()", *args], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 7                      # the CSV is untouched: a header and 6 points
    lines = p.stderr.splitlines()
    counted = [line for line in lines if not _START.match(line)]
    assert counted and all(_LINE.match(line) for line in counted), p.stderr
    assert lines[:len(lines) - len(counted)] == [line for line in lines if _START.match(line)]  # those come first
    assert {int(_LINE.match(line)[2]) for line in counted} == {6}
