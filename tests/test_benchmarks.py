"""The benchmarks still run against today's API (tiny sizes; their timings are not checked here)."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.mark.parametrize("script, args", [
    ("bench_ame.py", ["--instructions", "2", "--gemm", "32"]),
    ("bench_formats.py", ["--n", "1000"]),
    ("bench_tensix.py", ["--blocks", "4"]),
    ("bench_study.py", ["--size", "32", "--workers", "1"]),
    ("bench_pto.py", ["--quick"]),
    ("run.py", ["--only", "pto-small", "pto-loop", "tensix", "gemm", "--rounds", "1", "--gemm-size", "32"]),
    ("run.py", ["--only", "compare", "study", "--rounds", "1", "--compare-shape", "16x16x16", "--study-shape",
                "16x64x64"]),
])
def test_benchmark_runs(script, args):
    r = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=300,
                       cwd=BENCH)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ratio" in r.stdout.lower() or "/" in r.stdout
