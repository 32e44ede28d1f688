"""Single-instruction folders of one kernel each: TSORT32, TPARTMAX/TPARTMIN/TPARTADD, TCOLEXPAND, TROWEXPAND,
TDEQUANT, TCI, TTRANS, TMOV, TRANDOM, TPREFETCH."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Case, Row, each_case, refusals, score

from .common import constants, ints, stored, tile


_START = re.compile(r"run_case<\d>\((k\w+)\)")


def _has_data(case) -> str | None:
    return None if case.dir is not None and case.eps is not None else "gen_data.py made no data, or no eps"


def run_tsort32(folder: Path, st: Path, verbose: bool) -> Row:
    """``TSort32Test<T0, T1, GROWS, GCOLS, TROWS, TCOLS, VROWS, VCOLS>``: src ``input0.bin`` and the T1 indices
    ``input1.bin`` (GROWS x GCOLS), dst TROWS x (TCOLS * 8 / sizeof(T0)) of (value, index) pairs, valid
    VROWS x (VCOLS * 8 / sizeof(T0)), stored into the GROWS x (GCOLS * 8 / sizeof(T0)) global."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 8 else "not the form"):
        with refusals(row, case):
            dt, it = case.dtype, CXX_DTYPES[case.args[1]]
            gr, gc, tr, tc, vr, vc = ints(case.args[2:])
            k = 8 // pto.get_dtype(dt).size
            src = tile(dt, (tr, tc), (vr, vc), case.read("input0.bin", dt, gr, gc))
            idx = tile(it, (tr, tc), (vr, vc), case.read("input1.bin", it, gr, gc))
            dst = tile(dt, (tr, tc * k), (vr, vc * k))
            pto.tsort32(dst, src, idx, tile(dt, (1, 32)), target="cpu")
            score(row, case, verbose, (stored(dst, (gr, gc * k)), case.read("golden.bin", dt, gr, gc * k), dt))
    return row


def run_tpart(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tpartmax<T>`` (TPARTADD: f32) with main.cpp's ``kRows, kCols, kValidRows1, kValidCols1``: src0
    and dst kRows x kCols, src1 the kValidRows1 x kValidCols1 top-left of ``input2.bin``."""
    op = folder.name
    row = Row(op)
    k = constants(folder)
    R, C, r1, c1 = (k[n] for n in ("kRows", "kCols", "kValidRows1", "kValidCols1"))
    for case in each_case(folder, st, row, _has_data, exempt=lambda c: True):
        with refusals(row, case):
            dt = case.dtype or "f32"
            src0 = tile(dt, (R, C), None, case.read("input1.bin", dt, R, C))
            src1 = tile(dt, (R, C), (r1, c1), case.read("input2.bin", dt, R, C))
            dst = tile(dt, (R, C))
            getattr(pto, op)(dst, src0, src1, target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", dt, R, C), dt))
    return row


def run_tcolexpand(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tcolexpand<T, GROWS, GCOLS, TROWS, TCOLS>``: TCOLEXPAND of a TROWS x TCOLS tile of ``input1.bin``
    (its first row) into a tile of that shape."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            tr, tc = ints(case.args[3:])
            src, dst = tile(dt, (tr, tc), None, case.read("input1.bin", dt, tr, tc)), tile(dt, (tr, tc))
            pto.tcolexpand(dst, src, target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", dt, tr, tc), dt))
    return row


def run_trowexpand(folder: Path, st: Path, verbose: bool) -> Row:
    """The f32 kRows x kCols TROWEXPAND of ``input.bin`` (its first column), main.cpp's sizes."""
    row = Row(folder.name)
    k = constants(folder)
    r, c = k["kRows"], k["kCols"]
    for case in each_case(folder, st, row, _has_data, exempt=lambda c: True):
        with refusals(row, case):
            src, dst = tile("f32", (r, c), None, case.read("input.bin", "f32", r, c)), tile("f32", (r, c))
            pto.trowexpand(dst, src, target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", "f32", r, c), "f32"))
    return row


def run_tdequant(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tdequant<dstType, srcType, TROWS, TCOLS, VROWS, VCOLS>``: src ``input.bin``, scale and offset
    TROWS x 1 col-major tiles of ``scale.bin`` and ``offset.bin``; dst stored into the TROWS x TCOLS global."""
    row = Row(folder.name)

    def form(c):
        return None if len(c.args) == 6 and c.args[1] in CXX_DTYPES else "not the form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            dt, st_ = case.dtype, CXX_DTYPES[case.args[1]]
            tr, tc, vr, vc = ints(case.args[2:])
            src = tile(st_, (tr, tc), (vr, vc), case.read("input.bin", st_, tr, tc))
            scale, offset = (tile(dt, (tr, 1), (vr, 1), case.read(f, dt, tr, 1), blayout="col_major")
                             for f in ("scale.bin", "offset.bin"))
            dst = tile(dt, (tr, tc), (vr, vc))
            pto.tdequant(dst, src, scale, offset, target="cpu")
            score(row, case, verbose, (stored(dst, (tr, tc)), case.read("golden.bin", dt, tr, tc), dt))
    return row


def run_tci(folder: Path, st: Path, verbose: bool) -> Row:
    """``run_case<descending>(kStart..)``: TCI into a 1 x kCols i32 tile from main.cpp's start constant."""
    row = Row(folder.name)
    k = constants(folder)
    main = (folder / "main.cpp").read_text()
    for case in each_case(folder, st, row, _has_data, exempt=lambda c: True):
        with refusals(row, case):
            start = k[_START.search(main, main.index(f", {case.name})")).group(1)]
            dst = tile("i32", (1, k["kCols"]))
            pto.tci(dst, start, descending=case.args[0] == "1", target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", "i32", 1, k["kCols"]), "i32"))
    return row


def run_ttrans(folder: Path, st: Path, verbose: bool) -> Row:
    """``LaunchTest<DType>``: TTRANS of main.cpp's M x N ``x1_gm.bin`` (a tile with 32-byte rows) into an
    N x M tile, stored and compared with ``golden.bin``."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    m = int(main.split("constexpr uint32_t M = ", 1)[1].split(";", 1)[0])
    n = int(main.split("constexpr uint32_t N = ", 1)[1].split(";", 1)[0])
    for case in each_case(folder, st, row):
        with refusals(row, case):
            dt = case.dtype
            size = pto.get_dtype(dt).size
            up = (lambda v: -(-v * size // 32) * 32 // size)
            src = tile(dt, (m, up(n)), (m, n), case.read("x1_gm.bin", dt, m, n))
            dst, tmp = tile(dt, (n, up(m)), (n, m)), tile(dt, (n, up(m)), (n, m))
            pto.ttrans(dst, src, tmp, target="cpu")
            score(row, case, verbose, (stored(dst, (n, m)), case.read("golden.bin", dt, n, m), dt))
    return row


ADAPTERS = {"tsort32": run_tsort32, **{f: run_tpart for f in ("tpartmax", "tpartmin", "tpartadd")},
            "tcolexpand": run_tcolexpand, "trowexpand": run_trowexpand, "tdequant": run_tdequant, "tci": run_tci,
            "ttrans": run_ttrans}


_TMOV_TEST = re.compile(r"^TMOV_TEST\(([^)]*)\)", re.M)
_LAYOUTS = {("RowMajor", "NoneBox"): ("row_major", "none_box"), ("ColMajor", "NoneBox"): ("col_major", "none_box"),
            ("ColMajor", "RowMajor"): ("col_major", "row_major"), ("RowMajor", "ColMajor"): ("row_major", "col_major"),
            ("RowMajor", "RowMajor"): ("row_major", "row_major"), ("ColMajor", "ColMajor"): ("col_major", "col_major")}


def run_tmov(folder: Path, st: Path, verbose: bool) -> Row:
    """``TMOV_TEST(T, rows, cols, validRow, validCol, srcLoc, srcBL, srcSL, dstLoc, dstBL, dstSL)``: main.cpp
    fills a validRow x validCol global with its own data (``std::rand() / 1000.0``), TLOADs it into src, TMOVs
    to dst and TSTOREs dst; the stored values must equal the data exactly. Here the data are seeded random
    values of the same kind (whole thousands and their fractions)."""
    main = (folder / "main.cpp").read_text()
    tests = [[a.strip() for a in m.split(",")] for m in _TMOV_TEST.findall(main)]
    row = Row(folder.name, cases=len(tests))
    rng = np.random.default_rng(2026)
    for a in tests:
        name = "_".join(a)
        dt = CXX_DTYPES.get(a[0])
        r, c, vr, vc = (int(v) for v in a[1:5])
        src_lay, dst_lay = _LAYOUTS.get((a[6], a[7])), _LAYOUTS.get((a[9], a[10]))
        if dt is None or src_lay is None or dst_lay is None:
            row.not_mapped += 1
            row.reasons.append(f"{name}: no tilesim dtype or layout")
            continue
        with np.errstate(over="ignore"):                           # past f16's range: inf, as a C++ cast
            data = (rng.integers(0, 2**31, (vr, vc)) / 1000.0).astype(pto.get_dtype(dt).np)
        case = Case(name, [], folder, 0.0, dt)
        with refusals(row, case):
            src = tile(dt, (r, c), (vr, vc), loc=a[5].lower(), blayout=src_lay[0], slayout=src_lay[1])
            dst = tile(dt, (r, c), (vr, vc), loc=a[8].lower(), blayout=dst_lay[0], slayout=dst_lay[1])
            pto.tload(src, data, target="cpu")
            pto.tmov(dst, src, target="cpu")
            out = pto.tstore(np.zeros_like(data), dst, target="cpu")
            score(row, case, verbose, (out.view(dst.dtype.lane), data.view(dst.dtype.lane), dt))
    return row


def run_trandom(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_trandom<T, ROWS, COLS>``: TRANDOM with the key (2 words) and counter (4 words) of ``key.bin`` and
    ``counter.bin`` into a ROWS x COLS tile; main.cpp's check: the output is neither all zeros nor constant
    (the values themselves are checked bit for bit by the pto-isa bank)."""
    row = Row(folder.name)

    def form(c):
        return None if c.dir is not None and len(c.args) == 3 and c.dtype else "not the form, or no data"

    for case in each_case(folder, st, row, form, exempt=lambda c: True):      # no ResultCmp: no eps
        with refusals(row, case):
            dt = case.dtype
            r, c = ints(case.args[1:])
            key, counter = case.read("key.bin", "u32", 1, 2).ravel(), case.read("counter.bin", "u32", 1, 4).ravel()
            dst = tile(dt, (r, c))
            pto.trandom(dst, *(int(k) for k in key), *(int(k) for k in counter), target="cpu")
            ok = bool((dst.bits != 0).any() and (dst.bits != dst.bits.flat[0]).any())
            row.passed, row.failed = row.passed + ok, row.failed + (not ok)
    return row


def run_tprefetch(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tprefetch<T, GROWS, GCOLS, TROWS, TCOLS>``: TLOAD of ``input.bin`` into a TROWS x TCOLS tile,
    TPREFETCH from that tile into another (the tile form, PTO163), TSTORE; compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the form"):
        with refusals(row, case):
            dt = case.dtype
            gr, gc, tr, tc = ints(case.args[1:])
            src, dst = tile(dt, (tr, tc), None, case.read("input.bin", dt, gr, gc)), tile(dt, (tr, tc))
            pto.tprefetch(dst, src, target="cpu")
            score(row, case, verbose, (stored(dst, (gr, gc)), case.read("golden.bin", dt, gr, gc), dt))
    return row


ADAPTERS.update({"tmov": run_tmov, "trandom": run_trandom, "tprefetch": run_tprefetch})
