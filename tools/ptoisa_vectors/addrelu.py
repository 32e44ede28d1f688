"""TADDDEQRELU: i32 + i32, times an f32 scale, to f16 through the simulator's ReLU (PTO143). The simulator has
no TADDRELUCONV (PTO144), so it has no vectors."""

from __future__ import annotations

import numpy as np

from .common import Case, Spec, conversion_pool, sentinel

#: scales: ordinary, tiny (products under f32's normal range), subnormal, negative (all zero), large (f16
#: overflow to inf), NaN and inf (the simulator's NaN and inf products)
SCALES = (0.5, 0.0625, 1e-5, 2.0 ** -140, 3e-39, -1.0, 100.0, 65536.0, float("nan"), float("inf"))


def adddeqrelu_cases(rng) -> list[Case]:
    """Each scale over i32 pairs: range edges, sums that wrap, random values; one partial valid region."""
    cases = []
    for k, scale in enumerate(SCALES):
        rows, cols, valid = (8, 64, (8, 64)) if k % 2 else (5, 32, (5, 17))
        a = conversion_pool(rng, "i32", rows * cols).reshape(rows, cols)
        b = np.where(rng.random((rows, cols)) < 0.5, rng.integers(-2000, 2000, (rows, cols)),
                     rng.integers(-2 ** 31, 2 ** 31, (rows, cols))).astype(np.int32).view(np.uint32)
        bits = int(np.float32(scale).view(np.int32))
        specs = (Spec("dst", "f16", rows, cols), Spec("src0", "i32", rows, cols), Spec("src1", "i32", rows, cols),
                 Spec("tmp", "i32", rows, cols))
        cases.append(Case("tadddeqrelu", "{ float s; std::memcpy(&s, &P[0], 4); TADDDEQRELU(dst, src0, src1, s, "
                          "tmp); }", specs, {r: valid for r in ("dst", "src0", "src1", "tmp")},
                          {"dst": sentinel("f16", (rows, cols)), "src0": a, "src1": b,
                           "tmp": np.zeros((rows, cols), np.uint32)}, params=(bits,),
                          args={"deq_scale": float(np.float32(scale))}))
    return cases
