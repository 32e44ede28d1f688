"""Dask execution: a sweep as one task per point, and one large GEMM split by blocks of C.

:func:`connect` gives a ``distributed.Client``: on a new ``LocalCluster`` of
``workers`` processes (one thread each), or on an existing cluster at
``scheduler``; neither gives ``None`` (run in this process). Inputs travel
to the workers once: they are scattered, and every task gets futures of
them, so a worker fetches each input at most once however many tasks use it.

:func:`blocked_gemm` cuts C into blocks (rows of A x columns of B) and runs
each through :func:`~tilesim.ame.gemm.gemm`. Every result element depends
only on its row of A, its column of B and the K-slices, so the blocks give the
same bits as one call, whatever their size and however many workers run them;
the flags are OR-ed, and the plan (cost, tiling) is the whole GEMM's.
"""

from __future__ import annotations

import contextlib
import logging
import math
from typing import Callable, Iterator

import numpy as np

from ..ame import models
from ..ame.gemm import DEFAULT_MACS_PER_CYCLE, GemmResult, gemm, plan_gemm
from ..errors import GeometryError, TilesimError
from .inputs import generate

__all__ = ["connect", "map_points", "blocked_gemm", "default_block"]


@contextlib.contextmanager
def connect(workers: int | None = None, scheduler: str | None = None, timeout: float = 10.0) -> Iterator:
    """A Dask client on a new LocalCluster (``workers``) or an existing scheduler; ``None`` for neither.

    Raises:
        TilesimError: both given, a worker count below 1 (``study.workers``), or a scheduler that does
            not answer within ``timeout`` seconds (``study.scheduler``).
    """
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise TilesimError("give --workers (a new local cluster) or --scheduler (an existing one), not both",
                           instruction="study", operand="--workers", rule="study.workers", value=workers)
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise TilesimError("--workers is a positive number of worker processes", instruction="study",
                           operand="--workers", rule="study.workers", value=workers)
    from distributed import Client, LocalCluster

    if workers is not None:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as e:
        raise TilesimError(f"no Dask scheduler answered at {scheduler!r} within {timeout:g} s ({e})",
                           instruction="study", operand="--scheduler", rule="study.scheduler",
                           value=scheduler) from None
    with client:
        yield client


def _results(client, futures: list, on_done: Callable[[int], None] | None) -> list:
    """The futures' results in order, calling ``on_done(index)`` as each finishes."""
    from distributed import as_completed

    index = {f.key: i for i, f in enumerate(futures)}
    for f in as_completed(futures):
        if on_done is not None:
            on_done(index[f.key])
    return client.gather(futures)


def map_points(client, points: list, sweep, on_point: Callable | None = None) -> list:
    """:func:`.sweep.evaluate` of every point, one task each; inputs scattered once per (shape, distribution)."""
    from .sweep import _groups, evaluate

    futures: list = [None] * len(points)
    for idxs in _groups(points).values():
        p0 = points[idxs[0]]
        fa, fb = client.scatter(list(generate(p0.shape, p0.dist, sweep.seed, sweep.tensors)), hash=False)
        for i in idxs:
            futures[i] = client.submit(evaluate, fa, fb, points[i], pure=False)
    return _results(client, futures, None if on_point is None else (lambda i: on_point(points[i])))


def _ceil(x: int, y: int) -> int:
    return -(-x // y)


def default_block(m: int, n: int, workers: int) -> tuple[int, int]:
    """Rows x columns of C per block: about four blocks per worker, in multiples of 64 (a 4x4 group of tiles)."""
    target = 4 * max(1, workers)
    parts_m = min(_ceil(m, 64), max(1, round(math.sqrt(target * m / n))))
    parts_n = min(_ceil(n, 64), _ceil(target, parts_m))
    return _ceil(_ceil(m, parts_m), 64) * 64, _ceil(_ceil(n, parts_n), 64) * 64


def _block(a, b, c, options: dict) -> tuple[np.ndarray, dict]:
    r = gemm(a, b, c, **options)
    return r.codes, r.status


def blocked_gemm(a, b, c=None, *, client=None, block: tuple[int, int] | None = None, ft="bf16", bovf: int = 0,
                 rnd: str = "rne", sat: int = 0, tiling: str = "auto", accumulation: str = "fused",
                 macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE, quantize: bool = False,
                 on_block: Callable[[int, int], None] | None = None, acc=None, encoded: bool = False) -> GemmResult:
    """:func:`~tilesim.ame.gemm.gemm`, with C cut into ``block`` (rows, columns) and the blocks run on ``client``.

    Without ``client`` the blocks run here, one after another. ``block``
    defaults to :func:`default_block` for the cluster's workers (one block for
    the whole of C without a client). ``quantize`` is gemm's (AME22), ``acc`` its what-if accumulator,
    ``encoded`` its codes in place of values.
    ``on_block(done, total)`` follows progress.

    Raises:
        GeometryError: shapes that do not chain, or a block below 1 x 1 (``ame.gemm.shape``).
        TilesimError: everything :func:`~tilesim.ame.gemm.plan_gemm` rejects.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise GeometryError(f"A {a.shape} and B {b.shape} are not M x K and K x N", instruction="gemm",
                            operand="a, b", rule="ame.gemm.shape", value=(a.shape, b.shape))
    m, k, n = a.shape[0], a.shape[1], b.shape[1]
    if c is not None and np.shape(c) != (m, n):
        raise GeometryError(f"C {np.shape(c)} is not M x N = {(m, n)}", instruction="gemm", operand="c",
                            rule="ame.gemm.shape", value=np.shape(c))
    models.check_model(accumulation)
    plan = plan_gemm(m, n, k, ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, with_c=c is not None,
                     macs_per_cycle=macs_per_cycle, acc=acc)
    if block is None:
        block = default_block(m, n, len(client.scheduler_info()["workers"])) if client is not None else (m, n)
    if len(block) != 2 or any(isinstance(x, bool) or int(x) != x or x < 1 for x in block):
        raise GeometryError(f"block {block!r}: rows and columns of C are positive integers", instruction="gemm",
                            operand="block", rule="ame.gemm.shape", value=block)
    rows = [slice(i, i + int(block[0])) for i in range(0, m, int(block[0]))]
    cols = [slice(j, j + int(block[1])) for j in range(0, n, int(block[1]))]
    tasks = [(i, j) for i in range(len(rows)) for j in range(len(cols))]
    options = {"ft": plan.ft.name, "bovf": bovf, "rnd": rnd, "sat": sat, "tiling": plan.mode_arg,
               "accumulation": accumulation, "quantize": quantize, "acc": plan.acc.name, "encoded": encoded}
    a_parts, b_parts = [a[r] for r in rows], [b[:, s] for s in cols]
    c_parts = [None if c is None else np.asarray(c)[rows[i], cols[j]] for i, j in tasks]
    progress = None if on_block is None else (lambda done: on_block(done, len(tasks)))
    if client is None:
        results = []
        for i, j in tasks:
            results.append(_block(a_parts[i], b_parts[j], c_parts[len(results)], options))
            if progress is not None:
                progress(len(results))
    else:
        fa, fb = client.scatter(a_parts, hash=False), client.scatter(b_parts, hash=False)
        fc = client.scatter(c_parts, hash=False) if c is not None else c_parts
        futures = [client.submit(_block, fa[i], fb[j], fc[t], options, pure=False) for t, (i, j) in enumerate(tasks)]
        done = iter(range(1, len(tasks) + 1))
        results = _results(client, futures, None if progress is None else (lambda _: progress(next(done))))
    codes = np.empty((m, n), plan.acc.dtype)
    status = {"guard_fallback": plan.guard_fallback, "badgeom": False, "inexact": False, "sat_hit": False}
    for (i, j), (part, st) in zip(tasks, results):
        codes[rows[i], cols[j]] = part
        status["inexact"] |= st["inexact"]
        status["sat_hit"] |= st["sat_hit"]
    return GemmResult(plan, codes, status)
