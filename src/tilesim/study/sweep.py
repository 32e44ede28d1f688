"""A study: the product of shapes, formats, modes and input distributions, one record per point.

A :class:`Sweep` names the values of every dimension; :meth:`Sweep.points`
is their product, inputs outermost (shape, distribution), so the points that
share A and B are neighbours. :func:`evaluate` runs one point through the GEMM
runtime and measures it (the columns are :data:`COLUMNS`); :func:`run` does
every point, in this process or on a Dask cluster (:mod:`.cluster`).

Integer and fixed-point formats get a symmetric per-tensor scale (``max |x|``
maps to the format's largest value); their errors are measured in the
accumulator's units, where the scales cancel (docs/decisions.md AME18).

Three axes go beyond the proposal (docs/studies.md): ``acc`` replaces its
accumulator (:mod:`tilesim.ame.whatif`; ``in_proposal`` says whether a point
is the proposal's own), ``block_scale`` quantises A and B by blocks along K
(:mod:`.blockscale`; S10, S11), and the cost model adds memory
(:func:`tilesim.ame.cost.schedule`, S12). :func:`run` marks each shape's
Pareto front of error against the schedule's cycles.

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
from ..ame import models, whatif
from ..ame.accum import accumulator
from ..ame.cost import DEFAULT_BANDWIDTH, schedule
from ..ame.csr import ROUNDING
from ..ame.gemm import DEFAULT_MACS_PER_CYCLE, TILING_CHOICES, GemmPlan, encode_operand, gemm, plan_gemm
from ..ame.lanes import whole_int_lane
from ..ame.mmacc import saturates
from ..errors import TilesimError
from ..formats import Format, Kind
from . import blockscale, metrics
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
    ("ft", "input format (mxcfg.Ft); with block scaling, the element format"),
    ("acc", "accumulator format of MMACC.T: from Ft and bOVF, or the --acc what-if"),
    ("in_proposal", "1 if the accumulator is the proposal's for Ft and bOVF, 0 for a what-if outside it"),
    ("bovf", "mxcfg.bOVF"),
    ("rnd", "mxcfg.RND: rne, rup, rdn, rtz"),
    ("sat", "mxcfg.SAT"),
    ("accumulation", "accumulation model: fused, sequential, chain_then_add"),
    ("tiling_requested", "tiling asked for: auto, 4x4, 2x2, 1x4, 4x1, 1x1"),
    ("tiling", "tiling mode that runs"),
    ("tiling_why", "why that mode: auto's comparison of the legal modes"),
    ("fallback", "why a 4x4 asked for runs as 2x2: the guard (accumulator over 16 bits) or the runtime (tiles)"),
    ("block_scale", "scale format of block-scaled inputs: none, e8m0 (OCP MX), fp8_e4m3"),
    ("block_size", "elements along K sharing one scale"),
    ("scale_at", "where scales enter: after (each K-slice's sum, into an FP32 total) or before (dequantised)"),
    ("mmacc_ft", "the format MMACC.T multiplies: Ft, or the dequantised format of scale_at=before"),
    ("clipped_a", "share of A's elements clamped to the element format's largest value"),
    ("clipped_b", "share of B's elements clamped"),
    ("flushed_a", "share of A's non-zero elements that became zero"),
    ("flushed_b", "share of B's non-zero elements that became zero"),
    ("scale_a", "per-tensor scale of A (integer and fixed-point formats without block scales; else 1)"),
    ("scale_b", "per-tensor scale of B"),
    ("err_rel", "||C - R|| / ||R|| (Frobenius), R = float64 product of the original inputs"),
    ("err_row", "largest ||C_i - R_i|| / ||R_i|| over the rows i of C: robust where single results are near 0"),
    ("ulp_max", "largest |C - R| in ULPs of C's format at R (driven by results near 0: see ulp_p99)"),
    ("ulp_p99", "99th percentile of |C - R| in ULPs"),
    ("ulp_over1", "share of elements off by more than 1 ULP from R"),
    ("acc_err_rel", "||C - Q|| / ||Q||, Q = float64 product of the quantised inputs: accumulation alone"),
    ("acc_err_row", "largest ||C_i - Q_i|| / ||Q_i|| over the rows"),
    ("acc_ulp_max", "largest |C - Q| in ULPs of C's format"),
    ("acc_ulp_p99", "99th percentile of |C - Q| in ULPs"),
    ("acc_ulp_over1", "share of elements off by more than 1 ULP from Q"),
    ("macs", "MACs issued, padding included"),
    ("useful_macs", "M x N x K"),
    ("useful_share", "useful_macs / macs"),
    ("instructions", "instructions of the program (mld, mst, csrw, MMACC.T)"),
    ("mmacc", "MMACC.T instructions"),
    ("tiles_loaded", "tiles loaded (mld)"),
    ("tiles_stored", "tiles stored (mst)"),
    ("macs_per_cycle", "MAC throughput target of the cost model (and of tiling auto)"),
    ("cycles", "modelled cycles of the MMACC.T stream at macs_per_cycle, compute only"),
    ("cells", "parallel 4x4 cells P of the schedule for macs_per_cycle (16, 64, 128)"),
    ("blocks", "Mb x Nb x Kb of the schedule (make_plan's, or --schedule-block)"),
    ("bandwidth", "bytes per cycle between memory and the tiles"),
    ("bytes_moved", "bytes the schedule loads and stores (tiles and scales)"),
    ("compute_cycles", "schedule: cycles of every K-slice's MACs at P x 256 MACs per cycle"),
    ("memory_cycles", "schedule: cycles of every K-slice's loads (and C's stores) at bandwidth"),
    ("sched_cycles", "schedule: max(compute, memory) per K-slice, double-buffered, plus the first loads"),
    ("bound", "compute or memory: which of the two totals is larger"),
    ("achieved_macs_per_cycle", "useful_macs / sched_cycles"),
    ("pareto", "1 if no point of the same shape and inputs has both a lower err_rel and fewer sched_cycles"),
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
    acc: str = whatif.PROPOSAL
    block_scale: str = "none"
    block_size: int = blockscale.DEFAULT_BLOCK
    scale_at: str = "after"
    bandwidth: int = DEFAULT_BANDWIDTH
    schedule_blocks: tuple[int, int, int] | None = None  # Mb, Nb, Kb of the schedule; None: make_plan's

    @property
    def mmacc_ft(self) -> str:
        """The format MMACC.T multiplies: Ft, or the dequantised format when scales enter before the MAC."""
        if self.block_scale == "none" or self.scale_at == "after":
            return self.ft
        return blockscale.dequantised(self.ft, self.block_scale)

    def plan(self) -> GemmPlan:
        """The GEMM plan of this point.

        Raises:
            TilesimError: what :func:`~tilesim.ame.gemm.plan_gemm` refuses, a bad block scaling
                (``study.block``).
        """
        s = self.shape
        if self.block_scale != "none":
            blockscale.check(self.ft, self.block_scale, self.block_size)
            if self.scale_at not in blockscale.SCALE_AT:
                raise _bad("--scale-at", self.scale_at, blockscale.SCALE_AT, "study.block")
        acc = self.acc
        if self.mmacc_ft != self.ft and acc != whatif.PROPOSAL:
            acc = whatif.check(self.mmacc_ft, acc).name
        p = plan_gemm(s.m, s.n, s.k, ft=self.mmacc_ft, bovf=self.bovf, rnd=self.rnd, sat=self.sat, tiling=self.tiling,
                      macs_per_cycle=self.macs_per_cycle, acc=acc)
        if self.block_scale != "none" and self.scale_at == "after":
            step = p.k_step
            if self.block_size % step and step % self.block_size:
                raise TilesimError(f"scales after the K-slice sum need blocks of whole K-slices ({step} elements of "
                                   f"{p.ft.name}) or slices of whole blocks, not {self.block_size}",
                                   instruction="study", operand="--block-size", rule="study.block",
                                   value=self.block_size)
        return p

    def schedule(self, plan: GemmPlan):
        """The cost of the proposal's schedule with memory (:func:`tilesim.ame.cost.schedule`)."""
        s = self.shape
        scale_bits = 0 if self.block_scale == "none" else formats.get(self.block_scale).bits
        return schedule(s.m, s.n, s.k, in_bits=128 // formats.elements_per_row(self.ft), out_bits=plan.acc.lane_bits,
                        macs_per_cycle=self.macs_per_cycle, bandwidth=self.bandwidth, scale_bits=scale_bits,
                        scale_block=self.block_size, blocks=self.schedule_blocks)


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
    accs: tuple[str, ...] = (whatif.PROPOSAL,)
    block_scales: tuple[str, ...] = ("none",)
    block_sizes: tuple[int, ...] = (blockscale.DEFAULT_BLOCK,)
    scale_ats: tuple[str, ...] = ("after",)
    bandwidth: int = DEFAULT_BANDWIDTH
    schedule_blocks: tuple[int, int, int] | None = None

    def check(self) -> None:
        """Every value valid and every point plannable, before anything runs.

        Raises:
            TilesimError: an empty dimension or a bad value (``study.option``, ``study.dist``), a format
                without an AME code, a tiling that does not fit (``ame.gemm.*``), tensors that do not fit a
                shape (``study.tensor.shape``).
        """
        for name, values in (("--shape", self.shapes), ("--ft", self.fts), ("--bovf", self.bovfs),
                             ("--rnd", self.rnds), ("--sat", self.sats), ("--accumulation", self.accumulations),
                             ("--tiling", self.tilings), ("--dist", self.dists), ("--acc", self.accs),
                             ("--block-scale", self.block_scales), ("--block-size", self.block_sizes),
                             ("--scale-at", self.scale_ats)):
            if not values:
                raise TilesimError(f"{name} has no values", instruction="study", operand=name, rule="study.option")
        for option, values, valid in (("--bovf", self.bovfs, (0, 1)), ("--sat", self.sats, (0, 1)),
                                      ("--rnd", self.rnds, ROUNDING), ("--accumulation", self.accumulations,
                                                                       models.MODELS),
                                      ("--tiling", self.tilings, TILING_CHOICES),
                                      ("--block-scale", self.block_scales, blockscale.SCALE_FORMATS),
                                      ("--scale-at", self.scale_ats, blockscale.SCALE_AT)):
            for v in values:
                if v not in valid or isinstance(v, bool):
                    raise _bad(option, v, valid, "study.block" if option in ("--block-scale", "--scale-at")
                               else "study.option")
        if isinstance(self.bandwidth, bool) or not isinstance(self.bandwidth, (int, np.integer)) or self.bandwidth < 1:
            raise TilesimError(f"--bandwidth {self.bandwidth!r} is not a positive number of bytes per cycle",
                               instruction="study", operand="--bandwidth", rule="study.option", value=self.bandwidth)
        b = self.schedule_blocks
        if b is not None and (len(b) != 3 or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1
                                                 for x in b)):
            raise TilesimError(f"--schedule-block {b!r} is not Mb x Nb x Kb of positive integers", instruction="study",
                               operand="--schedule-block", rule="study.option", value=b)
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
        """The product of the dimensions, inputs outermost. Block sizes and where scales enter vary only
        with a block scale (one point each without)."""
        dims = itertools.product(self.shapes, self.dists, self.fts, self.block_scales, self.accs, self.bovfs,
                                 self.rnds, self.sats, self.accumulations, self.tilings)
        out = []
        for s, d, ft, bs, acc, b, r, sat, model, t in dims:
            sizes = self.block_sizes if bs != "none" else self.block_sizes[:1]
            ats = self.scale_ats if bs != "none" else self.scale_ats[:1]
            for size, at in itertools.product(sizes, ats):
                p = Point(s, d, formats.get(ft).name, b, r, sat, model, t, self.seed, self.macs_per_cycle, acc, bs,
                          size, at, self.bandwidth, self.schedule_blocks)
                if not (acc != whatif.PROPOSAL and whatif.PROPOSAL in self.accs and _proposal_acc(p) == acc):
                    out.append(p)  # a what-if naming the proposal's own accumulator is the proposal's point
        return out


def _proposal_acc(p: Point) -> str | None:
    try:
        return accumulator(p.mmacc_ft, p.bovf).name
    except (KeyError, TilesimError):  # not an AME format: Sweep.check says so
        return None


def scale(x: np.ndarray, fmt: Format) -> float:
    """Per-tensor scale for integer and fixed formats (x / scale fits, max |x| at the largest value); 1 for floats."""
    if fmt.kind is Kind.FLOAT:
        return 1.0
    top = float(np.abs(x).max())
    return top / float(fmt.max_exact) if top else 1.0


_TO_INTEGER = {"rne": np.rint, "rtz": np.trunc, "rup": np.ceil, "rdn": np.floor}


def operand(x: np.ndarray, fmt: Format, name: str, rnd: str, sat: int) -> tuple[np.ndarray, np.ndarray]:
    """One encoding of ``x`` into ``fmt``, for both of a point's uses: the codes :func:`~tilesim.ame.gemm.gemm`
    stores with ``quantize=True`` (rounded with ``rnd``, clamped) and ``formats.quantize(x, fmt, rnd, sat)``.

    The two encodings differ only where ``x`` is outside ``fmt``'s finite range or NaN (inside it, no value
    overflows, so clamping changes nothing): one plain encoding, and gemm's own path on those lanes alone.
    """
    outside = ~((x >= fmt.min) & (x <= fmt.max))
    whole = whole_int_lane(fmt)
    if whole is not None and rnd in _TO_INTEGER:  # rounding a float64 to an integer is exact in numpy: the
        # codec's result for every value in range, far faster (lanes outside are redone below)
        ints = _TO_INTEGER[rnd](np.where(outside, 0.0, x)).astype(whole)
        codes, quantized = ints.view(fmt.dtype), ints.astype(np.float64)
        if outside.any():
            codes[outside] = formats.encode(x[outside], fmt, rnd, saturate=bool(sat))
            quantized[outside] = formats.decode(codes[outside], fmt)
    else:
        codes = formats.encode(x, fmt, rnd, saturate=bool(sat))
        quantized = formats.decode(codes, fmt)
    if not outside.any():
        return codes, quantized
    gemm_codes = codes.copy()
    try:
        gemm_codes[outside] = encode_operand(x[outside], fmt, name, rounding=rnd, saturate=bool(sat), quantize=True)
    except TilesimError:  # gemm's own error, naming the element where it sits in x
        encode_operand(x, fmt, name, rounding=rnd, saturate=bool(sat), quantize=True)
        raise
    return gemm_codes, quantized


def evaluate(a: np.ndarray, b: np.ndarray, point: Point, run: Callable = gemm,
             products: dict | None = None) -> tuple[dict, dict]:
    """Run one point on inputs A, B and measure it.

    ``run`` is :func:`~tilesim.ame.gemm.gemm` or a function with its
    signature (the blocked GEMM of :mod:`.cluster`). ``products``: a dict kept
    across the points of the same A and B, holding their float64 product per
    scale, so that the points share it (the same bits as computing it anew).

    Returns:
        (record, histograms): the record's keys are :data:`COLUMNS` but ``point`` and ``pareto``;
        histograms are the ULP-error counts (bins :data:`.metrics.ULP_EDGES`)
        against float64 of the original inputs (``fp64``) and of the quantised ones (``quantised``).
    """
    plan = point.plan()
    fmt, acc = plan.ft, plan.acc
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    counts = {"clipped_a": 0.0, "clipped_b": 0.0, "flushed_a": 0.0, "flushed_b": 0.0}
    sa = sb = 1.0
    if point.block_scale != "none":
        qa = blockscale.quantize_blocks(a64, point.ft, point.block_scale, point.block_size)
        qb = blockscale.quantize_blocks(b64.T, point.ft, point.block_scale, point.block_size)
        counts = {"clipped_a": qa.clipped, "clipped_b": qb.clipped, "flushed_a": qa.flushed, "flushed_b": qb.flushed}
        ref_q = metrics.matmul64(qa.values, qb.values.T)
        if point.scale_at == "after":
            c, status, wrapped = blockscale.scaled_after(qa, qb, point, plan, run)
            out = formats.get(blockscale.TOTAL)
        else:
            r = run(qa.values, qb.values.T, ft=fmt.name, bovf=point.bovf, rnd=point.rnd, sat=point.sat,
                    tiling=plan.mode_arg, accumulation=point.accumulation, quantize=True, acc=acc.name)
            c, status, wrapped, out = r.values.astype(np.float64), r.status, 0, acc
    else:
        sa, sb = scale(a64, fmt), scale(b64, fmt)
        if sa != 1.0 or sb != 1.0:
            a64, b64 = a64 / sa, b64 / sb  # the units the format sees
        (ca, qa64), (cb, qb64) = (operand(x, fmt, n, point.rnd, point.sat) for x, n in ((a64, "a"), (b64, "b")))
        r = run(ca, cb, ft=fmt.name, bovf=point.bovf, rnd=point.rnd, sat=point.sat, tiling=plan.mode_arg,
                accumulation=point.accumulation, quantize=True, acc=acc.name, encoded=True)
        c, status, out = r.values.astype(np.float64), r.status, acc  # accumulator units
        ref_q = metrics.matmul64(qa64, qb64)
        wrapped = metrics.wrapped(ref_q, acc, saturates(fmt, point.bovf, point.sat))
        counts = {"clipped_a": metrics.share(np.abs(a64) > float(fmt.max_exact)),
                  "clipped_b": metrics.share(np.abs(b64) > float(fmt.max_exact)),
                  "flushed_a": metrics.share((a64 != 0) & (qa64 == 0), a64),
                  "flushed_b": metrics.share((b64 != 0) & (qb64 == 0), b64)}
    exact = None if products is None else products.get((sa, sb))
    if exact is None:
        exact = metrics.matmul64(a64, b64)
        if products is not None:
            products[sa, sb] = exact
    total, h_total = metrics.summary(c, exact, out)
    accum, h_accum = metrics.summary(c, ref_q, out)
    cost = plan.cost()
    sched = point.schedule(plan)
    s = point.shape
    record = {
        "model": s.model, "layer": s.layer, "m": s.m, "n": s.n, "k": s.k, "dist": point.dist, "seed": point.seed,
        "ft": point.ft, "acc": acc.name, "in_proposal": int(plan.in_proposal), "bovf": point.bovf, "rnd": point.rnd,
        "sat": point.sat, "accumulation": point.accumulation, "tiling_requested": point.tiling,
        "tiling": plan.tiling.name, "tiling_why": plan.why, "fallback": plan.fallback_why,
        "block_scale": point.block_scale, "block_size": point.block_size if point.block_scale != "none" else 0,
        "scale_at": point.scale_at if point.block_scale != "none" else "", "mmacc_ft": fmt.name, **counts,
        "scale_a": sa, "scale_b": sb,
        "err_rel": total["rel"], "err_row": total["row"], "ulp_max": total["ulp_max"], "ulp_p99": total["ulp_p99"],
        "ulp_over1": total["ulp_over1"],
        "acc_err_rel": accum["rel"], "acc_err_row": accum["row"], "acc_ulp_max": accum["ulp_max"],
        "acc_ulp_p99": accum["ulp_p99"], "acc_ulp_over1": accum["ulp_over1"],
        "macs": cost.macs, "useful_macs": plan.useful_macs, "useful_share": plan.useful_macs / cost.macs,
        "instructions": cost.instructions, "mmacc": cost.mmacc, "tiles_loaded": cost.tiles_loaded,
        "tiles_stored": cost.tiles_stored, "macs_per_cycle": point.macs_per_cycle,
        "cycles": cost.cycles(point.macs_per_cycle), "cells": sched.cells, "blocks": "x".join(map(str, sched.blocks)),
        "bandwidth": sched.bandwidth, "bytes_moved": sched.bytes_moved, "compute_cycles": sched.compute,
        "memory_cycles": sched.memory, "sched_cycles": sched.cycles, "bound": sched.bound,
        "achieved_macs_per_cycle": plan.useful_macs / sched.cycles,
        "inexact": int(status["inexact"]), "sat_hit": int(status["sat_hit"]),
        "guard_fallback": int(status["guard_fallback"]), "wrapped": wrapped,
    }
    return record, {"fp64": h_total, "quantised": h_accum}


def pareto(records: list[dict]) -> list[int]:
    """1 for the records on their shape's Pareto front of (err_rel, sched_cycles), else 0: no record of the
    same shape and inputs has an error and cycles both no larger, one of them smaller. A NaN error is never
    on the front."""
    out = []
    for r in records:
        same = [q for q in records if (q["m"], q["n"], q["k"], q["dist"], q["layer"]) ==
                (r["m"], r["n"], r["k"], r["dist"], r["layer"])]
        e, c = r["err_rel"], r["sched_cycles"]
        beaten = np.isnan(e) or any(q["err_rel"] <= e and q["sched_cycles"] <= c and
                                    (q["err_rel"] < e or q["sched_cycles"] < c) for q in same)
        out.append(int(not beaten))
    return out


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
            products: dict = {}
            for i in idxs:
                results[i] = evaluate(a, b, points[i], products=products)
                if on_point is not None:
                    on_point(points[i])
    else:
        from .cluster import map_points
        results = map_points(client, points, sweep, on_point)
    records = [{"point": i, **rec} for i, (rec, _) in enumerate(results)]
    for r, front in zip(records, pareto(records)):
        r["pareto"] = front
    names = [name for name, _ in COLUMNS]
    return Study(sweep, [{k: r[k] for k in names} for r in records], [h for _, h in results])
