"""TCOLEXPAND*/TROWEXPAND* folders (``tcolexpandop``, ``trowexpandop``): src0 a matrix, src1 one row (a 1 x iCol
tile) or one column (an iRow x 1 col-major tile) broadcast over it."""

from __future__ import annotations

from pathlib import Path

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints, shapes, stored, tile


def run_expand_op(folder: Path, st: Path, verbose: bool) -> Row:
    """``run_vec_op<T, ROWS, COLS[, iRow, iCol, oRow, oCol]>`` around ``LaunchTCOLEXPANDDIV<...>`` (the op from the
    launcher's name): src0 ``input1.bin`` (iRow x iCol), src1 ``input2.bin``, the valid ROWS x COLS of dst
    stored into a zeroed oRow x oCol global and compared with ``golden.bin``."""
    by_col = folder.name.startswith("tcol")
    row = Row(folder.name)

    def form(case):
        return None if len(case.calls) > 1 and case.calls[1][0].startswith("Launch") else "no launcher call"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            dt, op = case.dtype, case.calls[1][0].removeprefix("Launch").lower()
            vr, vc, ir, ic, orows, ocols = shapes(ints(case.args[1:]), 6)
            src0 = tile(dt, (ir, ic), (vr, vc), case.read("input1.bin", dt, ir, ic))
            if by_col:
                src1 = tile(dt, (1, ic), (1, vc), case.read("input2.bin", dt, 1, ic))
            else:
                src1 = tile(dt, (ir, 1), (vr, 1), case.read("input2.bin", dt, ir, 1), blayout="col_major")
            dst = tile(dt, (orows, ocols), (vr, vc))
            getattr(pto, op)(dst, src0, src1, target="cpu")
            score(row, case, verbose, (stored(dst, (orows, ocols)), case.read("golden.bin", dt, orows, ocols), dt))
    return row


ADAPTERS = {"tcolexpandop": run_expand_op, "trowexpandop": run_expand_op}
