"""Folders whose dst is also read or comes in pairs: TMULADDDST, TSUBRELU, TFUSEDMULADD(RELU) and TAXPY (dst
loaded from ``input_dst.bin`` first), TINTERLEAVE and TDEINTERLEAVE (two dsts)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import f32_scalar, ints, shapes, tile

#: folders named otherwise than their instruction
OPS = {"tmuladddst": "tmuladddst", "tsubrelu": "tsubrelu", "tfusemuladd": "tfusedmuladd",
       "tfusemuladdrelu": "tfusedmuladdrelu"}


def _over(base: np.ndarray, t: pto.Tile) -> np.ndarray:
    """TSTORE of ``t``'s valid region over the global tensor ``base`` (its rows and columns at the top left)."""
    out = base.copy()
    out[: t.valid_rows, : t.valid_cols] = t.valid_bits
    return out


def run_dst_op(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, dstH, dstW, src0H, src0W, src1H, src1W, vRows, vCols>``: three tiles of their own shapes, each
    with valid vRows x vCols from ``input_dst.bin``, ``input0.bin``, ``input1.bin``; the op, dst's valid region
    stored over ``input_dst.bin``'s dstH x dstW global and compared with ``golden.bin``."""
    op = OPS[folder.name]
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 9 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            dh, dw, h0, w0, h1, w1, vr, vc = ints(case.args[1:])
            base = case.read("input_dst.bin", dt, dh, dw)
            dst = tile(dt, (dh, dw), (vr, vc), base)
            src0 = tile(dt, (h0, w0), (vr, vc), case.read("input0.bin", dt, h0, w0))
            src1 = tile(dt, (h1, w1), (vr, vc), case.read("input1.bin", dt, h1, w1))
            getattr(pto, op)(dst, src0, src1, target="cpu")
            score(row, case, verbose, (_over(base, dst), case.read("golden.bin", dt, dh, dw), dt))
    return row


def run_taxpy(folder: Path, st: Path, verbose: bool) -> Row:
    """``<caseId, T, validRow, validCol[, iRow, iCol, oRow, oCol]>``: dst loaded from ``input_dst.bin`` (oRow x
    oCol), src from ``input_src.bin``, the scalar a float from ``scalar.bin`` cast to T; dst's valid region
    stored over ``input_dst.bin`` and compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) in (4, 8) else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            vr, vc, ir, ic, orows, ocols = shapes(ints(case.args[2:]), 6)
            base = case.read("input_dst.bin", dt, orows, ocols)
            dst = tile(dt, (orows, ocols), (vr, vc), base)
            src = tile(dt, (ir, ic), (vr, vc), case.read("input_src.bin", dt, ir, ic))
            pto.taxpy(dst, src, f32_scalar(case, "scalar.bin", dt), target="cpu")
            score(row, case, verbose, (_over(base, dst), case.read("golden.bin", dt, orows, ocols), dt))
    return row


def run_interleave(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, ROWS, COLS>``: the kernel's ``T(DE)INTERLEAVE(dst1, dst0, src1, src0)`` (the C++ order; tilesim
    takes ``dst0, dst1, src0, src1``) on ROWS x COLS tiles of ``input0.bin`` and ``input1.bin`` (TDEINTERLEAVE's
    ``_MODE_1`` test: one ROWS x 2COLS src of ``src.bin``); both dsts compared, with ``dst0.bin`` and
    ``dst1.bin``."""
    op = folder.name
    row = Row(op)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 3 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            r, c = ints(case.args[1:])
            dst0, dst1 = tile(dt, (r, c)), tile(dt, (r, c))
            if case.calls[0][0].endswith("_MODE_1"):
                srcs = (tile(dt, (r, 2 * c), None, case.read("src.bin", dt, r, 2 * c)),)
            else:
                srcs = tuple(tile(dt, (r, c), None, case.read(f, dt, r, c)) for f in ("input0.bin", "input1.bin"))
            getattr(pto, op)(dst0, dst1, *srcs, target="cpu")
            score(row, case, verbose, (dst0.bits, case.read("dst0.bin", dt, r, c), dt),
                  (dst1.bits, case.read("dst1.bin", dt, r, c), dt))
    return row


ADAPTERS = {**{f: run_dst_op for f in OPS}, "taxpy": run_taxpy, "tinterleave": run_interleave,
            "tdeinterleave": run_interleave}
