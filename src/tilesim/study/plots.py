"""The study's plots, drawn with matplotlib's Agg renderer (no display, no pyplot state).

Every figure is :data:`SIZE` inches at :data:`DPI` (900 x 500 pixels).
Errors are on log axes; an error of 0 is drawn a decade below the smallest
positive error, and Inf (an accumulator that overflowed) a decade above the
largest finite one.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from matplotlib.figure import Figure

from .metrics import ULP_EDGES

__all__ = ["SIZE", "DPI", "PLOTS", "error_vs_format", "error_vs_k", "cost_per_tiling", "ulp_histogram",
           "gemm_figure"]

SIZE = (9.0, 5.0)
DPI = 100


def _figure(panels: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
    axes = fig.subplots(1, panels, squeeze=False)[0]
    return fig, list(axes)


def _fmt(r: dict) -> str:
    return f"{r['ft']}->{r['acc']}"


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
    ax.set_ylabel(label + " (0 at the bottom, Inf at the top)")
    ax.grid(True, which="major", alpha=0.3)


def draw_error_by_format(ax, records: list[dict]) -> None:
    """Relative errors per format: against float64 of the inputs (o) and of the quantised inputs (x)."""
    names = list(dict.fromkeys(_fmt(r) for r in records))
    limits = _limits(records, ("err_rel", "acc_err_rel"))
    for col, marker, label in (("err_rel", "o", "vs float64 of the inputs"),
                               ("acc_err_rel", "x", "accumulation alone (vs float64 of the quantised inputs)")):
        xs, ys = [], []
        for x, name in enumerate(names):
            vals = [r[col] for r in records if _fmt(r) == name]
            xs += list(x + np.linspace(-0.15, 0.15, len(vals)) if len(vals) > 1 else [x])
            ys += vals
        ax.scatter(xs, _clip(ys, limits), marker=marker, label=label)
    ax.set_xticks(range(len(names)), names, rotation=20)
    ax.set_xlim(-0.5, len(names) - 0.5)
    _log_axis(ax, "relative Frobenius error", limits)
    ax.legend(fontsize="small")


def draw_ulp_histogram(ax, records: list[dict], histograms: list[dict], against: str) -> None:
    """Share of result elements per ULP-error bin, one line per format (all its points together)."""
    totals: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(len(ULP_EDGES)))
    for r, h in zip(records, histograms):
        totals[_fmt(r)] += np.asarray(h[against], np.float64)
    x = np.arange(len(ULP_EDGES))
    for name, counts in totals.items():
        ax.step(x, counts / max(counts.sum(), 1), where="mid", label=name)
    ticks = [i for i in x if i % 4 == 0 or i == x[-1]]
    ax.set_xticks(ticks, ["<=0.5" if i == 0 else "Inf" if i == x[-1] else f"2^{i - 1}" for i in ticks])
    ax.set_xlabel("|C - R| in ULPs of the accumulator (bin upper edge)")
    ax.set_ylabel("share of elements")
    ax.set_title("against float64 of the " + ("inputs" if against == "fp64" else "quantised inputs"), fontsize="medium")
    ax.legend(fontsize="small")


def error_vs_format(records: list[dict]) -> Figure:
    fig, (ax,) = _figure()
    draw_error_by_format(ax, records)
    ax.set_title("Error by format")
    return fig


def error_vs_k(records: list[dict]) -> Figure:
    """Mean relative error against K: a colour per format, a line style per RND, model, SAT, bOVF and
    distribution where they vary."""
    fig, axes = _figure(2)
    keys = _varying(records, ("rnd", "accumulation", "sat", "bovf", "dist"))  # tiling changes no value
    limits = _limits(records, ("err_rel", "acc_err_rel"))
    names = list(dict.fromkeys(_fmt(r) for r in records))
    variants = list(dict.fromkeys(tuple(r[k] for k in keys) for r in records))
    for ax, col, title in zip(axes, ("err_rel", "acc_err_rel"), ("total", "accumulation alone")):
        series: dict[tuple, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in records:
            series[_fmt(r), tuple(r[k] for k in keys)][r["k"]].append(r[col])
        for (name, variant), by_k in series.items():
            ks, v = sorted(by_k), variants.index(variant)
            ax.plot(ks, _clip([np.mean(by_k[k]) for k in ks], limits), color=f"C{names.index(name) % 10}",
                    linestyle=("-", "--", ":", "-.")[v % 4], marker="osv^D*"[v // 4 % 6],
                    label=" ".join((name,) + tuple(str(x) for x in variant)) if ax is axes[0] else None)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("K")
        ax.set_title(title, fontsize="medium")
        _log_axis(ax, "mean relative error", limits)
    fig.legend(loc="outside right", fontsize="small", title=" ".join(("format",) + keys))
    fig.suptitle("Error against K")
    return fig


def cost_per_tiling(records: list[dict]) -> Figure:
    """Modelled cycles per shape (and format), one bar per tiling asked for, labelled with the mode that ran."""
    fig, (ax,) = _figure()
    keys = _varying(records, ("ft",))

    def group(r: dict) -> str:
        return " ".join([r["layer"] or f"{r['m']}x{r['n']}x{r['k']}"] + [str(r[k]) for k in keys])

    groups = list(dict.fromkeys(group(r) for r in records))
    tilings = list(dict.fromkeys(r["tiling_requested"] for r in records))
    first = {(group(r), r["tiling_requested"]): r for r in reversed(records)}
    width = 0.8 / len(tilings)
    for t_i, t in enumerate(tilings):
        hits = [first.get((g, t)) for g in groups]
        xs = np.arange(len(groups)) + (t_i - (len(tilings) - 1) / 2) * width
        bars = ax.bar(xs, [r["cycles"] if r else 0 for r in hits], width, label=t)
        ax.bar_label(bars, [f"{r['tiling']} {r['useful_share']:.0%}" if r else "" for r in hits], fontsize="x-small",
                     rotation=90, padding=2)
    ax.set_xticks(range(len(groups)), groups, rotation=30)
    ax.set_yscale("log")
    ax.set_ylabel(f"modelled cycles at {records[0]['macs_per_cycle']:,} MACs/cycle")
    ax.set_title("Cost per tiling (bar labels: the mode that ran, useful share of MACs)")
    ax.legend(title="tiling asked for", fontsize="small")
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
}
