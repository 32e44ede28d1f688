"""Records on the console: a rich table on a terminal, aligned plain text when piped, or CSV / JSON.

JSON is strict: non-finite floats are written as the strings ``"inf"``,
``"-inf"`` and ``"nan"``.

>>> print(plain([("Ft", "left"), ("err", "right")], [["bf16", "0.002"], ["fp8_e4m3", "0.04"]]))
Ft        err
--------  -----
bf16      0.002
fp8_e4m3   0.04
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Callable

from ..errors import TilesimError
from ..tables import tables
from .sweep import COLUMNS

__all__ = ["OUTPUTS", "Column", "SUMMARY", "check_output", "columns_for", "plain", "show", "to_csv", "to_json"]

OUTPUTS: tuple[str, ...] = ("table", "csv", "json")

Column = tuple[str, str, Callable[[dict], str]]  # header, justification, cell text


def check_output(output: str, command: str) -> None:
    """Raise unless ``output`` (the ``--output-format`` option) is one of :data:`OUTPUTS` (rule ``study.option``)."""
    if output not in OUTPUTS:
        raise TilesimError(f"unknown output format {output!r}; valid: " + ", ".join(OUTPUTS), instruction=command,
                           operand="--output-format", rule="study.option", value=output)


def _flags(r: dict) -> str:
    return ",".join(f for f in ("inexact", "sat_hit", "guard_fallback") if r[f]) or "-"


def fmt_acc(r: dict) -> str:
    """``Ft->acc``, with the block scaling, and ``(what-if)`` where the accumulator is outside the proposal."""
    scaled = f" x{r['block_scale']}/{r['block_size']} {r['scale_at']}" if r.get("block_scale", "none") != "none" else ""
    return f"{r['ft']}->{r['acc']}{scaled}" + ("" if r.get("in_proposal", 1) else " (what-if)")


def _tiling(r: dict) -> str:
    why = r.get("fallback", "")
    return r["tiling"] + (f" (fb: {why.split(':')[0]})" if why else "")


# the table of `tilesim gemm`, `tilesim study` and report.md; "shape" and the dimensions only where they vary
SUMMARY: tuple[Column, ...] = (
    ("shape", "left", lambda r: (r["layer"] + " " if r["layer"] else "") + f"{r['m']}x{r['n']}x{r['k']}"),
    ("Ft -> acc", "left", fmt_acc),
    ("dist", "left", lambda r: r["dist"]),
    ("bOVF", "right", lambda r: str(r["bovf"])),
    ("RND", "left", lambda r: r["rnd"]),
    ("SAT", "right", lambda r: str(r["sat"])),
    ("model", "left", lambda r: r["accumulation"]),
    ("asked", "left", lambda r: r["tiling_requested"]),
    ("tiling", "left", _tiling),
    ("MMACC.T", "right", lambda r: f"{r['mmacc']:,}"),
    ("MACs", "right", lambda r: f"{r['macs']:,}"),
    ("useful", "right", lambda r: f"{r['useful_share']:.0%}"),
    ("tiles ld/st", "right", lambda r: f"{r['tiles_loaded']:,}/{r['tiles_stored']:,}"),
    ("cycles", "right", lambda r: f"{r['cycles']:,}"),
    ("sched. cycles", "right", lambda r: f"{r['sched_cycles']:,} {r['bound'][:3]}"),
    ("err vs fp64", "right", lambda r: f"{r['err_rel']:.3g}"),
    ("err accum.", "right", lambda r: f"{r['acc_err_rel']:.3g}"),
    ("worst row accum.", "right", lambda r: f"{r['acc_err_row']:.3g}"),
    ("p99 ULP accum.", "right", lambda r: f"{r['acc_ulp_p99']:.3g}"),
    ("clip a/b", "right", lambda r: f"{r['clipped_a']:.2%}/{r['clipped_b']:.2%}"),
    ("flags", "left", _flags),
    ("wrapped", "right", lambda r: f"{r['wrapped']:,}"),
)
_DIMENSIONS = {"shape": ("layer", "m", "n", "k"), "dist": ("dist",), "bOVF": ("bovf",), "RND": ("rnd",),
               "SAT": ("sat",), "model": ("accumulation",), "asked": ("tiling_requested",)}


def columns_for(records: list[dict]) -> list[Column]:
    """:data:`SUMMARY` without the dimensions that have one value in ``records``."""
    def varies(keys):
        return len({tuple(r[k] for k in keys) for r in records}) > 1
    return [c for c in SUMMARY if c[0] not in _DIMENSIONS or varies(_DIMENSIONS[c[0]])]


def plain(columns: list[tuple[str, str]], rows: list[list[str]]) -> str:
    """An aligned text table: a header, a rule, one line per row (no colour, no box characters)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, (h, _) in enumerate(columns)]

    def line(cells):
        out = [c.ljust(w) if j == "left" else c.rjust(w) for c, w, (_, j) in zip(cells, widths, columns)]
        return "  ".join(out).rstrip()

    return "\n".join([line([h for h, _ in columns]), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def to_json(records: list[dict]) -> str:
    return json.dumps([{k: _finite(v) for k, v in r.items()} for r in records], indent=1)


def to_csv(records: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, [name for name, _ in COLUMNS], extrasaction="raise", lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    return buf.getvalue()


def show(records: list[dict], console, output: str = "table", title: str = "") -> None:
    """Print ``records``: ``table`` (rich on a terminal, every cell in full: :func:`tilesim.tables.tables`;
    :func:`plain` when piped), ``csv`` or ``json``."""
    if output == "csv":
        console.out(to_csv(records), end="", highlight=False)
        return
    if output == "json":
        console.out(to_json(records), highlight=False)
        return
    shown = columns_for(records)
    rows = [[cell(r) for _, _, cell in shown] for r in records]
    if not console.is_terminal:
        console.out((title + "\n" if title else "") + plain([(h, j) for h, j, _ in shown], rows), highlight=False)
        return
    for t in tables(console, [(h, j) for h, j, _ in shown], rows, title):
        console.print(t)
