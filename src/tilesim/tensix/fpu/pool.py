"""GMPOOL (column max of a scaled 16x16 SrcA block, with partial argmax) and GAPOOL (``GMPOOL.md``,
``GAPOOL.md``).

GMPOOL is integer work in both rounding models: datums become (sign, 9-bit exponent,
10-bit magnitude) and are compared as ``±(exponent << 10 | magnitude)``. The only
difference between the models is the comparison: the page's ``>=`` (``doc``; the last of
equal values wins, which moves ArgMax's index) and ttsim's strict order (``hardware``;
the first wins), spec §9.9.
"""

from __future__ import annotations

import numpy as np

from ..state import Machine
from .common import (apply_addr_mod, block_start, dst_row, flip_banks, read_dst_block, require_src, src_a_format,
                     style_of, write_dst_block)
from .jit import DST_STYLES, SRC_STYLES, gmpool, gmpool_block
from .matmul import run_matmul

__all__ = ["gmpool_styles", "gmpool_kernel", "argmax_rows", "INDEX_TRANSFORM", "HANDLERS"]

#: ``NONLINEAR_I_TRANSFORM``: the index GMPOOL stores for SrcA row i of the first eight.
INDEX_TRANSFORM = (0, 3, 6, 1, 4, 7, 2, 5)
#: The order GMPOOL visits the 16 rows (``i_ ^ 4`` for the first eight).
VISIT_ORDER = tuple(i ^ 4 for i in range(8)) + tuple(range(8, 16))
U32 = np.uint32
I64 = np.int64


def gmpool_styles(m: Machine, thread: int, argmax: bool) -> tuple[str, str, bool]:
    """``(SrcAStyle, DstStyle, UseDst32b)`` as the GMPOOL page chooses them."""
    c = m.cfg(thread)
    if m.thread_config[thread]["FP16A_FORCE_Enable"]:
        return "FP16", "FP16", False
    if c["ALU_ACC_CTRL_INT8_math_enabled"]:
        return "INT8", "INT32", True
    use32 = bool(c["ALU_ACC_CTRL_Fp32_enabled"])
    style = style_of(src_a_format(m, thread), "GMPOOL")
    if style == "TF32":
        return "TF32", ("INT32" if argmax else ("TF32" if use32 else "BF16")), use32
    if argmax and use32:
        return style, style, True
    return style, ("TF32" if use32 else style), use32


def _read_dst(v: np.ndarray, style: str):
    """``ReadDst``: a 32-bit Dst value (raw layout) as (sign, exponent, magnitude)."""
    sign = (v >> 31) & 1
    if style == "INT32":
        man = v & 0x3FF
        exp = ((v >> 10) & 0x3F) + (((v >> 24) & 7) << 6)
    elif style == "FP16":
        exp = ((v >> 16) & 0x1F) + 15
        man = (v >> 21) & 0x3FF
    else:
        exp = ((v >> 16) & 0xFF) + 127
        man = ((v >> 24) & 0x7F) << 3
        if style == "TF32":
            man = man + ((v >> 13) & 7)
    return sign, exp & 0x1FF, man


def _write_dst(sign, exp, man, style: str) -> np.ndarray:
    """``WriteDst``: (sign, exponent, magnitude) to a 32-bit Dst value (raw layout)."""
    if style == "INT32":
        return (sign << 31) | ((exp & 7) << 10) | man
    if style == "FP16":
        e = (exp - 15) & 0x1FF  # wraps when the SrcB scale was not 1.0, as the page says
        return np.where((exp & 0x3F) == 0, 0, (sign << 31) | (man << 21) | ((e & 0x1F) << 16))
    e = (exp - 127) & 0x1FF
    x = (sign << 31) | ((man & 0x3F8) << 21) | ((e & 0xFF) << 16)
    if style == "TF32":
        x = x + ((man & 7) << 13)
    return np.where(exp == 0, 0, x)


def _read_scaled_src(a: np.ndarray, b: np.ndarray, style: str):
    """``ReadAndScaleSrc``: SrcA datum times 2**(SrcB exponent); SrcB exponent 0 gives -inf
    (all ones), SrcA exponent 0 gives +0."""
    ea, eb = a & 0xFF, b & 0xFF
    man = (a >> 8) & 0x3FF
    sign = (a >> 18) & 1
    if style == "INT8":
        exp = np.zeros_like(a)
    elif style == "FP16":
        exp = (ea & 0x1F) + (eb & 0x1F)
    else:
        exp = ea + eb
        if style == "BF16":
            man = man & 0x3F8
    neg_inf, zero = eb == 0, ea == 0
    sign = np.where(neg_inf, 1, np.where(zero, 0, sign))
    exp = np.where(neg_inf, 0x1FF, np.where(zero, 0, exp))
    man = np.where(neg_inf, 0x3FF, np.where(zero, 0, man))
    return sign, exp, man


#: INDEX_TRANSFORM of the row visited at step k - 1 (step 0 is the Dst value; rows 8..15 store none).
_VISIT_INDEX = np.array([0] + [INDEX_TRANSFORM[i] for i in VISIT_ORDER[:8]], I64)


def _winner(c: np.ndarray, strict: bool) -> np.ndarray:
    """Position (along axis -2) of the first (strict) or last candidate equal to the maximum."""
    hit = c == c.max(axis=-2, keepdims=True)
    if strict:
        return hit.argmax(axis=-2)
    return hit.shape[-2] - 1 - hit[..., ::-1, :].argmax(axis=-2)


def _comparable(sign, exp, man) -> np.ndarray:
    """``AsComparable``."""
    v = (exp << 10) + man
    return np.where(sign == 1, -v, v)


def gmpool_kernel(a: np.ndarray, b_row: np.ndarray, dst_val: np.ndarray, src_style: str, dst_style: str,
                  argmax: bool, strict: bool, jit: bool = True) -> np.ndarray:
    """The new 32-bit value of the top Dst row (before the 16-bit store takes its high half).

    Args:
        a: SrcA datums (..., 16, 16); ``b_row``: the SrcB row (..., 16), its datum i scaling SrcA row i.
        dst_val: the Dst row as the page's ``DstVal`` (..., 16): ``Dst32b``, or ``Dst16b << 16``;
            undefined rows already replaced by all ones.
        strict: ``>`` instead of the page's ``>=``.
        jit: run the page's column scan in :func:`.jit.gmpool` (numba); ``False`` takes this numpy
            version, the reference that ``test_jit.py`` holds it equal to.
    """
    if jit:
        lead = np.shape(dst_val)[:-1]
        out = gmpool(np.ascontiguousarray(np.broadcast_to(a, (*lead, 16, 16))).reshape(-1, 16, 16),
                     np.ascontiguousarray(np.broadcast_to(b_row, (*lead, 16))).reshape(-1, 16),
                     np.ascontiguousarray(dst_val).reshape(-1, 16), SRC_STYLES[src_style], DST_STYLES[dst_style],
                     bool(argmax), bool(strict))
        return out.reshape(*lead, 16)
    a = np.asarray(a).astype(I64)[..., VISIT_ORDER, :]
    b = np.asarray(b_row).astype(I64)[..., VISIT_ORDER, None]
    v = np.asarray(dst_val).astype(I64)
    # Candidates in the page's visiting order, the Dst value first: (..., 17, 16).
    s0, e0, m0 = _read_dst(v, dst_style)
    s1, e1, m1 = _read_scaled_src(a, b, src_style)
    sign = np.concatenate([s0[..., None, :], s1], axis=-2)
    exp = np.concatenate([e0[..., None, :], e1], axis=-2)
    man = np.concatenate([m0[..., None, :], m1], axis=-2)
    c = _comparable(sign, exp, man)
    # The running compare keeps the first (strict) or the last (>=) candidate equal to the maximum.
    win = _winner(c, strict)
    packed = np.take_along_axis((sign << 20) | (exp << 10) | man, win[..., None, :], axis=-2)[..., 0, :]
    sign, exp, man = packed >> 20, (packed >> 10) & 0x1FF, packed & 0x3FF
    # The index is the one of the winner among the Dst value and the first eight rows visited.
    first = _winner(c[..., :9, :], strict)
    phase = (v + 0x100) & 0xF00
    index = np.where(first > 0, (phase >> 4) + _VISIT_INDEX[first], v & 0xFF)
    if argmax:
        result = phase | index
        if dst_style != "INT32":
            result = _write_dst(sign, exp, man, dst_style) | result
    else:
        result = _write_dst(sign, exp, man, dst_style)
    return (result & 0xFFFFFFFF).astype(U32)


def argmax_rows(low: np.ndarray) -> np.ndarray:
    """Undo the index transform: the SrcA row (0..7) from the low 16 bits of a GMPOOL ArgMax result.

    The low byte is ``(IndexPhase >> 4) + INDEX_TRANSFORM[row]``, so its low nibble is the
    transformed row; a nibble above 7 (an index that no SrcA row wrote) gives -1. Meaningful only
    where a SrcA value won over the initial Dst value.

    >>> argmax_rows(np.array([0x113, 0x0FF])).tolist()   # 3 = INDEX_TRANSFORM[1]
    [1, -1]
    """
    nib = np.asarray(low).astype(np.int64) & 0xF
    inverse = np.full(16, -1)
    inverse[list(INDEX_TRANSFORM)] = np.arange(8)
    return inverse[nib]


def _gmpool_plan(m: Machine, thread: int, argmax: bool) -> tuple[str, str, bool]:
    """:func:`gmpool_styles`, kept per configuration (:meth:`~..state.Machine.memo`)."""
    return m.memo(thread, ("gmpool", argmax), lambda m, t: gmpool_styles(m, t, argmax))


def GMPOOL(m: Machine, insn, thread: int) -> None:
    """Max-reduce a 16x16 SrcA block along columns into one Dst row; zero (or index-phase) the next 3."""
    require_src(m, "GMPOOL", a=True, b=True)
    argmax = bool(insn["ArgMax"])
    src_style, dst_style, use32 = _gmpool_plan(m, thread, argmax)
    r = m.rwc[thread]
    a_row, b_row = r.srca & 0x30, r.srcb & 0x38
    top = dst_row(m, thread, insn["DstRow"], 0x3FC)
    strict = m.rounding == "hardware"
    if m.jit:
        gmpool_block(m.srca, m.srcb, m.dst, m.dst_valid, m.srca_bank, a_row, m.srcb_bank, b_row,
                     block_start(top, use32), use32, SRC_STYLES[src_style], DST_STYLES[dst_style], argmax, strict)
    else:
        raw, valid = read_dst_block(m, top, use32, 4)
        raw = np.where(valid[:, None], raw, np.array(0xFFFFFFFF if use32 else 0xFFFF, raw.dtype))  # undefined: all ones
        dst_val = raw[0].astype(U32) if use32 else raw[0].astype(U32) << 16
        a = m.srca[m.srca_bank, a_row:a_row + 16]
        b = m.srcb[m.srcb_bank, b_row]
        out = gmpool_kernel(a, b, dst_val, src_style, dst_style, argmax, strict, jit=False)
        new = np.zeros((4, 16), U32)
        if use32:
            new[0] = out
            if argmax:
                new[1:] = (raw[1:].astype(np.int64) + 0x100) & 0xF00
        else:
            new[0] = out >> 16
        write_dst_block(m, top, new, use32, 4)
    m.last_srca_row = a_row
    if insn["FlipSrcA"] or insn["FlipSrcB"]:
        flip_banks(m, thread, insn["FlipSrcA"], insn["FlipSrcB"])
    apply_addr_mod(m, thread, insn["AddrMod"])


def GAPOOL(m: Machine, insn, thread: int) -> None:
    """MVMUL with 4 SrcB rows (the top half of an aligned 8) into 4 Dst rows; bits 19 and 14 are ignored (TT9)."""
    run_matmul(m, insn, thread, 4, False)


HANDLERS = {"GMPOOL": GMPOOL, "GAPOOL": GAPOOL}
