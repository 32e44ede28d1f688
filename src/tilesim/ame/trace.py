"""Value traces of AME programs: one :class:`~tilesim.inspect.Step` per instruction.

Each step records what the instruction changed: every tile register whose bytes changed (``tr4``), read
as lane codes of the format it was written in (an MMACC's accumulator format, an ``mld``'s input format;
other tiles as raw bytes), each CSR whose value changed (``mxstatus``), and for ``mst`` the block it
stored, as codes of the format it stores (``y[0:16, 0:16]``, origin its first row and column).

>>> from tilesim.ame.trace import trace_file
>>> import numpy as np
>>> ins = {"x": np.load("examples/ame/x_int8.npy"), "w": np.load("examples/ame/w_int8.npy")}
>>> out, steps = trace_file("examples/ame/int8_to_int8.s", ins)
>>> [w.name for w in steps[6].writes]
['tr4', 'tr5', 'tr6', 'tr7']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import formats
from ..errors import TilesimError
from ..inspect.steps import Filter, Step, Traced, Write
from .accum import accumulator
from .asm import assemble
from .csr import CSRS, MXCFG
from .regfile import N_TILES, ROWS
from .runner import run_program

__all__ = ["observer", "trace_file", "explain", "default_accumulation"]


def _cfg_format(core, explicit, bovf: bool):
    if explicit:
        return formats.get(explicit)
    cfg = MXCFG.unpack(core.csrr(MXCFG))
    try:
        ft = formats.get(cfg["ft"])
    except TilesimError:
        return None
    return accumulator(ft, cfg["bovf"]) if bovf else ft


def observer(steps: list[Step], source: str, keep: Filter | None = None):
    """An ``on_step`` callback for :func:`~tilesim.ame.runner.run_program` that appends Steps to ``steps``."""
    last: dict = {"tiles": np.zeros((N_TILES, ROWS * 16), np.uint8), "csr": {c.address: c.reset for c in CSRS}}
    count = [0]

    def seen(ins, ex, core) -> None:
        tiles, csr = core.snapshot()
        before = dict(last)
        last["tiles"], last["csr"] = tiles, csr
        step = Step(count[0], source, ins.line, ins.mnemonic, (), 0)
        count[0] += 1
        if keep is not None and not keep.keeps(step):
            return
        fmt = ex.plan.acc if ex is not None else (
            _cfg_format(core, ins.args[2] if len(ins.args) > 2 else None, False) if ins.mnemonic == "mld" else None)
        for t in np.flatnonzero((tiles != before["tiles"]).any(axis=1)):
            if fmt is not None:
                step.writes.append(Write(f"tr{t}", core.read_codes(int(t), fmt), fmt.name))
            else:
                step.writes.append(Write(f"tr{t}", tiles[t].reshape(ROWS, -1).copy()))
        for c in CSRS:
            if csr[c.address] != before["csr"][c.address]:
                step.writes.append(Write(c.name, np.array([[csr[c.address]]], np.uint64)))
        if ins.mnemonic == "mst":
            tile, sl = ins.args[0], ins.args[1]
            f = _cfg_format(core, ins.args[2] if len(ins.args) > 2 else None, True)
            if f is not None:
                step.writes.append(Write(f"{sl.name}[{sl.r0}:{sl.r1}, {sl.c0}:{sl.c1}]",
                                         core.read_codes(tile, f, sl.shape), f.name, (sl.r0, sl.c0)))
        steps.append(step)

    return seen


def trace_file(path, inputs: dict | None = None, *, accumulation: str = "fused", quantize: bool = False,
               keep: Filter | None = None) -> Traced:
    """Run an AME assembly file as ``tilesim run`` does; return ``Traced(outputs, steps)``."""
    program = assemble(Path(path).read_text(), source=str(path))
    steps: list[Step] = []
    result = run_program(program, inputs or {}, accumulation=accumulation, quantize=quantize,
                         on_step=observer(steps, str(path), keep))
    return Traced({**result.outputs, "ame_tiles": result.core.tiles.copy()}, steps)


def default_accumulation(path) -> str:
    """The accumulation model a run takes when none is given (AME10)."""
    return "fused"


def explain(op: str, a: dict, b: dict, dtypes: tuple = ()) -> list[str]:
    """Why two runs' values differ at instruction ``op``, given their options (accumulation, quantize); AME
    steps carry no ``dtypes``.

    >>> explain("mmacc.t", {"accumulation": "fused"}, {"accumulation": "sequential"})[0][:40]
    'AME10: fused and sequential accumulation'
    """
    out = []
    fa, fb = a.get("accumulation") or "fused", b.get("accumulation") or "fused"
    if fa != fb and op.lower().startswith("mmacc"):
        out.append(f"AME10: {fa} and {fb} accumulation sum the products and C in another order, rounding once "
                   "(fused) or after every step (sequential, chain_then_add)")
    if bool(a.get("quantize")) != bool(b.get("quantize")) and op.lower() == "mld":
        out.append("AME22: with quantize, mld rounds (RND) and clamps inputs that are not values of the format")
    return out
