"""The ``hardware`` rounding model against results derived by hand from the rules of
``shared/spec/tensix.md`` §6, §9, §10 (and the worked examples of §11), and against the ``doc``
model wherever both must agree (results that are exact).

Expected values are IEEE bit patterns of the result (FP32 for 32-bit Dst, BF16 / FP16 for 16-bit
Dst), worked out in the comments.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import formats
from tilesim.errors import SpecGapError, UnsupportedError
from tilesim.tensix import Machine, make
from tilesim.tensix.layouts import (dst16_from_bf16, dst16_from_fp16, dst16_to_bf16, dst16_to_fp16, dst32_from_fp32,
                                    dst32_to_fp32, src_from_bf16, src_from_fp16, src_from_tf32)
from tilesim.tensix.state import Client

from .helpers import datums

FMT_CODE = {"BF16": 5, "TF32": 4, "FP16": 1}


def _src(values, fmt):
    v = np.asarray(values, np.float64)
    if fmt == "BF16":
        return src_from_bf16(formats.encode(v, "bf16", "rtz"))
    if fmt == "TF32":
        return src_from_tf32(formats.encode(v, "tf32", "rtz") >> 13)
    return src_from_fp16(formats.encode(v, "fp16", "rtz"))


def machine(fmt="BF16", dst32=False, model="hardware", srcb_fmt=None):
    m = Machine(model)
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=FMT_CODE[fmt], ALU_FORMAT_SPEC_REG1_SrcB=FMT_CODE[srcb_fmt or fmt],
                ALU_ACC_CTRL_Fp32_enabled=int(dst32))
    m.srca_client[0] = m.srcb_client[0] = Client.MATRIX_UNIT
    return m


def set_dst(m, dst_bits, fmt, dst32):
    """Dst rows 0..7 column 0 from IEEE bits (FP32 bits when 32-bit)."""
    if dst32:
        raw = dst32_from_fp32(np.uint32(dst_bits))
        for r in range(8):
            m.dst[((r & 0x1F8) << 1) | r, 0] = raw >> 16
            m.dst[(((r & 0x1F8) << 1) | r) + 8, 0] = raw & 0xFFFF
    else:
        m.dst[0:8, 0] = dst16_from_bf16(dst_bits) if fmt != "FP16" else dst16_from_fp16(dst_bits)


def get_dst(m, fmt, dst32):
    if dst32:
        return int(dst32_to_fp32((np.uint32(m.dst[0, 0]) << 16) | m.dst[8, 0]))
    return int(dst16_to_bf16(m.dst[0, 0]) if fmt != "FP16" else dst16_to_fp16(m.dst[0, 0]))


def elw(op, a, b, dst_bits, fmt="BF16", dst32=False, phase=0, model="hardware", add_dst=1, srcb_fmt=None):
    """One element: SrcA a, SrcB b (values), Dst (IEEE bits); returns the result's IEEE bits."""
    m = machine(fmt, dst32, model, srcb_fmt)
    m.srca[0, 0:8, 0] = a if isinstance(a, np.integer) else _src(a, fmt)   # numpy ints are raw datums
    m.srcb[0, 0:8, 0] = b if isinstance(b, np.integer) else _src(b, srcb_fmt or fmt)
    if dst_bits is None:
        m.dst_valid[:] = False
    else:
        set_dst(m, dst_bits, fmt, dst32)
    m.rwc[0].fidelity = phase
    fields = {"AddDst": add_dst} if op != "ELWMUL" else {}
    m.execute(make(op, **fields))
    return get_dst(m, fmt, dst32)


F32 = lambda x: int(formats.encode(np.float64(x), "fp32"))  # noqa: E731 - exact for the values used
B16 = lambda x: int(formats.encode(np.float64(x), "bf16"))  # noqa: E731
H16 = lambda x: int(formats.encode(np.float64(x), "fp16"))  # noqa: E731


# -- §11 worked examples ------------------------------------------------------------------------

def test_bf16_dst16_product_plus_dst():
    # 2*3 + 1 = 7 = 1.11b * 2**2: exponent 129 (0x81), mantissa 0b1100000 (0x60): raw Dst16 0x6081.
    m = machine()
    m.srca[0, 0:8] = _src(2.0, "BF16")
    m.srcb[0, 0:8] = _src(3.0, "BF16")
    m.dst[0:8] = dst16_from_bf16(B16(1.0))
    m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
    assert m.dst[0, 0] == 0x6081


def test_undefined_row_reads_zero_and_zero_result_is_positive():
    assert elw("ELWMUL", 1.0, 1.0, None) == 0x3F80          # raw Dst16 0x007F
    assert elw("ELWMUL", 0.0, 0.0, None) == 0x0000
    assert elw("ELWMUL", -0.0, 1.0, B16(-0.0)) == 0x0000    # -0 * 1 + -0 is +0 (doc: -0)
    assert elw("ELWMUL", -0.0, 1.0, B16(-0.0), model="doc") == 0x8000


def test_ties_go_away_from_zero_in_dst16():
    # 1 + 2**-8 is half an ulp (2**-7) above 1: away -> 1 + 2**-7 (RNE would keep 1.0).
    assert elw("ELWMUL", 1.0, 2.0**-8, B16(1.0)) == 0x3F81
    assert elw("ELWMUL", 1.0, 2.0**-8, B16(1.0), model="doc") == 0x3F80
    # 1 + 3 * 2**-8: tie between 1 + 2**-7 and 1 + 2**-6: away (and even) -> 1 + 2**-6.
    assert elw("ELWMUL", 3.0, 2.0**-8, B16(1.0)) == 0x3F82
    # negative: -(1 + 2**-8) -> -(1 + 2**-7); the product's alignment here is exact.
    assert elw("ELWMUL", -1.0, 2.0**-8, B16(-1.0)) == 0xBF81


def test_fp16_dst16():
    # 1.5 * 1.5 + 0.25 = 2.5 = 1.01b * 2: FP16 exponent 16, mantissa 0x100: raw Dst16 0x2010.
    m = machine("FP16")
    m.srca[0, 0:8] = _src(1.5, "FP16")
    m.srcb[0, 0:8] = _src(1.5, "FP16")
    m.dst[0:8] = dst16_from_fp16(H16(0.25))
    m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
    assert m.dst[0, 0] == 0x2010


def test_overflow_gives_exponent_255_mantissa_0():
    # 2**127 * 4 = 2**129: exponent 256 >= 255 -> sign | 0x7F800000 (raw high half 0x00FF, low 0).
    assert elw("ELWMUL", 2.0**127, 4.0, F32(0.0), dst32=True) == 0x7F800000
    assert elw("ELWMUL", -(2.0**127), 4.0, F32(0.0), dst32=True) == 0xFF800000
    # Dst16 BF16 too.
    assert elw("ELWMUL", 2.0**127, 4.0, B16(0.0)) == 0x7F80


def test_exponent_255_input_is_finite():
    # 1.5 * 2**128 (exponent 255, mantissa 0x40) times 0.5 = 1.5 * 2**127: exponent 254, mantissa 0x400000.
    a = np.uint32((0x40 << 11) | 0xFF)  # Src datum: sign 0, mantissa 0x40 << 3, exponent 255
    assert elw("ELWMUL", a, 0.5, F32(0.0), dst32=True) == 0x7F400000


def test_fp16_dst16_saturates():
    # 256 * 512 = 2**17: FP16 exponent 32 >= 32 -> exponent 31, mantissa 0x3FF (IEEE bits 0x7FFF).
    assert elw("ELWMUL", 256.0, 512.0, H16(0.0), fmt="FP16") == 0x7FFF
    assert elw("ELWMUL", -256.0, 512.0, H16(0.0), fmt="FP16") == 0xFFFF
    # 2**16 (exponent 31, finite on the FPU) does not saturate.
    assert elw("ELWMUL", 256.0, 256.0, H16(0.0), fmt="FP16") == 0x7C00


def test_underflow_gives_positive_zero():
    # 2**-100 * 2**-100 = 2**-200: product exponent <= 0 is a zero term; Dst -0 has exponent 0 -> +0.
    assert elw("ELWMUL", 2.0**-100, 2.0**-100, F32(-0.0), dst32=True) == 0
    # 1.5 * 2**-126 - 2**-126 = 2**-127: renormalises to exponent 0 -> +0 (the doc model keeps a subnormal).
    assert elw("ELWMUL", -(2.0**-63), 2.0**-63, F32(1.5 * 2.0**-126), dst32=True) == 0
    assert elw("ELWMUL", -(2.0**-63), 2.0**-63, F32(1.5 * 2.0**-126), dst32=True, model="doc") == 0x00400000
    # FP16 in Dst16: 2**-10 * 2**-10 = 2**-20 is below the FP16 range -> +0.
    assert elw("ELWMUL", 2.0**-10, 2.0**-10, H16(-0.0), fmt="FP16") == 0


def test_exact_cancellation_is_positive_zero():
    assert elw("ELWMUL", -1.5, 2.0, B16(3.0)) == 0
    assert elw("ELWMUL", 1.5, 2.0, B16(-3.0)) == 0
    assert elw("ELWMUL", 1.5, 2.0, F32(-3.0), dst32=True) == 0


def test_elwadd_elwsub_examples():
    assert elw("ELWADD", 1.0, -1.0, B16(5.0), add_dst=0) == 0            # 1 + (-1) = +0, Dst ignored
    assert elw("ELWADD", 1.5, 0.25, None, add_dst=0) == B16(1.75)
    assert elw("ELWSUB", 1.5, 1.5, B16(-2.0), add_dst=1) == B16(-2.0)    # (1.5 - 1.5) + (-2)


# -- alignment and per-term rounding -----------------------------------------------------------

def test_bits_lost_in_alignment_dst32():
    # Dst 1.0 plus a product of 1.5 * 2**-23 (17/16 is not needed: 1.5 * 2**-11 times 2**-12).
    # Aligned to exponent 127 the product is 1.5 units of 2**-23: half up -> 2 units when positive,
    # and (1.5 + 0.5 - 1) -> 1 unit when negative (product ties go toward +inf).
    assert elw("ELWMUL", 1.5 * 2.0**-11, 2.0**-12, F32(1.0), dst32=True) == 0x3F800002  # 1 + 2**-22
    assert elw("ELWMUL", -1.5 * 2.0**-11, 2.0**-12, F32(1.0), dst32=True) == 0x3F7FFFFE  # 1 - 2**-23
    # IEEE keeps 1 - 3 * 2**-24, which is representable.
    assert elw("ELWMUL", -1.5 * 2.0**-11, 2.0**-12, F32(1.0), dst32=True, model="doc") == 0x3F7FFFFD
    # A product more than 30 binades below the largest exponent vanishes completely.
    assert elw("ELWMUL", 1.0, 2.0**-40, F32(1.0), dst32=True) == 0x3F800000


def test_dst16_pre_rounds_each_term_to_2_pow_13():
    # Product 1.875 * 2**-9 = 2**-8 - 2**-12 aligned to exponent 127 is 30720 units of 2**-23;
    # pre-rounded to a multiple of 2**13 it becomes 32768 (= 2**-8): the sum 1 + 2**-8 is then a
    # tie and rounds away to 1 + 2**-7. The exact sum is below the tie: the doc model gives 1.0.
    assert elw("ELWMUL", 1.875, 2.0**-9, B16(1.0)) == 0x3F81
    assert elw("ELWMUL", 1.875, 2.0**-9, B16(1.0), model="doc") == 0x3F80


def test_fp16_with_dst32_aligns_to_2_pow_minus_30():
    # A zero FP16 product still takes part with exponent 97 (2**-30): a Dst of (1 + 2**-20) * 2**-40
    # (exponent 87) is aligned 10 places right, (2**23 + 8 + 2**9) >> 10 = 2**13: the 2**-20 is lost.
    assert elw("ELWMUL", 0.0, 1.0, F32((1 + 2.0**-20) * 2.0**-40), fmt="FP16", dst32=True) == F32(2.0**-40)


def test_fidelity_phases_split_the_mantissas():
    # SrcA 1 + 2**-5 + 2**-10 (TF32): phase 0 uses 1.0000 (top 4 bits), phase 1 the next 5 bits
    # (2**-5 + ... down to 2**-9) and never the last bit 2**-10. SrcB = 1 + 2**-7 + 2**-10:
    # phase bit 1 clear uses 1.000000 (top 6 bits); set uses the low 4 bits (2**-7 + 2**-10).
    a, b = 1 + 2.0**-5 + 2.0**-10, 1 + 2.0**-7 + 2.0**-10
    assert elw("ELWMUL", a, b, F32(0.0), fmt="TF32", dst32=True, phase=0) == F32(1.0)
    assert elw("ELWMUL", a, b, F32(0.0), fmt="TF32", dst32=True, phase=1) == F32(2.0**-5)
    assert elw("ELWMUL", a, b, F32(0.0), fmt="TF32", dst32=True, phase=2) == F32(2.0**-7 + 2.0**-10)
    assert elw("ELWMUL", a, b, F32(0.0), fmt="TF32", dst32=True, phase=3) == F32(2.0**-5 * (2.0**-7 + 2.0**-10))


def test_srcb_mantissa_width_follows_srcb_format():
    # SrcA BF16, SrcB TF32 holding 1 + 2**-7 + 2**-10: phase 2 multiplies SrcB's low mantissa bits
    # (2**-7 .. 2**-10 for a 10-bit mantissa). SrcB's own format decides the width (spec §10.5):
    # as TF32 both bits count; as BF16 only the 7-bit mantissa's last bit, 2**-7, is left.
    b = src_from_tf32(formats.encode(np.float64(1 + 2.0**-7 + 2.0**-10), "tf32", "rtz") >> 13)
    assert elw("ELWMUL", 1.0, b, F32(0.0), dst32=True, phase=2, srcb_fmt="TF32") == F32(2.0**-7 + 2.0**-10)
    assert elw("ELWMUL", 1.0, b, F32(0.0), dst32=True, phase=2, srcb_fmt="BF16") == F32(2.0**-7)


def test_wormhole_minus_one_lsb_bug():
    # Product -(17/16) (5-bit x 7-bit: 17 * 64 = 1088) and Dst 17/16 - 2**-23 sum to exactly -1 LSB;
    # Wormhole mis-normalises it (ttsim, spec §6): 4 binades up and a zero mantissa: -16.0.
    assert elw("ELWMUL", 17 / 16, -1.0, F32(17 / 16 - 2.0**-23), dst32=True) == 0xC1800000
    assert elw("ELWMUL", -17 / 16, 1.0, F32(17 / 16 - 2.0**-23), dst32=True) == 0xC1800000
    # +1 LSB is fine.
    assert elw("ELWMUL", 17 / 16, 1.0, F32(-(17 / 16 - 2.0**-23)), dst32=True) == 0x34000000


def test_int8():
    # Phase 3: SrcA -7 (low 5 bits), SrcB 12 (low 4 bits): -84 + 100 = 16.
    from tilesim.tensix.layouts import dst32_from_int, dst32_to_int, src_from_int8
    m = Machine()
    m.configure(ALU_ACC_CTRL_INT8_math_enabled=1, ALU_FORMAT_SPEC_REG0_SrcA=14, ALU_FORMAT_SPEC_REG1_SrcB=14)
    m.srca_client[0] = m.srcb_client[0] = Client.MATRIX_UNIT

    def run(a, b, d, phase):
        m.srca[0, 0:8] = src_from_int8(a < 0, abs(a))
        m.srcb[0, 0:8] = src_from_int8(b < 0, abs(b))
        raw = dst32_from_int(d)
        m.dst[0:8], m.dst[8:16] = raw >> 16, raw & 0xFFFF
        m.dst_valid[:] = True
        m.rwc[0].fidelity = phase
        m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
        return int(dst32_to_int((np.uint32(m.dst[0, 0]) << 16) | m.dst[8, 0]))

    assert run(-7, 12, 100, 3) == 16
    # Phase 0: (-0x67 & 0xE0) * (0x3B & 0x3F0) = -96 * 48 = -4608.
    assert run(-0x67, 0x3B, 0, 0) == -4608
    # Saturation at +-(2**31 - 1).
    assert run(31, 15, 2**31 - 100, 3) == 2**31 - 1
    assert run(-31, 15, -(2**31 - 100), 3) == -(2**31 - 1)


# -- errors of the hardware model --------------------------------------------------------------

def test_fp16_datum_with_high_exponent_bits_is_a_spec_gap():
    m = machine("FP16")
    m.srca[0, 0:8] = 0x20 | 15
    before = m.dst.copy()
    with pytest.raises(SpecGapError) as e:
        m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
    assert e.value.rule == "tt.hw.fp16_exp" and (m.dst == before).all()


def test_elwadd_with_fidelity_phase_is_unsupported():
    m = machine()
    m.rwc[0].fidelity = 1
    with pytest.raises(UnsupportedError) as e:
        m.execute("TT_ELWADD(0, 1, 0, 0, 0)")
    assert e.value.rule == "tt.hw.elw_fidelity" and m.rwc[0].fidelity == 1


def test_stochastic_rounding_is_unsupported():
    m = machine()
    m.configure(ALU_ROUNDING_MODE_Fpu_srnd_en=1)
    with pytest.raises(UnsupportedError) as e:
        m.execute("TT_ELWMUL(0, 1, 0, 0, 0)")
    assert e.value.rule == "tt.hw.srnd"


# -- doc and hardware agree where the result is exact ------------------------------------------

def _both(setup, insn, thread=0):
    outs = []
    for model in ("doc", "hardware"):
        m = setup(Machine(model))
        m.execute(insn, thread)
        outs.append((m.dst.copy(), m.dst_valid.copy()))
    return outs


def _small_ints(rng, shape, bits):
    return rng.integers(-(1 << bits) + 1, 1 << bits, shape).astype(np.float64)


@pytest.mark.parametrize("kind", ["bf16_dst16", "bf16_dst32", "tf32_dst32", "fp16_dst16", "fp16_dst32"])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_elwmul_exact_results_agree(kind, seed):
    """Products of 5-bit and 7-bit integers plus small integer Dst values are exact in every mode."""
    rng = np.random.default_rng(seed)
    fmt, width = kind.split("_")
    fmt = fmt.upper()
    a = _small_ints(rng, (8, 16), 4) * 2.0 ** rng.integers(0, 3)     # integers: sums stay exact
    b = _small_ints(rng, (8, 16), 6) * 2.0 ** rng.integers(0, 3)
    d = _small_ints(rng, (8, 16), 7 if width == "dst16" else 10)
    a[a == 0], b[b == 0] = 1.0, -1.0   # no signed zeros
    if fmt == "FP16" and width == "dst16":
        d = np.clip(d, -1000, 1000)

    def setup(m):
        m.configure(ALU_FORMAT_SPEC_REG0_SrcA=FMT_CODE[fmt], ALU_FORMAT_SPEC_REG1_SrcB=FMT_CODE[fmt],
                    ALU_ACC_CTRL_Fp32_enabled=int(width == "dst32"))
        m.unpack("srca", a, fmt if fmt != "TF32" else "FP32", out=None if fmt != "TF32" else "TF32")
        m.unpack("srcb", b, fmt if fmt != "TF32" else "FP32", out=None if fmt != "TF32" else "TF32")
        m.unpack("dst", d, "FP32" if width == "dst32" else fmt)
        return m

    exact = a * b + d
    if width == "dst16":
        lim = 255 if fmt != "FP16" else 2047
        if np.abs(exact).max() > lim:
            return
    (d1, v1), (d2, v2) = _both(setup, "TT_ELWMUL(0, 1, 0, 0, 0)")
    assert (d1 == d2).all() and (v1 == v2).all()


@pytest.mark.parametrize("op", ["ELWADD", "ELWSUB"])
@pytest.mark.parametrize("kind", ["bf16_dst16", "bf16_dst32", "fp16_dst32"])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=15)
def test_elwadd_exact_results_agree(op, kind, seed):
    rng = np.random.default_rng(seed)
    fmt, width = kind.split("_")
    fmt = fmt.upper()
    a, b, d = (_small_ints(rng, (8, 16), 6) for _ in range(3))
    a[a == 0], b[b == 0] = 3.0, 5.0
    d[d == 0] = 7.0

    def setup(m):
        m.configure(ALU_FORMAT_SPEC_REG0_SrcA=FMT_CODE[fmt], ALU_FORMAT_SPEC_REG1_SrcB=FMT_CODE[fmt],
                    ALU_ACC_CTRL_Fp32_enabled=int(width == "dst32"))
        m.unpack("srca", a, fmt)
        m.unpack("srcb", b, fmt)
        m.unpack("dst", d, "FP32" if width == "dst32" else fmt)
        return m

    (d1, _), (d2, _) = _both(setup, f"TT_{op}(0, 1, 0, 0, 0)")
    zero = (a + (b if op == "ELWADD" else -b) + d) == 0   # doc keeps IEEE's +0 too, but be safe
    assert (d1[0:8][~zero] == d2[0:8][~zero]).all()


@pytest.mark.parametrize("kind", ["bf16_dst16", "bf16_dst32", "fp16_dst32", "int8"])
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=10)
def test_mvmul_exact_results_agree(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "int8":
        a, b = (rng.integers(-127, 128, (16, 16)), rng.integers(-127, 128, (8, 16)))

        def setup(m):
            m.configure(ALU_ACC_CTRL_INT8_math_enabled=1, ALU_FORMAT_SPEC_REG0_SrcA=14, ALU_FORMAT_SPEC_REG1_SrcB=14)
            m.unpack("srca", a, "INT8")
            m.unpack("srcb", b, "INT8")
            return m
    else:
        fmt, width = kind.split("_")
        fmt = fmt.upper()
        a, b = _small_ints(rng, (16, 16), 2), _small_ints(rng, (8, 16), 2)  # |sums| <= 145: exact in BF16

        def setup(m):
            m.configure(ALU_FORMAT_SPEC_REG0_SrcA=FMT_CODE[fmt], ALU_FORMAT_SPEC_REG1_SrcB=FMT_CODE[fmt],
                        ALU_ACC_CTRL_Fp32_enabled=int(width == "dst32"))
            m.unpack("srca", a, fmt)
            m.unpack("srcb", b, fmt)
            m.unpack("dst", np.ones((8, 16)), "FP32" if width == "dst32" else fmt)
            return m

    (d1, _), (d2, _) = _both(setup, "TT_MVMUL(0, 0, 0, 0)")
    assert (d1 == d2).all()


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_int8_canonical_data_agree(seed):
    """With canonical INT8 datums (exponent 16, or 0 for magnitude 0) the models are identical."""
    rng = np.random.default_rng(seed)
    phase = int(rng.integers(0, 4))

    def setup(m, phase):
        m.configure(ALU_ACC_CTRL_INT8_math_enabled=1, ALU_FORMAT_SPEC_REG0_SrcA=14, ALU_FORMAT_SPEC_REG1_SrcB=14)
        m.srca[:] = datums(np.random.default_rng(seed), "INT8", m.srca.shape, garbage=0, zero_exp=0)
        m.srcb[:] = datums(np.random.default_rng(seed + 1), "INT8", m.srcb.shape, garbage=0, zero_exp=0)
        m.srca_client[0] = m.srcb_client[0] = Client.MATRIX_UNIT
        m.rwc[0].fidelity = phase
        return m

    # ELWADD/ELWSUB are contractual in fidelity phase 0 only, INT8 included (ttsim; TT24).
    for insn, p in (("TT_ELWMUL(0, 1, 0, 0, 0)", phase), ("TT_ELWADD(0, 1, 3, 0, 8)", 0),
                    ("TT_ELWSUB(0, 0, 0, 0, 16)", 0)):
        (d1, _), (d2, _) = _both(lambda m, p=p: setup(m, p), insn)
        assert (d1 == d2).all()
