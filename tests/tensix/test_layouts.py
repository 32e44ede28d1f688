"""Datum layouts: spot checks from the layout tables (spec §3) and exhaustive round trips."""

import numpy as np

from tilesim.tensix.layouts import (adj32, dst16_from_bf16, dst16_from_fp16, dst16_to_bf16, dst16_to_fp16,
                                    dst16_values, dst32_from_fp32, dst32_from_int, dst32_to_fp32, dst32_to_int,
                                    dst32_values, float_value, src_from_bf16, src_from_fp16, src_from_int8,
                                    src_from_tf32, src_read_fp32, src_read_int8, src_values)


def test_adj32():
    # Adj32(r) = ((r & 0x1f8) << 1) | (r & 0x207)
    assert adj32(8) == 16 and adj32(0x1FF) == 0x3F7 and adj32(0x200) == 0x200
    hi = adj32(np.arange(512))
    assert len(set(hi.tolist())) == 512
    assert not set(hi.tolist()) & set((hi + 8).tolist())      # high and low halves never collide
    assert set(hi.tolist()) | set((hi + 8).tolist()) == set(range(1024))


def test_src_layouts():
    # BF16 1.5 = 0x3FC0: sign 0, exponent 127, mantissa 0x40 -> Src mantissa [17:11] = 0x40, [10:8] = 0.
    assert src_from_bf16(0x3FC0) == (0x200 << 8) | 0x7F
    # FP16 -2.5 = 0xC100: sign 1, exponent 16, mantissa 0x100 -> exponent in [4:0].
    assert src_from_fp16(0xC100) == (1 << 18) | (0x100 << 8) | 16
    # TF32 (IEEE order, 19 bits) 1 + 2**-10: mantissa 1.
    assert src_from_tf32((127 << 10) | 1) == (1 << 8) | 127
    # INT8 overlay: exponent 16, or 0 for a zero magnitude.
    assert src_from_int8(1, 100) == (1 << 18) | (100 << 8) | 16 and src_from_int8(0, 0) == 0
    assert src_read_int8((1 << 18) | (100 << 8) | 16) == -100


def test_src_read_helpers():
    bf = src_from_bf16(0x3FC0) | (5 << 8)      # low mantissa bits set: ReadBF16 masks them
    assert src_read_fp32(bf, "BF16") == 0x3FC00000
    assert src_read_fp32(bf, "TF32") == 0x3FC00000 | (5 << 13)
    assert src_read_fp32(src_from_fp16(0x3C00), "FP16") == 0x3F800000     # exponent 15 + 112 = 127
    assert src_read_fp32((1 << 18) | (7 << 8), "TF32") == 0x80000000        # exponent 0: signed zero
    assert src_read_fp32((1 << 18) | (7 << 8), "TF32", flush=False) == 0x80000000 | (7 << 13)


def test_dst16_round_trips_every_code():
    codes = np.arange(1 << 16, dtype=np.uint16)
    assert (dst16_to_bf16(dst16_from_bf16(codes)) == codes).all()
    assert (dst16_to_fp16(dst16_from_fp16(codes)) == codes).all()
    # BF16 1.5 (0x3FC0) is stored sign | mantissa << 8 | exponent = 0x407F; FP16 2.5 (0x4100) as 0x2010.
    assert dst16_from_bf16(0x3FC0) == 0x407F and dst16_from_fp16(0x4100) == 0x2010


def test_dst32_fp32_and_int32():
    assert dst32_from_fp32(0x3FC00001) == 0x407F0001
    rng = np.random.default_rng(0)
    b = rng.integers(0, 1 << 32, 1000, dtype=np.uint64).astype(np.uint32)
    assert (dst32_to_fp32(dst32_from_fp32(b)) == b).all()
    # INT32: magnitude = MagHi [23:16] << 23 | MagMiddle [30:24] << 16 | MagLo [15:0].
    assert dst32_to_int(0x00010000) == 1 << 23
    assert dst32_to_int(0x01000000) == 1 << 16
    assert dst32_to_int(0x7FFFFFFF) == 2**31 - 1
    assert dst32_to_int(0x80000005) == -5 and dst32_to_int(0x80000000) == 0
    v = rng.integers(-(2**31 - 1), 2**31, 1000)
    assert (dst32_to_int(dst32_from_int(v)) == v).all()


def test_values_treat_exponent_0_as_zero_and_the_top_exponent_as_finite():
    assert float_value(0, 255, 0, 127, 7) == 2.0**128
    assert float_value(1, 0, 5, 127, 7) == 0.0
    assert src_values(src_from_fp16(0x7FFF), "FP16") == (2 - 2.0**-10) * 2.0**16
    assert dst16_values(dst16_from_bf16(0xC040), "BF16") == -3.0
    assert dst16_values((1 << 15) | (7 << 5) | 16, "INT8") == -7
    assert dst32_values(dst32_from_fp32(0x7F800000), "FP32") == 2.0**128
    assert dst32_values(dst32_from_int(-9), "INT32") == -9
