"""tools/ptoisa_st.py's adapters for pto-isa's tquant, tquant_dn and tmatmul_layout gtests (data and checks
in main.cpp) and the hashfind kernel, run on small made-up testcase folders: each form passes, a wrong tilesim
result or expectation fails, an unknown form is not mapped; the restated E4M3/E2M1 encoders agree with
ml_dtypes and with tilesim's magic-number E2M1."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tilesim import pto
from tilesim.pto.ops import quant_mx

from .st_tool import st  # noqa: F401  (loads tools/ptoisa_st.py; tools/ is then on the path)

from ptoisa_st_folders import hashfind, quant  # noqa: E402  (tools/ is on the path once st is loaded)


def _main(tmp_path: Path, folder: str, main: str, gen: str | None = None) -> Path:
    d = tmp_path / folder
    d.mkdir()
    (d / "main.cpp").write_text(main)
    if gen is not None:
        (d / "gen_data.py").write_text(gen)
    return d


def _f16_grid() -> np.ndarray:
    """f16 values as f32, both signs: every 7th code below 0x6000 (up to 512), every code whose low 6 bits are
    zero (E4M3's and E2M1's values and midpoints among them) and its two neighbours, and the largest."""
    grid = np.arange(0, 0x7C00, 64)
    codes = np.unique(np.concatenate([np.arange(0, 0x6000, 7), grid, grid + 1, grid[1:] - 1, [0x7BFF]]))
    x = codes.astype(np.uint16).view(np.float16).astype(np.float32)
    return np.concatenate([x, -x])


def test_restated_e4m3_is_ml_dtypes_nearest_even_clipped():
    x = _f16_grid()
    want = np.clip(x, -448, 448).astype(ml_dtypes.float8_e4m3fn).view(np.uint8).astype(np.int64)
    want = np.where(want & 0x7F == 0, 0, want)                      # the search's tie of +-0: the lower code
    assert (quant._e4m3(x, "ocp") == want).all()
    nv = quant._e4m3(np.float32([-2.0 ** -11, 2.0 ** -11, np.nan]), "nv")
    assert nv.tolist() == [0x80, 0x00, 0x7F]


def test_restated_e2m1_is_ml_dtypes_and_the_magic_add():
    x = np.concatenate([_f16_grid(), np.float32([np.inf, -np.inf, 3.4e38, -3.4e38])])
    want = np.clip(x, -6, 6).astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    got = quant._e2m1(x)
    assert (got == want).all()
    assert (got == quant_mx._e2m1(x)).all()                        # tilesim's magic-number add, another way
    assert quant._e2m1(np.float32([np.nan, -np.nan])).tolist() == [7, 7]


FP4_TEMPLATES = """
template <typename SrcT, int validRows = 2, int validCols = 128, QuantScaleAlg scaleAlg = QuantScaleAlg::OCP>
void RunMxFp4E2M1NdCase(MxFp4Case caseId)
{
}
template <typename SrcT, int validRows = 64, int validCols = 32, QuantScaleAlg scaleAlg = QuantScaleAlg::OCP>
void RunMxFp4E2M1DnCase(MxFp4Case caseId)
{
}
void RunMxFp4E2M1NvFp16NdCase(MxFp4Case caseId) { RunMxFp4E2M1NdCase<aclFloat16, 2, 128, QuantScaleAlg::NV>(caseId); }
"""

EDGES = """TEST(Q, {name})
{{
    const float inf = std::numeric_limits<float>::infinity();
    const uint8_t fp8InfExp = cpu_quant::ComputeMxSharedExponent<QuantType::MXFP8, QuantScaleAlg::OCP>(inf);
    EXPECT_EQ(fp8InfExp, {exp}u);
    EXPECT_FLOAT_EQ(
        (cpu_quant::ComputeMxGroupScaling<QuantType::MXFP8, QuantScaleAlg::OCP>(inf, fp8InfExp)),
        std::ldexp(1.0f, -120));
    const uint8_t fp4InfExp = cpu_quant::ComputeMxSharedExponent<QuantType::MXFP4_E2M1, QuantScaleAlg::OCP>(inf);
    const float fp4InfScaling =
        cpu_quant::ComputeMxGroupScaling<QuantType::MXFP4_E2M1, QuantScaleAlg::OCP>(inf, fp4InfExp);
    EXPECT_EQ(cpu_quant::EncodeE2M1Magic(-inf * fp4InfScaling), 0xFu);
}}
"""

INT8_SYM = """TEST(Q, Int8Sym)
{
    TQUANT<QuantType::INT8_SYM>(dst, src, scale);
}
"""

TQUANT_MAIN = FP4_TEMPLATES + INT8_SYM + EDGES.format(name="EdgesGood", exp="0xF7") + \
    EDGES.format(name="EdgesBad", exp="0xF8") + """
TEST(Q, NdRounding) { RunMxFp4E2M1NdCase<aclFloat16>(MxFp4Case::Rounding); }
TEST(Q, NvFp16Special) { RunMxFp4E2M1NvFp16NdCase(MxFp4Case::Special); }
TEST(Q, DnMixed) { RunMxFp4E2M1DnCase<aclFloat16>(MxFp4Case::Mixed); }
TEST(Q, Fp8Exact) { TestFP8ExactMatch<half>(); }
TEST(Q, Fp8Boundary) { RunMxFp8Boundary2x256<float, QuantScaleAlg::NV>(); }
TEST(Q, Fp8Nz) { TestFp8NzReordersExponentsExactly<float>(); }
TEST(Q, Unknown) { SomethingElse<float>(); }
"""


def test_tquant_gtests_are_rebuilt_and_checked(tmp_path):
    row = st.run_folder(_main(tmp_path, "tquant", TQUANT_MAIN), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (10, 8, 1, 1)
    assert sorted(row.reasons) == ["EdgesBad: fails", "Unknown: not a form the adapter reads"]


@pytest.mark.parametrize("where", ["code", "exp", "scaling"])
def test_a_wrong_tquant_mx_output_fails(tmp_path, monkeypatch, where):
    real = pto.tquant_mx

    def wrong(dst, src, exp, mx, sc, **kw):
        real(dst, src, exp, mx, sc, **kw)
        t = {"code": dst, "exp": exp, "scaling": sc}[where]
        t.bits[0, 1] ^= 1 << (20 if where == "scaling" else 0)
        return dst

    monkeypatch.setattr(pto, "tquant_mx", wrong)
    main = FP4_TEMPLATES + "TEST(Q, NdRounding) { RunMxFp4E2M1NdCase<aclFloat16>(MxFp4Case::Rounding); }\n" + \
        "TEST(Q, Fp8Boundary) { RunMxFp8Boundary2x256<float, QuantScaleAlg::NV>(); }\n"
    row = st.run_folder(_main(tmp_path, "tquant", main), tmp_path, verbose=False)
    assert (row.passed, row.failed) == (0, 2)


LAYOUT = """TEST(L, {name})
{{
    using LeftTile = TileLeft<float, 16, 16>;
    using RightTile = TileRight<float, 16, 16>;
    using AccTile = TileAcc<float, 16, 16>;
    using BiasTile = Tile<TileType::Bias, float, 1, 16>;
    LeftTile lhs;
    RightTile rhs;
    AccTile accIn;
    AccTile gemvAcc;
    AccTile gemvBias;
    BiasTile bias;
    FillAll(accIn, 1.0f);
    for (int r = 0; r < lhs.GetValidRow(); ++r) {{
        for (int c = 0; c < lhs.GetValidCol(); ++c) {{
            SetValue(lhs, r, c, static_cast<float>(r + c + 1));
            SetValue(rhs, r, c, {rhs});
        }}
    }}
    for (int c = 0; c < bias.GetValidCol(); ++c) {{
        SetValue(bias, 0, c, static_cast<float>(c));
    }}
    TGEMV_ACC(gemvAcc, accIn, lhs, rhs);
    TGEMV_BIAS(gemvBias, lhs, rhs, bias);
}}
"""


def test_tmatmul_layout_gtests_check_the_products(tmp_path, monkeypatch):
    main = LAYOUT.format(name="Good", rhs="static_cast<float>((r == c) ? 2.0f : 1.0f)") + \
        LAYOUT.format(name="Unknown", rhs="static_cast<float>(r * c)")
    folder = _main(tmp_path, "tmatmul_layout", main)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.not_mapped) == (2, 1, 0, 1)
    real = pto.tgemv_bias

    def off_by_8_ulps(dst, *a, **kw):
        real(dst, *a, **kw)
        dst.bits[3, 4] += 8
        return dst

    monkeypatch.setattr(pto, "tgemv_bias", off_by_8_ulps)
    row = st.run_folder(folder, tmp_path, verbose=True)
    assert (row.passed, row.failed, row.reasons[0]) == (0, 1, "Good: fails")


HASH_GEN = """
import os
import numpy as np

def hash_u32(x):
    x = x.astype(np.uint32)
    x ^= x >> np.uint32(16); x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15); x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x

for name, bad in (("Good", 0), ("Bad", 1)):
    rng = np.random.default_rng(5)
    keys = rng.choice(np.arange(1, 1000, dtype=np.int32), 8, replace=False)
    table_k, table_v = np.full(32, np.iinfo(np.int32).min, np.int32), np.zeros(32, np.int32)
    for k in keys:
        i = int(hash_u32(np.array([k]))[0] & 31)
        while table_k[i] != np.iinfo(np.int32).min:
            i = (i + 1) & 31
        table_k[i], table_v[i] = k, 7 * k
    queries = np.concatenate([keys, np.arange(2000, 2008, dtype=np.int32)]).reshape(2, 8)
    golden = np.where(np.isin(queries, keys), 7 * queries, -1).astype(np.int32)
    golden[1, 7] += bad
    os.makedirs(f"H.{name}", exist_ok=True)
    for f, a in (("input1", table_k), ("input2", table_v), ("input3", queries), ("golden", golden)):
        a.tofile(f"H.{name}/{f}.bin")
"""

HASH_MAIN = """
    EXPECT_TRUE(ResultCmp<int32_t>(golden, devFinal.data(), 0.0f));
TEST_F(H, Good) { test_hashfind<2, 8, 32, 8>(); }
TEST_F(H, Bad) { test_hashfind<2, 8, 32, 8>(); }
"""


def test_the_hashfind_kernel_finds_keys_and_misses(tmp_path):
    """Half the queries are keys (value 7 * key), half are not (-1); a wrong golden fails."""
    row = st.run_folder(_main(tmp_path, "hashfind", HASH_MAIN, HASH_GEN), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.exact) == (2, 1, 1, 1)
    assert row.reasons == ["Bad: fails (1 > 0)"]
