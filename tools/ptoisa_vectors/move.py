from __future__ import annotations

import numpy as np

from .common import Case, Spec, conversion_pool, lanes, sentinel


def box(role, dt, rows, cols, kind, **kw) -> Spec:
    """A cube-side tile: ``nz`` (col_major blocks of row_major boxes: Mat, Left), ``zn`` (row_major blocks of
    col_major boxes: Right), ``acc`` (nz with 1024-byte boxes)."""
    bl, sl = {"nz": ("col_major", "row_major"), "zn": ("row_major", "col_major"),
              "acc": ("col_major", "row_major")}[kind]
    return Spec(role, dt, rows, cols, bl, sl, fractal=1024 if kind == "acc" else 512, **kw)


#: the 16-bit float of the move cases (Mat/Left/Right tiles, the Acc f32 -> 16-bit casts)
MOVE_HALF = "f16"


def move_cases(rng) -> list[Case]:
    """TMOV (vec layouts, Mat -> Left/Right, Acc -> Vec/Mat with f32 -> f16), TEXTRACT (Mat -> Left/Right at
    an offset, Acc -> Vec) and TINSERT (Vec/Acc -> Mat at an offset)."""
    cases = []
    R, C = 32, 64
    pool = {dt: conversion_pool(rng, dt, R * C).reshape(R, C) for dt in ("f32", MOVE_HALF, "i8", "i32")}
    movs = [(Spec("dst", "f32", R, C, "col_major"), Spec("src", "f32", R, C)),
            (Spec("dst", MOVE_HALF, R, C), Spec("src", MOVE_HALF, R, C)),
            (box("dst", MOVE_HALF, R, C, "nz", loc="left"), box("src", MOVE_HALF, R, C, "nz", loc="mat")),
            (box("dst", MOVE_HALF, R, C, "zn", loc="right"), box("src", MOVE_HALF, R, C, "zn", loc="mat")),
            (box("dst", "i8", R, C, "nz", loc="left"), box("src", "i8", R, C, "nz", loc="mat")),
            (Spec("dst", "f32", R, C), box("src", "f32", R, C, "acc", loc="acc")),
            (Spec("dst", MOVE_HALF, R, C), box("src", "f32", R, C, "acc", loc="acc")),
            (box("dst", MOVE_HALF, R, C, "nz", loc="mat"), box("src", "f32", R, C, "acc", loc="acc"))]
    for dst, src in movs:
        for v in ((R, C), (29, 48)):
            cases.append(Case("tmov", "TMOV(dst, src);", (dst, src), {"dst": v, "src": v},
                              {"dst": sentinel(dst.dtype, (R, C)), "src": pool[src.dtype]}))
    for dst, src in movs[2:4] + movs[5:7]:
        small = Spec(dst.role, dst.dtype, 16, 32, dst.blayout, dst.slayout, loc=dst.loc, fractal=dst.fractal)
        for r0, c0 in ((0, 0), (16, 32), (8, 16)):
            cases.append(Case("textract", "TEXTRACT(dst, src, (uint16_t)P[0], (uint16_t)P[1]);", (small, src),
                              {"dst": (16, 32), "src": (R, C)},
                              {"dst": sentinel(dst.dtype, (16, 32)), "src": pool[src.dtype]}, (r0, c0),
                              {"index_row": r0, "index_col": c0}))
    for dst, src in ((box("dst", MOVE_HALF, R, C, "nz", loc="mat"), Spec("src", MOVE_HALF, 16, 32)),
                     (box("dst", MOVE_HALF, R, C, "nz", loc="mat"), box("src", "f32", 16, 32, "acc", loc="acc"))):
        for r0, c0 in ((0, 0), (16, 32), (8, 16)):
            cases.append(Case("tinsert", "TINSERT(dst, src, (uint16_t)P[0], (uint16_t)P[1]);", (dst, src),
                              {"dst": (R, C), "src": (16, 32)},
                              {"dst": pool[MOVE_HALF], "src": pool[src.dtype][:16, :32].copy()}, (r0, c0),
                              {"index_row": r0, "index_col": c0}))
    return cases


# ---- fixpipe vector-quant moves and MX matmul (TEXTRACT_FP, TINSERT_FP, TMATMUL_MX)
#: (acc dtype, destination dtype) of the _FP forms: the six vector-quant modes of pto-isa
#: include/pto/cpu/common.hpp (``GetVectorPreQuantMode``), then pairs with no vector mode (plain casts there)
FP_PAIRS = (("f32", "i8"), ("f32", "u8"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"), ("i32", "i16"),
            ("f32", "f32"), ("f32", "f16"), ("i32", "i32"), ("i32", "f32"), ("f32", "i32"), ("f32", "i16"))


def quant_word_pool(rng, n: int) -> np.ndarray:
    """n vector-quant words (u64): the 19-bit scale at bits 13..31 (sign, 8-bit exponent, 10-bit mantissa) with
    exponents near 127 and at 0, 1, 254, 255; the 9-bit offset at 37..45; the sign bit 46; the shift at 32..35;
    random bits elsewhere (which the op must ignore)."""
    exp = np.where(rng.random(n) < 0.8, rng.integers(118, 136, n), rng.choice([0, 1, 254, 255], n))
    man = np.where(rng.random(n) < 0.5, 0, rng.integers(0, 1024, n))
    at = np.arange(0, n, 5)[:, None] + [0, 1, 2]  # every window of columns meets: 1.0, the zero scale, Inf
    man[at], exp[at] = 0, [127, 0, 255]
    m1 = (rng.integers(0, 2, n) << 18) | (exp << 10) | man
    m1[at[:, :2]] &= (1 << 18) - 1
    noise = rng.integers(0, 1 << 63, n, dtype=np.uint64) & np.uint64(~((0x7FFFF << 13) | (0x7FFF << 32)) & (2**64 - 1))
    fields = (m1.astype(np.uint64) << np.uint64(13)) | (rng.integers(0, 16, n).astype(np.uint64) << np.uint64(32)) \
        | (np.where(rng.random(n) < 0.5, 0, rng.integers(0, 512, n)).astype(np.uint64) << np.uint64(37)) \
        | (rng.integers(0, 2, n).astype(np.uint64) << np.uint64(46))
    return fields | noise


def _fp_source(rng, dt: str, n: int) -> np.ndarray:
    """Accumulator lanes: f32 specials, ties and range edges; i32 edges, small values and random codes."""
    if dt == "f32":
        return conversion_pool(rng, dt, n)
    small = lanes(dt, rng.integers(-300, 300, n))
    return np.where(rng.random(n) < 0.5, small, conversion_pool(rng, dt, n)).astype(small.dtype)


def fp_move_cases(rng) -> list[Case]:
    """TEXTRACT_FP (Acc -> Vec, Acc -> Mat Nz, a window at an offset) and TINSERT_FP (Acc -> Mat Nz / Vec at an
    offset) with a Scaling tile of u64 quant words, each dtype pair, with and without ReLU."""
    cases = []
    R, C, r, c = 32, 64, 16, 32
    for sdt, ddt in FP_PAIRS:
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = quant_word_pool(rng, C)
        fp = Spec("fp", "u64", 1, C, loc="scaling")
        for relu in (0, 1):
            tmpl = ("{op}<T_dst, T_src, T_fp, ReluPreMode::" + ("NormalRelu" if relu else "NoRelu")
                    + ">(dst, src, fp, (uint16_t)P[0], (uint16_t)P[1]);")
            acc = box("src", sdt, R, C, "acc", loc="acc")
            for dst, (r0, c0), v in ((Spec("dst", ddt, r, c), (3, 5), (13, 29)),
                                     (box("dst", ddt, r, c, "nz", loc="mat"), (15, 16), (16, 32))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                cases.append(Case("textract_fp", tmpl.format(op="TEXTRACT_FP"), (dst, acc, fp),
                                  {"dst": v, "src": (R - 1, C - 3), "fp": (1, C)},
                                  {"dst": sentinel(ddt, (r, c)), "src": src_big, "fp": words[None, :]}, (r0, c0),
                                  {"index_row": r0, "index_col": c0, "relu_pre_mode": bool(relu)}))
            small = box("src", sdt, r, c, "acc", loc="acc")
            for dst, (r0, c0), v in ((box("dst", ddt, R, C, "nz", loc="mat"), (16, 32), (16, 32)),
                                     (Spec("dst", ddt, R, C), (3, 30), (13, 29))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                cases.append(Case("tinsert_fp", tmpl.format(op="TINSERT_FP"), (dst, small, fp),
                                  {"dst": (R, C), "src": v, "fp": (1, c)},
                                  {"dst": sentinel(ddt, (R, C)), "src": src_big[:r, :c].copy(),
                                   "fp": words[None, :]}, (r0, c0),
                                  {"index_row": r0, "index_col": c0, "relu_pre_mode": bool(relu)}))
    # fp tiles of other dtypes: the simulator converts each element to uint64 by value (i64 and u32 as bits;
    # f32 holding the scale field only, whole numbers below 2**32, exact in float)
    for sdt, ddt in (("f32", "u8"), ("i32", "f16")):
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = quant_word_pool(rng, C)
        for fdt in ("i64", "u32", "f32"):
            if fdt == "i64":
                fwords = words.view(np.uint64)
            elif fdt == "u32":
                fwords = (words & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            else:
                fwords = lanes("f32", (words & np.uint64(0xFFFFE000)).astype(np.float64))
            fp = Spec("fp", fdt, 1, C, loc="scaling")
            call = "TEXTRACT_FP<T_dst, T_src, T_fp, ReluPreMode::NoRelu>(dst, src, fp, (uint16_t)P[0], (uint16_t)P[1]);"
            cases.append(Case("textract_fp", call, (Spec("dst", ddt, r, c), box("src", sdt, R, C, "acc", loc="acc"),
                                                    fp),
                              {"dst": (13, 29), "src": (R - 1, C - 3), "fp": (1, C)},
                              {"dst": sentinel(ddt, (r, c)), "src": src_big, "fp": fwords[None, :]}, (3, 5),
                              {"index_row": 3, "index_col": 5, "relu_pre_mode": False}))
    return cases


def tmov_fp_cases(rng) -> list[Case]:
    """TMOV_FP (Acc -> Vec, Acc -> Mat Nz) with a Scaling tile of quant words, each dtype pair of
    :data:`FP_PAIRS`, with and without ReLU: TEXTRACT_FP at (0, 0) in the simulator."""
    cases = []
    R, C = 32, 64
    for sdt, ddt in FP_PAIRS:
        src = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = quant_word_pool(rng, C)
        for relu in (0, 1):
            call = f"TMOV_FP<T_dst, T_src, T_fp, ReluPreMode::{'NormalRelu' if relu else 'NoRelu'}>(dst, src, fp);"
            for dst in (Spec("dst", ddt, R, C), box("dst", ddt, R, C, "nz", loc="mat")):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                cases.append(Case("tmov_fp", call, (dst, box("src", sdt, R, C, "acc", loc="acc"),
                                                    Spec("fp", "u64", 1, C, loc="scaling")),
                                  {"dst": (29, 61), "src": (29, 61), "fp": (1, C)},
                                  {"dst": sentinel(ddt, (R, C)), "src": src, "fp": words[None, :]}, (),
                                  {"relu_pre_mode": bool(relu)}))
    return cases


# ---- scalar pre-quant forms (TMOV, TEXTRACT, TINSERT with a 64-bit quant word)
#: (acc dtype, destination dtype): the scalar-quant modes of pto-isa include/pto/cpu/common.hpp
#: (``GetScalarPreQuantMode``; bf16 left out, PTO88), then pairs with none (plain casts there)
SCALAR_QUANT_PAIRS = (("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"),
                      ("i32", "i16"), ("f32", "f32"), ("i32", "i32"), ("i32", "f32"), ("f32", "i32"))
#: the 64-bit scalar from two int32 params (low word first)
_SCALAR_WORD = "((uint64_t)(uint32_t)P[1] << 32 | (uint32_t)P[0])"


def scalar_word_pool(rng, n: int) -> np.ndarray:
    """n scalar quant words (u64): an f32 scale in bits 0..31 (1.0, 0.5, +-0, +-Inf, NaN, a subnormal, odd
    values), the shift at 32..35, the 9-bit offset at 37..45, the sign bit 46, random bits elsewhere."""
    scales = lanes("f32", [1.0, 0.5, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 1 / 3, -2.0, 255.5, 1e30, 0.0625,
                           -0.75, 3.0, 65504.0])
    low = rng.choice(scales, n).astype(np.uint64)
    fields = low | (rng.integers(0, 16, n).astype(np.uint64) << np.uint64(32)) \
        | (np.where(rng.random(n) < 0.5, 0, rng.integers(0, 512, n)).astype(np.uint64) << np.uint64(37)) \
        | (rng.integers(0, 2, n).astype(np.uint64) << np.uint64(46))
    noise = rng.integers(0, 1 << 63, n, dtype=np.uint64) & np.uint64(~(0x7FFF << 32) & (2**64 - 1) & ~0xFFFFFFFF)
    return fields | noise


def _word_params(w) -> tuple[int, int]:
    lo, hi = int(w) & 0xFFFFFFFF, int(w) >> 32
    return tuple(int(np.uint32(x).view(np.int32)) for x in (lo, hi))


def scalar_quant_cases(rng) -> list[Case]:
    """TMOV, TEXTRACT and TINSERT with a pre-quant scalar, each dtype pair, with and without ReLU. The
    simulator's TMOV ignores the scalar; TEXTRACT/TINSERT quantise with it. Windows keep the columns within
    the quant vector the simulator fills (dst's valid columns from index_col 0; src's valid rows)."""
    cases = []
    R, C, r, c = 32, 64, 16, 32
    for sdt, ddt in SCALAR_QUANT_PAIRS:
        src_big = _fp_source(rng, sdt, R * C).reshape(R, C)
        words = scalar_word_pool(rng, 10)
        for relu in (0, 1):
            mode = "NormalRelu" if relu else "NoRelu"
            acc = box("src", sdt, R, C, "acc", loc="acc")
            call = f"TMOV<T_dst, T_src, ReluPreMode::{mode}>(dst, src, {_SCALAR_WORD});"
            w = words[relu]
            cases.append(Case("tmov", call, (Spec("dst", ddt, R, C), acc), {"dst": (29, 61), "src": (29, 61)},
                              {"dst": sentinel(ddt, (R, C)), "src": src_big}, _word_params(w),
                              {"pre_quant_scalar": int(w), "relu_pre_mode": bool(relu)}))
            tmpl = ("{op}<T_dst, T_src, ReluPreMode::" + mode + ">(dst, src, " + _SCALAR_WORD
                    + ", (uint16_t)P[2], (uint16_t)P[3]);")
            for k, (dst, (r0, c0), v) in enumerate(((Spec("dst", ddt, r, c), (3, 0), (13, 29)),
                                                    (box("dst", ddt, r, c, "nz", loc="mat"), (15, 0), (16, 32)))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                w = words[2 + 2 * relu + k]
                cases.append(Case("textract", tmpl.format(op="TEXTRACT"), (dst, acc),
                                  {"dst": v, "src": (R - 1, C - 3)},
                                  {"dst": sentinel(ddt, (r, c)), "src": src_big}, _word_params(w) + (r0, c0),
                                  {"index_row": r0, "index_col": c0, "pre_quant_scalar": int(w),
                                   "relu_pre_mode": bool(relu)}))
            small = box("src", sdt, R, R, "acc", loc="acc")
            for k, (dst, (r0, c0), v) in enumerate(((box("dst", ddt, R, C, "nz", loc="mat"), (0, 32), (32, 32)),
                                                    (Spec("dst", ddt, R, C), (3, 30), (29, 27)))):
                if dst.loc == "mat" and ddt in ("f32", "i32"):
                    continue
                w = words[6 + 2 * relu + k]
                cases.append(Case("tinsert", tmpl.format(op="TINSERT"), (dst, small),
                                  {"dst": (R, C), "src": v},
                                  {"dst": sentinel(ddt, (R, C)), "src": src_big[:R, :R].copy()},
                                  _word_params(w) + (r0, c0),
                                  {"index_row": r0, "index_col": c0, "pre_quant_scalar": int(w),
                                   "relu_pre_mode": bool(relu)}))
    return cases
