"""Scalar transcription of the hardware rounding rules of ``shared/spec/tensix.md`` §6 and §10.

One element at a time with Python ints, written from the spec's prose: terms are
(sign, exponent, significand with 23 fraction bits); alignment to the largest exponent rounds
half up (product terms subtract their sign first); 16-bit Dst modes pre-round every aligned term
to a multiple of 2**13; the sum is normalised and rounded half away from zero to 24 (FP32),
8 (BF16) or 11 (FP16) significant bits; exponent <= 0 or a zero sum give +0; exponent >= 255
gives sign | 0x7F800000; FP16 in Dst16 saturates at exponent 31, mantissa 0x3FF. Significands
are 32-bit unsigned registers and the sum a 32-bit signed one (decision TT22).
"""

from __future__ import annotations


def parts(d: int, exp8: bool, man_bits: int):
    sign, exp, man = (d >> 18) & 1, d & (0xFF if exp8 else 0x1F), (d >> 8) & 0x3FF
    if man_bits == 7:
        man &= 0x3F8
    return sign, exp, man | 0x400


def adj(exp8: bool, dst32: bool, phase: int) -> int:
    a = -127 if exp8 else (97 if dst32 else -15)
    return a - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)


def slices(ma: int, mb: int, phase: int):
    pa = (ma >> 1) & 31 if phase & 1 else ma >> 6        # SrcA: [9:6]+1 or [5:1]
    pb = (mb & 15) << 3 if phase & 2 else mb >> 4        # SrcB: [9:4]+1 or [3:0]
    return pa, pb


def product(a, b, exp8, dst32, phase, a_man, b_man, flush_b):
    sa, ea, ma = parts(a, exp8, a_man)
    sb, eb, mb = parts(b, exp8, b_man)
    k = adj(exp8, dst32, phase)
    e = ea + eb + k
    if ea == 0 or (flush_b and eb == 0) or e <= 0:
        return 0, max(k, 0), 0
    pa, pb = slices(ma, mb, phase)
    return sa ^ sb, e, (pa * pb) << 13


def elwadd_term(a, b, exp8, dst32, a_man, b_man, flush_b, subtract):
    sa, ea, ma = parts(a, exp8, a_man)
    sb, eb, mb = parts(b, exp8, b_man)
    sb ^= int(subtract)
    if ea == 0:
        sa, ea, ma = 0, 0, 0
    if flush_b and eb == 0:
        sb, eb, mb = 0, 0, 0
    if sb == 0 and eb == 0 and (mb & 0x3FF) == 0:
        mb = 0
    if ((ea << 10) | (ma & 0x3FF)) < ((eb << 10) | (mb & 0x3FF)):
        sa, ea, ma, sb, eb, mb = sb, eb, mb, sa, ea, ma
    d = ea - eb
    if d > 0:
        mb = (mb + (1 << (d - 1))) >> d if d < 12 else 0
    man = ((ma + mb if sa == sb else ma - mb) << 13) % (1 << 32)   # an unsigned 32-bit register
    if dst32 and not exp8:
        ea = ea + 112 if ea else 97
    return sa, ea, man


def matmul_terms(acol, brow, exp8, dst32, phase, a_man, b_man):
    k = adj(exp8, dst32, phase)
    prods = []
    for a, b in zip(acol, brow):
        sa, ea, ma = parts(a, exp8, a_man)
        sb, eb, mb = parts(b, exp8, b_man)
        if ea == 0 or eb == 0:
            prods.append((0, max(k, 0), 0))
        else:
            pa, pb = slices(ma, mb, phase)
            prods.append((sa ^ sb, ea + eb + k, pa * pb))
    out = []
    for g in (prods[:8], prods[8:]):
        top = max(e for _, e, _ in g)
        if top <= 0:
            out.append((0, 0, 0))
            continue
        total = 0
        for s, e, m in g:
            d = min(top - e, 30)
            v = ((m << 1) + (1 << d)) >> (d + 1)   # half away at the product LSB
            total += -v if s else v
        out.append((int(total < 0), top, abs(total) << 13))
    return out


def accumulate(terms, dst: int, dst32: bool, exp8: bool) -> int:
    sd, ed = dst >> 31, (dst >> 23) & 0xFF
    md = (dst & 0x7FFFFF) | 0x800000 if ed else 0
    top = max([ed] + [e for _, e, _ in terms])
    if top <= 0:
        return 0

    def align(m, e, s):
        d = top - e
        if d <= 0:
            return m
        return ((m + (1 << (d - 1)) - s) % (1 << 32)) >> d if d < 31 else 0

    def pre(v, s):
        return v if dst32 else ((v + 4096 - s) % (1 << 32)) & ~0x1FFF

    def int32(v):
        return (v + (1 << 31)) % (1 << 32) - (1 << 31)

    total = -pre(align(md, ed, 0), 0) if sd else pre(align(md, ed, 0), 0)
    for s, e, m in terms:
        v = pre(align(m, e, s), s)
        total += -v if s else v
    total = int32(total)
    if total == 0:
        return 0
    sign, mag = int(total < 0), abs(total)
    shift = 24 - mag.bit_length()
    if sign and mag == 1:
        shift -= 27                                      # Wormhole's -1 LSB renormalisation
    exp = top - shift
    keep = 24 if dst32 else (8 if exp8 else 11)
    s2 = shift - (24 - keep)
    mag = int32(mag + (1 << (-s2 - 1))) >> -s2 if s2 < 0 else mag << s2
    mag <<= 24 - keep
    if mag & (1 << 24):
        exp += 1
    man = mag & 0x7FFFFF
    if exp <= 0:
        return 0
    if dst32 or exp8:
        return (sign << 31) | (255 << 23) if exp >= 255 else (sign << 31) | (exp << 23) | man
    return (sign << 31) | (31 << 23) | (0x3FF << 13) if exp >= 32 else (sign << 31) | (exp << 23) | man
