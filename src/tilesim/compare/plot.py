"""``tilesim compare --plot``: the error distributions of every configuration, side by side.

One horizontal bar per configuration that ran, split by the share of its
elements in each ULP-error band (against the exact result rounded once to
its output format); for ``colargmax``, by the reasons its indices differ.
Drawn on matplotlib's Agg canvas (no pyplot state), 900 pixels wide.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .core import Comparison

__all__ = ["BANDS", "figure"]

#: (label, upper edge in ULPs): each element falls in the first band whose edge it does not exceed
BANDS: tuple[tuple[str, float], ...] = (("exact", 0.0), ("<= 1 ULP", 1.0), ("<= 4", 4.0), ("<= 64", 64.0),
                                        ("<= 2^20", 2.0**20), ("> 2^20 or Inf", np.inf))
_REASONS = (("idx_ties", "ties"), ("idx_window", "8-row window"), ("idx_nan", "NaN rules"), ("idx_other", "other"))


def figure(cmp: Comparison) -> Figure:
    rows = [(r, u) for r, u in zip(cmp.records, cmp.ulps) if r["ran"]]
    labels = [f"{r['machine']}: {r['config']} -> {r['out_format']}" for r, _ in rows]
    fig = Figure(figsize=(9.0, 1.6 + 0.38 * len(rows)), dpi=100, layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(rows))[::-1]
    left = np.zeros(len(rows))
    if cmp.op == "colargmax":
        for i, (key, name) in enumerate(_REASONS):
            counts = np.array([r[key] for r, _ in rows], float)
            ax.barh(y, counts, left=left, label=name, color=f"C{i + 1}")
            left += counts
        ax.set_xlabel(f"indices that differ from numpy's (of {rows[0][0]['shape'].split('x')[1]} columns)")
    else:
        lower = -np.inf
        for i, (name, edge) in enumerate(BANDS):
            share = np.array([np.mean((u > lower) & (u <= edge)) for _, u in rows])
            ax.barh(y, share, left=left, label=name, color="C2" if i == 0 else f"C{(i + 2) % 10}")
            left += share
            lower = edge
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of elements by ULP error, against the exact result rounded once")
    ax.set_yticks(y, labels, fontsize="small")
    r0 = rows[0][0]
    ax.set_title(f"{cmp.op} {r0['dtype']} {r0['shape']}")
    fig.legend(loc="outside lower center", ncols=6, fontsize="small")
    return fig
