"""The format record: one frozen dataclass holds a number format's primary fields.

Everything else (bias-derived limits, masks, special codes) is a cached
property, so ISA packages never recompute a bias or a mask. The shape follows
gfloat's ``FormatInfo``: a handful of keyword-only primary fields, enums for
choices, derived values as properties.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np

from ..errors import FormatError
from . import hif8

__all__ = ["Kind", "Domain", "Format"]


class Kind(enum.Enum):
    """What a code means: a float (sign, exponent, mantissa), an integer, or fixed point."""

    FLOAT = "float"
    INT = "int"
    FIXED = "fixed"


class Domain(enum.Enum):
    """Which float codes are special.

    IEEE:   the top exponent holds ±Inf (mantissa 0) and NaN (any other mantissa).
    FN:     no Inf; only the all-ones magnitude is NaN (OCP E4M3, ``e4m3fn``).
    FINITE: every code is a finite number (OCP MX FP4/FP6 and the AME micro formats).
    SCALE:  exponent only, no zero, all-ones is NaN (OCP E8M0).
    TAPERED: HiFloat8: a prefix-coded dot field picks the exponent width (:mod:`tilesim.formats.hif8`);
            the record's exponent and mantissa fields are its widest ones (4 and 3 bits), its values a table.
    """

    IEEE = "ieee"
    FN = "fn"
    FINITE = "finite"
    SCALE = "scale"
    TAPERED = "tapered"


_LANE_DTYPES = {4: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


@dataclass(frozen=True, eq=False)
class Format:
    """A number format.

    Primary fields (keyword-only):
        name: canonical tilesim name (``fp8_e4m3``).
        kind: :class:`Kind`.
        bits: significant bits of one code (6 for FP6, 12 for INT12, 19 for TF32).
        signed: whether the format has negative values.
        lane_bits: bits of the container one element occupies (4, 8, 16, 32, 64).
        exp_bits, man_bits, bias: float fields (0 for integers).
        domain: :class:`Domain` for floats; ``None`` otherwise.
        frac_bits: fixed point: value = signed integer × 2**-frac_bits.
        lane_shift: the code sits this many bits up in its lane (TF32: 13,
            so a TF32 lane is an FP32 pattern with the low 13 bits zero).
        ame_codes: AME FormatType codes that select this format.
        aliases: other names it is found by.
        note: where the definition comes from, for the format table.
    """

    name: str
    kind: Kind
    bits: int
    signed: bool
    lane_bits: int
    exp_bits: int = 0
    man_bits: int = 0
    bias: int = 0
    domain: Domain | None = None
    frac_bits: int = 0
    lane_shift: int = 0
    ame_codes: tuple[int, ...] = ()
    aliases: tuple[str, ...] = ()
    note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        problem = None
        if self.lane_bits not in _LANE_DTYPES:
            problem = f"lane_bits {self.lane_bits} not in {sorted(_LANE_DTYPES)}"
        elif self.bits + self.lane_shift > self.lane_bits:
            problem = f"{self.bits}+{self.lane_shift} bits do not fit a {self.lane_bits}-bit lane"
        elif self.kind is Kind.FLOAT and self.domain is None:
            problem = "a float needs a domain"
        elif self.kind is Kind.FLOAT and self.bits != int(self.signed) + self.exp_bits + self.man_bits:
            problem = "sign+exponent+mantissa != bits"
        elif self.kind is not Kind.FLOAT and (self.domain is not None or self.exp_bits or self.man_bits):
            problem = "integer formats have no float fields"
        if problem:
            raise FormatError(f"{self.name}: {problem}", instruction="formats.Format", rule="formats.definition",
                              value=self.name)

    def __repr__(self) -> str:
        return f"Format({self.name!r})"

    # ----------------------------------------------------------------- classes
    @property
    def is_float(self) -> bool:
        return self.kind is Kind.FLOAT

    @property
    def is_integer(self) -> bool:
        """True for plain integers and fixed point (two's complement or unsigned)."""
        return self.kind is not Kind.FLOAT

    @cached_property
    def dtype(self) -> np.dtype:
        """The unsigned numpy dtype that holds one lane (codes are returned in it)."""
        return np.dtype(_LANE_DTYPES[self.lane_bits])

    @cached_property
    def code_mask(self) -> int:
        """Mask of the ``bits`` code bits (before the lane shift)."""
        return (1 << self.bits) - 1

    @cached_property
    def lane_mask(self) -> int:
        return (1 << self.lane_bits) - 1

    # ------------------------------------------------------------ float fields
    @cached_property
    def sign_bit(self) -> int:
        """Bit position of the sign within the code (floats and integers); -1 if unsigned."""
        return self.bits - 1 if self.signed else -1

    @cached_property
    def mag_mask(self) -> int:
        """Mask of the magnitude bits (exponent and mantissa) of a float code."""
        return (1 << (self.exp_bits + self.man_bits)) - 1

    @cached_property
    def exp_max_field(self) -> int:
        return (1 << self.exp_bits) - 1

    @cached_property
    def emin(self) -> int:
        """Exponent of the smallest normal (of the smallest value for SCALE)."""
        if self.domain is Domain.TAPERED:
            return hif8.EMIN
        if self.domain is Domain.SCALE:
            return -self.bias
        return 1 - self.bias

    @cached_property
    def max_code(self) -> int:
        """Magnitude code of the largest finite value."""
        m = self.man_bits
        if self.domain is Domain.TAPERED:
            return hif8.MAX_CODE
        if self.domain is Domain.IEEE:
            return (self.exp_max_field << m) - 1
        if self.domain in (Domain.FN, Domain.SCALE):
            return self.mag_mask - 1
        return self.mag_mask  # FINITE

    @cached_property
    def emax(self) -> int:
        """Exponent of the largest finite value."""
        if self.domain is Domain.TAPERED:
            return hif8.EMAX
        field_ = self.max_code >> self.man_bits
        return field_ - self.bias

    @property
    def has_inf(self) -> bool:
        return self.domain in (Domain.IEEE, Domain.TAPERED)

    @property
    def has_nan(self) -> bool:
        return self.domain in (Domain.IEEE, Domain.FN, Domain.SCALE, Domain.TAPERED)

    @property
    def has_negzero(self) -> bool:
        return self.is_float and self.signed and self.domain not in (Domain.SCALE, Domain.TAPERED)

    @property
    def has_zero(self) -> bool:
        return self.domain is not Domain.SCALE

    @cached_property
    def nan_code(self) -> int | None:
        """The canonical NaN lane code: positive, quiet (mantissa MSB set) for IEEE."""
        if self.domain is Domain.TAPERED:
            return hif8.NAN_CODE
        if self.domain is Domain.IEEE:
            code = (self.exp_max_field << self.man_bits) | (1 << (self.man_bits - 1))
        elif self.domain in (Domain.FN, Domain.SCALE):
            code = self.mag_mask
        else:
            return None
        return code << self.lane_shift

    @cached_property
    def inf_code(self) -> int | None:
        """The +Inf lane code (set the sign bit for -Inf); ``None`` without Inf."""
        if self.domain is Domain.TAPERED:
            return hif8.INF_CODE
        if self.domain is not Domain.IEEE:
            return None
        return (self.exp_max_field << self.man_bits) << self.lane_shift

    # ---------------------------------------------------------- integer fields
    @cached_property
    def int_min(self) -> int:
        """Smallest integer code value (two's complement), before the fraction scale."""
        return -(1 << (self.bits - 1)) if self.signed else 0

    @cached_property
    def int_max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    # ------------------------------------------------------------------ limits
    @cached_property
    def max_exact(self) -> Fraction:
        """Largest finite value, exactly."""
        if self.is_integer:
            return Fraction(self.int_max, 1 << self.frac_bits)
        if self.domain in (Domain.SCALE, Domain.TAPERED):
            return Fraction(2) ** self.emax
        m = self.man_bits
        sig = (1 << m) | (self.max_code & ((1 << m) - 1))
        return Fraction(sig) * Fraction(2) ** (self.emax - m)

    @cached_property
    def min_exact(self) -> Fraction:
        """Most negative finite value (0 for unsigned formats), exactly."""
        if self.is_integer:
            return Fraction(self.int_min, 1 << self.frac_bits)
        return -self.max_exact if self.signed else Fraction(0)

    @cached_property
    def min_normal_exact(self) -> Fraction:
        """Smallest positive normal value (the smallest non-zero step for integers)."""
        if self.is_integer:
            return Fraction(1, 1 << self.frac_bits)
        return Fraction(2) ** self.emin

    @cached_property
    def min_subnormal_exact(self) -> Fraction:
        """Smallest positive value."""
        if self.is_integer:
            return Fraction(1, 1 << self.frac_bits)
        if self.domain is Domain.SCALE:
            return self.min_normal_exact
        if self.domain is Domain.TAPERED:
            return Fraction(2) ** hif8.EMIN_DENORMAL
        return Fraction(2) ** (self.emin - self.man_bits)

    @property
    def max(self) -> float:
        return float(self.max_exact)

    @property
    def min(self) -> float:
        return float(self.min_exact)

    @property
    def min_normal(self) -> float:
        return float(self.min_normal_exact)

    @property
    def min_subnormal(self) -> float:
        return float(self.min_subnormal_exact)

    @property
    def specials(self) -> str:
        """A short description of the special values, for tables."""
        if self.is_integer:
            return "-"
        out = []
        if self.has_inf:
            out.append("±Inf" if self.signed else "+Inf")
        if self.has_nan:
            out.append("NaN")
        if self.has_negzero:
            out.append("-0")
        if not self.has_zero:
            out.append("no zero")
        return ", ".join(out) or "finite only"
