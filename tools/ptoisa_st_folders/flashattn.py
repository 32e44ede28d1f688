"""tflashattn: one head of attention, softmax(Q K^T / sqrt(d)) V, written as a kernel of tile instructions
(``RunTFLASHATTN``, f32, 64 x 32), run here as the same sequence of tilesim ops on gen_data.py's q, k and v and
compared with ``golden.bin`` (a float64 reference) by ResultCmp at main.cpp's eps.

The kernel: TLOAD q, k, v (vec, row-major); TMOV q to a Left tile; TTRANS k and TMOV k^T to a Right tile;
TMATMUL into an Acc tile, TMOV the scores back to vec and TMULS them by 1/sqrt(d); the row softmax as TROWMAX,
TROWEXPANDSUB, TEXP, TROWSUM, TROWEXPANDDIV; TMOV the probabilities to Left and v to Right, TMATMUL, and TSTORE
the Acc tile."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

CPU = {"target": "cpu"}
#: TileLeft/TileRight/TileAcc's cpu layouts (pto_tile.hpp): blayout, slayout, fractal
_CUBE = {"left": ("col_major", "row_major", 512), "right": ("row_major", "col_major", 512),
         "acc": ("col_major", "row_major", 1024)}


def _tile(loc: str, rows: int, cols: int, blayout: str = "row_major") -> pto.Tile:
    if loc == "vec":
        return pto.Tile("vec", "f32", rows, cols, blayout=blayout)
    bl, sl, frac = _CUBE[loc]
    return pto.Tile(loc, "f32", rows, cols, blayout=bl, slayout=sl, fractal=frac)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The kernel on tilesim: the f32 output (seq x head) for f32 q, k, v (seq x head)."""
    s, d = q.shape
    q_t, k_t, v_t, kt_t = _tile("vec", s, d), _tile("vec", s, d), _tile("vec", s, d), _tile("vec", d, s)
    q_l, k_r, p_l, v_r = _tile("left", s, d), _tile("right", d, s), _tile("left", s, s), _tile("right", s, d)
    scores_acc, out_acc = _tile("acc", s, s), _tile("acc", s, d)
    scores, centered, ex, probs = (_tile("vec", s, s) for _ in range(4))
    row_max, row_sum = _tile("vec", s, 1, "col_major"), _tile("vec", s, 1, "col_major")
    for t, x in ((q_t, q), (k_t, k), (v_t, v)):
        pto.tload(t, x, **CPU)
    pto.tmov(q_l, q_t, **CPU)
    pto.ttrans(kt_t, k_t, k_t, **CPU)
    pto.tmov(k_r, kt_t, **CPU)
    pto.tmatmul(scores_acc, q_l, k_r, **CPU)
    pto.tmov(scores, scores_acc, **CPU)
    pto.tmuls(scores, scores, np.float32(1.0) / np.sqrt(np.float32(d)), **CPU)
    pto.trowmax(row_max, scores, scores, **CPU)
    pto.trowexpandsub(centered, scores, row_max, **CPU)
    pto.texp(ex, centered, **CPU)
    pto.trowsum(row_sum, ex, ex, **CPU)
    pto.trowexpanddiv(probs, ex, row_sum, **CPU)
    pto.tmov(p_l, probs, **CPU)
    pto.tmov(v_r, v_t, **CPU)
    pto.tmatmul(out_acc, p_l, v_r, **CPU)
    return pto.tstore(np.zeros((s, d), np.float32), out_acc, **CPU)


def run_flashattn(folder: Path, st: Path, verbose: bool) -> Row:
    """``LaunchTFLASHATTN(out, q, k, v)``: x1_gm.bin q, x2_gm.bin k, x3_gm.bin v, each 64 x 32 f32."""
    row = Row(folder.name)
    form = (lambda c: "gen_data.py made no data" if c.dir is None else "no eps" if c.eps is None else None)
    for case in each_case(folder, st, row, form, exempt=lambda c: True, plain=True):
        with refusals(row, case):
            q, k, v = (np.fromfile(case.dir / f"x{i}_gm.bin", np.float32).reshape(64, 32) for i in (1, 2, 3))
            got = attention(q, k, v)
            score(row, case, verbose, (got.view(np.uint32), case.read("golden.bin", "f32", 64, 32), "f32"))
    return row


ADAPTERS = {"tflashattn": run_flashattn}
