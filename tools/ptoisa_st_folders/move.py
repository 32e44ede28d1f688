"""Folders whose kernel moves data between tiles: TCONCAT, TEXTRACT, TINSERT."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from . import selfcheck
from .common import ints, stored, tile

_SIZES = re.compile(r"TilesSize\{([^}]*)\}")


def _concat_form(case) -> str | None:
    a = case.args
    if not (2 <= len(a) <= 5 and _SIZES.fullmatch(a[1]) and (len(a) == 2 or a[2] in CXX_DTYPES)):
        return "not the form"
    return None if len(a) < 4 or a[3] in ("USE_SRC_IDX", "USE_DST_IDX") else f"index use {a[3]}"


def run_tconcat(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, TilesSize{dstH, dstW, src0H, src0W, src1H, src1W, vRows, vCols0, vCols1}[, TIdx, USE_SRC_IDX |
    USE_DST_IDX[, idxSizes]]>``: src0 ``input1.bin`` and src1 ``input2.bin`` (valid vRows x vCols0 and vRows x
    vCols1), dst of valid vRows x (vCols0 + vCols1) stored into a zeroed dstH x dstW global and compared with
    ``golden.bin``. The indexed forms take each row's byte counts from the first column of TIdx tiles shaped
    like the idxSizes of each tile (``input1_idx.bin``, ``input2_idx.bin``); USE_DST_IDX also stores the dst
    index tile, compared with ``golden_idx.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _concat_form):
        with refusals(row, case):
            dt = case.dtype
            dh, dw, h0, w0, h1, w1, vr, vc0, vc1 = ints(_SIZES.fullmatch(case.args[1]).group(1).split(","))
            src0 = tile(dt, (h0, w0), (vr, vc0), case.read("input1.bin", dt, h0, w0))
            src1 = tile(dt, (h1, w1), (vr, vc1), case.read("input2.bin", dt, h1, w1))
            dst = tile(dt, (dh, dw), (vr, vc0 + vc1))
            if len(case.args) < 4:
                pto.tconcat(dst, src0, src1, target="cpu")
                score(row, case, verbose, (stored(dst, (dh, dw)), case.read("golden.bin", dt, dh, dw), dt))
                continue
            it = CXX_DTYPES[case.args[2]]
            idx = ints(_SIZES.fullmatch(case.args[4]).group(1).split(",")) if len(case.args) > 4 else \
                [dh, dw, h0, w0, h1, w1]
            i0 = tile(it, tuple(idx[2:4]), (vr, 1), case.read("input1_idx.bin", it, *idx[2:4]))
            i1 = tile(it, tuple(idx[4:6]), (vr, 1), case.read("input2_idx.bin", it, *idx[4:6]))
            di = tile(it, tuple(idx[0:2]), (vr, 1)) if case.args[3] == "USE_DST_IDX" else None
            pto.tconcat(dst, src0, src1, i0, i1, dst_idx=di, target="cpu")
            outputs = [(stored(dst, (dh, dw)), case.read("golden.bin", dt, dh, dw), dt)]
            if di is not None:
                outputs.append((stored(di, tuple(idx[0:2])), case.read("golden_idx.bin", it, *idx[0:2]), it))
            score(row, case, verbose, *outputs)
    return row


ADAPTERS = {"tconcat": run_tconcat}

#: pto-isa's layout codes in these tests (0 ND, 1 DN, 2 NZ, 3 ZN, 4 ZZ, 5 NN) -> (blayout, slayout)
LAYOUTS = (("row_major", "none_box"), ("col_major", "none_box"), ("col_major", "row_major"),
           ("row_major", "col_major"), ("row_major", "row_major"), ("col_major", "col_major"))
LOCS = {"TileType::Mat": "mat", "TileType::Vec": "vec"}


def _moved(case, op: str, src_loc: str, dst_loc: str, rows: int, cols: int, src_valid, dst_valid, at, layouts):
    """TLOAD of ``input.bin`` (src's valid region) into src, ``op`` between two rows x cols tiles (dst zeroed)
    at ``at``, TSTORE of dst's valid region; returns (stored bits, golden bits, dst dtype)."""
    st, dt = CXX_DTYPES[case.args[0]], CXX_DTYPES[case.args[1]]
    (sbl, ssl), (dbl, dsl) = (LAYOUTS[i] for i in layouts)
    src = tile(st, (rows, cols), src_valid, loc=src_loc, blayout=sbl, slayout=ssl)
    dst = tile(dt, (rows, cols), dst_valid, loc=dst_loc, blayout=dbl, slayout=dsl)
    pto.tload(src, case.read("input.bin", st, *src_valid).view(src.dtype.np), target="cpu")
    getattr(pto, op)(dst, src, *at, target="cpu")
    out = pto.tstore(np.zeros(dst_valid, dst.dtype.np), dst, target="cpu")
    return out.view(dst.dtype.lane), case.read("golden.bin", dt, *dst_valid), dt


def run_textract(folder: Path, st: Path, verbose: bool) -> Row:
    """``<ST, DT, rows, cols, validRows, validCols, idxRow, idxCol, srcLayout, dstLayout>``: mat tiles; dst of
    valid (validRows - idxRow) x (validCols - idxCol) stored whole and compared with ``golden.bin``. The tests
    with no templated call (TEXTRACT_FP on tiles main.cpp fills) run as self-checking tests."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 10 and c.args[1] in CXX_DTYPES
                          else "not the form"):
        with refusals(row, case):
            rows, cols, vr, vc, ir, ic, sl, dl = ints(case.args[2:])
            score(row, case, verbose, _moved(case, "textract", "mat", "mat", rows, cols, (vr, vc),
                                             (vr - ir, vc - ic), (ir, ic), (sl, dl)))
    own = [r.split(":")[0] for r in row.reasons if r.endswith(": no templated call")]
    row.reasons = [r for r in row.reasons if not r.endswith(": no templated call")]
    row.not_mapped -= len(own)
    return selfcheck.run_selfcheck(folder, st, verbose, row, own)


def run_tinsert(folder: Path, st: Path, verbose: bool) -> Row:
    """``<ST, DT, locSrc, locDst, rows, cols, srcValidRows, srcValidCols, dstValidRows, dstValidCols, srcLayout,
    dstLayout>``: src inserted into a zeroed dst at (dstValidRows - srcValidRows, dstValidCols - srcValidCols),
    dst's valid region stored and compared with ``golden.bin``."""
    row = Row(folder.name)

    def form(c):
        return None if len(c.args) == 12 and c.args[1] in CXX_DTYPES and {*c.args[2:4]} <= set(LOCS) else "form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            rows, cols, sr, sc, dr, dc, sl, dl = ints(case.args[4:])
            score(row, case, verbose, _moved(case, "tinsert", LOCS[case.args[2]], LOCS[case.args[3]], rows, cols,
                                             (sr, sc), (dr, dc), (dr - sr, dc - sc), (sl, dl)))
    return row


ADAPTERS.update({"textract": run_textract, "tinsert": run_tinsert})
