"""Wall time of one large AME GEMM split by blocks of C on a Dask LocalCluster, against the same GEMM
in this process (the peer: :func:`tilesim.ame.gemm.gemm`, one call), and a check that the bits agree.

Run by hand: ``python benchmarks/bench_study.py [--size 4096] [--workers 2] [--ft bf16]``. Never part
of the tests. The cluster's start-up is timed separately from the GEMM.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tilesim.ame.gemm import gemm
from tilesim.study import Shape, blocked_gemm, connect
from tilesim.study.inputs import generate


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=4096, help="M = N = K")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--ft", default="bf16")
    args = p.parse_args()
    a, b = generate(Shape(args.size, args.size, args.size), "normal", seed=0)
    t0 = time.perf_counter()
    here = gemm(a, b, ft=args.ft, quantize=True)
    t_here = time.perf_counter() - t0
    t0 = time.perf_counter()
    with connect(workers=args.workers) as client:
        t_start = time.perf_counter() - t0
        t0 = time.perf_counter()
        there = blocked_gemm(a, b, client=client, ft=args.ft, quantize=True)
        t_there = time.perf_counter() - t0
    same = np.array_equal(here.codes, there.codes)
    print(f"{args.size}^3 {args.ft}: in process {t_here:.1f} s; {args.workers} workers {t_there:.1f} s "
          f"(+ {t_start:.1f} s cluster start), ratio {t_here / t_there:.2f}; bit-identical: {same}")


if __name__ == "__main__":
    main()
