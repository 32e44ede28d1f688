"""``tilesim compare recip`` and ``exp``: tt-llk's SFPU kernels against PTO's TRECIP / TEXP and the exact
results rounded once."""

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
from tilesim.tensix.sfpu.kernels import EXP_STEP, RECIPROCAL_INIT, RECIPROCAL_STEP

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tensix"


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


@pytest.mark.parametrize("name, text", [("llk_sfpu_reciprocal.tt", (*RECIPROCAL_INIT, *RECIPROCAL_STEP * 8)),
                                        ("llk_sfpu_exp.tt", EXP_STEP * 8)])
def test_the_kernels_are_the_example_programs(name, text):
    words = [s.args[0].word() for s in parse_program((EXAMPLES / name).read_text()) if s.kind == "insn"]
    assert words == [parse(t).word() for t in text]


@pytest.mark.parametrize("dt", ["fp32", "bf16"])
def test_exact_exp_is_rounded_once(dt):
    import decimal
    rng = np.random.default_rng(6)
    x = formats.quantize(rng.uniform(-80, 80, 300), dt)
    got = exact.round_once(exact.exp(x), dt)
    ctx = decimal.Context(prec=100)
    want = [_round_fraction(Fraction(ctx.exp(decimal.Decimal(v))), dt) for v in x.tolist()]
    assert got.tolist() == want


def test_exp_rows():
    cmp = evaluate("exp", dtype="fp32", shape=(8, 16), seed=2)
    rows = {r["config"]: r for r in cmp.records}
    hw = rows["SFPU exp_21f (tt-llk), hardware"]
    assert hw["ran"] == 1 and 1e-4 < hw["rel_err"] < 2e-3 and hw["count"] == 4 * len(EXP_STEP)
    assert all(rows[f"TEXP {t}"]["differ"] == 0 for t in ("cpu", "a2a3", "a5"))


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
