"""numba kernels for the hardware model's element-wise FPU arithmetic (ELWMUL, ELWADD, ELWSUB).

The same steps as :func:`..rounding.hw_mul_terms`, :func:`..rounding.hw_add_term` and
:func:`..rounding.hw_accumulate` with one term (and the Dst layout conversions of
:func:`..rounding.acc_from_dst` / :func:`..rounding.acc_to_dst`), one element at a time in int64, so an 8x16 block
costs a few microseconds instead of dozens of numpy calls. The numpy functions stay the
reference: ``tests/tensix/test_jit.py`` holds the two equal on random and special datums.
Compiled code is cached on disk (``cache=True``), so only the first run pays the compile.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["hw_elw"]

_M32 = 0xFFFFFFFF
_LOW13 = -8192   # ~0x1FFF


@njit(cache=True, inline="always")
def _wrap32(x):
    return ((x + (1 << 31)) & _M32) - (1 << 31)


@njit(cache=True, inline="always")
def _bit_length(x):
    """Bit length of 0 <= x < 2**53 (float64 holds it exactly)."""
    return math.frexp(float(x))[1]


@njit(cache=True, inline="always")
def _to_acc(raw, dst32, exp8):
    """``acc_from_dst`` for one raw Dst datum (layouts.dst32_to_fp32 / dst16_to_bf16 / dst16_to_fp16)."""
    hi = raw >> 16 if dst32 else raw
    if dst32 or exp8:
        bf = (hi & 0x8000) | ((hi & 0xFF) << 7) | ((hi >> 8) & 0x7F)
        return (bf << 16) | (raw & 0xFFFF) if dst32 else bf << 16
    h = (raw & 0x8000) | ((raw & 0x1F) << 10) | ((raw >> 5) & 0x3FF)
    return ((h & 0x8000) << 16) | ((h & 0x7FFF) << 13)


@njit(cache=True, inline="always")
def _from_acc(acc, dst32, exp8):
    """``acc_to_dst`` for one acc datum (layouts.dst32_from_fp32 / dst16_from_bf16 / dst16_from_fp16)."""
    if dst32 or exp8:
        x = acc >> 16
        bf = (x & 0x8000) | ((x & 0x7F) << 8) | ((x & 0x7F80) >> 7)
        return (bf << 16) | (acc & 0xFFFF) if dst32 else bf
    x = (((acc & 0x80000000) >> 16) | ((acc & 0x0FFFE000) >> 13)) & 0xFFFF
    return (x & 0x8000) | ((x & 0x3FF) << 5) | ((x & 0x7C00) >> 10)


@njit(cache=True, inline="always")
def _align(m, e, s, top):
    diff = top - e
    if diff <= 0:
        return m
    if diff >= 31:
        return 0
    return ((m + (1 << (diff - 1)) - s) & _M32) >> diff


@njit(cache=True, inline="always")
def _accumulate(s, e, m, d, dst32, exp8):
    """``hw_accumulate([(s, e, m)], d)`` for one element (Wormhole's -1 LSB renormalisation kept)."""
    sd = (d >> 31) & 1
    ed = (d >> 23) & 0xFF
    md = 0 if ed == 0 else (d & 0x7FFFFF) | 0x800000
    top = max(ed, e)
    man = _align(md, ed, 0, top)
    if not dst32:
        man = (man + 4096) & _LOW13
    if sd:
        man = -man
    t = _align(m, e, s, top)
    if not dst32:
        t = (t + 4096 - s) & _M32 & _LOW13
    man = _wrap32(man - t if s else man + t)
    sign = 1 if man < 0 else 0
    man = abs(man)
    if top <= 0 or man == 0:
        return 0
    shift = 24 - _bit_length(man)
    if sign == 1 and man == 1:
        shift -= 27
    exp = top - shift
    if not dst32:
        shift -= 16 if exp8 else 13
    if shift < 0:
        rs = min(-shift, 62)
        man = _wrap32(man + (1 << (rs - 1))) >> rs
    else:
        man = man << min(shift, 62)
    if not dst32:
        man = man << (16 if exp8 else 13)
    exp += (man >> 24) & 1
    man &= 0x7FFFFF
    if exp <= 0:
        return 0
    if dst32 or exp8:
        if exp >= 255:
            return (sign << 31) | (255 << 23)
        return (sign << 31) | (exp << 23) | man
    if exp >= 32:
        return (sign << 31) | (31 << 23) | (0x3FF << 13)
    return (sign << 31) | (exp << 23) | man


@njit(cache=True, inline="always")
def _parts(d, exp8, man_bits):
    sign = (d >> 18) & 1
    exp = d & (0xFF if exp8 else 0x1F)
    man = (d >> 8) & 0x3FF
    if man_bits == 7:
        man &= 0x3F8
    return sign, exp, man | 0x400


@njit(cache=True, error_model="numpy")
def hw_elw(op, a, b, raw, valid, add_dst, exp8, dst32, phase, a_man, b_man, flush_b):
    """New raw Dst data (uint32; 16-bit layouts in the low half) for flat arrays ``a``, ``b`` (Src
    datums) and ``raw`` (raw Dst data), 16 per row, ``valid`` one flag per row (an undefined row
    reads as 0). ``op``: 0 ELWMUL, 1 ELWADD, 2 ELWSUB."""
    n = a.size
    out = np.empty(n, np.uint32)
    adj = (-127 if exp8 else (127 - 30 if dst32 else -15)) - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)
    for i in range(n):
        sa, ea, ma = _parts(np.int64(a[i]), exp8, a_man)
        sb, eb, mb = _parts(np.int64(b[i]), exp8, b_man)
        if op == 0:
            pa = (ma >> 1) & 31 if phase & 1 else ma >> 6
            pb = (mb & 15) << 3 if phase & 2 else mb >> 4
            e = ea + eb + adj
            if ea == 0 or (flush_b and eb == 0) or e <= 0:
                s, e, m = 0, max(adj, 0), 0
            else:
                s, m = sa ^ sb, (pa * pb) << 13
        else:
            if op == 2:
                sb ^= 1
            if ea == 0:
                sa, ea, ma = 0, 0, 0
            if flush_b and eb == 0:
                sb, eb, mb = 0, 0, 0
            elif sb == 0 and eb == 0 and (mb & 0x3FF) == 0:
                mb = 0
            if ((ea << 10) | (ma & 0x3FF)) < ((eb << 10) | (mb & 0x3FF)):
                sa, sb, ea, eb, ma, mb = sb, sa, eb, ea, mb, ma
            dd = ea - eb
            if dd >= 12:
                mb = 0
            elif dd > 0:
                mb = (mb + (1 << (dd - 1))) >> dd
            s = sa
            m = ((ma + mb if sa == sb else ma - mb) << 13) & _M32
            e = ea
            if dst32 and not exp8:
                e = e + 112 if e != 0 else 97
        acc = _to_acc(np.int64(raw[i]), dst32, exp8) if add_dst and valid[i >> 4] else 0
        out[i] = _from_acc(_accumulate(s, e, m, acc, dst32, exp8), dst32, exp8)
    return out
