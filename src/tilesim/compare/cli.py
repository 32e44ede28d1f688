"""``tilesim compare OP``: the comparison as a table (plain text when piped, or CSV / JSON), a CSV file, a plot."""

from __future__ import annotations

import csv as csvlib
import io
import json
from pathlib import Path

from ..study.view import check_output, plain
from ..tables import tables
from .core import COLUMNS, evaluate

__all__ = ["compare_command", "to_csv", "SUMMARY"]

# header, justification, cell
SUMMARY = (
    ("machine", "left", lambda r: r["machine"]),
    ("configuration", "left", lambda r: r["config"]),
    ("instructions", "left", lambda r: r["instructions"] if r["ran"] else "did not run"),
    ("out", "left", lambda r: r["out_format"]),
    ("differ", "right", lambda r: f"{r['differ']:,}/{r['elements']:,}" if r["elements"] != "" else ""),
    ("max ULP", "right", lambda r: f"{r['ulp_max']:.3g}" if r["ulp_max"] != "" else ""),
    ("rel. error", "right", lambda r: f"{r['rel_err']:.3g}" if r["rel_err"] != "" else ""),
)
ARGMAX = (
    ("idx differ", "right", lambda r: str(r["idx_differ"])),
    ("why: ties / 8-row window / NaN / other", "left",
     lambda r: " / ".join(str(r[k]) for k in ("idx_ties", "idx_window", "idx_nan", "idx_other")) if r["ran"] else ""),
)


def to_csv(records: list[dict]) -> str:
    buf = io.StringIO()
    w = csvlib.DictWriter(buf, [c for c, _ in COLUMNS], lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    return buf.getvalue()


def compare_command(console, op: str, *, dtype: str, shape: str | None, seed: int, csv: Path | None,
                    plot: Path | None, output: str = "table") -> None:
    check_output(output, "tilesim compare")
    cmp = evaluate(op, dtype=dtype, shape=shape, seed=seed)
    records = cmp.records
    if output == "csv":
        console.out(to_csv(records), end="", highlight=False)
    elif output == "json":
        console.out(json.dumps(records, indent=1), highlight=False)
    else:
        cols = [c for c in SUMMARY if op != "colargmax" or c[0] in ("machine", "configuration", "instructions")]
        cols += list(ARGMAX) if op == "colargmax" else []
        title = f"{op} {dtype} {records[0]['shape']}: against the exact result rounded once to each output format"
        rows = [[cell(r) for _, _, cell in cols] for r in records]
        if console.is_terminal:
            for t in tables(console, [(h, j) for h, j, _ in cols], rows, title):
                console.print(t)
        else:
            console.out(title + "\n" + plain([(h, j) for h, j, _ in cols], rows), highlight=False)
        for r in records:
            if not r["ran"]:
                console.print(f"{r['machine']} {r['config']} did not run: {r['note']}", highlight=False,
                              soft_wrap=True)
    if csv is not None:
        Path(csv).write_text(to_csv(records))
    if plot is not None:
        from .plot import figure
        figure(cmp).savefig(plot)
    if output == "table" and (csv or plot):
        console.print("wrote " + ", ".join(str(p) for p in (csv, plot) if p), highlight=False)
