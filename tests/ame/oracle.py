"""A slow, scalar oracle of MMACC, written from the proposal (v0.14_1)
alone, with docs/decisions.md F1-F8 (the
format overflow policies) and AME1-AME14 for the gaps.

It shares no code with ``tilesim.ame``. From ``tilesim.formats`` it reads only
a format record's primary fields (widths, bias, domain, fraction bits): the
definitions of F1. It decodes lane codes from their bits, reads and writes
tile bytes itself, sums with ``fractions.Fraction``, and has its own rounding.

Values: a non-zero finite value is a ``Fraction``; zeros are ``"+0"``/``"-0"``;
specials are ``"nan"``, ``"+inf"``, ``"-inf"``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from tilesim.formats import Domain, Format, get

# ------------------------------------------------------------ the decisions' tables
# FormatType codes (ame_decisions.md, "Formats")
FT = {0x00: "int8", 0x10: "int8", 0x01: "int4", 0x02: "fp4_e2m1", 0x03: "fp4_e1m2", 0x04: "uf4_e2m2",
      0x05: "uf4_e1m3", 0x06: "fp6_e3m2", 0x07: "fp6_e2m3", 0x08: "fp6_e4m1", 0x09: "uf6_e4m2",
      0x11: "fp8_e4m3", 0x12: "fp8_e5m2", 0x13: "e8m0", 0x14: "q4_3", 0x15: "q2_5", 0x18: "int12",
      0x19: "fp12_e5m6", 0x1A: "fp12_e4m7", 0x1B: "q4_8", 0x1C: "q5_7", 0x20: "int16", 0x28: "fp16",
      0x29: "bf16", 0x2A: "uf16_e8m8", 0x2B: "q8_8", 0x40: "int32", 0x48: "fp32", 0x49: "tf32",
      0x4A: "q16_16", 0x80: "int64", 0x88: "fp64", 0x8A: "q32_32"}

# Accumulator format when bOVF = 0 (bOVF = 1: the input format). AME2 fills int12, int64, fp12, q32_32.
FULL = {"int4": "int8", "int8": "int16", "int12": "fix24_0", "int16": "int32", "int32": "int64", "int64": "int64",
        "fp4_e2m1": "fp16", "fp4_e1m2": "fp16", "fp6_e3m2": "fp16", "fp6_e2m3": "fp16", "fp6_e4m1": "fp16",
        "uf4_e2m2": "fp32", "uf4_e1m3": "fp32", "uf6_e4m2": "fp32", "fp8_e4m3": "fp16", "fp8_e5m2": "fp16",
        "e8m0": "fp32", "fp12_e5m6": "fp32", "fp12_e4m7": "fp32", "fp16": "fp32", "bf16": "fp32",
        "uf16_e8m8": "fp32", "tf32": "fp32", "fp32": "fp32", "fp64": "fp64", "q4_3": "fix16_6",
        "q2_5": "fix16_10", "q4_8": "fix24_16", "q5_7": "fix24_14", "q8_8": "q16_16", "q16_16": "q32_32",
        "q32_32": "q32_32"}

RND = ("rne", "rup", "rdn", "rtz")  # the seed's numbering
TILING = {0: (1, 1), 1: (2, 2), 2: (1, 4), 3: (4, 1)}


def fmt(name: str) -> Format:
    from tilesim.formats import fixed
    if name.startswith("fix"):
        w, f = name[3:].split("_")
        return fixed(int(w), int(f))
    return get(name)


def is_float(f: Format) -> bool:
    return f.kind.value == "float"


def per_row(f: Format) -> int:
    return 128 // f.lane_bits


# ---------------------------------------------------------------- tile bytes
def read_lane(tiles, t: int, r: int, c: int, f: Format) -> int:
    row = tiles[t][16 * r: 16 * r + 16]
    if f.lane_bits == 4:
        return (int(row[c // 2]) >> (4 * (c % 2))) & 0xF
    n = f.lane_bits // 8
    return int.from_bytes(bytes(int(x) for x in row[n * c: n * c + n]), "little")


def write_lane(tiles, t: int, r: int, c: int, f: Format, lane: int) -> None:
    base = 16 * r
    if f.lane_bits == 4:
        b = int(tiles[t][base + c // 2])
        sh = 4 * (c % 2)
        tiles[t][base + c // 2] = (b & ~(0xF << sh) & 0xFF) | (lane << sh)
        return
    n = f.lane_bits // 8
    for i, byte in enumerate(lane.to_bytes(n, "little")):
        tiles[t][base + n * c + i] = byte


def code_of_lane(lane: int, f: Format) -> int:
    """The ``bits`` code field of a lane (padding ignored, as a reader of the tile does)."""
    return (lane >> f.lane_shift) & ((1 << f.bits) - 1)


def lane_of_code(code: int, f: Format) -> int:
    """The lane holding a code: signed integers sign-extended, everything else zero-padded."""
    if not is_float(f) and f.signed and code >> (f.bits - 1):
        return (code | (((1 << f.lane_bits) - 1) ^ ((1 << f.bits) - 1))) & ((1 << f.lane_bits) - 1)
    return code << f.lane_shift


# ---------------------------------------------------------------- values
def float_value(code: int, f: Format):
    m, e_bits = f.man_bits, f.exp_bits
    neg = f.signed and (code >> (f.bits - 1)) & 1
    e = (code >> m) & ((1 << e_bits) - 1)
    man = code & ((1 << m) - 1)
    top = e == (1 << e_bits) - 1
    if f.domain is Domain.SCALE:
        return "nan" if top else Fraction(2) ** (e - f.bias)
    if f.domain is Domain.IEEE and top:
        return "nan" if man else ("-inf" if neg else "+inf")
    if f.domain is Domain.FN and top and man == (1 << m) - 1:
        return "nan"
    v = Fraction(man if e == 0 else (1 << m) | man, 1 << m) * Fraction(2) ** ((e if e else 1) - f.bias)
    if v == 0:
        return "-0" if neg else "+0"
    return -v if neg else v


def int_value(code: int, f: Format) -> int:
    """The integer of a code, in units of 2**-frac."""
    if f.signed and code >> (f.bits - 1):
        return code - (1 << f.bits)
    return code


def is_zero(v) -> bool:
    return v in ("+0", "-0")


def mul(a, b):
    if a == "nan" or b == "nan":
        return "nan"
    inf_a, inf_b = a in ("+inf", "-inf"), b in ("+inf", "-inf")
    neg = _neg(a) != _neg(b)
    if inf_a or inf_b:
        if is_zero(a) or is_zero(b):
            return "nan"
        return "-inf" if neg else "+inf"
    if is_zero(a) or is_zero(b):
        return "-0" if neg else "+0"
    return a * b


def _neg(v) -> bool:
    return v in ("-0", "-inf") or (isinstance(v, Fraction) and v < 0)


def add_all(terms, rdn: bool):
    """The exact sum of terms, with IEEE 754's specials and zero signs."""
    if "nan" in terms or ("+inf" in terms and "-inf" in terms):
        return "nan"
    for inf in ("+inf", "-inf"):
        if inf in terms:
            return inf
    s = sum((t for t in terms if isinstance(t, Fraction)), Fraction(0))
    if s != 0:
        return s
    if all(t == "-0" for t in terms):
        return "-0"
    if rdn and not all(t == "+0" for t in terms):
        return "-0"
    return "+0"


# ---------------------------------------------------------------- rounding
def max_value(f: Format) -> Fraction:
    m, e = f.man_bits, f.exp_bits
    if f.domain is Domain.IEEE:
        return (2 - Fraction(1, 1 << m)) * Fraction(2) ** ((1 << e) - 2 - f.bias)
    if f.domain is Domain.FN:
        return (2 - Fraction(2, 1 << m)) * Fraction(2) ** ((1 << e) - 1 - f.bias)
    if f.domain is Domain.FINITE:
        return (2 - Fraction(1, 1 << m)) * Fraction(2) ** ((1 << e) - 1 - f.bias)
    return Fraction(2) ** ((1 << e) - 2 - f.bias)  # SCALE: the all-ones code is NaN


def floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_int(x: Fraction, mode: str) -> int:
    """x rounded to an integer: rne, rup (toward +inf), rdn (toward -inf), rtz."""
    fl = math.floor(x)
    r = x - fl
    if r == 0 or mode == "rdn":
        return fl
    if mode == "rup":
        return fl + 1
    if mode == "rtz":
        return fl if x > 0 else fl + 1
    if r != Fraction(1, 2):
        return fl + (r > Fraction(1, 2))
    return fl if fl % 2 == 0 else fl + 1


def float_code(v: Fraction, neg: bool, f: Format) -> int:
    """The code of a representable magnitude ``v`` (> 0) with a sign."""
    m = f.man_bits
    if f.domain is Domain.SCALE:
        return floor_log2(v) + f.bias
    emin = 1 - f.bias
    if v < Fraction(2) ** emin:
        code = int(v / Fraction(2) ** (emin - m))
    else:
        e = floor_log2(v)
        code = ((e + f.bias) << m) | int(v / Fraction(2) ** (e - m)) - (1 << m)
    return code | (neg << (f.bits - 1)) if f.signed else code


def nan_code(f: Format) -> int:
    if f.domain is Domain.IEEE:  # positive quiet NaN (F5)
        return (((1 << f.exp_bits) - 1) << f.man_bits) | (1 << (f.man_bits - 1))
    return (1 << (f.exp_bits + f.man_bits)) - 1  # FN, SCALE: all ones (positive)


def round_float(x, f: Format, mode: str, saturate: bool):
    """(code, inexact, sat_hit) of an exact value rounded to float format f (F4-F6, AME overflow rule)."""
    sign_bit = (1 << (f.bits - 1)) if f.signed else 0
    if x == "nan":
        return nan_code(f), False, False
    if x in ("+inf", "-inf"):
        assert f.domain is Domain.IEEE, "only formats with Inf meet an infinite sum here"
        return (((1 << f.exp_bits) - 1) << f.man_bits) | (sign_bit if x == "-inf" else 0), False, False
    if is_zero(x):
        assert f.domain is not Domain.SCALE
        return (sign_bit if x == "-0" and f.signed else 0), False, False
    neg, a = x < 0, abs(x)
    assert f.signed or not neg, "unsigned accumulators only meet positive sums"
    up = (mode == "rup" and not neg) or (mode == "rdn" and neg)
    down = mode == "rtz" or (mode == "rup" and neg) or (mode == "rdn" and not neg)
    mx = max_value(f)
    if f.domain is Domain.SCALE:
        e = floor_log2(a)
        if e < -f.bias:  # below 2**-127: the smallest value stands in (F6)
            return 0, True, False
        lo, hi = Fraction(2) ** e, Fraction(2) ** (e + 1)
        if a == lo:
            r = lo
        elif up:
            r = hi
        elif down:
            r = lo
        else:
            mid = (lo + hi) / 2
            r = lo if a < mid else hi if a > mid else (lo if (e + f.bias) % 2 == 0 else hi)
    else:
        q = Fraction(2) ** (max(floor_log2(a), 1 - f.bias) - f.man_bits)
        r = round_int(a / q, "rup" if up else "rdn" if down else "rne") * q
    inexact = r != a
    if r > mx:
        if saturate or f.domain is Domain.FINITE:
            return float_code(mx, neg, f), True, True
        if down:
            return float_code(mx, neg, f), True, False
        if f.domain is Domain.IEEE:
            return (((1 << f.exp_bits) - 1) << f.man_bits) | (sign_bit if neg else 0), True, False
        return nan_code(f), True, False
    return float_code(r, neg, f), inexact, False


# ---------------------------------------------------------------- one result
def mac_float(c, prods, f: Format, mode: str, saturate: bool, model: str):
    """(code, inexact, sat_hit) of one result: C and its products in k order."""
    rdn = mode == "rdn"
    inexact = sat = False

    def rnd(x):
        nonlocal inexact, sat
        code, i, s = round_float(x, f, mode, saturate)
        inexact |= i
        sat |= s
        return code

    if model == "fused":
        return rnd(add_all([c] + prods, rdn)), inexact, sat
    acc = c if model == "sequential" else "+0"
    for p in prods:
        code = rnd(add_all([acc, p], rdn))
        acc = float_value(code, f)
    if model == "sequential":
        return code, inexact, sat
    return rnd(add_all([acc, c], rdn)), inexact, sat


def mac_int(c: int, prods: list[int], shift: int, f: Format, mode: str, saturate: bool, model: str):
    """(code, inexact, sat_hit): C in accumulator units, products in units 2**shift finer."""
    inexact = sat = False
    lo, hi = -(1 << (f.bits - 1)), (1 << (f.bits - 1)) - 1

    def fit(x: Fraction) -> int:
        nonlocal inexact, sat
        v = round_int(x, mode)
        inexact |= v != x
        if saturate and not lo <= v <= hi:
            sat = True
            return lo if v < lo else hi
        return (v - lo) % (1 << f.bits) + lo

    unit = Fraction(1, 1 << shift)
    if model == "fused":
        v = fit(c + sum(prods) * unit)
    else:
        v = c if model == "sequential" else 0
        for p in prods:
            v = fit(v + p * unit)
        if model == "chain_then_add":
            v = fit(Fraction(v + c))
    return v & ((1 << f.bits) - 1), inexact, sat


# ---------------------------------------------------------------- the instruction
class Trap(Exception):
    """The instruction traps (a badgeom rule, or an encoding rule of imm)."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


def mmacc(tiles, mxcfg: int, mxtile: int, status: int, tc: int, ta: int, tb: int, imm: int, transposed: bool,
          model: str):
    """Run one MMACC (``transposed``: MMACC.T) on a copy of ``tiles`` (a list of 32 lists of 256 ints).

    Returns (new tiles, new status) or raises :class:`Trap`.
    """
    if imm < 0 or imm >> 3:
        raise Trap("ame.imm.reserved")
    beta, btr = imm & 1, (imm >> 1) & 3
    if transposed:
        if btr not in (0, 1):
            raise Trap("ame.imm.btr")
        btr = 1
    ft_code, bovf, rnd, sat = mxcfg & 0xFF, (mxcfg >> 8) & 1, (mxcfg >> 9) & 7, (mxcfg >> 12) & 1
    k, m, tiling, guard = mxtile & 0xFF, (mxtile >> 8) & 0xFF, (mxtile >> 16) & 3, (mxtile >> 18) & 1
    if ft_code not in FT:
        raise Trap("ame.geom.ft")
    if rnd > 3:
        raise Trap("ame.geom.rnd")
    ft = fmt(FT[ft_code])
    if not 1 <= k <= per_row(ft):
        raise Trap("ame.geom.k")
    if not 1 <= m <= 16:
        raise Trap("ame.geom.m")
    if btr != 1 and m != k:
        raise Trap("ame.geom.btr")
    acc = fmt(FT[ft_code] if bovf else FULL[FT[ft_code]])
    e_acc = per_row(acc)
    per_result = -(-m // e_acc)
    fallback = False
    if guard:
        n_a, n_b = 4, 4
        if not (acc.lane_bits <= 16 and 16 * per_result <= 32):
            (n_a, n_b), fallback = TILING[1], True
    else:
        n_a, n_b = TILING[tiling]
    if not (0 <= ta and ta + n_a <= 32):
        raise Trap("ame.geom.tile")
    if not (0 <= tb and tb + n_b <= 32):
        raise Trap("ame.geom.tile")
    if not (0 <= tc and tc + n_a * n_b * per_result <= 32):
        raise Trap("ame.geom.tile")

    mode = RND[rnd]
    new = [list(t) for t in tiles]
    inexact = sat_hit = False
    for i in range(n_a):
        for j in range(n_b):
            A = [[read(tiles, ta + i, r, c, ft) for c in range(k)] for r in range(m)]
            B = [[read(tiles, tb + j, r, c, ft) for c in range(k)] for r in range(m)]
            first = tc + (i * n_b + j) * per_result
            for r in range(m):
                for col in range(m):
                    if btr == 0b00:
                        pairs = [(A[r][x], B[x][col]) for x in range(k)]
                    elif btr == 0b01:
                        pairs = [(A[r][x], B[col][x]) for x in range(k)]
                    elif btr == 0b10:
                        pairs = [(A[x][r], B[x][col]) for x in range(k)]
                    else:
                        pairs = [(A[x][r], B[col][x]) for x in range(k)]
                    t, cc = first + col // e_acc, col % e_acc
                    old = code_of_lane(read_lane(tiles, t, r, cc, acc), acc)
                    if is_float(ft):
                        c_val = "+0" if beta else float_value(old, acc)
                        code, ie, sh = mac_float(c_val, [mul(x, y) for x, y in pairs], acc, mode,
                                                 bool(sat) and acc.domain is not Domain.IEEE, model)
                    else:
                        c_val = 0 if beta else int_value(old, acc)
                        shift = 2 * ft.frac_bits - acc.frac_bits
                        code, ie, sh = mac_int(c_val, [x * y for x, y in pairs], shift, acc, mode,
                                               bool(sat) and not bovf, model)
                    inexact |= ie
                    sat_hit |= sh
                    write_lane(new, t, r, cc, acc, lane_of_code(code, acc))
    status |= fallback | (inexact << 2) | (sat_hit << 3)
    return new, status


def read(tiles, t: int, r: int, c: int, f: Format):
    """The value (float formats) or integer (integer/fixed formats) of an element."""
    code = code_of_lane(read_lane(tiles, t, r, c, f), f)
    return float_value(code, f) if is_float(f) else int_value(code, f)
