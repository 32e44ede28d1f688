"""The pipe gtests of pto-isa's tpushpop folders as tools/ptoisa_st_folders/pipe_scenarios.py transcribes them
onto tilesim's Python pipes (PTO178): each transcription's checks hold (their expected values are the
gtests' own formulas, not tilesim's output), a broken pipe fails them, and a made-up folder maps its gtests,
leaving the hooks-only one not mapped with its reason."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim.pto import pipe_ring

from .st_tool import st  # noqa: F401  (loads tools/ptoisa_st.py; tools/ is then on the path)

# tools/ is on the path once ptoisa_st is loaded
from ptoisa_st_folders import pipe_kernels, pipe_scenarios, pipes  # noqa: E402

#: each transcription with the template arguments its gtest passes (None: an inline test body)
ARGS = {"runCubeToVectorNoSplitGmSlotUsesValidShape": ["int32_t", "128", "128", "16"],
        "runCubeToVectorNoSplitGmSlotUsesDynamicValidShape": ["float", "16", "32", "16", "32"],
        "runSplitSingleTile": ["float", "16", "32", "TileSplitAxis::TILE_LEFT_RIGHT"],
        "runSplitWraparound": ["float", "16", "32", "TileSplitAxis::TILE_UP_DOWN"],
        "runSplitWraparoundBothDir": ["float", "16", "32", "TileSplitAxis::TILE_LEFT_RIGHT"]}


@pytest.mark.parametrize("name", sorted(pipe_scenarios.SCENARIOS))
def test_each_transcription_holds(name):
    assert pipe_scenarios.SCENARIOS[name](ARGS.get(name, ["float", "16", "32"]))


def test_swapped_halves_fail_the_split_transcriptions(monkeypatch):
    halves = pipe_ring._halves
    monkeypatch.setattr(pipe_ring, "_halves", lambda data, split, op: halves(data, split, op)[::-1])
    assert not pipe_scenarios.SCENARIOS["a5_style_c2v_dual_subblock_split_push_pop"]([])
    assert not pipe_scenarios.SCENARIOS["runDirBothGmFifoKeepsC2VOrderAcrossV2CPrefetch"]([])


def test_checks_need_the_trap_and_the_values():
    ck = pipe_scenarios.Checks()
    ck.traps("pto.pipe.full", lambda: None)
    assert not ck.ok
    ck = pipe_scenarios.Checks()
    ck.eq([[0, 0]], 0)
    assert ck.ok
    ck.eq([1, 2], [1, 3])
    assert not ck.ok


def test_a_folder_maps_its_gtests_and_names_the_hooks_one(tmp_path):
    folder = tmp_path / "tpushpop_demo"
    folder.mkdir()
    (folder / "main.cpp").write_text("""
TEST_F(T, vector_to_cube_single_tile_float_16x32)
{
    runVectorToCubeNoSplitSingleTile<float, 16, 32>();
}
TEST_F(T, a5_style_c2v_local_split_push_pop)
{
    using AccTile = TileAcc<float, 16, 16>;
}
TEST_F(T, cpu_stub_prefers_injected_hooks_for_subblock_and_pipe_state)
{
    HookTestPipe::SharedStateStorage storage{};
}
""")
    row = pipes.run_push_pop(folder, tmp_path, False)
    assert (row.cases, row.passed, row.exact, row.failed, row.not_mapped) == (3, 2, 2, 0, 1)
    assert "injected" in row.reasons[0] and "not an instruction test" in row.reasons[0]


GEN_FIXPIPE = """
import os
import numpy as np
rng = np.random.default_rng(3)
for case, scale in (("S.case1", 2.0), ("S.case2", 2.0), ("S.case3", 3.0)):
    os.makedirs(case)
    a = rng.integers(-2, 3, (32, 32)).astype(np.int8)
    b = rng.integers(-2, 3, (32, 32)).astype(np.int8)
    a.tofile(case + "/x1_gm.bin"); b.tofile(case + "/x2_gm.bin")
    c = a.astype(np.int32) @ b.astype(np.int32)
    ((c * np.float32(scale)).astype(np.float16) + np.float16(1)).astype(np.float16).tofile(case + "/golden.bin")
"""

KERNEL_FIXPIPE = """
template <typename InT, typename AccT, typename OutT, int M, int K, int N>
__global__ AICORE void RunDeq(__gm__ OutT* out, __gm__ InT* srcA, __gm__ InT* srcB)
{
    using FixpipeConfig = FixpipeParams<LayoutMode_t::NZ2ND, QuantMode_t::DEQF16>;
    SET_QUANT_SCALAR<OutT>(2.0f);
}

template <int32_t tilingKey>
void LaunchTPushPopFixpipe(uint8_t* out, uint8_t* srcA, uint8_t* srcB, uint8_t* srcQuant, void* stream)
{
    if constexpr (tilingKey == 3) {
        RunDeq<int8_t, int32_t, half, 32, 32, 32>(out, srcA, srcB);
    }
}
"""


def test_a_fixpipe_push_folder_runs_its_kernel(tmp_path):
    """The quantising-push adapter: DEQF16 at the kernel's scalar 2.0 (case3's golden used 3.0 and fails;
    case2 names a tilingKey the kernel lacks)."""
    folder = tmp_path / "tpushpop_fixpipe"
    folder.mkdir()
    (folder / "main.cpp").write_text(
        "TEST_F(S, case1) { TestFunc<3>(32, 32, 32); }\nTEST_F(S, case2) { TestFunc<9>(32, 32, 32); }\n"
        "TEST_F(S, case3) { TestFunc<3>(32, 32, 32); }\nbool ret = ResultCmp(golden, devFinal, 0.001f);\n")
    (folder / "t_kernel.cpp").write_text(KERNEL_FIXPIPE)
    (folder / "gen_data.py").write_text(GEN_FIXPIPE)
    row = pipes.run_push_fixpipe(folder, tmp_path, True)
    assert (row.cases, row.passed, row.failed, row.exact, row.not_mapped) == (3, 1, 1, 1, 1)


@pytest.mark.parametrize("split, nz_push", [(1, True), (2, False)])
def test_the_cube_vector_kernel_program(split, nz_push):
    """tpush_a3/a5's kernel on integer data, where every sum is exact: C + (A + 1) @ B, numpy's."""
    rng = np.random.default_rng(split)
    a, b, c = (rng.integers(-4, 5, shape).astype(np.float32) for shape in ((32, 64), (64, 512), (32, 512)))
    got = pipe_kernels.program(a, b, c, split, nz_push)
    assert np.array_equal(got, c + (a + 1) @ b)


GEN_KERNEL = """
import os
import numpy as np
rng = np.random.default_rng(5)
a, b, c = (rng.integers(-4, 5, s).astype(np.float32) for s in ((32, 64), (64, 512), (32, 512)))
for case, g in (("T.case_1", c + (a + 1) @ b), ("T.case_2", c + a @ b), ("T.case_3", c)):
    os.makedirs(case)
    a.tofile(case + "/a.bin"); b.tofile(case + "/b.bin"); c.tofile(case + "/c.bin"); g.tofile(case + "/golden.bin")
"""


def test_a_kernel_folder_maps_its_launchers(tmp_path):
    """tpush_a5's form: case_1 (BI_LEFTRIGHT) passes, case_2's golden lacks the + 1 and fails, case_3's launcher
    (BI_NOSPLIT) is not mapped."""
    folder = tmp_path / "tpush_a5"
    folder.mkdir()
    (folder / "main.cpp").write_text(
        "    if constexpr (key == 1) {\n        LaunchTPut_BI_LEFTRIGHT(d, a, b, c);\n"
        "    } else if constexpr (key == 2) {\n        LaunchTPut_BI_TOPDOWN(d, a, b, c);\n"
        "    } else if constexpr (key == 3) {\n        LaunchTPut_BI_NOSPLIT(d, a, b, c);\n    }\n"
        "    bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n"
        "TEST_F(T, case_1)\n{\n    test_tpush<1>();\n}\nTEST_F(T, case_2)\n{\n    test_tpush<2>();\n}\n"
        "TEST_F(T, case_3)\n{\n    test_tpush<3>();\n}\n")
    (folder / "gen_data.py").write_text(GEN_KERNEL)
    row = pipe_kernels.run_push_kernel(folder, tmp_path, True)
    assert (row.cases, row.passed, row.failed, row.exact, row.not_mapped) == (3, 1, 1, 1, 1)


def test_a_plain_gtest_kernel_folder_is_a_case(tmp_path):
    """tpush_a3's form: ``test_tpush()`` has no template arguments (each_case's ``plain``), its one split is
    TILE_LEFT_RIGHT; case_2's golden is wrong."""
    folder = tmp_path / "tpush_a3"
    folder.mkdir()
    (folder / "main.cpp").write_text(
        "TPUSH<P, Tile<TileType::Acc, float, 32, 64>, TileSplitAxis::TILE_LEFT_RIGHT>(v15, v34);\n"
        "    bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n"
        "TEST_F(T, case_1)\n{\n    test_tpush();\n}\nTEST_F(T, case_2)\n{\n    test_tpush();\n}\n")
    (folder / "gen_data.py").write_text(GEN_KERNEL.replace("c + a @ b", "c - (a + 1) @ b"))
    row = pipe_kernels.run_push_kernel(folder, tmp_path, True)
    assert (row.cases, row.passed, row.failed, row.exact, row.not_mapped) == (2, 1, 1, 1, 0)
