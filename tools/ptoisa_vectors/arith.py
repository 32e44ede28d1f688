from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import (
    Case, DTS, INTS, SCALAR_DECL, Spec, conversion_pool, lanes, pair_operands, safe_divisors, scalar_params,
    scalar_values, scratch, sentinel, tiles3, unary_pool,
)


PART_DTS = ("f32", "f16", "i32", "i16", "i8", "u8", "u16", "u32")
AXPY_PAIRS = (("f32", "f32"), ("f16", "f16"), ("f16", "f32"), ("f32", "f16"))


def arith_more_cases(rng) -> list[Case]:
    """TREM/TREMS, TPARTADD/MUL/MAX/MIN (sources with other valid shapes than dst), TAXPY and TADDC."""
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        b = safe_divisors(dt, b)
        four = ("dst", "src0", "src1", "tmp")
        cases.append(tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, four,
                             {"src0": a, "src1": b, "tmp": scratch(dt, R, C)}, (vr, vc), R=R))
        for code in scalar_values(dt):
            v = np.array(code, get_dtype(dt).lane).view(get_dtype(dt).np)
            if v == 0 or (dt[0] == "i" and v == -1):
                continue
            cases.append(tiles3("trems", SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                                 {"src": a, "tmp": scratch(dt, R, C)}, (vr, vc),
                                 params=(0,) + scalar_params(dt, code),
                                 args={"scalar": code}, R=R))
        c = conversion_pool(rng, dt, R * C).reshape(R, C)
        cases.append(tiles3("taddc", "TADDC(dst, src0, src1, src2);", dt, ("dst", "src0", "src1", "src2"),
                             {"src0": a, "src1": b, "src2": c}, (vr, vc), R=R))
    for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin"):
        for dt in PART_DTS:
            a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
            specs = tuple(Spec(r, dt, R, C) for r in ("dst", "src0", "src1"))
            for v0, v1 in (((vr, vc), (vr, vc)), ((vr, vc - 6), (vr - 4, vc)), ((vr - 2, vc), (vr, 3))):
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                                  {"dst": (vr, vc), "src0": v0, "src1": v1},
                                  {"dst": sentinel(dt, (R, C)), "src0": a, "src1": b}))
    for sdt, ddt in AXPY_PAIRS:
        x = unary_pool(rng, sdt, R * C).reshape(R, C)
        y = unary_pool(rng, ddt, R * C).reshape(R, C)
        specs = (Spec("dst", ddt, R, C), Spec("src", sdt, R, C))
        call = "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); TAXPY(dst, src, sc);"
        for code in scalar_values(sdt)[:6]:
            cases.append(Case("taxpy", call, specs, {"dst": (vr, vc), "src": (vr, vc)}, {"dst": y, "src": x},
                              (0,) + scalar_params(sdt, code), {"scalar": code}))
    return cases


def fmod_cases(rng) -> list[Case]:
    """TFMOD (floats: zero divisors give fmod's NaN; integers: C's % without the divisors that trap, 0 and -1)
    and TFMODS (a zero scalar skips the op; no 32/64-bit INT_MIN % -1, which traps), 16x32 tiles, valid 15x29;
    one col-major TFMOD per dtype."""
    cases = []
    R, C, valid = 16, 32, (15, 29)
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        b = safe_divisors(dt, b)
        cases.append(tiles3("tfmod", "TFMOD(dst, src0, src1);", dt, ("dst", "src0", "src1"), {"src0": a, "src1": b},
                            valid, R=R))
        a2, b2 = (x.reshape(32, C) for x in pair_operands(rng, dt, 32 * C))
        cases.append(tiles3("tfmod", "TFMOD(dst, src0, src1);", dt, ("dst", "src0", "src1"),
                            {"src0": a2, "src1": safe_divisors(dt, b2)},
                            (29, 13), "col_major", R=32))
        d = get_dtype(dt)
        for code in scalar_values(dt):
            x = a
            if dt in INTS and d.format.int_min and d.size >= 4 and int(np.array(code, d.lane).view(d.np)) == -1:
                x = np.where(a.view(d.np) == d.format.int_min, lanes(dt, [7])[0], a).astype(a.dtype)
            cases.append(tiles3("tfmods", SCALAR_DECL + "TFMODS(dst, src, sc);", dt, ("dst", "src"), {"src": x},
                                valid, params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R))
    return cases


def carry_cases(rng) -> list[Case]:
    """TSUBC, TADDSC and TSUBSC (TADDC's loops: ``(src0 op x) + src2``) over every dtype, specials paired in
    the first step, scalars of the tile-scalar ops; 16x32 tiles, valid 15x29, and one col-major TSUBC."""
    cases = []
    R, C, valid = 16, 32, (15, 29)
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        c = conversion_pool(rng, dt, R * C).reshape(R, C)
        four = ("dst", "src0", "src1", "src2")
        cases.append(tiles3("tsubc", "TSUBC(dst, src0, src1, src2);", dt, four, {"src0": a, "src1": b, "src2": c},
                            valid, R=R))
        a2, b2 = (x.reshape(32, C) for x in pair_operands(rng, dt, 32 * C))
        cases.append(tiles3("tsubc", "TSUBC(dst, src0, src1, src2);", dt, four, {"src0": a2, "src1": b2, "src2": b2},
                            (29, 13), "col_major", R=32))
        for op in ("taddsc", "tsubsc"):
            for code in scalar_values(dt):
                cases.append(tiles3(op, SCALAR_DECL + f"{op.upper()}(dst, src0, sc, src1);", dt,
                                    ("dst", "src0", "src1"), {"src0": a, "src1": c}, valid,
                                    params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R))
    return cases


def relu_cases(rng) -> list[Case]:
    """TSUBRELU, TLRELU (the tile-scalar ops' scalars as slopes) and TPRELU (with its tmp) over every dtype,
    specials paired; 16x32 tiles, valid 15x29, and one col-major TSUBRELU and TPRELU (layout offsets)."""
    cases = []
    R, C, valid = 16, 32, (15, 29)
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        three = ("dst", "src0", "src1")
        cases.append(tiles3("tsubrelu", "TSUBRELU(dst, src0, src1);", dt, three, {"src0": a, "src1": b}, valid, R=R))
        cases.append(tiles3("tprelu", "TPRELU(dst, src0, src1, tmp);", dt, three + ("tmp",),
                            {"src0": a, "src1": b, "tmp": scratch(dt, R, C)}, valid, R=R))
        a2, b2 = (x.reshape(32, C) for x in pair_operands(rng, dt, 32 * C))
        cases.append(tiles3("tsubrelu", "TSUBRELU(dst, src0, src1);", dt, three, {"src0": a2, "src1": b2},
                            (29, 13), "col_major", R=32))
        cases.append(tiles3("tprelu", "TPRELU(dst, src0, src1, tmp);", dt, three + ("tmp",),
                            {"src0": a2, "src1": b2, "tmp": scratch(dt, 32, C)}, (29, 13), "col_major", R=32))
        for code in scalar_values(dt):
            cases.append(tiles3("tlrelu", SCALAR_DECL + "TLRELU(dst, src, sc);", dt, ("dst", "src"), {"src": a},
                                valid, params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R))
    return cases


def mul_add_cases(rng) -> list[Case]:
    """TMULADDDST, TFUSEDMULADD and TFUSEDMULADDRELU over every dtype (dst an input too: specials paired with
    src0, random values in dst and src1); 16x32 tiles, valid 15x29, and one col-major case each."""
    cases = []
    R, C, valid = 16, 32, (15, 29)
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        c = conversion_pool(rng, dt, R * C).reshape(R, C)
        a2, b2 = (x.reshape(32, C) for x in pair_operands(rng, dt, 32 * C))
        c2 = conversion_pool(rng, dt, 32 * C).reshape(32, C)
        for op in ("tmuladddst", "tfusedmuladd", "tfusedmuladdrelu"):
            call = f"{op.upper()}(dst, src0, src1);"
            three = ("dst", "src0", "src1")
            cases.append(tiles3(op, call, dt, three, {"src0": a, "src1": c, "dst": b}, valid, R=R))
            cases.append(tiles3(op, call, dt, three, {"src0": a2, "src1": c2, "dst": b2}, (29, 13), "col_major",
                                R=32))
    return cases


def pair_sum_cases(rng) -> list[Case]:
    """TPAIRREDUCESUM over every dtype: specials paired in a row, odd and even valid widths, one valid column."""
    cases = []
    R, C = 16, 32
    for dt in DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        x = np.empty((R, C), a.dtype)
        x[:, 0::2], x[:, 1::2] = a[:, : C // 2], b[:, : C // 2]  # the special pairs side by side
        for valid in ((15, 29), (16, 32), (3, 1)):
            cases.append(tiles3("tpairreducesum", "TPAIRREDUCESUM(dst, src);", dt, ("dst", "src"), {"src": x}, valid,
                                R=R))
    return cases
