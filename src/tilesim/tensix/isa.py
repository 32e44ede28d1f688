"""The Matrix Unit (FPU) instruction table: opcodes, bit fields, macro syntax; encode, decode, text.

A word is ``opcode << 24 | fields`` (``TT_OP(op, p) = (op << 24) + p``). Field
positions are the Wormhole B0 bit diagrams (tt-isa-documentation
``Diagrams/Src/Bits32.lua``, drawn as ``Diagrams/Out/Bits32_<INSN>.svg``);
names are the doc's. A few bits that the documented *syntax* sets but the
diagram leaves blank (ELWMUL bit 21, GMPOOL bit 19, DOTPV bits 21..19, GAPOOL
bits 19 and 14) are table fields too, named after tt-llk's macro arguments,
so every documented text form round-trips; the model ignores them (TT9).

The text form is the doc's macro call, ``TT_ELWMUL(flips, 1, broadcasts,
AddrMod, DstRow)``: each macro argument is one bit range of the word, holding
one or more fields (``((FlipSrcB) << 1) + FlipSrcA``). ``args`` lists those
ranges in the macro's order; every field lies in one argument. Argument widths
are tt-llk's where they are wider than the doc's (ZEROACC's AddrMode 18:15
holds ``Revert``; INCRWC's 21:18 holds ``DstCtoCr``; TT26). Arguments may use
tt-llk's named constants (``p_setrwc::CLR_AB``, ``ADDR_MOD_1``; :mod:`.llk_names`)
and the ``TTI_``, ``TT_`` and ``TT_OP_`` spellings.

Unsupported rows (``status="unsupported"``) decode and print but do not
execute. Legacy and undocumented opcodes are not rows: decoding them raises
:class:`EncodingError` naming the opcode.

>>> w = encode(make("ELWMUL", DstRow=8, AddrMod=1, DestAccumEn=1))
>>> hex(w), decode(w).text()
('0x27208008', 'TT_ELWMUL(0, 1, 0, 1, 8)')
>>> parse("TT_ELWMUL((1 << 1) + 0, true, 0, 1, 8)").fields["FlipSrcB"]
1
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Mapping

from ..bitfield import BitRange
from ..errors import EncodingError, ParseError
from .llk_names import lookup, near

__all__ = [
    "Field", "Arg", "InsnSpec", "SFPU_ROWS", "Instruction", "INSTRUCTIONS", "BY_MNEMONIC", "BY_OPCODE", "LEGACY_OPCODES",
    "make", "encode", "decode", "parse", "to_text", "table_markdown",
]


@dataclass(frozen=True)
class Field(BitRange):
    """A named bit field ``hi:lo`` of the 32-bit word."""

    name: str
    hi: int
    lo: int


@dataclass(frozen=True)
class Arg(BitRange):
    """One argument of the text macro: bits ``hi:lo`` of the word (its uncovered bits must be 0)."""

    hi: int
    lo: int


@dataclass(frozen=True)
class InsnSpec:
    """One table row. ``page`` is the upstream page the semantics come from."""

    mnemonic: str
    opcode: int
    fields: tuple[Field, ...]
    args: tuple[Arg, ...]
    unit: str = "MatrixUnit"
    status: str = "implemented"
    page: str = ""
    summary: str = ""

    @cached_property
    def field_mask(self) -> int:
        m = 0
        for f in self.fields:
            m |= f.mask
        return m

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise EncodingError(f"{self.mnemonic} has no field {name!r}; fields: "
                            + ", ".join(f.name for f in self.fields),
                            instruction=self.mnemonic, operand=name, rule="tt.enc.field", value=name)


def _row(mnemonic: str, opcode: int, fields: str, args: str, summary: str, *, unit="MatrixUnit",
         status="implemented", page: str | None = None) -> InsnSpec:
    """Build a row from compact text: ``"DstRow 9:0, FlipSrcA 22"`` and ``"23:22 9:0"``."""
    fs = []
    for item in filter(None, (s.strip() for s in fields.split(","))):
        name, bits = item.split()
        hi, _, lo = bits.partition(":")
        fs.append(Field(name, int(hi), int(lo or hi)))
    ars = []
    for bits in args.split():
        hi, _, lo = bits.partition(":")
        ars.append(Arg(int(hi), int(lo or hi)))
    return InsnSpec(mnemonic, opcode, tuple(fs), tuple(ars), unit, status,
                    page or f"WormholeB0/TensixTile/TensixCoprocessor/{mnemonic}.md", summary)


# -- SFPU (Vector Unit) rows: fields are tt-llk's macro arguments (``ckernel_ops.h``), so every
# tt-llk spelling round-trips; bits that ttsim's table (``data/wh/tensix_isa.json``) leaves
# undefined are refused when the instruction runs (:mod:`.sfpu.table`, rule ``tt.sfpu.reserved``).


def _sfpu(mnemonic: str, opcode: int, fields: str, summary: str, *, status="implemented") -> InsnSpec:
    """An SFPU row: ``fields`` lists the macro's arguments, most significant first; each is one field."""
    args = " ".join(item.split()[1] for item in fields.split(",") if item.strip())
    return _row(mnemonic, opcode, fields, args, summary, unit="SFPU", status=status,
                page=f"WormholeB0/TensixTile/TensixCoprocessor/{mnemonic.replace('_', '')}.md")


_IMM12 = "imm12_math 23:12, lreg_c 11:8, lreg_dest 7:4, instr_mod1 3:0"
_MAD = "lreg_src_a 19:16, lreg_src_b 15:12, lreg_src_c 11:8, lreg_dest 7:4, instr_mod1 3:0"
_LOAD = "lreg_ind 23:20, instr_mod0 19:16, sfpu_addr_mode 15:14, dest_reg_addr 13:0"
_IMM16 = "imm16_math 23:8, lreg_dest 7:4, instr_mod1 3:0"

SFPU_ROWS: tuple[InsnSpec, ...] = (
    _sfpu("SFPLOAD", 0x70, _LOAD, "LReg <- 4 Dst rows x 8 columns, converted by instr_mod0"),
    _sfpu("SFPLOADI", 0x71, "lreg_ind 23:20, instr_mod0 19:16, imm16 15:0", "LReg <- a 16-bit immediate"),
    _sfpu("SFPSTORE", 0x72, _LOAD, "4 Dst rows x 8 columns <- LReg, converted by instr_mod0"),
    _sfpu("SFPLUT", 0x73, "lreg_ind 23:20, instr_mod0 19:16, dest_reg_addr 15:0",
          "LReg <- |LReg3| * A + C, A and C 8-bit coefficients picked by |LReg3|"),
    _sfpu("SFPMULI", 0x74, _IMM16, "LReg *= BF16 immediate (FMA)"),
    _sfpu("SFPADDI", 0x75, _IMM16, "LReg += BF16 immediate (FMA)"),
    _sfpu("SFPDIVP2", 0x76, _IMM12, "set or add to the exponent"),
    _sfpu("SFPEXEXP", 0x77, _IMM12, "extract the exponent (biased or not), optionally setting lane flags"),
    _sfpu("SFPEXMAN", 0x78, _IMM12, "extract the mantissa, with or without the implicit bit"),
    _sfpu("SFPIADD", 0x79, _IMM12, "32-bit integer add/subtract (register or imm12), optionally setting lane flags"),
    _sfpu("SFPSHFT", 0x7A, _IMM12, "logical shift left/right by a register or imm12"),
    _sfpu("SFPSETCC", 0x7B, _IMM12, "lane flags <- sign / zero test of an LReg"),
    _sfpu("SFPMOV", 0x7C, _IMM12, "LReg copy, negate, all-lanes copy, or PRNG read"),
    _sfpu("SFPABS", 0x7D, _IMM12, "float or integer absolute value"),
    _sfpu("SFPAND", 0x7E, _IMM12, "bitwise and"),
    _sfpu("SFPOR", 0x7F, _IMM12, "bitwise or"),
    _sfpu("SFPNOT", 0x80, _IMM12, "bitwise not"),
    _sfpu("SFPLZ", 0x81, _IMM12, "count leading zeros, optionally setting lane flags"),
    _sfpu("SFPSETEXP", 0x82, _IMM12, "set the exponent from an LReg or imm"),
    _sfpu("SFPSETMAN", 0x83, _IMM12, "set the mantissa from an LReg or imm"),
    _sfpu("SFPMAD", 0x84, _MAD, "LReg <- a * b + c (Wormhole FMA model)"),
    _sfpu("SFPADD", 0x85, _MAD, "LReg <- 1.0 * b + c (Wormhole FMA model)"),
    _sfpu("SFPMUL", 0x86, _MAD, "LReg <- a * b + 0 (Wormhole FMA model)"),
    _sfpu("SFPPUSHC", 0x87, _IMM12, "push the lane flags and enable onto the condition stack"),
    _sfpu("SFPPOPC", 0x88, _IMM12, "pop the condition stack"),
    _sfpu("SFPSETSGN", 0x89, _IMM12, "set the sign from an LReg or imm"),
    _sfpu("SFPENCC", 0x8A, _IMM12, "set the lane flags and the condition enable"),
    _sfpu("SFPCOMPC", 0x8B, _IMM12, "complement the lane flags (within the stack top)"),
    _sfpu("SFPTRANSP", 0x8C, _IMM12, "transpose LRegs 0-3 and 4-7 across the 4 rows"),
    _sfpu("SFPXOR", 0x8D, _IMM12, "bitwise exclusive or"),
    _sfpu("SFP_STOCH_RND", 0x8E, "rnd_mode 21, imm8_math 20:16, lreg_src_b 15:12, lreg_src_c 11:8, lreg_dest 7:4, "
          "instr_mod1 3:0", "round FP32 to BF16 or to (u)int8/16"),
    _sfpu("SFPNOP", 0x8F, "", "no operation"),
    _sfpu("SFPCAST", 0x90, "lreg_src_c 11:8, lreg_dest 7:4, instr_mod1 3:0", "sign-magnitude int32 -> FP32 (RNE)"),
    _sfpu("SFPCONFIG", 0x91, "imm16_math 23:8, config_dest 7:4, instr_mod1 3:0",
          "write a LOADMACRO template/sequence, a constant LReg or the lane configuration"),
    _sfpu("SFPSWAP", 0x92, "imm12_math 23:12, lreg_src_c 11:8, lreg_dest 7:4, instr_mod1 3:0",
          "swap two LRegs, or put their min/max in order"),
    _sfpu("SFPLOADMACRO", 0x93, _LOAD, "SFPLOAD that also schedules template instructions (not modelled: ttsim "
          "leaves it out of scope, so there is no reference to hold a model to)", status="unsupported"),
    _sfpu("SFPSHFT2", 0x94, "imm12_math 23:12, lreg_src_c 11:8, lreg_dest 7:4, instr_mod1 3:0",
          "rotate lanes within a row, or shift an LReg by another"),
    _sfpu("SFPLUTFP32", 0x95, "lreg_dest 7:4, instr_mod1 3:0",
          "LReg <- |LReg3| * A + C, FP16 coefficients picked by |LReg3|"),
)


_FLIP = "FlipSrcA 22, FlipSrcB 23"
_ELW_ARGS = "23:22 21 20:19 16:15 9:0"

INSTRUCTIONS: tuple[InsnSpec, ...] = (
    _row("MVMUL", 0x26, f"DstRow 9:0, AddrMod 16:15, BroadcastSrcBRow 19, {_FLIP}", "23:22 19 16:15 9:0",
         "Dst[8x16] += SrcB[8x16] @ SrcA[16x16]"),
    _row("DOTPV", 0x29, f"DstRow 9:0, AddrMod 16:15, InstrMod19 20:19, DestAccumEn 21, {_FLIP}", _ELW_ARGS,
         "MVMUL without the row broadcast"),
    _row("GAPOOL", 0x34, f"DstRow 9:0, ArgMax 14, AddrMod 16:15, InstrMod19 19, {_FLIP}", "23:22 19 16:15 14 9:0",
         "Dst[4x16] += SrcB[4x16] @ SrcA[16x16]"),
    _row("GMPOOL", 0x33, f"DstRow 9:0, ArgMax 14, AddrMod 16:15, InstrMod19 19, {_FLIP}", "23:22 19 16:15 14 9:0",
         "Dst row = max(Dst row, column max of scaled SrcA[16x16])"),
    _row("ELWMUL", 0x27, f"DstRow 9:0, AddrMod 16:15, BroadcastSrcBCol0 19, BroadcastSrcBRow 20, "
         f"DestAccumEn 21, {_FLIP}", _ELW_ARGS, "Dst[8x16] += SrcA * SrcB"),
    _row("ELWADD", 0x28, f"DstRow 9:0, AddrMod 16:15, BroadcastSrcBCol0 19, BroadcastSrcBRow 20, "
         f"AddDst 21, {_FLIP}", _ELW_ARGS, "Dst[8x16] (+)= SrcA + SrcB"),
    _row("ELWSUB", 0x30, f"DstRow 9:0, AddrMod 16:15, BroadcastSrcBCol0 19, BroadcastSrcBRow 20, "
         f"AddDst 21, {_FLIP}", _ELW_ARGS, "Dst[8x16] (+)= SrcA - SrcB"),
    _row("ZEROACC", 0x10, "Imm10 9:0, AddrMod 16:15, Revert 18, Mode 20:19, UseDst32b 21", "21:19 18:15 9:0",
         "mark 1, 16, 512 or 1024 Dst rows undefined"),
    _row("ZEROSRC", 0x11, "ClearSrcA 0, ClearSrcB 1, BothBanks 2, SingleBankMatrixUnit 3, NegativeInfSrcA 4",
         "4 3 2 1:0", "set SrcA and/or SrcB banks to 0 (or SrcA to -inf)"),
    _row("MOVA2D", 0x12, "DstRow 9:0, Move8Rows 13, AddrMod 16:15, SrcRow 22:17, UseDst32bLo 23",
         "23 22:17 16:15 13:12 9:0", "SrcA rows -> Dst"),
    _row("MOVDBGA2D", 0x09, "DstRow 9:0, Move8Rows 13, AddrMod 16:15, SrcRow 22:17, UseDst32bLo 23",
         "23 22:17 16:15 13:12 9:0", "MOVA2D without waiting for SrcA"),
    _row("MOVB2D", 0x13, "DstRow 9:0, BroadcastCol0 12, Broadcast1RowTo8 13, Move4Rows 14, AddrMod 16:15, "
         "SrcRow 22:17, UseDst32bLo 23", "23 22:17 16:15 14:12 9:0", "SrcB rows -> Dst, with broadcasts"),
    _row("MOVD2A", 0x08, "DstRow 9:0, Move4Rows 13, AddrMod 16:15, SrcRow 22:17, UseDst32bLo 23",
         "23 22:17 16:15 13:12 9:0", "Dst rows -> SrcA"),
    _row("MOVD2B", 0x0A, "DstRow 9:0, Move4Rows 13, AddrMod 16:15, SrcRow 22:17, UseDst32bLo 23",
         "23 22:17 16:15 13:12 9:0", "Dst rows -> SrcB"),
    _row("MOVB2A", 0x0B, "SrcBRow 5:0, Move4Rows 13, AddrMod 16:15, SrcARow 22:17", "22:17 16:15 13:12 5:0",
         "SrcB rows -> SrcA"),
    _row("TRNSPSRCB", 0x16, "", "", "transpose SrcB rows 16..31"),
    _row("SHIFTXA", 0x17, "Direction 1:0", "23:2 1:0", "shift 16 SrcA rows one lane"),
    _row("SHIFTXB", 0x18, "SrcRow 5:0, ShiftInZero 10, AddrMod 16:15", "16:15 10 5:0",
         "rotate or shift one SrcB row one lane left"),
    _row("CLREXPHIST", 0x21, "", "", "reset the packers' exponent histograms (packers are not modelled)",
         status="unsupported"),
    _row("GATESRCRST", 0x35, "ResetSrcAGate 0, InvalidateSrcBCache 1", "1 0",
         "reset the SrcA gate / invalidate the SrcB operand cache (no visible state)"),
    _row("CLEARDVALID", 0x36, f"Reset 0, KeepReadingSameSrc 1, {_FLIP}", "23:22 1:0",
         "give the Matrix Unit's Src banks to the unpackers"),
    _row("SETRWC", 0x37, "SrcA 0, SrcB 1, Dst 2, Fidelity 3, SrcAVal 9:6, SrcBVal 13:10, DstVal 17:14, "
         f"SrcACr 18, SrcBCr 19, DstCr 20, DstCtoCr 21, {_FLIP}", "23:22 21:18 17:14 13:10 9:6 3:0",
         "set RWCs; optionally flip Src banks"),
    _row("INCRWC", 0x38, "SrcAInc 9:6, SrcBInc 13:10, DstInc 17:14, SrcACr 18, SrcBCr 19, DstCr 20, DstCtoCr 21",
         "21:18 17:14 13:10 9:6", "increment RWCs"),
    _row("SETDVALID", 0x57, "FlipSrcA 0, FlipSrcB 1", "1:0",
         "give the unpackers' Src banks to the Matrix Unit", unit="Miscellaneous"),
    *SFPU_ROWS,
)

#: Opcodes that are Matrix Unit instructions but not rows: legacy (``MatrixUnit.md``: they compute
#: Dst += 0 or a degenerate GMPOOL) or only listed in tt-llk's assembly.yaml, undocumented.
LEGACY_OPCODES: Mapping[int, str] = MappingProxyType({
    0x22: "CONV3S1", 0x23: "CONV3S2", 0x24: "MPOOL3S1", 0x25: "APOOL3S1", 0x31: "MPOOL3S2",
    0x32: "APOOL3S2", 0x3A: "MFCONV3S1", 0x14: "TRNSPSRCA", 0x15: "RAREB", 0x1A: "SETASHRMH0",
    0x1B: "SETASHRMH1", 0x1C: "SETASHRMV", 0x1D: "SETPKEDGOF", 0x1E: "SETASHRMH", 0x39: "SETIBRWC",
})


def _validate(rows: tuple[InsnSpec, ...]) -> None:
    """Import-time checks: unique opcodes/mnemonics; fields inside [23:0], not overlapping;
    arguments not overlapping; every field inside exactly one argument."""
    seen_op: dict[int, str] = {}
    seen_name: set[str] = set()
    for r in rows:
        if r.mnemonic in seen_name or r.opcode in seen_op or r.opcode in LEGACY_OPCODES:
            raise AssertionError(f"duplicate row {r.mnemonic} / opcode {r.opcode:#x}")
        if not 0 <= r.opcode < 256:
            raise AssertionError(f"{r.mnemonic}: opcode does not fit 8 bits")
        seen_op[r.opcode] = r.mnemonic
        seen_name.add(r.mnemonic)
        used = 0
        names = set()
        for f in r.fields:
            if f.lo < 0 or f.hi > 23 or f.hi < f.lo:
                raise AssertionError(f"{r.mnemonic}.{f.name}: bits {f.hi}:{f.lo} outside [23:0]")
            if used & f.mask or f.name in names:
                raise AssertionError(f"{r.mnemonic}.{f.name} overlaps another field")
            used |= f.mask
            names.add(f.name)
        used_args = 0
        for a in r.args:
            if a.lo < 0 or a.hi > 23 or a.hi < a.lo or used_args & a.mask:
                raise AssertionError(f"{r.mnemonic}: bad or overlapping argument {a.hi}:{a.lo}")
            used_args |= a.mask
        for f in r.fields:
            inside = [a for a in r.args if a.mask & f.mask]
            if len(inside) != 1 or (inside[0].mask & f.mask) != f.mask:
                raise AssertionError(f"{r.mnemonic}.{f.name} is not inside exactly one text argument")


_validate(INSTRUCTIONS)
BY_MNEMONIC: Mapping[str, InsnSpec] = MappingProxyType({r.mnemonic: r for r in INSTRUCTIONS})
BY_OPCODE: Mapping[int, InsnSpec] = MappingProxyType({r.opcode: r for r in INSTRUCTIONS})


@dataclass(frozen=True)
class Instruction:
    """A decoded instruction: a table row and a value for each of its fields."""

    mnemonic: str
    fields: Mapping[str, int] = field(default_factory=dict)

    @property
    def spec(self) -> InsnSpec:
        return BY_MNEMONIC[self.mnemonic]

    def __getitem__(self, name: str) -> int:
        return self.fields[name]

    def word(self) -> int:
        return encode(self)

    @cached_property
    def bits(self) -> int:
        """:meth:`word`, worked out once: the key of what handlers derive per instruction (``Machine.memo``)."""
        return encode(self)

    def text(self) -> str:
        return to_text(self)

    def __str__(self) -> str:
        return self.text()


def _spec(mnemonic: str) -> InsnSpec:
    try:
        return BY_MNEMONIC[mnemonic.upper()]
    except KeyError:
        raise EncodingError("unknown instruction; known: " + ", ".join(BY_MNEMONIC), instruction=mnemonic,
                            rule="tt.enc.mnemonic", value=mnemonic) from None


def make(mnemonic: str, **fields: int) -> Instruction:
    """An instruction from field values (missing fields are 0).

    Raises:
        EncodingError: unknown mnemonic or field (``tt.enc.mnemonic``, ``tt.enc.field``), or a value
            that does not fit its field (``tt.enc.value``).
    """
    spec = _spec(mnemonic)
    values = {}
    for f in spec.fields:
        v = int(fields.pop(f.name, 0))
        if not 0 <= v < (1 << f.width):
            raise EncodingError(f"{v} does not fit the {f.width}-bit field", instruction=spec.mnemonic,
                                operand=f.name, rule="tt.enc.value", value=v)
        values[f.name] = v
    if fields:
        name = next(iter(fields))
        spec.field(name)  # raises with the list of fields
    return Instruction(spec.mnemonic, MappingProxyType(values))


def encode(insn: Instruction) -> int:
    """The 32-bit word of an instruction."""
    spec = insn.spec
    w = spec.opcode << 24
    for f in spec.fields:
        w |= (insn.fields.get(f.name, 0) & ((1 << f.width) - 1)) << f.lo
    return w


def decode(word: int) -> Instruction:
    """The instruction of a 32-bit word.

    Raises:
        EncodingError: the opcode is not a Matrix Unit instruction (``tt.enc.opcode``), is a legacy
            or undocumented one (``tt.enc.legacy``), or bits outside the row's fields are set
            (``tt.enc.reserved``); the message names the opcode.
    """
    return _decode(int(word))


@lru_cache(maxsize=1 << 14)
def _decode(w: int) -> Instruction:
    """:func:`decode`, cached: programs repeat a few words, and an Instruction is immutable."""
    if not 0 <= w < (1 << 32):
        raise EncodingError("an instruction word is 32 bits", instruction="decode", operand="word",
                            rule="tt.enc.word", value=w)
    op = w >> 24
    spec = BY_OPCODE.get(op)
    if spec is None:
        if op in LEGACY_OPCODES:
            raise EncodingError(f"opcode {op:#04x} is {LEGACY_OPCODES[op]}, a legacy or undocumented Matrix Unit "
                                "instruction that tilesim does not model", instruction=LEGACY_OPCODES[op],
                                operand="opcode", rule="tt.enc.legacy", value=f"{w:#010x}")
        raise EncodingError(f"opcode {op:#04x} is not a Matrix Unit instruction", instruction="decode",
                            operand="opcode", rule="tt.enc.opcode", value=f"{w:#010x}")
    extra = w & 0xFFFFFF & ~spec.field_mask
    if extra:
        raise EncodingError(f"opcode {op:#04x} ({spec.mnemonic}): bits {extra:#08x} are set but no field "
                            "covers them", instruction=spec.mnemonic, operand="reserved bits",
                            rule="tt.enc.reserved", value=f"{w:#010x}")
    return Instruction(spec.mnemonic, MappingProxyType({f.name: (w >> f.lo) & ((1 << f.width) - 1)
                                                        for f in spec.fields}))


def _arg_values(insn: Instruction) -> list[int]:
    spec = insn.spec
    return [sum(insn.fields[f.name] << (f.lo - a.lo) for f in spec.fields if f.mask & a.mask) for a in spec.args]


def to_text(insn: Instruction) -> str:
    """The doc's macro call, e.g. ``TT_GMPOOL(0, 1, 0, 1, 0)``; ``TTI_TRNSPSRCB`` for argument-less rows."""
    spec = insn.spec
    if not spec.args:
        return f"TTI_{spec.mnemonic}"
    return f"TT_{spec.mnemonic}({', '.join(str(v) for v in _arg_values(insn))})"


# -- parsing -------------------------------------------------------------------------------------

_CALL = re.compile(r"\s*(?:TTI_|TT_OP_|TT_)([A-Z0-9_]+)\s*(?:\((.*)\))?\s*;?\s*$", re.S)
_RAW = re.compile(r"\s*TT_OP\s*\((.*)\)\s*;?\s*$", re.S)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return re.sub(r"//.*", "", text)


def _split_args(body: str, offset: int) -> list[tuple[str, int]]:
    """Top-level comma split, keeping each argument's column offset."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((body[start:i], offset + start))
            start = i + 1
    out.append((body[start:], offset + start))
    return out if body.strip() else []


_TOKEN = re.compile(r"(?P<num>0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*|(?P<name>[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)")
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b, ast.BitXor: lambda a, b: a ^ b,
           ast.LShift: lambda a, b: a << b if 0 <= b < 64 else _too_far(b),
           ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else _too_far(b)}


def _too_far(b: int) -> int:
    raise ValueError(f"shift by {b} is outside 0..63")


def _token_value(m: re.Match) -> str:
    """A literal (C suffixes dropped, a leading 0 meaning octal) or a name, as a decimal number."""
    num, name = m.group("num"), m.group("name")
    if num is not None:
        return str(int(num, 8) if len(num) > 1 and num[0] == "0" and num.isdigit() else int(num, 0))
    if name in ("true", "false", "True", "False"):
        return str(int(name in ("true", "True")))
    v = lookup(name)
    if v is None:
        raise ValueError(f"unknown name {name!r}; known: {', '.join(near(name))}")
    return str(v)


def _eval(expr: str) -> int:
    """A C integer expression: literals (decimal, 0x, 0b, C octal, u/l suffixes), true/false,
    tt-llk's named constants (:mod:`.llk_names`), ``+ - * | & ^ << >> ~``, unary minus, parentheses."""
    node = ast.parse(_TOKEN.sub(_token_value, expr.strip()), mode="eval").body

    def ev(n) -> int:
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else (~v & 0xFFFFFFFF if isinstance(n.op, ast.Invert) else v)
        raise ValueError("only integers, named constants, + - * | & ^ << >> ~ and parentheses are allowed")

    return ev(node)


def parse(text: str, *, source: str | None = None, line: int | None = None, column: int = 1) -> Instruction:
    """An instruction from its text: ``TT_ELWMUL(0, 1, 0, 0, 0)``, ``TTI_TRNSPSRCB``, ``TT_OP(0x27, 0)``.

    Arguments are C integer expressions (``((1) << 1) + 0``, ``true``, ``0x3f``); C comments are allowed.

    Raises:
        ParseError: malformed text, wrong argument count, or a value that does not fit its argument
            (rules ``tt.text.syntax``, ``tt.text.args``, ``tt.text.value``), with line and column.
        EncodingError: via :func:`decode` for ``TT_OP`` words.
    """
    where = dict(source=source, line=line if line is not None else 1)
    clean = _strip_comments(text)
    raw = _RAW.match(clean)
    if raw:
        args = _split_args(raw.group(1), clean.index("(") + 1)
        if len(args) != 2:
            raise ParseError("TT_OP takes (opcode, params)", instruction="TT_OP", rule="tt.text.args",
                             value=text.strip(), column=column, **where)
        try:
            op, params = (_eval(a) for a, _ in args)
        except (ValueError, SyntaxError, RecursionError) as e:
            raise ParseError(str(e), instruction="TT_OP", rule="tt.text.syntax", value=text.strip(),
                             column=column, **where) from None
        if not (0 <= op < 256 and 0 <= params < (1 << 24)):
            raise ParseError("opcode must fit 8 bits and params 24 bits", instruction="TT_OP",
                             rule="tt.text.value", value=text.strip(), column=column, **where)
        try:
            return decode((op << 24) | params)
        except EncodingError as e:
            raise e.at(source=source, line=where["line"], column=column) from None
    m = _CALL.match(clean)
    if not m:
        raise ParseError("expected TT_<MNEMONIC>(args...)", instruction=text.strip().split("(")[0] or "?",
                         rule="tt.text.syntax", value=text.strip(), column=column, **where)
    name = m.group(1)
    spec = BY_MNEMONIC.get(name)
    if spec is None:
        raise ParseError("unknown instruction; known: " + ", ".join(BY_MNEMONIC), instruction=name,
                         rule="tt.text.syntax", value=name, column=column, **where)
    body = m.group(2)
    args = _split_args(body, m.start(2)) if body is not None else []
    if len(args) != len(spec.args):
        raise ParseError(f"takes {len(spec.args)} arguments, got {len(args)}", instruction=name,
                         rule="tt.text.args", value=len(args), column=column, **where)
    word = spec.opcode << 24
    for i, ((expr, col), a) in enumerate(zip(args, spec.args)):
        acol = column + col + len(expr) - len(expr.lstrip())
        try:
            v = _eval(expr)
        except (ValueError, SyntaxError, RecursionError) as e:
            raise ParseError(f"argument {i + 1} {expr.strip()!r}: {e}", instruction=name, operand=f"argument {i + 1}",
                             rule="tt.text.syntax", value=expr.strip(), column=acol, **where) from None
        covered = 0
        for f in spec.fields:
            if f.mask & a.mask:
                covered |= f.mask >> a.lo
        if not 0 <= v < (1 << a.width) or v & ~covered:
            names = [f.name for f in spec.fields if f.mask & a.mask] or ["reserved, must be 0"]
            raise ParseError(f"argument {i + 1} = {v} does not fit ({', '.join(names)})", instruction=name,
                             operand=f"argument {i + 1}", rule="tt.text.value", value=v, column=acol, **where)
        word |= v << a.lo
    return decode(word)


def table_markdown() -> str:
    """The instruction table as Markdown (docs/tensix.md embeds it; a test keeps them equal)."""
    lines = ["| Mnemonic | Opcode | Fields (hi:lo) | Text arguments | Status | What it does |",
             "|---|---|---|---|---|---|"]
    for r in INSTRUCTIONS:
        fields = ", ".join(f"{f.name} {f.hi}:{f.lo}" if f.width > 1 else f"{f.name} {f.lo}" for f in r.fields) or "-"
        args = " ".join(f"{a.hi}:{a.lo}" if a.width > 1 else f"{a.lo}" for a in r.args) or "-"
        lines.append(f"| {r.mnemonic} | {r.opcode:#04x} | {fields} | {args} | {r.status} | {r.summary} |")
    return "\n".join(lines)
