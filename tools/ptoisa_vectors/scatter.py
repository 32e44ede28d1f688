from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import Case, Spec, conversion_pool, sentinel
from .gather import _selects

#: (data, index) dtypes of the index-form TSCATTER: the NPUs' pairs, and others the simulator compiles
SCATTER_PAIRS = (("f32", "u32"), ("f32", "i32"), ("f32", "u16"), ("f16", "u16"), ("f16", "i16"), ("i8", "u16"),
                 ("u8", "u8"), ("i64", "u32"), ("i32", "i32"), ("u16", "u16"))
SCATTER_PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000")
SCATTER_MASK_DTS = ("f32", "f16", "i16", "u32")


def scatter_cases(rng) -> list[Case]:
    """TSCATTER by an index tile (storage offsets over all of dst, duplicates so the last writer shows, every
    index dtype) and by each mask pattern on both axes (src read as one stream over its capacity columns)."""
    cases = []
    R, C = 16, 32
    for dt, idt in SCATTER_PAIRS:
        src = conversion_pool(rng, dt, 8 * C).reshape(8, C)
        k = rng.integers(0, min(R * C, 1 << (8 * get_dtype(idt).size)), (8, C))
        k[0, :3] = [R * C - 1, 0, 0]  # the highest offset, and a duplicate
        idx = k.astype(get_dtype(idt).np).view(get_dtype(idt).lane)
        specs = (Spec("dst", dt, R, C), Spec("src", dt, 8, C), Spec("indexes", idt, 8, C))
        cases.append(Case("tscatter", "TSCATTER(dst, src, indexes);", specs,
                          {"dst": (R, C), "src": (7, 29), "indexes": (7, 29)},
                          {"dst": sentinel(dt, (R, C)), "src": src, "indexes": idx}))
    for dt in SCATTER_MASK_DTS:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        for pat in SCATTER_PATTERNS:
            n = sum(1 for c in range(29) if _selects(pat, c))
            call = f"TSCATTER<MaskPattern::{pat}, ScatterAxis::SCATTER_ROW>(dst, src);"
            specs = (Spec("dst", dt, R, C), Spec("src", dt, R, C))
            cases.append(Case("tscatter", call, specs, {"dst": (13, 29), "src": (13, n)},
                              {"dst": sentinel(dt, (R, C)), "src": src}, (), {"mask_pattern": pat}))
            n = sum(1 for r in range(13) if _selects(pat, r))
            call = f"TSCATTER<MaskPattern::{pat}, ScatterAxis::SCATTER_COL>(dst, src);"
            cases.append(Case("tscatter", call, specs, {"dst": (13, 29), "src": (n, 29)},
                              {"dst": sentinel(dt, (R, C)), "src": src}, (), {"mask_pattern": pat, "axis": "col"}))
    return cases
