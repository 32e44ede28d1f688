"""Folders of instructions that read or write by index or by power: TSCATTER (index and mask forms),
MGATHER/MSCATTER (and MGATHER into L1), TPOW and TPOWS."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError

from ptoisa_st import CXX_DTYPES, Case, Row, _int, each_case, eps_of, generate, refusals, score


def _score(row: Row, case: str, got: np.ndarray, want: np.ndarray, d, eps: float, verbose: bool) -> None:
    """:func:`ptoisa_st.score` for the adapters below, which read their cases from kernel macros themselves."""
    score(row, Case(case, [], None, eps, d.name), verbose, (got, want, d.name))


def run_pow(folder: Path, st: Path, verbose: bool) -> Row:
    """TPOW: ``<T, GROWS, GCOLS, TROWS, TCOLS, VROWS, VCOLS>``; base and exponent the top-left VROWS x VCOLS of
    ``input1.bin`` and ``input2.bin`` (GROWS x GCOLS), dst's valid region against ``golden.bin``'s."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 7 else "not the folder's form"):
        with refusals(row, case):
            dt = case.dtype
            gr, gc, tr, tc, vr, vc = (_int(a) for a in case.args[1:])
            read = lambda f: case.read(f, dt, gr, gc)[:vr, :vc]  # noqa: E731
            base, exp, dst, tmp = (pto.Tile("vec", dt, tr, tc, valid=(vr, vc)) for _ in range(4))
            base.bits[:vr, :vc], exp.bits[:vr, :vc] = read("input1.bin"), read("input2.bin")
            pto.tpow(dst, base, exp, tmp, target="cpu")
            score(row, case, verbose, (dst.valid_bits, read("golden.bin"), dt))
    return row


_POWS_CASE = re.compile(r"launchTPOWSCase(\d+)\([^)]*\)\s*\{\s*runTPowS<(\w+),\s*([\d,\s]+)>")


def run_pows(folder: Path, st: Path, verbose: bool) -> Row:
    """TPOWS: each ``launchTPOWSCaseN`` of the kernel runs ``runTPowS<T, VROWS, VCOLS[, IROWS, ICOLS, OROWS,
    OCOLS]>`` (case folder ``TPOWSTest.caseN``): src ``input.bin`` (IROWS x ICOLS), the scalar ``scalar.bin``,
    dst's valid region against ``golden.bin`` (OROWS x OCOLS) at main.cpp's eps."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    row.cases = len(re.findall(r"TEST_F\(", main))
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        dirs = generate(folder, st, Path(tmp), row)
        for n, cxx, dims in _POWS_CASE.findall(kernel):
            case, case_dir, eps = f"case{n}", dirs.get(f"TPOWSTest.case{n}"), eps_of(main, cxx)
            v = [int(x) for x in dims.split(",")]
            if cxx not in CXX_DTYPES or case_dir is None or eps is None or len(v) not in (2, 6):
                row.not_mapped += 1
                row.reasons.append(f"{case}: not the folder's form, or no data")
                continue
            d = pto.get_dtype(CXX_DTYPES[cxx])
            vr, vc, ir, ic, orow, ocol = v if len(v) == 6 else v * 3
            src = pto.Tile("vec", d.name, ir, ic, valid=(vr, vc))
            src.bits[:vr, :vc] = np.fromfile(case_dir / "input.bin", d.lane, ir * ic).reshape(ir, ic)[:vr, :vc]
            scalar = np.fromfile(case_dir / "scalar.bin", d.lane, 1).view(d.np)[0]
            dst = pto.Tile("vec", d.name, orow, ocol, valid=(vr, vc))
            try:
                pto.tpows(dst, src, scalar, pto.Tile("vec", d.name, orow, ocol, valid=(vr, vc)), target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", d.lane, orow * ocol).reshape(orow, ocol)[:vr, :vc]
            _score(row, case, dst.valid_bits, want, d, eps, verbose)
        row.not_mapped += row.cases - len(_POWS_CASE.findall(kernel))
    return row


_DEFINE = re.compile(r"#define\s+(\w+)\s+(\d+)\s*$", re.M)
_SCATTER_LAUNCH = re.compile(r"launchTSCATTER_(\w+)\([^)]*\)\s*\{\s*runTScatterMasked(Col)?<\s*(\w+)\s*,([^>]*?),"
                             r"\s*MaskPattern::(P\d{4})\s*>")
_SCATTER_TEST = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{[^}]*?(test_tscatter|test_scatter_masked\w*)"
                           r"<([^>]*)>")


def _dims(text: str, macros: dict) -> list[int]:
    """``FLOAT_P0101_COL / 2, 8`` -> [32, 8]: the folder's #define integers put in, then integer arithmetic."""
    out = []
    for part in text.split(","):
        expr = re.sub(r"[A-Za-z_]\w*", lambda m: str(macros[m.group(0)]), part).replace("/", "//")
        if not re.fullmatch(r"[\d\s+*/()-]+", expr):
            raise ValueError(part)
        out.append(int(eval(expr, {"__builtins__": {}})))  # digits and operators only (checked above)
    return out


def run_scatter(folder: Path, st: Path, verbose: bool) -> Row:
    """TSCATTER: ``test_tscatter<ROWS, COLS, IROWS, ICOLS>`` (f32 src ``input1.bin``, u16 storage offsets
    ``input2.bin``, dst zeroed by TEXPANDS first), and the mask forms, whose TEST_F names a launcher key that
    the kernel's ``launchTSCATTER_<KEY>`` maps to ``runTScatterMasked[Col]<T, SROWS, SCOLS, DROWS, DCOLS,
    MaskPattern::P>`` (sizes from tscatter_common.h's #defines; src ``x1_gm.bin``); dst against ``golden.bin``."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    text = "".join(p.read_text() for p in (*folder.glob("*_kernel.cpp"), *folder.glob("*.h")))
    macros = {k: int(v) for k, v in _DEFINE.findall(text)}
    launch = {key: (col, cxx, dims, pat) for key, col, cxx, dims, pat in _SCATTER_LAUNCH.findall(text)}
    tests = _SCATTER_TEST.findall(main)
    row.cases = len(re.findall(r"TEST_F\(", main))
    row.not_mapped += row.cases - len(tests)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        dirs = generate(folder, st, Path(tmp), row)
        for suite, case, fn, targs in tests:
            args = [a.strip() for a in targs.split(",")]
            case_dir = dirs.get(f"{suite}.{case}")
            try:
                if fn == "test_tscatter":
                    cxx, (dr, dc, ir, ic) = "float", _dims(targs, macros)
                    sr, sc, pat, col = dr, dc, None, ""
                else:
                    col, cxx, dims, pat = launch[args[1]]
                    sr, sc, dr, dc = _dims(dims, macros)
            except (KeyError, ValueError):
                row.not_mapped += 1
                row.reasons.append(f"{case}: not the folder's form")
                continue
            eps = eps_of(main, cxx)
            if cxx not in CXX_DTYPES or case_dir is None or eps is None:
                row.not_mapped += 1
                row.reasons.append(f"{case}: no data or eps")
                continue
            d = pto.get_dtype(CXX_DTYPES[cxx])
            src, dst = pto.Tile("vec", d.name, sr, sc), pto.Tile("vec", d.name, dr, dc)
            try:
                if pat is None:
                    src.bits[...] = np.fromfile(case_dir / "input1.bin", d.lane, sr * sc).reshape(sr, sc)
                    idx = pto.Tile("vec", "u16", ir, ic)
                    idx.bits[...] = np.fromfile(case_dir / "input2.bin", np.uint16, ir * ic).reshape(ir, ic)
                    pto.tscatter(dst, src, idx, target="cpu")
                else:
                    src.bits[...] = np.fromfile(case_dir / "x1_gm.bin", d.lane, sr * sc).reshape(sr, sc)
                    pto.tscatter(dst, src, mask_pattern=pat, axis="col" if col else "row", target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", d.lane, dr * dc).reshape(dr, dc)
            _score(row, case, dst.bits, want, d, eps, verbose)
    return row


#: the mgather/mscatter kernels' DEFINE_<KIND>(NAME, THOST, T, TIDX, ...) fields after TIDX (then the modes):
#: R x C the valid region (N: 1 x N), TR the table's rows (of C, or TC), TS a flat table's size; "_" unused
GM_INDEX_FIELDS = {"ROW": "R C TR", "ROW_PAD": "R _ C TR", "ROW_COLIDX": "R C TR", "ELEM": "N TS",
                   "ELEM2D": "R C TS", "ELEM2D_PAD": "R C _ _ TS", "ELEM2D_DYN": "_ _ R C TR TC",
                   "ROW_DYN": "_ _ _ R C TR", "ELEM2D_CHUNKED": "R C _ TS", "ELEM2D_DYN_UB": "R C TS _",
                   "ROW_L1": "R C TR", "ELEM_L1": "R C TS", "ELEM_L1_SIMT": "R C TS"}  # *_L1: mgather_gm2l1
_DEFINE_CALL = re.compile(r"^DEFINE_(\w+)\(", re.M)


def _macro_calls(text: str):
    """(kind, [arguments]) of each ``DEFINE_KIND(...)`` statement (not ``#define``), arguments split at the
    top-level commas (they may hold parenthesised arithmetic)."""
    for m in _DEFINE_CALL.finditer(text):
        depth, args, cur = 1, [], ""
        for ch in text[m.end():]:
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                break
            if ch == "," and depth == 1:
                args.append(cur.strip())
                cur = ""
            else:
                cur += ch
        yield m.group(1), args + [cur.strip()]


def run_gm_index(folder: Path, st: Path, verbose: bool) -> Row:
    """MGATHER/MSCATTER: each kernel ``DEFINE_<KIND>(NAME, THOST, T, TIDX, <sizes>, [ATOMIC,] OOB[, CONFLICT])``
    is the test ``case_NAME`` (sizes by :data:`GM_INDEX_FIELDS`); MGATHER reads ``table.bin`` and
    ``indices.bin`` into a dst of the valid region, MSCATTER writes ``src.bin`` into a zeroed table; the result
    against ``golden.bin`` (eps 0: ResultCmp exact)."""
    row = Row(folder.name)
    gather = folder.name.startswith("mgather")
    main = (folder / "main.cpp").read_text()
    suite = (re.findall(r"TEST_F\(\s*(\w+)\s*,", main) or ["?"])[0]
    calls = {a[0]: (kind, a) for kind, a in _macro_calls("".join(p.read_text() for p in folder.glob("*_kernel.cpp")))}
    tests = re.findall(r"^\w+_TEST\((\w+),", main, re.M)
    row.cases = len(tests)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        dirs = generate(folder, st, Path(tmp), row)
        for name in tests:
            case, (kind, a) = f"case_{name}", calls.get(name, ("?", []))
            case_dir = dirs.get(f"{suite}.{case}")
            if kind not in GM_INDEX_FIELDS or a[1] not in CXX_DTYPES or case_dir is None:
                row.not_mapped += 1
                row.reasons.append(f"{case}: no kernel definition of a known form, or no data")
                continue
            names = GM_INDEX_FIELDS[kind].split()
            f = dict(zip(names, _dims(",".join(a[4: 4 + len(names)]), {})))
            modes = [m.lower() for m in a[4 + len(names):]]
            R, C = f.get("R", 1), f.get("C", f.get("N"))
            coalesce = "row" if kind.startswith("ROW") else "elem"
            table_shape = (f["TR"], C) if coalesce == "row" else (f.get("TS") or f["TR"] * f["TC"],)
            d = pto.get_dtype(CXX_DTYPES[a[1]])
            cols = -(-C * d.size // 32) * 32 // d.size
            n_idx = R if coalesce == "row" else R * C
            raw = np.fromfile(case_dir / "indices.bin", np.int32, n_idx)
            raw = raw.reshape((1, R) if coalesce == "row" else (R, C))
            if kind.endswith(("L1", "L1_SIMT")):  # dst a mat (Nz) tile, indexes in global memory
                t, idx = pto.Tile("mat", d.name, R, C, blayout="col_major", slayout="row_major"), raw
            else:
                t = pto.Tile("vec", d.name, R, cols, valid=(R, C))
                idx = pto.Tile("vec", "i32", raw.shape[0], -(-raw.shape[1] // 8) * 8, valid=raw.shape)
                idx.bits[:R if coalesce == "elem" else 1, :raw.shape[1]] = raw.view(np.uint32)
            try:
                if gather:
                    table = np.fromfile(case_dir / "table.bin", d.lane).reshape(table_shape)
                    out = pto.mgather(t, table, idx, coalesce=coalesce, oob=modes[0], target="cpu").valid_bits
                else:
                    t.bits[:R, :C] = np.fromfile(case_dir / "src.bin", d.lane, R * C).reshape(R, C)
                    out = pto.mscatter(np.zeros(table_shape, d.lane), t, idx, coalesce=coalesce, atomic=modes[0],
                                       oob=modes[1], conflict=modes[2], target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", d.lane, out.size).reshape(out.shape)
            _score(row, case, out, want, d, 0.0, verbose)
    return row




ADAPTERS = {"tpow": run_pow, "tpows": run_pows, "tscatter": run_scatter, "mgather": run_gm_index,
            "mscatter": run_gm_index, "mgather_gm2l1": run_gm_index}
