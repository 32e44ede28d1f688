"""The parts of tools/ptoas_cpusim.py that run without PTOAS or pto-isa: the ptoas options it picks and the
driver it wraps around ptoas's C++ (the kernel call, the inputs it reads, the outputs it writes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

_TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(_TOOLS))
_spec = importlib.util.spec_from_file_location("ptoas_cpusim", _TOOLS / "ptoas_cpusim.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

KERNEL = """#include "pto/pto-inst.hpp"
__global__ AICORE void qwen3_decode_incore_0(__gm__ bfloat16_t* v1, __gm__ float* v2, int32_t v3) {
  // body
}
"""


def _param(cname, kind, value=1):
    return SimpleNamespace(cname=cname, kind=kind, value=value)


def test_the_driver_calls_the_kernel_with_its_buffers_and_scalars():
    src = tool.driver(KERNEL, [_param("v1", "ptr"), _param("v2", "ptr"), _param("v3", "scalar", 7)])
    assert src.startswith(KERNEL)
    assert ("qwen3_decode_incore_0(reinterpret_cast<__gm__ bfloat16_t*>(work[0].data()), "
            "reinterpret_cast<__gm__ float*>(work[1].data()), static_cast<int32_t>(7));") in src
    assert 'read(dir + "/v1.bin")' in src and 'read(dir + "/v2.bin")' in src
    assert 'write(dir + "/v2.out.bin", work[1]);' in src


def test_the_driver_refuses_a_kernel_that_does_not_match_the_program():
    with pytest.raises(ValueError, match="takes 3 arguments"):
        tool.driver(KERNEL, [_param("v1", "ptr")])
    with pytest.raises(ValueError, match="no __global__"):
        tool.driver("int main() {}", [])


@pytest.mark.parametrize("run, body, target, want", [
    ("// RUN: ptoas --pto-arch=a5 --pto-level=level2 %s", "", "a5", ["--pto-arch=a5", "--pto-level=level2"]),
    ("", "%t = pto.alloc_tile addr = %c0 : T", "a5", ["--pto-arch=a5", "--pto-level=level3"]),
    ("", "%t = pto.alloc_tile addr = %c0 : T", "a2a3", ["--pto-arch=a3", "--pto-level=level3"]),
    ("", "%t = pto.alloc_tile : T", "a2a3", ["--pto-arch=a3", "--pto-level=level2"]),
])
def test_ptoas_options_follow_the_run_line_else_the_target_and_addresses(run, body, target, want):
    assert tool.ptoas_args(SimpleNamespace(text=f"{run}\nmodule {{ {body} }}", target=target)) == want


def test_differences_count_elements_and_ulps_of_written_and_unwritten_arguments():
    import numpy as np
    x = np.arange(8, dtype=np.float32)
    y = x.copy()
    y[3] = np.nextafter(y[3], np.float32(9))            # 1 ulp
    y[5] = np.float32(5.0000005)                        # 1 ulp above 5 is 5.0000005
    inputs = {"arg0": x, "arg1": x}
    assert tool.differences({"arg0": x}, {"arg0": x, "arg1": x}, inputs) == (0, 0)
    assert tool.differences({"arg0": y}, {"arg0": x, "arg1": x}, inputs) == (2, 1)
    assert tool.differences({}, {"arg0": x, "arg1": y}, inputs) == (2, 1)   # arg1 unwritten: its input counts
