"""TQUANT's MX forms (MXFP8 / MXFP4, OCP / NV, ND and DN = TQUANT_DN, and MXFP8's ZZ exponents; PTO145)."""

from __future__ import annotations

import numpy as np

from tilesim.pto import get_dtype

from .common import Case, F_SPECIAL, Spec, conversion_pool, lanes, sentinel

_ALG = {"ocp_fp8": "OcpMxFp8E4M3", "nv_fp8": "NvMxFp8E4M3", "ocp_fp4": "OcpMxFp4E2M1", "nv_fp4": "NvMxFp4E2M1"}
#: (alg, source dtypes); MXFP4 from f32 compiles on the simulator only
MX_QUANTS = (("ocp_fp8", ("f32", "f16")), ("nv_fp8", ("f32", "f16")), ("ocp_fp4", ("f16", "f32")),
             ("nv_fp4", ("f16",)))
MX_QUANTS_BF16 = (("ocp_fp8", ("bf16",)), ("nv_fp8", ("bf16",)), ("ocp_fp4", ("bf16",)), ("nv_fp4", ("bf16",)))


def _values(rng, dt: str, shape, lines_on_rows: bool) -> np.ndarray:
    """Groups of very different magnitudes (each 32-line scaled by its own power of two), specials sprinkled,
    the last groups all zero, all tiny, or holding one NaN or infinity."""
    n = int(np.prod(shape))
    base = rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape if lines_on_rows else shape)
    scale = 2.0 ** rng.integers(-30, 30, (shape[0], shape[1] // 32 if lines_on_rows else 1))
    if lines_on_rows:
        x = base * np.repeat(scale, 32, axis=1)
    else:
        x = base * 2.0 ** rng.integers(-30, 30, (shape[0] // 32, 1, shape[1])).repeat(32, axis=0).reshape(shape)
    out = lanes(dt, x.ravel())
    pool = conversion_pool(rng, dt, n)
    pick = rng.random(n) < 0.1
    out[pick] = pool[pick]
    out = out.reshape(shape)
    specials = np.array(F_SPECIAL[dt], get_dtype(dt).lane) if dt in F_SPECIAL else None
    if specials is not None:
        out.flat[rng.integers(0, n, 4)] = specials[[2, 4, 6, 9]]         # inf, NaN, NaN payload, subnormal
    return out


def quant_mx_cases(rng) -> list[Case]:
    cases = []
    for alg, dts in MX_QUANTS:
        dst_dt = "i8" if alg.endswith("fp8") else "f4e2m1"
        for dt in dts:
            for axis in (1, 0):
                rows, cols, valid = (16, 64, (13, 64)) if axis else (64, 32, (64, 21))
                groups = (rows * cols // 32)
                er, ec = (16, 32) if axis else (2, 32)
                src = _values(rng, dt, (rows, cols), axis == 1)
                specs = (Spec("dst", dst_dt, rows, cols), Spec("src", dt, rows, cols),
                         Spec("dst_exp", "u8", er, ec), Spec("dst_max", "f32", 1, groups),
                         Spec("dst_scaling", "f32", 1, groups))
                call = (f"TQUANT<{axis}, MxQuantAlg::{_ALG[alg]}>(dst, src, &dst_exp, &dst_max, &dst_scaling);")
                data = {"dst": sentinel(dst_dt, (rows, cols)) & (0xF if dst_dt == "f4e2m1" else 0xFF),
                        "src": src, "dst_exp": sentinel("u8", (er, ec)), "dst_max": sentinel("f32", (1, groups)),
                        "dst_scaling": sentinel("f32", (1, groups))}
                cases.append(Case("tquant_mx", call, specs,
                                  {"dst": valid, "src": valid, "dst_exp": (er, ec), "dst_max": (1, groups),
                                   "dst_scaling": (1, groups)}, data, args={"alg": alg, "grp_axis": axis}))
    for dt in (d for alg, dts in MX_QUANTS[:1] for d in dts):                  # MXFP8 with ZZ exponents
        src = _values(rng, dt, (32, 128), True)
        specs = (Spec("dst", "i8", 32, 128), Spec("src", dt, 32, 128), Spec("dst_exp", "u8", 32, 32),
                 Spec("dst_max", "f32", 1, 128), Spec("dst_scaling", "f32", 1, 128), Spec("dst_zz", "u8", 32, 32))
        cases.append(Case("tquant_mx", "TQUANT<QuantType::MXFP8, VecStoreMode::NZ>(dst, src, &dst_exp, &dst_max, "
                          "&dst_scaling, &dst_zz);", specs,
                          {"dst": (32, 128), "src": (32, 128), "dst_exp": (32, 32), "dst_max": (1, 128),
                           "dst_scaling": (1, 128), "dst_zz": (32, 32)},
                          {"dst": sentinel("i8", (32, 128)), "src": src, "dst_exp": sentinel("u8", (32, 32)),
                           "dst_max": sentinel("f32", (1, 128)), "dst_scaling": sentinel("f32", (1, 128)),
                           "dst_zz": sentinel("u8", (32, 32))}, args={"alg": "ocp_fp8", "grp_axis": 1}))
    return cases
