"""MMACC.T throughput: MACs per second on a stream of instructions, against numpy float64 matmul.

    python benchmarks/bench_ame.py [--instructions N] [--repeat R] [--gemm SIZE] [--large] [--llm]

For each configuration a stream of N ``MMACC.T`` (2x2, M = 16, K = elements
per row, beta = 0, so every instruction reads and accumulates its C tiles)
runs on one core, rotating over preloaded A/B tiles. The peer is numpy's
float64 matmul of the same total shape, (4N, 16, K) @ (4N, K, 16) in one
call, timed in the same run. The ratio is tilesim MACs/s over numpy MACs/s
(numpy neither rounds to the formats nor models the machine; it is the
yardstick of "a matrix product in numpy"). Each stream runs R times (default
5); the table gives the ratio of the best run, and the time per instruction
(wall and CPU: median, and min-max over the R runs) against the bar of issue
10: at most 50 us (INT8) and 100 us (BF16) per MMACC.T 2x2.

The GEMM runtime (``tilesim.ame.gemm``) is timed on SIZE x SIZE x SIZE
(default 1024) against numpy float64 ``a @ b`` of the same shape, in the same run
(after one small untimed GEMM per format, which builds the codec's tables).
``--large`` adds 2048^3 and 4096^3 BF16 -> FP32 with their peak memory (the
process's maximum resident set), ``--llm`` one LLM layer (N = K = 4096, M = 16
tokens and M = 4096 as prefill). Per-instruction figures are also given as CPU
time, which a loaded machine inflates less than wall time.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import formats
from tilesim.ame import Core, mxcfg, mxtile
from tilesim.ame.gemm import gemm

CONFIGS = (("int8 -> int16", "int8", 0), ("fp8_e4m3 -> fp16", "fp8_e4m3", 0), ("bf16 -> fp32", "bf16", 0))
BAR_US = {"int8": 50.0, "bf16": 100.0}  # issue 10: per MMACC.T 2x2


def bench(ft: str, bovf: int, n: int, repeat: int, rng):
    """(tilesim MACs/s, numpy MACs/s, per-instruction wall seconds of each run, CPU seconds of each run)."""
    k = formats.elements_per_row(ft)
    core = Core()
    core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf))
    core.csrw("mxtile", mxtile(k=k, m=16, tiling="2x2"))
    for t in range(8):  # A/B operands in tr0..tr7; C in tr16..
        core.write_tile(t, rng.normal(0, 2, (16, k)) if ft != "int8" else rng.integers(-128, 128, (16, k)), ft,
                        quantize=True)
    ops = [(16, 2 * (i % 2), 4 + 2 * (i // 2 % 2)) for i in range(n)]  # rotate A0/A1 x B pairs

    def stream():
        for tc, ta, tb in ops:
            core.mmacc_t(tc, ta, tb, 0)

    stream()  # untimed: compiles (or loads) the kernels and builds the plans
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        stream()
        wall.append((time.perf_counter() - w0) / n)
        cpu.append((time.process_time() - c0) / n)
    macs = n * 4 * 16 * 16 * k
    a = rng.normal(size=(4 * n, 16, k))
    b = rng.normal(size=(4 * n, k, 16))
    t_np = best_of(lambda: np.matmul(a, b))
    return macs / (min(wall) * n), macs / t_np, wall, cpu


def _spread(xs) -> str:
    """Median (min-max) in microseconds."""
    us = np.array(xs) * 1e6
    return f"{np.median(us):.1f} ({us.min():.1f}-{us.max():.1f})"


def _inputs(ft: str, shape, rng) -> np.ndarray:
    x = rng.standard_normal(shape)
    return np.clip(np.round(x * 30), -128, 127) if ft == "int8" else x


def bench_gemm(ft: str, m: int, n: int, k: int, rng) -> tuple[float, float]:
    """Seconds of the runtime on one GEMM (one run; inputs rounded to ``ft``) and of numpy's float64 matmul."""
    a, b = _inputs(ft, (m, k), rng), _inputs(ft, (k, n), rng)
    gemm(a[:16, :32], b[:32, :16], ft=ft, quantize=True)  # untimed: the codec builds its tables once
    t_sim = best_of(lambda: gemm(a, b, ft=ft, quantize=True), repeat=1)
    t_np = best_of(lambda: a @ b)
    return t_sim, t_np


def _peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--instructions", type=int, default=400)
    p.add_argument("--repeat", type=int, default=5, help="timed runs of each stream")
    p.add_argument("--gemm", type=int, default=1024, help="GEMM size (0 skips)")
    p.add_argument("--large", action="store_true", help="also 2048^3 and 4096^3 BF16 with peak memory")
    p.add_argument("--llm", action="store_true", help="also one LLM layer, N = K = 4096, M = 16 and 4096")
    args = p.parse_args()
    rng = np.random.default_rng(0)
    print(f"MMACC.T 2x2 stream, {args.instructions} instructions, {args.repeat} runs each; "
          "peer: numpy float64 matmul, same shape")
    print("us/instr: median (min-max) over the runs; bar: issue 10's limit per instruction")
    print(f"{'config':<18} {'tilesim MACs/s':>15} {'numpy MACs/s':>13} {'ratio':>7} {'wall us/instr':>19} "
          f"{'CPU us/instr':>19} {'bar':>5} {'':>7}")
    for name, ft, bovf in CONFIGS:
        sim, ref, wall, cpu = bench(ft, bovf, args.instructions, args.repeat, rng)
        bar = BAR_US.get(ft)
        verdict = "" if bar is None else ("met" if np.median(wall) * 1e6 <= bar else "not met")
        print(f"{name:<18} {sim:>15.3e} {ref:>13.3e} {sim / ref:>7.4f} {_spread(wall):>19} {_spread(cpu):>19} "
              f"{bar or '-':>5} {verdict:>7}", flush=True)
    shapes = []
    if args.gemm:
        shapes += [(name, ft, args.gemm, args.gemm, args.gemm) for name, ft, _ in CONFIGS]
    if args.large:
        shapes += [("bf16 -> fp32", "bf16", s, s, s) for s in (2048, 4096)]
    if args.llm:
        shapes += [("bf16 -> fp32", "bf16", m, 4096, 4096) for m in (16, 4096)]
    if shapes:
        print("\nGEMM runtime; peer: numpy float64 a @ b of the same shape, same run")
        print(f"{'config':<18} {'M x N x K':>16} {'tilesim s':>10} {'numpy s':>10} {'ratio':>8} {'peak GiB':>9}")
    for name, ft, m, n, k in shapes:
        t_sim, t_np = bench_gemm(ft, m, n, k, rng)
        print(f"{name:<18} {f'{m}x{n}x{k}':>16} {t_sim:>10.2f} {t_np:>10.3f} {t_sim / t_np:>8.1f} {_peak_gib():>9.2f}",
              flush=True)


if __name__ == "__main__":
    main()
