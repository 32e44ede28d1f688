"""``tilesim run prog.s``: assemble and run an AME program, print its status, configuration and cost."""

from __future__ import annotations

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


def gemm_table(rows, macs_per_cycle: int | None = None) -> Table:
    """One row per format: plan, work, modeled cycles, status and the errors against float64."""
    points = (Throughput(macs_per_cycle),) if macs_per_cycle else THROUGHPUTS
    first = rows[0].plan
    t = Table(title=f"GEMM {first.m}x{first.n}x{first.k} (M x N x K), RND={first.rnd}, SAT={first.sat}, "
                    f"bOVF={first.bovf}")
    cycles = "cycles @" + "/".join(f"{p.macs_per_cycle / 1024:g}k" for p in points)
    for col in ("Ft -> acc", "tiling", "MMACC.T", "MACs", "useful", "tiles ld/st", cycles, "err vs fp64",
                "err accum.", "flags"):
        t.add_column(col, justify="left" if col in ("Ft -> acc", "tiling", "flags") else "right", no_wrap=True)
    for r in rows:
        p, c = r.plan, r.plan.cost()
        flags = ",".join(k for k, on in r.result.status.items() if on) or "-"
        t.add_row(f"{r.ft.name}->{r.acc.name}", p.tiling.name + (" (fb)" if p.fallback else ""),
                  f"{p.instructions:,}", f"{c.macs:,}", f"{p.useful_macs / c.macs:.0%}",
                  f"{c.tiles_loaded:,}/{c.tiles_stored:,}", "/".join(f"{c.cycles(x.macs_per_cycle):,}" for x in points),
                  f"{r.error_total:.3g}", f"{r.error_accumulation:.3g}", flags)
    return t


def gemm_command(m: int, n: int, k: int, fts: list[str], console, *, bovf: int = 0, rnd: str = "rne", sat: int = 0,
                 tiling: str = "auto", accumulation: str = "fused", macs_per_cycle: int | None = None, seed: int = 0,
                 emit: Path | None = None) -> None:
    """``tilesim gemm``: compare formats on one GEMM shape; optionally write the program and its inputs."""
    from rich.progress import Progress

    from .gemm import plan_gemm
    from .study import compare, problem

    if macs_per_cycle is not None and macs_per_cycle < 1:
        raise TilesimError("the MAC throughput is a positive number of MACs per cycle", instruction="tilesim gemm",
                           operand="--macs-per-cycle", rule="ame.cost.rate", value=macs_per_cycle)
    if emit is not None and len(fts) != 1:
        raise TilesimError("--emit writes the program of one format; give exactly one --ft", instruction="tilesim gemm",
                           operand="--emit", rule="ame.gemm.emit", value=fts)
    with Progress(transient=True, console=console) as bar:
        task = bar.add_task("running", total=None)

        def on_slice(name, done, total):
            bar.update(task, description=f"{name}: K-slice", completed=done, total=total)

        rows = compare(m, n, k, fts, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=accumulation,
                       seed=seed, on_slice=on_slice)
    console.print(gemm_table(rows, macs_per_cycle))
    console.print("err vs fp64: ||C - A B|| / ||A B|| with A, B ~ N(0, 1) in float64; err accum.: against the "
                  "float64 product of the quantised inputs. Integer formats use a per-tensor scale. (fb): the 4x4 "
                  "was asked for and 2x2 runs. Simulated in " + ", ".join(f"{r.ft.name} {r.seconds:.2f} s" for r in rows))
    if emit is not None:
        plan = plan_gemm(m, n, k, ft=fts[0], bovf=bovf, rnd=rnd, sat=sat, tiling=tiling)
        a, b = problem(m, n, k, seed)
        emit.write_text(plan.program())
        inputs = emit.with_suffix(".npz")
        np.savez(inputs, **plan.program_inputs(a, b))
        console.print(f"wrote {emit} ({plan.cost().instructions:,} instructions) and {inputs}; run it with "
                      f"`tilesim run {emit} -i {inputs}`")
