from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import (
    Case, DTS, FLOATS, SCALAR_DECL, Spec, aligned_cols, aligned_rows, conversion_pool, pair_operands, rand_lanes,
    safe_divisors, scalar_params, sentinel,
)
from .layout import valid_only
from .move import box


def expand_cases(rng) -> list[Case]:
    cases = []
    for op in ("trowexpand", "tcolexpand"):
        row = op == "trowexpand"
        for s in DTS:
            for d in DTS:
                layouts = (("row_major", "row_major"), ("col_major", "row_major"), ("row_major", "col_major"),
                           ("col_major", "col_major")) if s == d else (("row_major", "row_major"),)
                for sl, dl in layouts:
                    R, C = 32, 32
                    vr, vc = (29, 13) if dl == "row_major" else (13, 29)
                    dst = Spec("dst", d, R, C, dl)
                    if row:
                        src = (Spec("src", s, R, 1, "col_major") if sl == "col_major" else
                               Spec("src", s, R, aligned_cols(s, 1)))
                        svalid = (vr, 1)
                        data = conversion_pool(rng, s, src.rows * src.cols).reshape(src.rows, src.cols)
                    else:
                        src = Spec("src", s, R if sl == "col_major" else 2, C, sl)
                        svalid = (1, vc)
                        data = conversion_pool(rng, s, src.rows * src.cols).reshape(src.rows, src.cols)
                    cases.append(Case(op, f"{op.upper()}(dst, src);", (dst, src), {"dst": (vr, vc), "src": svalid},
                                      {"dst": sentinel(d, (R, C)), "src": data}))
            # empty destination region
            dst, src = Spec("dst", s, 8, 32), Spec("src", s, 8, 32)
            cases.append(Case(op, f"{op.upper()}(dst, src);", (dst, src), {"dst": (0, 5), "src": (3, 1)},
                              {"dst": sentinel(s, (8, 32)), "src": rand_lanes(rng, s, (8, 32))}))
    return cases


EXPAND_KINDS = ("add", "sub", "mul", "div", "max", "min", "expdif")
#: dtypes tried for the expand-binary ops (the simulator compiles f32/f16, 16/32-bit ints, u8 for mul)
EXPAND_DTS = ("f32", "f16", "i32", "i16", "u32", "u16", "u8", "i8")


def expand_binary_cases(rng) -> list[Case]:
    """TROWEXPAND<op> in its three forms (src1 col_major one column; src1 row_major 32 bytes a row; src0 the
    broadcast one) and TCOLEXPAND<op> (src1 one row), over odd valid shapes."""
    cases = []
    R, C, vr, vc = 32, 32, 29, 13
    for kind in EXPAND_KINDS:
        for dt in EXPAND_DTS:
            per = 32 // get_dtype(dt).size
            full, other = pair_operands(rng, dt, R * C)
            full, other = full.reshape(R, C), other.reshape(R, C)
            forms = (("dn", "rm", "swap") if dt == "f32" else ("dn", "rm") if dt == "f16" else ("dn",))
            for form in forms:
                bc = (Spec("b", dt, R, 1, "col_major") if form in ("dn", "swap") else Spec("b", dt, R, per))
                bvalid = (vr, 1 if form != "rm" else per)
                bdata = other[:, :bc.cols].copy()
                if kind == "div" and form != "swap":
                    bdata = safe_divisors(dt, bdata)
                fdata = safe_divisors(dt, full) if kind == "div" and form == "swap" else full
                s0, s1 = (("src0", bc, bdata), ("src1", Spec("f", dt, R, C), fdata)) if form == "swap" else \
                    (("src0", Spec("f", dt, R, C), fdata), ("src1", bc, bdata))
                specs = (Spec("dst", dt, R, C),) + tuple(Spec(r, dt, sp.rows, sp.cols, sp.blayout)
                                                         for r, sp, _ in (s0, s1))
                valid = {"dst": (vr, vc), s0[0]: (vr, vc) if s0[1].role == "f" else bvalid,
                         s1[0]: (vr, vc) if s1[1].role == "f" else bvalid}
                cases.append(Case(f"trowexpand{kind}", f"TROWEXPAND{kind.upper()}(dst, src0, src1);", specs, valid,
                                  {"dst": sentinel(dt, (R, C)), s0[0]: s0[2], s1[0]: s1[2]}))
            row = other[:1].copy()
            if kind == "div":
                row = safe_divisors(dt, row)
            specs = (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C))
            cases.append(Case(f"tcolexpand{kind}", f"TCOLEXPAND{kind.upper()}(dst, src0, src1);", specs,
                              {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                              {"dst": sentinel(dt, (R, C)), "src0": full, "src1": row}))
    return cases


def boxed_expand_cases(rng) -> list[Case]:
    """Element-wise ops on boxed (nz / zn) vec tiles, and the expand-binary ops over a 1-row, a 1-column and an
    empty valid region (their family used one 29x13 shape)."""
    cases = []
    R, C, v = 32, 32, (29, 21)
    for dt in ("f32", "f16", "i32"):
        for kind in ("nz", "zn"):
            specs = lambda roles: tuple(box(r, dt, R, C, kind) for r in roles)
            a, b = (valid_only(x.reshape(R, C), v) for x in pair_operands(rng, dt, R * C))
            for op in ("tadd", "tmul", "tmax", "tsub"):
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs(("dst", "src0", "src1")),
                                  {r: v for r in ("dst", "src0", "src1")}, {"dst": sentinel(dt, (R, C)),
                                                                           "src0": a, "src1": b}))
            for op in ("tabs", "tneg") + (("texp", "tsqrt") if dt in FLOATS else ()):
                cases.append(Case(op, f"{op.upper()}(dst, src);", specs(("dst", "src")), {"dst": v, "src": v},
                                  {"dst": sentinel(dt, (R, C)), "src": a}))
            code = int(b[3, 3])
            for op in ("tsubs", "tmins") + (("tadds", "tmuls") if kind == "zn" else ()):  # the latter: row-major
                cases.append(Case(op, SCALAR_DECL + f"{op.upper()}(dst, src, sc);", specs(("dst", "src")),
                                  {"dst": v, "src": v}, {"dst": sentinel(dt, (R, C)), "src": a},
                                  (0,) + scalar_params(dt, code), {"scalar": code}))
    R, C = 16, 32
    for kind in ("add", "mul", "max", "div"):
        for dt in ("f32", "f16", "i32", "i16"):
            full, other = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
            if kind == "div":
                other = safe_divisors(dt, other)
            rows = aligned_rows(dt, R)
            for vr, vc in ((1, 29), (13, 1), (0, 5)):
                col = np.zeros((rows, 1), full.dtype)
                col[:R, 0] = other[:, 0]
                cases.append(Case(f"trowexpand{kind}", f"TROWEXPAND{kind.upper()}(dst, src0, src1);",
                                  (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, rows, 1, "col_major")),
                                  {"dst": (vr, vc), "src0": (vr, vc), "src1": (vr, 1)},
                                  {"dst": sentinel(dt, (R, C)), "src0": valid_only(full, (vr, vc)), "src1": col}))
                cases.append(Case(f"tcolexpand{kind}", f"TCOLEXPAND{kind.upper()}(dst, src0, src1);",
                                  (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C)),
                                  {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                                  {"dst": sentinel(dt, (R, C)), "src0": valid_only(full, (vr, vc)),
                                   "src1": other[:1].copy()}))
    return cases
