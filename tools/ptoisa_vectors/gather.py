from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import Case, DTS, Spec, conversion_pool, scratch, sentinel


GATHER_PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")
#: (src, dst) dtypes of the mask-pattern TGATHER
GATHER_MASK_PAIRS = (("f32", "f32"), ("f16", "f16"), ("f32", "i32"), ("u8", "i8"))


def gather_cases(rng) -> list[Case]:
    """TGATHER by an index tile (in and out of range, both index dtypes) and by each mask pattern, both axes."""
    cases = []
    R, C = 16, 32
    for dt in DTS:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        for idt in (("i32", "u32") if dt == "f32" else ("i32",)):
            k = rng.integers(-40, R * C + 40, (R, 32)).astype(np.int64)
            k[0, :4] = [0, R * C - 1, R * C, -1]
            idx = (k if idt == "i32" else k % (1 << 32)).astype(get_dtype(idt).np).view(get_dtype(idt).lane)
            specs = (Spec("dst", dt, R, C), Spec("src", dt, R, C), Spec("indices", idt, R, 32), Spec("tmp", dt, R, C))
            cases.append(Case("tgather", "TGATHER(dst, src, indices, tmp);", specs,
                              {"dst": (15, 29), "src": (R, C), "indices": (15, 29), "tmp": (R, C)},
                              {"dst": sentinel(dt, (R, C)), "src": src, "indices": idx, "tmp": scratch(dt, R, C)}))
    for dt, ddt in GATHER_MASK_PAIRS:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        for pat in GATHER_PATTERNS:
            call = f"TGATHER<T_dst, T_src, MaskPattern::{pat}>(dst, src);"
            specs = (Spec("dst", ddt, R, C), Spec("src", dt, R, C))
            cases.append(Case("tgather", call, specs, {"dst": (R, C), "src": (13, 29)},
                              {"dst": sentinel(ddt, (R, C)), "src": src}, (), {"mask_pattern": pat}))
            n = sum(1 for r in range(13) if _selects(pat, r))
            call = f"TGATHER<T_dst, T_src, MaskPattern::{pat}, GatherAxis::GATHER_COL>(dst, src);"
            specs = (Spec("dst", ddt, n, C), Spec("src", dt, R, C))
            cases.append(Case("tgather", call, specs, {"dst": (n, 29), "src": (13, 29)},
                              {"dst": sentinel(ddt, (n, C)), "src": src}, (), {"mask_pattern": pat, "axis": "col"}))
    return cases


def _selects(pat: str, i: int) -> bool:
    """Whether mask pattern ``pat`` (P0101 ...) keeps element ``i``: read right to left, period its length."""
    if pat == "P1111":
        return True
    period = 2 if pat in ("P0101", "P1010") else 4
    return pat[1:][::-1][:period][i % period] == "1"


CONCAT_DTS = ("f32", "f16", "i32", "i16", "i8", "u32", "u16", "u8", "i64")


def concat_cases(rng) -> list[Case]:
    """TCONCAT (two sources side by side) over every dtype the simulator takes, odd widths, a DN case."""
    cases = []
    R = 16
    for dt in CONCAT_DTS:
        for bl in (("row_major", "col_major") if dt == "f32" else ("row_major",)):
            a, b = (conversion_pool(rng, dt, R * 32).reshape(R, 32) for _ in range(2))
            specs = (Spec("dst", dt, R, 64, bl), Spec("src0", dt, R, 32, bl), Spec("src1", dt, R, 32, bl))
            for c0, c1 in ((13, 29), (32, 32), (0, 7)):
                cases.append(Case("tconcat", "TCONCAT(dst, src0, src1);", specs,
                                  {"dst": (15, c0 + c1), "src0": (15, c0), "src1": (15, c1)},
                                  {"dst": sentinel(dt, (R, 64)), "src0": a, "src1": b}))
    return cases
