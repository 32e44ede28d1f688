"""``tilesim compare --plot``: the error distributions of every configuration, side by side.

One horizontal bar per configuration, split by the share of its elements in
each ULP-error band (against the exact result rounded once to its output
format); for ``colargmax``, by the reasons its indices differ. The bands are
even on a log scale (powers of 4, from exact to over 2**24), so errors of
3.6e3, 1.3e5 and 9.3e5 ULP fall in different bands. A configuration that did
not run is a grey hatched bar labelled so, not a gap. Drawn on matplotlib's Agg
canvas (no pyplot state), 900 pixels wide.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .core import Comparison

__all__ = ["BANDS", "figure"]

#: (label, upper edge in ULPs): each element falls in the first band whose edge it does not exceed
BANDS: tuple[tuple[str, float], ...] = (("exact", 0.0), ("<= 1 ULP", 1.0),
                                        *((f"<= 2^{e}", 2.0**e) for e in range(2, 25, 2)), ("> 2^24 or Inf", np.inf))
_REASONS = (("idx_ties", "ties"), ("idx_window", "8-row window"), ("idx_nan", "NaN rules"), ("idx_other", "other"))


def figure(cmp: Comparison) -> Figure:
    """One bar per record of ``cmp``: bands of its errors, or hatched grey where it did not run."""
    rows = list(zip(cmp.records, cmp.ulps))
    ran = np.array([bool(r["ran"]) for r, _ in rows])
    labels = [f"{r['machine']}: {r['config']} -> {r['out_format']}" if r["ran"] else
              f"{r['machine']}: {r['config']} (did not run)" for r, _ in rows]
    fig = Figure(figsize=(9.0, 1.6 + 0.38 * len(rows)), dpi=100, layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(rows))[::-1]
    left = np.zeros(len(rows))
    if cmp.op == "colargmax":
        for i, (key, name) in enumerate(_REASONS):
            counts = np.array([r[key] if r["ran"] else 0 for r, _ in rows], float)
            ax.barh(y, counts, left=left, label=name, color=f"C{i + 1}")
            left += counts
        ax.set_xlabel(f"indices that differ from numpy's (of {rows[0][0]['shape'].split('x')[1]} columns)")
        width = max(1.0, float(left.max()))
    else:
        from matplotlib import colormaps
        colours = colormaps["viridis_r"](np.linspace(0, 1, len(BANDS)))
        lower = -np.inf
        for i, (name, edge) in enumerate(BANDS):
            share = np.array([np.mean((u > lower) & (u <= edge)) if u is not None else 0.0 for _, u in rows])
            ax.barh(y, share, left=left, label=name, color=colours[i])
            left += share
            lower = edge
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of elements by ULP error, against the exact result rounded once")
        width = 1.0
    if (~ran).any():
        ax.barh(y[~ran], width, color="0.85", hatch="//", edgecolor="0.5", label="did not run",
                gid="did-not-run")
    ax.set_yticks(y, labels, fontsize="small")
    r0 = rows[0][0]
    ax.set_title(f"{cmp.op} {r0['dtype']} {r0['shape']}")
    fig.legend(loc="outside lower center", ncols=8, fontsize="small")
    return fig
