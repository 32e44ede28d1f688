"""Encode/decode throughput of tilesim.formats, as ratios against ml_dtypes and gfloat.

Run by hand (not in CI): ``python benchmarks/bench_formats.py [--n 10000000]``.
Every figure is a ratio measured in the same run on the same data:
  encode: tilesim ``encode(float32 array)`` vs ml_dtypes ``astype`` and gfloat
          ``round_ndarray`` + ``encode_ndarray``;
  decode: tilesim ``decode(codes)`` to float64 vs ml_dtypes ``astype(float64)`` and gfloat
          ``decode_ndarray``.
A ratio below 1 means tilesim is faster. gfloat is timed on a tenth of the data and scaled.
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import formats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000, help="float32 values per format")
    args = ap.parse_args()

    import gfloat
    import ml_dtypes
    from gfloat.formats import (format_info_bfloat16, format_info_binary16, format_info_ocp_e2m1,
                                format_info_ocp_e4m3)

    peers = {
        "fp8_e4m3": (ml_dtypes.float8_e4m3fn, format_info_ocp_e4m3),
        "bf16": (ml_dtypes.bfloat16, format_info_bfloat16),
        "fp4_e2m1": (ml_dtypes.float4_e2m1fn, format_info_ocp_e2m1),
        "fp16": (np.float16, format_info_binary16),
    }
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(args.n) * 2.0 ** rng.integers(-8, 8, args.n)).astype(np.float32)
    xs = x[: args.n // 10]
    xs64 = xs.astype(np.float64)
    scale = args.n / xs.size

    print(f"{args.n:,} float32 values; times in ms; ratio = tilesim time / peer time (lower is better)\n")
    head = f"{'format':10} {'op':7} {'tilesim':>9} {'ml_dtypes':>10} {'ratio':>7} {'gfloat':>9} {'ratio':>7}"
    print(head)
    print("-" * len(head))
    for name, (dt, fi) in peers.items():
        formats.encode(xs[:1000], name)  # build the tables outside the timing
        codes = formats.encode(x, name)
        t_enc = best_of(lambda: formats.encode(x, name))
        t_ml = best_of(lambda: x.astype(dt))
        sat = not formats.get(name).has_nan  # gfloat refuses overflow without Inf/NaN unless saturating
        t_gf = best_of(lambda: gfloat.encode_ndarray(fi, gfloat.round_ndarray(fi, xs64, sat=sat)), repeat=1) * scale
        print(f"{name:10} {'encode':7} {t_enc * 1e3:9.1f} {t_ml * 1e3:10.1f} {t_enc / t_ml:7.2f} "
              f"{t_gf * 1e3:9.0f} {t_enc / t_gf:7.3f}")
        y = x.astype(dt)
        gcodes = codes[: xs.size].astype(np.int64)
        t_dec = best_of(lambda: formats.decode(codes, name))
        t_ml = best_of(lambda: y.astype(np.float64))
        t_gf = best_of(lambda: gfloat.decode_ndarray(fi, gcodes), repeat=1) * scale
        print(f"{name:10} {'decode':7} {t_dec * 1e3:9.1f} {t_ml * 1e3:10.1f} {t_dec / t_ml:7.2f} "
              f"{t_gf * 1e3:9.0f} {t_dec / t_gf:7.3f}")


if __name__ == "__main__":
    main()
