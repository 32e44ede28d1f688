"""``tilesim run kernel.pto``: run a .pto file and show its outputs (the CLI's RUNNERS entry)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rich.table import Table

from .targets import DEFAULT_TARGET, get_target
from .text import Stmt, run_file as _run_file
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
             target: str | None = None) -> dict[str, np.ndarray]:
    """Run ``path`` on ``target`` (default a5), print a table of the outputs, return them."""
    prof = get_target(target or DEFAULT_TARGET)

    def show(st: Stmt, results: list) -> None:
        made = ", ".join(r.describe() for r in results if isinstance(r, Tile))
        console.print(f"[dim]{st.line:4d}[/] {st.op}" + (f" -> {made}" if made else ""))

    results = _run_file(path, inputs, prof, trace=show if trace else None)
    console.print(outputs_table(results, f"{Path(path).name} on {prof.name}"))
    return results
