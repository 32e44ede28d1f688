from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import (
    Case, DTS, FLOATS, INTS, SCALAR_DECL, Spec, aligned_rows, conversion_pool, lanes, pair_operands, safe_divisors,
    scalar_params, scalar_values, scratch, sentinel, tiles3, unary_pool,
)


def binary_cases(rng) -> list[Case]:
    cases = []
    for op in ("tadd", "tsub", "tmul", "tmax", "tmin"):
        for dt in DTS:
            for bl in ("row_major", "col_major"):
                R = C = 32
                vr, vc = (31, 29) if bl == "row_major" else (29, 31)
                a, b = pair_operands(rng, dt, R * C)
                specs = tuple(Spec(r, dt, R, C, bl) for r in ("dst", "src0", "src1"))
                cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                                  {r: (vr, vc) for r in ("dst", "src0", "src1")},
                                  {"dst": sentinel(dt, (R, C)), "src0": a.reshape(R, C),
                                   "src1": b.reshape(R, C)}))
    return cases


#: TDIV's dtypes; the layouts each binary op is tried in
TDIV_DTS = DTS


def tdiv_cases(rng) -> list[Case]:
    cases = []
    for dt in DTS:
        for bl in (("row_major", "col_major") if dt in FLOATS else ("row_major",)):
            a, b = pair_operands(rng, dt, 32 * 32)
            vr, vc = (31, 29) if bl == "row_major" else (29, 31)
            cases.append(tiles3("tdiv", "TDIV(dst, src0, src1);", dt, ("dst", "src0", "src1"),
                                 {"src0": a.reshape(32, 32), "src1": safe_divisors(dt, b).reshape(32, 32)},
                                 (vr, vc), bl))
    return cases


#: unary ops and the dtypes tried (what either side accepts; the compiler and tilesim say the rest)
UNARY = {"texp": FLOATS, "tlog": FLOATS, "tsqrt": FLOATS, "trsqrt": FLOATS, "trecip": FLOATS,
         "tabs": FLOATS + ("i8", "i16", "i32", "i64"), "tneg": FLOATS + ("i8", "i16", "i32", "i64"),
         "trelu": FLOATS + ("i16", "i32")}


def unary_cases(rng) -> list[Case]:
    cases = []
    for op, dts in UNARY.items():
        for dt in dts:
            for bl in (("row_major", "col_major") if dt == "f32" else ("row_major",)):
                x = unary_pool(rng, dt, 32 * 32)
                vr, vc = (32, 32) if bl == "row_major" else (29, 31)
                cases.append(tiles3(op, f"{op.upper()}(dst, src);", dt, ("dst", "src"),
                                     {"src": x.reshape(32, 32)}, (vr, vc), bl))
    for op in ("texp", "tlog", "tsqrt", "trsqrt", "trecip"):  # every f16 code once
        cases.append(tiles3(op, f"{op.upper()}(dst, src);", "f16", ("dst", "src"),
                             {"src": np.arange(1 << 16, dtype=np.uint16).reshape(256, 256)}, (256, 256),
                             R=256, C=256))
    return cases


SCALAR_OPS = ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins")


def scalar_cases(rng) -> list[Case]:
    cases = []
    pools = {dt: unary_pool(rng, dt, 16 * 32).reshape(16, 32) for dt in DTS}  # one source per dtype: compresses
    for op in SCALAR_OPS:
        for dt in DTS:
            n8 = get_dtype(dt).size == 8
            for first in ((False, True) if op == "tdivs" else (False,)):
                call = ("typename T_dst::DType sc; std::memcpy(&sc, P, sizeof sc); "
                        + (f"{op.upper()}(dst, sc, src);" if first else f"{op.upper()}(dst, src, sc);"))
                for k, sc in enumerate(scalar_values(dt)):
                    x = pools[dt]
                    if op == "tdivs" and dt not in FLOATS:
                        if first:
                            x = safe_divisors(dt, x)
                        elif int(np.array(sc, get_dtype(dt).lane).view(get_dtype(dt).np)) in (0, -1):
                            continue
                    params = (sc & 0xFFFFFFFF, sc >> 32) if n8 else (sc,)
                    params = tuple(int(np.uint32(p).view(np.int32)) for p in params)
                    vr, vc = ((16, 32), (15, 29), (1, 1), (16, 7))[k % 4]
                    cases.append(tiles3(op, call, dt, ("dst", "src"), {"src": x}, (vr, vc), params=params,
                                         args={"scalar": int(sc), **({"scalar_first": True} if first else {})},
                                         R=16))
    return cases


def div_overflow_cases(rng) -> list[Case]:
    """INT_MIN / -1 and INT_MIN rem -1 of i8/i16, which C++ computes in int (so they wrap on the store) in
    TDIV, TDIVS (both forms), TREM, TREMS and the expand divisions. The 32/64-bit ones trap (SIGFPE) in the
    simulator, so they have no vectors: tilesim refuses them on cpu (PTO72)."""
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for dt in ("i8", "i16"):
        lo, m1 = (int(v) for v in lanes(dt, [get_dtype(dt).format.int_min, -1]))
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        b = safe_divisors(dt, b)
        a[::2, ::3], b[:, 1::4] = lo, m1                 # INT_MIN over -1 in many lanes, -1 elsewhere too
        three = ("dst", "src0", "src1")
        cases.append(tiles3("tdiv", "TDIV(dst, src0, src1);", dt, three, {"src0": a, "src1": b}, (vr, vc), R=R))
        cases.append(tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, three + ("tmp",),
                             {"src0": a, "src1": b, "tmp": scratch(dt, R, C)}, (vr, vc), R=R))
        cases.append(tiles3("tdivs", SCALAR_DECL + "TDIVS(dst, src, sc);", dt, ("dst", "src"), {"src": a},
                             (vr, vc), params=(0,) + scalar_params(dt, m1), args={"scalar": m1}, R=R))
        cases.append(tiles3("tdivs", SCALAR_DECL + "TDIVS(dst, sc, src);", dt, ("dst", "src"), {"src": b},
                             (vr, vc), params=(0,) + scalar_params(dt, lo), args={"scalar": lo, "scalar_first": True},
                             R=R))
        cases.append(tiles3("trems", SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                             {"src": a, "tmp": scratch(dt, R, C)}, (vr, vc), params=(0,) + scalar_params(dt, m1),
                             args={"scalar": m1}, R=R))
        col = Spec("src1", dt, aligned_rows(dt, R), 1, "col_major")
        cases.append(Case("trowexpanddiv", "TROWEXPANDDIV(dst, src0, src1);",
                          (Spec("dst", dt, R, C), Spec("src0", dt, R, C), col),
                          {"dst": (vr, vc), "src0": (vr, vc), "src1": (vr, 1)},
                          {"dst": sentinel(dt, (R, C)), "src0": a,
                           "src1": np.resize(np.array([m1, 3, m1], a.dtype), (col.rows, 1))}))
        cases.append(Case("tcolexpanddiv", "TCOLEXPANDDIV(dst, src0, src1);",
                          (Spec("dst", dt, R, C), Spec("src0", dt, R, C), Spec("src1", dt, 1, C)),
                          {"dst": (vr, vc), "src0": (vr, vc), "src1": (1, vc)},
                          {"dst": sentinel(dt, (R, C)), "src0": a, "src1": b[1:2].copy()}))
    for dt, code in (("i32", 0), ("u16", 0), ("i8", 0), ("f32", 0), ("f32", 0x80000000), ("f16", 0x8000)):
        x = conversion_pool(rng, dt, R * C).reshape(R, C)     # TREMS with tmp skips a zero scalar (PTO73)
        cases.append(tiles3("trems", SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                             {"src": x, "tmp": scratch(dt, R, C)}, (vr, vc), params=(0,) + scalar_params(dt, code),
                             args={"scalar": code}, R=R))
    return cases


#: integer dtypes of TLOG and TRECIP on cpu (the simulator's ElementOpCal has no dtype check; PTO121)
INT_LOG_DTS = ("i8", "i16", "i32", "u8", "u16", "u32")
INT_RECIP_DTS = INTS


def int_unary_cases(rng) -> list[Case]:
    """TLOG and TRECIP of integer tiles: ``static_cast<T>(log(double(x)))`` (ln 0 and ln of a negative cast
    to an integer: undefined lanes) and the integer ``1 / x`` (no zero divisors: they trap); each integer
    around ``e^k`` (k = 1..22, within the dtype) is among the log sources."""
    cases = []
    R, C = 32, 32
    edges = [e + d for e in (3, 8, 21, 55, 149, 404, 1097, 2981, 8104, 22027, 59875, 162755, 442414, 1202605,
                             3269018, 8886111, 24154953, 65659970, 178482301, 485165196, 1318815735, 3584912847)
             for d in (-1, 0)]
    for dt in INT_LOG_DTS:
        f = get_dtype(dt).format
        x = unary_pool(rng, dt, R * C)
        near = lanes(dt, [v for v in edges if f.int_min <= v <= f.int_max])
        x[1: 1 + near.size] = near
        for bl, valid in (("row_major", (31, 29)), ("col_major", (29, 31))):
            cases.append(tiles3("tlog", "TLOG(dst, src);", dt, ("dst", "src"), {"src": x.reshape(R, C)}, valid, bl))
    for dt in INT_RECIP_DTS:
        x = unary_pool(rng, dt, R * C)
        x[x == 0] = lanes(dt, [1])[0]
        x[:4] = lanes(dt, [1, -1, 2, 1] if dt[0] == "i" else [1, 2, 3, 1])
        cases.append(tiles3("trecip", "TRECIP(dst, src);", dt, ("dst", "src"), {"src": x.reshape(R, C)}, (31, 29)))
    return cases
