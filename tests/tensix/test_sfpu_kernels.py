"""The transcribed tt-llk SFPU kernels (examples/tensix/llk_sfpu_*.tt): they run through ``tilesim run``,
their accuracy is what their algorithms promise, and docs/tensix.md shows the current error table.
(That they match ttsim bit for bit is test_ttsim_sfpu_golden.py: the bank holds them whole.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilesim.tensix.demo import EXAMPLES, sfpu_error_markdown, sfpu_kernel_errors

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def errors():
    return {row[0]: row for row in sfpu_kernel_errors()}


def test_accuracy_is_what_each_algorithm_promises(errors):
    # leaky ReLU: one multiply by the FP32 slope, correctly rounded except at ties (<= 0.5 ulp)
    assert errors["llk_sfpu_lrelu.tt"][5] <= 0.5
    # reciprocal with two Newton-Raphson steps: "<= 1 ulp" for float32 (ckernel_sfpu_recip.h)
    assert errors["llk_sfpu_reciprocal.tt"][5] <= 1.0
    # exp_21f: a degree-2 fit of 2**f whose constant term is 1.0017248, so about 2e-3 at worst
    assert 1e-4 < errors["llk_sfpu_exp.tt"][4] < 2e-3


def test_docs_show_the_current_error_table():
    assert sfpu_error_markdown() in (ROOT / "docs" / "tensix.md").read_text()


def test_kernels_run_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    out = tmp_path / "y.npz"
    r = CliRunner().invoke(app, ["run", str(EXAMPLES / "llk_sfpu_lrelu.tt"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    y = np.load(out)["y_bits"].view(np.float32).astype(np.float64)
    from tilesim.tensix.cli import parse_program
    x = next(s.args[1] for s in parse_program((EXAMPLES / "llk_sfpu_lrelu.tt").read_text()) if s.kind == "array")
    assert y.shape == (16, 16) and np.allclose(y, np.where(x < 0, 0.1 * x, x), rtol=1e-6, atol=0)
