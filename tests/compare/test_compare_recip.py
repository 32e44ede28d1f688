"""``tilesim compare recip``: the SFPU reciprocal kernel against PTO's TRECIP and the exact 1/x."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim import formats
from tilesim.cli import app
from tilesim.compare import evaluate, exact
from tilesim.errors import GeometryError
from tilesim.tensix import parse
from tilesim.tensix.cli import parse_program
from tilesim.tensix.sfpu.kernels import RECIPROCAL_INIT, RECIPROCAL_STEP

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tensix" / "llk_sfpu_reciprocal.tt"


def _round_fraction(q: Fraction, dt: str) -> float:
    """The correctly rounded value of ``q`` in ``dt``, by bisection over its codes' values."""
    lo, hi = float(q), float(q)
    cand = [formats.quantize(np.array([x]), dt)[0] for x in (np.nextafter(lo, -np.inf), lo, np.nextafter(hi, np.inf))]
    return min(set(cand), key=lambda c: (abs(Fraction(c) - q), int(np.float64(c).view(np.int64)) & 1))


@pytest.mark.parametrize("dt", ["fp32", "bf16", "fp16"])
def test_exact_reciprocal_is_rounded_once(dt):
    rng = np.random.default_rng(4)
    x = formats.quantize(rng.standard_normal(400) * 2.0 ** rng.integers(-4, 4, 400), dt)
    x = x[(x != 0) & (np.abs(x) > 2.0 ** -12)]           # 1 / x stays finite in every dtype
    got = exact.round_once(exact.reciprocal(x), dt)
    want = [_round_fraction(1 / Fraction(v), dt) for v in x.tolist()]
    assert got.tolist() == want


def test_the_kernel_is_the_example_program():
    words = [s.args[0].word() for s in parse_program(EXAMPLE.read_text()) if s.kind == "insn"]
    assert words == [parse(t).word() for t in (*RECIPROCAL_INIT, *RECIPROCAL_STEP * 8)]


def test_recip_rows():
    cmp = evaluate("recip", dtype="fp32", shape=(16, 32), seed=3)
    rows = {r["config"]: r for r in cmp.records}
    hw = rows["SFPU reciprocal (tt-llk), hardware"]
    assert hw["ran"] == 1 and hw["ulp_max"] <= 1 and hw["count"] == 9 + 16 * len(RECIPROCAL_STEP)   # 32 rows of 16: 16 steps
    assert all(rows[f"TRECIP {t}"]["differ"] == 0 for t in ("cpu", "a2a3", "a5"))
    assert rows["exact 1/x, rounded once"]["differ"] == 0


def test_recip_shape_and_cli():
    with pytest.raises(GeometryError) as e:
        evaluate("recip", dtype="fp32", shape=(16, 20))
    assert e.value.rule == "compare.shape"
    r = CliRunner().invoke(app, ["compare", "recip", "--dtype", "fp16", "--shape", "8x16"])
    assert r.exit_code == 0, r.output
    assert "SFPU reciprocal" in r.output and "TRECIP" in r.output
