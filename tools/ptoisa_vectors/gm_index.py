from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import CXX_TYPE, Case, Spec, conversion_pool, lanes, sentinel

GM_INDEX_DTS = ("f32", "f16", "i32", "i16", "u8")
_GATHER_OOB = {"undefined": "Undefined", "clamp": "Clamp", "wrap": "Wrap", "zero": "Zero"}
_SCATTER_OOB = {"undefined": "Undefined", "skip": "Skip", "clamp": "Clamp", "wrap": "Wrap"}
_ATOMIC = {"none": "None", "add": "Add", "max": "Max", "min": "Min"}
TR, TC = 24, 32  # the global table: 24 rows of 32


def _idx(rng, idt: str, shape, cap: int, oob: str) -> np.ndarray:
    """Index lanes in 0..cap-1 (with repeats), and for the remapping modes some past cap and negative ones."""
    k = rng.integers(0, cap, shape)
    if oob != "undefined":
        k.reshape(-1)[:6] = [cap, cap + 3, -1, -cap - 2, 3 * cap + 1, cap - 1]
    d = get_dtype(idt)
    return k.astype(np.int64).astype(d.np).view(d.lane)


def _glob(dt: str, role: str) -> str:
    return f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, {TR}, {TC}>, Stride<1, 1, 1, {TC}, 1>> g({role}.data()); "


def mgather_cases(rng) -> list[Case]:
    """MGATHER, Elem (a 13x29 index tile) and Row (a 1x13 index tile, and a 13x1 col-major one), every
    out-of-bounds mode, over the dtypes and both index dtypes."""
    cases = []
    for dt in GM_INDEX_DTS:
        table = conversion_pool(rng, dt, TR * TC).reshape(TR, TC)
        for oob in (_GATHER_OOB if dt == "f32" else ("undefined", "zero")):
            for idt in (("i32", "u32") if dt == "f32" else ("i32",)):
                call = _glob(dt, "gm") + f"MGATHER<Coalesce::Elem, GatherOOB::{_GATHER_OOB[oob]}>(dst, g, indexes);"
                specs = (Spec("dst", dt, 16, 32), Spec("gm", dt, TR, TC, loc="gm"), Spec("indexes", idt, 16, 32))
                cases.append(Case("mgather", call, specs, {"dst": (13, 29), "gm": (TR, TC), "indexes": (13, 29)},
                                  {"dst": sentinel(dt, (16, 32)), "gm": table,
                                   "indexes": _idx(rng, idt, (16, 32), TR * TC, oob)}, (),
                                  {"coalesce": "elem", "oob": oob}))
            call = _glob(dt, "gm") + f"MGATHER<Coalesce::Row, GatherOOB::{_GATHER_OOB[oob]}>(dst, g, indexes);"
            for ishape, bl in (((1, 16), "row_major"), ((16, 1), "col_major")):
                specs = (Spec("dst", dt, 16, 32), Spec("gm", dt, TR, TC, loc="gm"),
                         Spec("indexes", "i32", *ishape, bl))
                valid = (1, 13) if ishape[0] == 1 else (13, 1)
                cases.append(Case("mgather", call, specs, {"dst": (13, 29), "gm": (TR, TC), "indexes": valid},
                                  {"dst": sentinel(dt, (16, 32)), "gm": table,
                                   "indexes": _idx(rng, "i32", ishape, TR, oob)}, (),
                                  {"coalesce": "row", "oob": oob}))
    return cases


def mscatter_cases(rng) -> list[Case]:
    """MSCATTER into a 24x32 table (specials in it and in src), Elem and Row, every atomic op and out-of-bounds
    mode for f32, and replace/add for the other dtypes; indexes repeat, so the write order shows."""
    cases = []
    for dt in GM_INDEX_DTS:
        table = conversion_pool(rng, dt, TR * TC).reshape(TR, TC)
        src = conversion_pool(rng, dt, 16 * 32)[::-1].reshape(16, 32)
        if dt == "f32":
            src[0, :8] = lanes(dt, [1, -1, 0.5, 2, -0.0, 3, 1e30, -2])  # finite sums beside the specials
        combos = [(a, o) for a in _ATOMIC for o in _SCATTER_OOB] if dt == "f32" else \
            [("none", "undefined"), ("add", "skip"), ("max", "wrap"), ("min", "clamp")]
        for atomic, oob in combos:
            head = f"MSCATTER<Coalesce::{{}}, ScatterAtomicOp::{_ATOMIC[atomic]}, ScatterOOB::{_SCATTER_OOB[oob]}, "
            conflict = "ScatterConflict::Last" if atomic == "none" else "ScatterConflict::Default"
            for mode, ishape, cap in (("Elem", (16, 32), TR * TC), ("Row", (1, 16), TR)):
                call = _glob(dt, "dst_gm") + head.format(mode) + f"{conflict}>(g, src, indexes);"
                specs = (Spec("dst_gm", dt, TR, TC, loc="gm"), Spec("src", dt, 16, 32),
                         Spec("indexes", "i32", *ishape))
                valid = (13, 29) if mode == "Elem" else (1, 13)
                cases.append(Case("mscatter", call, specs, {"dst_gm": (TR, TC), "src": (13, 29), "indexes": valid},
                                  {"dst_gm": table, "src": src, "indexes": _idx(rng, "i32", ishape, cap, oob)}, (),
                                  {"coalesce": mode.lower(), "atomic": atomic, "oob": oob}))
    return cases
