"""Helpers of tools/ptoisa_st.py that run without a pto-isa checkout: reading a main.cpp's test lines, file
reads and ResultCmp eps, and running a plain-kernel case from input files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[2] / "tools" / "ptoisa_st.py"
_spec = importlib.util.spec_from_file_location("ptoisa_st", _PATH)
st = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("ptoisa_st", st)
_spec.loader.exec_module(st)

MAIN = """
    CHECK_RESULT_GTEST(ReadFile(GetGoldenDir() + "/x0.bin", n, a, n));
    CHECK_RESULT_GTEST(ReadFile(GetGoldenDir() + "/x1.bin", n, b, n));
    CHECK_RESULT_GTEST(ReadFile(GetGoldenDir() + "/golden.bin", n, g, n));
    bool ok = ResultCmp<T>(golden, devFinal, 0.25f);
TEST_F(SuiteT, case_a) { run_it<int16_t, NUM_8, 16, 8, NUM_16>(); }
TEST_F(SuiteT, case_b)
{
    run_it<float, 8, 16, 8, 16>();
}
"""


def test_main_cpp_is_read():
    assert st._TEST.findall(MAIN) == [("SuiteT", "case_a", "run_it", "int16_t, NUM_8, 16, 8, NUM_16"),
                                      ("SuiteT", "case_b", "run_it", "float, 8, 16, 8, 16")]
    assert st._READ.findall(MAIN) == ["x0.bin", "x1.bin", "golden.bin"]
    assert [float(e) for e in st._EPS.findall(MAIN)] == [0.25]
    assert st._int("NUM_64") == 64 and st._int(" 7 ") == 7
    with pytest.raises(ValueError):
        st._int("ROWS")


def test_eps_per_element_type():
    main = """float eps = 0.0f;
    if constexpr (std::is_same_v<T, float>) {
        eps = 0.0001f;
    } else if constexpr (std::is_same_v<T, aclFloat16>) {
        eps = 0.001f;
    }
    bool ret = ResultCmp<T>(golden, devFinal, eps);"""
    assert (st.eps_of(main, "float"), st.eps_of(main, "aclFloat16"), st.eps_of(main, "int32_t")) == (1e-4, 1e-3, 0.0)
    assert st.eps_of(MAIN, "int16_t") == 0.25


def test_a_plain_case_runs_from_files(tmp_path):
    a = np.arange(-16, 16, dtype=np.int16).reshape(2, 16)
    b = np.full((2, 16), 3, np.int16)
    a.tofile(tmp_path / "a.bin")
    b.tofile(tmp_path / "b.bin")
    dst = st.run_case("tshr", ("src0", "src1"), "i16", ((2, 16), (2, 16), (2, 16)),
                      [tmp_path / "a.bin", tmp_path / "b.bin"])
    assert (dst.values == (a >> 3)).all()


GEN_PART_ARG = """
import os
import numpy as np
rng = np.random.default_rng(5)
for case, flip in (("S.case_ok", False), ("S.case_bad", True)):
    os.makedirs(case, exist_ok=True)
    v0, v1 = (rng.integers(-3, 4, (8, 16)).astype(np.float32) for _ in range(2))
    i0, i1 = (rng.integers(0, 99, (8, 16)).astype(np.uint32) for _ in range(2))
    v1[0, 0] = v0[0, 0]                                   # a tie: src1 wins
    win1 = np.zeros((8, 16), bool)
    win1[:4, :8] = v1[:4, :8] >= v0[:4, :8]
    gv, gi = np.where(win1, v1, v0), np.where(win1, i1, i0)
    if flip:
        gi[0, 0] += 1
    for name, a in (("input0_val", v0), ("input1_val", v1), ("input0_idx", i0), ("input1_idx", i1),
                    ("golden_val", gv), ("golden_idx", gi)):
        a.tofile(os.path.join(case, name + ".bin"))
"""


def test_a_part_arg_folder_runs_from_files(tmp_path):
    """The TPARTARGMAX adapter: src1 the top-left kValidRows1 x kValidCols1 of its file; both outputs compared."""
    folder = tmp_path / "tpartargmax"
    folder.mkdir()
    (folder / "main.cpp").write_text("constexpr float kEpsilon = 0.0f;\nconstexpr int kRows = 8;\n"
                                     "constexpr int kCols = 16;\nconstexpr int kValidRows1 = 4;\n"
                                     "constexpr int kValidCols1 = 8;\n")
    (folder / "gen_data.py").write_text(GEN_PART_ARG)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)
    assert row.reasons == ["S.case_bad: fails"]


def test_the_reshape_folder_checks_the_alias(tmp_path):
    """The TRESHAPE adapter reads the two tile types of main.cpp; an unknown type is not mapped, with why."""
    folder = tmp_path / "treshape"
    folder.mkdir()
    (folder / "main.cpp").write_text("using SrcTile = Tile<TileType::Vec, float, 2, 16>;\n"
                                     "using DstTile = Tile<TileType::Vec, int32_t, 1, 32>;\n")
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.refused) == (1, 0, 1) and row.reasons == ["refused: pto.op.dtype"]
    (folder / "main.cpp").write_text("using SrcTile = Tile<TileType::Vec, float, 2, 16>;\n"
                                     "using DstTile = Tile<TileType::Vec, float, 1, 32>;\n")
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.exact) == (1, 1, 1)
    (folder / "main.cpp").write_text("using SrcTile = Tile<TileType::Vec, float, 2, 16>;\n")
    assert st.run_folder(folder, tmp_path, verbose=True).not_mapped == 1


GEN_SUBVIEW = """
import os
import numpy as np
x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
for case, r, c in (("S.case_ok", 2, 8), ("S.case_bad", 0, 0)):
    os.makedirs(case, exist_ok=True)
    x.tofile(os.path.join(case, "input.bin"))
    x[r:r + 4, c:c + 8].tofile(os.path.join(case, "golden.bin"))
"""


def test_a_subview_folder_runs_from_files(tmp_path):
    """The TSUBVIEW adapter takes (rowIdx, colIdx) from the kernel and the shapes from each TEST_F."""
    folder = tmp_path / "tsubview"
    folder.mkdir()
    (folder / "main.cpp").write_text("bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n"
                                     "TEST_F(S, case_ok) { t<float, 8, 16, 8, 16, 4, 8>(); }\n"
                                     "TEST_F(S, case_bad) { t<float, 8, 16, 8, 16, 4, 8>(); }\n")
    (folder / "k_kernel.cpp").write_text("runTSubView<T, 1, 2>(out, src, 2, 8);\n")
    (folder / "gen_data.py").write_text(GEN_SUBVIEW)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)
    (folder / "k_kernel.cpp").write_text("runTSubView<T, 1, 2>(out, src, r, c);\n")
    assert st.run_folder(folder, tmp_path, verbose=False).not_mapped == 2


GEN_GATHERB = """
import os
import numpy as np
x = np.arange(4 * 16, dtype=np.int32)
off = np.zeros((2, 8), np.uint32)
off[0, :2], off[1, :2] = (32, 0), (96, 64)
for case, bad in (("S.case_ok", False), ("S.case_bad", True)):
    os.makedirs(case, exist_ok=True)
    x.tofile(os.path.join(case, "x.bin"))
    off.tofile(os.path.join(case, "offset.bin"))
    gold = np.concatenate([x[o // 4: o // 4 + 8] for o in off[:, :2].ravel()]) + bad
    gold.tofile(os.path.join(case, "golden.bin"))
"""


def test_a_gatherb_folder_runs_from_files(tmp_path):
    """The TGATHERB adapter: src, a u32 offset tile and dst shaped by each TEST_F's template arguments."""
    folder = tmp_path / "tgatherb"
    folder.mkdir()
    (folder / "main.cpp").write_text("bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n"
                                     "TEST_F(S, case_ok) { t<int32_t, 2, 16, 2, 8, 4, 16>(); }\n"
                                     "TEST_F(S, case_bad) { t<int32_t, 2, 16, 2, 8, 4, 16>(); }\n")
    (folder / "gen_data.py").write_text(GEN_GATHERB)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)


def test_test_bodies_with_nested_template_arguments_and_call_arguments():
    main = """TEST_F(TEXTRACTTest, case_1)
{
    test_textract<Params<int32_t, int8_t, 128, 64, false>>();
}
TEST_F(TStoreAcc2gmTest, case16) { test_tstore_acc2gm_scalar_nz2nd<1, uint16_t, int8_t, 64>(5); }"""
    assert st._TEST_CALL.findall(main) == [
        ("TEXTRACTTest", "case_1", "test_textract", "int32_t, int8_t, 128, 64, false", ""),
        ("TStoreAcc2gmTest", "case16", "test_tstore_acc2gm_scalar_nz2nd", "1, uint16_t, int8_t, 64", "5")]


@pytest.mark.parametrize("col_major", [False, True])
def test_global_block_reads_and_writes_a_5d_window(col_major):
    """The g block of a W-shaped 5-D tensor, flat in memory: ND rows run over dims 0..3, DN's dim 3 is
    contiguous; the tile's element (r, c) is the global element at the strides' offset, and putting it back
    writes exactly those elements."""
    g, w = [2, 1, 2, 3, 4], [3, 2, 2, 5, 6]
    whole = np.arange(np.prod(w), dtype=np.int32)
    tile, put = st._global_block(whole, g, w, col_major)
    if col_major:   # stride of dim 3 is 1, of dim 4 is W3
        s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4], 1, w[3]]
        assert tile.shape == (g[3], g[0] * g[1] * g[2] * g[4])
        i0, i1, i2, i4 = np.unravel_index(np.arange(tile.shape[1]), (g[0], g[1], g[2], g[4]))
        exp = (i0 * s[0] + i1 * s[1] + i2 * s[2] + i4 * s[4])[None, :] + np.arange(g[3])[:, None] * s[3]
    else:
        s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4], w[4], 1]
        assert tile.shape == (g[0] * g[1] * g[2] * g[3], g[4])
        i0, i1, i2, i3 = np.unravel_index(np.arange(tile.shape[0]), tuple(g[:4]))
        exp = (i0 * s[0] + i1 * s[1] + i2 * s[2] + i3 * s[3])[:, None] + np.arange(g[4])[None, :]
    assert (tile == exp).all()
    out = np.zeros_like(whole)
    put(out, tile + 1)
    assert sorted(np.flatnonzero(out)) == sorted(exp.ravel()) and (out[exp] == exp + 1).all()


def test_push_pop_tests_are_read(tmp_path):
    """The push/pop adapter reads direct TEST_F calls and TPUSHPOP_TEST macro lines, counts the macro's own
    TEST_F once per use, and maps only its known scenarios (the rest are not mapped)."""
    main = """template <typename T, int rows, int cols>
void runCubeToVectorSingleTile()
{
    using CubeTile = Tile<TileType::Mat, T, rows, cols>;
    using VecTile = Tile<TileType::Vec, T, rows, cols>;
}
template <typename T, int rows, int cols, TileType srcLoc>
void testPushPopMultiCore()
{
    constexpr int kIterations = 3;
}
#define TPUSHPOP_TEST(T, rows, cols, srcLoc) \\
    TEST_F(TPushPopTest, T##_##rows##_##cols##_##srcLoc) { testPushPopSingleThread<T, rows, cols, TileType::srcLoc>(); }
TPUSHPOP_TEST(float, 16, 32, Vec)
TEST_F(S, single) { runCubeToVectorSingleTile<float, 16, 32>(); }
TEST_F(S, multi) { testPushPopMultiCore<uint32_t, 16, 32, TileType::Vec>(); }
TEST_F(S, hooks) { runSomethingElse<float, 16, 32>(); }
"""
    folder = tmp_path / "tpushpop"
    folder.mkdir()
    (folder / "main.cpp").write_text(main)
    row = st.run_push_pop(folder, tmp_path, False)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (4, 2, 0, 2)   # the macro's body is not in main
