"""MVMUL and DOTPV: ``Dst[R x 16] += SrcB[R x 16] @ SrcA[16 x 16]`` (``MVMUL.md``, ``DOTPV.md``);
GAPOOL (``GAPOOL.md``) reuses :func:`matmul_kernel` with R = 4.
"""

from __future__ import annotations

import numpy as np

from ...errors import GeometryError
from ..layouts import dst32_from_int, dst32_to_int, src_exp, src_read_fp32, src_read_int8
from ..rounding import (acc_from_dst, acc_to_dst, doc_fidelity_a, doc_fidelity_b, doc_read_dst, doc_write_dst,
                        dst_raw_from_valid, hw_accumulate, hw_matmul_terms)
from ..state import Machine
from .common import (FpuMode, apply_addr_mod, check_fp16_datums, check_no_stochastic, dst_row, fidelity_phase,
                     flip_banks, fpu_mode, read_dst, require_src, write_dst)
from .elementwise import INT8_MASK_A, INT8_MASK_B, saturate_int32
from .jit import mvmul, mvmul_block

__all__ = ["matmul_kernel", "run_matmul", "HANDLERS"]


def matmul_kernel(a: np.ndarray, b: np.ndarray, dst_raw: np.ndarray, valid: np.ndarray, mode: FpuMode,
                  phase: int, model: str, jit: bool = True) -> np.ndarray:
    """New raw Dst data: ``Dst += b @ a`` for ``a`` (..., 16, 16) and ``b`` (..., R, 16) Src datums.

    The doc model sums K = 0..15 in order in IEEE binary32 (no fused multiply-add), then adds
    Dst; the hardware model pre-sums K = 0..7 and 8..15 (spec §10.7), through the numba kernel
    :func:`.jit.mvmul` when ``jit`` (the numpy path below is its reference).
    """
    a = np.asarray(a, np.uint32)
    b = np.asarray(b, np.uint32)
    dst = dst_raw_from_valid(dst_raw, valid, 0)
    if mode.style == "INT8":
        a = a & np.uint32(INT8_MASK_A[phase & 1])
        b = b & np.uint32(INT8_MASK_B[(phase >> 1) & 1])
        ia, ib = src_read_int8(a), src_read_int8(b)
        if model == "hardware":
            ia = np.where(src_exp(a) == 0, 0, ia)
            ib = np.where((src_exp(b) == 0) & mode.flush_b, 0, ib)
        prod = np.einsum("...ik,...kj->...ij", ib, ia)
        return dst32_from_int(saturate_int32(prod + dst32_to_int(dst)))
    if model == "doc":
        fa = doc_fidelity_a(src_read_fp32(a, mode.style), phase)   # (..., K, 16)
        fb = doc_fidelity_b(src_read_fp32(b, mode.style), phase)   # (..., R, K)
        x = np.zeros(dst.shape, np.float32)
        with np.errstate(all="ignore"):
            for k in range(16):
                x = x + fb[..., :, k, None] * fa[..., None, k, :]
            x = x + doc_read_dst(dst, mode.dst32, mode.style)
        return doc_write_dst(x, mode.dst32, mode.style)
    acc = acc_from_dst(dst, mode.dst32, mode.exp8)
    if jit:
        lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], acc.shape[:-2])
        rows = b.shape[-2]
        flat = [np.ascontiguousarray(np.broadcast_to(x, (*lead, *x.shape[-2:]))).reshape(-1, *x.shape[-2:])
                for x in (a, b, acc)]
        new = mvmul(*flat, mode.exp8, mode.dst32, phase, mode.a_man, mode.b_man).reshape(*lead, rows, 16)
        return acc_to_dst(new, mode.dst32, mode.exp8)
    aa = np.swapaxes(a, -1, -2)[..., None, :, :]   # (..., 1, J, K)
    bb = b[..., :, None, :]                          # (..., R, 1, K)
    terms = hw_matmul_terms(aa, bb, exp8=mode.exp8, dst32=mode.dst32, phase=phase, a_man=mode.a_man,
                            b_man=mode.b_man)
    return acc_to_dst(hw_accumulate(terms, acc, dst32=mode.dst32, exp8=mode.exp8), mode.dst32, mode.exp8)


def run_matmul(m: Machine, insn, thread: int, num_rows: int, broadcast: bool) -> None:
    """The MVMUL page's model, shared by MVMUL (7 or 8 rows), DOTPV (8) and GAPOOL (4)."""
    name = insn.mnemonic
    require_src(m, name, a=True, b=True)
    mode = fpu_mode(m, thread, name)
    r = m.rwc[thread]
    a_row = r.srca & 0x38
    b_row = r.srcb & (0x3F if broadcast else 0x38)
    base = dst_row(m, thread, insn["DstRow"], 0x400 - num_rows)
    phase = fidelity_phase(m, thread)
    if a_row + 16 > 64:
        raise GeometryError("the 16 SrcA rows from RWC.SrcA & 0x38 run past row 63", instruction=name,
                            operand="RWC.SrcA", rule="tt.geom.srca", value=r.srca)
    a = m.srca[m.srca_bank, a_row:a_row + 16]
    b = m.srcb[m.srcb_bank, b_row:b_row + (1 if broadcast else num_rows)]
    b = np.broadcast_to(b, (num_rows, 16))
    if m.rounding == "hardware" and mode.style != "INT8":
        check_no_stochastic(m, thread, name)
        if mode.style == "FP16":
            check_fp16_datums(name, "SrcA", a)
            check_fp16_datums(name, "SrcB", b)
    if m.jit and m.rounding == "hardware" and mode.style != "INT8":  # in place, one numba call
        mvmul_block(mode.exp8, mode.dst32, m.srca, m.srcb, m.dst, m.dst_valid, m.srca_bank, a_row, m.srcb_bank,
                    b_row, broadcast, num_rows, base, phase, mode.a_man, mode.b_man)
    else:
        written = np.arange(0, num_rows, 2 if broadcast else 1)
        rows = base + written
        raw, valid = read_dst(m, rows, mode.dst32)
        new = matmul_kernel(a, b[written], raw, valid, mode, phase, m.rounding, jit=m.jit)
        write_dst(m, rows, new, mode.dst32)
    m.last_srca_row = a_row
    flip_banks(m, thread, insn["FlipSrcA"], insn["FlipSrcB"])
    apply_addr_mod(m, thread, insn["AddrMod"])


def MVMUL(m: Machine, insn, thread: int) -> None:
    """``Dst[8x16] += SrcB[8x16] @ SrcA[16x16]``; with BroadcastSrcBRow one SrcB row, Dst rows 0, 2, 4, 6."""
    bcast = bool(insn["BroadcastSrcBRow"])
    run_matmul(m, insn, thread, 7 if bcast else 8, bcast)


def DOTPV(m: Machine, insn, thread: int) -> None:
    """MVMUL without the broadcast; bits 21..19 are ignored (TT9)."""
    run_matmul(m, insn, thread, 8, False)


HANDLERS = {"MVMUL": MVMUL, "DOTPV": DOTPV}
