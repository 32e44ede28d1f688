"""Tile-and-scalar folders (TADDS, TMULS, TDIVS, TEXPANDS): the scalar is a float main.cpp reads from a file
and the kernel casts to the element type."""

from __future__ import annotations

import re
from pathlib import Path

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import f32_scalar, ints, shapes, stored, tile


def _shapes(op: str, a: list[int]):
    """(src tile, dst tile, valid) from the arguments after ``<caseId, T``: TADDS ``validRow, validCol[, iRow,
    iCol, oRow, oCol]``; TMULS and TDIVS ``row, validRow, col, validCol`` (both tiles row x col)."""
    if op == "tadds":
        vr, vc, ir, ic, orows, ocols = shapes(a, 6)
        return (ir, ic), (orows, ocols), (vr, vc)
    r, vr, c, vc = a
    return (r, c), (r, c), (vr, vc)


_SCALAR_FIRST = re.compile(r"launchTDIVSCase(\d+)\([^)]*\)\s*\{\s*runSTDivS<")


def run_scalar_op(folder: Path, st: Path, verbose: bool) -> Row:
    """``<caseId, T, shape...>Framework``: src from ``input.bin``, the scalar from ``divider.bin``, dst stored
    into a zeroed global of dst's tile shape and compared with ``golden.bin``; TDIVS cases whose kernel calls
    ``runSTDivS`` divide the scalar by the tile."""
    op = folder.name
    row = Row(op)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    scalar_first = {int(n) for n in _SCALAR_FIRST.findall(kernel)}
    for case in each_case(folder, st, row, lambda c: None if len(c.args) in (4, 6, 8) else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            src_shape, dst_shape, valid = _shapes(op, ints(case.args[2:]))
            src = tile(dt, src_shape, valid, case.read("input.bin", dt, *src_shape))
            dst = tile(dt, dst_shape, valid)
            s = f32_scalar(case, "divider.bin", dt)
            operands = (s, src) if int(case.args[0]) in scalar_first else (src, s)
            getattr(pto, op)(dst, *operands, target="cpu")
            score(row, case, verbose, (stored(dst, dst_shape), case.read("golden.bin", dt, *dst_shape), dt))
    return row


def run_texpands(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, GROWS, GCOLS, TROWS, TCOLS, VROWS, VCOLS, PAD>``: TEXPANDS of ``scalar.bin`` into a TROWS x TCOLS tile
    of valid VROWS x VCOLS and the tile's pad value, stored into the GROWS x GCOLS global."""
    row = Row(folder.name)
    pads = {"PAD_VALUE_NULL": "null", "PAD_VALUE_MAX": "max", "PAD_VALUE_MIN": "min"}
    for case in each_case(folder, st, row, lambda c: None if c.args[-1] in pads else "pad value"):
        with refusals(row, case):
            dt = case.dtype
            gr, gc, tr, tc, vr, vc = ints(case.args[1:7])
            dst = tile(dt, (tr, tc), (vr, vc), pad=pads[case.args[7]])
            pto.texpands(dst, f32_scalar(case, "scalar.bin", dt), target="cpu")
            score(row, case, verbose, (stored(dst, (gr, gc)), case.read("golden.bin", dt, gr, gc), dt))
    return row


ADAPTERS = {"tadds": run_scalar_op, "tmuls": run_scalar_op, "tdivs": run_scalar_op, "texpands": run_texpands}
