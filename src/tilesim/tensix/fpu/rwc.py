"""RWC and bank-handshake instructions: SETRWC, INCRWC, CLEARDVALID, SETDVALID, GATESRCRST
(``SETRWC.md``, ``INCRWC.md``, ``CLEARDVALID.md``, ``SETDVALID.md``, ``GATESRCRST.md``).
``ApplyAddrMod`` itself is :func:`.common.apply_addr_mod`.
"""

from __future__ import annotations

from ...errors import StateError
from ..state import Client, Machine
from .common import check_handback, flip_banks

__all__ = ["HANDLERS"]


def SETRWC(m: Machine, insn, thread: int) -> None:
    """Set SrcA/SrcB/Dst counters and their CRs (optionally relative to a CR or to Dst); clear the
    fidelity phase; flip banks like the arithmetic instructions."""
    check_handback(m, thread, "SETRWC", insn["FlipSrcA"], insn["FlipSrcB"])
    r = m.rwc[thread]
    if insn["SrcA"]:
        v = insn["SrcAVal"] + (r.srca_cr if insn["SrcACr"] else 0)
        r.srca = r.srca_cr = v
    if insn["SrcB"]:
        v = insn["SrcBVal"] + (r.srcb_cr if insn["SrcBCr"] else 0)
        r.srcb = r.srcb_cr = v
    if insn["Dst"] or insn["DstCtoCr"]:
        v = insn["DstVal"]
        if insn["DstCtoCr"]:
            v += r.dst
        elif insn["DstCr"]:
            v += r.dst_cr
        r.dst = r.dst_cr = v
    if insn["Fidelity"]:
        r.fidelity = 0
    flip_banks(m, thread, insn["FlipSrcA"], insn["FlipSrcB"])


def INCRWC(m: Machine, insn, thread: int) -> None:
    """Increment SrcA/SrcB/Dst counters, or their CRs and copy them to the counters; ``DstCtoCr``
    (bit 21, tt-llk's ``rwc_cr`` bit 3) then copies the Dst counter to its CR (TT26)."""
    r = m.rwc[thread]
    for cr, inc, c, ccr in (("SrcACr", "SrcAInc", "srca", "srca_cr"), ("SrcBCr", "SrcBInc", "srcb", "srcb_cr"),
                            ("DstCr", "DstInc", "dst", "dst_cr")):
        if insn[cr]:
            setattr(r, ccr, getattr(r, ccr) + insn[inc])
            setattr(r, c, getattr(r, ccr))
        else:
            setattr(r, c, getattr(r, c) + insn[inc])
    if insn["DstCtoCr"]:
        r.dst_cr = r.dst


def CLEARDVALID(m: Machine, insn, thread: int) -> None:
    """Give the Matrix Unit's banks to the unpackers (and flip, unless KeepReadingSameSrc); Reset
    returns every bank to the unpackers and every pointer to bank 0."""
    if insn["Reset"]:
        m.srca_bank = m.srcb_bank = 0
        m.unpacker_bank[:] = [0, 0]
        m.srca_client[:] = [Client.UNPACKERS] * 2
        m.srcb_client[:] = [Client.UNPACKERS] * 2
        return
    check_handback(m, thread, "CLEARDVALID", insn["FlipSrcA"], insn["FlipSrcB"], always=True)
    keep = insn["KeepReadingSameSrc"]
    if insn["FlipSrcA"]:
        m.srca_client[m.srca_bank] = Client.UNPACKERS
        if not keep:
            m.srca_bank ^= 1
    if insn["FlipSrcB"]:
        m.srcb_client[m.srcb_bank] = Client.UNPACKERS
        if not keep:
            m.srcb_bank ^= 1


def SETDVALID(m: Machine, insn, thread: int) -> None:
    """Give the unpackers' banks to the Matrix Unit and move the unpackers to the other bank."""
    tc = m.thread_config[thread]
    for flip, u, clients in (("FlipSrcA", 0, m.srca_client), ("FlipSrcB", 1, m.srcb_client)):
        if insn[flip] and clients[m.unpacker_bank[u]] is Client.MATRIX_UNIT:
            name = flip[4:]
            raise StateError(f"the unpackers' {name} bank {m.unpacker_bank[u]} already belongs to the Matrix Unit; "
                             "giving it again is outside the contract", instruction="SETDVALID", operand=name,
                             rule="tt.bank.handover", value=m.unpacker_bank[u])
    for flip, u, clients, base in (("FlipSrcA", 0, m.srca_client, "SRCA_SET_Base"),
                                   ("FlipSrcB", 1, m.srcb_client, "SRCB_SET_Base")):
        if insn[flip]:
            clients[m.unpacker_bank[u]] = Client.MATRIX_UNIT
            m.unpacker_bank[u] ^= 1
            m.unpacker_src_row[u][thread] = tc[base] << 4


def GATESRCRST(m: Machine, insn, thread: int) -> None:
    """Resets the SrcA gate and/or invalidates the SrcB operand cache; neither has architecturally
    visible state, so a no-op here (TT18, TT26)."""


HANDLERS = {"SETRWC": SETRWC, "INCRWC": INCRWC, "CLEARDVALID": CLEARDVALID, "SETDVALID": SETDVALID,
            "GATESRCRST": GATESRCRST}
