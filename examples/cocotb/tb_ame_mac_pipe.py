"""cocotb testbench for ame_mac_pipe.v: a clocked, pipelined unit checked per transaction by tilesim's scoreboard.

The simulator runs this module; ``run.py --design pipe`` sets ``TILESIM_SEED`` and ``TILESIM_N`` and
``TILESIM_OUT`` (where ``coverage.json`` goes). The test

- draws constrained-random transactions with ``make_vectors`` (INT8 MMACC.T, SAT on, M = 2, K = 4,
  the stimulus classes of the op: overflow, saturation, min/max values, accumulate ...);
- drives them with a valid/ready handshake, leaving random idle cycles, while the output side
  drops ``out_ready`` at random (back-pressure);
- has a monitor take each result as it leaves (``out_valid && out_ready``), call tilesim's
  reference model on that transaction's inputs, and give both to the ``Scoreboard``, which keeps the
  mismatches and the cross coverage (class x SAT x RND), written to ``coverage.json``.
"""

import json
import os
import random
from pathlib import Path

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tilesim.verify.commands import make_vectors
from tilesim.verify.scoreboard import Scoreboard, reference

M, K = 2, 4
SAT = 1 << 12             # mxcfg bit 12


def pack(codes, width: int) -> int:
    """Element 0 in the lowest bits, as the design's ports lay out row-major matrices."""
    out = 0
    for i, v in enumerate(np.asarray(codes).reshape(-1).tolist()):
        out |= int(v) << (i * width)
    return out


def unpack(value: int, count: int, width: int) -> np.ndarray:
    mask = (1 << width) - 1
    return np.array([(value >> (i * width)) & mask for i in range(count)], np.uint16)


@cocotb.test()
async def pipelined_mmacc_against_tilesim(dut):
    """Every transaction through the pipeline, under random idle cycles and back-pressure."""
    seed, n = int(os.environ.get("TILESIM_SEED", "1")), int(os.environ.get("TILESIM_N", "40"))
    vs = make_vectors("ame", "mmacc", ft="int8", sat=1, tiling="1x1", m=M, k=K, n=n, seed=seed)
    model = reference(vs.isa, vs.op, vs.config)
    board = Scoreboard(vs.operands, {"sat": vs.config["sat"], "rnd": vs.config["rnd"]})
    txns = [{o.name: vs.arrays[o.name][i] for o in vs.operands if o.role == "input"} for i in range(vs.count)]
    timing = random.Random(seed)

    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    dut.rst.value = 1
    dut.in_valid.value = 0
    dut.out_ready.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    async def drive():
        for txn in txns:
            while timing.random() < 0.3:              # an idle cycle
                dut.in_valid.value = 0
                await RisingEdge(dut.clk)
            dut.a.value = pack(txn["a"], 8)
            dut.b.value = pack(txn["b"], 8)
            dut.c_in.value = pack(txn["c_in"], 16)
            dut.beta.value = int(txn["imm"][0]) & 1
            dut.sat.value = int(bool(int(txn["mxcfg"][0]) & SAT))
            dut.in_valid.value = 1
            while True:
                await RisingEdge(dut.clk)
                if int(dut.in_ready.value):          # in_ready was high on that edge: taken
                    break
        dut.in_valid.value = 0

    async def back_pressure():
        while True:
            dut.out_ready.value = int(timing.random() < 0.7)
            await RisingEdge(dut.clk)

    cocotb.start_soon(drive())
    cocotb.start_soon(back_pressure())
    done, cycles = 0, 0
    while done < len(txns) and cycles < 20 * len(txns) + 50:
        await RisingEdge(dut.clk)
        await ReadOnly()
        cycles += 1
        if int(dut.out_valid.value) and int(dut.out_ready.value):
            got = {"c": unpack(dut.c.value.to_unsigned(), M * M, 16).reshape(1, M, M),
                   "mxstatus": 8 if int(dut.sat_hit.value) else 0}
            found = board.check(done, model(txns[done]), got, vs.tags[done])
            if found:
                dut._log.error("transaction %d (%s): %d elements differ from tilesim", done,
                               " ".join(vs.tags[done]), len(found))
            done += 1
    out = Path(os.environ.get("TILESIM_OUT", "."))
    out.mkdir(parents=True, exist_ok=True)
    (out / "coverage.json").write_text(json.dumps(board.coverage_record(), indent=1) + "\n")
    (out / "mismatches.json").write_text(json.dumps([[m.vector, m.operand, list(m.index), m.expected, m.got]
                                                      for m in board.mismatches]) + "\n")
    dut._log.info(board.summary())
    assert done == len(txns), f"only {done} of {len(txns)} results came out in {cycles} cycles"
    assert board.ok, board.summary()
