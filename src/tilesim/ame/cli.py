"""``tilesim run prog.s``: assemble and run an AME program, print its status, configuration and cost."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from rich.table import Table

from .. import formats
from ..errors import FormatError, TilesimError
from .accum import accumulator
from .asm import Instruction, assemble
from .core import Core
from .cost import THROUGHPUTS, Cost, Throughput
from .csr import MXCFG, MXTILE, ROUNDING, TILINGS
from .mmacc import Executed
from .runner import RunResult, run_program

__all__ = ["run_file", "status_table", "cost_table", "config_table", "step_text"]


def status_table(core: Core) -> Table:
    """The sticky status flags."""
    t = Table(title="mxstatus (0x7C2)")
    t.add_column("flag")
    t.add_column("value", justify="right")
    for name, on in core.status.items():
        t.add_row(f"mx.{name}", "[bold]1[/]" if on else "0")
    return t


def config_table(core: Core) -> Table:
    """mxcfg and mxtile, field by field, with the formats they select."""
    cfg, geo = MXCFG.unpack(core.csrr(MXCFG)), MXTILE.unpack(core.csrr(MXTILE))
    t = Table(title="configuration")
    t.add_column("CSR")
    t.add_column("fields")
    try:
        ft = formats.get(cfg["ft"])
        fmts = f"Ft={cfg['ft']:#04x} ({ft.name} -> {accumulator(ft, cfg['bovf']).name})"
    except FormatError:
        fmts = f"Ft={cfg['ft']:#04x} (reserved)"
    rnd = ROUNDING[cfg["rnd"]] if cfg["rnd"] < len(ROUNDING) else f"{cfg['rnd']} (reserved)"
    t.add_row(f"mxcfg = {core.csrr(MXCFG):#x}", f"{fmts}, bOVF={cfg['bovf']}, RND={rnd}, SAT={cfg['sat']}")
    t.add_row(f"mxtile = {core.csrr(MXTILE):#x}", f"K={geo['k']}, M={geo['m']}, TILING={TILINGS[geo['tiling']].name}, "
                                                  f"GUARD4x4={geo['guard4x4']}")
    return t


def cost_table(cost: Cost, macs_per_cycle: int | None = None) -> Table:
    """Work done and modeled cycles at the proposal's throughput points (or the one given)."""
    t = Table(title="cost")
    t.add_column("measure")
    t.add_column("value", justify="right")
    for name, v in (("instructions", cost.instructions), ("MMACC instructions", cost.mmacc), ("MACs", cost.macs),
                    ("tiles read by MMACC", cost.tiles_read), ("tiles written by MMACC", cost.tiles_written),
                    ("tiles loaded (mld)", cost.tiles_loaded), ("tiles stored (mst)", cost.tiles_stored)):
        t.add_row(name, f"{v:,}")
    points = (Throughput(macs_per_cycle),) if macs_per_cycle else THROUGHPUTS
    for p in points:
        t.add_row(f"cycles at {p.label}", f"{cost.cycles(p.macs_per_cycle):,}")
    return t


def step_text(ins: Instruction, ex: Executed | None) -> str:
    """One trace line: the source line, and what an MMACC did."""
    out = f"{ins.line:>4}  {ins.text}"
    if ex is not None:
        p = ex.plan
        events = [n for n, on in (("guard_fallback", p.fallback), ("inexact", ex.inexact), ("sat_hit", ex.sat_hit))
                  if on]
        out += (f"\n      {p.ft.name} -> {p.acc.name}, {p.tiling.name}, C tiles {p.c_tiles[0]}..{p.c_tiles[-1]}, "
                f"{ex.macs} MACs" + (f"; {', '.join(events)}" if events else ""))
    return out


def print_summary(console, result: RunResult, macs_per_cycle: int | None = None) -> None:
    console.print(config_table(result.core))
    console.print(status_table(result.core))
    console.print(cost_table(result.cost, macs_per_cycle))


def run_file(path: Path, inputs: dict[str, np.ndarray], console, *, trace: bool = False,
             accumulation: str | None = None, macs_per_cycle: int | None = None,
             quantize: bool = False) -> dict[str, np.ndarray]:
    """Run an AME assembly file: print configuration, status and cost; return the stored arrays.

    The result also holds ``ame_tiles``, the final register file (uint8 32 x 256).
    """
    if macs_per_cycle is not None and macs_per_cycle < 1:
        raise TilesimError("the MAC throughput is a positive number of MACs per cycle", instruction="tilesim run",
                           operand="--macs-per-cycle", rule="ame.cost.rate", value=macs_per_cycle)
    program = assemble(Path(path).read_text(), source=str(path))
    on_step = (lambda ins, ex, core: console.print(step_text(ins, ex), highlight=False)) if trace else None
    result = run_program(program, inputs, accumulation=accumulation or "fused", quantize=quantize, on_step=on_step)
    print_summary(console, result, macs_per_cycle)
    for name, a in result.outputs.items():
        console.print(f"{name}: {a.shape[0]}x{a.shape[1]} {a.dtype}")
    return {**result.outputs, "ame_tiles": result.core.tiles.copy()}


def gemm_command(m: int, n: int, k: int, fts: list[str], console, *, bovf: int = 0, rnd: str = "rne", sat: int = 0,
                 tiling: str = "auto", accumulation: str = "fused", macs_per_cycle: int | None = None, seed: int = 0,
                 emit: Path | None = None, output: str = "table", csv: Path | None = None, plot: Path | None = None,
                 workers: int | None = None, scheduler: str | None = None, timeout: float = 10.0,
                 block: str | None = None, accs: list[str] | tuple[str, ...] = ("proposal",)) -> None:
    """``tilesim gemm``: compare formats (and accumulators: ``accs``, ``proposal`` or what-ifs) on one GEMM
    shape; optionally write CSV, a plot, the program.

    The table is rich on a terminal and plain text when piped; ``output`` ``csv`` or ``json`` prints every
    column of the records instead (the columns of a study's ``results.csv``).
    """
    from rich.progress import Progress

    from .. import progress
    from ..study import cluster
    from ..study.view import check_output, fmt_acc, show, to_csv
    from .gemm import DEFAULT_MACS_PER_CYCLE, plan_gemm
    from .study import compare, problem

    rate = DEFAULT_MACS_PER_CYCLE if macs_per_cycle is None else macs_per_cycle
    check_output(output, "tilesim gemm")
    if emit is not None and len(fts) != 1:
        raise TilesimError("--emit writes the program of one format; give exactly one -f/--format",
                           instruction="tilesim gemm", operand="--emit", rule="ame.gemm.emit", value=fts)
    if emit is not None and len(set(accs)) != 1:
        raise TilesimError("--emit writes the program of one accumulator; give at most one --acc",
                           instruction="tilesim gemm", operand="--emit", rule="ame.gemm.emit", value=list(accs))
    shape = _block_shape(block)
    program = None
    if emit is not None:          # before anything runs: a what-if has no program (ame.gemm.acc)
        plan = plan_gemm(m, n, k, ft=fts[0], bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, macs_per_cycle=rate,
                         acc=accs[0])
        program = plan.program()
    with cluster.connect(workers, scheduler, timeout) as client, \
            Progress(transient=True, console=console, disable=output != "table" or not console.is_terminal) as bar:
        task = bar.add_task("running", total=None)
        step = "block of C" if client is not None or shape is not None else "K-slice"

        def on_progress(name, done, total):
            bar.update(task, description=f"{name}: {step}", completed=done, total=total)
            progress.update(f"{name}: {step}", done, total)

        rows = compare(m, n, k, fts, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=accumulation,
                       seed=seed, macs_per_cycle=rate, client=client, block=shape, accs=accs,
                       on_progress=on_progress)
    records = [r.record for r in rows]
    show(records, console, output, title=f"GEMM {m}x{n}x{k} (M x N x K), cycles at {rate:,} MACs/cycle")
    if output == "table":
        for r in records:
            console.print(f"tiling {fmt_acc(r)}: {r['tiling_why']}", highlight=False)
        console.print("err vs fp64: ||C - A B|| / ||A B|| with A, B ~ N(0, 1) (float32) and A B in float64; err accum.: against the "
                      "float64 product of the quantised inputs; worst row accum.: that error in the worst row, relative to "
                      "the row's norm; p99 ULP accum.: the 99th percentile of that error, in ULPs of the accumulator. Integer formats use a per-tensor scale. (fb): the 4x4 was asked for and "
                      "2x2 runs. wrapped: results an integer accumulator wrapped. (what-if): --acc replaced the "
                      "proposal's accumulator. Simulated in "
                      + ", ".join(f"{fmt_acc(r.record)} {r.seconds:.2f} s" for r in rows), highlight=False)
    if csv is not None:
        csv.write_text(to_csv(records))
        console.print(f"wrote {csv}", highlight=False)
    if plot is not None:
        from ..study.plots import gemm_figure
        gemm_figure(records, [r.histograms for r in rows], f"GEMM {m}x{n}x{k}").savefig(plot)
        console.print(f"wrote {plot}", highlight=False)
    if emit is not None:
        a, b = problem(m, n, k, seed)
        emit.write_text(program)
        inputs = emit.with_suffix(".npz")
        np.savez(inputs, **plan.program_inputs(a, b))
        console.print(f"wrote {emit} ({plan.cost().instructions:,} instructions) and {inputs}; run it with "
                      f"`tilesim run {emit} -i {inputs}`")


def _block_shape(text: str | None) -> tuple[int, int] | None:
    """``--block ROWSxCOLS``."""
    if text is None:
        return None
    rows, _, cols = text.lower().partition("x")
    if not (re.fullmatch("[0-9]+", rows) and re.fullmatch("[0-9]+", cols) and int(rows) > 0 and int(cols) > 0):
        raise TilesimError("--block is ROWSxCOLS of C, e.g. 256x512", instruction="tilesim gemm", operand="--block",
                           rule="ame.gemm.shape", value=text)
    return int(rows), int(cols)
