"""A study's files: ``results.csv``, ``ulp_histogram.csv``, the PNG plots and ``report.md``.

``results.csv`` has one row per point and the columns of
:data:`.sweep.COLUMNS`; floats are written in Python's shortest round-trip
form, flags as 0/1. ``ulp_histogram.csv`` has, per point and reference
(``fp64``: the original inputs; ``quantised``), the count of elements in
each ULP-error bin (``bin_upper``: the bin's upper edge).
"""

from __future__ import annotations

import csv
from pathlib import Path

from . import plots
from .metrics import ULP_EDGES
from .sweep import COLUMNS, Study

__all__ = ["write", "write_csv", "markdown_table"]

# the report's table: (column, header, format)
_SUMMARY = (("layer", "layer", "{}"), ("m", "M", "{}"), ("n", "N", "{}"), ("k", "K", "{}"), ("dist", "dist", "{}"),
            ("ft", "Ft", "{}"), ("acc", "acc", "{}"), ("rnd", "RND", "{}"), ("sat", "SAT", "{}"),
            ("accumulation", "model", "{}"), ("tiling", "tiling", "{}"), ("err_rel", "err vs fp64", "{:.3g}"),
            ("acc_err_rel", "err accum.", "{:.3g}"), ("acc_ulp_max", "max ULP accum.", "{:.3g}"),
            ("useful_share", "useful", "{:.0%}"), ("cycles", "cycles", "{:,}"), ("wrapped", "wrapped", "{:,}"))
_MAX_ROWS = 200  # report.md shows at most this many points; results.csv has them all


def write_csv(records: list[dict], path: Path) -> None:
    """The records as CSV with the documented columns (every record has exactly these keys)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, [name for name, _ in COLUMNS], extrasaction="raise")
        w.writeheader()
        w.writerows(records)


def markdown_table(records: list[dict]) -> str:
    shown = [c for c in _SUMMARY if c[0] != "layer" or any(r["layer"] for r in records)]
    lines = ["| " + " | ".join(h for _, h, _ in shown) + " |", "|" + "---|" * len(shown)]
    for r in records[:_MAX_ROWS]:
        lines.append("| " + " | ".join(f.format(r[c]) for c, _, f in shown) + " |")
    if len(records) > _MAX_ROWS:
        lines.append(f"\n({len(records) - _MAX_ROWS} more points in results.csv)")
    return "\n".join(lines) + "\n"


def _dimensions(study: Study) -> list[str]:
    s = study.sweep
    models = sorted({x.model for x in s.shapes if x.model})
    dims = [("shapes", f"{len(s.shapes)}" + (f" (layers of {', '.join(models)})" if models else "")),
            ("formats", ", ".join(s.fts)), ("bOVF", ", ".join(map(str, s.bovfs))), ("RND", ", ".join(s.rnds)),
            ("SAT", ", ".join(map(str, s.sats))),
            ("accumulation", ", ".join(s.accumulations)), ("tiling", ", ".join(s.tilings)),
            ("inputs", ", ".join(s.dists)), ("seed", s.seed), ("MACs/cycle", f"{s.macs_per_cycle:,}")]
    return [f"- {name}: {value}" for name, value in dims]


def write(study: Study, out: Path) -> list[Path]:
    """Write the study into folder ``out`` (created if needed); returns the files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.csv", out / "ulp_histogram.csv"]
    write_csv(study.records, written[0])
    with open(written[1], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "against", "bin_upper", "count"])
        for r, h in zip(study.records, study.histograms):
            for against, counts in h.items():
                w.writerows((r["point"], against, edge, n) for edge, n in zip(ULP_EDGES, counts))
    for name, (_, make) in plots.PLOTS.items():
        make(study.records, study.histograms).savefig(out / name)
        written.append(out / name)
    figures = "\n".join(f"### {title}\n\n![{title}]({name})\n" for name, (title, _) in plots.PLOTS.items())
    text = ("# tilesim study\n\n" + "\n".join(_dimensions(study)) +
            f"\n\n{len(study.records)} points. Every column of every point: [results.csv](results.csv) "
            "(columns in docs/studies.md); ULP-error counts: [ulp_histogram.csv](ulp_histogram.csv).\n\n"
            "## Results\n\n" + markdown_table(study.records) + "\n## Plots\n\n" + figures)
    (out / "report.md").write_text(text)
    written.append(out / "report.md")
    return written
