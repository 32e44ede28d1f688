"""The study's plots, drawn with matplotlib's Agg renderer (no display, no pyplot state).

Every figure is :data:`SIZE` inches at :data:`DPI` (900 x 500 pixels).
Errors are on log axes; an error of 0 is drawn a decade below the smallest
positive error, and Inf (an accumulator that overflowed) a decade above the
largest finite one, as a triangle. Every plot draws one mark per study point
(docs/decisions.md S14): points that share a position are spread side by
side, and series that overlap differ in marker and line style as well as
colour. A series' label is its format pair (``Ft->acc``, with block scaling
and ``(what-if)`` where it applies) and the values of the other axes that vary.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from matplotlib.figure import Figure

from .metrics import ULP_EDGES
from .view import fmt_acc

__all__ = ["SIZE", "DPI", "PLOTS", "error_vs_format", "error_vs_k", "cost_per_tiling", "ulp_histogram", "pareto",
           "gemm_figure"]

_MARKERS = "osD^v<>ph*"
_STYLES = ("-", "--", ":", "-.")
_TICK_FONT = 8

SIZE = (9.0, 5.0)
DPI = 100


def _figure(panels: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    return fig, list(axes)


def _fmt(r: dict) -> str:
    return fmt_acc(r)


def _spread(n: int, width: float = 0.6) -> np.ndarray:
    """Offsets of n marks sharing one position, across ``width``."""
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(1)


def _ticks(ax, labels: list[str]) -> None:
    """x tick labels that fit: slanted, right-aligned, smaller as they grow in number."""
    size = _TICK_FONT if len(labels) <= 12 else max(5, _TICK_FONT - len(labels) // 12)
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 3 else 0, ha="right"
                  if len(labels) > 3 else "center", fontsize=size)


def _varying(records: list[dict], keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(k for k in keys if len({r[k] for r in records}) > 1)


def _label(r: dict, keys: tuple[str, ...]) -> str:
    return " ".join([_fmt(r)] + [str(r[k]) for k in keys])


def _limits(records: list[dict], cols: tuple[str, ...]) -> tuple[float, float]:
    """Where errors of 0 (bottom) and Inf (top) are drawn: a decade beyond the finite, positive errors."""
    v = np.array([r[c] for r in records for c in cols], np.float64)
    v = v[np.isfinite(v) & (v > 0)]
    return (float(v.min()) / 10, float(v.max()) * 10) if v.size else (1e-18, 1.0)


def _clip(values, limits: tuple[float, float]) -> np.ndarray:
    v = np.asarray(values, np.float64)
    return np.where(v == 0, limits[0], np.minimum(v, limits[1]))


def _log_axis(ax, label: str, limits: tuple[float, float]) -> None:
    ax.set_yscale("log")
    ax.set_ylim(limits[0] / 2, limits[1] * 2)
    ax.set_ylabel(label + " (0: bottom, Inf: top)")
    ax.grid(True, which="major", alpha=0.3)


def draw_error_by_format(ax, records: list[dict]) -> None:
    """Relative errors per format, one mark per point and reference: against float64 of the inputs (o) and of
    the quantised inputs (x); points of one format spread side by side; Inf drawn as a triangle."""
    names = list(dict.fromkeys(_fmt(r) for r in records))
    limits = _limits(records, ("err_rel", "acc_err_rel"))
    for col, marker, label, shift in (("err_rel", "o", "vs float64 of the inputs", -0.2),
                                      ("acc_err_rel", "x", "accumulation alone (vs float64 of the quantised "
                                                           "inputs)", 0.2)):
        xs, ys = [], []
        for x, name in enumerate(names):
            vals = [r[col] for r in records if _fmt(r) == name]
            xs += list(x + shift + _spread(len(vals), 0.3))
            ys += vals
        ys = np.asarray(ys, np.float64)
        ax.scatter(xs, _clip(ys, limits), marker=marker, label=label, gid=f"points:{col}")
        inf = ~np.isfinite(ys)
        if inf.any():
            ax.scatter(np.asarray(xs)[inf], np.full(inf.sum(), limits[1]), marker="^", s=60, facecolors="none",
                       edgecolors="red", label="Inf or NaN (overflow)" if col == "err_rel" else None)
    _ticks(ax, names)
    ax.set_xlim(-0.6, len(names) - 0.4)
    _log_axis(ax, "relative error", limits)
    ax.legend(fontsize="small")


def _point_labels(records: list[dict]) -> list[str]:
    """A label per record: its format pair and the values of the other axes that vary."""
    keys = _varying(records, ("layer", "m", "n", "k", "dist", "bovf", "rnd", "sat", "accumulation",
                              "tiling_requested"))
    return [" ".join([_fmt(r)] + [str(r[k]) for k in keys]) for r in records]


def draw_ulp_histogram(ax, records: list[dict], histograms: list[dict], against: str) -> None:
    """Share of result elements per ULP-error bin (even bins: powers of 2), one line per point, on a log
    axis; a marker and line style per series so that overlapping ones stay apart."""
    x = np.arange(len(ULP_EDGES))
    labels = _point_labels(records)
    for i, (label, h) in enumerate(zip(labels, histograms)):
        counts = np.asarray(h[against], np.float64)
        share = counts / max(counts.sum(), 1)
        ax.plot(x + 0.08 * (i % 5 - 2), np.where(share > 0, share, np.nan), drawstyle="steps-mid",
                linestyle=_STYLES[i % 4], marker=_MARKERS[i // 4 % len(_MARKERS)], markersize=4,
                color=f"C{i % 10}", label=label if len(labels) <= 12 else None, gid=f"points:{i}")
    ticks = [i for i in x if i % 4 == 0 or i == x[-1]]
    ax.set_xticks(ticks, ["<=0.5" if i == 0 else "Inf" if i == x[-1] else f"2^{i - 1}" for i in ticks],
                  fontsize=_TICK_FONT)
    ax.set_yscale("log")
    ax.set_xlabel("|C - R| in ULPs of C's format (bin upper edge; bins double)")
    ax.set_ylabel("share of elements (log; empty bins not drawn)")
    ax.set_title("against float64 of the " + ("inputs" if against == "fp64" else "quantised inputs"), fontsize="medium")
    if len(labels) <= 12:
        ax.legend(fontsize="x-small")


def error_vs_format(records: list[dict]) -> Figure:
    fig, (ax,) = _figure()
    draw_error_by_format(ax, records)
    ax.set_title("Error by format")
    return fig


def error_vs_k(records: list[dict]) -> Figure:
    """Relative error against K, one mark per point; a line through each series' means. A colour per format
    pair, a marker and line style per combination of RND, model, SAT, bOVF and distribution where they vary;
    series are nudged apart along K so that equal errors stay visible."""
    fig, axes = _figure(2)
    keys = _varying(records, ("rnd", "accumulation", "sat", "bovf", "dist"))  # tiling changes no value
    limits = _limits(records, ("err_rel", "acc_err_rel"))
    names = list(dict.fromkeys(_fmt(r) for r in records))
    variants = list(dict.fromkeys(tuple(r[k] for k in keys) for r in records))
    series_ids = list(dict.fromkeys((_fmt(r), tuple(r[k] for k in keys)) for r in records))
    for ax, col, title in zip(axes, ("err_rel", "acc_err_rel"), ("total", "accumulation alone")):
        for sid, (name, variant) in enumerate(series_ids):
            mine = [r for r in records if (_fmt(r), tuple(r[k] for k in keys)) == (name, variant)]
            nudge = 2.0 ** (0.04 * (sid - (len(series_ids) - 1) / 2))
            colour, v = f"C{names.index(name) % 10}", variants.index(variant)
            ax.scatter([r["k"] * nudge for r in mine], _clip([r[col] for r in mine], limits), color=colour,
                       marker=_MARKERS[(names.index(name) + v) % len(_MARKERS)], s=22, gid=f"points:{sid}",
                       label=" ".join((name,) + tuple(str(x) for x in variant)) if ax is axes[0] else None)
            by_k: dict[int, list[float]] = defaultdict(list)
            for r in mine:
                by_k[r["k"]].append(r[col])
            ks = sorted(by_k)
            ax.plot([k * nudge for k in ks], _clip([np.mean(by_k[k]) for k in ks], limits), color=colour,
                    linestyle=_STYLES[v % 4], linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("K")
        ax.set_title(title, fontsize="medium")
        _log_axis(ax, "relative error", limits)
    fig.legend(loc="outside right", fontsize="x-small", title=" ".join(("format",) + keys))
    fig.suptitle("Error against K (a mark per point; lines through the means)")
    return fig


def cost_per_tiling(records: list[dict]) -> Figure:
    """Modelled cycles, one bar per point, grouped by shape; a colour per tiling asked for, the bar's label
    the mode that ran (``fb`` where a 4x4 fell back) and the other axes that vary."""
    fig, (ax,) = _figure()
    keys = _varying(records, ("ft", "acc", "block_scale", "scale_at", "bovf", "rnd", "sat", "accumulation", "dist"))

    def group(r: dict) -> str:
        return r["layer"] or f"{r['m']}x{r['n']}x{r['k']}"

    groups = list(dict.fromkeys(group(r) for r in records))
    tilings = list(dict.fromkeys(r["tiling_requested"] for r in records))
    members = {g: [r for r in records if group(r) == g] for g in groups}
    width = 0.85 / max(len(m) for m in members.values())
    top = max(r["cycles"] for r in records)
    for gi, g in enumerate(groups):
        rs = sorted(members[g], key=lambda r: tilings.index(r["tiling_requested"]))
        xs = gi + (np.arange(len(rs)) - (len(rs) - 1) / 2) * width
        for x, r in zip(xs, rs):
            t = tilings.index(r["tiling_requested"])
            ax.bar(x, r["cycles"], width * 0.9, color=f"C{t % 10}", hatch="//" if r["fallback"] else None,
                   gid="points:cost", label=r["tiling_requested"] if (gi, t) == (0, t) and
                   r is next(q for q in rs if q["tiling_requested"] == r["tiling_requested"]) else None)
            text = r["tiling"] + (" fb" if r["fallback"] else "") + "".join(f" {r[k]}" for k in keys)
            ax.text(x, r["cycles"] * 1.15, text, rotation=90, ha="center", va="bottom",
                    fontsize=6 if len(records) > 12 else 7)
    _ticks(ax, groups)
    ax.set_yscale("log")
    ax.set_ylim(top=top * 300)  # room for the bar labels below the title
    ax.set_ylabel(f"modelled cycles at {records[0]['macs_per_cycle']:,} MACs/cycle")
    ax.set_title("Cost per tiling: a bar per point (labels: the mode that ran" + (", " + ", ".join(keys) if keys
                                                                                  else "") + ")", fontsize="medium")
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, labels, title="tiling asked for", fontsize="small", loc="upper right")
    return fig


def pareto(records: list[dict]) -> Figure:
    """Relative error against the schedule's cycles (memory included), one mark per point, a colour per shape;
    each shape's Pareto front (the ``pareto`` column) drawn as a step line and its points labelled."""
    fig, (ax,) = _figure()
    limits = _limits(records, ("err_rel",))
    shapes = list(dict.fromkeys((r["layer"] or f"{r['m']}x{r['n']}x{r['k']}", r["dist"]) for r in records))
    names = list(dict.fromkeys(_fmt(r) for r in records))
    for si, sh in enumerate(shapes):
        mine = [r for r in records if (r["layer"] or f"{r['m']}x{r['n']}x{r['k']}", r["dist"]) == sh]
        errs = np.array([r["err_rel"] for r in mine], np.float64)
        for name in names:
            pick = [i for i, r in enumerate(mine) if _fmt(r) == name]
            if pick:
                ax.scatter([mine[i]["sched_cycles"] for i in pick], _clip(errs[pick], limits), color=f"C{si % 10}",
                           marker=_MARKERS[names.index(name) % len(_MARKERS)], s=30, gid="points:pareto",
                           facecolors="none" if not all(mine[i]["pareto"] for i in pick) else None,
                           label=name if si == 0 else None)
        front = sorted((r for r in mine if r["pareto"]), key=lambda r: r["sched_cycles"])
        if front:
            ax.step([r["sched_cycles"] for r in front], _clip([r["err_rel"] for r in front], limits), where="post",
                    color=f"C{si % 10}", linewidth=1, label=f"front: {' '.join(sh)}")
            for r in {(r["sched_cycles"], r["err_rel"], _fmt(r)): r for r in front}.values():
                ax.annotate(_fmt(r), (r["sched_cycles"], _clip([r["err_rel"]], limits)[0]), fontsize=6,
                            xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("schedule cycles (compute and memory, double-buffered)")
    _log_axis(ax, "relative error vs float64", limits)
    ax.set_title("Error against cost: one mark per point, each shape's Pareto front")
    ax.legend(fontsize="x-small", loc="best")
    return fig


def ulp_histogram(records: list[dict], histograms: list[dict]) -> Figure:
    fig, axes = _figure(2)
    for ax, against in zip(axes, ("fp64", "quantised")):
        draw_ulp_histogram(ax, records, histograms, against)
    fig.suptitle("ULP errors of the results")
    return fig


def gemm_figure(records: list[dict], histograms: list[dict], title: str) -> Figure:
    """``tilesim gemm --plot``: the errors by format, and the ULP errors of accumulation alone."""
    fig, axes = _figure(2)
    draw_error_by_format(axes[0], records)
    draw_ulp_histogram(axes[1], records, histograms, "quantised")
    fig.suptitle(title)
    return fig


# file name -> (title, figure maker taking (records, histograms))
PLOTS = {
    "error_vs_format.png": ("Error by format", lambda r, h: error_vs_format(r)),
    "error_vs_k.png": ("Error against K", lambda r, h: error_vs_k(r)),
    "cost_per_tiling.png": ("Cost per tiling", lambda r, h: cost_per_tiling(r)),
    "ulp_histogram.png": ("ULP-error histogram", ulp_histogram),
    "pareto.png": ("Error against cost", lambda r, h: pareto(r)),
}
