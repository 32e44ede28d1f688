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


def ratios(fn, peer, rounds: int = 15, calls: int = 10) -> list[float]:
    """Per-round ratios ``time(fn) / time(peer)``, each the best of ``calls`` back-to-back pairs, so that both
    sides of a ratio see the same machine load (after one untimed call of each)."""
    fn()
    peer()
    out = []
    for _ in range(rounds):
        t_fn = t_peer = float("inf")
        for _ in range(calls):
            t0 = time.perf_counter()
            peer()
            t1 = time.perf_counter()
            fn()
            t2 = time.perf_counter()
            t_peer, t_fn = min(t_peer, t1 - t0), min(t_fn, t2 - t1)
        out.append(t_fn / t_peer)
    return out
