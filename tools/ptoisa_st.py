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
from tilesim.pto.dtypes import PACKED
from tilesim.pto.ops import convert_sub_byte

#: C++ element types of the test templates -> tilesim dtypes
CXX_DTYPES = {"float": "f32", "aclFloat16": "f16", "half": "f16", "bfloat16_t": "bf16", "int32_t": "i32",
              "int16_t": "i16", "int8_t": "i8", "uint32_t": "u32", "uint16_t": "u16", "uint8_t": "u8",
              "int64_t": "i64", "uint64_t": "u64", "int4b_t": "i4", "float4_e2m1x2_t": "f4e2m1",
              "float4_e1m2x2_t": "f4e1m2"}

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
    "tpushpop_vc": "vector-to-cube pushes of split halves from two vector subblocks (tilesim runs one, PTO29)",
    "tpushpop_vc_nosplit": "vector-to-cube pushes from two vector subblocks (tilesim runs one, PTO29)",
    "tpushpop_fixpipe": "TPUSH with a FixpipeParams TConfig (a quantising push) is not modelled",
    "tpush_a3": "a cube/vector kernel of many instructions around TPUSH/TPOP (no adapter yet)",
    "tpush_a5": "a cube/vector kernel of many instructions around TPUSH/TPOP (no adapter yet)",
    "tmatmul_mx_nddn": "TMATMUL_MX from ND/DN global layouts with MX scale tiles (no adapter yet)",
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


def _cases(folder: Path, st: Path, row: Row, fits, eps_type=lambda args: args[0]):
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
            eps = eps_of(main, eps_type(args)) if fits(args) else None
            if case_dir is None or eps is None:
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


def _global_block(whole: np.ndarray, g: list[int], w: list[int], col_major: bool) -> tuple:
    """The ``g`` block at the origin of a 5-D global tensor of shape ``w`` (flat ``whole``), as the 2-D tile a
    TLOAD gives (ND: rows g0*g1*g2*g3 x cols g4; DN, dim 3 contiguous: rows g3 x cols g0*g1*g2*g4), and the index
    that puts such a tile back (a TSTORE)."""
    if not col_major:
        idx = np.ix_(range(g[0]), range(g[1]), range(g[2]), range(g[3]), range(g[4]))
        return whole.reshape(w)[idx].reshape(-1, g[4]), lambda out, t: out.reshape(w).__setitem__(
            idx, t.reshape(g))
    shape = (w[0], w[1], w[2], w[4], w[3])
    idx = np.ix_(range(g[0]), range(g[1]), range(g[2]), range(g[4]), range(g[3]))
    return whole.reshape(shape)[idx].reshape(-1, g[3]).T, lambda out, t: out.reshape(shape).__setitem__(
        idx, t.T.reshape(g[0], g[1], g[2], g[4], g[3]))


def run_tstore_quant(folder: Path, st: Path, verbose: bool) -> Row:
    """TSTORE_QUANT: ``<format, SrcT, DstT, gShape0..4, gWholeShape0..4, is_v_quant, saturate_inf, apply_relu>``;
    a vec tile of SrcT TLOADed from the ``gShape`` block of ``input.bin`` (format 0 ND, row-major; 1 DN,
    col-major), stored with TSTORE_FP (the quant tile: the first valid-cols (ND) or valid-rows (DN) words of
    ``quant.bin``) or TSTORE with ``quant.bin``'s first word, ReLU'd when ``apply_relu``, into a zeroed DstT
    global; the whole global compared with ``golden.bin``. ``saturate_inf`` is a template argument the kernel
    does not use."""
    row = Row(folder.name)
    fits = lambda a: len(a) == 16 and a[0] in ("0", "1") and a[1] in CXX_DTYPES and a[2] in CXX_DTYPES  # noqa: E731
    for case, args, _call, case_dir, eps in _cases(folder, st, row, fits, lambda a: a[2]):
        s_dt, d_dt = pto.get_dtype(CXX_DTYPES[args[1]]), pto.get_dtype(CXX_DTYPES[args[2]])
        g, w = [_int(a) for a in args[3:8]], [_int(a) for a in args[8:13]]
        vector, relu, col_major = args[13] == "true", args[15] == "true", args[0] == "1"
        n = int(np.prod(w))
        block, put = _global_block(np.fromfile(case_dir / "input.bin", s_dt.lane, n), g, w, col_major)
        quant = np.fromfile(case_dir / "quant.bin", np.uint64)
        R, C = block.shape
        blk = 32 // s_dt.size                      # the kernel pads the tile's contiguous side to 32 bytes
        shape = (-(-R // blk) * blk, C) if col_major else (R, -(-C // blk) * blk)
        src = pto.Tile("vec", s_dt.name, *shape, valid=(R, C), blayout="col_major" if col_major else "row_major")
        src.bits[:R, :C] = block
        out = np.zeros((R, C), d_dt.np)
        try:
            if vector:
                k = R if col_major else C
                fp = pto.Tile("scaling", "u64", 1, -(-k // 4) * 4, valid=(1, k))
                fp.bits[0, :k] = quant[:k]
                pto.tstore_fp(out, src, fp, relu_pre_mode=relu, target="cpu")
            else:
                pto.tstore(out, src, int(quant[0]), relu_pre_mode=relu, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        got = np.zeros(n, d_dt.lane)
        put(got, out.view(d_dt.lane))
        _score(row, case, got, np.fromfile(case_dir / "golden.bin", d_dt.lane, n), d_dt.name, eps, verbose)
    return row


_ACC2GM = re.compile(r"tilingKey\s*==\s*(\d+)\)\s*\{\s*(TStoreAcc2gm\w*)<([^>]*)>")
#: main.cpp's test function -> the kernel function its launcher calls
_ACC2GM_KERNEL = {"test_tstore_acc2gm_nz2nd": "TStoreAcc2gmNz2nd",
                  "test_tstore_acc2gm_scalar_nz2nd": "TStoreAcc2gmScalarNz2nd"}


def run_tstore_acc2gm(folder: Path, st: Path, verbose: bool) -> Row:
    """TSTORE_ACC2GM: main.cpp's ``<tilingKey, ...>`` picks the kernel's ``TStoreAcc2gm[Scalar]Nz2nd<atomic,
    AccT, DstT, SrcT, gShape0..4, gWholeShape0..4, M, N, K[, reluMode]>``: TMATMUL of ``x1_gm.bin`` (M x K) by
    ``x2_gm.bin`` (K x N) into an acc tile, then TSTORE to an M x N DstT global (atomic add onto zeros where
    ``atomic``), with ReLU where ``reluMode`` and, for the scalar form, main's float argument as the quant word
    (its bits; bit 46 set for int8_t and cleared for another one-byte DstT, as the kernel does)."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    forms = {(fn, int(key)): [a.strip() for a in targs.split(",")] for key, fn, targs in _ACC2GM.findall(kernel)}
    main = (folder / "main.cpp").read_text()
    fns = dict((case, fn) for _s, case, fn, _t, _c in _TEST_CALL.findall(main))
    cases = _cases(folder, st, row, lambda a: True, lambda a: a[1])
    for case, args, call, case_dir, eps in cases:
        form = forms.get((_ACC2GM_KERNEL.get(fns[case]), _int(args[0])))
        if form is None or len(form) < 17 or any(t not in CXX_DTYPES for t in form[1:4]):
            row.not_mapped += 1
            row.reasons.append(f"{case}: no kernel branch of known types for tilingKey {args[0]}")
            continue
        acc_dt, dst_dt, src_dt = (pto.get_dtype(CXX_DTYPES[t]) for t in form[1:4])
        M, N, K = (_int(a) for a in form[14:17])
        relu = len(form) > 17 and _int(form[17]) == 1
        up = lambda v, m=16: -(-v // m) * m  # noqa: E731
        lb = pto.get_target("cpu").left_blayout or "row_major"
        a = pto.Tile("left", src_dt.name, up(M), up(K), valid=(M, K), blayout=lb, slayout="row_major")
        b = pto.Tile("right", src_dt.name, up(K), up(N), valid=(K, N), blayout="row_major", slayout="col_major")
        c = pto.Tile("acc", acc_dt.name, up(M), up(N), valid=(M, N), blayout="col_major", slayout="row_major",
                     fractal=1024)
        a.bits[:M, :K] = np.fromfile(case_dir / "x1_gm.bin", src_dt.lane, M * K).reshape(M, K)
        b.bits[:K, :N] = np.fromfile(case_dir / "x2_gm.bin", src_dt.lane, K * N).reshape(K, N)
        out = np.zeros((M, N), dst_dt.np)
        word = None
        if call:
            word = int(np.float32(float(call[0])).view(np.int32))
            if dst_dt.size == 1:
                word = word & ~(1 << 46) | (int(dst_dt.name == "i8") << 46)
        try:
            pto.tmatmul(c, a, b, target="cpu")
            pto.tstore(out, c, word, relu_pre_mode=relu, atomic="add" if _int(form[0]) == 1 else "none",
                       target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        cmp_dt = CXX_DTYPES[args[1]]        # ResultCmp<dstDataType> of main.cpp (uint16_t for a half output)
        lanes = out.view(dst_dt.lane)
        want = np.fromfile(case_dir / "golden.bin", dst_dt.lane, M * N).reshape(M, N)
        _score(row, case, lanes.view(pto.get_dtype(cmp_dt).lane), want.view(pto.get_dtype(cmp_dt).lane), cmp_dt,
               eps, verbose)
    return row


_PARAMS = re.compile(r"template\s*<([^>]*)>\s*struct\s+Params\b")
_WINDOW_PARAMS = ("src_rows", "src_cols", "src_validRows", "src_validCols", "dst_rows", "dst_cols",
                  "dst_validRows", "dst_validCols", "idx_row", "idx_col")


def run_window_quant(folder: Path, st: Path, verbose: bool) -> Row:
    """TEXTRACT_QUANT / TINSERT_QUANT: ``Params<ST, DT, srcRows, srcCols, srcValidRows, srcValidCols, dstRows,
    dstCols, dstValidRows, dstValidCols, idxRow, idxCol, is_v_quant, apply_relu[, apply_saturation]>``; row-major
    mat tiles, src TLOADed from ``input.bin``; TEXTRACT/TINSERT with ``quant.bin``'s first word as the scalar,
    or their _FP forms with the file's words as the fp tile; the saturation flag is the control register's
    saturate bit (the task cookie's bit 48, ``Profile.quant_saturate_inf``). TEXTRACT: dst's valid region is
    compared with ``golden.bin``; TINSERT: dst's valid region is stored row-major, and main.cpp reads the
    inserted window back with a row stride of dstCols."""
    row = Row(folder.name)
    insert = folder.name.startswith("tinsert")
    decl = _PARAMS.search((folder / "main.cpp").read_text())
    names = [p.split()[-1].split("=")[0] for p in decl.group(1).split(",")] if decl else []
    fits = lambda a: len(a) in (14, 15) and a[0] in CXX_DTYPES and a[1] in CXX_DTYPES  # noqa: E731
    for case, args, _call, case_dir, eps in _cases(folder, st, row, fits if names else lambda a: False,
                                                   lambda a: a[1]):
        s_dt, d_dt = (pto.get_dtype(CXX_DTYPES[t]) for t in args[:2])
        v = dict(zip(names[2:12], (_int(a) for a in args[2:12])))   # the struct's order differs per folder
        sR, sC, svR, svC, dR, dC, dvR, dvC, r0, c0 = (v[k] for k in _WINDOW_PARAMS)
        vector, relu = args[12] == "true", args[13] == "true"
        prof = pto.get_target("cpu").with_(quant_saturate_inf=len(args) == 15 and args[14] == "true")
        sl = "row_major" if vector else "none_box"
        src = pto.Tile("mat", s_dt.name, sR, sC, valid=(svR, svC), blayout="row_major", slayout=sl, fractal=512)
        dst = pto.Tile("mat", d_dt.name, dR, dC, valid=(dvR, dvC), blayout="row_major", slayout=sl, fractal=512)
        src.bits[:svR, :svC] = np.fromfile(case_dir / "input.bin", s_dt.lane, svR * svC).reshape(svR, svC)
        quant = np.fromfile(case_dir / "quant.bin", np.uint64)
        fn = getattr(pto, ("tinsert" if insert else "textract") + ("_fp" if vector else ""))
        if vector:
            q = pto.Tile("scaling", "u64", 1, -(-quant.size // 4) * 4, valid=(1, quant.size))
            q.bits[0, :quant.size] = quant
        try:
            if vector:
                fn(dst, src, q, r0, c0, relu_pre_mode=relu, target=prof)
            else:
                fn(dst, src, r0, c0, int(quant[0]), relu_pre_mode=relu, target=prof)
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        got = dst.valid_bits.ravel()
        if insert:   # tile[i, j] = dstHost[(i + idxRow) * dstCols + j + idxCol] of the dvR x dvC store
            at = (np.arange(svR)[:, None] + r0) * dC + np.arange(svC)[None, :] + c0
            if at.max() >= got.size:
                row.not_mapped += 1
                row.reasons.append(f"{case}: main.cpp reads past the stored dst")
                continue
            got = got[at].ravel()
        _score(row, case, got, np.fromfile(case_dir / "golden.bin", d_dt.lane, got.size), d_dt.name, eps, verbose)
    return row


def _global_lanes(path: Path, dt, rows: int, cols: int) -> np.ndarray:
    """A global array from a file: lanes, or for a packed dtype ``rows x cols / 2`` bytes (PTO153)."""
    width = cols // 2 if dt.name in PACKED else cols
    return np.fromfile(path, dt.lane, rows * width).reshape(rows, width)


def _values(gm: np.ndarray, dt) -> np.ndarray:
    """The numbers a global array holds (a packed one unpacked, 4-bit codes as the simulator reads them)."""
    if dt.name in PACKED:
        codes = np.empty((gm.shape[0], 2 * gm.shape[1]), np.uint8)
        codes[:, 0::2], codes[:, 1::2] = gm & 0xF, gm >> 4
        return convert_sub_byte.value_of(codes, dt)
    return convert_sub_byte.value_of(gm.view(dt.lane), dt) if dt.name == "i4" else gm.view(dt.np).astype(float)


def run_tcvt(folder: Path, st: Path, verbose: bool) -> Row:
    """TCVT: ``<D, S, GROWS, GCOLS, TROWS, TCOLS[, SaturationMode]>``; TLOAD of ``x1_gm.bin`` into a vec tile of
    S, TCVT with CAST_RINT, TSTORE into a D global; compared with ``golden.bin`` by ResultCmp on the values
    (a packed fp4 file holds two codes a byte, PTO153)."""
    row = Row(folder.name)
    fits = lambda a: len(a) in (6, 7) and a[0] in CXX_DTYPES and a[1] in CXX_DTYPES  # noqa: E731
    for case, args, _call, case_dir, eps in _cases(folder, st, row, fits):
        d_dt, s_dt = (pto.get_dtype(CXX_DTYPES[t]) for t in args[:2])
        gr, gc, tr, tc = (_int(a) for a in args[2:6])
        sat = len(args) == 7 and args[6].endswith("ON")
        if (d_dt.name in PACKED or s_dt.name in PACKED) and gc % 2:
            row.not_mapped += 1
            row.reasons.append(f"{case}: a packed row of odd length is not a whole number of bytes")
            continue
        src, dst = pto.Tile("vec", s_dt.name, tr, tc, valid=(gr, gc)), pto.Tile("vec", d_dt.name, tr, tc, valid=(gr, gc))
        want = _global_lanes(case_dir / "golden.bin", d_dt, gr, gc)
        out = np.zeros_like(want)
        try:
            pto.tload(src, _global_lanes(case_dir / "x1_gm.bin", s_dt, gr, gc), target="cpu")
            pto.tcvt(dst, src, "CAST_RINT", sat, target="cpu")
            pto.tstore(out, dst, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        res = pto.result_cmp(_values(out, d_dt), _values(want, d_dt), eps)
        row.passed += res.passed
        row.failed += not res.passed
        row.exact += bool((out.view(np.uint8) == want.view(np.uint8)).all())
        if verbose and not res.passed:
            row.reasons.append(f"{case}: fails ({res.failures} > {res.allowed})")
    return row


def run_scale_addr(folder: Path, st: Path, verbose: bool) -> Row:
    """TGET_SCALE_ADDR: ``<T, GROWS, GCOLS, TROWS, TCOLS>``; a vec tile TLOADed from ``input.bin``, dst a tile
    of the same type made to alias it (the simulator points dst's data at src's), TSTOREd and compared with
    ``golden.bin``. The ``tgetscaleaddr`` folder's one gtest checks the aliasing itself (as TRESHAPE's)."""
    row = Row(folder.name)
    if not (folder / "gen_data.py").is_file():
        row.cases = 1
        src = pto.Tile("vec", "f32", 2, 8)
        src.values[...] = np.arange(1, 17, dtype=np.float32).reshape(2, 8)
        try:
            dst = pto.tget_scale_addr(pto.Tile("vec", "f32", 2, 8), src, target="cpu")
        except TilesimError as e:
            row.refused, row.reasons = 1, [f"refused: {e.rule}"]
            return row
        src.values[0, 3] = 42.0
        ok = bool(dst.values[0, 3] == 42.0 and (dst.bits == src.bits).all())
        row.passed, row.failed, row.exact = int(ok), int(not ok), int(ok)
        return row
    for case, args, _call, case_dir, eps in _cases(folder, st, row, _typed(5)):
        d = pto.get_dtype(CXX_DTYPES[args[0]])
        gr, gc, tr, tc = (_int(a) for a in args[1:])
        src = pto.Tile("vec", d.name, tr, tc, valid=(gr, gc))
        src.bits[:gr, :gc] = np.fromfile(case_dir / "input.bin", d.lane, gr * gc).reshape(gr, gc)
        try:
            dst = pto.tget_scale_addr(pto.Tile("vec", d.name, tr, tc), src, target="cpu")
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        _score(row, case, dst.bits, np.fromfile(case_dir / "golden.bin", d.lane, tr * tc).reshape(tr, tc), d.name,
               eps, verbose)
    return row


_PUSHPOP_TEST = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*(\w+)<(\w+),\s*(\d+),\s*(\d+)"
                           r"(?:,\s*TileType::(\w+))?>\(\)\s*;\s*\}")
_PUSHPOP_MACRO = re.compile(r"^TPUSHPOP_TEST\((\w+),\s*(\d+),\s*(\d+),\s*(\w+)\)", re.M)
#: the single-lane push/pop scenarios and the constant of their bodies that counts the tiles (None: one)
_PUSHPOP_RUNS = {"runCubeToVectorSingleTile": None, "runCubeToVectorMultiCoreStream": "kIterations",
                 "testPushPopSingleThread": None, "testPushPopMultiCore": "kIterations",
                 "runCubeToVectorNoSplitSingleTile": None, "runCubeToVectorNoSplitWraparound": "kIterations",
                 "runCubeToVectorNoSplitDelayedFree": "kFifoDepth"}


def run_push_pop(folder: Path, st: Path, verbose: bool) -> Row:
    """TPUSH/TPOP/TFREE gtests that push a tile of ``iter * 1000 + i + 1`` (storage order) through a
    cube-to-vector pipe ``kIterations`` times (once without) and pop each into a tile of the same shape,
    checked by ResultCmp at 0 (the scenarios of :data:`_PUSHPOP_RUNS`; the producer and consumer threads of
    the multi-core forms run one after the other here, the sequential model, and the FIFO's depth and free
    timing change no data). The tests of the simulator's thread hooks, two vector lanes, split halves and GM
    FIFO slots are not mapped."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    tests = [(case, fn, t, int(r), int(c), loc) for case, fn, t, r, c, loc in _PUSHPOP_TEST.findall(main)]
    tests += [(f"{t}_{r}_{c}_{loc}", "testPushPopSingleThread", t, int(r), int(c), loc)
              for t, r, c, loc in _PUSHPOP_MACRO.findall(main)]
    row.cases = len(re.findall(r"^\s*TEST_F\((?!.*##)", main, re.M)) + len(_PUSHPOP_MACRO.findall(main))
    for case, fn, cxx, R, C, loc in tests:
        body = re.search(rf"void {fn}\(\)\s*\{{(.*?)\n\}}", main, re.S)
        locs = dict(re.findall(r"using (\w+)Tile = Tile<TileType::(\w+)", body.group(1))) if body else {}
        src_loc, dst_loc = (loc, loc) if loc else (locs.get("Cube"), locs.get("Vec"))
        if fn not in _PUSHPOP_RUNS or body is None or cxx not in CXX_DTYPES or None in (src_loc, dst_loc):
            continue
        count = _PUSHPOP_RUNS[fn]
        n = int(re.findall(rf"{count} = (\d+)", body.group(1))[0]) if count else 1
        d = pto.get_dtype(CXX_DTYPES[cxx])
        pipe, ok, exact = pto.TPipe(1), True, True
        try:
            for it in range(n):
                t = pto.Tile(src_loc.lower(), d.name, R, C)
                t.values[...] = (it * 1000 + np.arange(R * C) + 1).reshape(R, C)
                pto.tpush(pipe, t)
            for it in range(n):
                got = pto.tpop(pipe, pto.Tile(dst_loc.lower(), d.name, R, C))
                pto.tfree(pipe)
                want = (it * 1000 + np.arange(R * C) + 1).astype(d.np).reshape(R, C)
                ok &= pto.result_cmp(np.asarray(got.values, float), want.astype(float), 0).passed
                exact &= bool((got.values == want).all())
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{case}: refused: {e.rule}")
            continue
        row.passed += ok
        row.failed += not ok
        row.exact += exact
    row.not_mapped = row.cases - row.passed - row.failed - row.refused
    if row.not_mapped:
        row.reasons.append(f"{row.not_mapped} gtests of the simulator's thread hooks, two vector lanes, split "
                           "halves or GM FIFO slots")
    return row


#: folders whose kernel is not the plain one, each with its own adapter
ADAPTERS = {"tpartargmax": run_part_arg, "tpartargmin": run_part_arg, "treshape": run_reshape,
            "tsubview": run_subview, "tgatherb": run_gatherb, "tstore_quant": run_tstore_quant,
            "tstore_acc2gm": run_tstore_acc2gm, "textract_quant": run_window_quant,
            "tinsert_quant": run_window_quant, "tget_scale_addr": run_scale_addr, "tgetscaleaddr": run_scale_addr,
            "tcvt": run_tcvt, "tpushpop": run_push_pop, "tpushpop_cv": run_push_pop,
            "tpushpop_cv_nosplit": run_push_pop}


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
