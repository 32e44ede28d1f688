"""Config and ThreadConfig registers: field tables (data) and a register file that reads them.

``Config`` has two banks of 32-bit words (a thread picks one with
``CFG_STATE_ID_StateID``); ``ThreadConfig`` has one copy of 16-bit words per
thread (``BackendConfiguration.md``). A field is ``(word[addr] >> shift) &
(2**width - 1)``. Positions are the Wormhole B0 ones (tt-metal ``cfg_defines.h``
as listed by ttsim ``data/wh/tensix_regs.json``).
Only the fields that the Matrix Unit, the unpack/pack helpers and the RWCs use
are listed. Everything is 0 at reset (decision TT3).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

from ..errors import EncodingError

__all__ = ["RegField", "CONFIG_FIELDS", "THREAD_CONFIG_FIELDS", "RegisterFile"]


@dataclass(frozen=True)
class RegField:
    """One register field: ``name`` at word ``addr``, bits ``shift .. shift+width-1``."""

    name: str
    addr: int
    shift: int
    width: int

    @cached_property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.shift


def _f(name: str, addr: int, shift: int, width: int = 1) -> RegField:
    return RegField(name, addr, shift, width)


CONFIG_FIELDS: tuple[RegField, ...] = (
    _f("ALU_FORMAT_SPEC_REG_SrcA_val", 0, 0, 4),
    _f("ALU_FORMAT_SPEC_REG_SrcA_override", 0, 4),
    _f("ALU_FORMAT_SPEC_REG_SrcB_val", 0, 5, 4),
    _f("ALU_FORMAT_SPEC_REG_SrcB_override", 0, 9),
    _f("ALU_FORMAT_SPEC_REG_Dstacc_val", 0, 10, 4),
    _f("ALU_FORMAT_SPEC_REG_Dstacc_override", 0, 14),
    _f("ALU_ROUNDING_MODE_Fpu_srnd_en", 1, 0),
    _f("ALU_ROUNDING_MODE_Gasket_srnd_en", 1, 1),
    _f("ALU_ROUNDING_MODE_Packer_srnd_en", 1, 2),
    _f("ALU_ROUNDING_MODE_GS_LF", 1, 13),
    _f("ALU_ROUNDING_MODE_Bfp8_HF", 1, 14),
    _f("ALU_FORMAT_SPEC_REG0_SrcAUnsigned", 1, 15),
    _f("ALU_FORMAT_SPEC_REG0_SrcBUnsigned", 1, 16),
    _f("ALU_FORMAT_SPEC_REG0_SrcA", 1, 17, 4),
    _f("ALU_FORMAT_SPEC_REG1_SrcB", 1, 21, 4),
    _f("ALU_FORMAT_SPEC_REG2_Dstacc", 1, 25, 4),
    _f("ALU_ACC_CTRL_Fp32_enabled", 1, 29),
    _f("ALU_ACC_CTRL_SFPU_Fp32_enabled", 1, 30),
    _f("ALU_ACC_CTRL_INT8_math_enabled", 1, 31),
    _f("ALU_ACC_CTRL_Zero_Flag_disabled_src", 2, 0),
    _f("ALU_ACC_CTRL_Zero_Flag_disabled_dst", 2, 1),
    _f("DEST_REGW_BASE_Base", 6, 0, 16),
    _f("PCK_DEST_RD_CTRL_Read_32b_data", 14, 0),
    _f("PCK_DEST_RD_CTRL_Read_unsigned", 14, 1),
    _f("PCK_DEST_RD_CTRL_Read_int8", 14, 2),
    _f("PCK_DEST_RD_CTRL_Round_10b_mant", 14, 3),
)

THREAD_CONFIG_FIELDS: tuple[RegField, ...] = (
    _f("CFG_STATE_ID_StateID", 0, 0),
    _f("DEST_TARGET_REG_CFG_MATH_Offset", 1, 0, 12),
    _f("ADDR_MOD_SET_Base", 2, 0),
    _f("SRCA_SET_Base", 3, 0, 2),
    _f("SRCA_SET_SetOvrdWithAddr", 3, 2),
    _f("SRCB_SET_Base", 4, 0, 2),
    _f("CLR_DVALID_SrcA_Disable", 5, 0),
    _f("CLR_DVALID_SrcB_Disable", 5, 1),
    _f("FIDELITY_BASE_Phase", 6, 0, 2),
    *(f for i in range(8) for f in (
        _f(f"ADDR_MOD_AB_SEC{i}_SrcAIncr", 7 + 2 * i, 0, 6),
        _f(f"ADDR_MOD_AB_SEC{i}_SrcACR", 7 + 2 * i, 6),
        _f(f"ADDR_MOD_AB_SEC{i}_SrcAClear", 7 + 2 * i, 7),
        _f(f"ADDR_MOD_AB_SEC{i}_SrcBIncr", 7 + 2 * i, 8, 6),
        _f(f"ADDR_MOD_AB_SEC{i}_SrcBCR", 7 + 2 * i, 14),
        _f(f"ADDR_MOD_AB_SEC{i}_SrcBClear", 7 + 2 * i, 15))),
    *(f for i in range(8) for f in (
        _f(f"ADDR_MOD_DST_SEC{i}_DestIncr", 23 + i, 0, 10),
        _f(f"ADDR_MOD_DST_SEC{i}_DestCR", 23 + i, 10),
        _f(f"ADDR_MOD_DST_SEC{i}_DestClear", 23 + i, 11),
        _f(f"ADDR_MOD_DST_SEC{i}_DestCToCR", 23 + i, 12),
        _f(f"ADDR_MOD_DST_SEC{i}_FidelityIncr", 23 + i, 13, 2),
        _f(f"ADDR_MOD_DST_SEC{i}_FidelityClear", 23 + i, 15))),
    *(f for i in range(8) for f in (
        _f(f"ADDR_MOD_BIAS_SEC{i}_BiasIncr", 48 + i, 0, 4),
        _f(f"ADDR_MOD_BIAS_SEC{i}_BiasClear", 48 + i, 4))),
    _f("FP16A_FORCE_Enable", 56, 0),
)


def _validate(fields: tuple[RegField, ...], word_bits: int, what: str) -> dict[str, RegField]:
    """Names unique, every field inside its word, no two fields of a word overlapping."""
    by_name: dict[str, RegField] = {}
    used: dict[int, int] = {}
    for f in fields:
        if f.name in by_name:
            raise AssertionError(f"{what}: duplicate field {f.name}")
        if f.width < 1 or f.shift + f.width > word_bits:
            raise AssertionError(f"{what}: {f.name} does not fit a {word_bits}-bit word")
        if used.get(f.addr, 0) & f.mask:
            raise AssertionError(f"{what}: {f.name} overlaps another field of word {f.addr}")
        used[f.addr] = used.get(f.addr, 0) | f.mask
        by_name[f.name] = f
    return by_name


_CONFIG = _validate(CONFIG_FIELDS, 32, "Config")
_THREAD = _validate(THREAD_CONFIG_FIELDS, 16, "ThreadConfig")
#: (word, mask, shift) of every field by name, for reads on the hot path.
_PLACES = {what: {n: (f.addr, f.mask, f.shift) for n, f in fields.items()}
           for what, fields in (("Config", _CONFIG), ("ThreadConfig", _THREAD))}
#: Stamps of register-file contents: every write takes a new one, unique across all files.
_STAMPS = itertools.count()


class RegisterFile:
    """One Config bank or one thread's ThreadConfig: words, read and written by field name.

    >>> c = RegisterFile.config()
    >>> c["ALU_ACC_CTRL_Fp32_enabled"] = 1
    >>> hex(c.word(1)), c["ALU_ACC_CTRL_Fp32_enabled"]
    ('0x20000000', 1)
    """

    def __init__(self, fields: dict[str, RegField], word_bits: int, what: str) -> None:
        self._fields = fields
        self._word_bits = word_bits
        self._what = what
        self._words: dict[int, int] = {}
        #: Changes on every write (unique across register files): what was derived from the
        #: contents is still good while the stamp is the same (``Machine.memo``).
        self.stamp = next(_STAMPS)

    @classmethod
    def config(cls) -> "RegisterFile":
        return cls(_CONFIG, 32, "Config")

    @classmethod
    def thread_config(cls) -> "RegisterFile":
        return cls(_THREAD, 16, "ThreadConfig")

    def _field(self, name: str) -> RegField:
        try:
            return self._fields[name]
        except KeyError:
            raise EncodingError(f"no {self._what} field named {name!r}", instruction=self._what,
                                operand=str(name), rule="tt.cfg.field", value=name) from None

    def __getitem__(self, name: str) -> int:
        place = _PLACES[self._what].get(name)
        if place is None:
            self._field(name)   # raises, naming the field
        addr, mask, shift = place
        return (self._words.get(addr, 0) & mask) >> shift

    def __setitem__(self, name: str, value: int) -> None:
        f = self._field(name)
        v = int(value)
        if not 0 <= v < (1 << f.width):
            raise EncodingError(f"{v} does not fit the {f.width}-bit field", instruction=self._what,
                                operand=name, rule="tt.cfg.value", value=v)
        self._words[f.addr] = (self._words.get(f.addr, 0) & ~f.mask) | (v << f.shift)
        self._written()

    def __contains__(self, name: object) -> bool:
        return name in self._fields

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def word(self, addr: int) -> int:
        """The raw word at ``addr`` (bits of unlisted fields included)."""
        return self._words.get(addr, 0)

    def set_word(self, addr: int, value: int) -> None:
        """Write a raw word (as WRCFG / SETC16 would)."""
        v = int(value)
        if not 0 <= v < (1 << self._word_bits):
            raise EncodingError(f"{v:#x} does not fit a {self._word_bits}-bit word", instruction=self._what,
                                operand=f"word {addr}", rule="tt.cfg.value", value=v)
        self._words[int(addr)] = v
        self._written()

    def _written(self) -> None:
        self.stamp = next(_STAMPS)

    def nonzero(self) -> dict[str, int]:
        """Every listed field whose value is not 0 (the reset value)."""
        return {n: self[n] for n in self._fields if self[n]}

    def copy(self) -> "RegisterFile":
        other = RegisterFile(self._fields, self._word_bits, self._what)
        other._words = dict(self._words)
        return other
