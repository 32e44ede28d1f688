"""tassign: TASSIGN's cpu-simulator gtests (data and checks in main.cpp), each restated on tilesim's
:class:`~tilesim.pto.memory.Memory` of the simulator with A2A3's buffers (``sim_profile("a2a3")``, main.cpp's
``NPU_MEMORY_INIT(NPUArch::A2A3)``; its buffers are byte arrays, a tile placed by :func:`tassign` is a view of
them, two tiles at one address alias): a value written through one tile is read through the other, a full
128 x 256 i32 Acc tile fits L0C's 128 KiB at offset 0, and a 16-row strip of it (valid 16 x 256) fits at every
1024-byte step, bounded by its valid region's footprint (PTO176)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.memory import Memory, footprint, sim_profile, tassign

from ptoisa_st import Case, Row, count_tests, refusals

_ACC = {"blayout": "col_major", "slayout": "row_major", "fractal": 1024}     # main.cpp's AccFull / AccStrip
_L0C = 128 * 1024


def _exact_alias(mem: Memory) -> bool:
    base = tassign(pto.Tile("vec", "f32", 8, 64), 0, memory=mem)
    alias = tassign(pto.Tile("vec", "f32", 8, 64), 0, memory=mem)          # base.data()'s address: offset 0
    base.values.reshape(-1)[5] = 3.5
    ok = alias.values.reshape(-1)[5] == np.float32(3.5)
    alias.values.reshape(-1)[17] = -2.25
    return bool(ok and base.values.reshape(-1)[17] == np.float32(-2.25))


def _interior_alias(mem: Memory) -> bool:
    base = tassign(pto.Tile("vec", "f32", 8, 64), 0, memory=mem)
    tail = tassign(pto.Tile("vec", "f32", 4, 64), 4 * 64 * 4, memory=mem)  # base.data() + 4 rows of 64
    tail.values.reshape(-1)[3] = 9.0
    ok = base.values.reshape(-1)[256 + 3] == np.float32(9.0)
    base.values.reshape(-1)[256 + 10] = -7.0
    return bool(ok and tail.values.reshape(-1)[10] == np.float32(-7.0))


def _full_acc(mem: Memory) -> bool:
    full = tassign(pto.Tile("acc", "i32", 128, 256, **_ACC), 0, memory=mem)
    full.bits[0, 0] = 0x5A5A5A5A                                          # element (0, 0): full.data()[0],
    full.push()                                                           # written back to L0C's byte 0
    return full.addr == 0 and full.span == 128 * 1024 and mem.data["L0C"][:4].view(np.int32)[0] == 0x5A5A5A5A


def _strip() -> pto.Tile:
    return pto.Tile("acc", "i32", 128, 256, valid=(16, 256), **_ACC)                # AccStrip


def _strips_in_bounds(mem: Memory) -> bool:
    ok = True
    for row_start in range(0, 128, 16):
        offset = row_start * 16 * 4
        strip = tassign(_strip(), offset, memory=mem)
        ok &= strip.addr == offset and offset + footprint(strip, mem.prof) <= _L0C
    return bool(ok)


def _strip_roundtrip(mem: Memory) -> bool:
    strip = tassign(_strip(), 16 * 16 * 4, memory=mem)                            # byte 1024
    strip.bits[0, 0] = 0x5A5A5A5A                                                 # strip.data()[0]
    strip.push()
    return mem.data["L0C"].view(np.int32)[1024 // 4] == 0x5A5A5A5A


CHECKS = {"exact_alias_reuses_same_backing_buffer": _exact_alias,
          "interior_alias_treats_pointer_as_pointer_not_offset": _interior_alias,
          "full_accumulator_exactly_fills_l0c": _full_acc,
          "windowed_strip_offsets_stay_in_bounds": _strips_in_bounds,
          "windowed_strip_roundtrips_through_backing_storage": _strip_roundtrip}


def run_tassign(folder: Path, st: Path, verbose: bool) -> Row:
    """Each TEST_F of main.cpp: run its restated check on a fresh A2A3 memory (main.cpp's NPU_MEMORY_INIT)."""
    main = (folder / "main.cpp").read_text()
    row = Row(folder.name, cases=count_tests(main))
    for name in re.findall(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)", main):
        if name in CHECKS:
            with refusals(row, Case(name, [], folder, 0.0, None)):
                ok = CHECKS[name](Memory(sim_profile("a2a3")))
                row.tally(name, ok, ok, verbose)
        else:
            row.not_mapped += 1
            row.reasons.append(f"{name}: not a test the adapter knows")
    return row


ADAPTERS = {"tassign": run_tassign}
