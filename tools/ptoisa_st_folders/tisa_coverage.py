"""tisa_coverage: one main.cpp of 26 ``TEST_F(IsaCoverageTest, ...)``. The first three scan the repository
(entry points named in tests/, testcase folders listed in CMake), not an instruction; the rest are self-checking
instruction tests, each run here through :func:`selfcheck.run_selfcheck` with its tiles and fills read from
main.cpp and its loop's check restated below.

At pto-isa 3186c381 the folder is not in tests/cpu/st/testcase/CMakeLists.txt's ALL_TESTCASES and its main.cpp
does not compile (clang-19 -fsyntax-only: TPACK undeclared at line 630; no TQUANT overload for the
MXFP8/NZ call at line 866; TileRightScale<float, 16, 2> fails pto_tile.hpp's ``Cols % InnerCols`` assert at
line 892): upstream cannot run any of these tests, so each check is the test's own, not a replay of a run."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Case, Row, count_tests, refusals

from .selfcheck import _reduce_idx, _textract_fp, _tpartmul, float_eq, run_selfcheck

CPU = {"target": "cpu"}
UPSTREAM = ("the file does not build at 3186c381 (TPACK undeclared, main.cpp:630; no TQUANT overload for "
            "<MXFP8, NZ>, :866; TileRightScale<float, 16, 2> static_assert, :892) and is not in ALL_TESTCASES")
#: tests not mapped, and why (per test)
NOT_MAPPED = {
    "RepoWideCoverageTouchesEveryIsaEntryPoint": "not an instruction test: greps tests/{cpu,npu,costmodel} for "
                                                 "every PTO_INST name in pto_instr.hpp",
    "CpuCoverageTouchesEveryIsaEntryPoint": "not an instruction test: greps tests/cpu for every PTO_INST name",
    "CpuCaseDirectoriesAreListedInCpuStCMake": "not an instruction test: compares testcase folders with "
                                               "CMakeLists.txt's ALL_TESTCASES",
    "TprintWritesReadableMatrix": "expects '1 2 3 4' unpadded, but upstream's TPRINT_IMPL (cpu/TPrint.hpp) "
                                  "writes each value setw(8), as tilesim does: the test's text matches neither",
    "TquantScalarAndMxWrappersAreCallable": "its TQUANT<MXFP8, NZ> call has no overload at 3186c381 (the "
                                            "compile error that stops the file)",
    "TgemvAndMxVariantsMatchCpuMatmulSemantics": "TGEMV and TGEMV_ACC, then TGEMV_MX/TMATMUL_MX on f32 tiles "
                                                 "with f32 scale tiles (no MX format has f32 elements or scales); "
                                                 "its TileRightScale<float, 16, 2> does not compile (:892)",
}


def _grid(t: pto.Tile):
    return np.meshgrid(np.arange(t.valid_rows), np.arange(t.valid_cols), indexing="ij")


def _taxpy(body, m):
    dst, src = m["dst"], m["src"]
    before = dst.valid_values.copy()
    pto.taxpy(dst, src, np.float32(0.5), **CPU)
    return float_eq(dst.valid_values, before + src.valid_values * np.float32(0.5))


def _tfmod(body, m):
    r, c = _grid(m["src0"])
    m["src0"].valid_values[...] = 10 + r + c
    m["src1"].valid_values[...] = 3 + (r + c) % 3
    pto.tfmod(m["dstVec"], m["src0"], m["src1"], **CPU)
    pto.tfmods(m["dstScalar"], m["src0"], np.float32(4.0), **CPU)
    a, b = m["src0"].valid_values, m["src1"].valid_values
    return float_eq(m["dstVec"].valid_values, np.fmod(a, b)) and \
        float_eq(m["dstScalar"].valid_values, np.fmod(a, np.float32(4)))


def _tfillpad(body, m):
    """Tiles built here: main.cpp's PadValue::Max types are past the selfcheck reader's ``using`` form."""
    src = pto.Tile("vec", "i16", 4, 16, valid=(3, 8))
    src.valid_values[...] = np.arange(1, 25).reshape(3, 8)
    ok = True
    for rows, call in ((4, pto.tfillpad_inplace), (5, pto.tfillpad_expand)):
        dst = pto.Tile("vec", "i16", rows, 16, pad="max")
        call(dst, src, **CPU)
        want = np.full((rows, 16), np.iinfo(np.int16).max)
        want[:3, :8] = src.valid_values
        ok &= bool((dst.valid_values == want).all())
    return ok


def _tshifts(body, m):
    pto.tshls(m["left"], m["src"], 2, **CPU)
    pto.tshrs(m["right"], m["src"], 1, **CPU)
    v = m["src"].valid_values
    return bool((m["left"].valid_values == v << 2).all() and (m["right"].valid_values == v >> 1).all())


def _tsubview(body, m):
    pto.tsubview(m["dst"], m["src"], 1, 2, **CPU)
    return float_eq(m["dst"].valid_values, m["src"].values[1:4, 2:8])


def _tconcat(body, m):
    s0, s1, dst = m["src0"], m["src1"], m["dst"]
    pto.tconcat(dst, s0, s1, **CPU)
    n0, n1 = s0.valid_cols, s1.valid_cols
    return bool((dst.values[:2, :n0] == s0.valid_values).all() and
                (dst.values[:2, n0:n0 + n1] == s1.valid_values).all())


def _tinsert(body, m):
    src = m["src"]
    pto.tinsert(m["plainDst"], src, 1, 4, **CPU)
    pto.tinsert(m["scalarDst"], src, 1, 4, 7, **CPU)
    pto.tinsert_fp(m["fpDst"], src, m["fp"], 1, 4, **CPU)
    return all(float_eq(m[d].values[1:3, 4:12], src.valid_values) for d in ("plainDst", "scalarDst", "fpDst"))


def _tmov_fp(body, m):
    pto.tmov_fp(m["dst"], m["src"], m["fp"], **CPU)
    return float_eq(m["dst"].valid_values, m["src"].valid_values)


def _tget_scale_addr(body, m):
    src, dst = m["src"], m["dst"]
    pto.tget_scale_addr(dst, src, **CPU)
    src.values.reshape(-1)[3] = 42.0                    # src.data()[3] = 42.0f, read through dst
    return float_eq(dst.values.reshape(-1)[3:4], np.float32([42.0]))


def _tstore_fp(body, m):
    out = pto.tstore_fp(np.zeros((2, 8), np.float32), m["src"], m["fp"], **CPU)
    return float_eq(out, m["src"].valid_values)


def _tpack(body, m):
    pto.tpack(m["dst"], m["src"], **CPU)
    return bool((m["dst"].valid_values == m["src"].valid_values.astype(np.int16)).all())


def _trandom(body, m):
    pto.trandom(m["first"], 0x12345678, 0x9ABCDEF0, 0, 1, 2, 3, **CPU)
    pto.trandom(m["second"], 0x12345678, 0x9ABCDEF0, 0, 1, 2, 3, **CPU)
    a, b = m["first"].valid_values[0], m["second"].valid_values[0]
    return bool((a == b).all() and a[0] != a[1])


def _tprods(body, m):
    src = m["src"]
    pto.tcolprod(m["colDst"], src, **CPU)
    pto.trowprod(m["rowDst"], src, m["tmp"], **CPU)
    v = src.valid_values
    col, row = np.ones(v.shape[1], np.float32), np.ones(v.shape[0], np.float32)
    for r in range(v.shape[0]):                         # the test's loops: products in index order, in f32
        col *= v[r]
    for c in range(v.shape[1]):
        row *= v[:, c]
    return float_eq(m["colDst"].valid_values[0], col) and float_eq(m["rowDst"].valid_values[:, 0], row)


def _argidx(sets: dict, want: dict):
    """TROW/TCOLARGMAX/MIN of src = (r + 1) * 10 + c with main.cpp's SetValue overrides: dst = the literals."""
    def check(body, m):
        src = m["src"]
        r, c = _grid(src)
        src.valid_values[...] = (r + 1) * 10 + c
        for (i, j), v in sets.items():
            src.values[i, j] = v
        ok = True
        for name, values in want.items():
            getattr(pto, name)(m[name[-6:]], src, m["tmp"], **CPU)
            ok &= m[name[-6:]].valid_values.ravel().tolist() == values
        return ok
    return check


def _thistogram(body, m):
    src, dst, idx = m["src"], m["dst"], m["idx"]
    src.bits[0, :8] = [0x1201, 0x1202, 0x3410, 0x12FF, 0x2211, 0x2212, 0x4413, 0x2214]
    idx.bits[0, 0] = 0x12
    pto.thistogram(dst, src, idx, byte=1, **CPU)
    hi = [int(dst.bits[0, k]) for k in (0x11, 0x12, 0x33, 0x34)]
    pto.thistogram(dst, src, idx, byte=0, **CPU)
    lo = [int(dst.bits[0, k]) for k in (0x00, 0x01, 0x02, 0xFE, 0xFF)]
    return hi == [0, 3, 6, 7] and lo == [0, 1, 2, 2, 3]


def _tdequant(body, m):
    src, scale, offset, dst = m["src"], m["scale"], m["offset"], m["dst"]
    r, c = _grid(src)
    src.valid_values[...] = (r + 1) * 10 + c
    scale.valid_values[...] = np.float32(0.5) + c.astype(np.float32) * np.float32(0.25)
    offset.valid_values[...] = r + c
    pto.tdequant(dst, src, scale, offset, **CPU)
    want = (src.valid_values.astype(np.float32) - offset.valid_values) * scale.valid_values
    return float_eq(dst.valid_values, want)


CHECKS = {
    "TaxpyAccumulatesScaledSource": _taxpy,
    "TfmodAndTfmodsUseFloatingPointRemainder": _tfmod,
    "TfillpadInplaceAndExpandPadRemainingElements": _tfillpad,
    "TshlsAndTshrsApplyScalarShift": _tshifts,
    "TsubviewExtractsRequestedWindow": _tsubview,
    "TconcatAppendsColumns": _tconcat,
    "TinsertCopiesIntoDestinationAtOffset": _tinsert,
    "TmovFpCopiesSourceTile": _tmov_fp,
    "TextractFpSlicesSourceTile": _textract_fp,
    "TpartmulMultipliesOverlapAndCopiesRemainder": _tpartmul,
    "TgetScaleAddrAliasesSourceStorage": _tget_scale_addr,
    "TstoreFpStoresTileIntoGlobalTensor": _tstore_fp,
    "TpackCopiesValidValues": _tpack,
    "TrandomWrapperProducesDeterministicOutput": _trandom,
    "TcolprodAndTrowprodReduceProducts": _tprods,
    "TrowArgmaxAndTrowArgminReturnIndices": _argidx({(0, 5): 100, (1, 2): -7, (2, 7): 99},
                                                    {"trowargmax": [5, 7, 7], "trowargmin": [0, 2, 0]}),
    "TcolArgmaxAndTcolArgminReturnIndices": _argidx({(3, 0): 100, (1, 1): -5, (2, 2): 77, (0, 3): -9},
                                                    {"tcolargmax": [3, 3, 2, 3], "tcolargmin": [0, 1, 0, 0]}),
    "ThistogramWrapperBuildsCumulativeBins": _thistogram,
    "TdequantAppliesScaleAndOffset": _tdequant,
}


def _tfree_discards() -> bool:
    """TfreeDiscardsQueuedTileInCpuSimPipe on a Python pipe (a C2V pipe of 4 slots, 2x8 f32 vec tiles, as
    main.cpp:587): TPUSH first, TFREE, TPUSH second, TPOP gives second (PTO197)."""
    pipe = pto.TPipe(1, depth=4)
    first, second, dst = (pto.Tile("vec", "f32", 2, 8) for _ in range(3))
    first.values[...] = 1 + np.arange(16, dtype=np.float32).reshape(2, 8)        # FillLinear(first, 1.0f)
    second.values[...] = 101 + np.arange(16, dtype=np.float32).reshape(2, 8)     # FillLinear(second, 101.0f)
    pto.tpush(pipe, first, direction="c2v")
    pto.tfree(pipe)
    pto.tpush(pipe, second, direction="c2v")
    pto.tpop(pipe, dst, direction="c2v")
    return float_eq(dst.valid_values, second.valid_values)


def run_tisa_coverage(folder: Path, st: Path, verbose: bool) -> Row:
    """Each instruction test through run_selfcheck with its check; the rest counted not mapped, with why."""
    main = (folder / "main.cpp").read_text()
    row = Row(folder.name, cases=count_tests(main))
    for name, check in CHECKS.items():
        run_selfcheck(folder, st, verbose, row, names={name}, check=check)
    if re.search(r"TEST_F\(\s*\w+\s*,\s*TfreeDiscardsQueuedTileInCpuSimPipe\s*\)", main):
        with refusals(row, Case("TfreeDiscardsQueuedTileInCpuSimPipe", [], folder, 0.0, None)):
            ok = _tfree_discards()
            row.tally("TfreeDiscardsQueuedTileInCpuSimPipe", ok, ok, verbose)
    present = [name for name in NOT_MAPPED if re.search(rf"TEST_F\(\s*\w+\s*,\s*{name}\s*\)", main)]
    row.not_mapped += len(present)
    row.reasons += [f"{name}: {NOT_MAPPED[name]}" for name in present]
    row.reasons.append("upstream runs none: " + UPSTREAM)
    return row


ADAPTERS = {"tisa_coverage": run_tisa_coverage}
