"""The one timing rule every benchmark uses: the best wall time of several calls."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 3, warmup: bool = False) -> float:
    """Best wall time of ``repeat`` calls of ``fn``, in seconds (after one untimed call if ``warmup``)."""
    if warmup:
        fn()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
