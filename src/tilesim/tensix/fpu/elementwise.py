"""ELWMUL, ELWADD, ELWSUB: element-wise arithmetic on aligned 8x16 blocks (``ELWMUL.md``, ``ELWADD.md``,
``ELWSUB.md``).

``elw_kernel`` is the arithmetic on whole blocks, with any number of leading batch dimensions;
the instruction handlers add addressing, broadcasts, the Wait Gate, flips and ``ApplyAddrMod``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import UnsupportedError
from ..layouts import dst32_from_int, dst32_to_int, src_exp, src_read_fp32, src_read_int8
from ..rounding import (acc_from_dst, acc_to_dst, doc_fidelity_a, doc_fidelity_b, doc_read_dst, doc_write_dst,
                        dst_raw_from_valid, hw_accumulate, hw_add_term, hw_mul_terms)
from ..state import Machine
from .common import (FpuMode, apply_addr_mod, block_start, check_fp16_datums, check_no_stochastic, dst_row,
                     fidelity_phase, flip_banks, fpu_mode, read_dst_block, require_src, write_dst_block)
from .jit import PARALLEL_MIN, elw_batch, elw_block

__all__ = ["elw_kernel", "HANDLERS", "INT8_MASK_A", "INT8_MASK_B", "saturate_int32"]

#: INT8 fidelity masks on the 19-bit datum: [phase bit clear, phase bit set] (``ELWMUL.md``).
INT8_MASK_A = (0x4E0FF, 0x41FFF)
INT8_MASK_B = (0x7F0FF, 0x40FFF)
INT32_LIMIT = (1 << 31) - 1


_OPS = {"mul": 0, "add": 1, "sub": 2}


def saturate_int32(x: np.ndarray) -> np.ndarray:
    """``SaturateAddInt32``'s clamp to ±(2**31 - 1)."""
    return np.clip(x, -INT32_LIMIT, INT32_LIMIT)


def elw_kernel(op: str, a: np.ndarray, b: np.ndarray, dst_raw: np.ndarray, valid: np.ndarray, mode: FpuMode,
               phase: int, add_dst: bool, model: str, jit: bool = True) -> np.ndarray:
    """New raw Dst data for ``op`` in ``{"mul", "add", "sub"}``.

    Args:
        a, b: Src datums of shape (..., R, 16) (``b`` already broadcast).
        dst_raw: raw Dst data (uint32 in 32-bit mode, uint16 otherwise), same shape; ``valid`` (..., R).
        mode: formats; ``phase``: fidelity phase 0..3; ``add_dst``: accumulate (always for mul).
        model: ``"doc"`` or ``"hardware"``.
        jit: the hardware model's float arithmetic through :func:`.jit.elw_batch` (numba); ``False``
            takes the numpy reference path, which the tests hold it equal to.
    """
    a = np.asarray(a, np.uint32)
    b = np.asarray(b, np.uint32)
    if jit and model == "hardware" and mode.style != "INT8":
        if b.shape != a.shape:
            b = np.broadcast_to(b, a.shape)
        raw = np.ascontiguousarray(dst_raw)
        batch = elw_batch(_OPS[op], mode.exp8, mode.dst32, a.size >= PARALLEL_MIN)
        out = batch(a.ravel(), np.ascontiguousarray(b).ravel(), raw.ravel(), np.ascontiguousarray(valid, bool).ravel(),
                    add_dst, phase, mode.a_man, mode.b_man, mode.flush_b)
        return out.reshape(raw.shape).astype(raw.dtype, copy=False)
    dst = dst_raw_from_valid(dst_raw, valid, 0)  # undefined rows read as 0
    if mode.style == "INT8":
        if op == "mul":
            a = a & np.uint32(INT8_MASK_A[phase & 1])
            b = b & np.uint32(INT8_MASK_B[(phase >> 1) & 1])
        ia, ib = src_read_int8(a), src_read_int8(b)
        if model == "hardware":  # the FPU flushes exponent-0 INT8 datums (SrcB only when flushing)
            ia = np.where(src_exp(a) == 0, 0, ia)
            ib = np.where((src_exp(b) == 0) & mode.flush_b, 0, ib)
        r = ia * ib if op == "mul" else (ia + ib if op == "add" else ia - ib)
        if add_dst:
            r = saturate_int32(r + dst32_to_int(dst))
        return dst32_from_int(r)
    if model == "doc":
        fa = src_read_fp32(a, mode.style)
        fb = src_read_fp32(b, mode.style)
        with np.errstate(all="ignore"):
            if op == "mul":
                r = doc_fidelity_a(fa, phase) * doc_fidelity_b(fb, phase)
            else:
                va, vb = fa.view(np.float32), fb.view(np.float32)
                r = va + vb if op == "add" else va - vb
                if phase & 1:
                    r = r / np.float32(32)
                if phase & 2:
                    r = r / np.float32(128)
            if add_dst:
                r = r + doc_read_dst(dst, mode.dst32, mode.style)
        return doc_write_dst(r, mode.dst32, mode.style)
    acc = acc_from_dst(dst, mode.dst32, mode.exp8) if add_dst else np.zeros(dst.shape, np.uint32)
    if op == "mul":
        terms = hw_mul_terms(a, b, exp8=mode.exp8, dst32=mode.dst32, phase=phase, a_man=mode.a_man,
                             b_man=mode.b_man, flush_b=mode.flush_b)
    else:
        terms = hw_add_term(a, b, exp8=mode.exp8, dst32=mode.dst32, a_man=mode.a_man, b_man=mode.b_man,
                            flush_b=mode.flush_b, subtract=op == "sub")
    out = hw_accumulate([terms], acc, dst32=mode.dst32, exp8=mode.exp8)
    return acc_to_dst(out, mode.dst32, mode.exp8)


@dataclass(frozen=True)
class _Plan:
    """What an ELW instruction word derives from its fields and the configuration, once
    (:meth:`~..state.Machine.memo`): the formats, the broadcasts and, for the hardware model,
    whether the in-place numba kernel runs (else the numpy path)."""

    mode: FpuMode
    hardware: bool
    srnd: bool
    b_mask: int
    b_rows: int
    b_cols: int
    add_dst: bool
    fast: bool

    @staticmethod
    def build(m: Machine, thread: int, insn, op: str) -> "_Plan":
        mode = fpu_mode(m, thread, insn.mnemonic)
        hardware = m.rounding == "hardware"
        bcast_row = insn["BroadcastSrcBRow"]
        fast = hardware and m.jit and mode.style != "INT8"
        return _Plan(mode, hardware, bool(m.cfg(thread)["ALU_ROUNDING_MODE_Fpu_srnd_en"]),
                     0x3F if bcast_row else 0x38, 1 if bcast_row else 8, 1 if insn["BroadcastSrcBCol0"] else 16,
                     True if op == "mul" else bool(insn["AddDst"]), fast)


def _elw(m: Machine, insn, thread: int, op: str) -> None:
    name = insn.mnemonic
    require_src(m, name, a=True, b=True)
    p = m.memo(thread, ("elw", insn.bits), lambda m, t: _Plan.build(m, t, insn, op))
    mode = p.mode
    r = m.rwc[thread]
    a_row = r.srca & 0x38
    b_row = r.srcb & p.b_mask
    start = dst_row(m, thread, insn["DstRow"], 0x3F8)
    phase = fidelity_phase(m, thread)
    if p.hardware and op != "mul" and phase:
        raise UnsupportedError(f"{name} with fidelity phase {phase} divides by 32/128 in the doc model; "
                               "the hardware's result is outside the contract (ttsim: NonContractual)",
                               instruction=name, operand="FidelityPhase", rule="tt.hw.elw_fidelity", value=phase)
    a = m.srca[m.srca_bank, a_row:a_row + 8]
    b = m.srcb[m.srcb_bank, b_row:b_row + p.b_rows, :p.b_cols]
    if p.hardware and mode.style != "INT8":
        if p.srnd:
            check_no_stochastic(m, thread, name)
        if mode.style == "FP16":
            check_fp16_datums(name, "SrcA", a)
            check_fp16_datums(name, "SrcB", b)
    if p.fast:
        elw_block(_OPS[op], mode.exp8, mode.dst32, m.srca, m.srcb, m.dst, m.dst_valid, m.srca_bank, a_row,
                  m.srcb_bank, b_row, p.b_rows, p.b_cols, block_start(start, mode.dst32), p.add_dst, phase,
                  mode.a_man, mode.b_man, mode.flush_b)
    else:
        raw, valid = read_dst_block(m, start, mode.dst32)
        new = elw_kernel(op, a, np.broadcast_to(b, (8, 16)), raw, valid, mode, phase, p.add_dst, m.rounding, jit=False)
        write_dst_block(m, start, new, mode.dst32)
    m.last_srca_row = a_row
    if insn["FlipSrcA"] or insn["FlipSrcB"]:
        flip_banks(m, thread, insn["FlipSrcA"], insn["FlipSrcB"])
    apply_addr_mod(m, thread, insn["AddrMod"])


def ELWMUL(m: Machine, insn, thread: int) -> None:
    """``Dst += SrcA * SrcB`` (always accumulates; bit 21 is ignored, TT9)."""
    _elw(m, insn, thread, "mul")


def ELWADD(m: Machine, insn, thread: int) -> None:
    """``Dst = SrcA + SrcB`` or, with AddDst, ``Dst += SrcA + SrcB``."""
    _elw(m, insn, thread, "add")


def ELWSUB(m: Machine, insn, thread: int) -> None:
    """``Dst = SrcA - SrcB`` or, with AddDst, ``Dst += SrcA - SrcB``."""
    _elw(m, insn, thread, "sub")


HANDLERS = {"ELWMUL": ELWMUL, "ELWADD": ELWADD, "ELWSUB": ELWSUB}
