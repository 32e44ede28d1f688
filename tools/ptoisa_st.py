"""pto-isa's own CPU system tests (``tests/cpu/st/testcase/*``) run through tilesim.

    python tools/ptoisa_st.py PTO_ISA_CHECKOUT [--only tadd,tlog] [-v]

For each testcase folder the tool runs upstream's ``gen_data.py`` (in a temporary folder, with the checkout's
``tests/cpu/st/utils.py`` on the path, so nothing is written into the checkout), reads each case's ``TEST_F``
line in the folder's ``main.cpp`` (``test_op<T, GROWS, GCOLS, TROWS, TCOLS>()``: the dtype and the global and
tile shapes), the input files in the order ``main.cpp`` reads them and the ``eps`` it passes to ``ResultCmp``,
runs the op on target ``cpu`` over tiles of that shape and compares tilesim's output with upstream's
``golden.bin`` by the ``ResultCmp`` rule (:func:`tilesim.pto.result_cmp`), also counting outputs equal bit
for bit. It prints one row per folder: cases, pass, fail, refused (tilesim raised), not mapped, and the reason
a folder or case is not mapped. Nothing of pto-isa is copied into tilesim; the tool only reads the checkout.

A folder is mapped when its kernel is the plain one: TLOAD of each input into a row-major vec tile of
``TROWS x TCOLS`` (valid the whole tile), the op, TSTORE of dst (``tadd_kernel.cpp`` and its kin). Folders with
other kernels are listed with the reason they are not mapped yet.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError

#: C++ element types of the test templates -> tilesim dtypes
CXX_DTYPES = {"float": "f32", "aclFloat16": "f16", "half": "f16", "bfloat16_t": "bf16", "int32_t": "i32",
              "int16_t": "i16", "int8_t": "i8", "uint32_t": "u32", "uint16_t": "u16", "uint8_t": "u8",
              "int64_t": "i64", "uint64_t": "u64"}

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
        dirs = generate(folder, st, Path(tmp))
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
        dirs = generate(folder, st, Path(tmp))
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


#: folders whose kernel is the plain one, and the roles after dst that their inputs fill, in main.cpp's order
PLAIN = {
    **{op: ("src0", "src1") for op in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin", "tand", "tor", "tshl",
                                       "tshr", "tfmod")},
    "txor": ("src0", "src1", "tmp"), "trem": ("src0", "src1", "tmp"),
    **{op: ("src",) for op in ("tabs", "tneg", "texp", "tlog", "trecip", "trelu", "tnot", "tsqrt", "trsqrt")},
    **{op: ("src", "@scalar") for op in ("tands", "tors", "tfmods", "tmaxs", "tmins", "tsubs")},
    **{op: ("src", "@scalar", "tmp") for op in ("txors", "trems")},
    **{op: ("src0", "src1", "src2") for op in ("taddc", "tsubc")},
    **{op: ("src0", "@scalar", "src1") for op in ("taddsc", "tsubsc")},
    "tlrelu": ("src", "@scalar"), "tprelu": ("src0", "src1", "tmp"),
    **{op: ("src", "@scalar") for op in ("tshls", "tshrs", "tcmps")}, "tpairreducesum": ("src",),
}
#: folders whose dst has another dtype than the sources, and the op's keyword arguments from the template's
#: arguments after the shapes (TCMPS: ``<T, R, C, R, C, CmpMode>``, a u8 mask)
DST_DTYPE = {"tcmps": "u8"}
KWARGS = {"tcmps": lambda a: {"cmp_mode": ("eq", "ne", "lt", "le", "gt", "ge")[a[4]]}}

#: where the call's roles take the files in another order than main.cpp reads them (role i <- file ORDER[i])
FILE_ORDER = {"taddsc": (0, 2, 1), "tsubsc": (0, 2, 1)}

#: how a folder's template arguments after T give (src tile, dst tile, valid region = the global tensor); the
#: default is ``<T, GROWS, GCOLS, ROWS, COLS>`` with the global the whole tile
SHAPES = {
    **{op: lambda a: ((a[2], a[3]), (a[0], a[1]), (a[2], a[3])) for op in ("tfmod", "tfmods", "trem", "trems")},
    "tnot": lambda a: ((a[0], a[1]), (a[2], a[3]), (a[4], a[5])),
    "tsqrt": lambda a: _plain_shapes(a[:4]),                       # <..., inPlace>: the same values
    "tcmps": lambda a: _plain_shapes(a[:4]),
    "tpairreducesum": lambda a: ((a[0], a[1]),) * 3,               # <T, ROWS, COLS>
    **{op: lambda a: ((a[4], a[5]), (a[4], a[5]), (a[2], a[3])) if (a[0], a[1]) == (a[2], a[3]) else None
       for op in ("tshls", "tshrs", "trsqrt")},                   # <T, DST, SRC, TILE>: valid DST == SRC
}


def _plain_shapes(a: list):
    if len(a) != 4 or (a[0], a[1]) != (a[2], a[3]) or not all(isinstance(v, int) for v in a):
        return None
    return (a[2], a[3]), (a[2], a[3]), (a[2], a[3])


#: folders named otherwise than their instruction
OP_OF = {"tfusemuladd": "tfusedmuladd", "tfusemuladdrelu": "tfusedmuladdrelu"}

#: why a folder is not mapped, where that is known (the rest: "kernel not the plain one")
NOT_MAPPED = {
    "tisa_coverage": "not an instruction test (a list of entry points)",
    "tflashattn": "not an instruction test (a kernel of many instructions)",
}


@dataclass
class Row:
    folder: str
    cases: int = 0
    passed: int = 0
    failed: int = 0
    refused: int = 0
    not_mapped: int = 0
    exact: int = 0
    reasons: list[str] = field(default_factory=list)


_TEST = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{\s*(\w+)<([^>]*)>\(\s*\)\s*;\s*\}")
_READ = re.compile(r'ReadFile\(\s*GetGoldenDir\(\)\s*\+\s*"/([\w.]+)"')
_EPS = re.compile(r"ResultCmp(?:<[^>]*>)?\(\s*\w+\s*,\s*\w+\s*,\s*([0-9.eE+-]+)f?\s*\)")


_EPS_VAR = re.compile(r"float\s+eps\s*=\s*([0-9.eE+-]+)f?\s*;")
_EPS_PICK = re.compile(r"float\s+eps\s*=\s*std::is_same_v<\s*T\s*,\s*(\w+)\s*>\s*\?\s*([0-9.eE+-]+)f?\s*:\s*"
                       r"([0-9.eE+-]+)f?\s*;")
_EPS_TYPE = re.compile(r"is_same_v<\s*T\s*,\s*(\w+)\s*>\s*\)\s*\{\s*eps\s*=\s*([0-9.eE+-]+)f?\s*;")


def eps_of(main: str, cxx_type: str) -> float | None:
    """The eps main.cpp passes to ResultCmp for element type ``cxx_type``: one literal, or a variable
    ``float eps = D;`` set per type by ``if constexpr (std::is_same_v<T, X>) { eps = E; }``, or
    ``float eps = std::is_same_v<T, X> ? A : B;``; None if unclear."""
    literals = {float(e) for e in _EPS.findall(main)}
    if len(literals) == 1:
        return literals.pop()
    pick = _EPS_PICK.findall(main)  # float eps = std::is_same_v<T, X> ? A : B;
    if not literals and len(pick) == 1:
        x, a, b = pick[0]
        return float(a if x == cxx_type else b)
    default = _EPS_VAR.findall(main)
    if literals or len(default) != 1:
        return None
    return float(dict(_EPS_TYPE.findall(main)).get(cxx_type, default[0]))


def _int(word: str) -> int:
    """``64`` or ``NUM_64`` (the tests' constants)."""
    m = re.fullmatch(r"(?:NUM_)?(\d+)", word.strip())
    if not m:
        raise ValueError(word)
    return int(m.group(1))


def generate(folder: Path, st: Path, work: Path) -> dict[str, Path]:
    """Run upstream's gen_data.py in ``work``; returns each case's folder (``Suite.case``) by name (some scripts
    write them beside themselves, some under ``testcases/``)."""
    shutil.copy(folder / "gen_data.py", work / "gen_data.py")
    env = {"PYTHONPATH": str(st), "PATH": "/usr/bin:/bin", "PTO_CPU_SIM_ENABLE_BF16": "1"}
    subprocess.run([sys.executable, "gen_data.py"], cwd=work, env=env, check=True, capture_output=True,
                   timeout=600)
    return {p.name: p for p in (*work.glob("*.*"), *work.glob("testcases/*.*")) if p.is_dir()}


def run_case(op: str, roles: tuple[str, ...], dt: str, shapes, files: list[Path], dst_dt: str | None = None,
             **kwargs):
    """tilesim's dst for one plain-kernel case: ``shapes`` = (src tile, dst tile, valid region); each role but
    ``tmp`` (a fresh tile) takes the next file (the valid region's elements), ``@scalar`` its first element."""
    d = pto.get_dtype(dt)
    src_shape, dst_shape, valid = shapes
    vr, vc = valid
    dst = pto.Tile("vec", dst_dt or dt, *dst_shape, valid=valid)
    args, rest = [], iter(files)
    for role in roles:
        if role == "tmp":
            args.append(pto.Tile("vec", dt, *src_shape, valid=valid))
        elif role == "@scalar":
            args.append(np.fromfile(next(rest), d.lane, 1).view(d.np)[0])
        else:
            t = pto.Tile("vec", dt, *src_shape, valid=valid)
            t.bits[:vr, :vc] = np.fromfile(next(rest), d.lane, vr * vc).reshape(vr, vc)
            args.append(t)
    getattr(pto, op)(dst, *args, **kwargs, target="cpu")
    return dst


def templated_cases(folder: Path, st: Path, work: Path, row: Row, nargs: int):
    """The common prelude of the adapters whose TEST_F bodies are one templated call ``f<T, int...>()``: runs
    gen_data.py in ``work``, counts the cases into ``row`` and yields (case, dtype, the int arguments after T,
    case folder, eps) for those of ``nargs`` arguments with data; the rest are counted as not mapped."""
    main = (folder / "main.cpp").read_text()
    tests = _TEST.findall(main)
    row.cases = len(re.findall(r"TEST_F\(", main))
    row.not_mapped += row.cases - len(tests)
    dirs = generate(folder, st, work)
    for suite, case, _fn, targs in tests:
        args = [a.strip() for a in targs.split(",")]
        case_dir, eps = dirs.get(f"{suite}.{case}"), eps_of(main, args[0])
        if args[0] not in CXX_DTYPES or case_dir is None or eps is None or len(args) != nargs:
            row.not_mapped += 1
            row.reasons.append(f"{case}: not the folder's form, or no data")
            continue
        yield case, pto.get_dtype(CXX_DTYPES[args[0]]), [_int(a) for a in args[1:]], case_dir, eps


_CONST = re.compile(r"constexpr\s+(?:int|float)\s+(k\w+)\s*=\s*([0-9.]+)f?\s*;")


def run_part_arg(folder: Path, st: Path, verbose: bool) -> Row:
    """TPARTARGMAX/MIN folders: f32 values and u32 indices; src0 and dst ``kRows x kCols``, src1 the
    ``kValidRows1 x kValidCols1`` top-left of its file (the kernel's TLOAD); both outputs compared with
    ResultCmp at main.cpp's ``kEpsilon``."""
    op = folder.name
    row = Row(op)
    main = (folder / "main.cpp").read_text()
    k = {n: float(v) for n, v in _CONST.findall(main)}
    R, C, r1, c1 = (int(k[n]) for n in ("kRows", "kCols", "kValidRows1", "kValidCols1"))
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{op}-") as tmp:
        for name, case_dir in sorted(generate(folder, st, Path(tmp)).items()):
            row.cases += 1
            read = {f: np.fromfile(case_dir / f"{f}.bin", np.uint32).reshape(R, C)
                    for f in ("input0_val", "input1_val", "input0_idx", "input1_idx", "golden_val", "golden_idx")}
            tiles = []
            for dt, file, (vr, vc) in (("f32", None, (R, C)), ("u32", None, (R, C)), ("f32", "input0_val", (R, C)),
                                       ("f32", "input1_val", (r1, c1)), ("u32", "input0_idx", (R, C)),
                                       ("u32", "input1_idx", (r1, c1))):
                t = pto.Tile("vec", dt, vr, vc)
                if file:
                    t.bits[...] = read[file][:vr, :vc]
                tiles.append(t)
            try:
                getattr(pto, op)(*tiles, target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{name}: refused: {e.rule}")
                continue
            ok, exact = True, True
            for t, gold, dt in ((tiles[0], read["golden_val"], np.float32), (tiles[1], read["golden_idx"], np.uint32)):
                got, want = t.bits.view(dt).astype(np.float64), gold.view(dt).astype(np.float64)
                ok &= pto.result_cmp(got, want, k["kEpsilon"]).passed
                exact &= bool((t.bits == gold).all())
            row.passed += ok
            row.failed += not ok
            row.exact += exact
            if verbose and not ok:
                row.reasons.append(f"{name}: fails")
    return row


_TILE_USING = re.compile(r"using\s+(Src|Dst)Tile\s*=\s*Tile<\s*TileType::Vec\s*,\s*(\w+)\s*,\s*(\d+)\s*,\s*(\d+)\s*>")


def run_reshape(folder: Path, st: Path, verbose: bool) -> Row:
    """The TRESHAPE folder has no data: its one test declares ``SrcTile`` and ``DstTile`` and checks that dst
    aliases src (writes through either show in the other); the same property is checked on tilesim's tiles."""
    row = Row(folder.name, cases=1)
    tiles = {k: (CXX_DTYPES.get(t), int(r), int(c)) for k, t, r, c in _TILE_USING.findall(
        (folder / "main.cpp").read_text())}
    if set(tiles) != {"Src", "Dst"} or None in (tiles["Src"][0], tiles["Dst"][0]):
        row.not_mapped, row.reasons = 1, ["no SrcTile/DstTile pair of known types in main.cpp"]
        return row
    src, dst = (pto.Tile("vec", *tiles[k]) for k in ("Src", "Dst"))
    src.bits.reshape(-1)[...] = np.arange(1, src.numel + 1).astype(src.dtype.lane)
    try:
        pto.treshape(dst, src, target="cpu")
    except TilesimError as e:
        row.refused, row.reasons = 1, [f"refused: {e.rule}"]
        return row
    same = dst.bits.tobytes() == src.bits.tobytes()
    src.bits.reshape(-1)[-1] = 0
    dst.bits.reshape(-1)[0] = 0
    ok = same and dst.bits.tobytes() == src.bits.tobytes()
    row.passed, row.failed, row.exact = int(ok), int(not ok), int(ok)
    return row


_SUBVIEW_AT = re.compile(r"runTSubView<[^>]*>\([^;]*?,\s*(\d+)\s*,\s*(\d+)\s*\)\s*;")


def run_subview(folder: Path, st: Path, verbose: bool) -> Row:
    """TSUBVIEW folders: ``<T, GROWS, GCOLS, TROWS, TCOLS, SUBROWS, SUBCOLS>``; src a TROWS x TCOLS tile holding
    ``input.bin``, dst a tile of src's type with valid SUBROWS x SUBCOLS viewed at the kernel's (rowIdx, colIdx)
    (one pair for every case, read from the kernel), compared with ``golden.bin`` by ResultCmp."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    at = set(_SUBVIEW_AT.findall(kernel))
    if len(at) != 1:
        row.cases = row.not_mapped = len(re.findall(r"TEST_F\(", main))
        row.reasons = ["the kernel's (rowIdx, colIdx) is not one literal pair"]
        return row
    r, c = (int(v) for v in at.pop())
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        for case, d, shape, case_dir, eps in templated_cases(folder, st, Path(tmp), row, 7):
            gr, gc, tr, tc, sr, sc = shape
            src = pto.Tile("vec", d.name, tr, tc, valid=(gr, gc))
            src.bits[:gr, :gc] = np.fromfile(case_dir / "input.bin", d.lane, gr * gc).reshape(gr, gc)
            try:
                dst = pto.tsubview(pto.Tile("vec", d.name, tr, tc, valid=(sr, sc)), src, r, c, target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", d.lane, sr * sc).reshape(sr, sc)
            gold = pto.Tile("vec", d.name, sr, max(sc, 32 // d.size), valid=(sr, sc))
            gold.bits[:, :sc] = want
            got = np.asarray(dst.valid_values, np.float64)
            res = pto.result_cmp(got, np.asarray(gold.valid_values, np.float64), eps)
            row.passed += res.passed
            row.failed += not res.passed
            row.exact += bool((dst.valid_bits == want).all())
            if verbose and not res.passed:
                row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")
    return row


def run_gatherb(folder: Path, st: Path, verbose: bool) -> Row:
    """TGATHERB folders: ``<T, DSTROWS, DSTCOLS, OFFROWS, OFFCOLS, SRCROWS, SRCCOLS>``; src from ``x.bin``,
    a u32 offset tile from ``offset.bin``, dst compared with ``golden.bin`` by ResultCmp at main.cpp's eps."""
    row = Row(folder.name)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        for case, d, shape, case_dir, eps in templated_cases(folder, st, Path(tmp), row, 7):
            dr, dc, orows, ocols, sr, sc = shape
            src, off, dst = (pto.Tile("vec", dt, r, c) for dt, r, c in ((d.name, sr, sc), ("u32", orows, ocols),
                                                                           (d.name, dr, dc)))
            src.bits[...] = np.fromfile(case_dir / "x.bin", d.lane, sr * sc).reshape(sr, sc)
            off.bits[...] = np.fromfile(case_dir / "offset.bin", np.uint32, orows * ocols).reshape(orows, ocols)
            try:
                pto.tgatherb(dst, src, off, target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", d.lane, dr * dc).reshape(dr, dc)
            res = pto.result_cmp(np.asarray(dst.values, np.float64),
                                 np.asarray(want.view(d.np), np.float64), eps)
            row.passed += res.passed
            row.failed += not res.passed
            row.exact += bool((dst.bits == want).all())
            if verbose and not res.passed:
                row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")
    return row


def _score(row: Row, case: str, got: np.ndarray, want: np.ndarray, d, eps: float, verbose: bool) -> None:
    """Count one case: ResultCmp of dst's lanes ``got`` against golden lanes ``want`` (dtype d), and bit equality."""
    res = pto.result_cmp(np.asarray(got.view(d.np), np.float64), np.asarray(want.view(d.np), np.float64), eps)
    row.passed += res.passed
    row.failed += not res.passed
    row.exact += bool((got == want).all())
    if verbose and not res.passed:
        row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")


def run_pow(folder: Path, st: Path, verbose: bool) -> Row:
    """TPOW: ``<T, GROWS, GCOLS, TROWS, TCOLS, VROWS, VCOLS>``; base and exponent the top-left VROWS x VCOLS of
    ``input1.bin`` and ``input2.bin`` (GROWS x GCOLS), dst's valid region against ``golden.bin``'s."""
    row = Row(folder.name)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        for case, d, shape, case_dir, eps in templated_cases(folder, st, Path(tmp), row, 7):
            gr, gc, tr, tc, vr, vc = shape
            read = lambda f: np.fromfile(case_dir / f, d.lane, gr * gc).reshape(gr, gc)[:vr, :vc]  # noqa: E731
            base, exp, dst = (pto.Tile("vec", d.name, tr, tc, valid=(vr, vc)) for _ in range(3))
            base.bits[:vr, :vc], exp.bits[:vr, :vc] = read("input1.bin"), read("input2.bin")
            try:
                pto.tpow(dst, base, exp, pto.Tile("vec", d.name, tr, tc, valid=(vr, vc)), target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            _score(row, case, dst.valid_bits, read("golden.bin"), d, eps, verbose)
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
        dirs = generate(folder, st, Path(tmp))
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


#: folders whose kernel is not the plain one, each with its own adapter
ADAPTERS = {"tpartargmax": run_part_arg, "tpartargmin": run_part_arg, "treshape": run_reshape,
            "tsubview": run_subview, "tgatherb": run_gatherb, "tpow": run_pow, "tpows": run_pows,
            "tscatter": run_scatter, "mgather": run_gm_index, "mscatter": run_gm_index,
            "mgather_gm2l1": run_gm_index}


def run_folder(folder: Path, st: Path, verbose: bool) -> Row:
    op = folder.name
    if op in ADAPTERS:
        return ADAPTERS[op](folder, st, verbose)
    row = Row(op)
    main = (folder / "main.cpp").read_text()
    tests = _TEST.findall(main)
    if op in NOT_MAPPED or op not in PLAIN:
        row.cases = len(re.findall(r"TEST_F\(", main))
        row.not_mapped = row.cases
        reason = NOT_MAPPED.get(op) or (f"no tilesim op named {op}" if OP_OF.get(op, op) not in pto.OPS
                                        else "kernel not the plain one (no adapter yet)")
        row.reasons.append(reason)
        return row
    reads = [f for f in _READ.findall(main) if f not in ("golden.bin", "output.bin")]
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{op}-") as tmp:
        case_dirs = generate(folder, st, Path(tmp))
        row.cases = len(re.findall(r"TEST_F\(", main))
        for suite, case, _fn, targs in tests:
            args = [a.strip() for a in targs.split(",")]
            case_dir = case_dirs.get(f"{suite}.{case}")
            eps = eps_of(main, args[0])
            if args[0] not in CXX_DTYPES or case_dir is None or eps is None:
                row.not_mapped += 1
                row.reasons.append(f"{case}: " + ("gen_data.py made no data" if case_dir is None else
                                                  f"dtype {args[0]}" if args[0] not in CXX_DTYPES else "eps"))
                continue
            try:
                values = [_int(a) if re.fullmatch(r"(?:NUM_)?\d+", a) else a for a in args[1:]]  # true, false ...
                shapes = SHAPES.get(op, _plain_shapes)(values)
            except (ValueError, IndexError, TypeError):
                shapes = None
            if shapes is None:
                row.not_mapped += 1
                row.reasons.append(f"{case}: template <{targs}> is not the folder's plain form")
                continue
            dt = CXX_DTYPES[args[0]]
            try:
                files = [case_dir / f for f in reads]
                files = [files[i] for i in FILE_ORDER.get(op, range(len(files)))]
                kw = KWARGS[op](values) if op in KWARGS else {}
                dst = run_case(op, PLAIN[op], dt, shapes, files, DST_DTYPE.get(op), **kw)
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            t_rows, t_cols = shapes[2]
            dt = DST_DTYPE.get(op, dt)
            d = pto.get_dtype(dt)
            golden = np.fromfile(case_dir / "golden.bin", d.lane)
            gold_tile = pto.Tile("vec", dt, *shapes[1], valid=shapes[2])
            if golden.size == t_rows * t_cols:
                gold_tile.bits[:t_rows, :t_cols] = golden.reshape(t_rows, t_cols)
                got, want = dst.valid_values, gold_tile.valid_values
            else:  # a packed stream (TCMPS's mask bytes): the first bytes of dst's valid region, row by row
                got, want = dst.valid_values.ravel()[: golden.size], golden.astype(np.float64)
            res = pto.result_cmp(np.asarray(got, np.float64), np.asarray(want, np.float64), eps)
            row.passed += res.passed
            row.failed += not res.passed
            row.exact += bool((np.asarray(got) == np.asarray(want)).all())
            if verbose and not res.passed:
                row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")
        row.not_mapped += row.cases - len(tests)
        if row.cases > len(tests):
            row.reasons.append(f"{row.cases - len(tests)} TEST_F bodies are not one templated call")
    return row


def main() -> None:
    ap = argparse.ArgumentParser(prog="ptoisa_st", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path, help="a pto-isa checkout (hw-native-sys/pto-isa)")
    ap.add_argument("--only", help="comma-separated testcase folders")
    ap.add_argument("-v", "--verbose", action="store_true", help="name each failing case")
    a = ap.parse_args()
    st = a.checkout / "tests" / "cpu" / "st"
    if not (st / "testcase").is_dir():
        ap.error(f"{a.checkout} has no tests/cpu/st/testcase (give a pto-isa checkout)")
    folders = sorted(p for p in (st / "testcase").iterdir() if (p / "main.cpp").is_file())
    if a.only:
        want = set(a.only.split(","))
        folders = [p for p in folders if p.name in want]
    commit = subprocess.run(["git", "-C", str(a.checkout), "rev-parse", "--short=8", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    print(f"pto-isa {commit}: {len(folders)} testcase folders")
    print(f"{'folder':22} {'cases':>5} {'pass':>5} {'fail':>5} {'refused':>7} {'not mapped':>10} {'exact':>5}  reason")
    total = Row("total")
    for folder in folders:
        r = run_folder(folder, st, a.verbose)
        for k in ("cases", "passed", "failed", "refused", "not_mapped", "exact"):
            setattr(total, k, getattr(total, k) + getattr(r, k))
        why = "; ".join(dict.fromkeys(r.reasons))
        print(f"{r.folder:22} {r.cases:5} {r.passed:5} {r.failed:5} {r.refused:7} {r.not_mapped:10} {r.exact:5}  "
              f"{why}")
    print(f"{'total':22} {total.cases:5} {total.passed:5} {total.failed:5} {total.refused:7} {total.not_mapped:10} "
          f"{total.exact:5}")
    sys.exit(1 if total.failed or total.refused else 0)


if __name__ == "__main__":
    main()
