"""The ``tilesim vectors`` and ``tilesim check`` commands (cli.py holds only their typer wrappers)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from ..errors import TilesimError
from . import coverage
from .check import check, mismatch_table, summary_line, summary_table
from .classes import check_counts
from .junit import write_junit
from .stimulus import generator
from .stimulus.dist import Dist
from .vectorset import VectorSet

__all__ = ["vectors_command", "check_command", "coverage_command", "make_vectors", "OPTION_FLAGS"]

#: Python option name -> its command-line flag (for messages).
OPTION_FLAGS = {
    "rounding_model": "--rounding-model", "srca": "--srca", "srcb": "--srcb", "dst32": "--dst32/--dst16",
    "argmax": "--argmax/--no-argmax", "dtype": "-f/--format", "target": "--target", "ft": "-f/--format",
    "bovf": "--bovf",
    "sat": "--sat", "rnd": "--rnd", "tiling": "--tiling", "accumulation": "--accumulation", "k": "--k",
    "m": "--m", "format": "-f/--format", "rounding": "--rounding", "saturate": "--saturate", "dist": "--dist",
    "range": "--range", "weight": "--weight",
}


def make_vectors(isa: str, op: str, *, n: int = 64, seed: int = 0, min_per_class: int = 1,
                 dist: str | None = None, range=None, weight=None, **options) -> VectorSet:
    """Generate a vector set (the Python form of ``tilesim vectors``); ``options`` left None are defaults.

    ``dist`` (``bits``, ``normal``, ``exp-uniform``, ``edge``), ``range`` (``"LO:HI"`` or a pair) and
    ``weight`` (``"CLASS=W,..."`` or a dict) choose how undirected elements are drawn
    (:mod:`tilesim.verify.stimulus.dist`); the ISAs but ``formats`` take them.

    Raises:
        TilesimError: an unknown ISA or op (``verify.isa``, ``verify.op``), an option the ISA does not
            take (``verify.option``), or a bad option value (the ISA's own rule).
    """
    check_counts(n, min_per_class, seed)
    gen = generator(isa)
    if op not in gen.OPS:
        from ..pto.comm import COMM_OPS
        if isa == "pto" and op in COMM_OPS:   # PTO155: global memory between blocks, no tiles to draw
            raise TilesimError(f"{op} is a communication instruction (tilesim.pto.comm): it moves global memory "
                               "between the blocks of a run and has no tile stimulus; run it in a .pto program "
                               "(tilesim run PROGRAM --blocks N)", instruction="tilesim vectors", operand="OP",
                               rule="verify.op", value=op)
        raise TilesimError(f"unknown {isa} op; known: {', '.join(gen.OPS)}", instruction="tilesim vectors",
                           operand="OP", rule="verify.op", value=op)
    given = {k: v for k, v in options.items() if v is not None}
    stim = {"dist": dist, "range": range, "weight": weight}
    if any(v is not None for v in stim.values()):
        if "dist" not in gen.OPTIONS:
            k = next(k for k, v in stim.items() if v is not None)
            raise TilesimError(f"{OPTION_FLAGS[k]} does not apply to {isa} vectors", instruction="tilesim vectors",
                               operand=OPTION_FLAGS[k], rule="verify.option", value=stim[k])
        given["dist"] = Dist.make(dist, range, weight)
    for k, v in given.items():
        if k not in gen.OPTIONS:
            takes = ", ".join(OPTION_FLAGS.get(o, o) for o in sorted(gen.OPTIONS)) or "none"
            raise TilesimError(f"{OPTION_FLAGS.get(k, k)} does not apply to {isa} vectors (they take: {takes})",
                               instruction="tilesim vectors", operand=OPTION_FLAGS.get(k, k), rule="verify.option",
                               value=v)
    vs = gen.generate(op, n=n, seed=seed, min_per_class=min_per_class, **given)
    if "dist" in gen.OPTIONS:
        vs.config["stimulus"] = given.get("dist", Dist()).config()
    return vs


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
                  max_report: int = 20, only: str | None = None, x_policy: str = "mismatch") -> int:
    """Compare, print the mismatch table, the summary and mismatches per class; return the exit code."""
    if max_report < 0:
        raise TilesimError("--max-report must be at least 0", instruction="tilesim check", operand="--max-report",
                           rule="verify.opt.max_report", value=max_report)
    result = check(golden, dump, only=only, x_policy=x_policy)
    if result.mismatches and max_report:
        console.print(mismatch_table(result, max_report))
    console.print(summary_table(result))
    console.print(summary_line(result))
    if junit is not None:
        write_junit(result, junit, max_report=max(max_report, 1))
        console.print(f"wrote {junit}")
    return 0 if result.ok else 1


def coverage_command(dirs: list[Path], console: Console, out: Path | None = None) -> dict:
    """Merge the cross coverage of vector set directories, print it as a table, write it to ``out``."""
    crosses = []
    for d in dirs:
        f = Path(d) / "coverage.json" if Path(d).is_dir() else Path(d)
        try:
            rec = json.loads(f.read_text())
            crosses.append(rec["cross"] if "cross" in rec else rec)
            if not (isinstance(crosses[-1].get("keys"), list) and isinstance(crosses[-1].get("bins"), list)):
                raise KeyError("keys")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise TilesimError(f"not a coverage record: {str(e)[:60] or type(e).__name__}", instruction="tilesim coverage",
                               operand=str(f), rule="verify.coverage.file", value=str(f)) from None
    merged = coverage.merge(crosses)
    console.print(coverage.cross_table(merged, f"cross coverage of {len(dirs)} vector set(s)"))
    if out is not None:
        Path(out).write_text(json.dumps(merged, indent=1) + "\n")
        console.print(f"wrote {out}")
    return merged
