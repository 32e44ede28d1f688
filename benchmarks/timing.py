"""The one timing rule every benchmark uses: the best wall time of several calls; and the GEMM memory peak."""

from __future__ import annotations

import subprocess
import sys
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


def gemm_memory() -> None:
    """Peak resident memory of a 4096^3 bf16 -> fp32 GEMM, in a child process (so nothing else counts)."""
    code = ("import resource, time, numpy as np; from tilesim.ame.gemm import gemm\n"
            "a, b = np.random.default_rng(0).standard_normal((2, 4096, 4096))\n"
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "t = time.perf_counter(); gemm(a, b, ft='bf16', quantize=True); t = time.perf_counter() - t\n"
            "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "print(f'{t:.1f} s; peak {peak / 2**20:.2f} GiB (inputs alone {base / 2**20:.2f} GiB)')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    print(f"\n4096^3 bf16 -> fp32 GEMM (child process): {out.strip()}")
