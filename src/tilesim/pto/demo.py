"""``tilesim demo`` section for PTO: the example kernels on every target, and the A2A3 quirks."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
from rich.table import Table

from . import Tile, run_file, tcolargmax, trowmax
from .runner import _short

__all__ = ["demo", "examples_dir"]


def examples_dir() -> Path:
    """examples/pto in a source checkout (the demo's kernels and inputs)."""
    here = Path(__file__).resolve()
    for base in (here.parents[3], Path.cwd()):
        p = base / "examples" / "pto"
        if p.is_dir():
            return p
    return Path(str(resources.files("tilesim").joinpath("examples/pto")))


def demo(console) -> None:
    ex = examples_dir()
    x = np.load(ex / "row_softmax_inputs.npz")["x"]
    t = Table(title="row_softmax.pto (8x64 f32): trowmax, trowexpandsub, texp, trowsum, trowexpanddiv")
    for col in ("target", "y[0, :4]", "row sums", "max |y - numpy float64|"):
        t.add_column(col)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    for target in ("cpu", "a2a3", "a5"):
        y = run_file(ex / "row_softmax.pto", {"x": x}, target)["y"]
        t.add_row(target, _short(y[0], 4), _short(y.sum(1, dtype=np.float64), 3), f"{np.abs(y - ref).max():.2e}")
    console.print(t)

    _block_softmax(console, ex)

    xa = np.load(ex / "col_argmax_inputs.npz")["x"]
    t = Table(title="col_argmax.pto (16x32 f32, valid 16x30, integer-valued so ties are common)")
    for col in ("target", "idx (index only)", "val (value+index)", "= numpy argmax"):
        t.add_column(col)
    want = np.argmax(xa[:, :30], axis=0)
    for target in ("cpu", "a2a3", "a5"):
        out = run_file(ex / "col_argmax.pto", {"x": xa}, target)
        t.add_row(target, _short(out["idx"], 10), _short(out["val"], 6), str(bool((out["idx"].ravel() == want).all())))
    console.print(t)

    q = Table(title="Where the targets differ (tcolargmax / trowmax on one column or row)")
    for col in ("input", "cpu", "a2a3", "a5"):
        q.add_column(col)
    cases = [
        ("f32 column [1, NaN, 7, 3]: NaN after index 0", np.array([[1], [np.nan], [7], [3]], np.float32), "idx"),
        ("f32 column [NaN, 2, 7, 7]: NaN at index 0", np.array([[np.nan], [2], [7], [7]], np.float32), "idx"),
        ("u16 column [1, 0x8000, 2]: A2A3 compares f16 bits", np.array([[1], [0x8000], [2]], np.uint16), "idx"),
        ("f16 column, max at row 2049 of 2050", np.r_[np.zeros(2049), [1.0]].astype(np.float16)[:, None], "idx"),
        ("f32 row [-0, +0, NaN]: trowmax", np.array([[-0.0, 0.0, np.nan]], np.float32), "rowmax"),
    ]
    for label, col, kind in cases:
        row = [label]
        for target in ("cpu", "a2a3", "a5"):
            src = Tile.from_array(col)
            if kind == "idx":
                dst = Tile("vec", "i32", 1, 8, valid=(1, 1))
                row.append(str(int(tcolargmax(dst, src, target=target).valid_values[0, 0])))
            else:
                dst = Tile("vec", "f32", 1, 8, valid=(1, 1))
                v = trowmax(dst, src, target=target).valid_values[0, 0]
                row.append(repr(float(v)))
        q.add_row(*row)
    console.print(q)


def _block_softmax(console, ex: Path) -> None:
    """The multi-function kernel: two helper functions, scf.if, scf.for with iter_args, get_block_idx."""
    inputs = dict(np.load(ex / "block_softmax_inputs.npz"))
    t = Table(title="block_softmax.pto (32x64 f32 in 8-row tiles): 4 functions, func.call, scf.if, "
                    "scf.for iter_args, get_block_idx over --blocks")
    for col in ("target", "blocks", "sharpen", "y[0, :3]", "max |y - numpy float64|", "same bits as 1 block"):
        t.add_column(col)
    x = inputs["x"].astype(np.float64)
    for target in ("a2a3", "a5"):
        for sharpen in (0, 1):
            xs = x * (2 if sharpen else 1)
            e = np.exp(xs - xs.max(1, keepdims=True))
            ref = e / e.sum(1, keepdims=True)
            one = None
            for blocks in (1, 4):
                y = run_file(ex / "block_softmax.pto", {**inputs, "sharpen": np.int32(sharpen)}, target,
                             blocks=blocks)["y"]
                one = y if one is None else one
                t.add_row(target, str(blocks), str(sharpen), _short(y[0], 3), f"{np.abs(y - ref).max():.2e}",
                          str(bool((y.view(np.uint32) == one.view(np.uint32)).all())))
    console.print(t)
