"""TSTORE's folder: a 5-D global tensor (shape ``g0..g4`` inside a whole ``W0..W4`` array) loaded into a vec tile
and stored back. tilesim's global memory is a 2-D array, so the adapter gathers the tensor's elements in the
tile's order (the address arithmetic of the GlobalTensor's strides), loads and stores that window with
tilesim's TLOAD/TSTORE, and scatters the result back into the whole array."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints, tile

FORMATS = {"0": "ND", "1": "DN", "2": "NZ"}


def offsets(fmt: str, g: list[int], w: list[int]) -> np.ndarray:
    """Flat offsets in the whole array of the tile's valid elements, row by row: ND rows are (g0, g1, g2, g3)
    and columns g4 (strides W1*W2*W3*W4 ... W4, 1); DN rows are g3 and columns (g0, g1, g2, g4) (the last two
    strides 1 and W3)."""
    s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4]]
    a, b, c, d, e = np.meshgrid(*(np.arange(n) for n in g), indexing="ij")
    if fmt == "ND":
        flat = a * s[0] + b * s[1] + c * s[2] + d * w[4] + e
        return flat.reshape(-1, g[4])
    flat = a * s[0] + b * s[1] + c * s[2] + d + e * w[3]
    return flat.transpose(3, 0, 1, 2, 4).reshape(g[3], -1)


def run_tstore(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tstore<format, T, g0..g4, W0..W4>``: ND into a row-major tile of g0*g1*g2*g3 rows, DN into a
    col-major tile of g3 rows, each with 32-byte rounded capacity; the whole stored array (zeros elsewhere)
    compared with ``golden.bin``. NZ global tensors (boxed layouts of global memory) are not modelled."""
    row = Row(folder.name)

    def form(c):
        if len(c.args) != 12:
            return "not the form"
        return None if FORMATS.get(c.args[0]) != "NZ" else "NZ global tensors: tilesim's global memory is logical"

    for case in each_case(folder, st, row, form):
        fmt, dt = FORMATS[case.args[0]], case.dtype
        vals = ints(case.args[2:])
        g, w = vals[:5], vals[5:]
        flat_in = case.read("input.bin", dt, 1, int(np.prod(w))).ravel()
        where = offsets(fmt, g, w)
        vr, vc = where.shape
        per = 32 // pto.get_dtype(dt).size
        up = (lambda n: -(-n // per) * per)
        src = tile(dt, (vr, up(vc)) if fmt == "ND" else (up(vr), vc), (vr, vc),
                   blayout="row_major" if fmt == "ND" else "col_major")
        with refusals(row, case):
            pto.tload(src, flat_in[where].view(src.dtype.np), target="cpu")
            window = pto.tstore(np.zeros((vr, vc), src.dtype.np), src, target="cpu")
            out = np.zeros_like(flat_in)
            out[where] = window.view(src.dtype.lane)
            score(row, case, verbose, (out, case.read("golden.bin", dt, 1, out.size).ravel(), dt))
    return row


ADAPTERS = {"tstore": run_tstore}
