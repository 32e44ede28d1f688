"""TCVT to and from the 4-bit dtypes on ``cpu``, as pto-isa's CPU simulator computes it (decision PTO153).

The simulator (include/pto/cpu/TCvt.hpp ``convert_value``, ``TCvt_Impl``; include/pto/common/type.hpp
``int4b_t``; include/pto/cpu/MXTypes.hpp ``MXType``) converts element by element through ``double``:

* reading: an ``int4b_t`` is its low nibble, sign-extended; an fp4 code is ``MXType::operator double``
  (:func:`fp4_values`: the OCP-style value, except that the code for -0 reads as +0);
* saturation (on, and the source not fp4): the double is clamped to the intersection of both types' ranges
  (``SafeLimits``: int4 -8..7, E2M1 +-6, E1M2 -4..3.5, f16 +-65504, else the C++ limits; NaN to the upper
  limit) and cast back to the source type;
* fp4 to fp4: the raw code is copied (E1M2 <-> E2M1 keep the bits);
* from int4: to an integer type a C cast of the value (wraps); otherwise ``static_cast<D>(double)``;
* to int4: a float source is first rounded to an integral value by the round mode (fp4 and integer
  sources are not), then clamped to -8..7 (NaN to 7) and truncated into the nibble;
* fp4 to a float, or a float to fp4: the double is rounded to an integral value by the mode first;
* to fp4: ``MXType(double)`` (:func:`mx_encode`): the exponent is rebiased and *masked* to the field, the
  mantissa truncated, so large values wrap and 0.5 (exponent field 0 with no implicit bit) gives 0;
* fp4 to an integer: the C++ cast of the double (truncation).

A ``MXType(double)`` whose subnormal shift reaches 64 bits is undefined in C++; x86-64 shifts by the count
mod 64, and those lanes are returned in the undefined mask.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..dtypes import FP4, INT4, DType
from . import convert_cpu

__all__ = ["SUB_BYTE", "convert", "fp4_values", "mx_encode", "value_of"]

#: the 4-bit dtypes this module converts
SUB_BYTE = FP4 + INT4
#: MXType template arguments: (exponent bits, mantissa bits, bias) of the simulator's fp4 types
_MX = {"f4e2m1": (2, 1, 1), "f4e1m2": (1, 2, 1)}
#: SafeLimits of the 4-bit types (TCvt.hpp)
_LIMITS = {"i4": (-8.0, 7.0), "f4e2m1": (-6.0, 6.0), "f4e1m2": (-4.0, 3.5)}


@lru_cache(maxsize=None)
def fp4_values(name: str) -> np.ndarray:
    """The 16 doubles ``MXType::operator double`` gives for the codes of fp4 dtype ``name``."""
    e_bits, m_bits, bias = _MX[name]
    out = np.zeros(16)
    for code in range(16):
        mant, exp, sign = code & ((1 << m_bits) - 1), (code >> m_bits) & ((1 << e_bits) - 1), code >> (m_bits + e_bits)
        if exp > 0:
            v = 2.0 ** (exp - bias) * (1 + mant / 2 ** m_bits)
        elif code in (0, 1 << (m_bits + e_bits)):   # +0, and -0 (written ``retVal = -0``: an integer, +0)
            v, sign = 0.0, 0
        else:
            v = mant * 2.0 ** (1 - bias - m_bits)
        out[code] = -v if sign else v
    return out


def value_of(bits: np.ndarray, s: DType) -> np.ndarray:
    """The double the simulator reads from lanes of ``s``."""
    if s.name == "i4":
        low = (bits & 0xF).astype(np.int64)
        return np.where(low >= 8, low - 16, low).astype(np.float64)
    if s.name in FP4:
        return fp4_values(s.name)[bits & 0xF]
    return convert_cpu._double_of(bits, s)


def mx_encode(x: np.ndarray, d: DType) -> tuple[np.ndarray, np.ndarray]:
    """(codes, undefined mask) of ``MXType<E, M, bias>(double)`` for fp4 dtype ``d``."""
    e_bits, m_bits, bias = _MX[d.name]
    u = np.asarray(x, np.float64).view(np.uint64)
    sign = (u >> np.uint64(63)).astype(np.int64)
    exp = ((u >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    man = (u & np.uint64((1 << 52) - 1)) >> np.uint64(52 - m_bits)
    oe = exp + bias - 1023
    sub = oe < 0
    shift = np.where(sub, 1 - oe, 0)
    undefined = sub & (exp > 0) & (shift >= 64)
    shifted = (man | np.uint64(1 << m_bits)) >> (shift & 63).astype(np.uint64)
    om = np.where(sub, shifted, man).astype(np.int64)
    oe = np.where(sub, 0, oe)
    code = (sign << (m_bits + e_bits)) | ((oe & ((1 << e_bits) - 1)) << m_bits) | (om & ((1 << m_bits) - 1))
    code = np.where((exp == 0) | (np.asarray(x) == 0), 0, code)   # zero, and double subnormals, give 0
    return code.astype(d.lane), undefined


def _limits(dt: DType) -> tuple[float, float]:
    return _LIMITS.get(dt.name) or convert_cpu._limits(dt)


def convert(bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> tuple[np.ndarray, np.ndarray]:
    """(destination lanes, undefined mask) of the simulator's TCVT where ``s`` or ``d`` is a 4-bit dtype."""
    with np.errstate(all="ignore"):
        return _convert(bits, s, d, mode, saturate)


def _convert(bits: np.ndarray, s: DType, d: DType, mode: str, saturate: bool) -> tuple[np.ndarray, np.ndarray]:
    undefined = np.zeros(bits.shape, bool)
    if s.name in FP4 and d.name in FP4:
        return (bits & 0xF).astype(d.lane), undefined
    x = value_of(bits, s)
    if saturate and s.name not in FP4:
        (slo, shi), (dlo, dhi) = _limits(s), _limits(d)
        lo, hi = max(slo, dlo), min(shi, dhi)
        x = np.where(x < hi, x, hi)      # std::min(hi, v): NaN -> hi
        x = np.where(lo < x, x, lo)
        if s.name == "i4":
            x = np.trunc(x)
        elif s.is_float:  # x, or a limit of a 4-bit type (-8, 7, +-6, -4, 3.5): exact in the source type
            x = x.astype(s.np).astype(np.float64)
        else:
            x, undefined = convert_cpu._round_to_source(x, s, False)
    s_float = s.is_float and s.name not in FP4           # TCvt.hpp's is_float_like_v
    if s.name == "i4":
        if d.name == "i4":
            return (x.astype(np.int64) & 0xF).astype(d.lane), undefined
        if d.is_int:
            return x.astype(np.int64).astype(d.np).view(d.lane), undefined
    elif d.name == "i4":
        if s_float:
            x = convert_cpu._integral(x, mode)
        x = np.where(x < 7.0, x, 7.0)
        x = np.where(-8.0 < x, x, -8.0)
        return (np.trunc(x).astype(np.int64) & 0xF).astype(d.lane), undefined
    elif s_float or (s.name in FP4 and d.is_float):
        x = convert_cpu._integral(x, mode)
    if d.name in FP4:
        codes, bad = mx_encode(x, d)
        return codes, undefined | bad
    if d.is_float:  # an int4 or fp4 value, or one rounded to an integer in -6..6: exact in f16, bf16 and f32
        return x.astype(d.np).view(d.lane), undefined
    lanes, bad = convert_cpu.x86_cast(x, d)                # an fp4 value to an integer type: truncation
    return lanes, undefined | bad
