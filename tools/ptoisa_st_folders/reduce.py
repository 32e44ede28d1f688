"""Reduction folders: the row and column reductions (one folder each) and TROWARGMAX/TROWARGMIN/TCOLARGMAX/
TCOLARGMIN (``targreduceop``)."""

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
        with refusals(row, case):
            launcher, a = case.calls[1]
            op = launcher.removeprefix("Launch").lower()
            it, dt = CXX_DTYPES[a[0]], CXX_DTYPES[a[1]]
            vr, vc, ir, ic, oir, oic, ovr, ovc = shapes(ints(a[2:]), 8)
            with_val = case.args[4:5] == ["true"]
            valid = (vr, 1) if op.startswith("trow") else (1, vc)
            src = tile(dt, (ir, ic), (vr, vc), case.read("input.bin", dt, ir, ic))
            idx, val = tile(it, (oir, oic), valid), tile(dt, (ovr, ovc), valid)
            getattr(pto, op)(idx, src, tile(dt, (ir, ic), (vr, vc)), dst_val=val if with_val else None,
                             target="cpu")
            outputs = [(stored(idx, (oir, oic)), case.read("golden.bin", it, oir, oic), it)]
            if with_val:
                outputs.append((stored(val, (ovr, ovc)), case.read("golden_val.bin", dt, ovr, ovc), dt))
            score(row, case, verbose, *outputs)
    return row


#: folder -> (input file, dst tile, dst valid, global dst shape) from (GROWS, GCOLS, TROWS, TCOLS), as each
#: kernel declares them; the src tile is TROWS x TCOLS, valid whole, read from the first TROWS x TCOLS of the file
REDUCTIONS = {
    **{op: ("input1.bin", lambda g, t: (t[0], 32), lambda t: (t[0], 1), lambda g, t: (t[0], 1))
       for op in ("trowmax", "trowmin")},
    "tcolmin": ("input1.bin", lambda g, t: (16, t[1]), lambda t: (1, t[1]), lambda g, t: (1, t[1])),
    "tcolmax": ("input.bin", lambda g, t: (1, t[1]), lambda t: (1, t[1]), lambda g, t: (1, g[1])),
    "tcolsum": ("input.bin", lambda g, t: (1, t[1]), lambda t: (1, t[1]), lambda g, t: (1, t[1])),
    **{op: ("input.bin", lambda g, t: t, lambda t: t, lambda g, t: g) for op in ("trowsum", "trowprod")},
}
KWARGS = {"tcolsum": {"is_binary": True}}          # TCOLSUM(dst, src, tmp, true)


def run_reduce(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_trowmax<T, GROWS, GCOLS, TROWS, TCOLS>`` and kin: the op over src into dst (a zeroed tile of the
    kernel's shape and valid region, tmp a fresh src-shaped tile), dst stored into a zeroed global and compared
    with ``golden.bin``."""
    op = folder.name
    file, dst_shape, dst_valid, out_shape = REDUCTIONS[op]
    row = Row(op)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            g, t = tuple(ints(case.args[1:3])), tuple(ints(case.args[3:5]))
            src = tile(dt, t, None, case.read(file, dt, *t))
            dst = tile(dt, dst_shape(g, t), dst_valid(t))
            out = out_shape(g, t)
            getattr(pto, op)(dst, src, tile(dt, t), **KWARGS.get(op, {}), target="cpu")
            score(row, case, verbose, (stored(dst, out), case.read("golden.bin", dt, *out), dt))
    return row


ADAPTERS = {"targreduceop": run_arg_reduce, **{op: run_reduce for op in REDUCTIONS}}
