"""The numba kernel that runs a prepared program's arithmetic steps (:mod:`..prepared`) in one call.

A step is one row of an int64 table (columns below): ELWMUL/ELWADD/ELWSUB, MVMUL/DOTPV/GAPOOL or GMPOOL with
everything its plan fixed (formats, broadcasts, Dst row field, ADDR_MOD index, flips). The kernel does per
step what the handlers do: the Wait Gate, the row addressing from the RWCs, the checks that trap, the
in-place arithmetic (:func:`.jit.elw_block`, :func:`.jit.mvmul_block`, :func:`.jit.gmpool_block`), the bank
flips and ``ApplyAddrMod``. It stops, writing nothing, at the first step that is not one of those
(``GENERAL``) or whose check fails, and returns its index: the caller runs that step through its handler,
which raises the error that the instruction raises on its own (or runs it), so a program's results, state
and errors are those of one word at a time.
"""

from __future__ import annotations

from numba import njit

from .jit import elw_block, gmpool_block, mvmul_block

__all__ = ["GENERAL", "ELW", "MATMUL", "GMPOOL", "WIDTH", "STATE", "run_steps"]

#: Step kinds (column 0).
GENERAL, ELW, MATMUL, GMPOOL = -1, 0, 1, 2
#: Columns every step has: kind, DstRow field, AddrMod field, FlipSrcA, FlipSrcB; then the kind's own
#: (``ELW``: op, SrcB row mask, SrcB rows, SrcB columns, AddDst, exp8, dst32, a_man, b_man, flush_b, FP16
#: datum check; ``MATMUL``: rows, broadcast, exp8, dst32, a_man, b_man, FP16 datum check; ``GMPOOL``: SrcA
#: style, Dst style, 32-bit, ArgMax, strict).
WIDTH = 16
#: The machine state the kernel reads and updates, in this order in its ``state`` array: the thread's RWCs,
#: the bank pointers, the banks' clients (1: the Matrix Unit) and the last SrcA row.
STATE = ("srca", "srca_cr", "srcb", "srcb_cr", "dst", "dst_cr", "fidelity", "extra_addr_mod_bit", "srca_bank",
         "srcb_bank", "srca_client0", "srca_client1", "srcb_client0", "srcb_client1", "last_srca_row")
_RWC_MASKS = (0x3F, 0x3F, 0x3F, 0x3F, 0x3FF, 0x3FF, 3, 1)


@njit(cache=True, inline="always")
def _fp16_bad(src, bank, row, rows, cols):
    """An FP16-style datum with exponent bits [7:5] set in ``rows`` x ``cols`` from ``row`` (``tt.hw.fp16_exp``)."""
    for r in range(row, row + rows):
        for c in range(cols):
            if src[bank, r, c] & 0xE0:
                return True
    return False


@njit(cache=True, inline="always")
def _src_counter(c, cr, clear, to_cr, incr):
    """A Src counter and its CR after ``ApplyAddrMod``: cleared, CR + increment into both, or incremented."""
    if clear:
        return 0, 0
    if to_cr:
        return cr + incr, cr + incr
    return c + incr, cr


@njit(cache=True, inline="always")
def _apply_addr_mod(state, sections, addr_mod, set_base):
    """``ApplyAddrMod`` (as :func:`.common.apply_addr_mod`): ``sections`` (8, 14) of the thread's ADDR_MOD
    fields in that function's order."""
    sec = sections[addr_mod + 4 if state[7] or set_base else addr_mod]
    srca, srca_cr = _src_counter(state[0], state[1], sec[0], sec[1], sec[2])
    srcb, srcb_cr = _src_counter(state[2], state[3], sec[3], sec[4], sec[5])
    dst, dst_cr, fidelity, bias = state[4], state[5], state[6], state[7]
    if sec[6]:
        dst = dst_cr = 0
    elif sec[7]:
        dst = dst_cr = dst + sec[9]
    elif sec[8]:
        dst = dst_cr = dst_cr + sec[9]
    else:
        dst += sec[9]
    fidelity = 0 if sec[10] else fidelity + sec[11]
    if sec[12]:
        bias = 0
    elif sec[13] & 3:
        bias += 1
    new = (srca, srca_cr, srcb, srcb_cr, dst, dst_cr, fidelity, bias)
    for k in range(8):
        state[k] = new[k] & _RWC_MASKS[k]


@njit(cache=True, inline="always")
def _block_start(start, dst32):
    return ((start & 0x1F8) << 1) | (start & 0x207) if dst32 else start


@njit(cache=True, error_model="numpy")
def run_steps(steps, i, state, sections, consts, srca, srcb, dst, dst_valid):
    """Run steps ``i``, ``i + 1``, ... of ``steps`` (n, :data:`WIDTH`) in place on the machine's arrays and
    ``state`` (:data:`STATE`); ``sections``: the thread's ADDR_MOD sections (8, 14); ``consts``: the Dst
    row base, the fidelity base, ``ADDR_MOD_SET_Base`` and ``CLR_DVALID_SrcA/SrcB_Disable``. Returns the
    index of the first step not run (n when all ran)."""
    n = steps.shape[0]
    dst_base, fid_base, set_base, keep_a, keep_b = consts[0], consts[1], consts[2], consts[3], consts[4]
    while i < n:
        s = steps[i]
        kind = s[0]
        a_bank, b_bank = state[8], state[9]
        if kind == GENERAL or not state[10 + a_bank] or not state[12 + b_bank]:   # the Wait Gate
            return i
        phase = (state[6] + fid_base) & 3
        if kind == ELW:
            a_row, b_row = state[0] & 0x38, state[2] & s[6]
            start = (s[1] + state[4] + dst_base) & 0x3F8
            if s[5] != 0 and phase != 0:   # ELWADD/ELWSUB with a fidelity phase: tt.hw.elw_fidelity
                return i
            if s[15] and (_fp16_bad(srca, a_bank, a_row, 8, 16) or _fp16_bad(srcb, b_bank, b_row, s[7], s[8])):
                return i
            dst32 = s[11] != 0
            elw_block(s[5], s[10] != 0, dst32, srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, s[7],
                      s[8], _block_start(start, dst32), s[9] != 0, phase, s[12], s[13], s[14] != 0)
        elif kind == MATMUL:
            rows, broadcast = s[5], s[6] != 0
            a_row, b_row = state[0] & 0x38, state[2] & (0x3F if broadcast else 0x38)
            base = (s[1] + state[4] + dst_base) & (0x400 - rows)
            if a_row + 16 > 64:   # tt.geom.srca
                return i
            if s[11] and (_fp16_bad(srca, a_bank, a_row, 16, 16) or
                          _fp16_bad(srcb, b_bank, b_row, 1 if broadcast else rows, 16)):
                return i
            mvmul_block(s[7] != 0, s[8] != 0, srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, broadcast,
                        rows, base, phase, s[9], s[10])
        else:
            a_row, b_row = state[0] & 0x30, state[2] & 0x38
            use32 = s[7] != 0
            top = (s[1] + state[4] + dst_base) & 0x3FC
            gmpool_block(srca, srcb, dst, dst_valid, a_bank, a_row, b_bank, b_row, _block_start(top, use32), use32,
                         s[5], s[6], s[8] != 0, s[9] != 0)
        state[14] = a_row
        if s[3]:
            if not keep_a:
                state[10 + a_bank] = 0
            state[8] = a_bank ^ 1
        if s[4]:
            if not keep_b:
                state[12 + b_bank] = 0
            state[9] = b_bank ^ 1
        _apply_addr_mod(state, sections, s[2], set_base)
        i += 1
    return n
