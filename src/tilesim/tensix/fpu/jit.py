"""numba kernels for the hardware model's element-wise FPU arithmetic (ELWMUL, ELWADD, ELWSUB).

The same steps as :func:`..rounding.hw_mul_terms`, :func:`..rounding.hw_add_term` and
:func:`..rounding.hw_accumulate` with one term, one element at a time in int64, so an 8x16 block
costs a few microseconds instead of dozens of numpy calls. The numpy functions stay the
reference: ``tests/tensix/test_jit.py`` holds the two equal on random and special datums.
Compiled code is cached on disk (``cache=True``), so only the first run pays the compile.
"""

from __future__ import annotations

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
    n = 0
    while x:
        x >>= 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _align(m, e, s, top):
    diff = top - e
    if diff <= 0:
        return m
    if diff >= 31:
        return 0
    return ((m + (1 << (diff - 1)) - s) & _M32) >> diff


@njit(cache=True)
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


@njit(cache=True)
def hw_elw(op, a, b, acc, exp8, dst32, phase, a_man, b_man, flush_b):
    """New acc bits for flat uint32 arrays ``a``, ``b`` (Src datums) and ``acc`` (acc bits; zeros
    when not accumulating). ``op``: 0 ELWMUL, 1 ELWADD, 2 ELWSUB."""
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
        out[i] = _accumulate(s, e, m, np.int64(acc[i]), dst32, exp8)
    return out
