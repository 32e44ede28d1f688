"""``tilesim demo``, AME section: the proposal's three examples (and the guard fallback), run and shown."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from rich.table import Table

from .. import formats
from .asm import assemble
from .cli import config_table, cost_table, status_table
from .runner import run_program

__all__ = ["EXAMPLES", "examples_dir", "demo"]


def examples_dir() -> Path:
    """``examples/ame`` of the source tree this package runs from."""
    return Path(__file__).resolve().parents[3] / "examples" / "ame"


def _wrap8(v):
    return ((v + 128) % 256) - 128


def _real_ref(ft: str, acc: str):
    def ref(x, w):
        xq, wq = formats.quantize(x, ft), formats.quantize(w, ft)
        return formats.quantize(xq @ wq.T, acc)
    return ref


@dataclass(frozen=True)
class Example:
    """An example program, its input files, and a numpy reference for its result ``y``."""

    title: str
    program: str
    inputs: dict[str, str]
    reference: Callable[[np.ndarray, np.ndarray], np.ndarray]
    reference_text: str


EXAMPLES: tuple[Example, ...] = (
    Example("1) INT8 -> INT8, overflow ignored (bOVF=1)", "int8_to_int8.s",
            {"x": "x_int8.npy", "w": "w_int8.npy"},
            lambda x, w: _wrap8(x.astype(np.int64) @ w.T.astype(np.int64)), "x @ w.T wrapped to int8"),
    Example("2) INT8 -> INT16, SAT=1, guarded 4x4", "int8_to_int16_sat_guard4x4.s",
            {"x": "x4_int8.npy", "w": "w4_int8.npy"},
            lambda x, w: np.clip(x.astype(np.int64) @ w.T.astype(np.int64), -32768, 32767),
            "x @ w.T clamped to int16"),
    Example("3) FP8 E4M3 -> FP16, RND=rne", "fp8_e4m3_to_fp16.s", {"x": "x_real.npy", "w": "w_real.npy"},
            _real_ref("fp8_e4m3", "fp16"), "e4m3(x) @ e4m3(w).T in float64, rounded to fp16"),
    Example("extra) BF16 -> FP32 with GUARD4x4: falls back to 2x2", "bf16_guard_fallback.s",
            {"x": "x_real.npy", "w": "w_real.npy"},
            lambda x, w: _real_ref("bf16", "fp32")(x[:, :8], w[:, :8]),
            "bf16(x) @ bf16(w).T in float64, rounded to fp32"),
)


def _corner(y: np.ndarray, ref: np.ndarray) -> Table:
    t = Table(title="y[0:4, 0:6]: tilesim / reference", show_header=False)
    for i in range(4):
        t.add_row(*(f"{y[i, j]:g} / {ref[i, j]:g}" for j in range(6)))
    return t


def demo(console) -> None:
    """Run every example: the program, its configuration, status, cost and results as numbers."""
    here = examples_dir()
    for ex in EXAMPLES:
        console.rule(ex.title, style="dim")
        text = (here / ex.program).read_text()
        inputs = {k: np.load(here / f) for k, f in ex.inputs.items()}
        r = run_program(assemble(text, source=ex.program), inputs)
        code = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
        moves = [ln.split()[0] for ln in code if ln.split()[0] in ("mld", "mst")]
        shown = [ln for ln in code if ln.split()[0] not in ("mld", "mst")]
        shown.append(f"(and {moves.count('mld')} mld, {moves.count('mst')} mst)")
        console.print("\n".join(shown), highlight=False)
        for e in r.executed:
            p = e.plan
            console.print(f"{p.instruction} ran {p.ft.name} -> {p.acc.name} as {p.tiling.name}"
                          + (" (guard fallback)" if p.fallback else "")
                          + f": C tiles tr{p.c_tiles[0]}..tr{p.c_tiles[-1]}, {e.macs} MACs", highlight=False)
        console.print(config_table(r.core), status_table(r.core))
        y = r.outputs["y"]
        ref = ex.reference(inputs["x"], inputs["w"])
        console.print(_corner(y, ref))
        same = np.array_equal(y, ref) and np.array_equal(np.signbit(y), np.signbit(ref))
        console.print(f"y is {y.shape[0]}x{y.shape[1]} {y.dtype}; reference = {ex.reference_text}: "
                      + ("[green]identical[/]" if same else f"max |difference| {np.max(np.abs(y - ref)):g}"))
        console.print(cost_table(r.cost))
    _gemm_study(console)


def _gemm_study(console) -> None:
    """The runtime: one GEMM cut into MMACC.T instructions, in four formats, against float64."""
    from ..study.view import show
    from .study import compare

    console.rule("GEMM runtime: 256 x 256 x 512 in four formats (tilesim gemm)", style="dim")
    rows = compare(256, 256, 512, ["int8", "fp8_e4m3", "fp16", "bf16"], seed=0)
    show([r.record for r in rows], console)
    console.print("INT8 products summed over K = 512 overflow the INT16 accumulator: 'wrapped' counts the results "
                  "that wrapped (try --sat 1); FP8 loses most to input rounding; FP16/BF16 -> FP32 lose almost "
                  "nothing in accumulation.")
