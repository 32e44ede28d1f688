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
other kernels are listed with the reason they are not mapped yet, or run by an adapter of their own (one per
kernel shape, sharing :func:`_cases`): the communication folders through :mod:`tilesim.pto.comm`,
twait's thread scenarios as blocks of a generated ``.pto`` kernel.
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
from tilesim.pto import comm

#: C++ element types of the test templates -> tilesim dtypes
CXX_DTYPES = {"float": "f32", "aclFloat16": "f16", "half": "f16", "bfloat16_t": "bf16", "int32_t": "i32",
              "int16_t": "i16", "int8_t": "i8", "uint32_t": "u32", "uint16_t": "u16", "uint8_t": "u8",
              "int64_t": "i64", "uint64_t": "u64"}

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
    "tprefetch": ("src",),                                        # TPREFETCH(dstTile, srcTile): cpu copies
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
    **{f: "main.cpp builds its data and reference in C++ (no gen_data.py); the bank covers TQUANT's MX forms "
          "bit for bit (PTO145)" for f in ("tquant", "tquant_dn")},
    **{f: f"{op} of a ConvTile (NC1HWC0/FRACTAL_Z layouts): tilesim's ConvTile feeds TIMG2COL only (PTO140)"
       for f, op in (("textract_conv", "TEXTRACT"), ("tloadconv", "TLOAD"), ("tstore_conv", "TSTORE"),
                     ("ttrans_conv", "TTRANS"))},
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
_EPS_TYPE = re.compile(r"is_same_v<\s*T\s*,\s*(\w+)\s*>\s*\)\s*\{\s*eps\s*=\s*([0-9.eE+-]+)f?\s*;")


def eps_of(main: str, cxx_type: str) -> float | None:
    """The eps main.cpp passes to ResultCmp for element type ``cxx_type``: one literal, or a variable
    ``float eps = D;`` set per type by ``if constexpr (std::is_same_v<T, X>) { eps = E; }``; None if unclear."""
    literals = {float(e) for e in _EPS.findall(main)}
    if len(literals) == 1:
        return literals.pop()
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


_TEST_CALL = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{\s*(\w+)<(?:\w+<)?([^<>]*)>+\(([^)]*)\)\s*;\s*\}")


def _cases(folder: Path, st: Path, row: Row, fits, eps_type=lambda args: args[0], eps_needed: bool = True):
    """The prelude every adapter shares: count main.cpp's TEST_F bodies, run gen_data.py, and yield
    ``(case, template args, call args, case folder, eps)`` for each body that is one templated call whose
    template arguments ``fits(args)``, whose data gen_data.py wrote and whose ResultCmp eps (for the C++ type
    ``eps_type(args)``) main.cpp gives; the rest count as not mapped."""
    main = (folder / "main.cpp").read_text()
    tests = _TEST_CALL.findall(main)
    row.cases = len(re.findall(r"TEST_F\(", main))
    row.not_mapped += row.cases - len(tests)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        dirs = generate(folder, st, Path(tmp))
        for suite, case, _fn, targs, call in tests:
            args = [a.strip() for a in targs.split(",")]
            case_dir = dirs.get(f"{suite}.{case}")
            ok = fits(args)
            eps = eps_of(main, eps_type(args)) if ok else None
            if case_dir is None or not ok or (eps is None and eps_needed):
                row.not_mapped += 1
                row.reasons.append(f"{case}: not the folder's form, or no data")
                continue
            yield case, args, [a.strip() for a in call.split(",") if a.strip()], case_dir, eps


def _typed(n: int):
    """``fits`` for template arguments ``<T, n - 1 more>`` with T a known element type."""
    return lambda args: len(args) == n and args[0] in CXX_DTYPES


def _score(row: Row, case: str, got: np.ndarray, want: np.ndarray, dt: str, eps: float, verbose: bool) -> None:
    """Count one case: ``got`` and ``want`` are lanes of ``dt``, compared as its values by ResultCmp and bit
    for bit."""
    d = pto.get_dtype(dt)
    res = pto.result_cmp(np.asarray(got.view(d.np), np.float64), np.asarray(want.view(d.np), np.float64), eps)
    row.passed += res.passed
    row.failed += not res.passed
    row.exact += bool((got == want).all())
    if verbose and not res.passed:
        row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")


_SUBVIEW_AT = re.compile(r"runTSubView<[^>]*>\([^;]*?,\s*(\d+)\s*,\s*(\d+)\s*\)\s*;")


def run_subview(folder: Path, st: Path, verbose: bool) -> Row:
    """TSUBVIEW folders: ``<T, GROWS, GCOLS, TROWS, TCOLS, SUBROWS, SUBCOLS>``; src a TROWS x TCOLS tile holding
    ``input.bin``, dst a tile of src's type with valid SUBROWS x SUBCOLS viewed at the kernel's (rowIdx, colIdx)
    (one pair for every case, read from the kernel), compared with ``golden.bin`` by ResultCmp."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    at = set(_SUBVIEW_AT.findall(kernel))
    if len(at) != 1:
        main = (folder / "main.cpp").read_text()
        row.cases = row.not_mapped = len(re.findall(r"TEST_F\(", main))
        row.reasons = ["the kernel's (rowIdx, colIdx) is not one literal pair"]
        return row
    r, c = (int(v) for v in at.pop())
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(7)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        gr, gc, tr, tc, sr, sc = (_int(a) for a in args[1:])
        src = pto.Tile("vec", d.name, tr, tc, valid=(gr, gc))
        src.bits[:gr, :gc] = np.fromfile(case_dir / "input.bin", d.lane, gr * gc).reshape(gr, gc)
        try:
            dst = pto.tsubview(pto.Tile("vec", d.name, tr, tc, valid=(sr, sc)), src, r, c, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        want = np.fromfile(case_dir / "golden.bin", d.lane, sr * sc).reshape(sr, sc)
        _score(row, case, dst.valid_bits, want, d.name, eps, verbose)
    return row


def run_gatherb(folder: Path, st: Path, verbose: bool) -> Row:
    """TGATHERB folders: ``<T, DSTROWS, DSTCOLS, OFFROWS, OFFCOLS, SRCROWS, SRCCOLS>``; src from ``x.bin``,
    a u32 offset tile from ``offset.bin``, dst compared with ``golden.bin`` by ResultCmp at main.cpp's eps."""
    row = Row(folder.name)
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(7)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        dr, dc, orows, ocols, sr, sc = (_int(a) for a in args[1:])
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
        _score(row, case, dst.bits, want, d.name, eps, verbose)
    return row


def _comm_refused(row: Row, case: str, e: TilesimError) -> None:
    row.refused += 1
    row.reasons.append(f"{case}: refused: {e.rule}")


def run_copy(folder: Path, st: Path, verbose: bool) -> Row:
    """TPUT/TGET (``<T, GROWS, GCOLS, TROWS, TCOLS>``, a TROWS x TCOLS staging tile) and their async forms
    (``<T, GROWS, GCOLS, Peer>``, no tile): ``input.bin`` copied into a fresh array, compared with
    ``golden.bin``. The kernels pass two buffers of one process, so one block runs them."""
    op = folder.name
    row = Row(op)
    is_async = op.endswith("_async")
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(4 if is_async else 5)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        gr, gc = _int(args[1]), _int(args[2])
        src = np.fromfile(case_dir / "input.bin", d.lane, gr * gc).reshape(gr, gc)
        dst = np.zeros_like(src)
        try:
            if is_async:
                getattr(comm, op)(dst, src, target="cpu")
            else:
                getattr(comm, op)(dst, src, pto.Tile("vec", d.name, _int(args[3]), _int(args[4])), target="cpu")
        except TilesimError as e:
            _comm_refused(row, case, e)
            continue
        _score(row, case, dst, np.fromfile(case_dir / "golden.bin", d.lane, gr * gc).reshape(gr, gc), d.name, eps,
              verbose)
    return row


def run_tnotify(folder: Path, st: Path, verbose: bool) -> Row:
    """TNOTIFY (``<op_type>``: 1 AtomicAdd, else Set): the signal ``sharedMemory.bin`` notified with the first
    element of ``signal.bin``; the kernel's ``out[0]`` (the signal after) compared with ``golden.bin``."""
    row = Row(folder.name)
    for case, args, _call, case_dir, eps in _cases(folder, st, row, lambda a: len(a) == 1, lambda a: "int32_t"):
        sig = np.fromfile(case_dir / "sharedMemory.bin", np.int32, 1)
        value = int(np.fromfile(case_dir / "signal.bin", np.int32, 1)[0])
        try:
            comm.tnotify(sig, value, op="atomic_add" if _int(args[0]) == 1 else "set", target="cpu")
        except TilesimError as e:
            _comm_refused(row, case, e)
            continue
        _score(row, case, sig.view(np.uint32), np.fromfile(case_dir / "golden.bin", np.uint32, 1), "i32", eps,
              verbose)
    return row


def _cmp_word(arg: str) -> str:
    """``pto::comm::WaitCmp::LE`` -> ``le`` (also ReduceOp's words)."""
    return arg.rsplit("::", 1)[-1].lower()


def run_ttest(folder: Path, st: Path, verbose: bool) -> Row:
    """TTEST (``<int32_t, GROWS, GCOLS, TROWS, TCOLS, WaitCmp>``): the kernel's ``Signal`` over ``input.bin`` is
    its first element; tested against both values of ``cmp_file.bin``, the two results compared with the two
    bools of ``golden.bin`` (main.cpp's EXPECT_TRUE, no eps)."""
    row = Row(folder.name)
    for case, args, _call, case_dir, _eps in _cases(folder, st, row, _typed(6), eps_needed=False):
        sig = np.fromfile(case_dir / "input.bin", np.int32, 1)
        values = np.fromfile(case_dir / "cmp_file.bin", np.int32, 2)
        try:
            got = [comm.ttest(sig, int(v), cmp=_cmp_word(args[5]), target="cpu") for v in values]
        except TilesimError as e:
            _comm_refused(row, case, e)
            continue
        ok = got == np.fromfile(case_dir / "golden.bin", np.bool_, 2).tolist()
        row.passed += ok
        row.failed += not ok
        row.exact += ok
        if verbose and not ok:
            row.reasons.append(f"{case}: fails")
    return row


def run_tbroadcast(folder: Path, st: Path, verbose: bool) -> Row:
    """TBROADCAST (``<T, D0, D1, D2, D3, D4, KN>``): ``input.bin`` (D0..D4) broadcast to KN consecutive copies
    of one output buffer (the kernel's group), with a D3 x D4 staging tile; compared with ``golden.bin``."""
    row = Row(folder.name)
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(7)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        shape, kn = tuple(_int(a) for a in args[1:6]), _int(args[6])
        n = int(np.prod(shape))
        src = np.fromfile(case_dir / "input.bin", d.lane, n).reshape(shape)
        out = np.zeros(kn * n, d.lane)
        try:
            comm.tbroadcast([out[k * n:(k + 1) * n].reshape(shape) for k in range(kn)], src,
                            pto.Tile("vec", d.name, shape[3], shape[4]), target="cpu")
        except TilesimError as e:
            _comm_refused(row, case, e)
            continue
        _score(row, case, out, np.fromfile(case_dir / "golden.bin", d.lane, kn * n), d.name, eps, verbose)
    return row


def run_treduce(folder: Path, st: Path, verbose: bool) -> Row:
    """TREDUCE (``<T, GROWS, GCOLS, TROWS, TCOLS, ReduceOp>``): the root (rank 0) reduces ``input0.bin`` and
    ``input1.bin`` through two TROWS x GCOLS tiles (the kernel's accTile, recvTile); compared with ``golden.bin``."""
    row = Row(folder.name)
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(6)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        gr, gc, tr = _int(args[1]), _int(args[2]), _int(args[3])
        group = [np.fromfile(case_dir / f"input{k}.bin", d.lane, gr * gc).reshape(gr, gc).view(d.np)
                 for k in (0, 1)]
        dst = np.zeros((gr, gc), d.np)
        try:
            comm.treduce(group, dst, pto.Tile("vec", d.name, tr, gc), pto.Tile("vec", d.name, tr, gc),
                         op=_cmp_word(args[5]), root=0, target="cpu")
        except TilesimError as e:
            _comm_refused(row, case, e)
            continue
        _score(row, case, dst.view(d.lane), np.fromfile(case_dir / "golden.bin", d.lane, gr * gc).reshape(gr, gc),
              d.name, eps, verbose)
    return row


_TWAIT_TEST = re.compile(r"TEST\(\s*TWait\s*,\s*(\w+)\s*\)\s*\{\s*ASSERT_TRUE\(\(?\s*(\w+)(?:<([^>]*)>)?\(([^)]*)\)")


@dataclass
class WaitRun:
    """One TWAIT scenario as blocks: block 0 waits on a ``sub`` region at ``at`` of a ``full`` int32 signal array
    (all ``init``) for each ``(value, cmp)`` of ``waits`` in turn; each of ``notifiers`` blocks applies ``steps``
    (``(value, op, times)``, TNOTIFY on every element of the region)."""

    waits: list
    steps: list
    notifiers: int = 1
    init: int = 0
    full: tuple = (1, 1)
    at: tuple = (0, 0)
    sub: tuple = (1, 1)


#: twait_kernel.cpp's scenarios (threads and sleeps there), by the function main.cpp's TEST calls
TWAIT_RUNS = {
    "RunTWaitBasic": lambda t, a: [WaitRun([(42, "EQ")], [(42, "Set", 1)])],
    "RunTWaitCompare": lambda t, a: [WaitRun([(th, cmp)], [(v, "Set", 1)], init=i) for i, v, th, cmp in (
        (0, 150, 100, "GE"), (0, 1, 0, "NE"), (0, 51, 50, "GT"), (100, 10, 20, "LE"), (100, 5, 10, "LT"))],
    "RunTWaitAtomic": lambda t, a: [WaitRun([(25 * a[0], "GE")], [(1, "AtomicAdd", 25)], notifiers=a[0])],
    "RunTWaitMatrix": lambda t, a: [WaitRun([(1, "EQ")], [(1, "Set", 1)], full=(t[0], t[1]), sub=(t[0], t[1]))],
    "RunTWaitMultiPhase": lambda t, a: [WaitRun([(1, "EQ"), (3, "GE"), (5, "EQ")],
                                                [(1, "Set", 1), (3, "Set", 1), (5, "Set", 1)])],
    "RunTWaitSubRegion": lambda t, a: [WaitRun([(1, "EQ")], [(1, "Set", 1)], full=(8, t[0]), at=(2, 5),
                                               sub=(t[1], t[2]))],
}


def twait_program(w: WaitRun) -> str:
    """The ``.pto`` kernel of one scenario: block 0 waits and copies the region into ``seen`` after each wait
    (TGET), every other block notifies each element of the region with scf.for loops."""
    (fr, fc), (r0, c0), (sr, sc) = w.full, w.at, w.sub
    full, sub = f"!pto.tensor_view<{fr}x{fc}xi32>", f"!pto.partition_tensor_view<{sr}x{sc}xi32>"
    seen_t = f"!pto.tensor_view<{len(w.waits) * sr}x{sc}xi32>"
    tile = "!pto.tile_buf<vec, 1x8xi32>"
    lines = [f"func.func @twait_case(%sig: !pto.ptr<i32>, %seen: !pto.ptr<i32>) {{",
             *[f"  %k{v} = arith.constant {v} : index" for v in sorted({0, 1, fr, fc, sr, sc, r0, c0,
                                                                      len(w.waits) * sr})],
             "  %bi = pto.get_block_idx", "  %b = arith.index_cast %bi : i64 to index",
             f"  %sv = pto.make_tensor_view %sig, shape = [%k{fr}, %k{fc}], strides = [%k{fc}, %k1] : {full}",
             f"  %region = pto.partition_view %sv, offsets = [%k{r0}, %k{c0}], sizes = [%k{sr}, %k{sc}] : {full} "
             f"-> {sub}",
             f"  %seenv = pto.make_tensor_view %seen, shape = [%k{len(w.waits) * sr}, %k{sc}], strides = [%k{sc}, "
             f"%k1] : {seen_t}",
             f"  %t = pto.alloc_tile : {tile}",
             "  %waiter = arith.cmpi eq, %b, %k0 : index", "  scf.if %waiter {"]
    for k, (value, cmp) in enumerate(w.waits):
        lines += [f"    %v{k} = arith.constant {value} : i32", f"    %r{k} = arith.constant {k * sr} : index",
                  f"    pto.twait ins(%region, %v{k} : {sub}, i32) {{cmp = #pto.cmp<{cmp}>}}",
                  f"    %s{k} = pto.partition_view %seenv, offsets = [%r{k}, %k0], sizes = [%k{sr}, %k{sc}] : "
                  f"{seen_t} -> {sub}",
                  f"    pto.tget ins(%region, %t : {sub}, {tile}) outs(%s{k} : {sub})"]
    lines.append("  } else {")
    for k, (value, op, times) in enumerate(w.steps):
        lines += [f"    %n{k} = arith.constant {value} : i32", f"    %m{k} = arith.constant {times} : index",
                  f"    scf.for %q{k} = %k0 to %m{k} step %k1 {{",
                  f"      scf.for %i{k} = %k0 to %k{sr} step %k1 {{",
                  f"        scf.for %j{k} = %k0 to %k{sc} step %k1 {{",
                  f"          %row{k} = arith.addi %i{k}, %k{r0} : index",
                  f"          %col{k} = arith.addi %j{k}, %k{c0} : index",
                  f"          %e{k} = pto.partition_view %sv, offsets = [%row{k}, %col{k}], sizes = [%k1, %k1] : "
                  f"{full} -> !pto.partition_tensor_view<1x1xi32>",
                  f"          pto.tnotify ins(%n{k} : i32) outs(%e{k} : !pto.partition_tensor_view<1x1xi32>) "
                  f"{{op = #pto.notify_op<{op}>}}",
                  "        }", "      }", "    }"]
    lines += ["  }", "  return", "}"]
    return "\n".join(lines) + "\n"


def run_twait(folder: Path, st: Path, verbose: bool) -> Row:
    """TWAIT: main.cpp's TESTs call twait_kernel.cpp's thread scenarios (a notifier thread stores after a sleep,
    the main thread waits). Each runs here as blocks of a ``.pto`` kernel (:func:`twait_program`, PTO155): block
    0 waits and records the signal after each wait, the notifier threads are blocks 1..N. A case passes when
    every recorded value satisfies its wait's condition (the scenario's own check) and the elements outside
    the waited region are untouched."""
    row = Row(folder.name)
    tests = _TWAIT_TEST.findall((folder / "main.cpp").read_text())
    row.cases = len(re.findall(r"\bTEST\(", (folder / "main.cpp").read_text()))
    row.not_mapped = row.cases - len(tests)
    for name, fn, targs, cargs in tests:
        if fn not in TWAIT_RUNS:
            row.not_mapped += 1
            row.reasons.append(f"{name}: no scenario for {fn}")
            continue
        ints = lambda text: [_int(v) for v in text.split(",") if v.strip()]          # noqa: E731
        ok = True
        try:
            for w in TWAIT_RUNS[fn](ints(targs or ""), ints(cargs)):
                sig = np.full(w.full, w.init, np.int32)
                out = pto.run_text(twait_program(w), {"sig": sig}, "cpu", blocks=1 + w.notifiers)
                seen = out["seen"].reshape(len(w.waits), *w.sub)
                ok &= all(pto.comm.compare(seen[k], v, cmp.lower()) for k, (v, cmp) in enumerate(w.waits))
                outside = np.ones(w.full, bool)
                outside[w.at[0]:w.at[0] + w.sub[0], w.at[1]:w.at[1] + w.sub[1]] = False
                ok &= bool((out["sig"].reshape(w.full)[outside] == w.init).all())
        except TilesimError as e:
            _comm_refused(row, name, e)
            continue
        row.passed += ok
        row.failed += not ok
        row.exact += ok
        if verbose and not ok:
            row.reasons.append(f"{name}: fails")
    return row


_TEST_BODY = re.compile(r"\bTEST\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{(.*?)\n\}", re.S)
_CONV = re.compile(r"using\s+SrcTile\s*=\s*ConvTile<\s*TileType::Mat\s*,\s*(\w+)\s*,[^,]+,\s*Layout::(\w+)\s*,"
                   r"\s*ConvTileShape<([\d,\s]+)>\s*>")
_LEFT = re.compile(r"using\s+DstTile\s*=\s*TileLeft<\s*(\w+)\s*,([\d,\s]+)>")
_FILL = re.compile(r"src\.data\(\)\[Nc1hwc0Offset<SrcTile>\(([^)]*)\)\]\s*=\s*static_cast<\w+>\((.*)\);")
_LOOP = re.compile(r"for\s*\(\s*int\s+(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(\d+)\s*;")
_LOOP_NAMES = re.compile(r"for\s*\(\s*int\s+(\w+)")
_SET = re.compile(r"src\.Set(\w+)\(([^;]*)\);")
_CALL = re.compile(r"TIMG2COL<DstTile,\s*SrcTile,\s*SetFmatrixMode::FMATRIX_(\w+)>\(dst,\s*src,\s*(\d+),\s*(\d+)\)")
_CONV_SETTINGS = {"FmapH": "fmap_h", "FmapW": "fmap_w", "FilterH": "filter_h", "FilterW": "filter_w",
                  "StrideH": "stride_h", "StrideW": "stride_w", "DilationH": "dilation_h", "DilationW": "dilation_w",
                  "ChannelSize": "channel_size", "RepeatStride": "repeat_stride", "RepeatTime": "repeat_time",
                  "RepeatMode": "repeat_mode", "DstStride": "dst_stride"}


def _img2col_expected(conv, rows: int, cols: int, pm: int, pk: int, dst_shape) -> np.ndarray:
    """The gtest's own reference (its ``BuildExpected``): the im2col element of each valid (row, col), the pad
    value elsewhere in the valid region and 0 outside it (NC1HWC0)."""
    N, _, C1, H, W, C0 = conv.fmap_shape
    pl, pr, pt, pb = conv.pad_list
    oh = int((H + pt + pb - conv.dilation_h * (conv.filter_h - 1) - 1) / conv.stride_h) + 1
    ow = int((W + pl + pr - conv.dilation_w * (conv.filter_w - 1) - 1) / conv.stride_w) + 1
    want = np.zeros(dst_shape, conv.dtype.lane)
    fmap = conv.bits.reshape(N, C1, H, W, C0)
    for r in range(rows):
        n, rem = divmod(pm + r, oh * ow)
        y, x = divmod(rem, ow)
        for c in range(cols):
            k = pk + c
            c1, kh, kw = k // (C0 * conv.filter_h * conv.filter_w), *divmod(k % (C0 * conv.filter_h * conv.filter_w)
                                                                             // C0, conv.filter_w)
            ih, iw = y * conv.stride_h + kh * conv.dilation_h - pt, x * conv.stride_w + kw * conv.dilation_w - pl
            ok = n < N and 0 <= ih < H and 0 <= iw < W and c1 < C1
            want[r, c] = fmap[n, c1, ih, iw, k % C0] if ok else conv.pad_bits
    return want


def run_img2col(folder: Path, st: Path, verbose: bool) -> Row:
    """The TIMG2COL folder has no data: each TEST declares a ConvTile and a TileLeft, fills the feature map by
    an expression of its loop indices, sets the fields, runs SETFMATRIX / SET_IMG2COL_PADDING / SET_IMG2COL_RPT
    and TIMG2COL and compares every element of dst with its own reference; the same is done here."""
    row = Row(folder.name)
    for case, body in _TEST_BODY.findall((folder / "main.cpp").read_text()):
        row.cases += 1
        conv, left, fill, call = (rx.search(body) for rx in (_CONV, _LEFT, _FILL, _CALL))
        sets = {k: v.strip() for k, v in _SET.findall(body)}
        pads = re.search(r"padList\[\]\s*=\s*\{([\d,\s]+)\}", body)
        if not (conv and left and fill and call and pads) or conv.group(2) != "NC1HWC0" \
                or conv.group(1) not in CXX_DTYPES or not re.fullmatch(r"[\w\s+*%()-]+", fill.group(2)) \
                or not set(re.findall(r"[A-Za-z_]\w*", fill.group(2))) <= set(_LOOP_NAMES.findall(body)):
            row.not_mapped += 1
            row.reasons.append(f"{case}: not the folder's form")
            continue
        dt = CXX_DTYPES[conv.group(1)]
        shape = tuple(int(v) for v in conv.group(3).split(","))
        r, c, vr, vc = (int(v) for v in left.group(2).split(","))
        kw = {_CONV_SETTINGS[k]: int(v) for k, v in sets.items() if k in _CONV_SETTINGS}
        pad = np.array([float(sets["PadValue"].rstrip("f"))]).astype(pto.get_dtype(dt).np)[0]
        src = pto.ConvTile(dt, shape, pad_list=tuple(int(v) for v in pads.group(1).split(",")), pad_value=pad, **kw)
        loops = dict(_LOOP.findall(body))
        grid = np.meshgrid(*(np.arange(int(n)) for n in loops.values()), indexing="ij")
        env = dict(zip(loops, grid))
        index = [env.get(a.strip(), int(a) if a.strip().isdigit() else None) for a in fill.group(1).split(",")]
        values = eval(fill.group(2), {"__builtins__": {}}, env)   # the test's arithmetic over its loop indices
        src.values[tuple(np.broadcast_to(i, grid[0].shape) for i in index)] = np.asarray(values).astype(
            src.dtype.np)
        mode = call.group(1).lower()
        cfg = pto.BlockConfig()
        dst = pto.Tile("left", dt, r, c, valid=(vr, vc), blayout="col_major", slayout="row_major")
        try:
            for op in (pto.setfmatrix, pto.set_img2col_padding, pto.set_img2col_rpt):
                op(src, mode=mode, config=cfg, target="cpu")
            pto.timg2col(dst, src, int(call.group(2)), int(call.group(3)), mode=mode, config=cfg, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        want = _img2col_expected(src, vr, vc, int(call.group(2)), int(call.group(3)), (r, c))
        ok = bool((dst.bits == want).all())
        row.passed += ok
        row.failed += not ok
        row.exact += ok
        if verbose and not ok:
            row.reasons.append(f"{case}: fails")
    return row


_DEQ_TEST = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{[^}]*?runTAddDeqReluTest<([\d,\s]+)>\(\)")
_DEQ_SCALES = re.compile(r"deqScaleArr\[\]\s*=\s*\{([^}]*)\}")


def run_adddeqrelu(folder: Path, st: Path, verbose: bool) -> Row:
    """TADDDEQRELU: ``runTAddDeqReluTest<caseId, ROW, VALIDROW, COL, VALIDCOL[, toleranceX1000 = 2]>``; i32
    src0/src1 from ``input0.bin``/``input1.bin``, the scale ``deqScaleArr[caseId - 1]`` of the kernel file, an
    f16 dst of VALIDROW x COL compared with ``golden.bin`` by ResultCmp at toleranceX1000 / 1000."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    scales = _DEQ_SCALES.search("".join(p.read_text() for p in folder.glob("*_kernel.cpp")))
    scale = [float(v.strip().rstrip("f")) for v in scales.group(1).split(",") if v.strip()] if scales else []
    tests = _DEQ_TEST.findall(main)
    row.cases = len(re.findall(r"TEST_F\(", main))
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        dirs = generate(folder, st, Path(tmp))
        for suite, case, targs in tests:
            args = [int(a) for a in targs.split(",")]
            case_dir = dirs.get(f"{suite}.{case}")
            if case_dir is None or len(args) not in (5, 6) or not 0 < args[0] <= len(scale):
                row.not_mapped += 1
                row.reasons.append(f"{case}: not the folder's form, or no data")
                continue
            cid, _, vr, cols, vc = args[:5]
            eps = (args[5] if len(args) == 6 else 2) / 1000
            tiles = [pto.Tile("vec", dt, vr, cols, valid=(vr, vc)) for dt in ("f16", "i32", "i32")]
            for t, f in zip(tiles[1:], ("input0.bin", "input1.bin")):
                t.bits[:, :vc] = np.fromfile(case_dir / f, np.uint32, vr * vc).reshape(vr, vc)
            try:
                pto.tadddeqrelu(*tiles, scale[cid - 1], target="cpu")
            except TilesimError as e:
                row.refused += 1
                row.reasons.append(f"{case}: refused: {e.rule}")
                continue
            want = np.fromfile(case_dir / "golden.bin", np.uint16, vr * vc).reshape(vr, vc)
            _score(row, case, tiles[0].valid_bits, want, "f16", eps, verbose)
    row.not_mapped += row.cases - len(tests)
    return row


#: folders whose kernel is not the plain one, each with its own adapter
ADAPTERS = {"tpartargmax": run_part_arg, "tpartargmin": run_part_arg, "treshape": run_reshape,
            "tsubview": run_subview, "tgatherb": run_gatherb,
            **{op: run_copy for op in ("tput", "tget", "tput_async", "tget_async")}, "tnotify": run_tnotify,
            "ttest": run_ttest, "tbroadcast": run_tbroadcast, "treduce": run_treduce, "twait": run_twait,
            "timg2col": run_img2col, "tadddeqrelu": run_adddeqrelu}


def run_folder(folder: Path, st: Path, verbose: bool) -> Row:
    op = folder.name
    if op in ADAPTERS:
        return ADAPTERS[op](folder, st, verbose)
    row = Row(op)
    main = (folder / "main.cpp").read_text()
    tests = _TEST.findall(main)
    if op in NOT_MAPPED or op not in PLAIN:
        row.cases = len(re.findall(r"\bTEST(?:_F)?\(", main))      # gtest's TEST_F and plain TEST bodies
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
