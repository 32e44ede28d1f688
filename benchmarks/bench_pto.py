"""PTO reduce speed: TROWMAX and TCOLARGMAX on large tiles, as a ratio against plain numpy.

The peer is numpy's ``max`` / ``argmax`` on the same data (the valid region as
a float array). tilesim does more: it reads lane bits, applies the target's NaN
rule and first-occurrence ties, and writes destination bits. Run by hand:

    python benchmarks/bench_pto.py            # the issue's figures, then every target and size
    python benchmarks/bench_pto.py --quick    # the issue's figures only
"""

from __future__ import annotations

import sys

import numpy as np

from timing import best_of, ratios  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import pto
from tilesim.pto import Tile


def issue_figures(rounds: int = 15) -> None:
    """Issue 10's two PTO figures on target cpu, each as a ratio against numpy timed in the same run: the median
    over interleaved rounds (:func:`timing.ratios`), with the lowest and highest round."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-100, 100, (256, 1024)).astype(np.float32)
    src, idx = Tile.from_array(x), Tile("vec", "i32", 1, 1024, valid=(1, 1024))
    y = rng.uniform(-100, 100, (64, 4096)).astype(np.float32)
    ysrc, ydst = Tile.from_array(y), Tile("vec", "f32", 64, 8, valid=(64, 1))
    figures = [
        ("TCOLARGMAX f32 256x1024 (cpu)", lambda: pto.tcolargmax(idx, src, target="cpu"), lambda: x.max(axis=0),
         "<= 5", "x.max(axis=0)"),
        ("TROWMAX f32 64x4096 (cpu)", lambda: pto.trowmax(ydst, ysrc, target="cpu"), lambda: y.max(axis=1),
         "<= 1.5", "x.max(axis=1)"),
    ]
    print(f"{'work':32} {'tilesim us':>11} {'numpy us':>9} {'ratio':>6} {'range':>11} {'required':>8}")
    for work, op, peer, bar, peer_name in figures:
        r = sorted(ratios(op, peer, rounds=rounds))
        t_op, t_peer = best_of(op, repeat=10), best_of(peer, repeat=10)
        print(f"{work:32} {t_op * 1e6:11.1f} {t_peer * 1e6:9.1f} {r[len(r) // 2]:6.2f} {r[0]:5.2f}-{r[-1]:<5.2f} "
              f"{bar:>8}   peer: {peer_name}")
    assert (idx.values[0] == x.argmax(axis=0)).all()
    assert (ydst.values[:, 0] == y.max(axis=1)).all()
    print()


def main() -> None:
    quick = "--quick" in sys.argv[1:]  # the smoke test: the issue figures only, few rounds
    issue_figures(rounds=3 if quick else 15)
    if quick:
        return
    rng = np.random.default_rng(0)
    rows = []
    for dt, np_dt, shape in (("f32", np.float32, (4095, 256)), ("f16", np.float16, (4095, 512)),
                             ("f32", np.float32, (512, 4096))):
        x = rng.uniform(-100, 100, shape).astype(np_dt)
        src = Tile.from_array(x)
        R, C = shape
        per = 32 // src.dtype.size
        rdst = Tile("vec", dt, R, per, valid=(R, 1))
        cidx = Tile("vec", "u32", 1, -(-C // 8) * 8, valid=(1, C))
        for target in ("cpu", "a2a3", "a5"):
            t_rowmax = best_of(lambda: pto.trowmax(rdst, src, target=target), repeat=7, warmup=True)
            t_np_max = best_of(lambda: x.max(axis=1), repeat=7, warmup=True)
            t_colarg = best_of(lambda: pto.tcolargmax(cidx, src, target=target), repeat=7, warmup=True)
            t_np_arg = best_of(lambda: x.argmax(axis=0), repeat=7, warmup=True)
            assert (rdst.values[:, 0] == x.max(axis=1)).all()
            if not (target == "a2a3" and dt == "f16" and R > 2048):  # A2A3 rounds f16-path indices past 2048
                assert (cidx.values[0, :C] == x.argmax(axis=0)).all()
            rows.append((f"{dt} {R}x{C}", target, t_rowmax, t_np_max, t_colarg, t_np_arg))
    print(f"{'tile':16} {'target':6} {'TROWMAX ms':>11} {'np.max ms':>10} {'ratio':>6}   "
          f"{'TCOLARGMAX ms':>14} {'np.argmax ms':>13} {'ratio':>6}")
    for tile, target, a, b, c, d in rows:
        print(f"{tile:16} {target:6} {a * 1e3:11.2f} {b * 1e3:10.2f} {a / b:6.2f}   {c * 1e3:14.2f} {d * 1e3:13.2f} "
              f"{c / d:6.2f}")


if __name__ == "__main__":
    main()
