"""Hand-derived MMACC results: the overflow facts, signed zeros, the models, every format family.

Expected codes are worked out from the format definitions and the decisions
in the comments, not taken from the implementation.
"""

import numpy as np
import pytest

from tilesim.ame import Core, mxcfg, mxtile

MODELS = ("fused", "sequential", "chain_then_add")


def mac(ft, a, b, c=None, *, bovf=0, sat=0, rnd="rne", model="fused", acc=None, imm=None, transposed=True,
        codes=False):
    """One 1x1 MMACC on row-major A (M x K), B; returns the result codes and the status flags.

    ``c`` (values of the accumulator format, M x M) is accumulated (beta=0); without it, beta=1.
    """
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    core = Core(accumulation=model)
    core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf, rnd=rnd, sat=sat))
    core.csrw("mxtile", mxtile(k=a.shape[1], m=a.shape[0], tiling="1x1"))
    if codes:
        core.write_codes(0, a, ft)
        core.write_codes(1, b, ft)
    else:
        core.write_tile(0, a, ft)
        core.write_tile(1, b, ft)
    m = a.shape[0]
    if c is not None:
        core.write_matrix(2, np.atleast_2d(c), acc)
    beta = 0 if c is not None else 1
    ex = (core.mmacc_t if transposed else core.mmacc)(2, 0, 1, beta if imm is None else imm)
    return core.read_codes(2, ex.plan.acc, (m, m)), core.status


# ------------------------------------------------------------ 448^2 overflows FP16
@pytest.mark.parametrize("rnd,pos,neg", [("rne", 0x7C00, 0xFC00), ("rup", 0x7C00, 0xFBFF),
                                         ("rdn", 0x7BFF, 0xFC00), ("rtz", 0x7BFF, 0xFBFF)])
@pytest.mark.parametrize("sat", [0, 1])
def test_448_squared_overflows_fp16(rnd, pos, neg, sat):
    # 448 * 448 = 200704 > 65504: Inf, or the largest finite value where the mode rounds toward it
    # (IEEE 754 7.4, F4). FP16 has Inf, so SAT does not apply (AME decisions).
    got, st = mac("fp8_e4m3", [[448.0]], [[448.0]], sat=sat, rnd=rnd)
    assert int(got[0, 0]) == pos and st["inexact"] and not st["sat_hit"]
    got, _ = mac("fp8_e4m3", [[448.0]], [[-448.0]], sat=sat, rnd=rnd)
    assert int(got[0, 0]) == neg


# ------------------------------------------------------------ two (-128)^2 overflow INT16
def test_two_min_int8_squares_overflow_int16():
    a = [[-128, -128]]
    got, st = mac("int8", a, a)  # 2 * 16384 = 32768: wraps (bOVF=0, SAT=0) to -32768
    assert int(got[0, 0]) == 0x8000 and not st["sat_hit"] and not st["inexact"]
    got, st = mac("int8", a, a, sat=1)  # saturates to 32767
    assert int(got[0, 0]) == 0x7FFF and st["sat_hit"]
    got, st = mac("int8", [[-128]], [[-128]], sat=1)  # one product fits
    assert int(got[0, 0]) == 0x4000 and not st["sat_hit"]


def test_int8_to_int8_wraps_even_with_sat():
    # bOVF=1: 16384 mod 256 = 0; SAT applies only when bOVF=0
    got, st = mac("int8", [[-128]], [[-128]], bovf=1, sat=1)
    assert int(got[0, 0]) == 0 and not st["sat_hit"]
    got, _ = mac("int8", [[100, 100]], [[2, 1]], bovf=1)  # 300 mod 256 = 44
    assert int(got[0, 0]) == 44


def test_k16_int8_extremes():
    a = np.full((1, 16), -128)
    assert int(mac("int8", a, a)[0][0, 0]) == 0  # 16 * 16384 = 262144 = 4 * 65536 wraps to 0
    assert int(mac("int8", a, a, sat=1)[0][0, 0]) == 0x7FFF


# ------------------------------------------------------------ signed zeros
@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("rnd", ["rne", "rup", "rdn", "rtz"])
def test_signed_zeros(model, rnd):
    minus = 0x8000
    # (-0) * 1 + (-0): every term is -0, so -0 in every mode; but chain_then_add starts its
    # chain from +0, and +0 + -0 is +0 unless rounding toward -inf
    got, _ = mac("fp8_e4m3", [[-0.0]], [[1.0]], [[-0.0]], acc="fp16", rnd=rnd, model=model)
    assert int(got[0, 0]) == (minus if model != "chain_then_add" or rnd == "rdn" else 0)
    # (-0) * 1 + (+0): +0, except -0 when rounding toward -inf
    got, _ = mac("fp8_e4m3", [[-0.0]], [[1.0]], [[0.0]], acc="fp16", rnd=rnd, model=model)
    assert int(got[0, 0]) == (minus if rnd == "rdn" else 0)
    # 1*2 + 1*(-2) + 0 cancels exactly: +0, or -0 toward -inf
    got, st = mac("fp8_e4m3", [[1.0, 1.0]], [[2.0, -2.0]], [[0.0]], acc="fp16", rnd=rnd, model=model)
    assert int(got[0, 0]) == (minus if rnd == "rdn" else 0) and not st["inexact"]
    # beta=1 starts from +0: (-0) * 1 gives +0, or -0 toward -inf
    got, _ = mac("fp8_e4m3", [[-0.0]], [[1.0]], rnd=rnd, model=model)
    assert int(got[0, 0]) == (minus if rnd == "rdn" else 0)


# ------------------------------------------------------------ the accumulation models
@pytest.mark.parametrize("model,want", [("fused", 0x6801), ("sequential", 0x6800), ("chain_then_add", 0x6801)])
def test_models_2048(model, want):
    # C = 2048, products 1 and 1. FP16 spacing at 2048 is 2. fused: 2050 exact.
    # sequential: 2049 ties to 2048 (even), twice. chain: 1 + 1 = 2, then 2048 + 2 = 2050.
    got, st = mac("fp8_e4m3", [[1.0, 1.0]], [[1.0, 1.0]], [[2048.0]], acc="fp16", model=model)
    assert int(got[0, 0]) == want and st["inexact"] == (model == "sequential")


@pytest.mark.parametrize("model,want", [("fused", 0x6401), ("sequential", 0x6400), ("chain_then_add", 0x6401)])
def test_models_1024_c(model, want):
    # C = 1024, products 0.5 and 0.5 (spacing 1 at 1024): fused 1025; sequential 1024.5 -> 1024 twice;
    # chain: 0.5 + 0.5 = 1, then 1024 + 1 = 1025.
    got, _ = mac("fp8_e4m3", [[1.0, 1.0]], [[0.5, 0.5]], [[1024.0]], acc="fp16", model=model)
    assert int(got[0, 0]) == want


@pytest.mark.parametrize("model,want", [("fused", 0x6401), ("sequential", 0x6400), ("chain_then_add", 0x6400)])
def test_models_1024_products(model, want):
    # beta=1, products 32*32 = 1024, 0.5, 0.5: fused 1025; the chains tie back to 1024 twice
    got, _ = mac("fp8_e4m3", [[32.0, 1.0, 1.0]], [[32.0, 0.5, 0.5]], model=model)
    assert int(got[0, 0]) == want


# ------------------------------------------------------------ float accumulators without Inf
def test_fp8_to_fp8_overflow_policy():
    # e4m3 accumulator (bOVF=1): 448 * 2 = 896 > 448 and E4M3 has no Inf
    assert int(mac("fp8_e4m3", [[448.0]], [[2.0]], bovf=1)[0][0, 0]) == 0x7F  # NaN
    got, st = mac("fp8_e4m3", [[448.0]], [[2.0]], bovf=1, sat=1)
    assert int(got[0, 0]) == 0x7E and st["sat_hit"]  # SAT: 448
    got, st = mac("fp8_e4m3", [[448.0]], [[2.0]], bovf=1, rnd="rtz")
    assert int(got[0, 0]) == 0x7E and not st["sat_hit"]  # toward zero gives max by itself


def test_fp4_to_fp4_saturates_without_sat():
    # E2M1 has neither Inf nor NaN: 6 * 6 = 36 gives max 6 (0b0111) and counts as a saturation
    got, st = mac("fp4_e2m1", [[6.0, 0.0]], [[6.0, 0.0]], bovf=1)
    assert int(got[0, 0]) == 0x7 and st["sat_hit"]


def test_e8m0():
    # 2^3 * 2^-5 + 2^0 * 2^0 = 1.25 in FP32 (0x3FA00000); E8M0 codes are 127 + exponent
    got, _ = mac("e8m0", [[0x82, 0x7F]], [[0x7A, 0x7F]], codes=True)
    assert int(got[0, 0]) == 0x3FA00000
    # E8M0 accumulator: 2 + 1 = 3 lies between 2 (code 128) and 4 (129); RNE ties to the even code
    assert int(mac("e8m0", [[0x80, 0x7F]], [[0x7F, 0x7F]], bovf=1, codes=True)[0][0, 0]) == 0x80
    assert int(mac("e8m0", [[0x80, 0x7F]], [[0x7F, 0x7F]], bovf=1, rnd="rup", codes=True)[0][0, 0]) == 0x81


# ------------------------------------------------------------ fixed point and small integers
def test_q_formats():
    # q4_3 -> fix16_6: 1.5 * 2.5 = 3.75 = 240 / 64, exact
    got, st = mac("q4_3", [[1.5]], [[2.5]])
    assert int(got[0, 0]) == 240 and not st["inexact"]
    # q4_3 -> q4_3 (bOVF=1): 1/8 * 1/8 = 1/64 rounds in units of 1/8 with RND
    got, st = mac("q4_3", [[0.125]], [[0.125]], bovf=1)
    assert int(got[0, 0]) == 0 and st["inexact"]
    assert int(mac("q4_3", [[0.125]], [[0.125]], bovf=1, rnd="rup")[0][0, 0]) == 1
    assert int(mac("q4_3", [[0.125]], [[-0.125]], bovf=1, rnd="rdn")[0][0, 0]) == 0xFF  # -1/8
    assert int(mac("q4_3", [[0.5]], [[0.125]], bovf=1)[0][0, 0]) == 0  # 1/2 unit ties to even 0
    assert int(mac("q4_3", [[1.5]], [[0.125]], bovf=1)[0][0, 0]) == 2  # 3/2 units tie to even 2
    # q32_32 accumulates in itself: 2^-32 * 2^-32 = 2^-64 is far below half a unit
    got, st = mac("q32_32", [[1]], [[1]], bovf=0, codes=True)
    assert int(got[0, 0]) == 0 and st["inexact"]
    assert int(mac("q32_32", [[1]], [[1]], rnd="rup", codes=True)[0][0, 0]) == 1


def test_int4_packing_and_widths():
    # (-8)(-8) + 7 * 7 = 113 in INT8; in INT4 (bOVF=1) 113 mod 16 = 1
    assert int(mac("int4", [[-8, 7]], [[-8, 7]])[0][0, 0]) == 113
    assert int(mac("int4", [[-8, 7]], [[-8, 7]], bovf=1)[0][0, 0]) == 1


def test_wide_integer_accumulators():
    # int32 -> int64: 4 * (-2^31)^2 = 2^64 wraps to 0, saturates to 2^63 - 1
    a = np.full((1, 4), -2**31)
    assert int(mac("int32", a, a)[0][0, 0]) == 0
    got, st = mac("int32", a, a, sat=1)
    assert int(got[0, 0]) == 2**63 - 1 and st["sat_hit"]
    # int64 -> int64: (-2^63)^2 = 2^126 wraps to 0; SAT clamps
    big = np.array([[-2**63]], np.int64)
    assert int(mac("int64", big, big)[0][0, 0]) == 0
    assert int(mac("int64", big, big, sat=1)[0][0, 0]) == 2**63 - 1


# ------------------------------------------------------------ exactness across wide spans
def test_bf16_to_fp32_sum_exact_across_200_binades():
    # C = 2^100 (0x71800000), products 1 * 2^-100: RNE keeps 2^100, inexact; RUP goes one ulp up
    got, st = mac("bf16", [[1.0]], [[2.0**-100]], [[2.0**100]], acc="fp32")
    assert int(got[0, 0]) == 0x71800000 and st["inexact"]
    got, _ = mac("bf16", [[1.0]], [[2.0**-100]], [[2.0**100]], acc="fp32", rnd="rup")
    assert int(got[0, 0]) == 0x71800001
    # C = 2^100, products -2^50 * 2^50 and 2^-100 * 1: exactly 2^-100 = 0x0D800000, not inexact
    got, st = mac("bf16", [[-2.0**50, 2.0**-100]], [[2.0**50, 1.0]], [[2.0**100]], acc="fp32")
    assert int(got[0, 0]) == 0x0D800000 and not st["inexact"]


def test_fp64_products_are_exact():
    x = 1 + 2.0**-52  # 0x3FF0000000000001; x * x = 1 + 2^-51 + 2^-104
    got, st = mac("fp64", [[x]], [[x]])
    assert int(got[0, 0]) == 0x3FF0000000000002 and st["inexact"]
    assert int(mac("fp64", [[x]], [[x]], rnd="rup")[0][0, 0]) == 0x3FF0000000000003
    got, st = mac("fp64", [[x]], [[x]], [[-(1 + 2.0**-51)]], acc="fp64")  # leaves exactly 2^-104
    assert int(got[0, 0]) == (1023 - 104) << 52 and not st["inexact"]


# ------------------------------------------------------------ bTR and beta
A, B = [[1, 2], [3, 4]], [[5, 6], [7, 8]]


@pytest.mark.parametrize("btr,want", [(0b00, [[19, 22], [43, 50]]), (0b01, [[17, 23], [39, 53]]),
                                      (0b10, [[26, 30], [38, 44]]), (0b11, [[23, 31], [34, 46]])])
def test_btr(btr, want):
    # 00 A x B, 01 A x B^T, 10 A^T x B, 11 A^T x B^T, worked by hand
    got, _ = mac("int8", A, B, imm=1 | btr << 1, transposed=False)
    assert got.astype(np.int64).tolist() == want


def test_mmacc_t_is_btr_01_and_beta_accumulates():
    core = Core()
    core.csrw("mxcfg", mxcfg(ft="int8"))
    core.csrw("mxtile", mxtile(k=2, m=2, tiling="1x1"))
    core.write_tile(0, np.array(A), "int8")
    core.write_tile(1, np.array(B), "int8")
    core.mmacc_t(2, 0, 1, 1)
    assert core.read_tile(2, "int16", (2, 2)).tolist() == [[17, 23], [39, 53]]
    core.mmacc(2, 0, 1, 0b010)  # beta=0, bTR=01: accumulates the same product
    assert core.read_tile(2, "int16", (2, 2)).tolist() == [[34, 46], [78, 106]]
