"""numba kernels for the hardware model's element-wise FPU arithmetic (ELWMUL, ELWADD, ELWSUB), its
MVMUL (two pre-summed K groups, then Dst), and GMPOOL's column scan, over batches (the API) and in place on the machine's arrays (one
instruction: no array is allocated or copied in Python).

The same steps as :func:`..rounding.hw_mul_terms`, :func:`..rounding.hw_add_term` and
:func:`..rounding.hw_accumulate` with one term (and the Dst layout conversions of
:func:`..rounding.acc_from_dst` / :func:`..rounding.acc_to_dst`), one element at a time in int64, so an 8x16 block
costs a microsecond or two instead of dozens of numpy calls. The numpy functions stay the
reference: ``tests/tensix/test_jit.py`` holds the two equal on random and special datums.
Compiled code is cached on disk (``cache=True``), so only the first run pays the compile.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import leading_zeros

__all__ = ["elw_batch", "elw_block", "gmpool", "gmpool_block", "mvmul", "mvmul_block", "SRC_STYLES", "DST_STYLES"]

_M32 = 0xFFFFFFFF
_LOW13 = -8192   # ~0x1FFF


@njit(cache=True, inline="always")
def _wrap32(x):
    return ((x + (1 << 31)) & _M32) - (1 << 31)


@njit(cache=True, inline="always")
def _bit_length(x):
    """Bit length of 0 <= x < 2**63 (one LZCNT; numba's own intrinsic, as its random module uses)."""
    return 64 - leading_zeros(np.uint64(x))


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
def _dst_man(d, top, dst32):
    """Dst's acc bits ``d`` as a signed significand aligned to exponent ``top``."""
    ed = (d >> 23) & 0xFF
    man = _align(0 if ed == 0 else (d & 0x7FFFFF) | 0x800000, ed, 0, top)
    if not dst32:
        man = (man + 4096) & _LOW13
    return -man if (d >> 31) & 1 else man


@njit(cache=True, inline="always")
def _term(s, e, m, top, dst32):
    """A term (sign, exp, 32-bit significand) aligned to ``top``, signed."""
    t = _align(m, e, s, top)
    if not dst32:
        t = (t + 4096 - s) & _M32 & _LOW13
    return -t if s else t


@njit(cache=True, inline="always")
def _accumulate(s, e, m, d, dst32, exp8):
    """``hw_accumulate([(s, e, m)], d)`` for one element (Wormhole's -1 LSB renormalisation kept)."""
    top = max((d >> 23) & 0xFF, e)
    return _normalise(_wrap32(_dst_man(d, top, dst32) + _term(s, e, m, top, dst32)), top, dst32, exp8)


@njit(cache=True, inline="always")
def _accumulate2(s1, e1, m1, s2, e2, m2, d, dst32, exp8):
    """``hw_accumulate([(s1, e1, m1), (s2, e2, m2)], d)`` for one element (MVMUL's two K-group terms)."""
    top = max((d >> 23) & 0xFF, e1, e2)
    man = _dst_man(d, top, dst32) + _term(s1, e1, m1, top, dst32) + _term(s2, e2, m2, top, dst32)
    return _normalise(_wrap32(man), top, dst32, exp8)


@njit(cache=True, inline="always")
def _normalise(man, top, dst32, exp8):
    """The signed 32-bit sum ``man`` at exponent ``top`` as acc bits (``hw_accumulate``'s last steps)."""
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


@njit(cache=True, inline="always")
def _elw_one(op, x, y, raw, ok, add_dst, exp8, dst32, phase, a_man, b_man, flush_b):
    """One element: the new raw Dst datum from Src datums ``x``, ``y`` and raw Dst datum ``raw``
    (``ok``: its row is valid; an undefined row reads as 0)."""
    adj = (-127 if exp8 else (127 - 30 if dst32 else -15)) - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)
    sa, ea, ma = _parts(np.int64(x), exp8, a_man)
    sb, eb, mb = _parts(np.int64(y), exp8, b_man)
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
    acc = _to_acc(np.int64(raw), dst32, exp8) if add_dst and ok else 0
    return _from_acc(_accumulate(s, e, m, acc, dst32, exp8), dst32, exp8)


@njit(cache=True, inline="always")
def _mm_operands(a, b, exp8, a_man, b_man, phase):
    """SrcA (K x J) and SrcB (R x K) datums as (exponent, 5- or 7-bit phase slice of the significand,
    sign) arrays, decoded once per instruction."""
    ka, ja = a.shape
    rb, kb = b.shape
    ea, pa, sa = np.empty((ka, ja), np.int64), np.empty((ka, ja), np.int64), np.empty((ka, ja), np.int64)
    eb, pb, sb = np.empty((rb, kb), np.int64), np.empty((rb, kb), np.int64), np.empty((rb, kb), np.int64)
    for k in range(ka):
        for j in range(ja):
            s, e, m = _parts(np.int64(a[k, j]), exp8, a_man)
            sa[k, j], ea[k, j], pa[k, j] = s, e, (m >> 1) & 31 if phase & 1 else m >> 6
    for r in range(rb):
        for k in range(kb):
            s, e, m = _parts(np.int64(b[r, k]), exp8, b_man)
            sb[r, k], eb[r, k], pb[r, k] = s, e, (m & 15) << 3 if phase & 2 else m >> 4
    return ea, pa, sa, eb, pb, sb


@njit(cache=True, inline="always")
def _mm_row(ops, r, k0, adj, top, total):
    """``hw_matmul_terms`` for output row ``r``, every column j, K = k0 .. k0 + 7: the group's exponent
    ``top[j]`` and its signed pre-summed significand ``total[j]``. The column loops are innermost, over
    contiguous columns (2.5x faster than a column at a time)."""
    ea, pa, sa, eb, pb, sb = ops
    zero_e = max(adj, 0)
    for j in range(16):
        top[j] = -(1 << 62)
        total[j] = 0
    for k in range(k0, k0 + 8):
        ebk = eb[r, k]
        for j in range(16):
            e = zero_e if ea[k, j] == 0 or ebk == 0 else ea[k, j] + ebk + adj
            top[j] = max(top[j], e)
    for k in range(k0, k0 + 8):
        ebk, pbk, sbk = eb[r, k], pb[r, k], sb[r, k]
        for j in range(16):
            zero = ea[k, j] == 0 or ebk == 0   # a zero term adds nothing (its significand is 0)
            e = zero_e if zero else ea[k, j] + ebk + adj
            m = 0 if zero else pa[k, j] * pbk
            d = min(top[j] - e, 30)
            al = ((m << 1) + (1 << d)) >> (d + 1)
            total[j] += -al if sa[k, j] ^ sbk else al


@njit(cache=True, inline="always")
def _mm_term(top, total):
    """A group's (sign, exponent, significand) term from :func:`_mm_row`'s column values."""
    if top <= 0:
        return 0, 0, 0
    return (1 if total < 0 else 0), top, abs(total) << 13


@njit(cache=True, inline="always")
def _mm_adj(exp8, dst32, phase):
    return (-127 if exp8 else (127 - 30 if dst32 else -15)) - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)


@njit(cache=True, error_model="numpy")
def mvmul(a, b, acc, exp8, dst32, phase, a_man, b_man):
    """The hardware model's ``Dst += b @ a`` over a batch: ``a`` (N, 16, 16) SrcA datums (K x J), ``b``
    (N, R, 16) SrcB datums (R x K), ``acc`` (N, R, 16) Dst values as acc bits (an undefined row as 0).
    Returns the new acc bits (uint32): :func:`..rounding.hw_matmul_terms` then ``hw_accumulate``."""
    n, rows = b.shape[0], b.shape[1]
    adj = _mm_adj(exp8, dst32, phase)
    out = np.empty((n, rows, 16), np.uint32)
    top1, total1, top2, total2 = np.empty(16, np.int64), np.empty(16, np.int64), np.empty(16, np.int64), \
        np.empty(16, np.int64)
    for q in range(n):
        ops = _mm_operands(a[q], b[q], exp8, a_man, b_man, phase)
        for r in range(rows):
            _mm_row(ops, r, 0, adj, top1, total1)
            _mm_row(ops, r, 8, adj, top2, total2)
            for j in range(16):
                s1, e1, m1 = _mm_term(top1[j], total1[j])
                s2, e2, m2 = _mm_term(top2[j], total2[j])
                out[q, r, j] = _accumulate2(s1, e1, m1, s2, e2, m2, np.int64(acc[q, r, j]), dst32, exp8)
    return out


@njit(cache=True, error_model="numpy")
def mvmul_block(exp8, dst32, srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, broadcast, num_rows, base,
                phase, a_man, b_man):
    """One MVMUL (or DOTPV, GAPOOL) on the machine's arrays, in place: SrcA rows ``a_row .. a_row + 15``
    (K x J), SrcB row ``b_row + w`` (or ``b_row`` for every output row when ``broadcast``) into Dst row
    ``base + w`` for w in 0 .. num_rows - 1 (every other w when ``broadcast``); an undefined Dst row reads
    as 0, and each written row is marked valid (a 32-bit row at ``Adj32``, its low half 8 rows below)."""
    adj = _mm_adj(exp8, dst32, phase)
    ops = _mm_operands(srca[a_bank, a_row:a_row + 16], srcb[b_bank, b_row:b_row + (1 if broadcast else num_rows)],
                       exp8, a_man, b_man, phase)
    top1, total1, top2, total2 = np.empty(16, np.int64), np.empty(16, np.int64), np.empty(16, np.int64), \
        np.empty(16, np.int64)
    for w in range(0, num_rows, 2 if broadcast else 1):
        row = base + w
        phys = ((row & 0x1F8) << 1) | (row & 0x207) if dst32 else row
        ok = dst_valid[phys]
        if w == 0 or not broadcast:   # a broadcast row's terms are the same for every output row
            _mm_row(ops, 0 if broadcast else w, 0, adj, top1, total1)
            _mm_row(ops, 0 if broadcast else w, 8, adj, top2, total2)
        for j in range(16):
            raw = 0
            if ok:
                raw = (np.int64(dst[phys, j]) << 16) | dst[phys + 8, j] if dst32 else np.int64(dst[phys, j])
            acc = _to_acc(raw, dst32, exp8)
            s1, e1, m1 = _mm_term(top1[j], total1[j])
            s2, e2, m2 = _mm_term(top2[j], total2[j])
            v = _from_acc(_accumulate2(s1, e1, m1, s2, e2, m2, acc, dst32, exp8), dst32, exp8)
            if dst32:
                dst[phys, j] = v >> 16
                dst[phys + 8, j] = v & 0xFFFF
            else:
                dst[phys, j] = v
        dst_valid[phys] = True


#: Elements from which :func:`elw_batch`'s callers take the multi-threaded kernel (below it, thread
#: start-up costs more than it saves).
PARALLEL_MIN = 1 << 15


@lru_cache(maxsize=None)
def elw_batch(op: int, exp8: bool, dst32: bool, parallel: bool = False):
    """The hardware model's ELWMUL (``op`` 0), ELWADD (1) or ELWSUB (2) over a batch, for one Src style
    (``exp8``) and Dst width (``dst32``), compiled with those as constants (about twice as fast as
    testing them per element). Compiled on first use and cached on disk under its own name (closures
    of one name would share numba's cache index). ``parallel``: the elements spread over numba's
    threads (``prange``; about 2x on 2 free cores, slower when they are busy); compiled separately
    and only when asked for, since a parallel compilation takes several times as long.

    The kernel, ``(a, b, raw, valid, add_dst, phase, a_man, b_man, flush_b)``, returns new raw Dst
    data (uint32; 16-bit layouts in the low half) for flat arrays ``a``, ``b`` (Src datums) and
    ``raw`` (raw Dst data), 16 per row, ``valid`` one flag per row (an undefined row reads as 0).
    """

    def batch(a, b, raw, valid, add_dst, phase, a_man, b_man, flush_b):
        n = a.size
        out = np.empty(n, np.uint32)
        for i in prange(n):  # a plain range unless compiled parallel
            out[i] = _elw_one(op, a[i], b[i], raw[i], valid[i >> 4], add_dst, exp8, dst32, phase, a_man, b_man,
                              flush_b)
        return out

    batch.__qualname__ = f"elw_batch_{op}{int(exp8)}{int(dst32)}{'p' if parallel else ''}"
    return njit(cache=True, error_model="numpy", parallel=parallel)(batch)


@njit(cache=True, error_model="numpy")
def elw_block(op, exp8, dst32, srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, b_rows, b_cols, start,
              add_dst, phase, a_man, b_man, flush_b):
    """One ELW instruction on the machine's 8x16 block, in place: SrcA rows ``a_row .. a_row + 7``,
    SrcB rows from ``b_row`` (``b_rows`` 8, or 1 to broadcast a row; ``b_cols`` 16, or 1 to broadcast
    column 0), Dst's physical rows from ``start`` (the low halves 8 rows below when 32-bit); marks
    the rows valid. One compilation for every operation and format (a program start-up compiles
    once; 128 elements do not repay a compilation per combination)."""
    for r in range(8):
        ok = dst_valid[start + r]
        rb = b_row + (r if b_rows == 8 else 0)
        for c in range(16):
            raw = (np.int64(dst[start + r, c]) << 16) | dst[start + r + 8, c] if dst32 else np.int64(dst[start + r, c])
            v = _elw_one(op, srca[a_bank, a_row + r, c], srcb[b_bank, rb, c if b_cols == 16 else 0], raw, ok,
                         add_dst, exp8, dst32, phase, a_man, b_man, flush_b)
            if dst32:
                dst[start + r, c] = v >> 16
                dst[start + r + 8, c] = v & 0xFFFF
            else:
                dst[start + r, c] = v
        dst_valid[start + r] = True


#: GMPOOL styles as the kernel's codes (pool.gmpool_styles names them).
SRC_STYLES = {"BF16": 0, "FP16": 1, "TF32": 2, "INT8": 3}
DST_STYLES = {"BF16": 0, "FP16": 1, "TF32": 2, "INT32": 3}
_VISIT = np.array([i ^ 4 for i in range(8)] + list(range(8, 16)), np.int64)
_TRANSFORM = np.array([0, 3, 6, 1, 4, 7, 2, 5], np.int64)


@njit(cache=True, inline="always")
def _gm_read_dst(v, style):
    sign = (v >> 31) & 1
    if style == 3:
        man = v & 0x3FF
        exp = ((v >> 10) & 0x3F) + (((v >> 24) & 7) << 6)
    elif style == 1:
        exp = ((v >> 16) & 0x1F) + 15
        man = (v >> 21) & 0x3FF
    else:
        exp = ((v >> 16) & 0xFF) + 127
        man = ((v >> 24) & 0x7F) << 3
        if style == 2:
            man += (v >> 13) & 7
    return sign, exp & 0x1FF, man


@njit(cache=True, inline="always")
def _gm_write_dst(sign, exp, man, style):
    if style == 3:
        return (sign << 31) | ((exp & 7) << 10) | man
    if style == 1:
        if (exp & 0x3F) == 0:
            return 0
        return (sign << 31) | (man << 21) | ((((exp - 15) & 0x1FF) & 0x1F) << 16)
    if exp == 0:
        return 0
    x = (sign << 31) | ((man & 0x3F8) << 21) | ((((exp - 127) & 0x1FF) & 0xFF) << 16)
    if style == 2:
        x += (man & 7) << 13
    return x


@njit(cache=True, inline="always")
def _gm_block(a, b, v, out, src_style, dst_style, argmax, strict):
    """GMPOOL of one 16x16 block: ``a`` SrcA datums (16, 16), ``b`` the SrcB row (16), ``v`` the
    Dst value (16; 32-bit, undefined already all ones); the new values go to ``out`` (16)."""
    for j in range(16):
        dv = np.int64(v[j])
        bs, be, bm = _gm_read_dst(dv, dst_style)
        best = -((be << 10) + bm) if bs else (be << 10) + bm
        phase = (dv + 0x100) & 0xF00
        index = dv & 0xFF
        for k in range(16):
            i = _VISIT[k]
            x, y = np.int64(a[i, j]), np.int64(b[i])
            ea, eb = x & 0xFF, y & 0xFF
            if eb == 0:
                s, e, m = 1, 0x1FF, 0x3FF
            elif ea == 0:
                s, e, m = 0, 0, 0
            else:
                s, m = (x >> 18) & 1, (x >> 8) & 0x3FF
                if src_style == 3:
                    e = 0
                elif src_style == 1:
                    e = (ea & 0x1F) + (eb & 0x1F)
                else:
                    e = ea + eb
                    if src_style == 0:
                        m &= 0x3F8
            c = -((e << 10) + m) if s else (e << 10) + m
            if c > best or (not strict and c == best):
                best, bs, be, bm = c, s, e, m
                if k < 8:
                    index = (phase >> 4) + _TRANSFORM[i]
        if argmax:
            r = phase | index
            if dst_style != 3:
                r |= _gm_write_dst(bs, be, bm, dst_style)
        else:
            r = _gm_write_dst(bs, be, bm, dst_style)
        out[j] = r & 0xFFFFFFFF


@njit(cache=True, error_model="numpy")
def gmpool(a, b, v, src_style, dst_style, argmax, strict):
    """GMPOOL as the page runs it, one column at a time: ``a`` (N, 16, 16) SrcA datums, ``b``
    (N, 16) the SrcB row, ``v`` (N, 16) the Dst value (32-bit, undefined already all ones).
    Returns the new 32-bit values (N, 16) as uint32. Styles are :data:`SRC_STYLES` /
    :data:`DST_STYLES` codes; ``strict``: ``>`` instead of ``>=``."""
    n = a.shape[0]
    out = np.empty((n, 16), np.uint32)
    for t in range(n):
        _gm_block(a[t], b[t], v[t], out[t], src_style, dst_style, argmax, strict)
    return out


@njit(cache=True, error_model="numpy")
def gmpool_block(srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, start, use32, src_style, dst_style,
                 argmax, strict):
    """GMPOOL on the machine, in place: SrcA rows ``a_row .. a_row + 15``, SrcB row ``b_row``, the
    4-row Dst block at physical row ``start`` (the low halves 8 rows below when ``use32``). The top
    row takes the result; the next three become 0, or with ArgMax in 32-bit mode their index
    phase advanced. Marks the four rows valid."""
    v = np.empty(16, np.uint32)
    out = np.empty(16, np.uint32)
    for j in range(16):
        if not dst_valid[start]:
            v[j] = 0xFFFFFFFF
        elif use32:
            v[j] = (np.int64(dst[start, j]) << 16) | dst[start + 8, j]
        else:
            v[j] = np.int64(dst[start, j]) << 16
    _gm_block(srca[a_bank, a_row:a_row + 16], srcb[b_bank, b_row], v, out, src_style, dst_style, argmax, strict)
    for j in range(16):
        dst[start, j] = out[j] >> 16
        if use32:
            dst[start + 8, j] = out[j] & 0xFFFF
    for r in range(1, 4):
        for j in range(16):
            x = 0
            if use32 and argmax:
                raw = (np.int64(dst[start + r, j]) << 16) | dst[start + r + 8, j] if dst_valid[start + r] \
                    else np.int64(0xFFFFFFFF)
                x = (raw + 0x100) & 0xF00
            dst[start + r, j] = x >> 16
            if use32:
                dst[start + r + 8, j] = x & 0xFFFF
    for r in range(4):
        dst_valid[start + r] = True
