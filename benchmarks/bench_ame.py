"""MMACC.T throughput: MACs per second on a stream of instructions, against numpy float64 matmul.

    python benchmarks/bench_ame.py [--instructions N] [--gemm SIZE]

For each configuration a stream of N ``MMACC.T`` (2x2, M = 16, K = elements
per row, beta = 0, so every instruction reads and accumulates its C tiles)
runs on one core, rotating over preloaded A/B tiles. The peer is numpy's
float64 matmul of the same total shape, (4N, 16, K) @ (4N, K, 16) in one
call, timed in the same run. The ratio is tilesim MACs/s over numpy MACs/s
(numpy neither rounds to the formats nor models the machine; it is the
yardstick of "a matrix product in numpy").

The GEMM runtime (``tilesim.ame.gemm``) is timed on SIZE x SIZE x SIZE
(default 1024) against numpy float64 ``a @ b`` of the same shape, in the same run.
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import formats
from tilesim.ame import Core, mxcfg, mxtile
from tilesim.ame.gemm import gemm

CONFIGS = (("int8 -> int16", "int8", 0), ("fp8_e4m3 -> fp16", "fp8_e4m3", 0), ("bf16 -> fp32", "bf16", 0))


def bench(ft: str, bovf: int, n: int, rng) -> tuple[float, float, int]:
    k = formats.elements_per_row(ft)
    core = Core()
    core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf))
    core.csrw("mxtile", mxtile(k=k, m=16, tiling="2x2"))
    for t in range(8):  # A/B operands in tr0..tr7; C in tr16..
        core.write_tile(t, rng.normal(0, 2, (16, k)) if ft != "int8" else rng.integers(-128, 128, (16, k)), ft,
                        saturate=True)
    ops = [(16, 2 * (i % 2), 4 + 2 * (i // 2 % 2)) for i in range(n)]  # rotate A0/A1 x B pairs

    def stream():
        for tc, ta, tb in ops:
            core.mmacc_t(tc, ta, tb, 0)

    t_sim = best_of(stream)
    macs = n * 4 * 16 * 16 * k
    a = rng.normal(size=(4 * n, 16, k))
    b = rng.normal(size=(4 * n, k, 16))
    t_np = best_of(lambda: np.matmul(a, b))
    return macs / t_sim, macs / t_np, macs


def bench_gemm(ft: str, size: int, rng) -> tuple[float, float]:
    """The runtime on one size^3 GEMM (one run; it takes seconds) and numpy's float64 matmul."""
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    if ft == "int8":
        a, b = np.round(a * 30), np.round(b * 30)
    t_sim = best_of(lambda: gemm(a, b, ft=ft), repeat=1)
    t_np = best_of(lambda: a @ b)
    return size**3 / t_sim, size**3 / t_np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instructions", type=int, default=400)
    p.add_argument("--gemm", type=int, default=1024, help="GEMM size (0 skips)")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    print(f"MMACC.T 2x2 stream, {args.instructions} instructions each; peer: numpy float64 matmul, same shape")
    print(f"{'config':<18} {'tilesim MACs/s':>16} {'numpy MACs/s':>16} {'ratio':>10} {'us/instr':>10}")
    for name, ft, bovf in CONFIGS:
        sim, ref, macs = bench(ft, bovf, args.instructions, rng)
        us = macs / sim / args.instructions * 1e6
        print(f"{name:<18} {sim:>16.3e} {ref:>16.3e} {sim / ref:>10.4f} {us:>10.1f}")
    if args.gemm:
        n = args.gemm
        print(f"\nGEMM runtime, {n}x{n}x{n}; peer: numpy float64 a @ b")
        print(f"{'config':<18} {'tilesim MACs/s':>16} {'numpy MACs/s':>16} {'ratio':>10} {'seconds':>10}")
        for name, ft, _ in CONFIGS:
            sim, ref = bench_gemm(ft, n, rng)
            print(f"{name:<18} {sim:>16.3e} {ref:>16.3e} {sim / ref:>10.4f} {n**3 / sim:>10.2f}")


if __name__ == "__main__":
    main()
