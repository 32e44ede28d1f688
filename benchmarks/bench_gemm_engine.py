"""AME GEMM 1024^3 (int8 -> int16, fp8_e4m3 -> fp16, bf16 -> fp32) against numpy float64 ``a @ b``, run by hand:

    python benchmarks/bench_gemm_engine.py [--size 1024] [--rounds 7] [--profile] [--large]

In each round numpy's product and the GEMM (``quantize=True``, as ``benchmarks/run.py`` calls it) run back to
back; the table gives the ratio's median and min-max over rounds, in wall time and in CPU time (all threads;
a loaded machine inflates it less). ``--profile`` adds the CPU time of the GEMM's stages: encoding the inputs,
the engine's set-up (values, slices, certificate spans) and its blocks. ``--large`` adds the time and peak
resident memory of a 4096^3 bf16 GEMM in a child process. ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` are
removed before numpy loads, so that the peer runs at full speed; the BLAS in use is printed first.
"""

from __future__ import annotations

import os
import sys

_FORCED = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(k in os.environ for k in _FORCED):  # OpenBLAS reads them once, when numpy loads: restart without them
    os.execve(sys.executable, [sys.executable, *sys.argv], {k: v for k, v in os.environ.items() if k not in _FORCED})

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from timing import gemm_memory  # noqa: E402  benchmarks/timing.py (the script's folder is on sys.path)
from threadpoolctl import threadpool_info  # noqa: E402

from tilesim.ame import engine  # noqa: E402
from tilesim.ame.gemm import encode_operand, gemm, plan_gemm  # noqa: E402

CONFIGS = (("int8 -> int16", "int8", 2.0), ("fp8_e4m3 -> fp16", "fp8_e4m3", 10.0), ("bf16 -> fp32", "bf16", 10.0))


def _inputs(ft: str, size: int, rng):
    a, b = rng.standard_normal((2, size, size))
    if ft == "int8":
        a, b = np.clip(np.round(a * 30), -128, 127), np.clip(np.round(b * 30), -128, 127)
    return a, b


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _spread(xs) -> str:
    xs = sorted(xs)
    return f"{xs[len(xs) // 2]:6.2f} ({xs[0]:.2f}-{xs[-1]:.2f})"


def ratios(size: int, rounds: int) -> None:
    rng = np.random.default_rng(0)
    print(f"{'work':18} {'GEMM s (median)':>15} {'numpy s':>9} {'wall ratio med (min-max)':>26} "
          f"{'CPU ratio med (min-max)':>25} {'bar':>6}")
    for name, ft, bar in CONFIGS:
        a, b = _inputs(ft, size, rng)
        gemm(a[:16, :32], b[:32, :16], ft=ft, quantize=True)  # tables and kernels, once
        a @ b
        wall, cpu, tg, tn = [], [], [], []
        for _ in range(rounds):
            pw, pc = _timed(lambda: a @ b)
            gw, gc = _timed(lambda: gemm(a, b, ft=ft, quantize=True))
            wall.append(gw / pw)
            cpu.append(gc / pc)
            tg.append(gw)
            tn.append(pw)
        print(f"{name:18} {np.median(tg):15.3f} {np.median(tn):9.4f} {_spread(wall):>26} {_spread(cpu):>25} "
              f"{'<= ' + format(bar, 'g') + 'x':>6}", flush=True)


def profile(size: int, rounds: int) -> None:
    """CPU seconds (min over rounds) of the GEMM's stages."""
    rng = np.random.default_rng(0)
    print("\nstages, CPU s (min over rounds): numpy a @ b | encode A, B | engine set-up | engine.run")
    for name, ft, _ in CONFIGS:
        a, b = _inputs(ft, size, rng)
        p = plan_gemm(size, size, size, ft=ft)
        enc = {"rounding": "rne", "saturate": False, "quantize": True}
        ac, bc = encode_operand(a, p.ft, "a", **enc), np.ascontiguousarray(encode_operand(b, p.ft, "b", **enc).T)
        setup = engine._Floats if p.ft.is_float else engine._Ints
        stages = {"numpy": lambda: a @ b,
                  "encode": lambda: (encode_operand(a, p.ft, "a", **enc), encode_operand(b, p.ft, "b", **enc).T.copy()),
                  "set-up": lambda: setup(p, ac, bc, "fused", False),
                  "run": lambda: engine.run(p, ac, bc, None, "fused", False)}
        best = {k: min(_timed(f)[1] for _ in range(rounds)) for k, f in stages.items()}
        print(f"{name:18} " + " | ".join(f"{k} {v:.3f}" for k, v in best.items()), flush=True)



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--large", action="store_true")
    args = ap.parse_args()
    blas = "; ".join(f"{i['internal_api']} {i.get('version')} {i.get('architecture')} kernel, {i['num_threads']} threads"
                     for i in threadpool_info() if i["user_api"] == "blas")
    print(f"numpy {np.__version__}; BLAS: {blas}; load average {os.getloadavg()[0]:.2f}\n")
    ratios(args.size, args.rounds)
    if args.profile:
        profile(args.size, args.rounds)
    if args.large:
        gemm_memory()


if __name__ == "__main__":
    main()
