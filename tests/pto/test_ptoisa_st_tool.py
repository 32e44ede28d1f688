"""Helpers of tools/ptoisa_st.py that run without a pto-isa checkout: reading a main.cpp's test lines, file
reads and ResultCmp eps, and running a plain-kernel case from input files."""

from __future__ import annotations

import numpy as np
import pytest

from .st_tool import st

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
    dst = st.run_case("tshr", ("src0", "src1"), "i16", ((2, 16), (2, 16), (2, 16)), [tmp_path / "a.bin", tmp_path / "b.bin"])
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


GEN_TREDUCE = """
import os
import numpy as np
a = np.arange(16 * 8, dtype=np.int32).reshape(16, 8) - 60
b = a[::-1].copy()
for case, bad in (("S.case_ok", 0), ("S.case_bad", 1)):
    os.makedirs(case, exist_ok=True)
    a.tofile(os.path.join(case, "input0.bin"))
    b.tofile(os.path.join(case, "input1.bin"))
    (np.maximum(a, b) + bad).tofile(os.path.join(case, "golden.bin"))
"""


def test_a_treduce_folder_runs_from_files(tmp_path):
    """The TREDUCE adapter: rank 0 reduces input0 and input1 through TROWS x GCOLS tiles (chunks of 4 rows)."""
    folder = tmp_path / "treduce"
    folder.mkdir()
    (folder / "main.cpp").write_text("bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n"
                                     "TEST_F(S, case_ok) { t<int32_t, 16, 8, 4, 8, pto::comm::ReduceOp::Max>(); }\n"
                                     "TEST_F(S, case_bad) { t<int32_t, 16, 8, 4, 8, pto::comm::ReduceOp::Max>(); }\n")
    (folder / "gen_data.py").write_text(GEN_TREDUCE)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)


GEN_TTEST = """
import os, struct
import numpy as np
for case, gold in (("S.case_ok", (True, False)), ("S.case_bad", (True, True))):
    os.makedirs(case, exist_ok=True)
    np.array([5, 99, 99, 99], np.int32).tofile(os.path.join(case, "input.bin"))
    open(os.path.join(case, "cmp_file.bin"), "wb").write(struct.pack("ii", 5, 4))
    open(os.path.join(case, "golden.bin"), "wb").write(struct.pack("??", *gold))
"""


def test_a_ttest_folder_tests_the_signals_first_element(tmp_path):
    """TTEST's kernel wraps the input in a one-element Signal: 5 <= 5 holds, 5 <= 4 does not."""
    folder = tmp_path / "ttest"
    folder.mkdir()
    (folder / "main.cpp").write_text("TEST_F(S, case_ok) { t<int32_t, 2, 2, 2, 2, pto::comm::WaitCmp::LE>(); }\n"
                                     "TEST_F(S, case_bad) { t<int32_t, 2, 2, 2, 2, pto::comm::WaitCmp::LE>(); }\n")
    (folder / "gen_data.py").write_text(GEN_TTEST)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed) == (2, 1, 1)


def test_twait_scenarios_run_as_blocks_and_each_wait_sees_its_phase(tmp_path):
    """twait's thread tests become blocks: the waiter records the signal after each wait; a notifier's TNOTIFY
    that satisfies the waiter hands it the turn (PTO155), so the three phases are seen as 1, 3, 5."""
    from ptoisa_st_folders import comm as comm_folders  # importable once the tool is loaded
    w = comm_folders.TWAIT_RUNS["RunTWaitMultiPhase"]([], [])[0]
    out = st.pto.run_text(comm_folders.twait_program(w), {"sig": np.zeros((1, 1), np.int32)}, "cpu", blocks=2)
    assert out["seen"].ravel().tolist() == [1, 3, 5]
    folder = tmp_path / "twait"
    folder.mkdir()
    (folder / "main.cpp").write_text("TEST(TWait, Atomic_3Threads) { ASSERT_TRUE(RunTWaitAtomic(3)); }\n"
                                     "TEST(TWait, Sub) { ASSERT_TRUE((RunTWaitSubRegion<16, 4, 8>())); }\n"
                                     "TEST(TWait, Other) { ASSERT_TRUE(RunSomethingElse()); }\n")
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (3, 2, 0, 1)
