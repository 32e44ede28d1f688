"""Folders whose kernel moves data between tiles: TCONCAT."""

from __future__ import annotations

import re
from pathlib import Path

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import ints, stored, tile

_SIZES = re.compile(r"TilesSize\{([^}]*)\}")


def _concat_form(case) -> str | None:
    if len(case.args) > 2:
        return "TCONCAT's index-tile forms (src0Idx/src1Idx[, dstIdx]: per-row byte counts) have no tilesim form"
    return None if len(case.args) == 2 and _SIZES.fullmatch(case.args[1]) else "not the form"


def run_tconcat(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, TilesSize{dstH, dstW, src0H, src0W, src1H, src1W, vRows, vCols0, vCols1}>``: src0 ``input1.bin``
    and src1 ``input2.bin`` (valid vRows x vCols0 and vRows x vCols1), dst of valid vRows x (vCols0 + vCols1)
    stored into a zeroed dstH x dstW global and compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _concat_form):
        dt = case.dtype
        dh, dw, h0, w0, h1, w1, vr, vc0, vc1 = ints(_SIZES.fullmatch(case.args[1]).group(1).split(","))
        src0 = tile(dt, (h0, w0), (vr, vc0), case.read("input1.bin", dt, h0, w0))
        src1 = tile(dt, (h1, w1), (vr, vc1), case.read("input2.bin", dt, h1, w1))
        dst = tile(dt, (dh, dw), (vr, vc0 + vc1))
        with refusals(row, case):
            pto.tconcat(dst, src0, src1, target="cpu")
            score(row, case, verbose, (stored(dst, (dh, dw)), case.read("golden.bin", dt, dh, dw), dt))
    return row


ADAPTERS = {"tconcat": run_tconcat}
