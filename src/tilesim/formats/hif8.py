"""HiFloat8 (HiF8): Huawei's tapered-precision 8-bit float, as a code table and a rounding step.

A code is a sign bit and seven bits that begin with a prefix-coded *dot* field
(Luo et al., "Ascend HiFloat8 Format for Deep Learning", arXiv 2409.16626):
``11``, ``10``, ``01``, ``001``, ``0001`` give an exponent field of D = 4, 3,
2, 1, 0 bits, and the mantissa takes the rest (1, 2, 3, 3, 3 bits). The
exponent is sign-magnitude with an implicit leading 1 in the magnitude
(D bits hold E = ±[2**(D-1), 2**D - 1]; D = 0 holds E = 0), so the value is
``(-1)**S * 2**E * (1 + M / 2**m)``. Dot ``0000`` is the denormal mode: its
3-bit field M gives ``(-1)**S * 2**(M - 23)`` for M = 1..7; ``0x00`` is zero
and ``0x80`` (the would-be -0) NaN. E = 15 with M = 1 (``0x6F``, ``0xEF``)
is ±Inf, so the largest finite value is 2**15 (``0x6E``).

Rounding (:func:`encode_parts`) works on each value's own quantum,
``2**(E - m(E))``: 3 mantissa bits for |E| <= 3, 2 for 4..7, 1 for 8..15,
none in the denormal range 2**-22 .. 2**-16, and 2**-22 below it. A result
of 1.5 * 2**15 or more (the Inf code's place) overflows. The paper rounds
ties away from zero (``rmm``); the other modes of :class:`Rounding` round at
the same quantum (``rne``: ties to the even multiple of it). Decision PTO182.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np

from .rounding import FINITE, INF, NAN, U64, Parts, Rounding, bit_length, round_at

__all__ = ["VALUES", "MAX_CODE", "INF_CODE", "NAN_CODE", "parts_table", "encode_parts", "mantissa_bits"]

NAN_CODE, INF_CODE, MAX_CODE = 0x80, 0x6F, 0x6E
EMAX, EMIN, EMIN_DENORMAL = 15, -15, -22

#: (prefix, its length, exponent bits D) of the normal modes
_DOTS = ((0b11, 2, 4), (0b10, 2, 3), (0b01, 2, 2), (0b001, 3, 1), (0b0001, 4, 0))


def _fields(code: int) -> tuple[int, int, int, int] | None:
    """(sign, E, M, mantissa bits) of a normal code, or None for the denormal mode (dot 0000)."""
    sign, rest = code >> 7, code & 0x7F
    for prefix, n, d in _DOTS:
        if rest >> (7 - n) == prefix:
            m = 7 - n - d
            e_field, man = (rest >> m) & ((1 << d) - 1), rest & ((1 << m) - 1)
            mag = (1 << (d - 1)) | (e_field & ((1 << (d - 1)) - 1)) if d else 0
            return sign, -mag if d and e_field >> (d - 1) else mag, man, m
    return None


def _value(code: int) -> Fraction | float:
    """The exact value of a code (a Fraction), or ``nan`` / ``±inf``."""
    f = _fields(code)
    if f is None:
        man = code & 0x7
        if man == 0:
            return float("nan") if code & 0x80 else Fraction(0)
        v = Fraction(2) ** (man - 23)
        return -v if code & 0x80 else v
    sign, e, man, m = f
    if e == EMAX and man == 1 and m == 1:
        return float("-inf") if sign else float("inf")
    v = Fraction(2) ** e * (1 + Fraction(man, 1 << m))
    return -v if sign else v


#: every code's value as float64 (exact: at most 4 significant bits, exponents -22..15)
VALUES = np.array([float(_value(c)) for c in range(256)])
#: the positive finite values in increasing order, and their codes (0 first)
_POS_CODES = np.array(sorted((c for c in range(128) if np.isfinite(VALUES[c])), key=lambda c: VALUES[c]), np.uint64)
_POS_VALUES = VALUES[_POS_CODES.astype(np.intp)]


@lru_cache(maxsize=None)
def parts_table() -> Parts:
    """Exact :class:`Parts` of the 256 codes (``sig * 2**exp``, sig odd or 0)."""
    sign = np.arange(256) >= 128
    sig, exp = np.zeros(256, U64), np.zeros(256, np.int64)
    cls = np.full(256, FINITE, np.int8)
    for c in range(256):
        v = _value(c)
        if isinstance(v, float):
            cls[c] = NAN if v != v else INF
            continue
        mag = abs(v)
        if mag:
            n, d = mag.numerator, mag.denominator       # d a power of two
            sig[c], exp[c] = n, -(d.bit_length() - 1)
    return Parts(sign & (np.arange(256) != NAN_CODE), sig, exp, np.zeros(256, bool), cls)


def mantissa_bits(e: np.ndarray) -> np.ndarray:
    """Mantissa bits of the normal values with exponent ``e`` (|e| <= 15): 3, 2 or 1."""
    a = np.abs(e)
    return np.where(a <= 3, 3, np.where(a <= 7, 2, 1))


def encode_parts(p: Parts, mode: Rounding, saturate: bool, flush: bool, to_max: np.ndarray):
    """HiF8 codes (uint8) of exact values, and the flags' arrays ``(inexact, overflow, tiny, clamped)``.

    NaN gives ``0x80``; ±Inf gives ±Inf (±2**15 when ``saturate``); an overflow gives ±Inf, or ±2**15 where
    ``to_max`` holds (saturation, and IEEE 754 §7.4's directed modes, as for the other formats); ``flush`` makes
    denormal-mode results zero. A result of zero is ``0x00`` whatever the sign (HiF8 has no -0).
    """
    sign, fin = p.sign, p.cls == FINITE
    nz = fin & ((p.sig != 0) | p.sticky)
    E = np.where(nz, p.exp + bit_length(p.sig) - 1, 0)
    big = nz & (E > EMAX + 1)
    if np.any(big):  # a stand-in above the range keeps every shift in range
        E = np.where(big, EMAX + 2, E)
        p = Parts(sign, np.where(big, U64(1), p.sig), np.where(big, E, p.exp), p.sticky & ~big, p.cls)
    q = np.where(E >= EMIN, np.minimum(E, EMAX) - mantissa_bits(np.clip(E, EMIN, EMAX)),
                 np.maximum(E, EMIN_DENORMAL))
    kept, inexact = round_at(p, q, mode)
    mag = np.ldexp(kept.astype(np.float64), q)
    over = nz & (mag > _POS_VALUES[-1])
    at = np.searchsorted(_POS_VALUES, np.minimum(mag, _POS_VALUES[-1]))
    code = np.where(nz, _POS_CODES[at], U64(0))
    code = np.where(over, np.where(to_max, U64(MAX_CODE), U64(INF_CODE)), code)
    tiny = nz & (E < EMIN) & inexact
    if flush:
        flushed = nz & (code != 0) & (code < U64(0x08))
        code = np.where(flushed, U64(0), code)
        inexact = inexact | flushed
    code = np.where(p.cls == INF, U64(MAX_CODE if saturate else INF_CODE), code)
    code = np.where(sign & (code != 0), code | U64(0x80), code)
    code = np.where(p.cls == NAN, U64(NAN_CODE), code)
    clamped = (over & to_max) | ((p.cls == INF) & saturate)
    return code.astype(np.uint8), (inexact & nz, over, tiny, clamped)
