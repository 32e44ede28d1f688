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
    dst = st.run_case("tshr", ("src0", "src1"), "i16", ((2, 16), (2, 16), (2, 16)), [tmp_path / "a.bin", tmp_path / "b.bin"])
    assert (dst.values == (a >> 3)).all()
