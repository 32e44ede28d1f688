"""``tilesim run --trace-values`` and ``tilesim diff``: the commands over value traces (the ISAs plug in
through :data:`tilesim.inspect.tracers.TRACERS`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from ..errors import TilesimError
from .compare import Difference, differences
from .steps import Filter, Step, save
from .tracers import load_spec, trace, tracer

__all__ = ["run_traced", "diff_command", "diff", "SHOWN"]

#: steps ``tilesim run --trace-values`` prints (the file holds them all)
SHOWN = 100

# ------------------------------------------------------------------------------------ run --trace-values
def run_traced(program: Path, inputs: dict, console, options: dict, keep: Filter, output: Path | None) -> None:
    """``tilesim run PROGRAM --trace-values``: print the steps kept, save them to ``output`` (.npz)."""
    _, steps = trace(program, inputs, keep, **options)
    n = len(steps)
    console.print(steps_table(steps[:SHOWN], f"{Path(program).name}: {n} step{'' if n == 1 else 's'} traced"))
    if n > SHOWN:
        console.print(f"... {n - SHOWN} more steps: save them all with -o, or keep fewer with --lines, --ops "
                      "and --iterations")
    if output is not None:
        save(output, steps, {"program": str(program), "options": {k: str(v) for k, v in options.items()}})
        console.print(f"saved the trace ({n} step{'' if n == 1 else 's'}) to {output}")


def steps_table(steps: list[Step], title: str) -> Table:
    t = Table(title=title)
    for col in ("step", "line", "iteration", "op", "wrote"):
        t.add_column(col, overflow="fold")
    for s in steps:
        wrote = ", ".join(f"{w.name} {'x'.join(map(str, w.bits.shape))}" + (f" {w.fmt}" if w.fmt else "")
                          for w in s.writes)
        t.add_row(str(s.index), str(s.line), ",".join(map(str, s.iters)) or "-", escape(s.op), escape(wrote) or "-")
    return t


# ---------------------------------------------------------------------------------------------- diff
def _against(values: list[str], main: str) -> dict:
    """The second run's options: a bare value sets ``main``; ``OPTION=VALUE`` (dashes or underscores) any."""
    out: dict = {}
    for v in values:
        key, eq, val = v.partition("=")
        if not eq:
            key, val = main, v
        key = key.strip().lstrip("-").replace("-", "_")
        out[key] = _typed(key, val.strip())
    return out


def _typed(key: str, val: str):
    if key in ("strict", "quantize"):
        if val not in ("0", "1"):
            raise TilesimError(f"{key} takes 0 or 1", instruction="tilesim diff", operand="--against",
                               rule="cli.option", value=val)
        return val == "1"
    if key in ("blocks", "macs_per_cycle"):
        try:
            return int(val)
        except ValueError:
            raise TilesimError(f"{key} takes an integer", instruction="tilesim diff", operand="--against",
                               rule="cli.option", value=val) from None
    return val


def diff_command(program: Path, inputs: dict, console, options: dict, against: list[str], *, all: bool = False,
                 limit: int = 5, accepted: frozenset | None = None) -> int:
    """Run ``program`` with ``options`` and again with ``against`` applied; print where they part.

    Returns the exit status: 0 when no statement differs, 1 when one does.
    """
    isa, _, explain_spec, main, default = tracer(program, "tilesim diff")
    if not against:
        raise TilesimError(f"say what the second run changes: --against VALUE (its --{main.replace('_', '-')}) "
                           "or --against OPTION=VALUE", instruction="tilesim diff", operand="--against",
                           rule="cli.option", value=None)
    options = {main: load_spec(default)(program), **options}
    other = {**options, **_against(against, main)}
    for k, v in other.items():
        if accepted is not None and k not in accepted:
            raise TilesimError(f"--{k.replace('_', '-')} does not apply to {isa} programs; they take "
                               + ", ".join("--" + a.replace("_", "-") for a in sorted(accepted)),
                               instruction="tilesim diff", operand=k, rule="cli.option", value=v)
    names = (_label(options, other), _label(other, options))
    a, b = (_run(program, inputs, opts, name, console) for opts, name in ((options, names[0]), (other, names[1])))
    found = differences(a, b, all=all, limit=limit)
    explain = load_spec(explain_spec)
    lines = _source_lines(program)
    if not found:
        console.print(f"{program.name}: no statement differs between the two runs ({len(a)} steps compared)")
        return 0
    for k, d in enumerate(found):
        show_difference(console, d, names, lines, explain(d.step.op, options, other, d.step.dtypes) if d.kind == "values" else [])
        if k:
            console.print("  (an earlier statement differs: this one may only pass that difference on)")
    n = len(found)
    console.print(f"{n} statement{'s differ' if n != 1 else ' differs'}" + (
        "" if all else " (the first shown; --all lists every one)"))
    return 1


def _run(program: Path, inputs: dict, options: dict, name: str, console) -> list[Step]:
    """One run's steps; an error says which run it stopped (then the command exits 2)."""
    try:
        return trace(program, inputs, None, **options).steps
    except TilesimError:
        console.print(f"the run with {escape(name)} stopped with an error:")
        raise


def _label(mine: dict, theirs: dict) -> str:
    """The options that tell a run from the other (``target=cpu``), or ``defaults``."""
    keys = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    return ", ".join(f"{k}={mine.get(k) if mine.get(k) is not None else 'default'}" for k in keys) or "defaults"


def _source_lines(program: Path) -> list[str]:
    try:
        return program.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def show_difference(console, d: Difference, names: tuple[str, str], lines: list[str], reasons: list[str]) -> None:
    """Print one difference: the statement and its source line, the first differing elements, the rules."""
    s = d.step
    it = f", loop iteration {','.join(map(str, s.iters))}" if s.iters else ""
    blk = f", block {s.block}" if s.block else ""
    console.print(f"[bold]{escape(s.where)}[/]: {escape(s.op)} (step {s.index}{it}{blk})")
    if 1 <= s.line <= len(lines):
        console.print(escape(f"  {s.line:4d} | {lines[s.line - 1].strip()}"), soft_wrap=True)
    if d.kind == "control":
        other = d.b if d.a is s else d.a
        console.print("  the runs reach different statements here: " + (
            f"{names[1]} runs {escape(str(other))}" if other is not None else f"{names[1]} has ended"))
        return
    if d.kind == "writes":
        console.print(f"  the runs write different places: {escape(d.write)}")
        return
    console.print(f"  {escape(d.write)}: {d.count} of {d.total} elements differ" + (f" ({d.fmt})" if d.fmt else ""))
    t = Table(show_edge=False, pad_edge=False)
    for col in ("element", names[0], "bits", names[1], "bits", "ULP"):
        t.add_column(escape(col), justify="right")
    width = max(2, (int(np.asarray(s.writes[0].bits).dtype.itemsize) * 2))
    for e in d.elements:
        va, vb = (f"{v:.9g}" for v in e.values) if e.values is not None else ("", "")
        t.add_row(str(e.index), va, f"0x{e.bits[0]:0{width}X}", vb, f"0x{e.bits[1]:0{width}X}",
                  "-" if e.ulp is None else str(e.ulp))
    console.print(t)
    for r in reasons or ["tilesim records no rule for this difference"]:
        console.print(f"  why: {escape(r)}", soft_wrap=True)


# ------------------------------------------------------------------------------------------ the command
def diff(
    program: Path = typer.Argument(..., exists=True, dir_okay=False, help="program text (.pto, .tt or .s)"),
    against: List[str] = typer.Option([], "--against", help="the second run: a value of the ISA's model option "
                                                            "(PTO --target, Tensix --rounding-model, AME "
                                                            "--accumulation), or OPTION=VALUE; repeatable"),
    input: List[str] = typer.Option([], "--input", "-i", help="name=array.npy, or arrays.npz"),
    target: Optional[str] = typer.Option(None, help="PTO target of the first run: cpu, a2a3, a5"),
    rounding_model: Optional[str] = typer.Option(None, "--rounding-model", help="Tensix: hardware or doc"),
    accumulation: Optional[str] = typer.Option(None, help="AME: fused, sequential or chain_then_add"),
    blocks: Optional[int] = typer.Option(None, min=1, help="PTO: run the kernel once per block"),
    entry: Optional[str] = typer.Option(None, help="PTO: the function to run"),
    strict: bool = typer.Option(False, "--strict", help="PTO: stop at C++-undefined casts (a flag, or 0/1)"),
    quantize: bool = typer.Option(False, "--quantize", help="AME: mld rounds and clamps (a flag, or 0/1)"),
    all: bool = typer.Option(False, "--all", help="list every differing statement, not only the first"),
    show: int = typer.Option(5, "--show", min=1, help="differing elements to print per statement"),
) -> None:
    """Run a program on two configurations; stop at the first statement whose written values differ.

    Exit status: 0 when no statement differs, 1 when one does, 2 on an error.
    """
    from ..cli import RUNNERS, _read_inputs, console

    options = {k: v for k, v in {"target": target, "rounding_model": rounding_model, "accumulation": accumulation,
                                 "blocks": blocks, "entry": entry, "strict": strict or None,
                                 "quantize": quantize or None}.items() if v is not None}
    runner = RUNNERS.get(program.suffix)
    accepted = runner[2] if runner is not None else None
    raise typer.Exit(diff_command(program, _read_inputs(input), console, options, against, all=all, limit=show,
                                  accepted=accepted))
