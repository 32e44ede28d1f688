"""Reduction folders: TROWARGMAX/TROWARGMIN/TCOLARGMAX/TCOLARGMIN (``targreduceop``)."""

from __future__ import annotations

from pathlib import Path

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import ints, shapes, stored, tile


def run_arg_reduce(folder: Path, st: Path, verbose: bool) -> Row:
    """``run_vec_op<TIdx, T, ROWS, COLS, checkVal, ...>`` around ``LaunchTROWARGMAX<TIdx, T, ROWS, COLS[, iRow,
    iCol, oIdxRow, oIdxCol[, oValRow, oValCol]]>``: src ``input.bin`` (iRow x iCol, valid ROWS x COLS); the index
    tile (and, where checkVal, the value tile) of one column (row ops) or one row (column ops), stored into
    zeroed globals and compared with ``golden.bin`` (and ``golden_val.bin``)."""
    row = Row(folder.name)

    def form(case):
        return None if len(case.calls) > 1 and case.calls[1][0].startswith("Launch") else "no launcher call"

    for case in each_case(folder, st, row, form):
        launcher, a = case.calls[1]
        op = launcher.removeprefix("Launch").lower()
        it, dt = CXX_DTYPES[a[0]], CXX_DTYPES[a[1]]
        vr, vc, ir, ic, oir, oic, ovr, ovc = shapes(ints(a[2:]), 8)
        with_val = case.args[4:5] == ["true"]
        valid = (vr, 1) if op.startswith("trow") else (1, vc)
        src = tile(dt, (ir, ic), (vr, vc), case.read("input.bin", dt, ir, ic))
        idx, val = tile(it, (oir, oic), valid), tile(dt, (ovr, ovc), valid)
        with refusals(row, case):
            getattr(pto, op)(idx, src, tile(dt, (ir, ic), (vr, vc)), dst_val=val if with_val else None,
                             target="cpu")
            outputs = [(stored(idx, (oir, oic)), case.read("golden.bin", it, oir, oic), it)]
            if with_val:
                outputs.append((stored(val, (ovr, ovc)), case.read("golden_val.bin", dt, ovr, ovc), dt))
            score(row, case, verbose, *outputs)
    return row


ADAPTERS = {"targreduceop": run_arg_reduce}
