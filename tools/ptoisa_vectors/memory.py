from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import CXX_TYPE, Case, Spec, conversion_pool, sentinel


MEMORY_DTS = ("f32", "f16", "i8", "i64", "u16")
PREFETCH_DTS = (("f32", 32), ("f16", 48), ("i8", 64))  # (dtype, global columns)


def memory_cases(rng) -> list[Case]:
    """TLOAD and TSTORE between a 2-D global array (a window at an offset, row stride the array's width) and
    vec tiles, ND and DN, every element size."""
    cases = []
    GR, GC = 40, 48
    for dt in MEMORY_DTS:
        g = conversion_pool(rng, dt, GR * GC).reshape(GR, GC)
        t = conversion_pool(rng, dt, 32 * 64).reshape(32, 64)
        for bl, (wr, wc), (r0, c0) in (("row_major", (29, 37), (3, 5)), ("row_major", (32, 48), (0, 0)),
                                        ("col_major", (13, 7), (20, 40))):
            glob = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> "
                    f"g({{gm}}.data() + {r0 * GC + c0});")
            tile = Spec("dst", dt, 32, 64, bl) if bl == "row_major" else Spec("dst", dt, 64, 32, bl)
            gm = Spec("gm", dt, GR, GC, loc="gm")
            cases.append(Case("tload", glob.format(gm="gm") + " TLOAD(dst, g);", (tile, gm),
                              {"dst": (wr, wc), "gm": (wr, wc)},
                              {"dst": sentinel(dt, (tile.rows, tile.cols)), "gm": g}, (), {"offset": [r0, c0]}))
            src = Spec("src", dt, tile.rows, tile.cols, bl)
            cases.append(Case("tstore", glob.format(gm="dst_gm") + " TSTORE(g, src);",
                              (Spec("dst_gm", dt, GR, GC, loc="gm"), src), {"dst_gm": (wr, wc), "src": (wr, wc)},
                              {"dst_gm": g, "src": t if bl == "row_major" else t.reshape(64, 32)}, (),
                              {"offset": [r0, c0]}))
    for dt, gc in PREFETCH_DTS:
        g = conversion_pool(rng, dt, 16 * gc).reshape(16, gc)
        call = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, 16, {gc}>, Stride<1, 1, 1, {gc}, 1>> g(gm.data()); "
                "TPREFETCH(dst, g);")
        cases.append(Case("tprefetch", call, (Spec("dst", dt, 16, 32), Spec("gm", dt, 16, gc, loc="gm")),
                          {"dst": (13, 29), "gm": (16, gc)}, {"dst": sentinel(dt, (16, 32)), "gm": g}))
    g = conversion_pool(rng, "f32", GR * GC).reshape(GR, GC)
    for bl, sl in (("row_major", "col_major"), ("row_major", "row_major"), ("col_major", "col_major")):
        tile = Spec("dst", "f32", 32, 32, bl, sl)    # Zn, Zz, Nn: cpu loads every vec layout (PTO160)
        glob = f"GlobalTensor<float, Shape<1, 1, 1, 21, 19>, Stride<1, 1, 1, {GC}, 1>> g(gm.data() + {2 * GC + 7});"
        cases.append(Case("tload", glob + " TLOAD(dst, g);", (tile, Spec("gm", "f32", GR, GC, loc="gm")),
                          {"dst": (21, 19), "gm": (21, 19)}, {"dst": sentinel("f32", (32, 32)), "gm": g}, (),
                          {"offset": [2, 7]}))
    for dt, bl in (("f32", "row_major"), ("i16", "col_major")):        # TPREFETCH from a tile (PTO163)
        per = 32 // get_dtype(dt).size
        src = conversion_pool(rng, dt, 16 * per).reshape(16, per)
        cases.append(Case("tprefetch", "TPREFETCH(dst, gm);", (Spec("dst", dt, 16, per), Spec("gm", dt, 16, per, bl)),
                          {"dst": (13, per - 3), "gm": (16, per)}, {"dst": sentinel(dt, (16, per)), "gm": src}))
    for dt, tile in (("f8e4m3", Spec("dst", "f8e4m3", 32, 64)),                 # fp8 codes on cpu (PTO164)
                     ("f8e5m2", Spec("dst", "f8e5m2", 32, 64, "col_major", "row_major", loc="mat"))):
        g8 = rng.integers(0, 256, (GR, GC)).astype(np.uint8)
        glob = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, 29, 37>, Stride<1, 1, 1, {GC}, 1>> "
                f"g(gm.data() + {GC + 3});")
        cases.append(Case("tload", glob + " TLOAD(dst, g);", (tile, Spec("gm", dt, GR, GC, loc="gm")),
                          {"dst": (29, 37), "gm": (29, 37)}, {"dst": sentinel(dt, (tile.rows, tile.cols)), "gm": g8},
                          (), {"offset": [1, 3]}))
    for tile, (wr, wc) in ((Spec("dst", "f32", 1, 64, loc="bias"), (1, 40)),     # cpu loads every loc (PTO161)
                           (Spec("dst", "f32", 16, 16, "row_major", "row_major", loc="left"), (9, 13))):
        glob = f"GlobalTensor<float, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> g(gm.data() + {3 * GC + 1});"
        cases.append(Case("tload", glob + " TLOAD(dst, g);", (tile, Spec("gm", "f32", GR, GC, loc="gm")),
                          {"dst": (wr, wc), "gm": (wr, wc)}, {"dst": sentinel("f32", (tile.rows, tile.cols)),
                                                               "gm": g}, (), {"offset": [3, 1]}))
    return cases


#: TSTORE's fixpipe forms: (src dtype, global dtype) with a pre-quant scalar (the scalar modes and pairs with
#: none, a plain C++ cast), with the fp tile (the vector modes), and ReLU alone (no quant word)
STORE_SCALAR_PAIRS = (("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"),
                      ("i32", "i16"), ("f32", "i32"), ("i32", "f32"))
STORE_FP_PAIRS = (("f32", "i8"), ("f32", "u8"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"), ("i32", "i16"))
STORE_RELU_PAIRS = (("f32", "f32"), ("f32", "f16"), ("i32", "i32"), ("i32", "f16"), ("f16", "f16"))


def store_fixpipe_cases(rng) -> list[Case]:
    """TSTORE with ReLU, a pre-quant scalar or (TSTORE_FP) a Scaling tile of quant words, from acc tiles (the
    simulator reads their quant words by row, PTO150) and row-major vec tiles (by column), into a window of a
    global array of the destination dtype; one AtomicAdd form."""
    from .move import _SCALAR_WORD, _fp_source, _word_params, box, quant_word_pool, scalar_word_pool

    cases = []
    R, C, GR, GC, (r0, c0), (wr, wc) = 32, 64, 40, 72, (3, 5), (29, 61)

    def glob(ddt):
        return (f"GlobalTensor<{CXX_TYPE[ddt]}, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> "
                f"g(dst_gm.data() + {r0 * GC + c0}); ")

    def add(sdt, ddt, src, call, extra=(), params=(), args=None):
        gm = Spec("dst_gm", ddt, GR, GC, loc="gm")
        specs = (gm, src, *extra)
        data = {"dst_gm": conversion_pool(rng, ddt, GR * GC).reshape(GR, GC),
                "src": _fp_source(rng, sdt, R * C).reshape(R, C) if sdt in ("f32", "i32")
                else conversion_pool(rng, sdt, R * C).reshape(R, C)}
        valid = {"dst_gm": (wr, wc), "src": (wr, wc)}
        if extra:
            data["fp"], valid["fp"] = quant_word_pool(rng, C).reshape(1, C), (1, C)
        cases.append(Case("tstore_fp" if extra else "tstore", glob(ddt) + call, specs, valid, data, params,
                          {"offset": [r0, c0], **(args or {})}))

    for relu in (0, 1):
        mode = f"ReluPreMode::{'NormalRelu' if relu else 'NoRelu'}"
        for k, (sdt, ddt) in enumerate(STORE_SCALAR_PAIRS):
            src = box("src", sdt, R, C, "acc", loc="acc") if k % 2 == 0 else Spec("src", sdt, R, C)
            w = scalar_word_pool(rng, 1)[0]
            add(sdt, ddt, src, f"TSTORE<T_src, decltype(g), AtomicType::AtomicNone, {mode}>(g, src, {_SCALAR_WORD});",
                params=_word_params(w), args={"pre_quant_scalar": int(w), "relu_pre_mode": bool(relu)})
        for sdt, ddt in STORE_FP_PAIRS:
            for src in (box("src", sdt, R, C, "acc", loc="acc"), Spec("src", sdt, R, C)):
                add(sdt, ddt, src, f"TSTORE_FP<T_src, decltype(g), T_fp, AtomicType::AtomicNone, {mode}>(g, src, fp);",
                    extra=(Spec("fp", "u64", 1, C, loc="scaling"),), args={"relu_pre_mode": bool(relu)})
    for sdt, ddt in STORE_RELU_PAIRS:
        src = box("src", sdt, R, C, "acc", loc="acc") if sdt != "f16" else Spec("src", sdt, R, C)
        add(sdt, ddt, src, "TSTORE<T_src, decltype(g), AtomicType::AtomicNone, ReluPreMode::NormalRelu>(g, src);",
            args={"relu_pre_mode": True})
    add("i32", "i32", box("src", "i32", R, C, "acc", loc="acc"),
        "TSTORE<T_src, decltype(g), AtomicType::AtomicAdd, ReluPreMode::NormalRelu>(g, src);",
        args={"relu_pre_mode": True, "atomic": "add"})
    return cases


def packed_memory_cases(rng) -> list[Case]:
    """TLOAD and TSTORE of fp4 tiles (two codes a byte in the simulator's tiles and global tensors) through a
    byte array: windows at element offsets whose row starts fall on whole bytes, odd widths (PTO153)."""
    cases = []
    GR, GB = 12, 40                                        # 12 rows of 80 codes
    for dt in ("f4e2m1", "f4e1m2"):
        g = rng.integers(0, 256, (GR, GB), dtype=np.uint8)
        t = rng.integers(0, 16, (8, 64), dtype=np.uint8)
        for (wr, wc), (r0, c0) in (((7, 61), (3, 6)), ((8, 64), (0, 0)), ((5, 33), (4, 40))):
            glob = (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {2 * GB}, 1>> "
                    f"g(reinterpret_cast<{CXX_TYPE[dt]}*>({{gm}}.data()) + {(r0 * 2 * GB + c0) // 2});")
            cases.append(Case("tload", glob.format(gm="gm") + " TLOAD(dst, g);",
                              (Spec("dst", dt, 8, 64), Spec("gm", "u8", GR, GB, loc="gm")),
                              {"dst": (wr, wc), "gm": (wr, wc)}, {"dst": sentinel(dt, (8, 64)) & 0xF, "gm": g}, (),
                              {"offset": [r0, c0]}))
            cases.append(Case("tstore", glob.format(gm="dst_gm") + " TSTORE(g, src);",
                              (Spec("dst_gm", "u8", GR, GB, loc="gm"), Spec("src", dt, 8, 64)),
                              {"dst_gm": (wr, wc), "src": (wr, wc)}, {"dst_gm": g, "src": t}, (),
                              {"offset": [r0, c0]}))
    return cases


def scale_move_cases(rng) -> list[Case]:
    """tmatmul_mx_nddn's scale path: TLOAD of E8M0 codes from a plain ND window into Zz (A's) and Nn (B's)
    32-byte-box mat tiles, and TMOV of such a mat tile into a ScaleLeft / ScaleRight tile whose valid shape
    is larger than src's (on ``cpu`` the simulator copies src's valid region, PTO181)."""
    cases = []
    GR, GC = 56, 72
    zz, nn = ("row_major", "row_major"), ("col_major", "col_major")
    for (bl, sl), (R, C), (wr, wc), (r0, c0) in ((zz, (48, 4), (45, 3), (2, 5)), (zz, (16, 2), (1, 1), (0, 0)),
                                                 (nn, (64, 64), (3, 61), (7, 1)), (nn, (128, 64), (8, 64), (0, 8))):
        g = rng.integers(0, 256, (GR, GC)).astype(np.uint8)
        tile = Spec("dst", "f8e8m0", R, C, bl, sl, loc="mat", fractal=32)
        glob = (f"GlobalTensor<float8_e8m0_t, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> "
                f"g(gm.data() + {r0 * GC + c0});")
        cases.append(Case("tload", glob + " TLOAD(dst, g);", (tile, Spec("gm", "f8e8m0", GR, GC, loc="gm")),
                          {"dst": (wr, wc), "gm": (wr, wc)}, {"dst": sentinel("f8e8m0", (R, C)), "gm": g}, (),
                          {"offset": [r0, c0]}))
    for (bl, sl), src_shape, dst_shape, (vr, vc), dst_valid, cxx in (
            (zz, (48, 4), (48, 4), (45, 3), (45, 4), "ScaleLeft"), (zz, (16, 2), (16, 2), (1, 1), (1, 2), "ScaleLeft"),
            (nn, (64, 64), (4, 64), (3, 61), (4, 61), "ScaleRight"), (nn, (2, 64), (2, 64), (1, 30), (2, 30),
                                                                       "ScaleRight")):
        src = Spec("src", "f8e8m0", *src_shape, bl, sl, loc="mat", fractal=32)
        dst = Spec("dst", "f8e8m0", *dst_shape, bl, sl, loc="scaling", fractal=32, cxx_loc=cxx)
        cases.append(Case("tmov", "TMOV(dst, src);", (dst, src), {"dst": dst_valid, "src": (vr, vc)},
                          {"dst": sentinel("f8e8m0", dst_shape),
                           "src": rng.integers(0, 256, src_shape).astype(np.uint8)}))
    return cases
