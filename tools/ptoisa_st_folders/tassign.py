"""tassign: TASSIGN's cpu-simulator gtests (data and checks in main.cpp), each restated on tilesim's
:class:`~tilesim.pto.memory.Memory` of A2A3 (its buffers are byte arrays, a tile placed by :func:`tassign` is a
view of them, two tiles at one address alias): a value written through one tile is read through the other, and a
full 128 x 256 i32 Acc tile fits L0C's 128 KiB at offset 0."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.memory import Memory, tassign

from ptoisa_st import Case, Row, count_tests, refusals

_ACC = {"blayout": "col_major", "slayout": "row_major", "fractal": 1024}     # main.cpp's AccFull / AccStrip
#: tests not mapped, and why
NOT_MAPPED = {
    "windowed_strip_offsets_stay_in_bounds": "a 128x256 Acc tile of valid 16x256 TASSIGNed at 1024 * k: upstream "
        "bounds it by its valid footprint, tilesim by its whole 128 KiB span (pto.mem.bounds refuses k > 0)",
    "windowed_strip_roundtrips_through_backing_storage": "the same windowed Acc tile at byte 1024: refused by "
        "tilesim's whole-span bounds (pto.mem.bounds), so its write cannot be read back through L0C",
}


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


CHECKS = {"exact_alias_reuses_same_backing_buffer": _exact_alias,
          "interior_alias_treats_pointer_as_pointer_not_offset": _interior_alias,
          "full_accumulator_exactly_fills_l0c": _full_acc}


def run_tassign(folder: Path, st: Path, verbose: bool) -> Row:
    """Each TEST_F of main.cpp: run its restated check on a fresh A2A3 memory (main.cpp's NPU_MEMORY_INIT)."""
    main = (folder / "main.cpp").read_text()
    row = Row(folder.name, cases=count_tests(main))
    for name in re.findall(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)", main):
        if name in CHECKS:
            with refusals(row, Case(name, [], folder, 0.0, None)):
                ok = CHECKS[name](Memory("a2a3"))
                row.tally(name, ok, ok, verbose)
        else:
            row.not_mapped += 1
            row.reasons.append(f"{name}: {NOT_MAPPED.get(name, 'not a test the adapter knows')}")
    return row


ADAPTERS = {"tassign": run_tassign}
