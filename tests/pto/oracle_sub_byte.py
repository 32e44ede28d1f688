"""pto-isa's CPU simulator's TCVT with the 4-bit types, one element at a time in Python numbers, written from
include/pto/cpu/TCvt.hpp (``convert_value``, ``TCvt_Impl``, ``SafeLimits``), include/pto/cpu/MXTypes.hpp
(``MXType``) and include/pto/common/type.hpp (``int4b_t``), independently of tilesim's numpy code."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from .oracle import FLOATS, dec, int_bits, round_bits, to_integral

MX = {"f4e2m1": (2, 1, 1), "f4e1m2": (1, 2, 1)}          # MXType<EXP_SZ, MAN_SZ, EXP_BIAS>
SUB_LIMITS = {"i4": (-8.0, 7.0), "f4e2m1": (-6.0, 6.0), "f4e1m2": (-4.0, 3.5)}


def mx_double(code: int, fmt: str) -> float:
    """``MXType::operator double`` of a raw code."""
    e_sz, m_sz, bias = MX[fmt]
    mant, exp, sign = code & ((1 << m_sz) - 1), (code >> m_sz) & ((1 << e_sz) - 1), (code >> (m_sz + e_sz)) & 1
    if exp > 0:
        v = math.ldexp(1 + mant / (1 << m_sz), exp - bias)
    elif code == 0 or code == 1 << (m_sz + e_sz):
        return 0.0                                       # the "-0" code is read as the integer -0: +0.0
    else:
        v = math.ldexp(mant, 1 - bias - m_sz)
    return -v if sign else v


def mx_from_double(v: float, fmt: str) -> int:
    """``MXType(double)``: the exponent rebiased and masked to its field, the mantissa truncated (x86 shift)."""
    e_sz, m_sz, bias = MX[fmt]
    if v == 0.0:
        return 0
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    sign, exp, man = bits >> 63, (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    if exp == 0:
        return 0
    out_m, out_e = man >> (52 - m_sz), exp + bias - 1023
    if out_e < 0:
        out_m = ((out_m | (1 << m_sz)) >> ((1 - out_e) % 64)) & ((1 << 64) - 1)
        out_e = 0
    return (sign << (m_sz + e_sz)) | ((out_e & ((1 << e_sz) - 1)) << m_sz) | (out_m & ((1 << m_sz) - 1))


def read(bits: int, dt: str) -> float:
    """The double the simulator reads from a lane."""
    if dt == "i4":
        low = bits & 0xF
        return float(low - 16 if low & 8 else low)
    if dt in MX:
        return mx_double(bits & 0xF, dt)
    return float(dec(bits, dt))


def limits(dt: str) -> tuple[float, float]:
    if dt in SUB_LIMITS:
        return SUB_LIMITS[dt]
    if dt == "f16":
        return -65504.0, 65504.0
    if dt in FLOATS:
        e, m = FLOATS[dt]
        top = math.ldexp(2 - 2.0 ** -m, (1 << (e - 1)) - 1)
        return -top, top
    n, signed = int(dt[1:]), dt[0] == "i"
    return (float(-(1 << (n - 1))), float((1 << (n - 1)) - 1)) if signed else (0.0, float((1 << n) - 1))


def integral(v: float, mode: str) -> float:
    """``applyRoundingToIntegral`` (NONE leaves the value; a zero keeps the sign)."""
    if mode == "NONE" or math.isnan(v) or math.isinf(v) or v == 0:
        return v
    if mode == "ODD":                                  # floor, then f + 1 in double arithmetic: -1 + 1 is +0
        f = float(math.floor(v))
        frac = v - f
        return f + 1.0 if frac > 0.5 or (frac == 0.5 and f % 2 == 0) else f
    return math.copysign(float(to_integral(Fraction(v), mode)), v)


def tcvt(bits: int, s: str, d: str, mode: str, sat: bool) -> int:
    """The destination lane of one element of TCVT from ``s`` to ``d`` (one of them a 4-bit type)."""
    if s in MX and d in MX:
        return bits & 0xF
    v = read(bits, s)
    if sat and s not in MX:
        lo, hi = max(limits(s)[0], limits(d)[0]), min(limits(s)[1], limits(d)[1])
        v = hi if not v < hi else v                    # std::min(hi, v): NaN gives hi
        v = v if lo < v else lo
        v = float(math.trunc(v)) if s == "i4" else read(round_bits(v, s), s) if s in FLOATS else float(int(v))
    s_float = s in FLOATS
    if s == "i4":
        if d == "i4":
            return int(v) & 0xF
        if d not in FLOATS and d not in MX:
            return int_bits(int(v), d)
    elif d == "i4":
        if s_float:
            v = integral(v, mode)
        v = 7.0 if not v < 7.0 else v                  # clamp_value: NaN gives 7
        v = v if -8.0 < v else -8.0
        return math.trunc(v) & 0xF
    elif s_float or (s in MX and d in FLOATS):
        v = integral(v, mode)
    if d in MX:
        return mx_from_double(v, d)
    if d in FLOATS:
        return round_bits(v, d)
    return int_bits(math.trunc(v), d)
