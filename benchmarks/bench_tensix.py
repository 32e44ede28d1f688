"""Speed of ELWMUL and GMPOOL, as elements per second and as a ratio against plain numpy.

Peers, on the same data: numpy float32 ``d + a * b`` (ELWMUL) and float32 column max
``a.max(axis=-2)`` (GMPOOL). Measured two ways:

- batched kernels (``elw_kernel`` / ``gmpool_kernel`` over N blocks at once), the vectorised core;
  the hardware ELWMUL both through its numba kernel and through the numpy reference path;
- the machine, one instruction per 8x16 (ELWMUL) or 16x16 (GMPOOL) block, as a program runs.

A second table gives issue 10's figures: microseconds per ``Machine.execute`` and nanoseconds per
element of the batched hardware ELWMUL, against ttsim (C++): timed in the same run with
``--ttsim PATH/TO/ttsim`` (built as ``tools/ttsim_vectors.py`` builds it; ns per ELWMUL inside
``tensix_decode_and_execute``, and that over 128 for ns per element), else issue 10's figures
(3.8 us per ELWMUL, 30 ns per element), fixed constants measured earlier, which the table's title
then says. Each row is printed against its bar (20 us per instruction, 10 ns per element) too.
Last, the numba start-up: a first run with an empty compile cache and a second run that loads it.

Run by hand: ``python benchmarks/bench_tensix.py [--blocks N] [--ttsim PATH]``. Never part of the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from timing import best_of  # benchmarks/timing.py (the script's folder is on sys.path)

from tilesim.tensix import Machine, make
from tilesim.tensix.fpu.common import FpuMode
from tilesim.tensix.fpu.elementwise import elw_kernel
from tilesim.tensix.fpu.pool import gmpool_kernel
from tilesim.tensix.layouts import dst32_from_fp32, src_from_bf16


#: ttsim's figures from issue 10 (measured earlier on this machine), used when ``--ttsim`` is not given.
TTSIM_US_PER_ELWMUL = 3.8
TTSIM_NS_PER_ELEM = 30.0


def bf16_data(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)
    return x, src_from_bf16(bits)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=2048, help="8x16 / 16x16 blocks per batch")
    ap.add_argument("--ttsim", type=Path, help="a clone of github.com/tenstorrent/ttsim, to time it here")
    args = ap.parse_args()
    n = args.blocks
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
    elw_kernel("mul", a[:1], b[:1], dst[:1], valid[:1], mode, 0, True, "hardware")   # load the numba kernel
    per_elem = {}
    for label, model, jit in (("hardware, numba", "hardware", True), ("hardware, numpy reference", "hardware", False),
                              ("doc", "doc", True)):
        t = best_of(lambda: elw_kernel("mul", a, b, dst, valid, mode, 0, True, model, jit=jit), repeat=5)
        per_elem[label] = t / elems
        rows.append((f"ELWMUL kernel, {n} blocks, {label}", elems / t, "numpy f32 d + a*b", elw_peer))

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
    words = [make("ELWMUL", AddrMod=1, DestAccumEn=1).word()] * 128
    t_elw = best_of(lambda: [m.execute(w) for w in words], 5) / 128
    rows.append(("ELWMUL via Machine.execute (per 8x16)", 128 / t_elw, "numpy f32 d + a*b", elw_peer))
    words = [make("GMPOOL", InstrMod19=1).word()] * 128
    t_gm = best_of(lambda: [m.execute(w) for w in words], 5) / 128
    rows.append(("GMPOOL via Machine.execute (per 16x16)", 256 / t_gm, "numpy f32 column max", gm_peer))
    t_sfpu = sfpu_us(m)

    table = Table(title="tilesim Tensix throughput (elements per second)")
    for col in ("what", "tilesim", "peer", "peer elements/s", "tilesim / peer"):
        table.add_column(col, justify="right" if col != "what" and col != "peer" else "left")
    for what, ours, peer_name, theirs in rows:
        table.add_row(what, f"{ours:.3g}", peer_name, f"{theirs:.3g}", f"1/{theirs / ours:.0f}")
    console.print(table)

    first, second = startup()
    if args.ttsim:
        peer_us, where = ttsim_elwmul_us(args.ttsim), "ttsim timed in this run"
    else:
        peer_us, where = TTSIM_US_PER_ELWMUL, "ttsim NOT timed here: fixed constants measured earlier (issue 10)"
    peer_ns = peer_us * 1000 / 128 if args.ttsim else TTSIM_NS_PER_ELEM
    issue = Table(title=f"issue 10's Tensix rows ({where})")
    for col in ("what", "tilesim", "bar", "meets bar", "ttsim", "tilesim / ttsim"):
        issue.add_column(col, justify="left" if col == "what" else "right")

    def row(what, ours, bar, unit, peer=None):
        issue.add_row(what, f"{ours:.1f} {unit}", f"<= {bar:g} {unit}", "yes" if ours <= bar else "NO",
                      "-" if peer is None else f"{peer:.2f} {unit}", "-" if peer is None else f"{ours / peer:.2f}")

    row("Machine.execute per ELWMUL", t_elw * 1e6, 20, "us", peer_us)
    row("Machine.execute per GMPOOL", t_gm * 1e6, 20, "us")
    sfpu_peer = ttsim_sfpmad_us(args.ttsim) if args.ttsim else None
    for name, us in t_sfpu.items():
        row(f"Machine.execute per {name}", us, 20, "us", sfpu_peer if name == "SFPMAD" else None)
    for label in ("hardware, numba", "hardware, numpy reference"):
        row(f"batched ELWMUL, {label}", per_elem[label] * 1e9, 10, "ns/elem", peer_ns)
    console.print(issue)
    console.print(f"numba start-up (import, one ELWMUL): first run with an empty cache {first:.1f} s, second {second:.1f} s")


#: SFPU instructions timed one at a time through ``Machine.execute`` (issue 23's bar: 20 us each).
SFPU_TIMED = {"SFPMAD": "TTI_SFPMAD(0, 1, 2, 3, 0)", "SFPLOAD": "TTI_SFPLOAD(0, 3, 0, 0)",
              "SFPSTORE": "TTI_SFPSTORE(3, 3, 0, 0)", "SFPLOADI": "TTI_SFPLOADI(0, 0, 0x3f80)",
              "SFPIADD": "TTI_SFPIADD(0, 1, 2, 4)", "SFPSETCC": "TTI_SFPSETCC(0, 1, 0, 4)",
              "SFPLUT": "TTI_SFPLUT(4, 4, 0)", "SFPLUTFP32": "TTI_SFPLUTFP32(4, 2)",
              "SFP_STOCH_RND": "TTI_SFP_STOCH_RND(0, 0, 0, 3, 5, 1)", "SFPCAST": "TTI_SFPCAST(1, 5, 0)",
              "SFPSWAP": "TTI_SFPSWAP(0, 1, 2, 1)", "SFPTRANSP": "TTI_SFPTRANSP(0, 0, 0, 0)",
              "SFPSHFT2": "TTI_SFPSHFT2(0, 1, 2, 3)", "SFPEXEXP": "TTI_SFPEXEXP(0, 1, 2, 0)",
              "SFPDIVP2": "TTI_SFPDIVP2(1, 1, 2, 1)", "SFPMOV": "TTI_SFPMOV(0, 9, 2, 8)",
              "SFPABS": "TTI_SFPABS(0, 1, 2, 1)", "SFPLZ": "TTI_SFPLZ(0, 1, 2, 2)"}


def sfpu_us(m: Machine) -> dict[str, float]:
    """Microseconds per SFPU instruction through ``Machine.execute``, on random FP32 LReg data."""
    from tilesim.tensix import parse
    m.sfpu.lregs[:8] = np.random.default_rng(2).standard_normal((8, 32)).astype(np.float32).view(np.uint32)
    out = {}
    for name, text in SFPU_TIMED.items():
        words = [parse(text).word()] * 200
        saved = m.sfpu.copy()
        out[name] = best_of(lambda: [m.execute(w) for w in words], 5) / 200 * 1e6
        m.sfpu = saved
    return out


def ttsim_sfpmad_us(checkout: Path) -> float:
    """ttsim's microseconds per SFPMAD (best of 3 runs of 20 x 500)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from ttsim_sfpu_cases import SfpuCase
    from ttsim_vectors import build, run_sfpu
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(20):
        c = SfpuCase(rng, "SFPMAD", False)
        c.cc, c.cc_en = 0xFFFFFFFF, 1
        c.words = [0x84012030] * 500
        cases.append(c)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(checkout, Path(tmp))
        return min(run_sfpu(exe, cases, Path(tmp), timed=True)[1] for _ in range(3)) / 1000


def ttsim_elwmul_us(checkout: Path) -> float:
    """ttsim's microseconds per BF16 ELWMUL into FP32 Dst (best of 3 runs of 20 x 500 ELWMULs)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from ttsim_vectors import Case, base_state, build, run
    rng = np.random.default_rng(0)
    bases = base_state(rng, "wide")[None]
    cases = []
    for _ in range(20):
        c = Case("ELWMUL", 0)
        c.config(0, ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5, ALU_ACC_CTRL_Fp32_enabled=1)
        c.insns = [(0, make("ELWMUL").word())] * 500
        cases.append(c)
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(checkout, Path(tmp))
        return min(run(exe, bases, cases, Path(tmp), timed=True)[1] for _ in range(3)) / 1000


def startup() -> tuple[float, float]:
    """Wall time of a fresh interpreter that imports tilesim and runs one ELWMUL: with an empty
    numba cache (compiles), then again (loads the cache)."""
    code = ("from tilesim.tensix import Machine; m = Machine(); m.srca_client[0] = m.srcb_client[0] = "
            "Machine().srca_client[0].__class__.MATRIX_UNIT; m.execute('TT_ELWMUL(0, 1, 0, 0, 0)')")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            times.append(time.perf_counter() - t)
    return times[0], times[1]


if __name__ == "__main__":
    main()
