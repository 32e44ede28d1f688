"""A study: the product of shapes, formats, modes and input distributions, one record per point.

A :class:`Sweep` names the values of every dimension; :meth:`Sweep.points`
is their product, inputs outermost (shape, distribution), so the points that
share A and B are neighbours. :func:`evaluate` runs one point through the GEMM
runtime and measures it (the columns are :data:`COLUMNS`); :func:`run` does
every point, in this process or on a Dask cluster (:mod:`.cluster`).

Integer and fixed-point formats get a symmetric per-tensor scale (``max |x|``
maps to the format's largest value); their errors are measured in the
accumulator's units, where the scales cancel (docs/decisions.md AME18).

>>> study = run(Sweep(shapes=(Shape(16, 64, 64),), fts=("int8", "bf16"), sats=(0, 1)))
>>> [(r["ft"], r["sat"], r["tiling"], r["wrapped"], r["sat_hit"], f"{r['acc_err_rel']:.1g}") for r in study.records]
[('int8', 0, '1x4', 6, 0, '0.5'), ('int8', 1, '1x4', 0, 1, '0.04'), ('bf16', 0, '1x4', 0, 0, '4e-08'),
 ('bf16', 1, '1x4', 0, 0, '4e-08')]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import formats
from ..ame import models
from ..ame.csr import ROUNDING
from ..ame.gemm import DEFAULT_MACS_PER_CYCLE, TILING_CHOICES, GemmPlan, gemm, plan_gemm
from ..ame.mmacc import saturates
from ..errors import TilesimError
from ..formats import Format, Kind
from . import metrics
from .inputs import DISTRIBUTIONS, Tensors, generate
from .presets import Shape

__all__ = ["COLUMNS", "Point", "Sweep", "Study", "evaluate", "run", "scale"]

# (column, meaning): the records' keys in order, and the columns of results.csv (docs/studies.md shows this table)
COLUMNS: tuple[tuple[str, str], ...] = (
    ("point", "index of the point in the sweep"),
    ("model", "LLM preset, or empty"),
    ("layer", "projection of the preset (q, k, v, o, gate, up, down), or empty"),
    ("m", "rows of A and C (the tokens, for a preset)"),
    ("n", "columns of B and C"),
    ("k", "columns of A, rows of B"),
    ("dist", "input distribution: normal, outliers, tensors"),
    ("seed", "seed of the generated inputs"),
    ("ft", "input format (mxcfg.Ft)"),
    ("acc", "accumulator format, from Ft and bOVF"),
    ("bovf", "mxcfg.bOVF"),
    ("rnd", "mxcfg.RND: rne, rup, rdn, rtz"),
    ("sat", "mxcfg.SAT"),
    ("accumulation", "accumulation model: fused, sequential, chain_then_add"),
    ("tiling_requested", "tiling asked for: auto, 4x4, 2x2, 1x4, 4x1, 1x1"),
    ("tiling", "tiling mode that runs"),
    ("tiling_why", "why that mode: auto's comparison of the legal modes"),
    ("scale_a", "per-tensor scale of A (integer and fixed-point formats; 1 for floats)"),
    ("scale_b", "per-tensor scale of B"),
    ("err_rel", "||C - R|| / ||R|| (Frobenius), R = float64 product of the original inputs"),
    ("ulp_max", "largest |C - R| in ULPs of the accumulator at R"),
    ("ulp_over1", "share of elements off by more than 1 ULP from R"),
    ("acc_err_rel", "||C - Q|| / ||Q||, Q = float64 product of the quantised inputs: accumulation alone"),
    ("acc_ulp_max", "largest |C - Q| in ULPs of the accumulator"),
    ("acc_ulp_over1", "share of elements off by more than 1 ULP from Q"),
    ("macs", "MACs issued, padding included"),
    ("useful_macs", "M x N x K"),
    ("useful_share", "useful_macs / macs"),
    ("instructions", "instructions of the program (mld, mst, csrw, MMACC.T)"),
    ("mmacc", "MMACC.T instructions"),
    ("tiles_loaded", "tiles loaded (mld)"),
    ("tiles_stored", "tiles stored (mst)"),
    ("macs_per_cycle", "MAC throughput of the cost model (and of tiling auto)"),
    ("cycles", "modelled cycles of the MMACC.T stream at macs_per_cycle"),
    ("inexact", "mxstatus.inexact after the program (0/1)"),
    ("sat_hit", "mxstatus.sat_hit (0/1)"),
    ("guard_fallback", "mxstatus.guard_fallback (0/1)"),
    ("wrapped", "results of a wrapping integer accumulator whose exact value does not fit it"),
)


@dataclass(frozen=True)
class Point:
    """One GEMM configuration of a sweep."""

    shape: Shape
    dist: str = "normal"
    ft: str = "bf16"
    bovf: int = 0
    rnd: str = "rne"
    sat: int = 0
    accumulation: str = "fused"
    tiling: str = "auto"
    seed: int = 0
    macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE

    def plan(self) -> GemmPlan:
        s = self.shape
        return plan_gemm(s.m, s.n, s.k, ft=self.ft, bovf=self.bovf, rnd=self.rnd, sat=self.sat, tiling=self.tiling,
                         macs_per_cycle=self.macs_per_cycle)


def _bad(option: str, value, valid, rule: str = "study.option") -> TilesimError:
    return TilesimError(f"{value!r} is not valid for {option}; valid: " + ", ".join(str(v) for v in valid),
                        instruction="study", operand=option, rule=rule, value=value)


@dataclass(frozen=True)
class Sweep:
    """The values of every dimension of a study; the points are their product."""

    shapes: tuple[Shape, ...]
    fts: tuple[str, ...] = ("bf16",)
    bovfs: tuple[int, ...] = (0,)
    rnds: tuple[str, ...] = ("rne",)
    sats: tuple[int, ...] = (0,)
    accumulations: tuple[str, ...] = ("fused",)
    tilings: tuple[str, ...] = ("auto",)
    dists: tuple[str, ...] = ("normal",)
    seed: int = 0
    macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE
    tensors: Tensors | None = field(default=None, compare=False)

    def check(self) -> None:
        """Every value valid and every point plannable, before anything runs.

        Raises:
            TilesimError: an empty dimension or a bad value (``study.option``, ``study.dist``), a format
                without an AME code, a tiling that does not fit (``ame.gemm.*``), tensors that do not fit a
                shape (``study.tensor.shape``).
        """
        for name, values in (("--shape", self.shapes), ("--ft", self.fts), ("--bovf", self.bovfs),
                             ("--rnd", self.rnds), ("--sat", self.sats), ("--accumulation", self.accumulations),
                             ("--tiling", self.tilings), ("--dist", self.dists)):
            if not values:
                raise TilesimError(f"{name} has no values", instruction="study", operand=name, rule="study.option")
        for option, values, valid in (("--bovf", self.bovfs, (0, 1)), ("--sat", self.sats, (0, 1)),
                                      ("--rnd", self.rnds, ROUNDING), ("--accumulation", self.accumulations,
                                                                       models.MODELS),
                                      ("--tiling", self.tilings, TILING_CHOICES)):
            for v in values:
                if v not in valid or isinstance(v, bool):
                    raise _bad(option, v, valid)
        for d in self.dists:
            if d not in DISTRIBUTIONS:
                raise _bad("--dist", d, DISTRIBUTIONS, "study.dist")
        for ft in self.fts:
            formats.get(ft)
        if "tensors" in self.dists:
            if self.tensors is None or (self.tensors.activations is None and self.tensors.weights is None):
                raise TilesimError("distribution 'tensors' needs --activations and/or --weights", instruction="study",
                                   operand="--dist", rule="study.dist", value="tensors")
            for s in self.shapes:
                self.tensors.check(s)
        for p in self.points():
            p.plan()

    def points(self) -> list[Point]:
        """The product of the dimensions, inputs outermost."""
        dims = itertools.product(self.shapes, self.dists, self.fts, self.bovfs, self.rnds, self.sats,
                                 self.accumulations, self.tilings)
        return [Point(s, d, formats.get(ft).name, b, r, sat, acc, t, self.seed, self.macs_per_cycle)
                for s, d, ft, b, r, sat, acc, t in dims]


def scale(x: np.ndarray, fmt: Format) -> float:
    """Per-tensor scale for integer and fixed formats (x / scale fits, max |x| at the largest value); 1 for floats."""
    if fmt.kind is Kind.FLOAT:
        return 1.0
    top = float(np.abs(x).max())
    return top / float(fmt.max_exact) if top else 1.0


def evaluate(a: np.ndarray, b: np.ndarray, point: Point, run: Callable = gemm) -> tuple[dict, dict]:
    """Run one point on inputs A, B and measure it.

    ``run`` is :func:`~tilesim.ame.gemm.gemm` or a function with its
    signature (the blocked GEMM of :mod:`.cluster`).

    Returns:
        (record, histograms): the record's keys are :data:`COLUMNS` but ``point``;
        histograms are the ULP-error counts (bins :data:`.metrics.ULP_EDGES`)
        against float64 of the original inputs (``fp64``) and of the quantised ones (``quantised``).
    """
    plan = point.plan()
    fmt, acc = plan.ft, plan.acc
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    sa, sb = scale(a64, fmt), scale(b64, fmt)
    if sa != 1.0 or sb != 1.0:
        a64, b64 = a64 / sa, b64 / sb  # the units the format sees
    r = run(a64, b64, ft=fmt.name, bovf=point.bovf, rnd=point.rnd, sat=point.sat, tiling=plan.mode_arg,
            accumulation=point.accumulation, quantize=True)
    enc = {"rounding": point.rnd, "saturate": bool(point.sat)}
    c = r.values.astype(np.float64)  # accumulator units
    total, h_total = metrics.summary(c, metrics.matmul64(a64, b64), acc)
    ref_q = metrics.matmul64(formats.quantize(a64, fmt, **enc), formats.quantize(b64, fmt, **enc))
    accum, h_accum = metrics.summary(c, ref_q, acc)
    cost = plan.cost()
    s = point.shape
    record = {
        "model": s.model, "layer": s.layer, "m": s.m, "n": s.n, "k": s.k, "dist": point.dist, "seed": point.seed,
        "ft": fmt.name, "acc": acc.name, "bovf": point.bovf, "rnd": point.rnd, "sat": point.sat,
        "accumulation": point.accumulation, "tiling_requested": point.tiling, "tiling": plan.tiling.name,
        "tiling_why": plan.why, "scale_a": sa, "scale_b": sb,
        "err_rel": total["rel"], "ulp_max": total["ulp_max"], "ulp_over1": total["ulp_over1"],
        "acc_err_rel": accum["rel"], "acc_ulp_max": accum["ulp_max"], "acc_ulp_over1": accum["ulp_over1"],
        "macs": cost.macs, "useful_macs": plan.useful_macs, "useful_share": plan.useful_macs / cost.macs,
        "instructions": cost.instructions, "mmacc": cost.mmacc, "tiles_loaded": cost.tiles_loaded,
        "tiles_stored": cost.tiles_stored, "macs_per_cycle": point.macs_per_cycle,
        "cycles": cost.cycles(point.macs_per_cycle),
        "inexact": int(r.status["inexact"]), "sat_hit": int(r.status["sat_hit"]),
        "guard_fallback": int(r.status["guard_fallback"]),
        "wrapped": metrics.wrapped(ref_q, acc, saturates(fmt, point.bovf, point.sat)),
    }
    return record, {"fp64": h_total, "quantised": h_accum}


@dataclass
class Study:
    """A finished sweep: one record per point (keys :data:`COLUMNS`), and its ULP histograms."""

    sweep: Sweep
    records: list[dict]
    histograms: list[dict]


def _groups(points: list[Point]) -> dict[tuple, list[int]]:
    """Point indices by the inputs they share (shape, distribution)."""
    out: dict[tuple, list[int]] = {}
    for i, p in enumerate(points):
        out.setdefault((p.shape.m, p.shape.n, p.shape.k, p.dist), []).append(i)
    return out


def run(sweep: Sweep, *, client=None, on_point: Callable[[Point], None] | None = None) -> Study:
    """Evaluate every point of ``sweep``: in this process, or one Dask task per point on ``client``.

    Inputs are generated once per (shape, distribution) and, on a cluster,
    scattered once; each task gets futures of them, not copies. Records are
    bit for bit the same either way.

    Raises:
        TilesimError: anything :meth:`Sweep.check` rejects, before any point runs.
    """
    sweep.check()
    points = sweep.points()
    results: list = [None] * len(points)
    if client is None:
        for idxs in _groups(points).values():
            p0 = points[idxs[0]]
            a, b = generate(p0.shape, p0.dist, sweep.seed, sweep.tensors)
            for i in idxs:
                results[i] = evaluate(a, b, points[i])
                if on_point is not None:
                    on_point(points[i])
    else:
        from .cluster import map_points
        results = map_points(client, points, sweep, on_point)
    records = [{"point": i, **rec} for i, (rec, _) in enumerate(results)]
    return Study(sweep, records, [h for _, h in results])
