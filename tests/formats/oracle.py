"""A slow, scalar oracle for the format core, written from the format definitions
and docs/decisions.md alone (F1-F7). It uses only a format's primary fields
(width, sign, exponent/mantissa widths, bias, domain, fraction bits) and exact
``fractions.Fraction`` arithmetic; it shares no code with ``tilesim.formats``.

Values are Fractions, or the strings ``"nan"``, ``"+inf"``, ``"-inf"``.
Negative zero is the string ``"-0"``.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from functools import lru_cache

from tilesim.formats import Domain, Format

MODES = ("rne", "rtz", "rup", "rdn", "rmm")


# ------------------------------------------------------------------ decode
def value_of(code: int, f: Format):
    """The value of a lane code, from the bit fields."""
    if f.kind.value != "float":
        raw = (code >> f.lane_shift) & ((1 << f.bits) - 1)
        if f.signed and raw >= 1 << (f.bits - 1):
            raw -= 1 << f.bits
        return Fraction(raw, 1 << f.frac_bits)
    c = (code >> f.lane_shift) & ((1 << f.bits) - 1)
    m, e_bits = f.man_bits, f.exp_bits
    neg = f.signed and (c >> (f.bits - 1)) & 1
    e = (c >> m) & ((1 << e_bits) - 1)
    man = c & ((1 << m) - 1)
    if f.domain is Domain.SCALE:
        return "nan" if e == (1 << e_bits) - 1 else Fraction(2) ** (e - f.bias)
    top = e == (1 << e_bits) - 1
    if f.domain is Domain.IEEE and top:
        if man:
            return "nan"
        return "-inf" if neg else "+inf"
    if f.domain is Domain.FN and top and man == (1 << m) - 1:
        return "nan"
    if e == 0:
        v = Fraction(man, 1 << m) * Fraction(2) ** (1 - f.bias)
    else:
        v = (1 + Fraction(man, 1 << m)) * Fraction(2) ** (e - f.bias)
    if neg:
        return "-0" if v == 0 else -v
    return v


def codes_of(f: Format):
    """Every canonical lane code."""
    for raw in range(1 << f.bits):
        if f.kind.value != "float" and f.signed and raw >= 1 << (f.bits - 1):
            yield (raw - (1 << f.bits)) & ((1 << f.lane_bits) - 1)
        else:
            yield raw << f.lane_shift


@lru_cache(maxsize=None)
def finite_table(f: Format):
    """Sorted finite values and, for each, its code (+0 for zero)."""
    best = {}
    for c in codes_of(f):
        v = value_of(c, f)
        if not isinstance(v, str):
            best.setdefault(v, c)
    vals = sorted(best)
    return vals, [best[v] for v in vals]


def _floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def _wide(f: Format) -> bool:
    """Formats too wide for a table of every code (only IEEE-like ones are wide)."""
    return f.bits > 16


def max_value(f: Format) -> Fraction:
    if _wide(f):
        assert f.domain is Domain.IEEE
        return (2 - Fraction(1, 1 << f.man_bits)) * Fraction(2) ** ((1 << f.exp_bits) - 2 - f.bias)
    return finite_table(f)[0][-1]


def max_code(f: Format) -> int:
    if _wide(f):
        return ((((1 << f.exp_bits) - 1) << f.man_bits) - 1) << f.lane_shift
    return finite_table(f)[1][-1]


def zero_code(f: Format) -> int:
    return 0


def neighbours(a: Fraction, f: Format):
    """(lo, lo_code, hi, hi_code) with lo <= a <= hi, for 0 < a <= max; lo is None below E8M0's range."""
    if not _wide(f):
        vals, codes = finite_table(f)
        i = bisect.bisect_left(vals, a)
        if vals[i] == a:
            return a, codes[i], a, codes[i]
        return (vals[i - 1] if i else None), (codes[i - 1] if i else None), vals[i], codes[i]
    m, emin = f.man_bits, 1 - f.bias
    qexp = max(_floor_log2(a), emin) - m
    q = Fraction(2) ** qexp
    k = math.floor(a / q)

    def code(n, qe):
        if n == 1 << (m + 1):
            n, qe = n >> 1, qe + 1
        if n < 1 << m:
            return n << f.lane_shift
        return ((((qe + m - emin + 1) << m) | (n - (1 << m)))) << f.lane_shift

    if k * q == a:
        return a, code(k, qexp), a, code(k, qexp)
    return k * q, code(k, qexp), (k + 1) * q, code(k + 1, qexp)


def step_above_max(f: Format) -> Fraction:
    """The value the next code above max would have with an unbounded exponent."""
    mx = max_value(f)
    if f.domain is Domain.SCALE:
        return 2 * mx
    return mx + Fraction(2) ** (_floor_log2(mx) - f.man_bits)


def _mag_code(code: int, f: Format) -> int:
    c = code >> f.lane_shift
    return c & ((1 << (f.bits - 1)) - 1) if f.signed else c


def _nan(f):
    if f.domain is Domain.IEEE:
        return ((((1 << f.exp_bits) - 1) << f.man_bits) | (1 << (f.man_bits - 1))) << f.lane_shift
    if f.domain in (Domain.FN, Domain.SCALE):
        return ((1 << (f.bits - int(f.signed))) - 1) << f.lane_shift
    return None


def _signed(code: int, f: Format, neg: bool) -> int:
    if neg and f.signed and f.kind.value == "float":
        return code | (1 << (f.bits - 1 + f.lane_shift))
    return code


# ------------------------------------------------------------------ encode
def _round_int(x: Fraction, mode: str) -> int:
    fl = math.floor(x)
    r = x - fl
    if r == 0:
        return fl
    if mode == "rtz":
        return fl if x > 0 else fl + 1
    if mode == "rup":
        return fl + 1
    if mode == "rdn":
        return fl
    if r > Fraction(1, 2):
        return fl + 1
    if r < Fraction(1, 2):
        return fl
    if mode == "rmm":
        return fl + 1 if x > 0 else fl
    return fl if fl % 2 == 0 else fl + 1


def _encode_integer(x, f: Format, mode: str, saturate: bool):
    lo, hi = -(1 << (f.bits - 1)) if f.signed else 0, (1 << (f.bits - 1)) - 1 if f.signed else (1 << f.bits) - 1
    lane = (1 << f.lane_bits) - 1
    flags = set()

    def lanecode(n):
        return n & lane if f.signed else n

    if x == "nan":
        return lanecode(hi), {"invalid"}
    if x in ("+inf", "-inf"):
        return lanecode(lo if x == "-inf" else hi), {"invalid", "saturated"}
    if x == "-0":
        x = Fraction(0)
    n = _round_int(x * (1 << f.frac_bits), mode)
    if n != x * (1 << f.frac_bits):
        flags.add("inexact")
    if not lo <= n <= hi:
        flags |= {"overflow", "inexact"}
        if saturate:
            n = lo if n < lo else hi
            flags.add("saturated")
        else:
            n = ((n - lo) % (1 << f.bits)) + lo if f.signed else n % (1 << f.bits)
    return lanecode(n), flags


def encode(x, f: Format, mode: str = "rne", saturate: bool = False, flush: bool = False):
    """(code, flags) for one value, per docs/decisions.md F3-F7."""
    if f.kind.value != "float":
        return _encode_integer(x, f, mode, saturate)
    mx, mxc = max_value(f), max_code(f)
    nan = _nan(f)
    scale = f.domain is Domain.SCALE
    flags: set[str] = set()
    if x == "nan":
        return (nan, set()) if nan is not None else (mxc, {"invalid"})
    if x in ("+inf", "-inf"):
        neg = x == "-inf"
        if not f.signed and neg:
            if saturate and not scale:
                return 0, {"saturated"}
            return (nan if nan is not None else 0), {"invalid"}
        if f.domain is Domain.IEEE and not saturate:
            return _signed(((1 << f.exp_bits) - 1) << f.man_bits << f.lane_shift, f, neg), set()
        if saturate or nan is None:
            fl = {"saturated"} if saturate else {"invalid", "saturated"}
            return _signed(mxc, f, neg), fl
        return nan, {"invalid"}
    neg = x == "-0" or (x < 0)
    a = Fraction(0) if x == "-0" else abs(x)
    if scale and (a == 0 or neg):
        return nan, {"invalid"}
    if a == 0:
        return _signed(zero_code(f), f, neg) if f.signed else 0, set()
    # rounding direction relative to the magnitude
    if mode in ("rup", "rdn"):
        away = (mode == "rup") != neg
        mmode = "up" if away else "down"
    else:
        mmode = {"rne": "even", "rmm": "away", "rtz": "down"}[mode]
    top = step_above_max(f)
    if a > mx:
        # candidates: mx and the virtual code above it
        if mmode == "down":
            res = "ovf" if a >= top else "max"
        elif mmode == "up" or a > top:
            res = "ovf"
        else:
            mid = (mx + top) / 2
            if a < mid:
                res = "max"
            elif a > mid:
                res = "ovf"
            else:
                res = "ovf" if mmode == "away" or (_mag_code(mxc, f) % 2 == 1) else "max"
        flags.add("inexact")
        if res == "ovf":
            flags.add("overflow")
            if saturate or f.domain is Domain.FINITE:
                code, flags = mxc, flags | {"saturated"}
            elif mode == "rtz" or (mode == "rup" and neg) or (mode == "rdn" and not neg):
                code = mxc
            elif f.domain is Domain.IEEE:
                code = ((1 << f.exp_bits) - 1) << f.man_bits << f.lane_shift
            else:
                return nan, flags
        else:
            code = mxc
    else:
        lo_v, lo_c, hi_v, hi_c = neighbours(a, f)
        if hi_v == a:
            code = hi_c
        else:
            flags.add("inexact")
            if lo_v is None:  # E8M0 below its smallest value
                code = hi_c
                flags.add("underflow")
            else:
                if mmode == "down":
                    pick = "lo"
                elif mmode == "up":
                    pick = "hi"
                else:
                    mid = (lo_v + hi_v) / 2
                    if a != mid:
                        pick = "lo" if a < mid else "hi"
                    elif mmode == "away":
                        pick = "hi"
                    else:
                        pick = "lo" if _mag_code(lo_c, f) % 2 == 0 else "hi"
                code = lo_c if pick == "lo" else hi_c
                if _tiny_after_rounding(a, f, mmode):
                    flags.add("underflow")
    rv = value_of(code, f)
    if flush and not scale and rv != 0 and not isinstance(rv, str) and rv < Fraction(2) ** (1 - f.bias):
        code = zero_code(f)
        flags |= {"inexact", "underflow"}
    if not f.signed and neg:
        if value_of(code, f) == 0:
            return 0, flags
        if saturate:
            return 0, {"saturated", "inexact"} | (flags & {"overflow"})
        return (nan if nan is not None else 0), {"invalid"}
    return _signed(code, f, neg), flags


def _tiny_after_rounding(a: Fraction, f: Format, mmode: str) -> bool:
    """Rounded to m+1 significant bits with an unbounded exponent, is |a| below 2**emin?"""
    if f.domain is Domain.SCALE:
        return False
    emin = 1 - f.bias
    if a >= Fraction(2) ** emin:
        return False
    q = Fraction(2) ** (_floor_log2(a) - f.man_bits)
    y = a / q
    fl = math.floor(y)
    if y == fl:
        n = fl
    elif mmode == "down":
        n = fl
    elif mmode == "up":
        n = fl + 1
    elif y - fl != Fraction(1, 2):
        n = fl + 1 if y - fl > Fraction(1, 2) else fl
    elif mmode == "away":
        n = fl + 1
    else:
        n = fl if fl % 2 == 0 else fl + 1
    return n * q < Fraction(2) ** emin


def as_value(x: float):
    """A Python float as an oracle value."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    if x == 0 and math.copysign(1, x) < 0:
        return "-0"
    return Fraction(x)
