"""What every Matrix Unit instruction shares: data formats, row addressing, the Wait Gate,
Dst access through the 16- and 32-bit views, bank flips and ``ApplyAddrMod``.

Handlers follow one pattern: check everything (stall, formats, undefined behaviour) and
compute new arrays first, then commit, so an instruction that raises leaves the machine
exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import SpecGapError, StateError, UnsupportedError
from ..dataformat import BF16_STYLE_CODES, FP16_STYLE_CODES
from ..layouts import adj32
from ..state import Client, Machine

__all__ = ["FpuMode", "fpu_mode", "src_a_format", "dst_row", "fidelity_phase", "require_src", "read_dst",
           "write_dst", "block_start", "read_dst_block", "write_dst_block", "flip_banks", "check_handback", "apply_addr_mod", "check_fp16_datums", "check_no_stochastic"]

TF32_CODE = 4


@dataclass(frozen=True)
class FpuMode:
    """The data formats an arithmetic instruction uses.

    ``style``: SrcA style (``BF16``, ``FP16``, ``TF32`` or ``INT8``); ``dst32``: ``UseDst32b``;
    ``srca_fmt`` / ``srcb_fmt``: the effective format codes; ``flush_b``: SrcB exponent-0
    datums are zero (``ALU_ACC_CTRL_Zero_Flag_disabled_src`` clear).
    """

    style: str
    dst32: bool
    srca_fmt: int
    srcb_fmt: int
    flush_b: bool = True

    @property
    def exp8(self) -> bool:
        return self.style in ("BF16", "TF32")

    @property
    def a_man(self) -> int:
        """SrcA mantissa bits the hardware multiplies (BF16 style keeps 7)."""
        return 7 if self.style == "BF16" else 10

    @property
    def b_man(self) -> int:
        """SrcB mantissa bits: by SrcB's own format code in 8-bit-exponent styles (spec §10.5)."""
        if not self.exp8:
            return 10
        return 10 if self.srcb_fmt == TF32_CODE else 7

    @property
    def dst_style(self) -> str:
        """What Dst holds: FP32/INT32 when 32-bit, else BF16 or FP16."""
        if self.dst32:
            return "INT32" if self.style == "INT8" else "FP32"
        return "FP16" if self.style == "FP16" else "BF16"


def src_a_format(m: Machine, thread: int) -> int:
    """``ALU_FORMAT_SPEC_REG_SrcA_val`` when overridden, else ``ALU_FORMAT_SPEC_REG0_SrcA``."""
    return _src_a_code(m.cfg(thread))


def _src_a_code(c) -> int:
    return c["ALU_FORMAT_SPEC_REG_SrcA_val"] if c["ALU_FORMAT_SPEC_REG_SrcA_override"] else c["ALU_FORMAT_SPEC_REG0_SrcA"]


def style_of(code: int, insn: str) -> str:
    """The Src style a SrcA format code selects.

    Raises:
        SpecGapError: codes 12 and 13 name no format (``tt.fmt.code``).
    """
    if code in BF16_STYLE_CODES:
        return "BF16"
    if code in FP16_STYLE_CODES:
        return "FP16"
    if code == TF32_CODE:
        return "TF32"
    raise SpecGapError(f"SrcA format code {code} names no data format", instruction=insn,
                       operand="ALU_FORMAT_SPEC_REG0_SrcA", rule="tt.fmt.code", value=code)


def fpu_mode(m: Machine, thread: int, insn: str) -> FpuMode:
    """The format selection at the top of every arithmetic page (``ELWMUL.md``), kept per
    configuration (:meth:`~..state.Machine.memo`)."""
    return m.memo(thread, ("fpu_mode", insn),
                  lambda m, t: _fpu_mode(m.cfg(t), m.thread_config[t]["FP16A_FORCE_Enable"], insn))


def _fpu_mode(c, force: int, insn: str) -> FpuMode:
    b = c["ALU_FORMAT_SPEC_REG_SrcB_val"] if c["ALU_FORMAT_SPEC_REG_SrcB_override"] else c["ALU_FORMAT_SPEC_REG1_SrcB"]
    flush = not c["ALU_ACC_CTRL_Zero_Flag_disabled_src"]
    if force:
        return FpuMode("FP16", False, 1, b, flush)
    a = _src_a_code(c)
    if c["ALU_ACC_CTRL_INT8_math_enabled"]:
        return FpuMode("INT8", True, a, b, flush)
    return FpuMode(style_of(a, insn), bool(c["ALU_ACC_CTRL_Fp32_enabled"]), a, b, flush)


def dst_row(m: Machine, thread: int, row: int, mask: int) -> int:
    """``(DstRow + MATH_Offset + RWC.Dst + DEST_REGW_BASE) & mask``."""
    return (row + m.rwc[thread].dst + m.memo(thread, "dst_base", _dst_base)) & mask


def _dst_base(m: Machine, thread: int) -> int:
    return m.thread_config[thread]["DEST_TARGET_REG_CFG_MATH_Offset"] + m.cfg(thread)["DEST_REGW_BASE_Base"]


def fidelity_phase(m: Machine, thread: int) -> int:
    return (m.rwc[thread].fidelity + m.memo(thread, "fidelity_base", _fidelity_base)) & 3


def _fidelity_base(m: Machine, thread: int) -> int:
    return m.thread_config[thread]["FIDELITY_BASE_Phase"]


def require_src(m: Machine, insn: str, a: bool = False, b: bool = False) -> None:
    """The Wait Gate: the Matrix Unit's banks must be its own, or the program would stall forever.

    Raises:
        StateError: ``tt.stall.srca`` / ``tt.stall.srcb``.
    """
    for want, name, bank, clients in ((a, "SrcA", m.srca_bank, m.srca_client), (b, "SrcB", m.srcb_bank, m.srcb_client)):
        if want and clients[bank] is not Client.MATRIX_UNIT:
            raise StateError(f"the program would stall: {name} bank {bank} belongs to the unpackers (load it "
                             "and hand it over with SETDVALID, or an unpack with flip)", instruction=insn,
                             operand=name, rule=f"tt.stall.{name.lower()}", value=bank)


def read_dst(m: Machine, rows: np.ndarray, dst32: bool):
    """Raw Dst data of ``rows`` (``Dst32b`` uint32 or ``Dst16b`` uint16) and their valid flags.

    A 32-bit access tests only the flag of physical row ``Adj32(r)`` (spec §9.3).
    """
    rows = np.asarray(rows, np.int64)
    if dst32:
        hi = adj32(rows)
        raw = (m.dst[hi].astype(np.uint32) << 16) | m.dst[hi + 8]
        return raw, m.dst_valid[hi]
    return m.dst[rows], m.dst_valid[rows]


def block_start(start: int, dst32: bool) -> int:
    """First physical row of the 4- or 8-row block at Dst row ``start`` (a multiple of its size):
    for 32-bit data the high halves, as ``Adj32`` maps such a block to consecutive rows (the low
    halves are 8 rows below)."""
    return ((start & 0x1F8) << 1) | (start & 0x207) if dst32 else start


def _block(start: int, dst32: bool, n: int) -> slice:
    """Physical rows of the ``n``-row block at ``start`` (see :func:`block_start`)."""
    start = block_start(start, dst32)
    return slice(start, start + n)


def read_dst_block(m: Machine, start: int, dst32: bool, n: int = 8):
    """:func:`read_dst` of rows ``start .. start + n - 1`` (see :func:`_block`), by slicing."""
    b = _block(start, dst32, n)
    if dst32:
        return (m.dst[b].astype(np.uint32) << 16) | m.dst[b.start + 8:b.stop + 8], m.dst_valid[b]
    return m.dst[b], m.dst_valid[b]


def write_dst_block(m: Machine, start: int, raw: np.ndarray, dst32: bool, n: int = 8) -> None:
    """:func:`write_dst` of rows ``start .. start + n - 1`` (see :func:`_block`), by slicing."""
    b = _block(start, dst32, n)
    if dst32:
        m.dst[b] = raw >> 16
        m.dst[b.start + 8:b.stop + 8] = raw & 0xFFFF
    else:
        m.dst[b] = raw
    m.dst_valid[b] = True


def write_dst(m: Machine, rows: np.ndarray, raw: np.ndarray, dst32: bool, cols=slice(None)) -> None:
    """Write raw data to ``rows`` and mark them valid (a 32-bit write marks only ``Adj32(r)``)."""
    rows = np.asarray(rows, np.int64)
    if dst32:
        hi = adj32(rows)
        raw = np.asarray(raw, np.uint32)
        m.dst[hi[:, None], np.arange(16)[cols]] = (raw >> 16).astype(np.uint16)
        m.dst[hi[:, None] + 8, np.arange(16)[cols]] = (raw & 0xFFFF).astype(np.uint16)
        m.dst_valid[hi] = True
    else:
        m.dst[rows[:, None], np.arange(16)[cols]] = np.asarray(raw).astype(np.uint16)
        m.dst_valid[rows] = True


def flip_banks(m: Machine, thread: int, flip_a: int, flip_b: int) -> None:
    """A FlipSrc always toggles the Matrix Unit's bank pointer; it hands the bank back to the
    unpackers unless ``CLR_DVALID_Src?_Disable`` is set."""
    tc = m.thread_config[thread]
    if flip_a:
        if not tc["CLR_DVALID_SrcA_Disable"]:
            m.srca_client[m.srca_bank] = Client.UNPACKERS
        m.srca_bank ^= 1
    if flip_b:
        if not tc["CLR_DVALID_SrcB_Disable"]:
            m.srcb_client[m.srcb_bank] = Client.UNPACKERS
        m.srcb_bank ^= 1


def check_handback(m: Machine, thread: int, insn: str, flip_a: int, flip_b: int, always: bool = False) -> None:
    """A flip that gives the Matrix Unit's bank back to the unpackers needs the bank to be the
    Matrix Unit's: giving back a bank the unpackers already own is outside the contract (ttsim:
    NonContractualBehavior; decision TT24). ``always``: CLEARDVALID, which gives back whatever
    ``CLR_DVALID_Src?_Disable`` says.

    Raises:
        StateError: ``tt.bank.handback``.
    """
    tc = m.thread_config[thread]
    for flip, name, bank, clients in ((flip_a, "SrcA", m.srca_bank, m.srca_client),
                                      (flip_b, "SrcB", m.srcb_bank, m.srcb_client)):
        if flip and (always or not tc[f"CLR_DVALID_{name}_Disable"]) and clients[bank] is not Client.MATRIX_UNIT:
            raise StateError(f"{name} bank {bank} already belongs to the unpackers; giving it back again is outside "
                             "the contract", instruction=insn, operand=name, rule="tt.bank.handback", value=bank)


def _addr_mod_section(i: int):
    """ThreadConfig reader of ADDR_MOD section ``i``: SrcA and SrcB (clear, CR, increment), Dst
    (clear, CToCR, CR, increment), fidelity (clear, increment), bias (clear, increment)."""
    ab, ds, bias = f"ADDR_MOD_AB_SEC{i}_", f"ADDR_MOD_DST_SEC{i}_", f"ADDR_MOD_BIAS_SEC{i}_"
    names = [ab + n for n in ("SrcAClear", "SrcACR", "SrcAIncr", "SrcBClear", "SrcBCR", "SrcBIncr")] + \
        [ds + n for n in ("DestClear", "DestCToCR", "DestCR", "DestIncr", "FidelityClear", "FidelityIncr")] + \
        [bias + "BiasClear", bias + "BiasIncr"]
    return lambda tc: tuple(tc[n] for n in names)


_SECTIONS = tuple(_addr_mod_section(i) for i in range(8))


def _addr_mods(addr_mod: int):
    """Reader of the two sections ``addr_mod`` can select (without and with the +4) and ``ADDR_MOD_SET_Base``."""
    def read(m: Machine, thread: int):
        tc = m.thread_config[thread]
        return _SECTIONS[addr_mod](tc), _SECTIONS[addr_mod + 4](tc), tc["ADDR_MOD_SET_Base"]
    return read


_ADDR_MODS = tuple(_addr_mods(i) for i in range(4))


def apply_addr_mod(m: Machine, thread: int, addr_mod: int, update_fidelity: bool = True) -> None:
    """``ApplyAddrMod`` (``RWCs.md``): index = AddrMod (+4 when ``ExtraAddrModBit`` or
    ``ADDR_MOD_SET_Base``), then the SrcA, SrcB, Dst, fidelity and bias updates of that index."""
    r = m.rwc[thread]
    plain, plus4, set_base = m.memo(thread, ("addr_mod", addr_mod), _ADDR_MODS[addr_mod])
    (a_clear, a_cr, a_incr, b_clear, b_cr, b_incr, d_clear, d_ctocr, d_cr, d_incr, f_clear, f_incr, bias_clear,
     bias_incr) = plus4 if (r.extra_addr_mod_bit or set_base) else plain
    srca, srca_cr, srcb, srcb_cr, dst, dst_cr = r.srca, r.srca_cr, r.srcb, r.srcb_cr, r.dst, r.dst_cr
    fidelity, bias = r.fidelity, r.extra_addr_mod_bit
    if a_clear:
        srca = srca_cr = 0
    elif a_cr:
        srca = srca_cr = srca_cr + a_incr
    else:
        srca += a_incr
    if b_clear:
        srcb = srcb_cr = 0
    elif b_cr:
        srcb = srcb_cr = srcb_cr + b_incr
    else:
        srcb += b_incr
    if d_clear:
        dst = dst_cr = 0
    elif d_ctocr:
        dst = dst_cr = dst + d_incr
    elif d_cr:
        dst = dst_cr = dst_cr + d_incr
    else:
        dst += d_incr
    if update_fidelity:
        fidelity = 0 if f_clear else fidelity + f_incr
    if bias_clear:
        bias = 0
    elif bias_incr & 3:
        bias += 1
    r.update(srca, srca_cr, srcb, srcb_cr, dst, dst_cr, fidelity, bias)


def check_fp16_datums(insn: str, operand: str, data: np.ndarray) -> None:
    """Hardware model: an FP16-style datum must have exponent bits [7:5] clear (ttsim rejects others).

    Raises:
        SpecGapError: ``tt.hw.fp16_exp``.
    """
    bad = (np.asarray(data) & 0xE0) != 0
    if bad.any():
        v = int(np.asarray(data)[bad].flat[0])
        raise SpecGapError("an FP16 datum has exponent bits [7:5] set; what the FPU does with it is "
                           "not documented", instruction=insn, operand=operand, rule="tt.hw.fp16_exp", value=f"{v:#07x}")


def check_no_stochastic(m: Machine, thread: int, insn: str) -> None:
    """Stochastic rounding (``ALU_ROUNDING_MODE_Fpu_srnd_en``) is not modelled.

    Raises:
        UnsupportedError: ``tt.hw.srnd``.
    """
    if m.cfg(thread)["ALU_ROUNDING_MODE_Fpu_srnd_en"]:
        raise UnsupportedError("stochastic rounding (ALU_ROUNDING_MODE_Fpu_srnd_en) is not modelled",
                               instruction=insn, operand="ALU_ROUNDING_MODE_Fpu_srnd_en", rule="tt.hw.srnd", value=1)
