"""The Matrix Unit's two float models, vectorised over whole blocks.

``doc``: the seed pages' functional model taken literally. Its ``float`` is IEEE
binary32 with round-to-nearest-even; numpy ``float32`` ``+ - * /`` are exactly
that (with subnormals), so numpy float32 arithmetic *is* this model, not an
approximation of it. Readers turn an exponent-0 datum into a signed zero (the
pages: "denormals will be flushed to zero"); ``RoundToBF16`` / ``RoundToFP16`` are
IEEE round-to-nearest-even conversions done by :func:`tilesim.formats.encode`;
every NaN result is stored as the canonical ``0x7FC00000`` (decisions TT5, TT6).

``hardware``: what the FPU does (``shared/spec/tensix.md`` §6, §9, §10, from
ttsim's ``fpu_accum_normalize_encode``, said to be bit-exact with silicon). Each
term is (sign, exponent, integer significand) with the significand's binary
point 23 bits up, as an FP32 significand; terms are aligned to the largest
exponent with round-half-up of the shifted-out bits (product terms subtract
their sign first, so their ties go toward +inf), pre-rounded to a 2**13 grid in
16-bit Dst modes, summed, renormalised and rounded half away from zero.
Everything is int64 numpy; nothing here is float arithmetic.

"Acc bits" are the accumulator's 32-bit view of a Dst datum: sign [31],
exponent [30:23], mantissa [22:0]. In FP16-with-Dst16 mode the exponent field
holds the 5-bit FP16 exponent.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from .layouts import (dst16_from_bf16, dst16_from_fp16, dst16_to_bf16, dst16_to_fp16, dst32_from_fp32,
                      dst32_to_fp32)

__all__ = [
    "as_f32", "f32_bits", "doc_fidelity_a", "doc_fidelity_b", "doc_write_dst", "doc_read_dst",
    "hw_src_parts", "hw_mul_terms", "hw_add_term", "hw_matmul_terms", "hw_accumulate",
    "acc_from_dst", "acc_to_dst", "dst_raw_from_valid",
]

I64 = np.int64
U32 = np.uint32
M32 = I64(0xFFFFFFFF)
CANONICAL_NAN = np.uint32(0x7FC00000)


# -- doc model ----------------------------------------------------------------------------------

def as_f32(bits) -> np.ndarray:
    """IEEE FP32 bits as float32 values (a view: no rounding)."""
    return np.ascontiguousarray(np.asarray(bits, U32)).view(np.float32)


def f32_bits(x: np.ndarray) -> np.ndarray:
    """float32 values as bits, every NaN made the canonical 0x7FC00000 (TT6)."""
    b = np.ascontiguousarray(x, np.float32).view(U32)
    return np.where(np.isnan(x), CANONICAL_NAN, b).astype(U32)


def doc_fidelity_a(bits: np.ndarray, phase: int) -> np.ndarray:
    """``SrcAFidelityBits``: sign, exponent, implicit 1 and 4 mantissa bits (phase bit 0 clear),
    or the value minus those (the next 5 mantissa bits). The subtraction is exact."""
    hi = as_f32(bits & U32(0xFFF80000))
    if not phase & 1:
        return hi
    with np.errstate(all="ignore"):
        return as_f32(bits) - as_f32(bits & U32(0xFFF83FFF))


def doc_fidelity_b(bits: np.ndarray, phase: int) -> np.ndarray:
    """``SrcBFidelityBits``: implicit 1 and 6 mantissa bits, or the remaining 4 (phase bit 1)."""
    if not phase & 2:
        return as_f32(bits & U32(0xFFFE0000))
    with np.errstate(all="ignore"):
        return as_f32(bits) - as_f32(bits & U32(0xFFFE1FFF))


def doc_read_dst(raw: np.ndarray, dst32: bool, style: str) -> np.ndarray:
    """``ReadDstFP32`` / ``ReadDstBF16`` / ``ReadDstFP16`` as float32 (exponent 0 reads as signed zero)."""
    if dst32:
        b = dst32_to_fp32(raw)
        e = (b >> 23) & 0xFF
    elif style == "FP16":
        h = dst16_to_fp16(raw).astype(U32)
        e = (h >> 10) & 0x1F
        b = ((h & 0x8000) << 16) | ((e + 112) << 23) | ((h & 0x3FF) << 13)
    else:
        b = dst16_to_bf16(raw).astype(U32) << 16
        e = (b >> 23) & 0xFF
    return as_f32(np.where(e == 0, b & U32(0x80000000), b).astype(U32))


def doc_write_dst(x: np.ndarray, dst32: bool, style: str) -> np.ndarray:
    """``WriteDstFP32(x)``, or ``WriteDstFP16(RoundToFP16(x))`` / ``WriteDstBF16(RoundToBF16(x))``."""
    if dst32:
        return dst32_from_fp32(f32_bits(x))
    wide = x.astype(np.float64)  # exact
    if style == "FP16":
        return dst16_from_fp16(formats.encode(wide, "fp16", "rne"))
    return dst16_from_bf16(formats.encode(wide, "bf16", "rne"))


# -- hardware model -----------------------------------------------------------------------------

def hw_src_parts(d: np.ndarray, exp8: bool, man_bits: int):
    """(sign, exponent, 11-bit significand with the implicit 1) of Src datums.

    ``man_bits`` 7 keeps the top 7 mantissa bits (BF16), 10 all of them (TF32, FP16).
    FP16 exponents are the low 5 bits.
    """
    d = np.asarray(d, I64)
    sign = (d >> 18) & 1
    exp = d & (0xFF if exp8 else 0x1F)
    man = (d >> 8) & 0x3FF
    if man_bits == 7:
        man = man & 0x3F8
    return sign, exp, man | 0x400


def _prod_adj(exp8: bool, dst32: bool, phase: int) -> int:
    adj = -127 if exp8 else (127 - 30 if dst32 else -15)
    return adj - (5 if phase & 1 else 0) - (7 if phase & 2 else 0)


def _phase_parts(ma: np.ndarray, mb: np.ndarray, phase: int):
    """The 5-bit SrcA and 7-bit SrcB significand slices a fidelity phase multiplies."""
    pa = (ma >> 1) & 31 if phase & 1 else ma >> 6
    pb = (mb & 15) << 3 if phase & 2 else mb >> 4
    return pa, pb


def hw_mul_terms(a, b, *, exp8: bool, dst32: bool, phase: int, a_man: int, b_man: int, flush_b: bool):
    """ELWMUL product terms (sign, exp, man): 5-bit x 7-bit partial significands of the phase.

    A zero operand, or a product whose exponent is <= 0, is a zero term whose exponent
    ``max(adj, 0)`` still takes part in choosing the common exponent.
    """
    sa, ea, ma = hw_src_parts(a, exp8, a_man)
    sb, eb, mb = hw_src_parts(b, exp8, b_man)
    adj = _prod_adj(exp8, dst32, phase)
    pa, pb = _phase_parts(ma, mb, phase)
    e = ea + eb + adj
    zero = (ea == 0) | ((eb == 0) if flush_b else False) | (e <= 0)
    return (np.where(zero, 0, sa ^ sb), np.where(zero, max(adj, 0), e), np.where(zero, 0, (pa * pb) << 13))


def hw_add_term(a, b, *, exp8: bool, dst32: bool, a_man: int, b_man: int, flush_b: bool, subtract: bool):
    """ELWADD/ELWSUB: order the operands so |a| >= |b|, align b (half-up, 11-bit significands), add."""
    sa, ea, ma = hw_src_parts(a, exp8, a_man)
    sb, eb, mb = hw_src_parts(b, exp8, b_man)
    if subtract:
        sb = sb ^ 1
    za = ea == 0
    zb = (eb == 0) if flush_b else np.zeros(eb.shape, bool)
    # A zeroed operand is all-zero bits; only an all-zero operand has a zero significand.
    sa, ea = np.where(za, 0, sa), np.where(za, 0, ea)
    ma = np.where(za, 0, ma)
    sb, eb = np.where(zb, 0, sb), np.where(zb, 0, eb)
    mb = np.where(zb | ((sb == 0) & (eb == 0) & ((mb & 0x3FF) == 0)), 0, mb)
    swap = ((ea << 10) | (ma & 0x3FF)) < ((eb << 10) | (mb & 0x3FF))
    sa, sb = np.where(swap, sb, sa), np.where(swap, sa, sb)
    ea, eb = np.where(swap, eb, ea), np.where(swap, ea, eb)
    ma, mb = np.where(swap, mb, ma), np.where(swap, ma, mb)
    d = ea - eb
    dd = _clip(d, 1, 11)
    mb = np.where(d <= 0, mb, np.where(d < 12, (mb + (I64(1) << (dd - 1))) >> dd, 0))
    # A 32-bit unsigned significand: a zero SrcA against a negative-zero SrcB (kept when not
    # flushing) is not swapped, and 0 - 0x400 wraps (TT22).
    man = (np.where(sa == sb, ma + mb, ma - mb) << 13) & M32
    exp = ea
    if dst32 and not exp8:
        exp = np.where(exp != 0, exp + 112, 97)
    return sa, exp, man


def hw_matmul_terms(a, b, *, exp8: bool, dst32: bool, phase: int, a_man: int, b_man: int):
    """MVMUL: per output, the products over K = 0..7 and K = 8..15 pre-summed into two terms.

    ``a`` and ``b`` broadcast to (..., 16) along K. Each group is aligned to its largest
    product exponent with half-away rounding at the product LSB; a group whose largest
    exponent is <= 0 is zero.
    """
    sa, ea, ma = hw_src_parts(a, exp8, a_man)
    sb, eb, mb = hw_src_parts(b, exp8, b_man)
    adj = _prod_adj(exp8, dst32, phase)
    pa, pb = _phase_parts(ma, mb, phase)
    zero = (ea == 0) | (eb == 0)
    e = np.where(zero, max(adj, 0), ea + eb + adj)
    s = np.where(zero, 0, sa ^ sb)
    m = np.where(zero, 0, pa * pb)
    out = []
    for g in (slice(0, 8), slice(8, 16)):
        eg, mg, sg = e[..., g], m[..., g], s[..., g]
        top = eg.max(axis=-1)
        d = np.minimum(top[..., None] - eg, 30)
        al = ((mg << 1) + (I64(1) << d)) >> (d + 1)
        total = np.where(sg == 1, -al, al).sum(axis=-1)
        live = top > 0
        out.append((np.where(live & (total < 0), 1, 0), np.where(live, top, 0),
                    np.where(live, np.abs(total) << 13, 0)))
    return out


def _clip(x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """``np.clip`` without its per-call overhead (it dominates on 8x16 blocks)."""
    return np.minimum(np.maximum(x, lo), hi)


def _bit_length(x: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 below 2**53 (float64 conversion is exact there)."""
    _, e = np.frexp(x.astype(np.float64))
    return e.astype(I64)


def _wrap32(x: np.ndarray) -> np.ndarray:
    """Two's-complement 32-bit wrap of int64 values."""
    return ((x + (I64(1) << 31)) & M32) - (I64(1) << 31)


def hw_accumulate(terms, dst_acc: np.ndarray, *, dst32: bool, exp8: bool, wh_bug: bool = True) -> np.ndarray:
    """Add sign/exp/man ``terms`` to the Dst value (acc bits), as the FPU does. Returns acc bits.

    Special results: a common exponent <= 0, a zero sum or a result exponent <= 0 give +0;
    an 8-bit exponent >= 255 gives sign | 0x7F800000; FP16 in Dst16 saturates at exponent 31,
    mantissa 0x3FF. ``wh_bug`` keeps Wormhole's renormalisation of a sum of exactly -1 LSB.
    Term significands are 32-bit unsigned and the sum a 32-bit signed integer, wrapping as
    ttsim's do (they only wrap for TT22's ELWADD/ELWSUB inputs).
    """
    d = np.asarray(dst_acc, U32).astype(I64)
    sd = (d >> 31) & 1
    ed = (d >> 23) & 0xFF
    md = np.where(ed == 0, 0, (d & 0x7FFFFF) | 0x800000)
    top = ed
    for _, e, _ in terms:
        top = np.maximum(top, e)

    def align(m, e, s):
        diff = top - e
        dd = _clip(diff, 1, 30)
        shifted = ((m + (I64(1) << (dd - 1)) - s) & M32) >> dd
        return np.where(diff <= 0, m, np.where(diff < 31, shifted, 0))

    man = align(md, ed, 0)
    if not dst32:
        man = (man + 4096) & ~I64(0x1FFF)
    man = np.where(sd == 1, -man, man)
    for s, e, m in terms:
        t = align(m, e, s)
        if not dst32:
            t = (t + 4096 - s) & M32 & ~I64(0x1FFF)
        man = man + np.where(s == 1, -t, t)
    man = _wrap32(man)
    sign = (man < 0).astype(I64)
    man = np.abs(man)
    zero = (top <= 0) | (man == 0)
    shift = 24 - _bit_length(man)
    if wh_bug:
        shift = np.where((sign == 1) & (man == 1), shift - 27, shift)
    exp = top - shift
    if not dst32:
        shift = shift - (16 if exp8 else 13)
    rs = _clip(-shift, 1, 62)
    man = np.where(shift < 0, _wrap32(man + (I64(1) << (rs - 1))) >> rs, man << _clip(shift, 0, 62))
    if not dst32:
        man = man << (16 if exp8 else 13)
    exp = exp + ((man >> 24) & 1)
    man = man & 0x7FFFFF
    if dst32 or exp8:
        out = np.where(exp >= 255, (sign << 31) | (255 << 23), (sign << 31) | (_clip(exp, 0, 255) << 23) | man)
    else:
        out = np.where(exp >= 32, (sign << 31) | (31 << 23) | (0x3FF << 13),
                       (sign << 31) | (_clip(exp, 0, 31) << 23) | man)
    return np.where(zero | (exp <= 0), 0, out).astype(U32)


def acc_from_dst(raw: np.ndarray, dst32: bool, exp8: bool) -> np.ndarray:
    """Dst datums (raw layout) as acc bits."""
    if dst32:
        return dst32_to_fp32(raw)
    if exp8:
        return dst16_to_bf16(raw).astype(U32) << 16
    h = dst16_to_fp16(raw).astype(U32)
    return ((h & 0x8000) << 16) | ((h & 0x7FFF) << 13)


def acc_to_dst(acc: np.ndarray, dst32: bool, exp8: bool) -> np.ndarray:
    """Acc bits back to the Dst layout (32-bit raw, or 16-bit raw)."""
    acc = np.asarray(acc, U32)
    if dst32:
        return dst32_from_fp32(acc)
    if exp8:
        return dst16_from_bf16(acc >> 16)
    return dst16_from_fp16(((acc & U32(0x80000000)) >> 16) | ((acc & U32(0x0FFFE000)) >> 13))


def dst_raw_from_valid(raw: np.ndarray, valid: np.ndarray, undefined: int) -> np.ndarray:
    """Dst data as an FPU op reads it: undefined rows read as ``undefined`` (0, or all ones for GMPOOL)."""
    return np.where(np.asarray(valid)[..., None], raw, np.asarray(undefined, raw.dtype))
