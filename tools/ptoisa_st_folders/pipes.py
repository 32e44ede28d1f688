"""Folders of the pipe and address statements (TPUSH/TPOP/TFREE, TGET_SCALE_ADDR) and of TCVT with the 4-bit
types (PTO152, PTO153)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.conv import BlockConfig
from tilesim.pto.dtypes import PACKED
from tilesim.pto.ops import convert_sub_byte

from ptoisa_st import CXX_DTYPES, Row, _int, count_tests, each_case, refusals, score

from . import matmul, pipe_kernels
from .common import tile
from .pipe_scenarios import HOOKS_ONLY, SCENARIOS

#: the 4-bit C++ types of the tcvt folder, beside CXX_DTYPES
SUB_BYTE_CXX = {"int4b_t": "i4", "float4_e2m1x2_t": "f4e2m1", "float4_e1m2x2_t": "f4e1m2"}
_TYPES = {**CXX_DTYPES, **SUB_BYTE_CXX}


def run_scale_addr(folder: Path, st: Path, verbose: bool) -> Row:
    """``<T, GROWS, GCOLS, TROWS, TCOLS>``: a vec tile TLOADed from ``input.bin``, dst a tile of the same type
    made to alias it (the simulator points dst's data at src's), compared with ``golden.bin``. The
    ``tgetscaleaddr`` folder's one gtest checks the aliasing itself (as TRESHAPE's)."""
    row = Row(folder.name)
    if not (folder / "gen_data.py").is_file():
        row.cases = count_tests((folder / "main.cpp").read_text())
        src = pto.Tile("vec", "f32", 2, 8)
        src.values[...] = np.arange(1, 17, dtype=np.float32).reshape(2, 8)
        dst = pto.tget_scale_addr(pto.Tile("vec", "f32", 2, 8), src, target="cpu")
        src.values[0, 3] = 42.0
        ok = bool(dst.values[0, 3] == 42.0 and (dst.bits == src.bits).all())
        row.passed, row.failed, row.exact = int(ok), int(not ok), int(ok)
        return row
    for case in each_case(folder, st, row, lambda c: None if len(c.args) == 5 else "not the folder's form"):
        with refusals(row, case):
            gr, gc, tr, tc = (_int(a) for a in case.args[1:])
            src = pto.Tile("vec", case.dtype, tr, tc, valid=(gr, gc))
            src.bits[:gr, :gc] = case.read("input.bin", case.dtype, gr, gc)
            dst = pto.tget_scale_addr(pto.Tile("vec", case.dtype, tr, tc), src, target="cpu")
            score(row, case, verbose, (dst.bits, case.read("golden.bin", case.dtype, tr, tc), case.dtype))
    return row


_PUSHPOP_TEST = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*(\w+)<(\w+),\s*(\d+),\s*(\d+)"
                           r"(?:,\s*TileType::(\w+))?>\(\)\s*;\s*\}")
_ANY_TEST = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*(?:(\w+)(?:<([^>]*)>)?\()?")
_PUSHPOP_MACRO = re.compile(r"^TPUSHPOP_TEST\((\w+),\s*(\d+),\s*(\d+),\s*(\w+)\)", re.M)
#: the single-lane push/pop scenarios and the constant of their bodies that counts the tiles (None: one)
_PUSHPOP_RUNS = {"runCubeToVectorSingleTile": None, "runCubeToVectorMultiCoreStream": "kIterations",
                 "testPushPopSingleThread": None, "testPushPopMultiCore": "kIterations",
                 "runCubeToVectorNoSplitSingleTile": None, "runCubeToVectorNoSplitWraparound": "kIterations",
                 "runCubeToVectorNoSplitDelayedFree": "kFifoDepth"}


def run_push_pop(folder: Path, st: Path, verbose: bool) -> Row:
    """gtests that push a tile of ``iter * 1000 + i + 1`` (storage order) through a cube-to-vector pipe as many
    times as the scenario's constant says (once without) and pop each into a tile of the same shape, checked
    by ResultCmp at 0 (the scenarios of :data:`_PUSHPOP_RUNS`; the producer and consumer threads of the
    multi-core forms run one after the other here, the sequential model, and the FIFO's depth and free timing
    change no data); the other gtests (two vector subblocks, split halves, vector-to-cube pushes, slot counts,
    GM FIFO slots) run as their step-for-step transcriptions in :mod:`.pipe_scenarios`. A gtest of the
    simulator's thread hooks alone (no instruction's data) is not mapped."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    tests = [(case, fn, t, int(r), int(c), loc) for case, fn, t, r, c, loc in _PUSHPOP_TEST.findall(main)]
    tests += [(f"{t}_{r}_{c}_{loc}", "testPushPopSingleThread", t, int(r), int(c), loc)
              for t, r, c, loc in _PUSHPOP_MACRO.findall(main)]
    row.cases = count_tests(main)
    done = set()
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
        row.passed += ok
        row.failed += not ok
        row.exact += exact
        done.add(case)
    for name, fn, targs in _ANY_TEST.findall(main):
        run = SCENARIOS.get(name) or SCENARIOS.get(fn)
        if name in done or run is None:
            continue
        ok = run([a.strip() for a in targs.split(",")] if targs else [])
        row.tally(name, ok, ok, verbose)
    row.not_mapped = row.cases - row.passed - row.failed - row.refused
    hooks = [HOOKS_ONLY[n] for n, _, _ in _ANY_TEST.findall(main) if n in HOOKS_ONLY]
    if hooks:
        row.reasons.append(f"{len(hooks)} not an instruction test: " + "; ".join(hooks))
    elif row.not_mapped:
        row.reasons.append(f"{row.not_mapped} gtests no transcription serves")
    return row


def _global_lanes(case, file: str, dt, rows: int, cols: int) -> np.ndarray:
    """A global array from a file: lanes, or for a packed dtype ``rows x cols / 2`` bytes (PTO153)."""
    return case.read(file, "u8" if dt.name in PACKED else dt.name, rows, cols // 2 if dt.name in PACKED else cols)


def _values(gm: np.ndarray, dt) -> np.ndarray:
    """The numbers a global array holds (a packed one unpacked, 4-bit codes as the simulator reads them)."""
    if dt.name in PACKED:
        codes = np.empty((gm.shape[0], 2 * gm.shape[1]), np.uint8)
        codes[:, 0::2], codes[:, 1::2] = gm & 0xF, gm >> 4
        return convert_sub_byte.value_of(codes, dt)
    return convert_sub_byte.value_of(gm.view(dt.lane), dt) if dt.name == "i4" else gm.view(dt.np).astype(float)


def _tcvt_form(case) -> str | None:
    a = case.args
    if case.dir is None:
        return "gen_data.py made no data"
    if not (len(a) in (6, 7) and a[0] in _TYPES and a[1] in _TYPES):
        return "not the folder's form"
    packed = {_TYPES[a[0]], _TYPES[a[1]]} & set(PACKED)
    return "a packed row of odd length is not a whole number of bytes" if packed and _int(a[3]) % 2 else None


def run_tcvt(folder: Path, st: Path, verbose: bool) -> Row:
    """``<D, S, GROWS, GCOLS, TROWS, TCOLS[, SaturationMode]>``: TLOAD of ``x1_gm.bin`` into a vec tile of S,
    TCVT with CAST_RINT, TSTORE into a D global; compared with ``golden.bin`` by ResultCmp on the values (a
    packed fp4 file holds two codes a byte, PTO153; upstream's numpy goldens write -0 where the simulator
    writes +0, so four fp4 cases pass without being bit for bit)."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _tcvt_form, exempt=lambda c: bool({*c.args[:2]} & set(SUB_BYTE_CXX))):
        with refusals(row, case):
            d_dt, s_dt = (pto.get_dtype(_TYPES[t]) for t in case.args[:2])
            gr, gc, tr, tc = (_int(a) for a in case.args[2:6])
            sat = len(case.args) == 7 and case.args[6].endswith("ON")
            src = pto.Tile("vec", s_dt.name, tr, tc, valid=(gr, gc))
            dst = pto.Tile("vec", d_dt.name, tr, tc, valid=(gr, gc))
            want = _global_lanes(case, "golden.bin", d_dt, gr, gc)
            out = np.zeros_like(want)
            pto.tload(src, _global_lanes(case, "x1_gm.bin", s_dt, gr, gc), target="cpu")
            pto.tcvt(dst, src, "CAST_RINT", sat, target="cpu")
            pto.tstore(out, dst, target="cpu")
            eps = case.eps if case.eps is not None else 0.001
            res = pto.result_cmp(_values(out, d_dt), _values(want, d_dt), eps)
            row.tally(case.name, res.passed, bool((out.view(np.uint8) == want.view(np.uint8)).all()), verbose,
                      f"fails ({res.failures} > {res.allowed})")
    return row


_FIX_KEY = re.compile(r"tilingKey == (\d+)\)\s*\{\s*(\w+)<([^>]*)>")
_FIX_CASE = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*\w+<(\d+)>")


def _fixpipe_kernels(folder: Path) -> dict[int, tuple[list[str], str, float | None, bool]]:
    """tilingKey -> (the run function's template arguments, its QuantMode, its SET_QUANT_SCALAR value, whether
    it loads a quant vector), from the kernel."""
    text = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    out = {}
    for key, fn, targs in _FIX_KEY.findall(text):
        body = re.search(rf"void {fn}\(.*?\n\}}", text, re.S).group(0)
        scalar = re.search(r"SET_QUANT_SCALAR<\w+>\(([-0-9.eE+]+)f?\)", body)
        out[int(key)] = ([a.strip() for a in targs.split(",")], re.search(r"QuantMode_t::(\w+)>", body).group(1),
                         float(scalar.group(1)) if scalar else None, "SET_QUANT_VECTOR" in body)
    return out


def run_push_fixpipe(folder: Path, st: Path, verbose: bool) -> Row:
    """``RunTPushPopFixpipe*<InT, AccT, OutT, M, K, N>`` of the case's tilingKey: TLOAD of ``x1_gm.bin`` and
    ``x2_gm.bin`` into Nz mat tiles, TMOV to Left and Right, TMATMUL, the kernel's SET_QUANT_SCALAR or
    SET_QUANT_VECTOR (``quant_gm.bin``'s words), TPUSH with the kernel's FixpipeParams quant mode (PTO179),
    TPOP into an OutT vec tile, TADDS 1, TSTORE; compared with ``golden.bin`` by ResultCmp at main.cpp's eps."""
    row = Row(folder.name)
    kernels = _fixpipe_kernels(folder)
    keys = dict(_FIX_CASE.findall((folder / "main.cpp").read_text()))
    form = (lambda c: "gen_data.py made no data" if c.dir is None else
            None if int(keys.get(c.name, 0)) in kernels else "no kernel for the tilingKey")
    for case in each_case(folder, st, row, form, exempt=lambda c: True):
        with refusals(row, case):
            targs, quant, scalar, vector = kernels[int(keys[case.name])]
            in_t, acc_t, out_t = (CXX_DTYPES[t] for t in targs[:3])
            m, k, n = (int(v) for v in targs[3:6])
            left, right, acc = matmul.loaded_operands(case, acc_t, in_t, in_t, m, k, n, m_align=16)
            pto.tmatmul(acc, left, right, target="cpu")
            cfg = BlockConfig()
            if scalar is not None:
                pto.set_quant_scalar(scalar, out_dtype=out_t, config=cfg, target="cpu")
            if vector:
                fb = tile("u64", (1, acc.cols), (1, n), loc="scaling", data=case.read("quant_gm.bin", "u64", 1, n))
                pto.set_quant_vector(fb, config=cfg, target="cpu")
            pipe = pto.TPipe(1, depth=2, no_split=True)
            pto.tpush(pipe, acc, quant=quant, config=cfg, target="cpu")
            vec = pto.tpop(pipe, tile(out_t, (m, n)))
            out = pto.tadds(tile(out_t, (m, n)), vec, 1.0, target="cpu")
            pto.tfree(pipe)
            got = pto.tstore(np.zeros((m, n), out.dtype.np), out, target="cpu")
            score(row, case, verbose, (got.view(out.dtype.lane), case.read("golden.bin", out_t, m, n), out_t))
    return row


ADAPTERS = {"tget_scale_addr": run_scale_addr, "tgetscaleaddr": run_scale_addr, "tpushpop": run_push_pop,
            "tpushpop_cv": run_push_pop, "tpushpop_cv_nosplit": run_push_pop, "tcvt": run_tcvt,
            "tpushpop_vc": run_push_pop, "tpushpop_vc_nosplit": run_push_pop, "tpushpop_fixpipe": run_push_fixpipe,
            **pipe_kernels.ADAPTERS}
