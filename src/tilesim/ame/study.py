"""Compare formats on one GEMM shape: accuracy against float64, MACs, tiles, modeled cycles.

The architect's question (DESIGN.md): what does a format, an accumulator
width, a rounding mode or a tiling mode cost and lose on a real shape? One
random problem (A, B with standard normal entries, from a seed) is run through
the runtime (:func:`tilesim.ame.gemm.gemm`) once per format. Integer and
fixed-point formats get a symmetric per-tensor scale (``max |x|`` maps to the
format's largest value) and their results are scaled back; float formats take
the values as they are (docs/decisions.md AME18). Two errors are reported, as
``||C - R|| / ||R||`` (Frobenius): against the float64 product of the
original inputs (everything lost) and of the quantised inputs (what the
accumulation loses).

>>> rows = compare(32, 32, 64, ["int8", "bf16"], seed=1)
>>> [(r.ft.name, r.acc.name, r.plan.tiling.name) for r in rows]
[('int8', 'int16', '2x2'), ('bf16', 'fp32', '2x2')]
>>> rows[1].error_accumulation < 1e-6 < rows[0].error_total
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import formats
from ..formats import Format, Kind
from .gemm import GemmPlan, GemmResult, gemm, plan_gemm

__all__ = ["Row", "compare", "problem"]


@dataclass(frozen=True)
class Row:
    """One format's run: plan and cost, status, the two relative errors, and the wall time."""

    ft: Format
    acc: Format
    plan: GemmPlan
    result: GemmResult
    error_total: float
    error_accumulation: float
    seconds: float


def problem(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (M x K) and B (K x N) with standard normal entries."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)), rng.standard_normal((k, n))


def _scale(x: np.ndarray, fmt: Format) -> float:
    """Per-tensor scale for integer and fixed formats (x / scale fits), 1 for floats."""
    if fmt.kind is Kind.FLOAT:
        return 1.0
    top = float(np.abs(x).max())
    return top / float(fmt.max_exact) if top else 1.0


def _rel(c: np.ndarray, ref: np.ndarray) -> float:
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.linalg.norm(ref)
        return float(np.linalg.norm(c - ref) / d) if d else float(np.linalg.norm(c))


def compare(m: int, n: int, k: int, fts, *, bovf: int = 0, rnd: str = "rne", sat: int = 0, tiling: str = "auto",
            accumulation: str = "fused", seed: int = 0,
            on_slice: Callable[[str, int, int], None] | None = None) -> list[Row]:
    """Run one random GEMM in each format of ``fts``; see the module docstring."""
    a, b = problem(m, n, k, seed)
    exact = a @ b
    rows = []
    for name in fts:
        plan = plan_gemm(m, n, k, ft=name, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling)  # errors before any run
        sa, sb = _scale(a, plan.ft), _scale(b, plan.ft)
        t0 = time.perf_counter()
        hook = (lambda done, total, _n=plan.ft.name: on_slice(_n, done, total)) if on_slice else None
        r = gemm(a / sa, b / sb, ft=plan.ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=accumulation,
                 quantize=True, on_slice=hook)
        seconds = time.perf_counter() - t0
        enc = {"rounding": rnd, "saturate": bool(sat)}
        aq = formats.quantize(a / sa, plan.ft, **enc) * sa
        bq = formats.quantize(b / sb, plan.ft, **enc) * sb
        c = r.values.astype(np.float64) * (sa * sb)
        rows.append(Row(plan.ft, plan.acc, plan, r, _rel(c, exact), _rel(c, aq @ bq), seconds))
    return rows
