"""``tilesim run kernel.pto``: run a .pto file and show its outputs (the CLI's RUNNERS entry)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from rich.table import Table

from .ops.convert_cpu import UndefinedCastWarning
from .text import Interpreter, Stmt
from .text.interp import InputSizeWarning, parse_file
from .tile import Tile

__all__ = ["run_file", "outputs_table"]


def _short(a: np.ndarray, n: int = 8) -> str:
    flat = np.asarray(a).ravel()
    body = ", ".join(f"{float(v):.6g}" if flat.dtype.kind == "f" or flat.dtype.name == "bfloat16" else str(v)
                     for v in flat[:n])
    return "[" + body + (", ..." if flat.size > n else "") + "]"


def outputs_table(results: dict[str, np.ndarray], title: str) -> Table:
    t = Table(title=title)
    for col in ("output", "dtype", "shape", "values"):
        t.add_column(col, overflow="fold")
    for name, arr in results.items():
        t.add_row(name, str(arr.dtype), "x".join(map(str, arr.shape)), _short(arr))
    return t


def run_file(path: Path, inputs: dict[str, np.ndarray], console, *, trace: bool = False,
             target: str | None = None, blocks: int = 1, entry: str | None = None,
             strict: bool = False) -> dict[str, np.ndarray]:
    """Run ``path`` on ``target`` (default: the module's ``pto.target_arch``, else a5), ``blocks`` times;
    print a table of the outputs and any sync/pipe findings, return the outputs. Elements converted by a
    C++-undefined cast are counted in a warning line on stderr; ``strict`` makes the first one an error."""
    # ``tilesim run``'s arrays were read from files for this run: global memory is them, not copies of them
    it = Interpreter(parse_file(path), inputs, target, blocks=blocks, strict=strict, copy_inputs=False)
    prof = it.prof

    def show(st: Stmt, results: list) -> None:
        made = ", ".join(r.describe() for r in results if isinstance(r, Tile))
        console.print(f"[dim]{st.line:4d}[/] {st.op}" + (f" -> {made}" if made else ""))

    it.trace = show if trace else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCastWarning)  # said once, below, on stderr
        warnings.simplefilter("ignore", InputSizeWarning)
        results = it.run(entry)
    for line in it.undefined_summary() + it.input_summary():
        print(f"warning: {line}", file=sys.stderr)
    console.print(outputs_table(results, f"{Path(path).name} on {prof.name}"
                                + (f", {blocks} blocks" if blocks > 1 else "")))
    for issue in it.issues:
        console.print(f"[yellow]note:[/] {issue}")
    return results
