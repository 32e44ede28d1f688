"""Compare formats on one GEMM shape (``tilesim gemm``): accuracy against float64, MACs, tiles, cycles.

The quick view of the architect's question (DESIGN.md): one random problem
(A, B with standard normal entries, from a seed) goes through the runtime
once per format, each run measured as one point of a study
(:func:`tilesim.study.evaluate`, whose records have the columns of
``results.csv``). With a Dask ``client`` each GEMM is split by blocks of C
across the workers (:func:`tilesim.study.blocked_gemm`), bit for bit the
same result.

>>> rows = compare(32, 32, 64, ["int8", "bf16"], seed=1)
>>> [(r.record["ft"], r.record["acc"], r.record["tiling"]) for r in rows]
[('int8', 'int16', '2x2'), ('bf16', 'fp32', '2x2')]
>>> rows[1].record["acc_err_rel"] < 1e-6 < rows[0].record["err_rel"]
True
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..study.cluster import blocked_gemm
from ..study.inputs import generate
from ..study.presets import Shape
from ..study.sweep import Point, evaluate, pareto
from .gemm import DEFAULT_MACS_PER_CYCLE, gemm

__all__ = ["Row", "compare", "problem"]


@dataclass(frozen=True)
class Row:
    """One format's run: its study record (the columns of ``results.csv``), ULP histograms, and wall time."""

    record: dict
    histograms: dict
    seconds: float


def problem(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (M x K) and B (K x N) with standard normal entries (float32, :func:`tilesim.study.generate`)."""
    return generate(Shape(m, n, k), "normal", seed)


def compare(m: int, n: int, k: int, fts, *, bovf: int = 0, rnd: str = "rne", sat: int = 0, tiling: str = "auto",
            accumulation: str = "fused", seed: int = 0, macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE, client=None,
            block: tuple[int, int] | None = None,
            on_progress: Callable[[str, int, int], None] | None = None) -> list[Row]:
    """Run one random GEMM in each format of ``fts`` (on ``client``'s workers if given); see the module docstring.

    ``on_progress(format, done, total)`` follows K-slices in this process, blocks of C on a cluster.
    """
    points = [Point(Shape(m, n, k), "normal", name, bovf, rnd, sat, accumulation, tiling, seed, macs_per_cycle)
              for name in fts]
    for p in points:
        p.plan()  # every error before any run
    a, b = problem(m, n, k, seed)
    rows = []
    for i, p in enumerate(points):
        hook = (lambda done, total, _n=p.ft: on_progress(_n, done, total)) if on_progress else None
        if client is None and block is None:
            run = functools.partial(gemm, on_slice=hook)
        else:
            run = functools.partial(blocked_gemm, client=client, block=block, macs_per_cycle=macs_per_cycle,
                                    on_block=hook)
        t0 = time.perf_counter()
        record, histograms = evaluate(a, b, p, run)
        rows.append(Row({"point": i, **record}, histograms, time.perf_counter() - t0))
    for row, front in zip(rows, pareto([r.record for r in rows])):
        row.record["pareto"] = front
    return rows
