"""Compare and select folders, whose masks are packed bits: TCMP, TSEL, TSELS."""

from __future__ import annotations

import re
from pathlib import Path

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import ints, read_short, stored, tile

_MODE = re.compile(r"CmpMode::(\w+)")


def run_tcmp(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tcmp<T, TDst, GROWS, GCOLS, TROWS, TCOLS>(CmpMode::M)``: src0 ``input1.bin``, src1 ``input2.bin``;
    the packed mask (TCOLS / bits-of-TDst columns valid) stored into a zeroed GROWS x GCOLS TDst global."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()

    def form(c):
        return None if len(c.args) == 6 and c.args[1] in CXX_DTYPES else "not the form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            dt, mt = case.dtype, CXX_DTYPES[case.args[1]]
            gr, gc, tr, tc = ints(case.args[2:])
            body = main[main.index(f", {case.name})"):]
            mode = _MODE.search(body).group(1).lower()
            packed = -(-tc // (8 * pto.get_dtype(mt).size))
            src0, src1 = (tile(dt, (tr, tc), None, case.read(f, dt, gr, gc)) for f in ("input1.bin", "input2.bin"))
            dst = tile(mt, (tr, tc), (tr, packed))
            pto.tcmp(dst, src0, src1, mode, target="cpu")
            score(row, case, verbose, (stored(dst, (gr, gc)), case.read("golden.bin", mt, gr, gc), mt))
    return row


def run_tsel(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tsel<T, ROWS, COLS, VROWS, VCOLS>``: src0 ``input0.bin``, src1 ``input1.bin``, a u8 mask tile of
    ROWS x ceil32(ceil(COLS / 8)) bytes from ``mask.bin`` (a shorter file: its bits run on through the mask
    tile's valid columns, as the simulator reads them), dst stored into the ROWS x COLS global."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            r, c, vr, vc = ints(case.args[1:])
            mc, vmc = (-(-(-(-n // 8)) // 32) * 32 for n in (c, vc))
            src0, src1 = (tile(dt, (r, c), (vr, vc), case.read(f, dt, r, c)) for f in ("input0.bin", "input1.bin"))
            mask = tile("u8", (r, mc), (vr, vmc), read_short(case, "mask.bin", "u8", r, mc))
            dst = tile(dt, (r, c), (vr, vc))
            pto.tsel(dst, mask, src0, src1, tile("u8", (1, 32)), target="cpu")
            score(row, case, verbose, (stored(dst, (r, c)), case.read("golden.bin", dt, r, c), dt))
    return row


def run_tsels(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tsels<T, GROWS, GCOLS, TROWS, TCOLS>``: a u32 mask tile (TROWS x TCOLS, valid TROWS x maskCols,
    maskCols = ceil(ceil(GROWS * GCOLS / 32) / TROWS)) from ``mask.bin``, src ``input.bin``, the scalar the
    first element of ``scalar.bin``; dst stored into the GROWS x GCOLS global."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            gr, gc, tr, tc = ints(case.args[1:])
            mcols = -(-(-(-gr * gc // 32)) // tr)
            mask = tile("u32", (tr, tc), (tr, mcols), read_short(case, "mask.bin", "u32", gr, mcols))
            src = tile(dt, (tr, tc), None, case.read("input.bin", dt, gr, gc))
            dst = tile(dt, (tr, tc))
            scalar = case.read("scalar.bin", dt, 1, 1).view(pto.get_dtype(dt).np)[0, 0]
            pto.tsels(dst, mask, src, scalar, tile("u8", (1, 32)), target="cpu")
            score(row, case, verbose, (stored(dst, (gr, gc)), case.read("golden.bin", dt, gr, gc), dt))
    return row


ADAPTERS = {"tcmp": run_tcmp, "tsel": run_tsel, "tsels": run_tsels}
