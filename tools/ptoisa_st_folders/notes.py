"""Why a testcase folder is not mapped, where no adapter can be written (or not yet): folders that test the
simulator's own machinery rather than an instruction, and kernels that need an instruction tilesim lacks."""

from __future__ import annotations

NOT_MAPPED = {
    "tassign": "not an instruction test: the simulator's tile storage (TASSIGN aliasing one buffer, Acc "
               "windows); tilesim's Python tiles own their storage, addresses exist only in .pto programs",
    "setgetval": "not an instruction test: the Tile class's SetValue/GetValue accessors",
    "ttrace": "not an instruction test: the simulator's trace recorder (PTO_CPU_SIM_TRACE_MODE)",
    "tpack": "main.cpp calls TPACK, which pto-isa 3186c381 does not define (no PTO_INST entry point, no "
             "include/pto/cpu implementation): the test does not build",
    "tmatmul_mx_nddn": "TMATMUL_MX from ND/DN global layouts with MX scale tiles (no adapter yet)",
}
