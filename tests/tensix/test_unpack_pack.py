"""The unpackers' format conversions into Src / Dst, and the packer's early conversion out of Dst."""

import numpy as np
import pytest

from tilesim.errors import DtypeError, FormatError, GeometryError, SpecGapError, StateError, UnsupportedError
from tilesim.tensix import Client, Machine
from tilesim.tensix.dataformat import data_format
from tilesim.tensix.layouts import adj32, dst32_from_fp32
from tilesim.tensix.unpack import bfp_to_16, convert, l1_encode


def src1(fmt, codes, out=None, exps=None, unsigned=False):
    return convert(np.asarray(codes, np.uint32), fmt, to_dst=False, out=out, exps=exps, unsigned=unsigned)[0]


def test_fp32_input_truncates():
    x = 0x3F801800                                         # 1 + 2**-11 + 2**-12
    assert src1("FP32", [x])[0] == 127                     # TF32: bits >> 13, no rounding
    assert src1("FP32", [0x3FC0FFFF], out="BF16")[0] == (0x200 << 8) | 127     # BF16: top 16 bits
    assert src1("FP32", [0x807FFFFF], out="BF16")[0] == 1 << 18                  # denormal: sign only
    # FP16 (ttsim): exponent - 112; below 0 a signed zero; above 31 saturate; else truncate.
    assert src1("FP32", [0xB58637BD], out="FP16")[0] == 1 << 18                 # -1e-6
    assert src1("FP32", [0x48000000], out="FP16")[0] == (0x3FF << 8) | 31        # 2**17
    assert src1("FP32", [0x47890000], out="FP16")[0] == (0x48 << 8) | 31         # 70144 = (1 + 72/1024) * 2**16


def test_fp8_bfp_int8_int16():
    assert src1("FP8", [0x3C])[0] == 15                    # e5m2 1.0 -> FP16 0x3C00
    # BFP8 datum mag 64 with exponent 127: 64/64 * 2**0 = 1.0 -> BF16 0x3F80.
    assert bfp_to_16([0x40], 127, data_format("BFP8"))[0] == 0x3F80
    assert bfp_to_16([0x80], 127, data_format("BFP8"))[0] == 0xFF80   # -0 is "-inf"
    assert bfp_to_16([0b0101], 127, data_format("BFP4"))[0] == 0x3FA0  # 5/4 = 1.25
    assert bfp_to_16([0b01], 130, data_format("BFP2"))[0] == 0x4100    # 2**3
    assert bfp_to_16([0x20], 15, data_format("BFP8a"))[0] == 0x3800    # 32/64 * 2**0 = 0.5
    assert bfp_to_16([0x80], 15, data_format("BFP8a"))[0] == 0xFC00
    with pytest.raises(SpecGapError) as e:
        bfp_to_16([0x01], 3, data_format("BFP8a"))          # 3 - 6 leaves 5 bits
    assert e.value.rule == "tt.unpack.bfpa"
    assert src1("INT8", [0x85])[0] == (1 << 18) | (5 << 8) | 16          # sign-magnitude -5
    assert src1("INT8", [0x85], unsigned=True)[0] == (0x85 << 8) | 16    # unsigned 133
    assert src1("INT8", [0])[0] == 0
    assert src1("INT16", [0xABCD])[0] == (0xAB << 11) | 0xCD


def test_l1_encode():
    codes, exps = l1_encode(np.array([1.0, 0.5, -0.75] + [0.0] * 13), "BFP8")
    assert exps.tolist() == [127] and codes[:3].tolist() == [64, 32, 0x80 | 48]
    codes, exps = l1_encode(np.array([1.0, 0.3] + [-0.0] * 14), "BFP4")
    assert codes[:3].tolist() == [4, 1, 0]                 # 0.3 * 4 = 1.2 -> 1; -0 keeps a + sign
    codes, _ = l1_encode(np.array([-127, 0, 5]), "INT8")
    assert codes.tolist() == [0xFF, 0, 5]
    codes, _ = l1_encode(np.array([-(2**31 - 1), 7]), "INT32")
    assert codes.tolist() == [0xFFFFFFFF, 7]
    for bad, fmt, err in (([np.nan], "BF16", DtypeError), ([1.5], "INT8", DtypeError), ([200], "INT8", FormatError),
                          ([1e-60] + [0] * 15, "BFP8", FormatError), ([1.0] * 3, "BFP8", GeometryError)):
        with pytest.raises(err) as e:
            l1_encode(np.array(bad), fmt)
        assert e.value.rule.startswith("tt.unpack.")


def test_unpack_into_src_flips_to_the_matrix_unit():
    m = Machine()
    d = m.unpack("srca", np.full((2, 16), 1.5), "BF16", row=4)
    assert (m.srca[0, 4:6] == d).all() and (d == (0x200 << 8) | 127).all()
    assert m.srca_client[0] is Client.MATRIX_UNIT and m.unpacker_bank[0] == 1
    m.unpack("srca", np.ones(16), "BF16", flip=False)       # into bank 1, still the unpackers'
    assert (m.srca[1, 0] == 127).all() and m.srca_client[1] is Client.UNPACKERS
    m.unpack("srcb", [0x40] * 16, "BFP8", raw=True, exponents=[128])
    assert (m.srcb[0, 0] == 128).all()                      # 2.0


def test_unpack_into_dst():
    m = Machine()
    m.dst_valid[:] = False
    m.unpack("dst", np.full((2, 16), -2.5), "FP16", row=10)
    assert (m.dst[10:12] == 0xA010).all() and m.dst_valid[10:12].all()
    m.unpack("dst", np.full(16, 1.5), "FP32", row=9)       # Dst32b row 9
    a = adj32(9)
    assert (m.dst[a] == 0x407F).all() and (m.dst[a + 8] == 0).all() and m.dst_valid[a]
    m.unpack("dst", np.full(16, -7), "INT32", row=0)
    assert (m.dst[0] == 0x8000).all() and (m.dst[8] == 7).all()
    m.unpack("dst", np.full(16, 3), "INT8", row=100)
    assert (m.dst[100] == (3 << 5) | 16).all()


def test_unpack_errors():
    m = Machine()
    m.srca_client[0] = Client.MATRIX_UNIT
    with pytest.raises(StateError) as e:
        m.unpack("srca", np.ones(16), "BF16")
    assert e.value.rule == "tt.stall.unpack"
    with pytest.raises(StateError):
        m.unpack("dst", np.ones(16), "BF16")               # unpacker 0 waits on its SrcA bank
    m = Machine()
    for args, err, rule in ((("srca", np.ones(16), "INT32"), FormatError, "tt.unpack.conversion"),
                            (("srcb", np.ones((65, 16)), "BF16"), GeometryError, "tt.unpack.rows"),
                            (("srcb", np.ones(15), "BF16"), GeometryError, "tt.unpack.shape"),
                            (("src", np.ones(16), "BF16"), GeometryError, "tt.unpack.target")):
        before = (m.srca.copy(), m.srcb.copy(), list(m.unpacker_bank))
        with pytest.raises(err) as e:
            m.unpack(*args)
        assert e.value.rule == rule
        assert (m.srca == before[0]).all() and (m.srcb == before[1]).all() and m.unpacker_bank == before[2]
    with pytest.raises(FormatError):
        m.unpack("srcb", np.ones(16), "BF16", out="FP16")   # only FP32 input converts
    with pytest.raises(FormatError):
        m.unpack("srcb", [300] * 16, "INT8", raw=True)


def test_pack_fp32_tf32_bf16_rounding():
    m = Machine()
    m.configure(ALU_ACC_CTRL_Fp32_enabled=1)
    bits = np.array([0x3F801000, 0xBF801000, 0x3F800FFF, 0x80000000, 0x00400000, 0x7F800001, 0x3F808000,
                     0x7F7FFFFF] + [0] * 8, np.uint32)
    a = adj32(0)
    raw = dst32_from_fp32(bits)
    m.dst[a], m.dst[a + 8] = raw >> 16, raw & 0xFFFF
    assert (m.pack("FP32", rows=1).codes[0] == bits).all()
    tf = m.pack("TF32", rows=1).codes[0][:8].tolist()
    # 1 + 2**-11 is a tie at 10 bits: away -> 1 + 2**-10 (both signs); just below stays; -0 and the
    # denormal become +0; a NaN pattern becomes +inf; 1 + 2**-8 is exact; the largest value carries to inf.
    assert tf == [0x3F802000, 0xBF802000, 0x3F800000, 0, 0, 0x7F800000, 0x3F808000, 0x7F800000]
    bf = m.pack("BF16", rows=1)
    assert bf.codes[0][:8].tolist() == [0x3F80, 0xBF80, 0x3F80, 0, 0, 0x7F80, 0x3F81, 0x7F80]
    assert m.pack("BF16", rows=1, rounding=False).codes[0][6] == 0x3F80   # truncation
    assert bf.values[0][0] == 1.0 and np.isinf(bf.values[0][5])


def test_pack_16_bit_and_ints():
    m = Machine()
    m.configure(ALU_FORMAT_SPEC_REG0_SrcA=1)
    m.unpack("dst", np.array([2.5, -0.0] + [1.0] * 14), "FP16")
    m.dst[0, 2] = 0x8000 | (5 << 5)                        # exponent 0 with a mantissa: flushed
    p = m.pack("FP16", rows=1)
    assert p.codes[0][:3].tolist() == [0x4100, 0, 0] and p.values[0][0] == 2.5
    assert m.pack("FP16", rows=1, rounding=False).codes[0][1] == 0x8000
    m = Machine()
    m.configure(ALU_ACC_CTRL_INT8_math_enabled=1)
    m.unpack("dst", np.array([-300, 5, 2**31 - 1] + [0] * 13), "INT32")
    assert m.pack("INT32", rows=1).values[0][:3].tolist() == [-300, 5, 2**31 - 1]
    i8 = m.pack("INT8", rows=1)
    assert i8.values[0][:3].tolist() == [-127, 5, 127] and i8.codes[0][0] == 0xFF
    assert m.pack("INT8", rows=1, rounding=False).values[0][0] == -(300 & 0x7F)


def test_pack_undefined_rows_read_zero_and_errors():
    m = Machine()
    m.dst[:] = 0x407F
    m.dst_valid[3] = False
    assert (m.pack("BF16", row=3, rows=1).values == 0).all()
    for kw, err, rule in ((dict(fmt="FP16"), FormatError, "tt.pack.conversion"),
                          (dict(fmt="BF16", row=1020, rows=8), GeometryError, "tt.pack.rows"),
                          (dict(fmt="FP32"), FormatError, "tt.pack.conversion")):
        with pytest.raises(err) as e:
            m.pack(**kw)
        assert e.value.rule == rule
    m.configure(ALU_ROUNDING_MODE_Packer_srnd_en=1)
    with pytest.raises(UnsupportedError) as e:
        m.pack("BF16")
    assert e.value.rule == "tt.pack.srnd"


@pytest.mark.parametrize("fmt, style, values", [
    ("FP32", "TF32", [1.5, -3.25, 2.0**-100, 1 + 2.0**-10]),       # out=TF32 (the default for Src)
    ("TF32", "TF32", [1.5, -3.25, 2.0**100, 1 + 2.0**-10]),
    ("BF16", "BF16", [1.5, -3.25, 2.0**-120, 255.0]),
    ("FP16", "FP16", [1.5, -3.25, 2.0**-14, 65504.0]),
    ("FP8", "FP16", [1.5, -3.0, 0.25, 57344.0]),
    ("BFP8", "BF16", [1.5, -3.25, 0.5, 0.03125]),
    ("BFP4", "BF16", [1.5, -3.0, 0.5, 1.0]),
    ("BFP2", "BF16", [4.0, -4.0, 0.0, 4.0]),
    ("BFP8a", "FP16", [1.5, -3.25, 0.5, 0.03125]),
    ("BFP4a", "FP16", [1.5, -3.0, 0.5, 1.0]),
    ("BFP2a", "FP16", [2.0, -2.0, 0.0, 2.0]),
    ("INT8", "INT8", [127, -127, 0, 5]),
])
def test_every_input_format_reaches_src_exactly(fmt, style, values):
    """Values the format holds arrive in Src unchanged (read back as the FPU reads them)."""
    from tilesim.tensix.layouts import src_values
    v = np.tile(np.array(values, np.float64), 4)
    m = Machine()
    d = m.unpack("srca", v, fmt, out="TF32" if fmt == "FP32" else None)
    assert (src_values(d, style).reshape(-1) == v).all()


@pytest.mark.parametrize("fmt, dst32, style", [("FP32", True, "FP32"), ("TF32", True, "FP32"), ("INT32", True, "INT32"),
                                               ("BF16", False, "BF16"), ("FP16", False, "FP16"),
                                               ("BFP8", False, "BF16"), ("BFP8a", False, "FP16"),
                                               ("INT8", False, "INT8")])
def test_every_input_format_reaches_dst_exactly(fmt, dst32, style):
    from tilesim.tensix.layouts import dst16_values, dst32_values
    v = np.tile(np.array([1.5, -3.0, 0.5, 2.0]), 4) * (1 if style != "INT8" and style != "INT32" else 2)
    m = Machine()
    m.unpack("dst", v, fmt, row=3)
    rows = np.array([3])
    if dst32:
        a = adj32(rows)
        raw = (m.dst[a].astype(np.uint32) << 16) | m.dst[a + 8]
        assert (dst32_values(raw, style).reshape(-1) == v).all()
    else:
        assert (dst16_values(m.dst[rows], style).reshape(-1) == v).all()
