"""TRESHAPE and TSUBVIEW: a tile over another tile's bytes (the simulator sets dst's data pointer into src's
storage, so dst's bytes afterwards are src's; decisions PTO129, PTO130)."""

from __future__ import annotations

import numpy as np

from tilesim.pto import get_dtype

from .common import Case, Spec, conversion_pool, sentinel

#: (src dtype, rows, cols, dst dtype, rows, cols): same, float <-> float, int <-> int, and the cross-kind pairs
#: whose kernels the simulator's static_assert rejects (left out of the bank, refused by tilesim's cpu)
RESHAPES = (("f32", 16, 16, "f32", 8, 32),
            ("i32", 8, 16, "i16", 8, 32), ("i8", 16, 32, "u8", 8, 64), ("u32", 8, 8, "i64", 4, 8),
            ("i16", 16, 16, "u16", 1, 256), ("f32", 8, 8, "i32", 8, 8), ("i16", 16, 16, "f16", 16, 16),
            ("f32", 16, 16, "f16", 16, 32), ("f16", 16, 32, "f32", 32, 8))
#: the bf16 pairs (g++'s build, PTO88)
RESHAPES_BF16 = (("bf16", 16, 16, "bf16", 8, 32), ("bf16", 16, 16, "f32", 16, 8), ("f16", 16, 16, "bf16", 16, 16),
                 ("bf16", 16, 16, "i16", 16, 16))


def reshape_cases(rng) -> list[Case]:
    """TRESHAPE over the pairs of :data:`RESHAPES` (dst starts as the sentinel)."""
    cases = []
    for sdt, sr, sc, ddt, dr, dc in RESHAPES:
        x = conversion_pool(rng, sdt, sr * sc).reshape(sr, sc)
        specs = (Spec("dst", ddt, dr, dc), Spec("src", sdt, sr, sc))
        cases.append(Case("treshape", "TRESHAPE(dst, src);", specs, {"dst": (dr, dc), "src": (sr, sc)},
                          {"dst": sentinel(ddt, (dr, dc)), "src": x}))
    return cases


#: (dtype, src block layout, src rows, cols, dst rows, cols, dst valid, rowIdx, colIdx): views whose whole
#: storage lies inside src (the simulator's dst pointer reads past src otherwise, into the driver's next tile)
SUBVIEWS = (("f32", "row_major", 16, 32, 8, 32, (8, 32), 8, 0), ("f32", "row_major", 16, 32, 7, 32, (7, 20), 8, 5),
            ("i16", "row_major", 16, 32, 12, 32, (3, 17), 4, 0), ("u8", "row_major", 8, 64, 4, 64, (4, 64), 3, 7),
            ("f16", "col_major", 32, 16, 32, 8, (29, 8), 0, 8), ("i32", "col_major", 32, 16, 24, 8, (20, 5), 5, 9))
SUBVIEWS_BF16 = (("bf16", "row_major", 16, 32, 7, 32, (7, 20), 8, 5),)


def subview_cases(rng) -> list[Case]:
    """TSUBVIEW over :data:`SUBVIEWS` (dst starts as the sentinel; the whole dst storage is compared)."""
    cases = []
    for dt, bl, sr, sc, dr, dc, valid, r, c in SUBVIEWS:
        x = conversion_pool(rng, dt, sr * sc).reshape(sr, sc)
        specs = (Spec("dst", dt, dr, dc, bl), Spec("src", dt, sr, sc, bl))
        cases.append(Case("tsubview", f"TSUBVIEW(dst, src, {r}, {c});", specs, {"dst": valid, "src": (sr, sc)},
                          {"dst": sentinel(dt, (dr, dc)), "src": x}, args={"row_idx": r, "col_idx": c}))
    return cases


#: (dst dtype, src dtype, offset dtype, dst valid): whole blocks, a partial last block (cpu leaves it), i32 offsets
GATHERBS = (("f32", "f32", "u32", (7, 16)), ("i16", "f16", "u32", (8, 32)), ("u8", "i32", "i32", (5, 64)),
            ("f32", "u8", "u32", (8, 12)))
GATHERBS_BF16 = (("bf16", "bf16", "u32", (7, 32)),)


def gatherb_cases(rng) -> list[Case]:
    """TGATHERB: byte offsets anywhere in src (unaligned ones too) and past its end (cpu keeps those blocks)."""
    cases = []
    for ddt, sdt, odt, valid in GATHERBS:
        src = conversion_pool(rng, sdt, 16 * 256 // get_dtype(sdt).size).reshape(16, -1)
        n = src.size * src.itemsize
        off = rng.integers(0, n - 32, (8, 8))
        off[0, 0], off[1, 1], off[2, 0] = n - 32, n - 31, 1 << 31       # the last block, one byte past, far past
        dshape = (8, 64 // get_dtype(ddt).size)
        specs = (Spec("dst", ddt, *dshape), Spec("src", sdt, *src.shape), Spec("offset", odt, 8, 8))
        cases.append(Case("tgatherb", "TGATHERB(dst, src, offset);", specs,
                          {"dst": valid, "src": src.shape, "offset": (8, 8)},
                          {"dst": sentinel(ddt, dshape), "src": src,
                           "offset": off.astype(get_dtype(odt).lane)}))
    return cases
