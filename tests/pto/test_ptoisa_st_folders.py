"""The adapters of tools/ptoisa_st.py for folders whose kernel is not the plain one (tools/ptoisa_st_folders),
run on small made-up testcase folders: the shared case prelude, the address arithmetic the adapters do for
tilesim, and one folder per kernel shape with a case that passes and one whose golden is wrong."""

from __future__ import annotations

import numpy as np
import pytest

from .st_tool import make_folder, st

from ptoisa_st_folders import fillpad, fused, gather, memory  # noqa: E402  (tools/ is on the path once st is loaded)




def test_cases_are_counted_with_macros_and_plain_tests():
    main = """#define MY_TEST(T, n) \\
    TEST_F(S, T##n) { run<T, n>(); }
MY_TEST(float, 1)
MY_TEST(float, 2)
MY_TEST(half, 3)
TEST(Plain, one) {}
TEST_F(S, two) { run<float, 4>(); }
"""
    assert st.count_tests(main) == 5


def test_eps_from_a_named_constant_and_the_pointer_overload():
    assert st.eps_of("constexpr float kEpsilon = 0.0f;\nResultCmp<T>(golden, out.data(), kEpsilon);", "float") == 0.0
    assert st.eps_of("bool ret = ResultCmp(golden, (DT*)dstHost, 0, 100, false, true);", "float") == 0.0
    assert st.eps_of("ResultCmp(golden, devFinal, 0.001f);\nResultCmp(g2, d2, 0.5f);", "float") is None


def test_reasons_shared_by_cases_are_given_once():
    assert st.summary(["a: no data", "b: no data", "c: refused: pto.op.loc", "gen_data.py fails (x)"]) == \
        "no data (2 cases); c: refused: pto.op.loc; gen_data.py fails (x)"


GEN_SCALAR = """
import os, struct
import numpy as np
x = np.arange(1, 8 * 16 + 1, dtype=np.float32).reshape(8, 16)
for case, s, first in (("S.case1", 4.0, False), ("S.case2", 2.0, True), ("S.case3", 2.0, False)):
    os.makedirs(case, exist_ok=True)
    x.tofile(os.path.join(case, "input.bin"))
    open(os.path.join(case, "divider.bin"), "wb").write(struct.pack("f", s))
    gold = (s / x) if first else (x / s)
    (gold + (case == "S.case3")).astype(np.float32).tofile(os.path.join(case, "golden.bin"))
"""


def test_a_scalar_folder_takes_the_operand_order_from_the_kernel(tmp_path):
    """TDIVS: case 2's kernel calls runSTDivS (the scalar divided by the tile); case 3's golden is off by one."""
    main = "".join(f"TEST_F(S, case{i}) {{ bool ret = TDivSTestFramework<{i}, float, 8, 8, 16, 16>(); }}\n"
                   for i in (1, 2, 3)) + "return ResultCmp<T>(golden, devFinal, 0.001f);\n"
    kernel = ("void launchTDIVSCase1(float* out, float* src, float scalar) { runTDivS<float, 8, 8, 16, 16>(); }\n"
              "void launchTDIVSCase2(float* out, float* src, float scalar) { runSTDivS<float, 8, 8, 16, 16>(); }\n"
              "void launchTDIVSCase3(float* out, float* src, float scalar) { runTDivS<float, 8, 8, 16, 16>(); }\n")
    row = st.run_folder(make_folder(tmp_path, "tdivs", main, GEN_SCALAR, kernel), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (3, 2, 1, 2)
    assert row.reasons == ["case3: fails (128 > 0)"]


GEN_ROWEXPAND = """
import os
import numpy as np
a = np.arange(8 * 8, dtype=np.float32).reshape(8, 8)
v = np.arange(1, 9, dtype=np.float32).reshape(8, 1)
os.makedirs("T.case_sub", exist_ok=True)
a.tofile("T.case_sub/input1.bin")
v.tofile("T.case_sub/input2.bin")
gold = np.zeros((8, 8), np.float32)
gold[:3, :5] = a[:3, :5] - v[:3]
gold.tofile("T.case_sub/golden.bin")
"""


def test_a_row_expand_op_folder_reads_a_column_major_vector(tmp_path):
    """run_vec_op<T, ROWS, COLS, iRow, iCol, oRow, oCol> around LaunchTROWEXPANDSUB: valid 3 x 5 of 8 x 8 tiles."""
    main = ("TEST_F(T, case_sub) { run_vec_op<float, 3, 5, 8, 8, 8, 8>([](float* o, float* a, float* b, void* s) "
            "{ LaunchTROWEXPANDSUB<float, 3, 5, 8, 8, 8, 8>(o, a, b, s); }); }\n"
            "bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n")
    row = st.run_folder(make_folder(tmp_path, "trowexpandop", main, GEN_ROWEXPAND), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.exact) == (1, 1, 1)
    # a kernel tile tilesim refuses (a 4-row f32 col-major vector: 16 bytes) is counted refused, with the rule
    (tmp_path / "trowexpandop" / "main.cpp").write_text(main.replace("8, 8, 8, 8", "4, 8, 4, 8"))
    row = st.run_folder(tmp_path / "trowexpandop", tmp_path, verbose=True)
    assert (row.cases, row.refused, row.reasons) == (1, 1, ["case_sub: refused: pto.tile.align"])


def test_gather_template_values_and_a_mask_case(tmp_path):
    """TGATHER's mask form along rows: P0101 keeps the even columns; a #define'd size divided in the call."""
    assert gather.value("ROWS / 2", {"ROWS": 14}) == 7
    with pytest.raises(ValueError):
        gather.value("ROWS; import os", {"ROWS": 14})
    gen = """
import os
import numpy as np
x = np.arange(4 * 16, dtype=np.float32).reshape(4, 16)
os.makedirs("G.case1_float_P0101", exist_ok=True)
x.tofile("G.case1_float_P0101/x1_gm.bin")
x[:, 0::2].tofile("G.case1_float_P0101/golden.bin")
"""
    folder = make_folder(tmp_path, "tgather", "#define ROW 4\n#define COL 16\nbool r = ResultCmp(golden, devFinal, "
                     "0.001f);\nTEST_F(G, case1_float_P0101) { test_gather<float, FP0101, ROW, COL>(); }\n", gen)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.exact) == (1, 1, 1)


def test_tstore_offsets_follow_the_global_strides():
    """ND rows are (g0, g1, g2, g3) and columns g4; DN rows g3 and columns (g0, g1, g2, g4), stride 1 down."""
    w = [1, 1, 2, 3, 5]
    nd = memory.offsets("ND", [1, 1, 2, 2, 3], w)
    assert nd.tolist() == [[0, 1, 2], [5, 6, 7], [15, 16, 17], [20, 21, 22]]
    dn = memory.offsets("DN", [1, 1, 1, 2, 2], [1, 1, 1, 3, 4])       # the array is (..., W4=4, W3=3)
    assert dn.tolist() == [[0, 3], [1, 4]]
    nz = memory.offsets("NZ", [1, 2, 1, 2, 2], [1, 2, 1, 2, 2])       # two 2 x 2 boxes side by side
    assert nz.tolist() == [[0, 1, 4, 5], [2, 3, 6, 7]]


def test_tfillpad_golden_pieces():
    """The linear data wraps like a C++ cast to the element type; pads are the type's limits or infinities."""
    assert fillpad.linear("u8", 2, 200)[1, 60] == (1 * 200 + 60) % 256
    assert fillpad.linear("f16", 1, 4000).view(np.float16)[0, 2049] == 2048.0      # to nearest even
    assert fillpad.pad_bits("max", "i8") == 127 and fillpad.pad_bits("min", "u16") == 0
    assert fillpad.pad_bits("min", "f32") == 0xFF800000
    assert fillpad.pad_bits("custom:0xbf800000", "bf16") == 0                  # the word's low half
    assert fillpad.pad_bits("max", "f16") == 0                                  # PTO96


def test_a_tfillpad_folder_runs_from_the_kernel(tmp_path):
    """Two keys of runTFILLPAD: an f32 tile padded with +inf past 5 valid columns and an i8 in-place fill."""
    kernel = """constexpr PadValue PadCustomNeg1 = PadValueCustom(-1.0f);
void launchTFILLPAD_1(uint8_t* out) { runTFILLPAD<float, 1, 1, 1, 3, 5, 4, 8, 1, PadValue::Null, PadValue::Max>(
    (float*)out); }
void launchTFILLPAD_2(uint8_t* out) { runTFILLPAD<int8_t, 1, 1, 1, 2, 7, 2, 32, 1, PadValue::Min, PadValue::Max,
    true>((int8_t*)out); }
void launchTFILLPAD_3(uint8_t* out) { runTFILLPAD<float, 1, 1, 1, 2, 8, 2, 16, 1, PadValue::Null, PadCustomNeg1>(
    (float*)out); }
"""
    main = ("TEST_F(F, case_a) { tfillpad_test<1, float, 1>(); }\nTEST_F(F, case_b) { tfillpad_test<2, int8_t, 1>(); }"
            "\nTEST_F(F, case_c) { tfillpad_test<3, float, 1>(); }"
            "\nTEST_F(F, case_d) { tfillpad_test<9, float, 1>(); }\n"
            "bool ret = ResultCmp(golden, devFinal, 0);\n")
    row = st.run_folder(make_folder(tmp_path, "tfillpad", main, "x = 1\n", kernel), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.not_mapped, row.exact) == (4, 3, 1, 3)
    assert row.reasons == ["case_d: no runTFILLPAD for the key in the kernel"]


def test_a_failing_gen_data_leaves_the_folder_not_mapped(tmp_path):
    folder = make_folder(tmp_path, "ttri", "TEST_F(S, c) { test_ttri<float, 1, 0, 4, 8, 4, 4>(); }\n",
                     "import module_that_is_not_there\n")
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.not_mapped) == (1, 1)
    assert row.reasons == ["gen_data.py fails (ModuleNotFoundError: No module named 'module_that_is_not_there')"]


def test_every_registered_folder_has_an_adapter_or_a_reason():
    """The adapters package and its notes name distinct folders, each a function of (folder, st, verbose)."""
    from ptoisa_st_folders import ADAPTERS
    from ptoisa_st_folders.notes import NOT_MAPPED

    assert not set(ADAPTERS) & set(NOT_MAPPED)
    assert all(callable(f) for f in ADAPTERS.values()) and all(st.ADAPTERS[k] is v for k, v in ADAPTERS.items())


def test_a_tprint_folder_checks_the_substrings(tmp_path):
    """TPRINT's self-checking tests: tiles filled in main.cpp, captured output searched for substrings."""
    main = """TEST_F(P, Floats)
{
    using TileT = Tile<TileType::Vec, float, 1, 8>;
    TileT tile;
    tile.data()[1] = -3.456789f;
    const std::string two = CaptureStdout([&]() { TPRINT<PrintFormat::Width8_Precision2>(tile); });
    EXPECT_NE(two.find("-3.46"), std::string::npos);
}

TEST_F(P, Wrong)
{
    using TileT = Tile<TileType::Vec, int8_t, 1, 32>;
    TileT t8;
    t8.data()[0] = static_cast<int8_t>(-12);
    const std::string out = CaptureStdout([&]() { TPRINT(t8); });
    EXPECT_NE(out.find("-13"), std::string::npos);
}
"""
    row = st.run_folder(make_folder(tmp_path, "tprint", main, "x = 1\n"), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed) == (2, 1, 1)
    assert row.reasons == ["Wrong: '-13' not in out"]


def test_self_checking_tests_are_read_from_main_cpp(tmp_path):
    """TCOLPROD's gtest: values and expected products are arrays in main.cpp; a wrong expectation fails."""
    main = """TEST(C, Good)
{
    using SrcTile = Tile<TileType::Vec, int32_t, 3, 8, BLayout::RowMajor, 2, 3>;
    using DstTile = Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, 1, 3>;
    SrcTile src;
    DstTile dst;
    const int values[2][3] = {{2, -3, 4}, {5, 6, 0}};
    TCOLPROD(dst, src);
    const int expected[3] = {10, -18, 0};
}

TEST(C, Bad)
{
    using SrcTile = Tile<TileType::Vec, int32_t, 3, 8, BLayout::RowMajor, 2, 3>;
    using DstTile = Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, 1, 3>;
    SrcTile src;
    DstTile dst;
    const int values[2][3] = {{2, -3, 4}, {5, 6, 0}};
    TCOLPROD(dst, src);
    const int expected[3] = {10, -18, 1};
}
"""
    folder = tmp_path / "tcolprod"
    folder.mkdir()
    (folder / "main.cpp").write_text(main)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.reasons) == (2, 1, 1, ["Bad: fails"])


def test_an_argmax_argmin_gtest_is_read_from_main_cpp(tmp_path):
    """TROWARGMAX/TROWARGMIN's gtest: the first index of each row's max and min; a wrong expectation fails."""
    test = """TEST(R, {name})
{{
    using SrcTile = Tile<TileType::Vec, int32_t, 2, 8, BLayout::RowMajor, 2, 4>;
    using DstTile = Tile<TileType::Vec, int32_t, 2, 8, BLayout::RowMajor, 2, 1>;
    using TmpTile = Tile<TileType::Vec, int32_t, 1, 8, BLayout::RowMajor, 1, 1>;
    SrcTile src;
    DstTile argmax;
    DstTile argmin;
    TmpTile tmp;
    const int values[2][4] = {{{{3, 9, 9, -1}}, {{0, -2, 5, -2}}}};
    TROWARGMAX(argmax, src, tmp);
    TROWARGMIN(argmin, src, tmp);
    const int expectedMax[2] = {{1, 2}};
    const int expectedMin[2] = {{3, {min1}}};
}}
"""
    folder = tmp_path / "trowreduceidx"
    folder.mkdir()
    (folder / "main.cpp").write_text(test.format(name="Good", min1=1) + test.format(name="Bad", min1=3))
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.reasons) == (2, 1, 1, ["Bad: fails"])


def test_mx_scale_files_are_read_back_into_logical_matrices(tmp_path):
    """gen_data.py writes A's E8M0 scales in 16 x 2 blocks, block rows first (zZ), and B's in 2 x 16 blocks
    stored transposed, column blocks first (nN); element loops here lay them out, the adapter reads them back."""
    from ptoisa_st_folders import matmul

    rng = np.random.default_rng(3)
    m, g, n = 32, 4, 48
    a, b = rng.integers(0, 256, (m, g)).astype(np.uint8), rng.integers(0, 256, (g, n)).astype(np.uint8)
    za = [a[r0 + i, c0 + j] for r0 in range(0, m, 16) for c0 in range(0, g, 2) for i in range(16) for j in range(2)]
    nb = [b[k0 + j, n0 + i] for n0 in range(0, n, 16) for k0 in range(0, g, 2) for i in range(16) for j in range(2)]
    np.array(za, np.uint8).tofile(tmp_path / "x1_mx_gm.bin")
    np.array(nb, np.uint8).tofile(tmp_path / "x2_mx_gm.bin")
    case = st.Case("c", [], tmp_path, 0.0, None)
    got_a, got_b = matmul.mx_scales(case, m, g, n)
    assert (got_a == a).all() and (got_b == b).all()


def test_gemv_mx_scale_files_nd_and_dn(tmp_path):
    """TGEMV_MX's files: A's scales as they are (ND); B's in pairs along K per column (ND) or transposed (DN),
    laid out here by element loops."""
    from ptoisa_st_folders import matmul

    rng = np.random.default_rng(4)
    g, n = 6, 5
    a, b = rng.integers(0, 256, (1, g)).astype(np.uint8), rng.integers(0, 256, (g, n)).astype(np.uint8)
    a.tofile(tmp_path / "x1_mx_gm.bin")
    case = st.Case("c", [], tmp_path, 0.0, None)
    layouts = {"nd": [b[k0 + j, c] for k0 in range(0, g, 2) for c in range(n) for j in range(2)],
               "dn": [b[k, c] for c in range(n) for k in range(g)]}
    for fmt, words in layouts.items():
        np.array(words, np.uint8).tofile(tmp_path / "x2_mx_gm.bin")
        got_a, got_b = matmul.mx_scales(case, 1, g, n, "nd", fmt)
        assert (got_a == a).all() and (got_b == b).all(), fmt


def test_nddn_scales_are_loaded_from_plain_nd_files(tmp_path):
    """tmatmul_mx_nddn's files hold A's scales as m x ceil(k / 32) and B's as ceil(k / 32) x n, row by row;
    the adapter TLOADs a K slice of them and moves it to scale tiles valid over the slice's groups."""
    from ptoisa_st_folders import matmul

    rng = np.random.default_rng(5)
    vm, vk, vn = 13, 72, 21                            # 3 groups of 32, the tiles hold 4
    a, b = rng.integers(0, 256, (vm, 3)).astype(np.uint8), rng.integers(0, 256, (3, vn)).astype(np.uint8)
    np.array([a[i, g] for i in range(vm) for g in range(3)], np.uint8).tofile(tmp_path / "x1_mx_gm.bin")
    np.array([b[g, j] for g in range(3) for j in range(vn)], np.uint8).tofile(tmp_path / "x2_mx_gm.bin")
    case = st.Case("c", [], tmp_path, 0.0, None)
    sa, sb = matmul.loaded_scales(case, vm, vk, vn, 16, 32, 128, 0)
    assert (sa.valid, sb.valid) == ((vm, 4), (4, vn))
    assert (sa.bits[:vm, :3] == a).all() and (sb.bits[:3, :vn] == b).all()
    sa, sb = matmul.loaded_scales(case, vm, vk, vn, 16, 32, 64, 2)   # split K: the second slice, one group
    assert (sa.bits[:vm, :1] == a[:, 2:]).all() and (sb.bits[:1, :vn] == b[2:]).all()


def test_packed_fp4_streams_put_the_even_element_low():
    """pto-isa's twin types: element 2k in the low nibble of byte k (MXTypes.hpp SetProperDataPart)."""
    assert memory.pack(np.array([0x1, 0x2, 0xF, 0x0])).tolist() == [0x21, 0x0F]
    assert memory.unpack(np.array([[0x21, 0x0F]], np.uint8)).tolist() == [[0x1, 0x2, 0xF, 0x0]]


def test_the_top_k_program_sorts_a_row():
    """TMRGSORT's top-k program on 1024 f32 lanes of (value, index) records: block merges of 64 then 256 lanes
    leave one sorted 1024-lane block, copied to dst: the records by value, descending."""
    from ptoisa_st_folders import sort

    rng = np.random.default_rng(4)
    vals = rng.permutation(512).astype(np.float32)
    rec = np.empty(1024, np.float32)
    rec[0::2], rec[1::2] = vals, np.arange(512, dtype=np.uint32).view(np.float32)
    for b in range(0, 1024, 64):                              # blocks of 32 records, each sorted descending
        blk = rec[b:b + 64].reshape(-1, 2)
        rec[b:b + 64] = blk[np.argsort(-blk[:, 0], kind="stable")].ravel()
    got = sort.topk_program(rec.view(np.uint32).reshape(1, -1), "f32", 1024).bits.view(np.float32)[0]
    assert (got[0::2] == np.sort(vals)[::-1]).all()
    assert (vals[got[1::2].view(np.uint32)] == got[0::2]).all()


IMG2COL_MAIN = """
TEST(TImg2colCpuSimTest, Padded)
{
    using SrcTile = ConvTile<TileType::Mat, float, 1 * 1 * 3 * 4 * 8, Layout::NC1HWC0, ConvTileShape<1, 1, 3, 4, 8>>;
    using DstTile = TileLeft<float, 16, 16, 4, 16>;
    for (int h = 0; h < 3; ++h) {
        for (int w = 0; w < 4; ++w) {
            for (int c0 = 0; c0 < 8; ++c0) {
                src.data()[Nc1hwc0Offset<SrcTile>(0, 0, h, w, c0)] = static_cast<float>(100 * h + 10 * w + c0);
            }
        }
    }
    uint8_t padList[] = {1, 0, 1, 0};
    src.SetPadListArray(padList);
    src.SetFmapH(3);
    src.SetFmapW(4);
    src.SetFilterH(2);
    src.SetFilterW(2);
    src.SetPadValue(-1.0f);
    TIMG2COL<DstTile, SrcTile, SetFmatrixMode::FMATRIX_B_MANUAL>(dst, src, 1, 8);
}
TEST(TImg2colCpuSimTest, Other)
{
    using SrcTile = ConvTile<TileType::Mat, float, 64, Layout::NDC1HWC0, ConvTileShape<1, 1, 1, 2, 4, 8>>;
}
"""


def test_an_img2col_folder_runs_its_tests(tmp_path):
    """The TIMG2COL adapter reads each TEST's tiles, fill expression, settings and call; a form it does not
    know is not mapped. Spot values of the reference (posM 1, posK 8; output 3 x 4 pixels): row 0 is pixel
    (0, 1), column 0 kernel (0, 1) c0 0, so input (-1, 1): pad; row 3 is pixel (1, 0): column 5 (kernel (0, 1),
    c0 5) reads input (0, 0, c0 5) = 5, column 8 (kernel (1, 0)) input (1, -1): pad."""
    folder = tmp_path / "timg2col"
    folder.mkdir()
    (folder / "main.cpp").write_text(IMG2COL_MAIN)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (2, 1, 0, 1)
    src = st.pto.ConvTile("f32", (1, 1, 3, 4, 8), pad_list=(1, 0, 1, 0), filter_h=2, filter_w=2, pad_value=-1.0)
    src.values[0, 0] = 100 * np.arange(3)[:, None, None] + 10 * np.arange(4)[None, :, None] + np.arange(8)
    want = fused._img2col_expected(src, 4, 16, 1, 8, (16, 16)).view(np.float32)
    assert (want[0, 0], want[3, 5], want[3, 8], want[4, 0]) == (-1.0, 5.0, -1.0, 0.0)


GEN_DEQ = """
import os
import numpy as np
os.makedirs("S.case1")
os.makedirs("S.case2")
a = np.array([[3, -9, 70000]], np.int32)
a.tofile("S.case1/input0.bin"); a.tofile("S.case2/input0.bin")
np.array([[4, 1, 0]], np.int32).tofile("S.case1/input1.bin")
np.array([[4, 1, 0]], np.int32).tofile("S.case2/input1.bin")
np.array([3.5, 0.0, 35000.0], np.float16).tofile("S.case1/golden.bin")
np.array([9.0, 0.0, 35000.0], np.float16).tofile("S.case2/golden.bin")
"""


def test_an_adddeqrelu_folder_runs_from_files(tmp_path):
    """The TADDDEQRELU adapter: the scale of each case from the kernel's deqScaleArr, i32 inputs, f16 golden."""
    folder = tmp_path / "tadddeqrelu"
    folder.mkdir()
    (folder / "main.cpp").write_text(
        "TEST_F(S, case1)\n{\n    bool ret = runTAddDeqReluTest<1, 1, 1, 16, 3>();\n}\n"
        "TEST_F(S, case2)\n{\n    bool ret = runTAddDeqReluTest<2, 1, 1, 16, 3, 5>();\n}\n")
    (folder / "k_kernel.cpp").write_text("static const float deqScaleArr[] = {\n    0.5f, 0.5f,\n};\n")
    (folder / "gen_data.py").write_text(GEN_DEQ)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)
