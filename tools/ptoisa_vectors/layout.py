from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .arith import AXPY_PAIRS, PART_DTS
from .common import (
    Case, DTS, FLOATS, F_SPECIAL, SCALAR_DECL, Spec, aligned_cols, conversion_pool, lanes, pair_operands,
    safe_divisors, scalar_params, scalar_values, scratch, sentinel, tiles3, unary_pool,
)
from .elementwise import SCALAR_OPS, UNARY


#: layouts and valid shapes the first families left out: (block layout, rows, cols, valid)
EDGE_SHAPES = (("row_major", 16, 32, (1, 29)), ("row_major", 16, 32, (13, 1)), ("row_major", 16, 32, (0, 5)),
                ("col_major", 32, 16, (29, 13)), ("col_major", 32, 16, (1, 13)), ("col_major", 32, 16, (29, 1)))


def edge_shape(dt: str, k: int) -> tuple[str, int, int, tuple[int, int]]:
    """The k-th edge shape, its tile widened so 1-byte DN columns and ND rows stay 32-byte aligned."""
    bl, R, C, v = EDGE_SHAPES[k % len(EDGE_SHAPES)]
    per = 32 // get_dtype(dt).size
    return bl, max(R, per), max(C, per), v


def valid_only(x: np.ndarray, valid: tuple[int, int]) -> np.ndarray:
    """x with the lanes outside the valid region zeroed (no op reads them; zeros keep the files small)."""
    out = np.zeros_like(x)
    out[: valid[0], : valid[1]] = x[: valid[0], : valid[1]]
    return out


def layout_cases(rng) -> list[Case]:
    """The element-wise ops on the layouts and shapes their first families left out: TADD/TSUB/TMUL/TDIV/TMAX/TMIN,
    the tile-scalar ops and TREMS, the unary ops, TREM/TADDC/TPART* on DN (col_major) tiles, a 1-row, a 1-column
    and an empty valid region, every dtype the first families tried."""
    cases = []
    for op in ("tadd", "tsub", "tmul", "tdiv", "tmax", "tmin"):
        for dt in DTS:
            for k in (0, 1, 2, 4, 5):  # binary_cases has DN tiles already, so the edge shapes only
                bl, R, C, v = edge_shape(dt, k)
                a, b = (valid_only(x.reshape(R, C), v) for x in pair_operands(rng, dt, R * C))
                if op == "tdiv":
                    b = safe_divisors(dt, b)
                cases.append(tiles3(op, f"{op.upper()}(dst, src0, src1);", dt, ("dst", "src0", "src1"),
                                     {"src0": a, "src1": b}, v, bl, R=R, C=C))
    for op in SCALAR_OPS + ("trems",):
        for dt in DTS:
            codes = scalar_values(dt)
            for k in range(len(EDGE_SHAPES)):
                bl, R, C, v = edge_shape(dt, k)
                code = codes[(2 * k + 1) % len(codes)]
                x = valid_only(unary_pool(rng, dt, R * C).reshape(R, C), v)
                if op in ("tdivs", "trems") and dt not in FLOATS and \
                        int(np.array(code, get_dtype(dt).lane).view(get_dtype(dt).np)) in (0, -1):
                    code = int(lanes(dt, [3])[0])
                if op == "trems":
                    cases.append(tiles3(op, SCALAR_DECL + "TREMS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                                         {"src": x, "tmp": scratch(dt, R, C)}, v, bl,
                                         params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R, C=C))
                else:
                    cases.append(tiles3(op, SCALAR_DECL + f"{op.upper()}(dst, src, sc);", dt, ("dst", "src"),
                                         {"src": x}, v, bl, params=(0,) + scalar_params(dt, code),
                                         args={"scalar": code}, R=R, C=C))
    for op, dts in UNARY.items():
        for dt in dts:
            for k in range(len(EDGE_SHAPES)):
                bl, R, C, v = edge_shape(dt, k)
                cases.append(tiles3(op, f"{op.upper()}(dst, src);", dt, ("dst", "src"),
                                     {"src": valid_only(unary_pool(rng, dt, R * C).reshape(R, C), v)}, v, bl,
                                     R=R, C=C))
    for dt in DTS:
        for k in (3, 5):
            bl, R, C, v = edge_shape(dt, k)
            a, b = (valid_only(x.reshape(R, C), v) for x in pair_operands(rng, dt, R * C))
            cases.append(tiles3("trem", "TREM(dst, src0, src1, tmp);", dt, ("dst", "src0", "src1", "tmp"),
                                 {"src0": a, "src1": safe_divisors(dt, b), "tmp": scratch(dt, R, C)}, v, bl,
                                 R=R, C=C))
            cases.append(tiles3("taddc", "TADDC(dst, src0, src1, src2);", dt, ("dst", "src0", "src1", "src2"),
                                 {"src0": a, "src1": b,
                                  "src2": valid_only(conversion_pool(rng, dt, R * C).reshape(R, C), v)}, v,
                                 bl, R=R, C=C))
    for op in ("tpartadd", "tpartmul", "tpartmax", "tpartmin"):
        for dt in PART_DTS:
            bl, R, C, _ = edge_shape(dt, 3)
            a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
            specs = tuple(Spec(r, dt, R, C, bl) for r in ("dst", "src0", "src1"))
            cases.append(Case(op, f"{op.upper()}(dst, src0, src1);", specs,
                              {"dst": (29, 13), "src0": (29, 13), "src1": (17, 13)},
                              {"dst": sentinel(dt, (R, C)), "src0": a, "src1": b}))
    snan = (0x7C01 + np.arange(16 * 64) % 0x1FF) | (np.arange(16 * 64) % 2 << 15)  # f16 signaling NaNs, +-
    for op in ("tneg", "tabs", "trelu"):                 # where the x86 code quiets them: vector body or tail
        for bl, R, C, v in (("row_major", 16, 64, (3, 45)), ("col_major", 64, 16, (45, 3))):
            cases.append(tiles3(op, f"{op.upper()}(dst, src);", "f16", ("dst", "src"),
                                 {"src": snan.astype(np.uint16).reshape(R, C)}, v, bl, R=R, C=C))
    for dt in FLOATS:                                    # NaN tile x NaN scalar: whose payload, body and tail
        nans = snan.astype(np.uint16) if dt == "f16" else (0x7F800001 + np.arange(16 * 64) * 0x111) | \
            (np.arange(16 * 64) % 3 == 0) << 22 | (np.arange(16 * 64) % 2 << 31)
        code = F_SPECIAL[dt][6]
        for op in SCALAR_OPS:
            cases.append(tiles3(op, SCALAR_DECL + f"{op.upper()}(dst, src, sc);", dt, ("dst", "src"),
                                 {"src": nans.astype(get_dtype(dt).lane).reshape(16, 64)}, (3, 45),
                                 params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=16, C=64))
    return cases


def misc_edge_cases(rng) -> list[Case]:
    """The remaining narrow families on DN tiles and edge shapes: TAXPY, TQUANT (a 1-row, a 1-column, an empty
    region; several parameter columns), TSORT32 (one row, one block), TCONCAT and TGATHER (index form) on DN and
    1-row tiles, TFILLPAD from a DN source."""
    cases = []
    for sdt, ddt in AXPY_PAIRS:
        for k in range(len(EDGE_SHAPES)):
            bl, R, C, v = edge_shape(sdt, k)
            x = valid_only(unary_pool(rng, sdt, R * C).reshape(R, C), v)
            y = valid_only(unary_pool(rng, ddt, R * C).reshape(R, C), v)
            code = scalar_values(sdt)[(k + 3) % 6]
            cases.append(Case("taxpy", "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                              "TAXPY(dst, src, sc);", (Spec("dst", ddt, R, C, bl), Spec("src", sdt, R, C, bl)),
                              {"dst": v, "src": v}, {"dst": y, "src": x}, (0,) + scalar_params(sdt, code),
                              {"scalar": code}))
    R, C = 16, 32
    x = lanes("f32", rng.integers(-600, 600, R * C) / 4.0).reshape(R, C)
    scale = lanes("f32", rng.choice([1.0, 0.5, 2.0, 0.1], R * 8)).reshape(R, 8)
    zero = lanes("f32", rng.integers(-10, 140, R * 8).astype(np.float64)).reshape(R, 8)
    for (vr, vc), pc in (((1, 29), 1), ((16, 1), 1), ((0, 5), 1), ((15, 29), 5), ((16, 32), 8)):
        for qt, ddt in (("INT8_SYM", "i8"), ("INT8_ASYM", "u8")):
            specs = [Spec("dst", ddt, R, C), Spec("src", "f32", R, C), Spec("fp", "f32", R, 8)]
            data = {"dst": sentinel(ddt, (R, C)), "src": x, "fp": scale}
            valid = {"dst": (vr, vc), "src": (vr, vc), "fp": (max(vr, 1), pc)}
            call = f"TQUANT<QuantType::{qt}>(dst, src, fp);"
            if qt == "INT8_ASYM":
                specs.append(Spec("offset", "f32", R, 8))
                data["offset"], valid["offset"] = zero, (max(vr, 1), pc)
                call = f"TQUANT<QuantType::{qt}>(dst, src, fp, &offset);"
            cases.append(Case("tquant", call, tuple(specs), valid, data, (), {"quant_type": qt}))
    for dt in ("f32", "f16"):
        per = 8 // get_dtype(dt).size
        dcols = aligned_cols(dt, 2 * 32 + 32 * per)
        src = lanes(dt, rng.integers(-3, 4, 4 * 64)).reshape(4, 64)
        idx = rng.permutation(1 << 16)[:256].astype(np.uint32).reshape(4, 64)
        for vr, vc in ((1, 32), (1, 5), (4, 1)):
            cases.append(Case("tsort32", "TSORT32(dst, src, idx);",
                              (Spec("dst", dt, 4, dcols), Spec("src", dt, 4, 64), Spec("idx", "u32", 4, 64)),
                              {"dst": (4, dcols), "src": (vr, vc), "idx": (vr, vc)},
                              {"dst": sentinel(dt, (4, dcols)), "src": src, "idx": idx}))
    for dt in ("f32", "i16", "u8"):
        per = 32 // get_dtype(dt).size
        Rd = max(16, per)
        a, b = (conversion_pool(rng, dt, Rd * 32).reshape(Rd, 32) for _ in range(2))
        for bl in ("col_major", "row_major"):
            specs = (Spec("dst", dt, Rd, 64, bl), Spec("src0", dt, Rd, 32, bl), Spec("src1", dt, Rd, 32, bl))
            for vr, c0, c1 in ((1, 13, 29), (15, 1, 0)):
                cases.append(Case("tconcat", "TCONCAT(dst, src0, src1);", specs,
                                  {"dst": (vr, c0 + c1), "src0": (vr, c0), "src1": (vr, c1)},
                                  {"dst": sentinel(dt, (Rd, 64)), "src0": a, "src1": b}))
    for dt in ("f32", "i16"):
        src = conversion_pool(rng, dt, 16 * 32).reshape(16, 32)
        k = rng.integers(-8, 16 * 32 + 8, (16, 32)).astype(np.int32)
        for bl, (vr, vc) in (("col_major", (13, 29)), ("row_major", (1, 29)), ("row_major", (13, 1))):
            specs = (Spec("dst", dt, 16, 32, bl), Spec("src", dt, 16, 32, bl), Spec("indices", "i32", 16, 32, bl),
                     Spec("tmp", dt, 16, 32, bl))
            cases.append(Case("tgather", "TGATHER(dst, src, indices, tmp);", specs,
                              {"dst": (vr, vc), "src": (16, 32), "indices": (vr, vc), "tmp": (16, 32)},
                              {"dst": sentinel(dt, (16, 32)), "src": src, "indices": k.view(np.uint32),
                               "tmp": scratch(dt, 16, 32)}))
    for dt in ("f32", "i16"):
        src = conversion_pool(rng, dt, 32 * 16).reshape(32, 16)
        for bl in ("col_major",):
            specs = (Spec("dst", dt, 32, 16, bl, pad="max"), Spec("src", dt, 32, 16, bl))
            for vr, vc in ((29, 13), (1, 16), (32, 1)):
                cases.append(Case("tfillpad", "TFILLPAD(dst, src);", specs, {"dst": (32, 16), "src": (vr, vc)},
                                  {"dst": sentinel(dt, (32, 16)), "src": src}))
    for dt, it in (("f32", "i32"), ("i16", "u16"), ("u8", "i8")):   # TCONCAT's indexed forms (PTO162)
        per, size = 32 // get_dtype(dt).size, get_dtype(it).size
        a, b = (conversion_pool(rng, dt, 8 * 2 * per).reshape(8, 2 * per) for _ in range(2))
        nbytes = np.stack([rng.integers(0, 2 * per * size + 1, 8), rng.integers(0, 2 * per * size + 1, 8)])
        nbytes[:, 0] = (0, 2 * per * size)                             # an empty row part and a full one
        idx = [np.zeros((8, 32 // size), get_dtype(it).lane) for _ in range(2)]
        for k in range(2):
            idx[k][:, 0] = nbytes[k]
        specs = (Spec("dst", dt, 8, 4 * per), Spec("src0", dt, 8, 2 * per), Spec("src1", dt, 8, 2 * per),
                 Spec("src0_idx", it, 8, 32 // size), Spec("src1_idx", it, 8, 32 // size))
        valid = {"dst": (7, per + 3), "src0": (7, per), "src1": (7, 3), "src0_idx": (7, 1), "src1_idx": (7, 1)}
        data = {"dst": sentinel(dt, (8, 4 * per)), "src0": a, "src1": b, "src0_idx": idx[0], "src1_idx": idx[1]}
        cases.append(Case("tconcat", "TCONCAT(dst, src0, src1, src0_idx, src1_idx);", specs, valid, data))
        cases.append(Case("tconcat", "TCONCAT(dst, src0, src1, dst_idx, src0_idx, src1_idx);",
                          specs + (Spec("dst_idx", it, 8, 32 // size),), dict(valid, dst_idx=(7, 1)),
                          dict(data, dst_idx=sentinel(it, (8, 32 // size)))))
    return cases
