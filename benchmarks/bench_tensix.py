"""Speed of ELWMUL and GMPOOL, as elements per second and as a ratio against plain numpy.

Peers, on the same data: numpy float32 ``d + a * b`` (ELWMUL) and float32 column max
``a.max(axis=-2)`` (GMPOOL). Measured two ways:

- batched kernels (``elw_kernel`` / ``gmpool_kernel`` over N blocks at once), the vectorised core;
- the machine, one instruction per 8x16 (ELWMUL) or 16x16 (GMPOOL) block, as a program runs.

Run by hand: ``python benchmarks/bench_tensix.py [--blocks N]``. Never part of the tests.
"""

from __future__ import annotations

import argparse

import numpy as np
from rich.console import Console
from rich.table import Table

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim.tensix import Machine, make
from tilesim.tensix.fpu.common import FpuMode
from tilesim.tensix.fpu.elementwise import elw_kernel
from tilesim.tensix.fpu.pool import gmpool_kernel
from tilesim.tensix.layouts import dst32_from_fp32, src_from_bf16


def bf16_data(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    return x, src_from_bf16(bits)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=2048, help="8x16 / 16x16 blocks per batch")
    n = ap.parse_args().blocks
    rng = np.random.default_rng(0)
    console = Console(width=120)
    rows = []

    # ELWMUL: BF16 x BF16 into FP32 Dst, one fidelity phase.
    xa, a = bf16_data(rng, (n, 8, 16))
    xb, b = bf16_data(rng, (n, 8, 16))
    xd = rng.standard_normal((n, 8, 16)).astype(np.float32)
    dst = dst32_from_fp32(xd.view(np.uint32))
    valid = np.ones((n, 8), bool)
    mode = FpuMode("BF16", True, 5, 5)
    elems = n * 128
    elw_peer = elems / best_of(lambda: xd + xa * xb, repeat=5)
    for model in ("hardware", "doc"):
        t = best_of(lambda: elw_kernel("mul", a, b, dst, valid, mode, 0, True, model), repeat=5)
        rows.append((f"ELWMUL kernel, {n} blocks, {model}", elems / t, "numpy f32 d + a*b", elw_peer))

    # GMPOOL: 16x16 BF16 blocks, SrcB row of 1.0, Dst16, no ArgMax.
    xg, g = bf16_data(rng, (n, 16, 16))
    ones = np.full((n, 16), 127, np.uint32)
    init = np.full((n, 16), 0xFFFF0000, np.uint32)
    elems = n * 256
    gm_peer = elems / best_of(lambda: xg.max(axis=-2), repeat=5)
    for strict, model in ((True, "hardware"), (False, "doc")):
        t = best_of(lambda: gmpool_kernel(g, ones, init, "BF16", "BF16", False, strict), repeat=5)
        rows.append((f"GMPOOL kernel, {n} blocks, {model}", elems / t, "numpy f32 column max", gm_peer))

    # The machine, instruction by instruction (128 ELWMULs over 8 Dst blocks of 8x16, then GMPOOLs).
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5, ALU_ACC_CTRL_Fp32_enabled=1,
                ADDR_MOD_DST_SEC1_DestIncr=8)
    m.unpack("srca", xa[:8].reshape(-1, 16), "BF16")
    m.unpack("srcb", xb[:8].reshape(-1, 16), "BF16")
    insns = [make("ELWMUL", AddrMod=1, DestAccumEn=1)] * 128
    t = best_of(lambda: [m.execute(i) for i in insns], 3)
    rows.append(("ELWMUL via Machine.execute (per 8x16)", 128 * 128 / t, "numpy f32 d + a*b", elw_peer))
    insns = [make("GMPOOL", InstrMod19=1)] * 128
    t = best_of(lambda: [m.execute(i) for i in insns], 3)
    rows.append(("GMPOOL via Machine.execute (per 16x16)", 128 * 256 / t, "numpy f32 column max", gm_peer))

    table = Table(title="tilesim Tensix throughput (elements per second)")
    for col in ("what", "tilesim", "peer", "peer elements/s", "tilesim / peer"):
        table.add_column(col, justify="right" if col != "what" and col != "peer" else "left")
    for what, ours, peer_name, theirs in rows:
        table.add_row(what, f"{ours:.3g}", peer_name, f"{theirs:.3g}", f"1/{theirs / ours:.0f}")
    console.print(table)


if __name__ == "__main__":
    main()
