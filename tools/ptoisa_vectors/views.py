"""TRESHAPE: a tile of another shape and element type over the same bytes (the simulator rebinds dst's
data pointer to src's, so dst's bytes afterwards are src's; decision PTO129)."""

from __future__ import annotations

import numpy as np

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
