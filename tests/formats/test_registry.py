"""The catalogue: names, aliases, AME codes, and spot values from the spec tables."""

from fractions import Fraction

import numpy as np
import pytest

from tilesim import formats
from tilesim.errors import FormatError

# (code, name) from the AME proposal's FormatType table (docs/decisions.md F1)
AME_TABLE = {
    0x00: "int8", 0x10: "int8", 0x01: "int4", 0x02: "fp4_e2m1", 0x03: "fp4_e1m2", 0x04: "uf4_e2m2",
    0x05: "uf4_e1m3", 0x06: "fp6_e3m2", 0x07: "fp6_e2m3", 0x08: "fp6_e4m1", 0x09: "uf6_e4m2",
    0x11: "fp8_e4m3", 0x12: "fp8_e5m2", 0x13: "e8m0", 0x14: "q4_3", 0x15: "q2_5", 0x18: "int12",
    0x19: "fp12_e5m6", 0x1A: "fp12_e4m7", 0x1B: "q4_8", 0x1C: "q5_7", 0x20: "int16", 0x28: "fp16",
    0x29: "bf16", 0x2A: "uf16_e8m8", 0x2B: "q8_8", 0x40: "int32", 0x48: "fp32", 0x49: "tf32",
    0x4A: "q16_16", 0x80: "int64", 0x88: "fp64", 0x8A: "q32_32",
}

# (name, max, min subnormal or step) from the AME proposal's per-code table and the OCP OFP8/MX tables
LIMITS = [
    ("fp4_e2m1", 6, Fraction(1, 2)), ("fp4_e1m2", Fraction(7, 2), Fraction(1, 2)),
    ("uf4_e2m2", 7, Fraction(1, 4)), ("uf4_e1m3", Fraction(15, 4), Fraction(1, 4)),
    ("fp6_e2m3", Fraction(15, 2), Fraction(1, 8)), ("fp6_e3m2", 28, Fraction(1, 16)),
    ("fp6_e4m1", 384, Fraction(1, 128)), ("uf6_e4m2", 448, Fraction(1, 256)),
    ("fp8_e4m3", 448, Fraction(1, 512)), ("fp8_e5m2", 57344, Fraction(1, 65536)),
    ("fp12_e5m6", 65024, Fraction(1, 2**20)), ("fp12_e4m7", 255, Fraction(1, 2**13)),
    ("fp16", 65504, Fraction(1, 2**24)), ("bf16", Fraction(2**8 - 1, 2**7) * 2**127, Fraction(1, 2**133)),
    ("uf16_e8m8", (2 - Fraction(1, 256)) * Fraction(2) ** 127, Fraction(1, 2**134)),
    ("tf32", (2 - Fraction(1, 1024)) * Fraction(2) ** 127, Fraction(1, 2**136)),
    ("e8m0", Fraction(2) ** 127, Fraction(1, 2**127)),
    ("int4", 7, 1), ("int12", 2047, 1), ("q4_3", Fraction(127, 8), Fraction(1, 8)),
    ("q2_5", Fraction(127, 32), Fraction(1, 32)), ("q8_8", Fraction(32767, 256), Fraction(1, 256)),
    ("mxint8", Fraction(127, 64), Fraction(1, 64)),
]


@pytest.mark.parametrize("code,name", sorted(AME_TABLE.items()))
def test_ame_codes(code, name):
    assert formats.get(code).name == name
    assert code in formats.get(name).ame_codes


def test_reserved_codes_rejected():
    for code in (0x0A, 0x0F, 0x16, 0x1D, 0x2C, 0x4B, 0x8B, 0xD0, 0xEF, 0xFF):
        with pytest.raises(FormatError, match="not an AME FormatType code"):
            formats.get(code)


@pytest.mark.parametrize("name,mx,step", LIMITS)
def test_limits(name, mx, step):
    f = formats.get(name)
    assert f.max_exact == mx
    assert f.min_subnormal_exact == step


@pytest.mark.parametrize("alias,name", [
    ("e4m3", "fp8_e4m3"), ("float8_e4m3fn", "fp8_e4m3"), ("bfloat16", "bf16"), ("E5M2", "fp8_e5m2"),
    ("float16", "fp16"), ("ue8m0", "e8m0"), ("float4_e2m1fn", "fp4_e2m1"), ("ui16", "uint16"),
    ("fix16_8", "q8_8"), ("float6_e3m2fn", "fp6_e3m2"),
])
def test_aliases(alias, name):
    assert formats.get(alias).name == name


def test_numpy_and_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert formats.get(np.float16).name == "fp16"
    assert formats.get(np.dtype("int8")).name == "int8"
    assert formats.get(ml_dtypes.bfloat16).name == "bf16"
    assert formats.get(ml_dtypes.float8_e4m3fn).name == "fp8_e4m3"
    # ml_dtypes' IEEE-like e4m3 (max 240) is NOT OCP E4M3: no silent match
    with pytest.raises(FormatError):
        formats.get(ml_dtypes.float8_e4m3)


def test_unknown_name_lists_valid():
    with pytest.raises(FormatError) as e:
        formats.get("fp9")
    assert "fp8_e4m3" in str(e.value) and "'fp9'" in str(e.value)
    assert e.value.operand == "name" and e.value.value == "fp9"


def test_every_format_consistent():
    for f in formats.all_formats():
        assert formats.get(f.name) is f
        assert f.bits + f.lane_shift <= f.lane_bits
        assert f.dtype.itemsize * 8 >= f.lane_bits


def test_fixed_factory():
    f = formats.fixed(20, 4)
    assert f.lane_bits == 32 and f.frac_bits == 4 and formats.get("fix20_4") is f
    with pytest.raises(FormatError):
        formats.fixed(65, 0)
