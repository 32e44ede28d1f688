"""``tilesim study``: build a sweep from the command line's options, run it, show and write the results."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

from .. import progress
from ..errors import TilesimError
from . import presets
from .inputs import tensors as read_tensors
from .presets import Shape
from .sweep import Sweep, run
from .view import check_output, show

__all__ = ["parse_shapes", "build_sweep", "study_command"]


def _positive(text: str, what: str, option: str, rule: str) -> int:
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or int(text) < 1:
        raise TilesimError(f"{what} {text!r} is not a positive integer", instruction="tilesim study", operand=option,
                           rule=rule, value=text)
    return int(text)


def parse_shapes(texts: list[str]) -> list[Shape]:
    """``MxNxK`` each, where M, N and K may be comma lists (``16x4096x1024,4096``: their product).

    Raises:
        TilesimError: not three positive integers or lists of them (``study.shape``).
    """
    out = []
    for text in texts:
        parts = text.lower().split("x")
        if len(parts) != 3:
            raise TilesimError(f"shape {text!r} is not MxNxK (e.g. 16x4096x4096; M, N, K may be comma lists)",
                               instruction="tilesim study", operand="--shape", rule="study.shape", value=text)
        dims = [[_positive(v, "dimension", "--shape", "study.shape") for v in p.split(",")] for p in parts]
        out += [Shape(m, n, k) for m, n, k in itertools.product(*dims)]
    return out


def build_sweep(*, shapes: list[str], models: list[str], tokens: list[int], layers: list[str], fts: list[str],
                bovfs: list[int], rnds: list[str], sats: list[int], accumulations: list[str], tilings: list[str],
                dists: list[str] | None, activations: str | None, weights: str | None, seed: int,
                macs_per_cycle: int, accs: list[str] = ("proposal",), block_scales: list[str] = ("none",),
                block_sizes: list[int] = (32,), scale_ats: list[str] = ("after",), bandwidth: int = 64,
                schedule_block: str | None = None) -> Sweep:
    """The sweep the options describe: ``--shape`` shapes, then each ``--model``'s layers at each ``--tokens``;
    with tensor files and neither, the shape the tensors fix. ``accs`` (``--acc``) replace the proposal's
    accumulator; ``block_scales``, ``block_sizes`` and ``scale_ats`` block-scale the inputs; ``bandwidth``
    is the schedule's bytes per cycle, ``schedule_block`` its ``MbxNbxKb`` (default: ``make_plan``'s).

    Raises:
        TilesimError: no shape to run (``study.shape``), and whatever :meth:`Sweep.check` rejects.
    """
    for t in tokens:
        if isinstance(t, bool) or t < 1:
            raise TilesimError(f"--tokens {t} is not a positive number of tokens", instruction="tilesim study",
                               operand="--tokens", rule="study.option", value=t)
    user = read_tensors(activations, weights) if activations or weights else None
    found = parse_shapes(shapes)
    for name in models:
        for t in tokens:
            found += presets.layers(name, t, tuple(layers) if layers else presets.LAYERS)
    if not found and user is not None:
        fixed = [user.shape(t) for t in tokens] if user.activations is None else [user.shape()]
        found = [s for s in fixed if s is not None]
    if not found:
        raise TilesimError("nothing to run: give --shape MxNxK, --model NAME, or both --activations and --weights",
                           instruction="tilesim study", operand="--shape", rule="study.shape")
    if dists is None:
        dists = ["tensors"] if user is not None else ["normal"]
    elif user is not None and "tensors" not in dists:
        raise TilesimError("--activations and --weights are the inputs of --dist tensors; add it",
                           instruction="tilesim study", operand="--dist", rule="study.dist", value=dists)
    blocks = None
    if schedule_block is not None:
        parts = schedule_block.lower().split("x")
        if len(parts) != 3:
            raise TilesimError(f"--schedule-block {schedule_block!r} is not MbxNbxKb (e.g. 64x64x128)",
                               instruction="tilesim study", operand="--schedule-block", rule="study.option",
                               value=schedule_block)
        blocks = tuple(_positive(p, "block size", "--schedule-block", "study.option") for p in parts)
    sweep = Sweep(tuple(dict.fromkeys(found)), tuple(fts), tuple(bovfs), tuple(rnds), tuple(sats),
                  tuple(accumulations), tuple(tilings), tuple(dists), seed, macs_per_cycle, user,
                  tuple(dict.fromkeys(accs)), tuple(dict.fromkeys(block_scales)), tuple(dict.fromkeys(block_sizes)),
                  tuple(dict.fromkeys(scale_ats)), bandwidth, blocks)
    sweep.check()
    return sweep


def study_command(console, *, out: Path | None, workers: int | None, scheduler: str | None, timeout: float,
                  output: str = "table", **options) -> None:
    """Run the sweep of ``options`` (see :func:`build_sweep`) with a progress bar; print and write the results."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .cluster import connect

    check_output(output, "tilesim study")
    sweep = build_sweep(**options)
    points = sweep.points()
    t0 = time.perf_counter()
    with connect(workers, scheduler, timeout) as client, \
            Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=console, transient=True, disable=output != "table" or not console.is_terminal) as bar:
        where = "in this process" if client is None else f"on {len(client.scheduler_info()['workers'])} Dask workers"
        task = bar.add_task(f"{len(points)} points {where}", total=len(points))
        done = iter(range(1, len(points) + 1))

        def on_point(point) -> None:
            bar.advance(task)
            progress.update("points", next(done), len(points))
        study = run(sweep, client=client, on_point=on_point)
    seconds = time.perf_counter() - t0
    show(study.records, console, output, title=f"study: {len(points)} points, {where}")
    if output == "table":
        whys = list(dict.fromkeys(f"{r['layer'] + ' ' if r['layer'] else ''}{r['m']}x{r['n']}x{r['k']} {r['ft']}: "
                                  f"{r['tiling_why']}" for r in study.records if r["tiling_requested"] == "auto"))
        for why in whys[:10]:
            console.print(f"tiling {why}", highlight=False)
        console.print(f"{len(points)} points in {seconds:.1f} s {where}", highlight=False)
    if out is not None:
        from .report import write
        files = write(study, out)
        if output == "table":
            console.print(f"wrote {', '.join(str(f) for f in files)}", highlight=False, soft_wrap=True)
