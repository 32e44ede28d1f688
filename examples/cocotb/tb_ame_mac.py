"""cocotb testbench for ame_mac_int8.v, with tilesim as the golden model and scoreboard.

The simulator runs this module; ``run.py`` sets two environment variables:

- ``TILESIM_GOLDEN``: a directory written by ``tilesim vectors ame mmacc -f int8 --sat 1 --tiling 1x1``;
- ``TILESIM_DUMP``: where the testbench writes what the design produced, as the device dump
  (``c.hex``, ``mxstatus.hex``: the golden's output names, one datum per line).

Each vector drives A, B, C and the beta/SAT bits from the golden's inputs and compares the
design's C and sat_hit with the golden's outputs at once (the scoreboard); at the end
``tilesim check`` compares the whole dump and prints the mismatches per class.
"""

import os
from pathlib import Path

import cocotb
import numpy as np
from cocotb.triggers import Timer

from tilesim.verify.check import check, load_golden, mismatch_table, summary_table

SAT_HIT = 1 << 3          # mxstatus bit 3
SAT = 1 << 12             # mxcfg bit 12


def pack(codes: np.ndarray, width: int) -> int:
    """Element 0 in the lowest bits, as the design's ports lay out row-major matrices."""
    out = 0
    for i, v in enumerate(np.asarray(codes).reshape(-1).tolist()):
        out |= int(v) << (i * width)
    return out


def unpack(value: int, count: int, width: int) -> list[int]:
    mask = (1 << width) - 1
    return [(value >> (i * width)) & mask for i in range(count)]


@cocotb.test()
async def mmacc_against_tilesim(dut):
    """Every golden vector through the design; fail on any bit that differs."""
    golden = load_golden(os.environ["TILESIM_GOLDEN"])
    cfg = golden.manifest["config"]
    assert (cfg["ft"], cfg["acc"], cfg["tiling"], cfg["k"], cfg["m"]) == ("int8", "int16", "1x1", 16, 16), cfg
    g = golden.arrays
    n = golden.count
    c_out = np.zeros_like(g["c"])
    status = np.zeros_like(g["mxstatus"])
    bad = []
    for v in range(n):
        dut.a.value = pack(g["a"][v], 8)
        dut.b.value = pack(g["b"][v], 8)
        dut.c_in.value = pack(g["c_in"][v], 16)
        dut.beta.value = int(g["imm"][v, 0]) & 1
        dut.sat.value = int(bool(int(g["mxcfg"][v, 0]) & SAT))
        await Timer(1, unit="ns")
        c_out[v] = np.array(unpack(dut.c.value.to_unsigned(), c_out[v].size, 16)).reshape(c_out[v].shape)
        status[v, 0] = SAT_HIT if int(dut.sat_hit.value) else 0
        if not (np.array_equal(c_out[v], g["c"][v]) and status[v, 0] == g["mxstatus"][v, 0]):
            bad.append(v)
            dut._log.error("vector %d (%s): C or sat_hit differs from tilesim", v, " ".join(golden.tags(v)))
    dump = Path(os.environ["TILESIM_DUMP"])
    dump.mkdir(parents=True, exist_ok=True)
    for name, arr, digits in (("c", c_out, 4), ("mxstatus", status, 1)):
        (dump / f"{name}.hex").write_text("".join(f"{int(x):0{digits}x}\n" for x in arr.reshape(-1)))
    result = check(golden.path, dump)
    from rich.console import Console
    console = Console(width=140)
    if not result.ok:
        console.print(mismatch_table(result, 10))
    console.print(summary_table(result))
    assert not bad, f"{len(bad)} of {n} vectors differ from tilesim: {bad[:10]}"
    assert result.ok
