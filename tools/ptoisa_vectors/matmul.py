from __future__ import annotations

import numpy as np

from .common import Case, FLOATS, FP4_TYPES, F_SPECIAL, Spec, conversion_pool, lanes, rand_lanes, sentinel
from .move import box


MATMUL_TYPES = (("f32", "f32"), ("f16", "f32"), ("i8", "i32"))  # (a/b, c); bf16: matmul_bf16_cases


def matmul_cases(rng) -> list[Case]:
    """TMATMUL, TMATMUL_ACC, TMATMUL_BIAS: Left (col_major/row_major boxes) x Right (row_major/col_major boxes)
    -> Acc (col_major/row_major, 1024-byte boxes), odd valid M, K, N; products that cancel, NaN and Inf."""
    cases = []
    M, K, N = 32, 64, 32
    for ab, c in MATMUL_TYPES:
        left = Spec("a", ab, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", ab, K, N, "row_major", "col_major", loc="right")
        acc = Spec("dst", c, M, N, "col_major", "row_major", loc="acc", fractal=1024)
        for vm, vk, vn in ((29, 61, 31), (32, 64, 32), (1, 1, 1)):
            if ab in FLOATS:
                a = lanes(ab, rng.integers(-8, 9, M * K) * 2.0 ** rng.integers(-6, 7, M * K)).reshape(M, K)
                b = lanes(ab, rng.standard_normal(K * N) * 2.0 ** rng.integers(-8, 9, K * N)).reshape(K, N)
                if vm == 29:
                    a[0, 3], b[5, 2] = lanes(ab, [np.inf])[0], F_SPECIAL[ab][6]
            else:
                a, b = rand_lanes(rng, ab, (M, K)), rand_lanes(rng, ab, (K, N))
            valid = {"dst": (vm, vn), "a": (vm, vk), "b": (vk, vn)}
            data = {"dst": sentinel(c, (M, N)), "a": a, "b": b}
            cases.append(Case("tmatmul", "TMATMUL(dst, a, b);", (acc, left, right), valid, data))
            c_in = Spec("c_in", c, M, N, "col_major", "row_major", loc="acc", fractal=1024)
            cin = conversion_pool(rng, c, M * N).reshape(M, N) if c == "i32" else \
                lanes(c, rng.standard_normal(M * N) * 64).reshape(M, N)
            cases.append(Case("tmatmul_acc", "TMATMUL_ACC(dst, c_in, a, b);", (acc, c_in, left, right),
                              dict(valid, c_in=(vm, vn)), dict(data, c_in=cin)))
            bias = Spec("bias", c, 1, N, loc="bias")
            cases.append(Case("tmatmul_bias", "TMATMUL_BIAS(dst, a, b, bias);", (acc, left, right, bias),
                              dict(valid, bias=(1, vn)), dict(data, bias=cin[:1].copy())))
    return cases


#: MX element formats the simulator's TMATMUL_MX takes: the fp8 pairs and fp4 E2M1 (its E1M2 has bias 1 there,
#: a format tilesim lacks: PTO76)
MX_PAIRS = (("f8e4m3", "f8e4m3"), ("f8e4m3", "f8e5m2"), ("f8e5m2", "f8e4m3"), ("f8e5m2", "f8e5m2"),
            ("f4e2m1", "f4e2m1"))


def _mx_elements(rng, dt: str, shape, kind: int) -> np.ndarray:
    """fp8 codes: small values (sums that cancel and tie), every code, or extremes (NaN/Inf codes, max, subnormals)."""
    n = int(np.prod(shape))
    if dt in FP4_TYPES:  # small magnitudes, every code, or the extremes +-6 and +-0.5 mixed in
        codes = rng.integers(0, 16, n) if kind == 1 else rng.choice([1, 2, 3, 9, 10, 11], n)
        if kind == 2:
            codes = np.where(rng.random(n) < 0.4, rng.choice([0x7, 0xF, 0x8, 0x1, 0x0], n), codes)
        return codes.astype(np.uint8).reshape(shape)
    codes = rng.integers(0, 256, n).astype(np.uint8)
    if kind == 0:  # exponents near the bias: small magnitudes whose sums cancel
        bias = 7 if dt == "f8e4m3" else 15
        mbits = 3 if dt == "f8e4m3" else 2
        e = rng.integers(bias - 2, bias + 3, n)
        codes = ((rng.integers(0, 2, n) << 7) | (e << mbits) | rng.integers(0, 1 << mbits, n)).astype(np.uint8)
    elif kind == 2:  # extremes
        ext = [0x7F, 0xFF, 0x7E, 0xFE, 0x00, 0x80, 0x01, 0x81, 0x7C, 0xFC, 0x7B, 0x03]
        codes = np.where(rng.random(n) < 0.4, rng.choice(ext, n), codes).astype(np.uint8)
    return codes.reshape(shape)


def _mx_scales(rng, shape, kind: int) -> np.ndarray:
    """E8M0 codes: near 127, or the extremes 0x00 (2**-127), 0xFF, 0xFE, 0x01 mixed in."""
    s = rng.integers(120, 135, shape).astype(np.uint8)
    if kind == 2:
        s = np.where(rng.random(shape) < 0.5, rng.choice([0x00, 0xFF, 0xFE, 0x01, 0x7F], shape), s).astype(np.uint8)
    elif kind == 1:
        s = rng.integers(0, 256, shape).astype(np.uint8)
    return s


def _mx_overload_cases(rng, pairs) -> list[Case]:
    """TMATMUL_MX, _ACC and _BIAS cases for each (a, b) element pair with E8M0 scales, four valid shapes."""
    cases = []
    M, K, N = 16, 128, 16
    G = K // 32
    for at, bt in pairs:
        left = Spec("a", at, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", bt, K, N, "row_major", "col_major", loc="right")
        acc = box("dst", "f32", M, N, "acc", loc="acc")
        sa = Spec("a_scale", "f8e8m0", M, G, "row_major", "row_major", loc="scaling", fractal=32, cxx_loc="ScaleLeft")
        sb = Spec("b_scale", "f8e8m0", G, N, "col_major", "col_major", loc="scaling", fractal=32,
                  cxx_loc="ScaleRight")
        for kind, (vm, vk, vn) in enumerate(((13, 93, 11), (16, 128, 16), (9, 64, 5), (1, 1, 1))):
            kind = min(kind, 2)
            a, b = _mx_elements(rng, at, (M, K), kind), _mx_elements(rng, bt, (K, N), kind)
            s0, s1 = _mx_scales(rng, (M, G), kind), _mx_scales(rng, (G, N), kind)
            gv = -(-vk // 32)
            valid = {"dst": (vm, vn), "a": (vm, vk), "a_scale": (vm, gv), "b": (vk, vn), "b_scale": (gv, vn)}
            data = {"dst": sentinel("f32", (M, N)), "a": a, "a_scale": s0, "b": b, "b_scale": s1}
            cases.append(Case("tmatmul_mx", "TMATMUL_MX(dst, a, a_scale, b, b_scale);", (sa, sb, acc, left, right),
                              valid, data))
            c_in = box("c_in", "f32", M, N, "acc", loc="acc")
            cin = lanes("f32", rng.standard_normal(M * N) * 64).reshape(M, N)
            if kind == 2:
                cin[0, :4] = lanes("f32", [np.nan, np.inf, -np.inf, -0.0])
            cases.append(Case("tmatmul_mx_acc", "TMATMUL_MX(dst, c_in, a, a_scale, b, b_scale);",
                              (sa, sb, acc, c_in, left, right), dict(valid, c_in=(vm, vn)), dict(data, c_in=cin)))
            bias = Spec("bias", "f32", 1, N, loc="bias")
            cases.append(Case("tmatmul_mx_bias", "TMATMUL_MX(dst, a, a_scale, b, b_scale, bias);",
                              (sa, sb, acc, left, right, bias), dict(valid, bias=(1, vn)),
                              dict(data, bias=cin[:1].copy())))
    return cases


def matmul_mx_cases(rng) -> list[Case]:
    """TMATMUL_MX in its three overloads (plain, with c_in, with a bias row): every fp8 pair, E8M0 scale tiles
    (ScaleLeft Zz and ScaleRight Nn boxes of 32 bytes), odd valid M, K, N; small codes, every code, extremes.
    The scale tiles come first: the driver places tiles one after another, and the simulator's scale
    regions (L0A_MX, L0B_MX) hold only 4 KB."""
    M, K, N = 16, 128, 16
    G = K // 32
    cases = _mx_overload_cases(rng, MX_PAIRS)
    for sdt in ("f16", "f32"):  # float scales: their product is rounded to the scale type, and may overflow
        at, bt = MX_PAIRS[1]
        left = Spec("a", at, M, K, "col_major", "row_major", loc="left")
        right = Spec("b", bt, K, N, "row_major", "col_major", loc="right")
        acc = box("dst", "f32", M, N, "acc", loc="acc")
        sa = Spec("a_scale", sdt, M, G, "row_major", "row_major", loc="scaling", fractal=32, cxx_loc="ScaleLeft")
        sb = Spec("b_scale", sdt, G, N, "col_major", "col_major", loc="scaling", fractal=32,
                  cxx_loc="ScaleRight")
        for kind, (vm, vk, vn) in ((0, (13, 93, 11)), (2, (16, 128, 16))):
            sc = [0.5, 1.5, 3.0, 0.1, -2.5, 300.0, 1000.0, 6e-5, 65504.0, 1 / 3]
            s0, s1 = (lanes(sdt, rng.choice(sc, shape) * (rng.standard_normal(shape) if sdt == "f32" else 1))
                      for shape in ((M, G), (G, N)))
            gv = -(-vk // 32)
            cases.append(Case("tmatmul_mx", "TMATMUL_MX(dst, a, a_scale, b, b_scale);", (sa, sb, acc, left, right),
                              {"dst": (vm, vn), "a": (vm, vk), "a_scale": (vm, gv), "b": (vk, vn), "b_scale": (gv, vn)},
                              {"dst": sentinel("f32", (M, N)), "a": _mx_elements(rng, at, (M, K), kind),
                               "a_scale": s0, "b": _mx_elements(rng, bt, (K, N), kind), "b_scale": s1}))
    return cases


#: the simulator's fp4 pairs with its E1M2 (bias 1; tilesim dtype ``f4e1m2``, PTO48)
MX_E1M2_PAIRS = (("f4e1m2", "f4e1m2"), ("f4e1m2", "f4e2m1"), ("f4e2m1", "f4e1m2"))


def matmul_mx_e1m2_cases(rng) -> list[Case]:
    """TMATMUL_MX, _ACC and _BIAS with E1M2 operands (with E1M2 or E2M1), as the E2M1 pair is covered."""
    return _mx_overload_cases(rng, MX_E1M2_PAIRS)
