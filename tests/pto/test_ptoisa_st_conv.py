"""The ConvTile adapters of tools/ptoisa_st.py (tools/ptoisa_st_folders/conv.py, PTO172-PTO174) on small
made-up testcase folders: goldens written by numpy reshapes, one case whose golden is wrong, and a
commented-out TEST_F that is not a case."""

from __future__ import annotations

from .st_tool import make_folder, st




_GEN_TTRANS = """
import os
import numpy as np
def case(name, x, golden):
    os.makedirs(name)
    x.tofile(name + "/input.bin")
    golden.tofile(name + "/golden.bin")
x = np.arange(2 * 11 * 2 * 3, dtype=np.float32).reshape(2, 11, 2, 3)
pad = np.pad(x, ((0, 0), (0, 5), (0, 0), (0, 0)))
want = pad.reshape(2, 2, 8, 2, 3).transpose(0, 1, 3, 4, 2)
case("T.good", x, want)
case("T.bad", x, want + 1)
y = np.arange(3 * 1 * 2 * 2 * 8, dtype=np.int32).reshape(3, 1, 2, 2, 8)
fz = np.pad(y, ((0, 13), (0, 0), (0, 0), (0, 0), (0, 0))).reshape(1, 16, 1, 2, 2, 8).transpose(2, 3, 4, 0, 1, 5)
case("T.fz", y, fz)
"""
_MAIN_TTRANS = """TEST_F(T, good) { test_ttrans<float, 0, 2, 11, 2, 3, 1, 2, 2, 2, 3, 8>(); }
TEST_F(T, bad) { test_ttrans<float, 0, 2, 11, 2, 3, 1, 2, 2, 2, 3, 8>(); }
TEST_F(T, fz) { test_ttrans<int32_t, 2, 3, 1, 2, 2, 8, 1, 2, 2, 1, 16, 8>(); }
// TEST_F(T, off) { test_ttrans<float, 0, 2, 11, 2, 3, 1, 2, 2, 2, 3, 8>(); }
bool ret = ResultCmp<T>(golden, result, 0.001f);
"""


def test_a_ttrans_conv_folder(tmp_path):
    row = st.run_folder(make_folder(tmp_path, "ttrans_conv", _MAIN_TTRANS, _GEN_TTRANS), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.failed, row.not_mapped, row.exact) == (3, 2, 1, 0, 2)
    assert len(row.reasons) == 1 and row.reasons[0].startswith("bad: fails")


_GEN_EXTRACT = """
import os
import numpy as np
os.makedirs("E.c")
w = np.arange(4 * 2 * 16 * 16, dtype=np.float16).reshape(4, 2, 16, 16)   # (C1HW, N1, N0, C0)
w.tofile("E.c/input.bin")
w[1:3, 1:2].tofile("E.c/golden.bin")                                  # 2 x 1 fractals from (16, 16)
"""


def test_a_textract_conv_folder(tmp_path):
    main = ("TEST_F(E, c) { textract_test_4d<aclFloat16, 4, 2, 16, 16, 2 * 16, 16, 16, 16>(); }\n"
            "bool ret = ResultCmp<T>(golden, devFinal, 0.001f);\n")
    row = st.run_folder(make_folder(tmp_path, "textract_conv", main, _GEN_EXTRACT), tmp_path, verbose=True)
    assert (row.cases, row.passed, row.exact) == (1, 1, 1)
