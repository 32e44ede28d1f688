from __future__ import annotations

from tilesim.pto import get_dtype

from .common import (
    Case, DTS, ONLY, SCALAR_DECL, Spec, aligned_cols, lanes, near_pairs, pair_operands, rand_lanes, scalar_params,
    scratch, sentinel,
)
from .layout import EDGE_SHAPES, edge_shape, valid_only


CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")  # pto CmpMode 0..5
#: (src dtype, mask dtype) pairs tried for TCMP/TCMPS; data dtypes for TSEL/TSELS/TEXPANDS
CMP_PAIRS = [(d, "u32") for d in ("f32", "f16", "i32", "u32", "i16", "u16", "i8", "u8")] + \
    [(d, "u8") for d in ("f32", "f16", "i32", "i16", "u16")]
SEL_DTS = DTS


def compare_select_cases(rng) -> list[Case]:
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    for sdt, mdt in CMP_PAIRS:
        a, b = (x.reshape(R, C) for x in near_pairs(rng, sdt, R * C))
        words = -(-vc // get_dtype(mdt).bits)
        mcols = aligned_cols(mdt, words)
        src = lambda role: Spec(role, sdt, R, C)
        dst = Spec("dst", mdt, R, mcols)
        for mode in range(len(CMP_MODES)):
            cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);", (dst, src("src0"), src("src1")),
                              {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                              {"dst": sentinel(mdt, (R, mcols)), "src0": a, "src1": b}, (mode,),
                              {"cmp_mode": CMP_MODES[mode]}))
        # TCMPS with a scalar; the simulator packs bytes over the source's full width, so dst is as wide
        sdst = Spec("dst", mdt, R, C)
        call = ("typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                "TCMPS(dst, src, sc, (CmpMode)P[0]);")
        for k, code in enumerate([int(a[0, 3]), int(a[2, 5]), int(lanes(sdt, [1])[0])]):
            for mode in range(len(CMP_MODES)):
                dvalid = ((vr, -(-vc // 8)), (R, C), (3, 7))[(k + mode) % 3]
                cases.append(Case("tcmps", call, (sdst, src("src")), {"dst": dvalid, "src": (vr, vc)},
                                  {"dst": sentinel(mdt, (R, C)), "src": a}, (mode,) + scalar_params(sdt, code),
                                  {"cmp_mode": CMP_MODES[mode], "scalar": code}))
    for dt in SEL_DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        for mdt in ("u8", "u32"):
            mcols = aligned_cols(mdt, 8)
            mask = rand_lanes(rng, mdt, (R, mcols))
            mvalid = (R, 4)  # 64 mask elements: TSEL on cpu reads 8 bits of each, as one stream (PTO94)
            specs = (Spec("dst", dt, R, C), Spec("mask", mdt, R, mcols), Spec("src0", dt, R, C),
                     Spec("src1", dt, R, C), Spec("tmp", dt, R, C))
            cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);", specs,
                              {"dst": (vr, vc), "mask": mvalid, "src0": (vr, vc), "src1": (vr, vc), "tmp": (vr, vc)},
                              {"dst": sentinel(dt, (R, C)), "mask": mask, "src0": a, "src1": b,
                               "tmp": scratch(dt, R, C)}))
            specs = (Spec("dst", dt, R, C), Spec("mask", mdt, R, mcols), Spec("src", dt, R, C), Spec("tmp", dt, R, C))
            code = int(b[1, 1])
            cases.append(Case("tsels", SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);", specs,
                              {"dst": (vr, vc), "mask": (R, mcols), "src": (vr, vc), "tmp": (vr, vc)},
                              {"dst": sentinel(dt, (R, C)), "mask": mask, "src": a, "tmp": scratch(dt, R, C)},
                              (0,) + scalar_params(dt, code), {"scalar": code}))
        for code in (int(a[0, 0]), int(a[0, 6])):
            cases.append(Case("texpands", SCALAR_DECL + "TEXPANDS(dst, sc);", (Spec("dst", dt, R, C),),
                              {"dst": (vr, vc)}, {"dst": sentinel(dt, (R, C))}, (0,) + scalar_params(dt, code),
                              {"scalar": code}))
    return cases


#: the data dtypes of compare_select_layout_cases (bf16 only: clang's dtypes keep compare_select_cases' row-major)
CMP_LAYOUT_DTS = ONLY


def compare_select_layout_cases(rng) -> list[Case]:
    """TCMP/TCMPS/TSEL/TSELS with the data tiles DN, or boxed (row_major boxes in DN blocks, col_major boxes in
    ND blocks), odd valid shapes; the masks stay ND (u32 for TCMP, u32/u8 otherwise)."""
    cases = []
    R, C = 32, 32
    for dt in CMP_LAYOUT_DTS:
        for bl, sl in (("col_major", "none_box"), ("col_major", "row_major"), ("row_major", "col_major")):
            a, b = (x.reshape(R, C) for x in near_pairs(rng, dt, R * C))
            data = lambda role: Spec(role, dt, R, C, bl, sl)
            for vr, vc in ((29, 7), (1, 1), (R, C)):
                words = -(-vc // 32)
                dst = Spec("dst", "u32", R, aligned_cols("u32", words))
                for mode in range(len(CMP_MODES)):
                    cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);", (dst, data("src0"),
                                      data("src1")), {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                                      {"dst": sentinel("u32", (R, dst.cols)), "src0": a, "src1": b}, (mode,),
                                      {"cmp_mode": CMP_MODES[mode]}))
                for mdt in ("u32", "u8"):
                    code = int(a[vr // 2, vc // 2])
                    cases.append(Case("tcmps", SCALAR_DECL.replace("T_dst", "T_src") + "TCMPS(dst, src, sc, "
                                      "(CmpMode)P[0]);", (Spec("dst", mdt, R, C), data("src")),
                                      {"dst": (vr, -(-vc // 8)), "src": (vr, vc)},
                                      {"dst": sentinel(mdt, (R, C)), "src": a},
                                      (vr % len(CMP_MODES),) + scalar_params(dt, code),
                                      {"cmp_mode": CMP_MODES[vr % len(CMP_MODES)], "scalar": code}))
                    mcols = aligned_cols(mdt, 8)
                    mask = rand_lanes(rng, mdt, (R, mcols))
                    cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);",
                                      (data("dst"), Spec("mask", mdt, R, mcols), data("src0"), data("src1"),
                                       data("tmp")),
                                      {"dst": (vr, vc), "mask": (R, 4), "src0": (vr, vc), "src1": (vr, vc),
                                       "tmp": (vr, vc)},
                                      {"dst": sentinel(dt, (R, C)), "mask": mask, "src0": a, "src1": b,
                                       "tmp": scratch(dt, R, C)}))
                    code = int(b[1, 1])
                    cases.append(Case("tsels", SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);",
                                      (data("dst"), Spec("mask", mdt, R, mcols), data("src"), data("tmp")),
                                      {"dst": (vr, vc), "mask": (R, mcols), "src": (vr, vc), "tmp": (vr, vc)},
                                      {"dst": sentinel(dt, (R, C)), "mask": mask, "src": a,
                                       "tmp": scratch(dt, R, C)}, (0,) + scalar_params(dt, code), {"scalar": code}))
    return cases


def cmp_layout_cases(rng) -> list[Case]:
    """TCMP, TCMPS, TSEL, TSELS and TEXPANDS with DN (col_major) data tiles, and TEXPANDS over a 1-row, a
    1-column and an empty valid region: the compare family had row-major tiles only."""
    cases = []
    R, C, vr, vc = 32, 32, 29, 13
    for sdt in ("f32", "f16", "i32", "i16", "u8"):
        a, b = (valid_only(x.reshape(R, C), (vr, vc)) for x in near_pairs(rng, sdt, R * C))
        src = lambda role: Spec(role, sdt, R, C, "col_major")
        words = -(-vc // 8)
        for mode in (0, 2, 5):
            cases.append(Case("tcmp", "TCMP(dst, src0, src1, (CmpMode)P[0]);",
                              (Spec("dst", "u8", R, 32), src("src0"), src("src1")),
                              {"dst": (vr, words), "src0": (vr, vc), "src1": (vr, vc)},
                              {"dst": sentinel("u8", (R, 32)), "src0": a, "src1": b}, (mode,),
                              {"cmp_mode": CMP_MODES[mode]}))
            code = int(a[2, 5])
            cases.append(Case("tcmps", "typename T_src::DType sc; std::memcpy(&sc, P + 1, sizeof sc); "
                              "TCMPS(dst, src, sc, (CmpMode)P[0]);", (Spec("dst", "u8", R, C), src("src")),
                              {"dst": (vr, words), "src": (vr, vc)}, {"dst": sentinel("u8", (R, C)), "src": a},
                              (mode,) + scalar_params(sdt, code), {"cmp_mode": CMP_MODES[mode], "scalar": code}))
    for dt in ("f32", "f16", "i32", "i8", "u16", "i64"):
        per = 32 // get_dtype(dt).size
        Rd = max(R, per)
        a, b = (valid_only(x.reshape(Rd, C), (vr, vc)) for x in pair_operands(rng, dt, Rd * C))
        mask = rand_lanes(rng, "u8", (Rd, 32))
        dn = lambda role: Spec(role, dt, Rd, C, "col_major")
        cases.append(Case("tsel", "TSEL(dst, mask, src0, src1, tmp);",
                          (dn("dst"), Spec("mask", "u8", Rd, 32), dn("src0"), dn("src1"), dn("tmp")),
                          {"dst": (vr, vc), "mask": (vr, 32), "src0": (vr, vc), "src1": (vr, vc), "tmp": (vr, vc)},
                          {"dst": sentinel(dt, (Rd, C)), "mask": mask, "src0": a, "src1": b,
                           "tmp": scratch(dt, Rd, C)}))
        code = int(b[1, 1])
        cases.append(Case("tsels", SCALAR_DECL + "TSELS(dst, mask, src, tmp, sc);",
                          (dn("dst"), Spec("mask", "u8", Rd, 32), dn("src"), dn("tmp")),
                          {"dst": (vr, vc), "mask": (vr, 32), "src": (vr, vc), "tmp": (vr, vc)},
                          {"dst": sentinel(dt, (Rd, C)), "mask": mask, "src": a, "tmp": scratch(dt, Rd, C)},
                          (0,) + scalar_params(dt, code), {"scalar": code}))
        for k in range(len(EDGE_SHAPES)):
            bl, r, c, v = edge_shape(dt, k)
            code = int(a[0, k])
            cases.append(Case("texpands", SCALAR_DECL + "TEXPANDS(dst, sc);", (Spec("dst", dt, r, c, bl),),
                              {"dst": v}, {"dst": sentinel(dt, (r, c))}, (0,) + scalar_params(dt, code),
                              {"scalar": code}))
    return cases


#: TCMPS sources with a u8 mask beyond CMP_PAIRS' (the simulator's CmpCall has no dtype check; PTO121)
TCMPS_U8_MORE = ("i8", "u32", "u8")


def tcmps_u8_cases(rng) -> list[Case]:
    """TCMPS of i8, u32 and u8 sources into a u8 mask, every mode, three scalars (one equal to a source lane),
    as compare_select_cases does for the other pairs."""
    cases = []
    R, C, vr, vc = 16, 32, 15, 29
    call = SCALAR_DECL.replace("T_dst", "T_src") + "TCMPS(dst, src, sc, (CmpMode)P[0]);"
    for sdt in TCMPS_U8_MORE:
        a = near_pairs(rng, sdt, R * C)[0].reshape(R, C)
        for k, code in enumerate([int(a[0, 3]), int(a[2, 5]), int(lanes(sdt, [1])[0])]):
            for mode in range(len(CMP_MODES)):
                dvalid = ((vr, -(-vc // 8)), (R, C), (3, 7))[(k + mode) % 3]
                cases.append(Case("tcmps", call, (Spec("dst", "u8", R, C), Spec("src", sdt, R, C)),
                                  {"dst": dvalid, "src": (vr, vc)}, {"dst": sentinel("u8", (R, C)), "src": a},
                                  (mode,) + scalar_params(sdt, code), {"cmp_mode": CMP_MODES[mode], "scalar": code}))
    return cases
