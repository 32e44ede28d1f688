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
The second st tree, ``tests/cpu/comm/st/testcase/*`` (the collectives), is in the same table as
``comm/<folder>`` (``--only comm/tgather``).

A folder is mapped when its kernel is the plain one: TLOAD of each input into a row-major vec tile of
``TROWS x TCOLS`` (valid the whole tile), the op, TSTORE of dst (``tadd_kernel.cpp`` and its kin). Folders with
other kernels are listed with the reason they are not mapped yet.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tilesim import formats, pto
from tilesim.errors import TilesimError

#: C++ element types of the test templates -> tilesim dtypes
CXX_DTYPES = {"float": "f32", "aclFloat16": "f16", "half": "f16", "bfloat16_t": "bf16", "int32_t": "i32",
              "int16_t": "i16", "int8_t": "i8", "uint32_t": "u32", "uint16_t": "u16", "uint8_t": "u8",
              "int64_t": "i64", "uint64_t": "u64", "float4_e2m1x2_t": "f4e2m1", "float4_e1m2x2_t": "f4e1m2",
              "hifloat8_t": "hif8"}

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


#: the second st tree (the collectives and URMA), its folders shown as ``comm/<folder>``
COMM_ST = Path("tests/cpu/comm/st")

#: folders named otherwise than their instruction
OP_OF = {"tfusemuladd": "tfusedmuladd", "tfusemuladdrelu": "tfusedmuladdrelu"}

#: why a folder is not mapped, where that is known (the rest: "kernel not the plain one")
NOT_MAPPED = {
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

    def tally(self, case: str, passed: bool, exact: bool, verbose: bool, why: str = "fails") -> None:
        """Count one case that ran: passed or failed (``why``, named when ``verbose``), and bit-exact or not."""
        self.passed += passed
        self.failed += not passed
        self.exact += exact
        if verbose and not passed:
            self.reasons.append(f"{case}: {why}")


_TEST = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{\s*(\w+)<([^>]*)>\(\s*\)\s*;\s*\}")
_READ = re.compile(r'ReadFile\(\s*GetGoldenDir\(\)\s*\+\s*"/([\w.]+)"')
_EPS = re.compile(r"ResultCmp(?:<[^>]*>)?\(\s*\w+\s*,\s*(?:\(\w+\s*\*\)\s*)?\w+(?:\.data\(\))?\s*,"
                  r"\s*([0-9.eE+-]+|k\w+)f?\s*[,)]")           # (golden, out | (T*)out | out.data(), eps[, ...])


_EPS_CONST = re.compile(r"constexpr\s+float\s+(k\w+)\s*=\s*([0-9.eE+-]+)f?\s*;")
_EPS_VAR = re.compile(r"float\s+eps\s*=\s*([0-9.eE+-]+)f?\s*;")
_EPS_TYPE = re.compile(r"is_same_v<\s*T\s*,\s*(\w+)\s*>\s*\)\s*\{\s*eps\s*=\s*([0-9.eE+-]+)f?\s*;")
_EPS_PICK = re.compile(r"float\s+eps\s*=\s*std::is_same_v<\s*T\s*,\s*(\w+)\s*>\s*\?\s*([0-9.eE+-]+)f?\s*:\s*"
                       r"([0-9.eE+-]+)f?\s*;")


def eps_of(main: str, cxx_type: str) -> float | None:
    """The eps main.cpp passes to ResultCmp for element type ``cxx_type``: one literal, or a variable
    ``float eps = D;`` set per type by ``if constexpr (std::is_same_v<T, X>) { eps = E; }``, or
    ``float eps = std::is_same_v<T, X> ? A : B;``; None if unclear."""
    named = dict(_EPS_CONST.findall(main))                             # ResultCmp(g, out.data(), kEpsilon)
    literals = {float(named.get(e, e)) for e in _EPS.findall(main) if e in named or not e.startswith("k")}
    if len(literals) == 1:
        return literals.pop()
    pick = _EPS_PICK.findall(main)                                    # float eps = is_same_v<T, X> ? A : B;
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


def generate(folder: Path, st: Path, work: Path, row: Row | None = None) -> dict[str, Path]:
    """Run upstream's gen_data.py in ``work``; returns each case's folder (``Suite.case``) by name (some scripts
    write them beside themselves, some under ``testcases/``). A script that fails with bf16 on is run again
    with it off (its bf16 cases then have no data), saying why in ``row``."""
    shutil.copy(folder / "gen_data.py", work / "gen_data.py")
    env = {"PYTHONPATH": f"{st}:{st.parents[2]}", "PATH": "/usr/bin:/bin",  # some import tests.cpu.st.utils
           "PTO_CPU_SIM_ENABLE_BF16": "1"}
    run = subprocess.run([sys.executable, "gen_data.py"], cwd=work, env=env, capture_output=True, timeout=600)
    if run.returncode and row is not None:
        last = run.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
        row.reasons.append(f"gen_data.py fails with bf16 on ({last[0]}), so it runs with bf16 off")
        env.pop("PTO_CPU_SIM_ENABLE_BF16")
        run = subprocess.run([sys.executable, "gen_data.py"], cwd=work, env=env, capture_output=True, timeout=600)
    run.check_returncode()
    return {p.name: p for p in (*work.glob("*.*"), *work.glob("testcases/*.*")) if p.is_dir()}


_TEST_AT = re.compile(r"TEST_F\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_CALL = re.compile(r"(\w+)<([^<>;]*)>\s*\(")
_ARG_SEP = re.compile(r",(?![^{]*\})")       # a comma outside braces (``TilesSize{64, 128}`` is one argument)


@dataclass
class Case:
    """One TEST_F of a folder: its name, each templated call in its body with the call's template arguments,
    its gen_data.py folder, its ResultCmp eps and the tilesim dtype of the first C++ element type named."""
    name: str
    calls: list[tuple[str, list[str]]]
    dir: Path
    eps: float
    dtype: str

    @property
    def args(self) -> list[str]:
        """The first call's template arguments."""
        return self.calls[0][1]

    def read(self, file: str, dt: str, rows: int, cols: int) -> np.ndarray:
        """The first ``rows x cols`` lanes of ``file`` (a gen_data.py output) as a bit array of dtype ``dt``."""
        return np.fromfile(self.dir / file, pto.get_dtype(dt).lane, rows * cols).reshape(rows, cols)


def each_case(folder: Path, st: Path, row: Row, form: Callable[[Case], str | None] = lambda c: None,
              exempt: Callable[[Case], bool] = lambda c: False, plain: bool = False) -> Iterator[Case]:
    """The folder's cases, with gen_data.py run once; counts ``row.cases`` and, with why, each case not mapped:
    a TEST_F with no templated call (unless ``plain``: its body calls an untemplated function), no data, no
    known element type or eps, or ``form(case)`` giving a reason. ``form`` alone judges a case for which
    ``exempt(case)`` holds (main.cpp builds its data, or only the kernel names its types)."""
    main = (folder / "main.cpp").read_text()
    marks = [m for m in _TEST_AT.finditer(main)                    # not a commented-out TEST_F
             if not main[main.rfind("\n", 0, m.start()) + 1: m.start()].lstrip().startswith("//")]
    row.cases = len(marks)
    with tempfile.TemporaryDirectory(prefix=f"ptoisa-st-{folder.name}-") as tmp:
        try:
            dirs = generate(folder, st, Path(tmp), row)
        except subprocess.CalledProcessError as e:
            last = (e.stderr or b"").decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            row.not_mapped, row.reasons = row.cases, [f"gen_data.py fails ({last[0]})"]
            return
        for m, nxt in zip(marks, [*marks[1:], None]):
            body = main[m.end(): nxt.start() if nxt else len(main)]
            calls = [(f, [a.strip() for a in _ARG_SEP.split(args)]) for f, args in _CALL.findall(body)]
            types = [a for a in (calls[0][1] if calls else ()) if a in CXX_DTYPES]
            case = Case(m.group(2), calls, dirs.get(f"{m.group(1)}.{m.group(2)}"),
                        eps_of(main, types[0] if types else ""), CXX_DTYPES[types[0]] if types else None)
            why = ("no templated call" if not (calls or plain) else form(case) if exempt(case) else
                   "gen_data.py made no data" if case.dir is None else
                   f"no tilesim dtype for {_first_type(calls)}" if not types else
                   "no eps" if case.eps is None else form(case))
            if why:
                row.not_mapped += 1
                row.reasons.append(f"{case.name}: {why}")
                continue
            yield case


def _first_type(calls) -> str:
    """The first template argument of a case's first call that is not a number (its element type, mostly)."""
    return next((a for a in calls[0][1] if not re.fullmatch(r"-?(?:NUM_)?\d+", a)), "?")


@contextmanager
def refusals(row: Row, case: Case):
    """Count a TilesimError raised in the block as the case refused, with its rule."""
    try:
        yield
    except TilesimError as e:
        row.refused += 1
        row.reasons.append(f"{case.name}: refused: {e.rule}")


def numbers(bits: np.ndarray, dt: str) -> np.ndarray:
    """Lane bits of dtype ``dt`` as float64 numbers."""
    d = pto.get_dtype(dt)
    return formats.decode(bits, d.format) if not d.has_view else np.asarray(bits).view(d.np).astype(np.float64)


def score(row: Row, case: Case, verbose: bool, *outputs: tuple[np.ndarray, np.ndarray, str]):
    """Count the case: it passes when each output ``(got, want, dt)`` (tilesim's bits, upstream's bits, their
    dtype) passes ResultCmp at the case's eps, and is exact when each is equal bit for bit."""
    results = [pto.result_cmp(numbers(got, dt), numbers(want, dt), case.eps) for got, want, dt in outputs]
    row.tally(case.name, all(r.passed for r in results),
              all(np.array_equal(np.ravel(got), np.ravel(want)) for got, want, _ in outputs), verbose,
              "fails (" + ", ".join(f"{r.failures} > {r.allowed}" for r in results if not r.passed) + ")")


_TEST_LINE = re.compile(r"^\s*TEST(?:_F)?\(", re.M)
_TEST_MACRO = re.compile(r"^#define\s+(\w+)\((?:[^\n]*\\\n)*?[^\n]*\bTEST(?:_F)?\(", re.M)


def count_tests(main: str) -> int:
    """The gtest cases of a main.cpp: its ``TEST_F(`` and ``TEST(`` lines, a macro that defines one counted
    once per use (``TMOV_TEST(...)``) instead of once."""
    macros = _TEST_MACRO.findall(main)
    uses = sum(len(re.findall(rf"^{m}\(", main, re.M)) for m in macros)
    return len(_TEST_LINE.findall(main)) - len(macros) + uses


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
            row.tally(name, ok, exact, verbose)
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


def _seven(case: Case) -> str | None:
    """The form of the TSUBVIEW and TGATHERB tests: ``<T, six shape arguments>``."""
    return None if len(case.args) == 7 else "not the folder's form"


def run_subview(folder: Path, st: Path, verbose: bool) -> Row:
    """TSUBVIEW folders: ``<T, GROWS, GCOLS, TROWS, TCOLS, SUBROWS, SUBCOLS>``; src a TROWS x TCOLS tile holding
    ``input.bin``, dst a tile of src's type with valid SUBROWS x SUBCOLS viewed at the kernel's (rowIdx, colIdx)
    (one pair for every case, read from the kernel), compared with ``golden.bin`` by ResultCmp."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    at = set(_SUBVIEW_AT.findall(kernel))
    if len(at) != 1:
        row.cases = row.not_mapped = len(_TEST_AT.findall((folder / "main.cpp").read_text()))
        row.reasons = ["the kernel's (rowIdx, colIdx) is not one literal pair"]
        return row
    r, c = (int(v) for v in at.pop())
    for case in each_case(folder, st, row, _seven):
        with refusals(row, case):
            dt = case.dtype
            gr, gc, tr, tc, sr, sc = (_int(a) for a in case.args[1:])
            src = pto.Tile("vec", dt, tr, tc, valid=(gr, gc))
            src.bits[:gr, :gc] = case.read("input.bin", dt, gr, gc)
            dst = pto.tsubview(pto.Tile("vec", dt, tr, tc, valid=(sr, sc)), src, r, c, target="cpu")
            score(row, case, verbose, (dst.valid_bits, case.read("golden.bin", dt, sr, sc), dt))
    return row


def run_gatherb(folder: Path, st: Path, verbose: bool) -> Row:
    """TGATHERB folders: ``<T, DSTROWS, DSTCOLS, OFFROWS, OFFCOLS, SRCROWS, SRCCOLS>``; src from ``x.bin``,
    a u32 offset tile from ``offset.bin``, dst compared with ``golden.bin`` by ResultCmp at main.cpp's eps."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _seven):
        with refusals(row, case):
            dt = case.dtype
            dr, dc, orows, ocols, sr, sc = (_int(a) for a in case.args[1:])
            src, off, dst = (pto.Tile("vec", t, r, c) for t, r, c in ((dt, sr, sc), ("u32", orows, ocols),
                                                                     (dt, dr, dc)))
            src.bits[...] = case.read("x.bin", dt, sr, sc)
            off.bits[...] = case.read("offset.bin", "u32", orows, ocols)
            pto.tgatherb(dst, src, off, target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", dt, dr, dc), dt))
    return row



#: folders whose kernel is not the plain one, each with its own adapter
ADAPTERS = {"tpartargmax": run_part_arg, "tpartargmin": run_part_arg, "treshape": run_reshape,
            "tsubview": run_subview, "tgatherb": run_gatherb}
sys.modules.setdefault("ptoisa_st", sys.modules[__name__])  # the adapters package imports these helpers
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ptoisa_st_folders import ADAPTERS as _FOLDER_ADAPTERS  # noqa: E402
from ptoisa_st_folders.notes import NOT_MAPPED as _FOLDER_NOT_MAPPED  # noqa: E402

ADAPTERS.update(_FOLDER_ADAPTERS)
NOT_MAPPED.update(_FOLDER_NOT_MAPPED)


def run_folder(folder: Path, st: Path, verbose: bool, name: str | None = None) -> Row:
    op = name or folder.name
    if op in ADAPTERS:
        return ADAPTERS[op](folder, st, verbose)
    row = Row(op)
    main = (folder / "main.cpp").read_text()
    tests = _TEST.findall(main)
    if op in NOT_MAPPED or op not in PLAIN:
        row.cases = count_tests(main)
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
            row.tally(case, res.passed, bool((np.asarray(got) == np.asarray(want)).all()), verbose,
                      f"fails ({res.failures} > {res.allowed})")
        row.not_mapped += row.cases - len(tests)
        if row.cases > len(tests):
            row.reasons.append(f"{row.cases - len(tests)} TEST_F bodies are not one templated call")
    return row


def summary(reasons: list[str]) -> str:
    """The reasons of a row, those of the form ``case: why`` that share their why given once with a count."""
    by_why: dict[str, list[str]] = {}
    for r in reasons:
        name, sep, why = r.partition(": ")
        by_why.setdefault(why if sep else r, []).append(name)
    return "; ".join(f"{why} ({len(names)} cases)" if len(names) > 1 else
                     (f"{names[0]}: {why}" if names[0] != why else why) for why, names in by_why.items())


def main() -> None:
    ap = argparse.ArgumentParser(prog="ptoisa_st", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path, help="a pto-isa checkout (hw-native-sys/pto-isa)")
    ap.add_argument("--only", help="comma-separated testcase folders (comm/<folder> for the comm tree)")
    ap.add_argument("-v", "--verbose", action="store_true", help="name each failing case")
    a = ap.parse_args()
    st = a.checkout / "tests" / "cpu" / "st"
    if not (st / "testcase").is_dir():
        ap.error(f"{a.checkout} has no tests/cpu/st/testcase (give a pto-isa checkout)")
    comm_st = a.checkout / COMM_ST
    folders = [(p.name, p) for p in sorted((st / "testcase").iterdir()) if (p / "main.cpp").is_file()]
    if (comm_st / "testcase").is_dir():
        folders += [(f"comm/{p.name}", p) for p in sorted((comm_st / "testcase").iterdir())
                    if (p / "main.cpp").is_file()]
    if a.only:
        want = set(a.only.split(","))
        folders = [(n, p) for n, p in folders if n in want]
    commit = subprocess.run(["git", "-C", str(a.checkout), "rev-parse", "--short=8", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    print(f"pto-isa {commit}: {len(folders)} testcase folders")
    print(f"{'folder':22} {'cases':>5} {'pass':>5} {'fail':>5} {'refused':>7} {'not mapped':>10} {'exact':>5}  reason")
    total = Row("total")
    for name, folder in folders:
        r = run_folder(folder, comm_st if name.startswith("comm/") else st, a.verbose, name)
        for k in ("cases", "passed", "failed", "refused", "not_mapped", "exact"):
            setattr(total, k, getattr(total, k) + getattr(r, k))
        why = summary(r.reasons)
        print(f"{r.folder:22} {r.cases:5} {r.passed:5} {r.failed:5} {r.refused:7} {r.not_mapped:10} {r.exact:5}  "
              f"{why}")
    print(f"{'total':22} {total.cases:5} {total.passed:5} {total.failed:5} {total.refused:7} {total.not_mapped:10} "
          f"{total.exact:5}")
    sys.exit(1 if total.failed or total.refused else 0)


if __name__ == "__main__":
    main()
