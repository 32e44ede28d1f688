"""The ``tilesim`` command: demo, formats, quantize, run, diff, gemm, vectors, check, coverage, study, compare.

Errors, ``--debug``, ``--version`` and flags that take ``0``/``1`` are handled
once for every command by :class:`tilesim.clikit.Group`: a command body just
raises :class:`~tilesim.errors.TilesimError`. Choices are ``Literal`` types
built from the ISA tables, so ``--help`` lists them and a wrong one is refused
with the list before any work starts.

Each ISA package plugs in through two small tables: ``DEMOS`` (a section of
``tilesim demo``) and ``RUNNERS`` (``tilesim run`` by file suffix). A runner is
``run_file(path, inputs, console, **options) -> dict[str, np.ndarray]``; it
prints its own summary and returns the arrays that ``--output`` saves.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from pathlib import Path
from typing import List, Literal, Optional

import numpy as np
import typer
from rich.console import Console

from .ame.csr import ROUNDING as AME_ROUNDING
from .ame.models import MODELS
from .clikit import Group, output_path
from .errors import TilesimError
from .formats import Rounding
from .inspect.cli import diff as diff_command
from .pto.targets import TARGETS
from .tensix.state import ROUNDING_MODELS

app = typer.Typer(cls=Group, add_completion=False, no_args_is_help=True,
                  help="Bit-exact simulator of AI-accelerator tile instructions.")
console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)

# (title, "module:function") -- each function takes a rich Console
DEMOS: list[tuple[str, str]] = [
    ("Number formats", "tilesim.formats.demo:demo"),
    ("Tensix (Wormhole B0) Matrix Unit", "tilesim.tensix.demo:demo"),
    ("Huawei PTO tile ISA", "tilesim.pto.demo:demo"),
    ("RISC-V AME MAC (proposal v0.14_1)", "tilesim.ame.demo:demo"),
    ("One operation, three machines (tilesim compare)", "tilesim.compare.demo:demo"),
]

# file suffix -> (ISA, "module:function", options that ISA accepts)
RUNNERS: dict[str, tuple[str, str, frozenset[str]]] = {
    ".tt": ("Tensix", "tilesim.tensix.cli:run_file", frozenset({"rounding_model"})),
    ".pto": ("PTO", "tilesim.pto.runner:run_file", frozenset({"target", "blocks", "entry", "strict"})),
    ".s": ("AME", "tilesim.ame.cli:run_file", frozenset({"accumulation", "macs_per_cycle", "quantize"})),
}


def _load(spec: str):
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def _choices(values) -> type:
    """A ``Literal`` of ``values``: typer lists them in ``--help`` and refuses anything else."""
    return Literal[tuple(values)]  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        console.print(f"tilesim {metadata.version('tilesim')}")
        raise typer.Exit()


@app.callback()
def _options(
    debug: bool = typer.Option(False, "--debug", help="show the Python traceback of an error"),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="print the version and exit"),
) -> None:
    """Bit-exact simulator of AI-accelerator tile instructions."""


@app.command()
def demo() -> None:
    """Run the built-in examples of every ISA and show their results."""
    for title, spec in DEMOS:
        console.rule(f"[bold]{title}")
        _load(spec)(console)


@app.command("formats")
def formats_cmd() -> None:
    """Print the table of every number format."""
    from .formats.demo import format_tables
    for t in format_tables(console):
        console.print(t)


@app.command()
def quantize(
    values: List[str] = typer.Argument(..., help="numbers (Python float syntax: 0.1, -3e4, inf, nan)"),
    format: str = typer.Option("fp8_e4m3", "--format", "-f", help="format name, alias or AME code (0x11)"),
    rounding: _choices(m.value for m in Rounding) = typer.Option("rne", "--rounding", "-r", help="rounding mode"),
    saturate: bool = typer.Option(False, "--saturate", help="clamp overflow to ±max (a flag, or 0/1)"),
    flush: bool = typer.Option(False, "--flush-subnormals", help="flush subnormal results to zero (a flag, or 0/1)"),
) -> None:
    """Round numbers to a format: print codes, values and flags."""
    from .formats.demo import quantize_table
    x = np.array([_number(v) for v in values])
    console.print(quantize_table(x, _format_key(format), rounding, saturate, flush))


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise TilesimError(f"{text!r} is not a number (Python float syntax: 0.1, -3e4, inf, nan)",
                           instruction="tilesim quantize", operand="values", rule="cli.number", value=text) from None


def _format_key(text: str) -> str | int:
    """A format name, or an AME code written ``0x..``."""
    if not text.lower().startswith("0x"):
        return text
    try:
        return int(text, 16)
    except ValueError:
        raise TilesimError(f"{text!r} is not a hexadecimal AME code (e.g. 0x11)", instruction="tilesim quantize",
                           operand="--format", rule="cli.number", value=text) from None


_OUTPUT = typer.Option("table", "--output-format", help="table (plain text when piped), csv or json")
_OUTPUTS = ("table", "csv", "json")


def _formats(fmt: list[str], old: list[str], command: str, default: str = "bf16") -> list[str]:
    """``-f/--format`` values, plus those of the old spelling (``--ft``, ``--dtype``), else ``[default]``.

    An output form given to ``-f`` (``--format csv``, the old spelling of ``--output-format``) is refused
    with the new name (rule ``cli.format``).
    """
    for v in fmt:
        if v in _OUTPUTS:
            raise TilesimError(f"-f/--format is the number format; for the output form write --output-format {v}",
                               instruction=command, operand="--format", rule="cli.format", value=v)
    return [*fmt, *old] or [default]


def _ascii(text: str | None, command: str, option: str) -> str | None:
    """Sizes are written in ASCII digits: ``'²'.isdigit()`` is true, and ``int('²')`` fails (rule ``cli.number``)."""
    if text is not None and not text.isascii():
        bad = next(ch for ch in text if not ch.isascii())
        raise TilesimError(f"{text!r} holds {bad!r} (U+{ord(bad):04X}); write sizes with the digits 0-9, e.g. 16x64",
                           instruction=command, operand=option, rule="cli.number", value=text)
    return text


def _read_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``name=file.npy``, ``name=file.npz`` (its one array), or ``file.npz`` (every array by its own name)."""
    out: dict[str, np.ndarray] = {}
    for spec in specs:
        name, _, path = spec.rpartition("=")
        arrays = _load_arrays(Path(path), spec)
        if name and len(arrays) != 1:
            raise TilesimError(f"{path} holds {len(arrays)} arrays ({', '.join(arrays) or 'none'}); "
                               f"name=file takes a file with one array, or pass {path} alone to use their names",
                               instruction="tilesim run", operand="--input", rule="cli.input", value=spec)
        out.update({name: next(iter(arrays.values()))} if name else arrays)
    return out


def _load_arrays(p: Path, spec: str) -> dict[str, np.ndarray]:
    """The arrays of a .npy (named by its stem) or .npz file."""
    def bad(why: str) -> TilesimError:
        return TilesimError(f"{why}; --input takes name=array.npy or arrays.npz", instruction="tilesim run",
                            operand="--input", rule="cli.input", value=spec)

    if p.suffix not in (".npy", ".npz"):
        raise bad(f"{str(p)!r} is not a .npy or .npz file")
    if not p.is_file():
        raise bad(f"no such file {str(p)!r}")
    try:
        if p.suffix == ".npy":
            return {p.stem: np.load(p)}
        with np.load(p) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as e:  # not numpy's format, or object arrays (pickles are refused)
        raise bad(f"cannot read {str(p)!r} ({e})") from None


@app.command()
def run(
    program: Path = typer.Argument(..., exists=True, dir_okay=False, help="program text"),
    input: List[str] = typer.Option([], "--input", "-i", help="name=array.npy, or arrays.npz"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="save results to this .npz",
                                          callback=output_path),
    target: Optional[_choices(TARGETS)] = typer.Option(None, help="PTO target"),
    accumulation: Optional[_choices(MODELS)] = typer.Option(None, help="AME accumulation model"),
    rounding_model: Optional[_choices(ROUNDING_MODELS)] = typer.Option(None, "--rounding-model",
                                                                        help="Tensix rounding model"),
    macs_per_cycle: Optional[int] = typer.Option(None, help="AME cost model MAC throughput"),
    trace: bool = typer.Option(False, help="print each instruction as it runs"),
    blocks: Optional[int] = typer.Option(None, min=1, help="PTO: run the kernel once per block (get_block_idx)"),
    entry: Optional[str] = typer.Option(None, help="PTO: the function to run (default: pto.entry, else first)"),
    quantize: bool = typer.Option(False, "--quantize", help="AME: mld rounds (RND) and clamps inputs that do not "
                                                            "fit the format, instead of stopping (a flag, or 0/1)"),
    strict: bool = typer.Option(False, "--strict", help="PTO: stop at the first element a conversion computes by a "
                                                        "C++-undefined cast (target cpu), instead of warning"),
    trace_values: bool = typer.Option(False, "--trace-values", help="record the values each statement writes; "
                                                                    "-o saves the trace (a flag, or 0/1)"),
    lines: Optional[str] = typer.Option(None, "--lines", help="--trace-values: only these lines (3,7-9)"),
    ops: Optional[str] = typer.Option(None, "--ops", help="--trace-values: only these ops (tadd,trowsum)"),
    iterations: Optional[str] = typer.Option(None, "--iterations", help="--trace-values: only loop iterations "
                                                                        "FIRST:STOP"),
) -> None:
    """Run a program file; the ISA is chosen by its suffix."""
    options = {"target": target, "accumulation": accumulation, "rounding_model": rounding_model,
               "macs_per_cycle": macs_per_cycle, "blocks": blocks, "entry": entry}
    runner = RUNNERS.get(program.suffix)
    if runner is None:
        raise TilesimError(f"unknown program type {program.suffix!r}; known: " + ", ".join(sorted(RUNNERS)),
                           instruction="tilesim run", operand="program", rule="cli.suffix", value=str(program))
    isa, spec, accepted = runner
    given = {k: v for k, v in {**options, "quantize": quantize or None, "strict": strict or None}.items()
             if v is not None}
    for k in given:
        if k not in accepted:
            raise TilesimError(f"--{k.replace('_', '-')} does not apply to {isa} programs",
                               instruction="tilesim run", operand=k, rule="cli.option", value=given[k])
    try:
        program.read_text()
    except UnicodeDecodeError as e:
        raise TilesimError(f"{program} is not UTF-8 text ({e.reason} at byte {e.start})", instruction="tilesim run",
                           operand="program", rule="cli.text", value=str(program)) from None
    keep = _trace_filter(trace_values, lines, ops, iterations)
    if keep is not None:
        from .inspect.cli import run_traced
        return run_traced(program, _read_inputs(input), console, given, keep, output)
    results = _load(spec)(program, _read_inputs(input), console, trace=trace, **given)
    if output is not None:
        np.savez(output, **results)
        console.print(f"saved {', '.join(results)} to {output}")


def _trace_filter(on: bool, lines, ops, iterations):
    """The --trace-values filter, or None without --trace-values (its filters alone are refused)."""
    from .inspect.steps import Filter
    if not on:
        if lines or ops or iterations:
            raise TilesimError("--lines, --ops and --iterations filter --trace-values; add --trace-values",
                               instruction="tilesim run", operand="--trace-values", rule="cli.option",
                               value=lines or ops or iterations)
        return None
    return Filter.parse(lines, ops, iterations)


app.command("diff")(diff_command)


@app.command()
def gemm(
    m: int = typer.Argument(..., help="rows of A and C"),
    n: int = typer.Argument(..., help="columns of B and C"),
    k: int = typer.Argument(..., help="columns of A, rows of B"),
    fmt: List[str] = typer.Option([], "--format", "-f", help="AME input format (repeat to compare; default bf16)"),
    ft: List[str] = typer.Option([], "--ft", hidden=True),
    bovf: int = typer.Option(0, min=0, max=1, help="1: accumulate in the input format"),
    rnd: _choices(AME_ROUNDING) = typer.Option("rne", help="rounding mode (RND)"),
    sat: int = typer.Option(0, min=0, max=1, help="1: saturate"),
    tiling: str = typer.Option("auto", help="auto (fewest cycles), 4x4 (guarded), 2x2, 1x4, 4x1, 1x1"),
    accumulation: str = typer.Option("fused", help="fused, sequential, chain_then_add"),
    acc: List[str] = typer.Option(["proposal"], help="accumulator: proposal (from Ft, bOVF), or a what-if: int16, "
                                                     "int32, fp16, bf16, fp32 ...; repeatable to compare"),
    macs_per_cycle: Optional[int] = typer.Option(None, help="MAC throughput of the cycles and of auto (16384)"),
    seed: int = typer.Option(0, min=0, help="seed of the random A and B (0 or more)"),
    emit: Optional[Path] = typer.Option(None, help="write the AME program (and its inputs as .npz) here",
                                        callback=output_path),
    output: str = _OUTPUT,
    csv: Optional[Path] = typer.Option(None, "--csv", help="write every column of every format here",
                                       callback=output_path),
    plot: Optional[Path] = typer.Option(None, "--plot", help="write a PNG: errors by format, ULP histogram",
                                        callback=output_path),
    workers: Optional[int] = typer.Option(None, help="split C by blocks across a new local Dask cluster"),
    scheduler: Optional[str] = typer.Option(None, help="split C by blocks on the Dask cluster at this address"),
    block: Optional[str] = typer.Option(None, help="ROWSxCOLS of C per block (default: ~4 per worker)"),
    timeout: float = typer.Option(10.0, help="seconds to wait for --scheduler"),
) -> None:
    """AME: run a random GEMM through the runtime in each format; compare accuracy, MACs, tiles and cycles."""
    from .ame.cli import gemm_command
    gemm_command(m, n, k, _formats(fmt, ft, "tilesim gemm"), console, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling,
                 accumulation=accumulation, macs_per_cycle=macs_per_cycle, seed=seed, emit=emit, output=output,
                 csv=csv, plot=plot, workers=workers, scheduler=scheduler, timeout=timeout, block=block,
                 accs=acc)


@app.command()
def study(
    shape: List[str] = typer.Option([], "--shape", "-s", help="MxNxK (each may be a comma list); repeatable"),
    model: List[str] = typer.Option([], "--model", "-m", help="LLM preset: llama-3-8b, llama-3-70b, mistral-7b, "
                                                              "qwen2.5-7b; repeatable"),
    tokens: List[int] = typer.Option([16], "--tokens", "-t", help="M of a preset's layers: decode batch or "
                                                                  "prefill length; repeatable"),
    layer: List[str] = typer.Option([], help="only these preset layers: q k v o gate up down; repeatable"),
    fmt: List[str] = typer.Option([], "--format", "-f", help="AME input format; repeatable (default bf16)"),
    ft: List[str] = typer.Option([], "--ft", hidden=True),
    bovf: List[int] = typer.Option([0], help="0 or 1; repeatable"),
    rnd: List[str] = typer.Option(["rne"], help="rne, rup, rdn, rtz; repeatable"),
    sat: List[int] = typer.Option([0], help="0 or 1; repeatable"),
    accumulation: List[str] = typer.Option(["fused"], help="fused, sequential, chain_then_add; repeatable"),
    tiling: List[str] = typer.Option(["auto"], help="auto, 4x4, 2x2, 1x4, 4x1, 1x1; repeatable"),
    dist: Optional[List[str]] = typer.Option(None, help="normal, outliers, tensors; repeatable"),
    activations: Optional[str] = typer.Option(None, help="A: FILE.npy or FILE.safetensors[:NAME], M x K"),
    weights: Optional[str] = typer.Option(None, help="B as nn.Linear stores it: FILE.npy or "
                                                     "FILE.safetensors[:NAME], N x K"),
    seed: int = typer.Option(0, min=0, help="seed of the generated inputs (0 or more)"),
    macs_per_cycle: int = typer.Option(16384, help="MAC throughput of the cycles and of tiling auto"),
    acc: List[str] = typer.Option(["proposal"], help="accumulator: proposal (from Ft, bOVF), or a what-if: int16, "
                                                     "int32, fp16, bf16, fp32 ...; repeatable"),
    block_scale: List[str] = typer.Option(["none"], help="block scales of A and B along K: none, e8m0 (OCP MX), "
                                                         "fp8_e4m3; repeatable"),
    block_size: List[int] = typer.Option([32], help="elements per block scale; repeatable"),
    scale_at: List[str] = typer.Option(["after"], help="scales enter after each K-slice's sum, or before (dequantised "
                                                       "inputs); repeatable"),
    bandwidth: int = typer.Option(64, help="bytes per cycle of the schedule's tile loads and stores"),
    schedule_block: Optional[str] = typer.Option(None, help="MbxNbxKb of the schedule (default: the proposal's "
                                                            "make_plan, 64x64x8 tile rows)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write results.csv, plots and report.md here"),
    output: str = _OUTPUT,
    workers: Optional[int] = typer.Option(None, help="run the points on a new local Dask cluster"),
    scheduler: Optional[str] = typer.Option(None, help="run the points on the Dask cluster at this address"),
    timeout: float = typer.Option(10.0, help="seconds to wait for --scheduler"),
) -> None:
    """Sweep GEMM shapes or LLM layers x formats x modes x inputs: errors, cost, flags; CSV, plots, report."""
    from .study.cli import study_command
    study_command(console, out=out, workers=workers, scheduler=scheduler, timeout=timeout, output=output,
                  shapes=[_ascii(s, "tilesim study", "--shape") for s in shape], models=model, tokens=tokens,
                  layers=layer, fts=_formats(fmt, ft, "tilesim study"), bovfs=bovf, rnds=rnd, sats=sat,
                  accumulations=accumulation, tilings=tiling, dists=dist, activations=activations, weights=weights,
                  seed=seed, macs_per_cycle=macs_per_cycle, accs=acc, block_scales=block_scale,
                  block_sizes=block_size, scale_ats=scale_at, bandwidth=bandwidth, schedule_block=schedule_block)


@app.command()
def vectors(
    isa: str = typer.Argument(..., help="tensix, pto, ame or formats"),
    op: str = typer.Argument(..., help="the instruction or op (e.g. gmpool, trowmax, mmacc, encode)"),
    n: int = typer.Option(64, "--n", help="vectors (raised to classes x --min-per-class if smaller)"),
    seed: int = typer.Option(0, "--seed", help="random seed, 0 to 2**64 - 1 (same seed, same vectors)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="output directory (default vectors-ISA-OP)"),
    min_per_class: int = typer.Option(1, "--min-per-class", help="at least this many vectors per class"),
    rounding_model: Optional[str] = typer.Option(None, "--rounding-model", help="Tensix: hardware or doc"),
    srca: Optional[str] = typer.Option(None, "--srca", help="Tensix: SrcA data format (BF16, FP16, TF32, BFP8 ...)"),
    srcb: Optional[str] = typer.Option(None, "--srcb", help="Tensix: SrcB data format"),
    dst32: Optional[bool] = typer.Option(None, "--dst32/--dst16", help="Tensix: 32-bit or 16-bit Dst"),
    argmax: Optional[bool] = typer.Option(None, "--argmax/--no-argmax", help="Tensix GMPOOL: ArgMax on or off"),
    number: Optional[str] = typer.Option(None, "--format", "-f", help="the number format: AME input format (int8, "
                                         "0x11 ...), PTO element type or the op's signature (f16,i32), or the "
                                         "format of formats encode/decode"),
    dtype: Optional[str] = typer.Option(None, "--dtype", hidden=True),
    target: Optional[str] = typer.Option(None, "--target", help="PTO: cpu, a2a3, a5"),
    ft: Optional[str] = typer.Option(None, "--ft", hidden=True),
    bovf: Optional[int] = typer.Option(None, "--bovf", help="AME: 1 accumulates in the input format"),
    sat: Optional[int] = typer.Option(None, "--sat", help="AME: 1 saturates"),
    rnd: Optional[str] = typer.Option(None, "--rnd", help="AME: rne, rup, rdn, rtz"),
    tiling: Optional[str] = typer.Option(None, "--tiling", help="AME: 1x1, 2x2, 1x4, 4x1, 4x4 (guarded)"),
    accumulation: Optional[str] = typer.Option(None, "--accumulation", help="AME: fused, sequential, chain_then_add"),
    k: Optional[int] = typer.Option(None, "--k", help="AME: K, elements per row"),
    m: Optional[int] = typer.Option(None, "--m", help="AME: M, rows"),
    rounding: Optional[str] = typer.Option(None, "--rounding", help="formats encode: rne, rtz, rup, rdn, rmm"),
    saturate: Optional[bool] = typer.Option(None, "--saturate/--no-saturate", help="formats encode: clamp overflow"),
    dist: Optional[str] = typer.Option(None, "--dist", help="undirected elements: bits, normal, exp-uniform, edge"),
    range_: Optional[str] = typer.Option(None, "--range", help="keep drawn values in LO:HI"),
    weight: Optional[str] = typer.Option(None, "--weight", help="plant value classes: CLASS=W[,CLASS=W]"),
) -> None:
    """Write golden vectors for one instruction: manifest, npz, $readmemh hex files, coverage."""
    from .verify.commands import vectors_command
    chosen = {"ft": ft, "dtype": dtype, "format": None}  # -f is the number format of the ISA's generator
    if number is not None:
        chosen[{"ame": "ft", "pto": "dtype"}.get(isa, "format")] = number
    vectors_command(isa, op, out, console, n=n, seed=seed, min_per_class=min_per_class,
                    rounding_model=rounding_model, srca=srca, srcb=srcb, dst32=dst32, argmax=argmax,
                    target=target, bovf=bovf, sat=sat, rnd=rnd, tiling=tiling, accumulation=accumulation,
                    k=k, m=m, rounding=rounding, saturate=saturate, dist=dist, range=range_, weight=weight,
                    **chosen)


@app.command()
def check(
    golden: Path = typer.Argument(..., help="a directory written by tilesim vectors"),
    dump: Path = typer.Argument(..., help="the device's outputs: a directory of hex or npz files, or an .npz"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="also write JUnit XML, one test case per vector"),
    max_report: int = typer.Option(20, "--max-report", help="mismatches to list"),
    only: Optional[str] = typer.Option(None, "--only", help="check only these outputs (NAME[,NAME])"),
    x_policy: str = typer.Option("mismatch", "--x-policy", help="X/Z words in the dump: mismatch or ignore"),
) -> None:
    """Compare a device dump with golden vectors bit for bit; exit 1 on any mismatch."""
    from .verify.commands import check_command
    code = check_command(golden, dump, console, junit=junit, max_report=max_report, only=only, x_policy=x_policy)
    raise typer.Exit(code)


@app.command()
def coverage(
    dirs: list[Path] = typer.Argument(..., help="vector set directories (or coverage.json files)"),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="write the merged cross coverage as JSON"),
) -> None:
    """Merge the cross coverage (class x configuration) of several vector sets and print it."""
    from .verify.commands import coverage_command
    coverage_command(dirs, console, out)


@app.command()
def compare(
    op: str = typer.Argument(..., help="colmax, colargmax, elwmul, recip, exp or gemm"),
    number: Optional[str] = typer.Option(None, "--format", "-f", help="bf16, fp16, fp32 (uint16: colmax, colargmax); "
                                                                       "default bf16"),
    dtype: Optional[str] = typer.Option(None, "--dtype", hidden=True),
    shape: Optional[str] = typer.Option(None, help="RxC (colmax, colargmax, elwmul: 256x256; recip, exp: 64x64) "
                                                   "or MxNxK (gemm; 64x64x64)"),
    seed: int = typer.Option(0, min=0, help="seed of the standard normal inputs (0 or more)"),
    csv: Optional[Path] = typer.Option(None, "--csv", help="write the table, every column, here",
                                        callback=output_path),
    plot: Optional[Path] = typer.Option(None, "--plot", help="write a PNG of the error distributions here",
                                        callback=output_path),
    output: str = _OUTPUT,
) -> None:
    """Run one operation on Tensix, PTO and AME side by side, against the exact result."""
    from .compare.cli import compare_command
    dtype = _formats([number] if number else [], [dtype] if dtype else [], "tilesim compare", "bf16")[0]
    _ascii(shape, "tilesim compare", "--shape")
    compare_command(console, op, dtype=dtype, shape=shape, seed=seed, csv=csv, plot=plot, output=output)


def main() -> None:
    app(prog_name="tilesim")  # the name messages use, however Python was started


if __name__ == "__main__":  # python -m tilesim.cli
    main()
