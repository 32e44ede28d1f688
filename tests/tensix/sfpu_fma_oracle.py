"""A scalar oracle for the Wormhole SFPU multiply-add (SFPMAD and every instruction built on it), written
from the published description of the model (tt-isa-documentation ``Miscellaneous/FMA/fma.c``,
``fma_model_wh``, described in words in :mod:`tilesim.tensix.sfpu.fma`) with exact ``Fraction`` values.

Where the fast path shifts bit fields, this computes the values: the exact product, its value on
the grid of the larger term, and the sum, then rounds as the description says:

- a term with exponent field ``e`` lives on the grid ``2**(e - 153)`` (24 significand bits + 3 guard bits);
- the product is rounded to odd on its grid (floor, then the last bit set if anything was dropped);
- the term with the smaller exponent is rounded to odd on the larger one's grid, unless it floors
  to zero, in which case it is zero ("semi-sticky");
- the exact sum is cut to 27 significant bits, the cut bits dropped and only the old last bit kept;
- round to nearest even on the 3 guard bits; Inf above the range; +0 (unsigned) below it.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["fma_oracle", "fma_doc_oracle"]

INF, NAN_BITS = 0x7F800000, 0x7F800001


def _fields(v: int) -> tuple[int, int, int]:
    return v >> 31, (v >> 23) & 255, v & 0x7FFFFF


def _grid(e: int) -> Fraction:
    return Fraction(2) ** (e - 153)


def _round_to_odd(x: Fraction, unit: Fraction, semi: bool) -> int:
    """``x`` (>= 0) as a multiple of ``unit``: floor, last bit set when inexact (not when the floor is 0
    and ``semi``)."""
    q, r = divmod(x, unit)
    q = int(q)
    if r and (q or not semi):
        q |= 1
    return q


def fma_oracle(a: int, b: int, c: int) -> int:
    """``a * b + c`` on FP32 bit patterns, Wormhole SFPU rules."""
    sa, ea, fa = _fields(a)
    sb, eb, fb = _fields(b)
    sc, ec, fc = _fields(c)
    ps = sa ^ sb
    ma = 0 if ea == 0 else fa | 1 << 23          # exponent 0 is zero: denormals flush
    mb = 0 if eb == 0 else fb | 1 << 23
    mc = 0 if ec == 0 else fc | 1 << 23
    pe = ea + eb - 127                           # the product's exponent field, before normalising
    a_nan, b_nan, c_nan = ea == 255 and fa != 0, eb == 255 and fb != 0, ec == 255 and fc != 0
    a_inf, b_inf, c_inf = ea == 255 and fa == 0, eb == 255 and fb == 0, ec == 255 and fc == 0
    big_product = ea == 255 or eb == 255 or pe >= 255
    product = Fraction(ma * mb, 2 ** 46) * Fraction(2) ** (ea + eb - 254)
    p = _round_to_odd(product, _grid(pe), semi=False) if pe >= 0 else 0
    nan = 0
    if big_product or ec == 255:
        if a_nan or b_nan or (a_inf and mb == 0) or (b_inf and ma == 0) or (c_inf and big_product and sc != ps):
            nan = ps << 31 | NAN_BITS            # invalid: the product's sign
        elif c_nan:
            nan = sc << 31 | NAN_BITS            # a NaN addend: its sign
        elif c_inf:
            return c
        else:
            return ps << 31 | INF
        pe = min(pe, 255)                        # the significand stays: an overflowed product is cut back
    if p == 0 or pe < 0:
        if not nan:
            return c if mc else 0                # c as it is (an exponent-0 c gives +0)
        p, pe = 0, 0
    re = max(pe, ec)
    unit = _grid(re)
    pv = _round_to_odd(p * _grid(pe), unit, semi=True)
    cv = _round_to_odd(Fraction(mc * 8) * _grid(ec), unit, semi=True)
    rs = ps if pv >= cv else sc
    total = abs(pv - cv) if ps != sc else pv + cv
    if total == 0:
        return nan
    shift = total.bit_length() - 27
    re += shift
    if re >= 255:
        return nan or (rs << 31 | INF)
    if re < 0:
        return nan
    sig = total << -shift if shift <= 0 else (total >> shift) | (total & 1)
    q, guard = sig >> 3, sig & 7               # q: 24 bits, the leading one included
    up = guard > 4 or (guard == 4 and q & 1)   # to nearest, ties to even
    r = (re << 23) + (q - (1 << 23)) + up      # a carry out of the significand bumps the exponent
    if r >> 23 == 0:
        return nan
    return (nan or rs << 31) | r


def fma_doc_oracle(a: int, b: int, c: int) -> int:
    """``SFPMAD.md``'s statement of the operation: denormal inputs are zero, the exact ``a * b + c`` is
    rounded once (to nearest, ties to even, IEEE overflow to Inf), a denormal or -0 result is +0;
    NaN and Inf follow IEEE 754 (a NaN result is 0x7FC00001)."""
    vals = []
    for v in (a, b, c):
        s, e, f = _fields(v)
        if e == 255:
            vals.append(float("nan") if f else (-1) ** s * float("inf"))
        else:
            vals.append(Fraction(0) if e == 0 else (-1) ** s * Fraction(f | 1 << 23, 1 << 23) * Fraction(2) ** (e - 127))
    x, y, z = vals
    if any(isinstance(v, float) for v in vals):
        r = float(x) * float(y) + float(z)
        if r != r:
            return 0x7FC00001
        return 0x7F800000 if r > 0 else 0xFF800000
    exact = x * y + z
    if exact == 0:
        return 0
    sign, mag = int(exact < 0), abs(exact)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if mag < Fraction(2) ** e:
        e -= 1
    if e < -126:                                 # IEEE rounds on the denormal grid; a denormal result is +0
        q, r = divmod(mag / Fraction(2) ** -149, 1)
        q = int(q) + (r > Fraction(1, 2) or (r == Fraction(1, 2) and int(q) & 1))
        return sign << 31 | 0x00800000 if q >> 23 else 0
    q, r = divmod(mag / Fraction(2) ** (e - 23), 1)
    q = int(q) + (r > Fraction(1, 2) or (r == Fraction(1, 2) and int(q) & 1))
    if q >> 24:
        q, e = q >> 1, e + 1
    if e > 127:
        return sign << 31 | INF
    return sign << 31 | (e + 127) << 23 | (q - (1 << 23))
