"""The ``tilesim vectors`` and ``tilesim check`` commands (cli.py holds only their typer wrappers)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..errors import TilesimError
from . import coverage
from .check import check, mismatch_table, summary_table
from .classes import check_counts
from .junit import write_junit
from .stimulus import generator
from .vectorset import VectorSet

__all__ = ["vectors_command", "check_command", "make_vectors", "OPTION_FLAGS"]

#: Python option name -> its command-line flag (for messages).
OPTION_FLAGS = {
    "rounding_model": "--rounding-model", "srca": "--srca", "srcb": "--srcb", "dst32": "--dst32/--dst16",
    "argmax": "--argmax/--no-argmax", "dtype": "-f/--format", "target": "--target", "ft": "-f/--format",
    "bovf": "--bovf",
    "sat": "--sat", "rnd": "--rnd", "tiling": "--tiling", "accumulation": "--accumulation", "k": "--k",
    "m": "--m", "format": "-f/--format", "rounding": "--rounding", "saturate": "--saturate",
}


def make_vectors(isa: str, op: str, *, n: int = 64, seed: int = 0, min_per_class: int = 1,
                 **options) -> VectorSet:
    """Generate a vector set (the Python form of ``tilesim vectors``); ``options`` left None are defaults.

    Raises:
        TilesimError: an unknown ISA or op (``verify.isa``, ``verify.op``), an option the ISA does not
            take (``verify.option``), or a bad option value (the ISA's own rule).
    """
    check_counts(n, min_per_class)
    gen = generator(isa)
    if op not in gen.OPS:
        raise TilesimError(f"unknown {isa} op; known: {', '.join(gen.OPS)}", instruction="tilesim vectors",
                           operand="OP", rule="verify.op", value=op)
    given = {k: v for k, v in options.items() if v is not None}
    for k, v in given.items():
        if k not in gen.OPTIONS:
            takes = ", ".join(OPTION_FLAGS.get(o, o) for o in sorted(gen.OPTIONS)) or "none"
            raise TilesimError(f"{OPTION_FLAGS.get(k, k)} does not apply to {isa} vectors (they take: {takes})",
                               instruction="tilesim vectors", operand=OPTION_FLAGS.get(k, k), rule="verify.option",
                               value=v)
    return gen.generate(op, n=n, seed=seed, min_per_class=min_per_class, **given)


def vectors_command(isa: str, op: str, out: Path | None, console: Console, **kw) -> VectorSet:
    """Generate, write ``out`` (default ``vectors-ISA-OP``), print the coverage table."""
    vs = make_vectors(isa, op, **kw)
    out = Path(out) if out is not None else Path(f"vectors-{vs.isa}-{vs.op}")
    if out.exists() and not out.is_dir():
        raise TilesimError("the output exists and is not a directory", instruction="tilesim vectors",
                           operand="-o", rule="verify.out", value=str(out))
    cov = vs.write(out)
    console.print(coverage.table(cov))
    for note in vs.notes:
        console.print(f"note: {note}")
    console.print(f"wrote {vs.count} vectors of {vs.isa} {vs.op} to {out}/: manifest.json, vectors.npz, "
                  f"coverage.json, {', '.join(o.file for o in vs.operands)}")
    return vs


def check_command(golden: Path, dump: Path, console: Console, *, junit: Path | None = None,
                  max_report: int = 20) -> int:
    """Compare, print the mismatch table, the summary and mismatches per class; return the exit code."""
    if max_report < 0:
        raise TilesimError("--max-report must be at least 0", instruction="tilesim check", operand="--max-report",
                           rule="verify.opt.max_report", value=max_report)
    result = check(golden, dump)
    m = result.golden.manifest
    if result.mismatches and max_report:
        console.print(mismatch_table(result, max_report))
    console.print(summary_table(result))
    per_op = ", ".join(f"{k} {v}" for k, v in result.per_operand.items())
    verdict = "[green]PASS[/]" if result.ok else "[red]FAIL[/]"
    console.print(f"{verdict} {m['isa']} {m['op']}: {result.count - len(result.failing)}/{result.count} vectors "
                  f"match; mismatching elements: {per_op}")
    if junit is not None:
        write_junit(result, junit, max_report=max(max_report, 1))
        console.print(f"wrote {junit}")
    return 0 if result.ok else 1
