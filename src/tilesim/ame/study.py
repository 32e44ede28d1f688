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

``accs`` adds accumulator what-ifs on the same data (``proposal`` is the proposal's own):

>>> rows = compare(16, 16, 512, ["int8"], accs=["proposal", "int32"], seed=5)
>>> [(r.record["acc"], r.record["in_proposal"], r.record["wrapped"] > 0) for r in rows]
[('int16', 1, True), ('int32', 0, False)]
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import TilesimError
from ..study.cluster import blocked_gemm
from ..study.inputs import generate
from ..study.presets import Shape
from ..study.sweep import Point, evaluate, pareto
from . import whatif
from .gemm import DEFAULT_MACS_PER_CYCLE, gemm

__all__ = ["Row", "compare", "problem"]


@dataclass(frozen=True)
class Row:
    """One format's run: its study record (the columns of ``results.csv``), ULP histograms, and wall time."""

    record: dict
    histograms: dict
    seconds: float


def _proposal_acc(ft, bovf: int, acc: str) -> bool:
    """Whether the what-if ``acc`` names the proposal's own accumulator for ``ft`` (its point then is the
    proposal's); False where ``ft`` or ``acc`` is no AME format (planning says so)."""
    try:
        return whatif.in_proposal(ft, bovf, acc)
    except (KeyError, TilesimError):
        return False


def problem(m: int, n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A (M x K) and B (K x N) with standard normal entries (float32, :func:`tilesim.study.generate`)."""
    return generate(Shape(m, n, k), "normal", seed)


def compare(m: int, n: int, k: int, fts, *, bovf: int = 0, rnd: str = "rne", sat: int = 0, tiling: str = "auto",
            accumulation: str = "fused", seed: int = 0, macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE, client=None,
            block: tuple[int, int] | None = None, accs=(whatif.PROPOSAL,),
            on_progress: Callable[[str, int, int], None] | None = None) -> list[Row]:
    """Run one random GEMM in each format of ``fts`` and accumulator of ``accs`` (``proposal`` or a what-if,
    :mod:`.whatif`; formats outermost, as a study's points) on ``client``'s workers if given; see the module
    docstring.

    ``on_progress(format, done, total)`` follows K-slices in this process, blocks of C on a cluster.
    """
    if not accs:
        raise TilesimError("--acc has no values", instruction="tilesim gemm", operand="--acc", rule="study.option")
    points = [Point(Shape(m, n, k), "normal", name, bovf, rnd, sat, accumulation, tiling, seed, macs_per_cycle, acc)
              for name in fts for acc in dict.fromkeys(accs)
              if acc == whatif.PROPOSAL or whatif.PROPOSAL not in accs or not _proposal_acc(name, bovf, acc)]
    for p in points:
        p.plan()  # every error before any run
    a, b = problem(m, n, k, seed)
    rows = []
    for i, p in enumerate(points):
        name = p.ft if p.acc == whatif.PROPOSAL else f"{p.ft}->{p.acc}"
        hook = (lambda done, total, _n=name: on_progress(_n, done, total)) if on_progress else None
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
