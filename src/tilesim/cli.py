"""The ``tilesim`` command: demo, formats, quantize, run, gemm, vectors, check.

Each ISA package plugs in through two small tables: ``DEMOS`` (a section of
``tilesim demo``) and ``RUNNERS`` (``tilesim run`` by file suffix). A runner is
``run_file(path, inputs, console, **options) -> dict[str, np.ndarray]``; it
prints its own summary and returns the arrays that ``--output`` saves.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import List, Optional

import numpy as np
import typer
from rich.console import Console

from .errors import TilesimError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Bit-exact simulator of AI-accelerator tile instructions.")
console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)

# (title, "module:function") -- each function takes a rich Console
DEMOS: list[tuple[str, str]] = [
    ("Number formats", "tilesim.formats.demo:demo"),
    ("Tensix (Wormhole B0) Matrix Unit", "tilesim.tensix.demo:demo"),
    ("Huawei PTO tile ISA", "tilesim.pto.demo:demo"),
    ("RISC-V AME MAC (proposal v0.14_1)", "tilesim.ame.demo:demo"),
]

# file suffix -> (ISA, "module:function", options that ISA accepts)
RUNNERS: dict[str, tuple[str, str, frozenset[str]]] = {
    ".tt": ("Tensix", "tilesim.tensix.cli:run_file", frozenset({"rounding_model"})),
    ".pto": ("PTO", "tilesim.pto.runner:run_file", frozenset({"target", "blocks", "entry"})),
    ".s": ("AME", "tilesim.ame.cli:run_file", frozenset({"accumulation", "macs_per_cycle"})),
}


def _load(spec: str):
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def _fail(err: Exception) -> None:
    console.print(f"[bold red]error:[/] {err}", soft_wrap=True)
    raise typer.Exit(2)


@app.command()
def demo() -> None:
    """Run the built-in examples of every ISA and show their results."""
    for title, spec in DEMOS:
        console.rule(f"[bold]{title}")
        _load(spec)(console)


@app.command("formats")
def formats_cmd() -> None:
    """Print the table of every number format."""
    from .formats.demo import format_table
    console.print(format_table())


@app.command()
def quantize(
    values: List[str] = typer.Argument(..., help="numbers (Python float syntax: 0.1, -3e4, inf, nan)"),
    format: str = typer.Option("fp8_e4m3", "--format", "-f", help="format name, alias or AME code (0x11)"),
    rounding: str = typer.Option("rne", "--rounding", "-r", help="rne, rtz, rup, rdn or rmm"),
    saturate: bool = typer.Option(False, "--saturate", help="clamp overflow to ±max"),
    flush: bool = typer.Option(False, "--flush-subnormals", help="flush subnormal results to zero"),
) -> None:
    """Round numbers to a format: print codes, values and flags."""
    from .formats.demo import quantize_table
    try:
        x = np.array([float(v) for v in values])
    except ValueError as e:
        _fail(TilesimError(f"not a number: {e}", instruction="tilesim quantize", operand="values"))
    key: str | int = int(format, 0) if format.lower().startswith("0x") else format
    try:
        console.print(quantize_table(x, key, rounding, saturate, flush))
    except TilesimError as e:
        _fail(e)


def _read_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``name=file.npy``, or ``file.npz`` (every array in it by its own name)."""
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        name, _, path = spec.rpartition("=")
        p = Path(path)
        if not p.exists():
            raise TilesimError(f"no such file {path!r}", instruction="tilesim run", operand="--input", value=spec)
        if p.suffix == ".npz":
            with np.load(p) as z:
                out.update({k: z[k] for k in z.files} if not name else {name: z[z.files[0]]})
        elif p.suffix == ".npy":
            out[name or p.stem] = np.load(p)
        else:
            raise TilesimError("inputs are .npy or .npz files", instruction="tilesim run", operand="--input",
                               value=spec)
    return out


@app.command()
def run(
    program: Path = typer.Argument(..., exists=True, dir_okay=False, help="program text"),
    input: List[str] = typer.Option([], "--input", "-i", help="name=array.npy, or arrays.npz"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="save results to this .npz"),
    target: Optional[str] = typer.Option(None, help="PTO target: cpu, a2a3, a5"),
    accumulation: Optional[str] = typer.Option(None, help="AME: fused, sequential, chain_then_add"),
    rounding_model: Optional[str] = typer.Option(None, "--rounding-model", help="Tensix: hardware or doc"),
    macs_per_cycle: Optional[int] = typer.Option(None, help="AME cost model MAC throughput"),
    trace: bool = typer.Option(False, help="print each instruction as it runs"),
    blocks: Optional[int] = typer.Option(None, min=1, help="PTO: run the kernel once per block (get_block_idx)"),
    entry: Optional[str] = typer.Option(None, help="PTO: the function to run (default: pto.entry, else first)"),
) -> None:
    """Run a program file; the ISA is chosen by its suffix."""
    options = {"target": target, "accumulation": accumulation, "rounding_model": rounding_model,
               "macs_per_cycle": macs_per_cycle, "blocks": blocks, "entry": entry}
    try:
        entry = RUNNERS.get(program.suffix)
        if entry is None:
            raise TilesimError(f"unknown program type {program.suffix!r}; known: " + ", ".join(sorted(RUNNERS)),
                               instruction="tilesim run", operand="program", value=str(program))
        isa, spec, accepted = entry
        given = {k: v for k, v in options.items() if v is not None}
        for k in given:
            if k not in accepted:
                raise TilesimError(f"--{k.replace('_', '-')} does not apply to {isa} programs",
                                   instruction="tilesim run", operand=k, value=given[k])
        results = _load(spec)(program, _read_inputs(input), console, trace=trace, **given)
    except TilesimError as e:
        _fail(e)
    if output is not None:
        np.savez(output, **results)
        console.print(f"saved {', '.join(results)} to {output}")


@app.command()
def gemm(
    m: int = typer.Argument(..., help="rows of A and C"),
    n: int = typer.Argument(..., help="columns of B and C"),
    k: int = typer.Argument(..., help="columns of A, rows of B"),
    ft: List[str] = typer.Option(["bf16"], "--ft", "-f", help="AME input format (repeat to compare)"),
    bovf: int = typer.Option(0, help="1: accumulate in the input format"),
    rnd: str = typer.Option("rne", help="rne, rup, rdn, rtz"),
    sat: int = typer.Option(0, help="1: saturate"),
    tiling: str = typer.Option("auto", help="auto, 4x4 (guarded), 2x2, 1x4, 4x1, 1x1"),
    accumulation: str = typer.Option("fused", help="fused, sequential, chain_then_add"),
    macs_per_cycle: Optional[int] = typer.Option(None, help="MAC throughput (default: 4k, 16k and 32k)"),
    seed: int = typer.Option(0, help="seed of the random A and B"),
    emit: Optional[Path] = typer.Option(None, help="write the AME program (and its inputs as .npz) here"),
) -> None:
    """AME: run a random GEMM through the runtime in each format; compare accuracy, MACs, tiles and cycles."""
    from .ame.cli import gemm_command
    try:
        gemm_command(m, n, k, ft, console, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=accumulation,
                     macs_per_cycle=macs_per_cycle, seed=seed, emit=emit)
    except TilesimError as e:
        _fail(e)


@app.command()
def vectors(
    isa: str = typer.Argument(..., help="tensix, pto, ame or formats"),
    op: str = typer.Argument(..., help="the instruction or op (e.g. gmpool, trowmax, mmacc, encode)"),
    n: int = typer.Option(64, "--n", help="vectors (raised to classes x --min-per-class if smaller)"),
    seed: int = typer.Option(0, "--seed", help="random seed (same seed, same vectors)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="output directory (default vectors-ISA-OP)"),
    min_per_class: int = typer.Option(1, "--min-per-class", help="at least this many vectors per class"),
    rounding_model: Optional[str] = typer.Option(None, "--rounding-model", help="Tensix: hardware or doc"),
    srca: Optional[str] = typer.Option(None, "--srca", help="Tensix: SrcA data format (BF16, FP16, TF32, BFP8 ...)"),
    srcb: Optional[str] = typer.Option(None, "--srcb", help="Tensix: SrcB data format"),
    dst32: Optional[bool] = typer.Option(None, "--dst32/--dst16", help="Tensix: 32-bit or 16-bit Dst"),
    argmax: Optional[bool] = typer.Option(None, "--argmax/--no-argmax", help="Tensix GMPOOL: ArgMax on or off"),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="PTO: element type, or the op's signature (f16,i32)"),
    target: Optional[str] = typer.Option(None, "--target", help="PTO: cpu, a2a3, a5"),
    ft: Optional[str] = typer.Option(None, "--ft", help="AME: input format (int8, fp8_e4m3, 0x11 ...)"),
    bovf: Optional[int] = typer.Option(None, "--bovf", help="AME: 1 accumulates in the input format"),
    sat: Optional[int] = typer.Option(None, "--sat", help="AME: 1 saturates"),
    rnd: Optional[str] = typer.Option(None, "--rnd", help="AME: rne, rup, rdn, rtz"),
    tiling: Optional[str] = typer.Option(None, "--tiling", help="AME: 1x1, 2x2, 1x4, 4x1, 4x4 (guarded)"),
    accumulation: Optional[str] = typer.Option(None, "--accumulation", help="AME: fused, sequential, chain_then_add"),
    k: Optional[int] = typer.Option(None, "--k", help="AME: K, elements per row"),
    m: Optional[int] = typer.Option(None, "--m", help="AME: M, rows"),
    format: Optional[str] = typer.Option(None, "--format", help="formats: format name, alias or AME code"),
    rounding: Optional[str] = typer.Option(None, "--rounding", help="formats encode: rne, rtz, rup, rdn, rmm"),
    saturate: Optional[bool] = typer.Option(None, "--saturate/--no-saturate", help="formats encode: clamp overflow"),
) -> None:
    """Write golden vectors for one instruction: manifest, npz, $readmemh hex files, coverage."""
    from .verify.commands import vectors_command
    try:
        vectors_command(isa, op, out, console, n=n, seed=seed, min_per_class=min_per_class,
                        rounding_model=rounding_model, srca=srca, srcb=srcb, dst32=dst32, argmax=argmax, dtype=dtype,
                        target=target, ft=ft, bovf=bovf, sat=sat, rnd=rnd, tiling=tiling, accumulation=accumulation,
                        k=k, m=m, format=format, rounding=rounding, saturate=saturate)
    except TilesimError as e:
        _fail(e)


@app.command()
def check(
    golden: Path = typer.Argument(..., help="a directory written by tilesim vectors"),
    dump: Path = typer.Argument(..., help="the device's outputs: a directory of hex or npz files, or an .npz"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="also write JUnit XML, one test case per vector"),
    max_report: int = typer.Option(20, "--max-report", help="mismatches to list"),
) -> None:
    """Compare a device dump with golden vectors bit for bit; exit 1 on any mismatch."""
    from .verify.commands import check_command
    try:
        code = check_command(golden, dump, console, junit=junit, max_report=max_report)
    except TilesimError as e:
        _fail(e)
    raise typer.Exit(code)


def main() -> None:
    app()
