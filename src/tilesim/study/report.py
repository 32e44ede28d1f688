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

from .metrics import ULP_EDGES
from .sweep import Study
from .view import columns_for, to_csv

__all__ = ["write", "markdown_table"]

_MAX_ROWS = 200  # report.md shows at most this many points; results.csv has them all


def markdown_table(records: list[dict]) -> str:
    """The console's summary columns (:func:`.view.columns_for`) as a Markdown table."""
    shown = columns_for(records)
    lines = ["| " + " | ".join(h for h, _, _ in shown) + " |",
             "|" + "".join("---:|" if j == "right" else "---|" for _, j, _ in shown)]
    lines += ["| " + " | ".join(cell(r) for _, _, cell in shown) + " |" for r in records[:_MAX_ROWS]]
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
            ("accumulators", ", ".join(s.accs) + " (a what-if outside the proposal where not its own)"),
            ("block scales", ", ".join(s.block_scales) + (f"; blocks of {', '.join(map(str, s.block_sizes))}, scales "
                                                           f"{', '.join(s.scale_ats)} the MAC"
                                                           if s.block_scales != ("none",) else "")),
            ("inputs", ", ".join(s.dists)), ("seed", s.seed), ("MACs/cycle", f"{s.macs_per_cycle:,}"),
            ("bandwidth", f"{s.bandwidth:,} bytes per cycle")]
    return [f"- {name}: {value}" for name, value in dims]


def write(study: Study, out: Path) -> list[Path]:
    """Write the study into folder ``out`` (created if needed); returns the files written."""
    from . import plots  # matplotlib: imported only when plots are drawn

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "results.csv", out / "ulp_histogram.csv"]
    written[0].write_text(to_csv(study.records))
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
