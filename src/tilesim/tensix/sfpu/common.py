"""What every SFPU handler shares: the checks ttsim makes, lane masks, LReg writes, Dst access.

ttsim's categories map to ours: UndefinedBehavior and NonContractualBehavior raise
:class:`SpecGapError` (``tt.sfpu.ub``, ``tt.sfpu.reserved``, ``tt.sfpu.stack``);
Unsupported and Unimplemented raise :class:`UnsupportedError` (``tt.sfpu.unmodelled``): ttsim,
our reference, does not model them, so neither do we. Every check runs before any write.
"""

from __future__ import annotations

from functools import wraps

import numpy as np

from ...errors import SpecGapError, UnsupportedError
from ..fpu.common import apply_addr_mod, dst_row
from ..layouts import adj32
from ..state import Machine
from .state import SfpuState  # noqa: F401 - the type of ``s`` in the handlers

__all__ = ["ub", "unmodelled", "need", "write", "dst_lane_cells", "read_dst16", "read_dst32", "write_dst16",
           "write_dst32", "addr_mod", "handler", "DEFINED_BITS", "MODELLED_MODS", "TEMPLATE_OPCODES"]

#: The bits ttsim's table (``data/wh/tensix_isa.json``) gives each SFPU row; set bits elsewhere are
#: undefined behaviour there (its generated decoders), so here too.
DEFINED_BITS: dict[str, int] = {}


def _bits(*ranges: str) -> int:
    m = 0
    for r in ranges:
        hi, _, lo = r.partition(":")
        hi, lo = int(hi), int(lo or hi)
        m |= ((1 << (hi - lo + 1)) - 1) << lo
    return m


for _name, _ranges in {
    "SFPLOAD": "9:0 15:14 19:16 23:20", "SFPLOADI": "15:0 19:16 23:20", "SFPSTORE": "9:0 15:14 19:16 23:20",
    "SFPLUT": "19:16 23:20", "SFPMULI": "3:0 7:4 23:8", "SFPADDI": "3:0 7:4 23:8", "SFPDIVP2": "3:0 7:4 11:8 23:12",
    "SFPEXEXP": "3:0 7:4 11:8", "SFPEXMAN": "3:0 7:4 11:8", "SFPIADD": "3:0 7:4 11:8 23:12",
    "SFPSHFT": "3:0 7:4 11:8 23:12", "SFPSETCC": "3:0 7:4 11:8 12", "SFPMOV": "3:0 7:4 11:8",
    "SFPABS": "3:0 7:4 11:8", "SFPAND": "3:0 7:4 11:8 15:12", "SFPOR": "3:0 7:4 11:8 15:12", "SFPNOT": "7:4 11:8",
    "SFPLZ": "3:0 7:4 11:8", "SFPSETEXP": "3:0 7:4 11:8 19:12", "SFPSETMAN": "3:0 7:4 11:8 23:12",
    "SFPMAD": "19:0", "SFPADD": "19:0", "SFPMUL": "19:0", "SFPPUSHC": "3:0 7:4", "SFPPOPC": "3:0 7:4",
    "SFPSETSGN": "3:0 7:4 11:8 12", "SFPENCC": "3:0 7:4 13:12", "SFPCOMPC": "7:4", "SFPTRANSP": "7:4",
    "SFPXOR": "7:4 11:8", "SFP_STOCH_RND": "21:0", "SFPNOP": "", "SFPCAST": "11:0", "SFPCONFIG": "23:0",
    "SFPSWAP": "11:0", "SFPLOADMACRO": "9:0 15:14 19:16 23:20", "SFPSHFT2": "23:0", "SFPLUTFP32": "7:0",
}.items():
    DEFINED_BITS[_name] = _bits(*_ranges.split())

#: The ``instr_mod`` values that execute, per mnemonic (others are refused; rows not listed take 0 only).
MODELLED_MODS: dict[str, tuple[int, ...]] = {
    "SFPLOAD": (0, 2, 3, 4, 6, 12, 14, 15), "SFPLOADI": (0, 1, 2, 4, 8, 10),
    "SFPSTORE": (0, 2, 3, 4, 6, 7, 9, 12, 14, 15), "SFPLUT": (4,), "SFPDIVP2": (0, 1), "SFPEXEXP": (0, 1, 2, 10),
    "SFPEXMAN": (0, 1), "SFPIADD": (0, 1, 2, 4, 5, 6, 8, 9, 10), "SFPSHFT": (0, 1), "SFPSETCC": (0, 2, 4, 6),
    "SFPMOV": (0, 1, 2, 8), "SFPABS": (0, 1), "SFPLZ": (0, 2, 4), "SFPSETEXP": (0, 1, 2), "SFPSETMAN": (0, 1),
    "SFPSETSGN": (0, 1), "SFPENCC": (0, 10), "SFP_STOCH_RND": (1, 2, 3, 6, 7), "SFPCONFIG": (0, 1),
    "SFPSWAP": (0, 1, 2, 3, 9), "SFPSHFT2": (3, 5), "SFPLUTFP32": (2,)}

#: Opcodes whose ``lreg_dest`` (bits 7:4) of 12..15 stores the whole word as LOADMACRO template
#: ``lreg_dest - 12`` instead of executing (ttsim ``tensix_decode_and_execute``).
TEMPLATE_OPCODES = frozenset(range(0x74, 0x91)) | {0x92, 0x94, 0x95}


def ub(insn: str, operand: str, value, why: str):
    """Undefined or non-contractual behaviour (ttsim's UndefinedBehavior / NonContractualBehavior)."""
    raise SpecGapError(f"{why} (undefined behaviour on Wormhole B0)", instruction=insn, operand=operand,
                       rule="tt.sfpu.ub", value=value)


def unmodelled(insn: str, operand: str, value, why: str):
    """Something ttsim, our reference, does not model (Unsupported/UnimplementedFunctionality)."""
    raise UnsupportedError(f"{why}; ttsim does not model it, so tilesim has no reference to hold a model to",
                           instruction=insn, operand=operand, rule="tt.sfpu.unmodelled", value=value)


def need(ok: bool, insn: str, operand: str, value, why: str, *, undefined: bool = False) -> None:
    """Refuse unless ``ok``: :func:`ub` when ``undefined``, else :func:`unmodelled`."""
    if not ok:
        (ub if undefined else unmodelled)(insn, operand, value, why)


def write(s: SfpuState, reg: int, values, mask: np.ndarray) -> None:
    """LReg ``reg`` <- ``values`` on the lanes of ``mask`` (LRegs 8 and up are not written)."""
    if reg < 8:
        np.copyto(s.lregs[reg], values, where=mask, casting="unsafe")


_LANE = np.arange(32)
#: Per even Dst row: the 32 lanes' (rows, columns, Adj32 rows) (read-only, made once).
_CELLS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _cells(row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, cols = (row & ~3) + _LANE // 8, 2 * (_LANE & 7) + ((row & 2) >> 1)
    out = (rows, cols, np.asarray(adj32(rows), np.int64))
    for a in out:
        a.setflags(write=False)
    return out


def dst_lane_cells(m: Machine, thread: int, insn: str, addr: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns, Adj32 rows) of Dst for the 32 lanes of SFPLOAD/SFPSTORE at ``dest_reg_addr``:
    4 rows from the row rounded down to 4, columns ``2 * c`` (even rows) or ``2 * c + 1`` (row bit 1 set)."""
    need(not addr & 1, insn, "dest_reg_addr", addr, "an odd dest_reg_addr")
    row = dst_row(m, thread, addr, 0x3FF)
    need(not row & 1, insn, "Dst row", row, "an odd Dst row (RWC.Dst + dest_reg_addr + MATH_Offset)")
    cells = _CELLS.get(row)
    if cells is None:
        cells = _CELLS[row] = _cells(row)
    return cells


def read_dst16(m: Machine, cells) -> np.ndarray:
    """Dst16 cells as uint32; a row whose valid flag is clear reads 0 (as ttsim; decision TT36)."""
    rows, cols, _ = cells
    return np.where(m.dst_valid[rows], m.dst[rows, cols], 0).astype(np.uint32)


def read_dst32(m: Machine, cells) -> np.ndarray:
    """Dst32 cells as stored (high half at Adj32(row), low half 8 rows below); invalid rows read 0."""
    _, cols, a = cells
    v = (m.dst[a, cols].astype(np.uint32) << 16) | m.dst[a + 8, cols]
    return np.where(m.dst_valid[a], v, np.uint32(0))


def write_dst16(m: Machine, cells, values, mask) -> None:
    rows, cols, _ = cells
    r, c = rows[mask], cols[mask]
    m.dst[r, c] = np.asarray(values)[mask] & 0xFFFF
    m.dst_valid[r] = True


def write_dst32(m: Machine, cells, values, mask) -> None:
    _, cols, a = cells
    a, c = a[mask], cols[mask]
    v = np.asarray(values)[mask].astype(np.uint32)
    m.dst[a, c] = v >> 16
    m.dst[a + 8, c] = v & 0xFFFF
    m.dst_valid[a] = True


def addr_mod(m: Machine, thread: int, mode: int) -> None:
    """SFPLOAD/SFPSTORE apply ADDR_MOD ``sfpu_addr_mode`` without the fidelity update."""
    apply_addr_mod(m, thread, mode, update_fidelity=False)


def handler(fn):
    """Wrap an SFPU semantics function ``fn(m, s, insn, thread)`` with the checks every SFPU word gets:
    LOADMACRO template capture (``lreg_dest`` 12..15), the TEN-2932 erratum check, undefined bits."""
    name = fn.__name__.upper() if fn.__name__ != "sfp_stoch_rnd" else "SFP_STOCH_RND"
    defined = DEFINED_BITS[name]

    @wraps(fn)
    def run(m: Machine, insn, thread: int) -> None:
        s = m.sfpu
        word = insn.bits
        op = word >> 24
        if op in TEMPLATE_OPCODES and (word >> 4) & 15 >= 12:
            need(s.all_enabled(), name, "lane flags", int(np.packbits(s.enabled(), bitorder="little").view("<u4")[0]),
                 "writing a LOADMACRO template with some lanes disabled")
            s.templates[((word >> 4) & 15) - 12] = word
            return
        if op in (0x70, 0x71, 0x72, 0x73) and (word >> 20) & 15 >= 12:
            unmodelled(name, "lreg_ind", (word >> 20) & 15, "an instruction-template load through lreg_ind 12..15")
        if s.lane_config & 4 and 0x73 <= op and op not in (0x91, 0x92, 0x93):
            d = (word >> 20) & 15 if op == 0x73 else (word >> 4) & 15
            need(not 4 <= d < 8, name, "lreg_dest", d, "with ENABLE_DEST_INDEX set, a result written to LReg4..7 is "
                 "corrupted (erratum TEN-2932)")
        extra = word & 0xFFFFFF & ~defined
        if extra:
            raise SpecGapError(f"bits {extra:#08x} are set but ttsim's table gives them no field", instruction=name,
                               operand="reserved bits", rule="tt.sfpu.reserved", value=f"{word:#010x}")
        fn(m, s, insn, thread)

    run.mnemonic = name
    return run
