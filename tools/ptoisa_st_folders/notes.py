"""Why a testcase folder is not mapped, where no adapter can be written (or not yet): folders that test the
simulator's own machinery rather than an instruction, and kernels that need an instruction tilesim lacks."""

from __future__ import annotations

NOT_MAPPED = {
    "setgetval": "not an instruction test: case1 calls Tile::SetValue/GetValue, the C++ Tile class's scalar "
                 "accessors (no PTO_INST entry point), around a TSTORE; k_aligned_default_false checks the Tile "
                 "object's kAligned byte after placement new (SetKAligned/GetKAligned)",
    "ttrace": "not an instruction test: 4 tests of the simulator's trace recorder (the operand records it keeps, "
              "its trace file); each GTEST_SKIPs unless built with PTO_CPU_SIM_TRACE_MODE, OFF by default",
    "tpack": "main.cpp calls TPACK, which pto-isa 3186c381 does not define (no PTO_INST entry point, no "
             "include/pto/cpu implementation): the test does not build",
}
