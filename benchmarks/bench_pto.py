"""PTO reduce speed: TROWMAX and TCOLARGMAX on large tiles, as a ratio against plain numpy.

The peer is numpy's ``max`` / ``argmax`` on the same data (the valid region as
a float array). tilesim does more: it reads lane bits, applies the target's NaN
rule and first-occurrence ties, and writes destination bits. Run by hand:

    python benchmarks/bench_pto.py
"""

from __future__ import annotations


import numpy as np

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim import pto
from tilesim.pto import Tile


def issue_figures() -> None:
    """Issue 10's two PTO figures on target cpu, each as a ratio against numpy timed in the same run."""
    rng = np.random.default_rng(1)
    x = rng.uniform(-100, 100, (256, 1024)).astype(np.float32)
    src, idx = Tile.from_array(x), Tile("vec", "i32", 1, 1024, valid=(1, 1024))
    t_arg = best_of(lambda: pto.tcolargmax(idx, src, target="cpu"), repeat=25, warmup=True)
    t_np0 = best_of(lambda: x.max(axis=0), repeat=25, warmup=True)
    assert (idx.values[0] == x.argmax(axis=0)).all()
    y = rng.uniform(-100, 100, (64, 4096)).astype(np.float32)
    ysrc, ydst = Tile.from_array(y), Tile("vec", "f32", 64, 8, valid=(64, 1))
    t_row = best_of(lambda: pto.trowmax(ydst, ysrc, target="cpu"), repeat=25, warmup=True)
    t_np1 = best_of(lambda: y.max(axis=1), repeat=25, warmup=True)
    assert (ydst.values[:, 0] == y.max(axis=1)).all()
    print(f"{'work':32} {'tilesim us':>11} {'numpy us':>9} {'ratio':>6} {'required':>8}")
    print(f"{'TCOLARGMAX f32 256x1024 (cpu)':32} {t_arg * 1e6:11.1f} {t_np0 * 1e6:9.1f} {t_arg / t_np0:6.2f} {'<= 5':>8}"
          "   peer: x.max(axis=0)")
    print(f"{'TROWMAX f32 64x4096 (cpu)':32} {t_row * 1e6:11.1f} {t_np1 * 1e6:9.1f} {t_row / t_np1:6.2f} {'<= 1.5':>8}"
          "   peer: x.max(axis=1)")
    print()


def main() -> None:
    issue_figures()
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
