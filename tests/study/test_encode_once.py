"""A study point encodes each input once (``sweep.operand``): the codes gemm stores and the quantised values
of the reference are those of the two encodings it replaced, bit for bit, and so are the records."""

import numpy as np
import pytest

from tilesim import formats
from tilesim.ame.csr import ROUNDING
from tilesim.ame.gemm import encode_operand, gemm
from tilesim.errors import TilesimError
from tilesim.study import Point, Shape, Sweep, blocked_gemm, sweep
from tilesim.study.inputs import generate

FORMATS = ("int8", "uint8", "int4", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "bf16", "fp16")


def _inputs(fmt) -> np.ndarray:
    """Random values across the range, the range's edges and just beyond, ±Inf, zeros, tiny values, quarters
    (NaN where the format holds one: else gemm refuses it)."""
    f = formats.get(fmt)
    rng = np.random.default_rng(7)
    top = f.max
    edges = [f.min, f.max, f.min * (1 + 2**-12), f.max * (1 + 2**-12), f.max * 1.5, -f.max * 1.5, f.max + 0.5,
             f.min - 0.5, np.inf, -np.inf, 0.0, -0.0, 1e-300, -1e-300]
    quarters = np.arange(-300, 300.25, 0.25)  # the ties of every integer format, and both sides of them
    x = np.concatenate([rng.standard_normal(400) * top / 3, rng.uniform(-2 * top, 2 * top, 200), edges, quarters])
    if f.has_nan:
        x = np.append(x, np.nan)
    return x.reshape(-1, 8) if x.size % 8 == 0 else np.pad(x, (0, 8 - x.size % 8)).reshape(-1, 8)


def _old(x, fmt, name, rnd, sat):
    """The two encodings a point made before: gemm's (``quantize=True``) and ``formats.quantize``."""
    return (encode_operand(x, fmt, name, rounding=rnd, saturate=bool(sat), quantize=True),
            formats.quantize(x, fmt, rnd, bool(sat)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_operand_is_both_encodings(fmt):
    f = formats.get(fmt)
    x = _inputs(fmt)
    for rnd in ROUNDING:
        for sat in (0, 1):
            codes, values = sweep.operand(x, f, "a", rnd, sat)
            old_codes, old_values = _old(x, f, "a", rnd, sat)
            assert codes.dtype == old_codes.dtype and np.array_equal(codes, old_codes), (rnd, sat)
            assert np.array_equal(values.view(np.uint64), old_values.view(np.uint64)), (rnd, sat)


def test_operand_refuses_as_gemm_does():
    x = np.array([[1.0, 2.0], [np.nan, 3.0]])
    with pytest.raises(TilesimError) as new:
        sweep.operand(x, formats.get("int8"), "b", "rne", 0)
    with pytest.raises(TilesimError) as old:
        encode_operand(x, formats.get("int8"), "b", rounding="rne", saturate=False, quantize=True)
    assert str(new.value) == str(old.value) and "[1, 0]" in str(new.value)


def _records(points, a, b, run=gemm):
    return [repr(sweep.evaluate(a, b, p, run)) for p in points]


@pytest.mark.parametrize("run", [gemm, blocked_gemm])
def test_records_unchanged(monkeypatch, run):
    """Every record (and histogram) of the four formats of the Llama study, saturating and not, RNE and RTZ,
    equals what the point's two encodings gave."""
    shape = Shape(16, 48, 80)
    a, b = generate(shape, "outliers", seed=3)
    points = [Point(shape, dist="outliers", ft=ft, rnd=rnd, sat=sat)
              for ft in ("int8", "fp8_e4m3", "fp8_e5m2", "bf16") for rnd in ("rne", "rtz") for sat in (0, 1)]
    now = _records(points, a, b, run)
    monkeypatch.setattr(sweep, "operand", lambda x, fmt, name, rnd, sat: _old(x, fmt, name, rnd, sat))
    assert now == _records(points, a, b, run)


def test_gemm_encoded_checks_codes():
    a = np.zeros((4, 8), np.uint8)
    with pytest.raises(TilesimError, match="ame.gemm.dtype"):
        gemm(a.astype(np.uint16), a.T, ft="fp8_e4m3", encoded=True)
    with pytest.raises(TilesimError, match="beyond int4's 4-bit lane"):
        gemm(a + 16, a.T, ft="int4", encoded=True)
    r = gemm(formats.encode(np.ones((4, 8)), "fp8_e4m3"), formats.encode(np.ones((8, 4)), "fp8_e4m3"),
             ft="fp8_e4m3", encoded=True)
    assert (r.values == 8).all()


def test_shared_products_leave_records_unchanged():
    """``run`` shares the float64 product of a group's inputs across its points (``products``): each record
    equals the point evaluated alone."""
    sw = Sweep(shapes=(Shape(16, 32, 48),), fts=("int8", "fp8_e4m3", "bf16"), block_scales=("none", "e8m0"),
               dists=("outliers",), seed=2)
    study = sweep.run(sw)
    points = sw.points()
    a, b = generate(points[0].shape, "outliers", sw.seed, sw.tensors)
    names = [name for name, _ in sweep.COLUMNS if name not in ("point", "pareto")]
    for p, rec, hist in zip(points, study.records, study.histograms):
        alone, h = sweep.evaluate(a, b, p)
        assert repr([rec[k] for k in names]) == repr([alone[k] for k in names]) and repr(hist) == repr(h)
