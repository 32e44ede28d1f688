"""The AME control and status registers, as data.

Layouts are the proposal's (v0.14_1 §6): ``mxcfg`` 0x7C0 and ``mxtile`` 0x7C1.
The status flags, which the proposal names but does not place, live in
``mxstatus`` 0x7C2, bits 0..3 (docs/decisions.md, AME section). Every field
is a :class:`Field` row; the tables are checked at import (fields inside 32
bits, no overlaps, unique names and addresses). Builders, decoders, the
assembler's field expressions and the docs all read these rows.

>>> hex(mxcfg(ft="fp8_e4m3", rnd="rtz", sat=1))
'0x1611'
>>> MXTILE.unpack(mxtile(k=16, m=16, tiling="2x2", guard4x4=True))
{'k': 16, 'm': 16, 'tiling': 1, 'guard4x4': 1}
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formats
from ..bitfield import BitRange
from ..errors import EncodingError, FormatError

__all__ = [
    "Field", "Csr", "Tiling", "MXCFG", "MXTILE", "MXSTATUS", "CSRS", "ROUNDING", "TILINGS", "TILING_4X4",
    "csr", "mxcfg", "mxtile", "tiling_mode", "rounding_code", "ft_code", "validate", "markdown",
]


@dataclass(frozen=True)
class Field(BitRange):
    """A bit field ``[hi:lo]`` of a CSR. ``name`` is lower case; ``label`` is the seed's spelling."""

    name: str
    hi: int
    lo: int
    label: str
    doc: str


@dataclass(frozen=True)
class Csr:
    """A control/status register: address, fields, reset value. Bits outside every field read 0 (WARL)."""

    name: str
    address: int
    fields: tuple[Field, ...]
    reset: int
    doc: str
    aliases: tuple[str, ...] = ()

    @property
    def mask(self) -> int:
        """The bits a write keeps."""
        out = 0
        for f in self.fields:
            out |= f.mask
        return out

    def field(self, name: str) -> Field:
        """The field named ``name`` (case-insensitive)."""
        for f in self.fields:
            if f.name == name.lower():
                return f
        raise EncodingError(f"{self.name} has no field {name!r}; fields: " + ", ".join(f.label for f in self.fields),
                            instruction=self.name, operand="field", rule="ame.csr.field", value=name)

    def unpack(self, value: int) -> dict[str, int]:
        """Every field of ``value``, by name."""
        return {f.name: f.get(value) for f in self.fields}

    def pack(self, **values: int) -> int:
        """A register value from field values (missing fields are 0).

        Raises:
            EncodingError: an unknown field, or a value that does not fit its field.
        """
        out = 0
        for name, v in values.items():
            f = self.field(name)
            if not isinstance(v, int) or not 0 <= v < (1 << f.width):
                raise EncodingError(f"{f.label}={v!r} does not fit {f.width} bits",
                                    instruction=self.name, operand=f.label, rule="ame.csr.value", value=v)
            out |= v << f.lo
        return out


@dataclass(frozen=True)
class Tiling:
    """A tiling mode: how many A and B tiles one instruction reads (sub-products run A-major)."""

    name: str
    code: int | None  # the mxtile TILING value; None for the guarded 4x4, which GUARD4x4 requests
    n_a: int
    n_b: int


TILINGS: tuple[Tiling, ...] = (
    Tiling("1x1", 0, 1, 1),
    Tiling("2x2", 1, 2, 2),
    Tiling("1x4", 2, 1, 4),
    Tiling("4x1", 3, 4, 1),
)
TILING_4X4 = Tiling("4x4", None, 4, 4)

# RND codes, in the seed's numbering (not RISC-V frm's): 0 RNE, 1 toward +inf, 2 toward -inf, 3 toward 0
ROUNDING: tuple[str, ...] = ("rne", "rup", "rdn", "rtz")

MXCFG = Csr("mxcfg", 0x7C0, (
    Field("ft", 7, 0, "Ft", "input FormatType code"),
    Field("bovf", 8, 8, "bOVF", "1: overflow ignored (accumulate in the input format); 0: full (wider accumulator)"),
    Field("rnd", 11, 9, "RND", "rounding: 0 nearest-even, 1 toward +inf, 2 toward -inf, 3 toward 0; 4-7 illegal"),
    Field("sat", 12, 12, "SAT", "saturate integer results when bOVF=0, and float results of formats without Inf"),
), reset=0, doc="MAC configuration (reset: Ft=INT8, bOVF=0, RND=0, SAT=0)")

MXTILE = Csr("mxtile", 0x7C1, (
    Field("k", 7, 0, "K", "elements per row used (1..elements per tile row of Ft)"),
    Field("m", 15, 8, "M", "rows used (1..16)"),
    Field("tiling", 17, 16, "TILING", "0: 1x1, 1: 2x2, 2: 1x4, 3: 4x1"),
    Field("guard4x4", 18, 18, "GUARD4x4", "1: run 4x4 when the guard passes, else 2x2 and set guard_fallback"),
), reset=16 | 16 << 8 | 1 << 16, doc="tile geometry (reset: K=16, M=16, TILING=2x2)")

MXSTATUS = Csr("mxstatus", 0x7C2, (
    Field("guard_fallback", 0, 0, "guard_fallback", "a guarded 4x4 ran as 2x2 (sticky)"),
    Field("badgeom", 1, 1, "badgeom", "geometry/format trap cause (carried by the BadGeom exception)"),
    Field("inexact", 2, 2, "inexact", "a result was rounded (sticky)"),
    Field("sat_hit", 3, 3, "sat_hit", "a result was clamped to the format's range (sticky)"),
), reset=0, doc="sticky status flags (written by csrw to clear)", aliases=("mx.status", "status"))

CSRS: tuple[Csr, ...] = (MXCFG, MXTILE, MXSTATUS)


def validate(csrs: tuple[Csr, ...], tilings: tuple[Tiling, ...]) -> None:
    """Check CSR tables: unique names and addresses, fields inside 32 bits and disjoint, resets in fields.

    Raises:
        ValueError: the first problem found.
    """
    names: set[str] = set()
    for c in csrs:
        for key in (c.name, *c.aliases):
            if key in names:
                raise ValueError(f"CSR name {key!r} used twice")
            names.add(key)
        if sum(1 for d in csrs if d.address == c.address) != 1:
            raise ValueError(f"CSR address {c.address:#x} used twice")
        used = 0
        for f in c.fields:
            if not 0 <= f.lo <= f.hi < 32:
                raise ValueError(f"{c.name}.{f.name}: [{f.hi}:{f.lo}] outside 32 bits")
            if used & f.mask:
                raise ValueError(f"{c.name}.{f.name} overlaps another field")
            used |= f.mask
        if c.reset & ~c.mask:
            raise ValueError(f"{c.name}: reset value sets reserved bits")
    field_names = [f.name for c in csrs for f in c.fields]
    if len(set(field_names)) != len(field_names):
        raise ValueError("field names must be unique across CSRs (field expressions find their CSR by name)")
    if [t.code for t in tilings] != list(range(4)):
        raise ValueError("every TILING code 0..3 needs exactly one row")


validate(CSRS, TILINGS)


def csr(key: "str | int | Csr") -> Csr:
    """A CSR by name, alias or address.

    Raises:
        EncodingError: no such CSR (rule ``ame.csr.unknown``).
    """
    if isinstance(key, Csr):
        return key
    for c in CSRS:
        if key == c.address or (isinstance(key, str) and key.lower() in (c.name, *c.aliases)):
            return c
    shown = f"{key:#x}" if isinstance(key, int) else repr(key)
    raise EncodingError(f"no CSR {shown}; known: " + ", ".join(f"{c.name} ({c.address:#x})" for c in CSRS),
                        instruction="csr", operand="csr", rule="ame.csr.unknown", value=key)


def tiling_mode(key: "str | int") -> Tiling:
    """A tiling mode by name (``2x2``, ``2×2``) or TILING code."""
    for t in TILINGS:
        if key == t.code or (isinstance(key, str) and key.lower().replace("×", "x") == t.name):
            return t
    raise EncodingError(f"unknown tiling {key!r}; valid: " + ", ".join(t.name for t in TILINGS),
                        instruction="mxtile", operand="TILING", rule="ame.csr.value", value=key)


def rounding_code(key: "str | int") -> int:
    """The RND code of a rounding mode name (``rne rup rdn rtz``) or code 0..3."""
    if isinstance(key, int) and 0 <= key < len(ROUNDING):
        return key
    if isinstance(key, str) and key.lower() in ROUNDING:
        return ROUNDING.index(key.lower())
    raise EncodingError(f"unknown rounding {key!r}; valid: " + ", ".join(f"{i} {r}" for i, r in enumerate(ROUNDING)),
                        instruction="mxcfg", operand="RND", rule="ame.csr.value", value=key)


def ft_code(key) -> int:
    """The Ft code of a format name, alias, :class:`~tilesim.formats.Format` or code.

    Raises:
        FormatError: not a format with an AME FormatType code.
    """
    if isinstance(key, int):
        formats.get(key)  # raises for reserved and vendor codes
        return key
    fmt = formats.get(key)
    if not fmt.ame_codes:
        raise FormatError(f"{fmt.name} has no AME FormatType code", instruction="mxcfg", operand="Ft",
                          rule="ame.ft", value=fmt.name)
    return fmt.ame_codes[0]


def mxcfg(ft="int8", bovf: int = 0, rnd="rne", sat: int = 0) -> int:
    """The ``mxcfg`` value for named fields.

    Args:
        ft: input format (name, alias or FormatType code).
        bovf: 1 accumulates in the input format (overflow ignored), 0 in the wider one.
        rnd: ``rne``, ``rup``, ``rdn``, ``rtz`` or the RND code 0..3.
        sat: 1 saturates (integers when bOVF=0; floats without Inf).
    """
    return MXCFG.pack(ft=ft_code(ft), bovf=int(bovf), rnd=rounding_code(rnd), sat=int(sat))


def mxtile(k: int = 16, m: int = 16, tiling="2x2", guard4x4: bool = False) -> int:
    """The ``mxtile`` value for named fields (``tiling`` by name or code)."""
    t = tiling_mode(tiling)
    return MXTILE.pack(k=k, m=m, tiling=t.code, guard4x4=int(bool(guard4x4)))


def markdown() -> str:
    """The CSR tables as Markdown, for docs/ame.md (a test keeps the page in step)."""
    out = []
    for c in CSRS:
        alias = f" (also {', '.join(c.aliases)})" if c.aliases else ""
        out.append(f"`{c.name}` 0x{c.address:03X}{alias}: {c.doc}\n")
        out.append("| bits | field | meaning |\n|---|---|---|")
        for f in c.fields:
            bits = f"[{f.hi}:{f.lo}]" if f.hi != f.lo else f"[{f.lo}]"
            out.append(f"| {bits} | {f.label} | {f.doc} |")
        out.append("")
    return "\n".join(out)
