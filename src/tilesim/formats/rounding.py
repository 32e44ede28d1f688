"""Rounding modes and the one vectorised rounding step every encoder uses.

An exact value is held as :class:`Parts`: sign, an unsigned 64-bit integer
significand, a binary exponent and a sticky bit, plus a class (finite, Inf,
NaN). ``round_at`` rounds such values to an integer multiple of ``2**q`` for a
per-element quantum ``q``; floats choose ``q`` from the value's exponent,
integers and fixed point use ``q = -frac_bits``. Everything is integer numpy.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from ..errors import FormatError

__all__ = ["Rounding", "Parts", "FINITE", "INF", "NAN", "round_at", "bit_length", "shr"]

U64 = np.uint64
FINITE, INF, NAN = 0, 1, 2


class Rounding(enum.Enum):
    """Rounding modes. Values are the names the API and CLI accept."""

    RNE = "rne"  # nearest, ties to even
    RTZ = "rtz"  # toward zero
    RUP = "rup"  # toward +inf
    RDN = "rdn"  # toward -inf
    RMM = "rmm"  # nearest, ties away from zero

    @classmethod
    def of(cls, mode: "Rounding | str") -> "Rounding":
        """Accept an enum member or its name (case-insensitive).

        Raises:
            FormatError: an unknown mode; the message lists the valid ones.
        """
        if isinstance(mode, Rounding):
            return mode
        try:
            return cls(str(mode).lower())
        except ValueError:
            raise FormatError(
                f"unknown rounding mode {mode!r}; valid: " + ", ".join(m.value for m in cls),
                instruction="formats.encode", operand="rounding", rule="formats.rounding", value=mode) from None


class Parts(NamedTuple):
    """Exact values: ``(-1)**sign * (sig + δ) * 2**exp`` with ``0 < δ < 1/2`` iff ``sticky``.

    ``cls`` is FINITE, INF or NAN (then sig/exp are ignored). All fields are
    arrays of one shape: sign bool, sig uint64, exp int64, sticky bool, cls int8.
    A producer that truncates a wider exact value keeps at least one zero guard
    bit below ``sig``'s last bit so that ``δ < 1/2`` holds.
    """

    sign: np.ndarray
    sig: np.ndarray
    exp: np.ndarray
    sticky: np.ndarray
    cls: np.ndarray

    @classmethod
    def finite(cls, sign, sig, exp, sticky=None) -> "Parts":
        """Finite parts from broadcastable arrays."""
        sign, sig, exp = np.broadcast_arrays(np.asarray(sign, bool), np.asarray(sig, U64),
                                             np.asarray(exp, np.int64))
        sticky = np.zeros(sign.shape, bool) if sticky is None else np.broadcast_to(np.asarray(sticky, bool), sign.shape)
        return cls(sign, sig, exp, sticky, np.zeros(sign.shape, np.int8))

    @property
    def shape(self) -> tuple[int, ...]:
        return self.sign.shape


def shr(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``x >> n`` for uint64 x with n >= 0 possibly >= 64 (then 0)."""
    return np.where(n >= 64, U64(0), x >> np.minimum(n, 63).astype(U64))


def bit_length(x: np.ndarray) -> np.ndarray:
    """Vectorised ``int.bit_length`` for uint64 arrays (0 for 0)."""
    _, e = np.frexp(x.astype(np.float64))
    e = e.astype(np.int64)
    # float64 conversion may round up to the next power of two: correct that.
    over = (e > 0) & (shr(x, e - 1) == 0)
    return e - over


def round_at(parts: Parts, q: np.ndarray, mode: Rounding, parity=None):
    """Round finite magnitudes ``sig * 2**exp`` to integer multiples of ``2**q``.

    Args:
        parts: the values (only sign, sig, exp, sticky are used).
        q: int64 quantum exponent per element. The caller keeps
            ``(sig * 2**exp) / 2**q < 2**64``.
        mode: the rounding mode; the sign picks the direction for RUP/RDN.
        parity: optional uint64 0/1 added to ``kept`` before the RNE "even"
            test, for formats whose code parity is not the significand's (E8M0).

    Returns:
        (kept, inexact): uint64 multiples of ``2**q`` (magnitude) and whether
        anything was discarded. ``kept`` may carry to the next power of two.
    """
    sign, sig, exp, sticky = parts.sign, parts.sig, parts.exp, parts.sticky
    shift = q - exp
    up = shift <= 0
    left = np.where(up, np.minimum(-shift, 63), 0).astype(U64)
    t = np.where(up, 0, shift)
    kept = np.where(up, sig << left, shr(sig, t))
    tm1 = np.maximum(t - 1, 0)
    guard = np.where(t >= 1, shr(sig, tm1) & U64(1), U64(0)).astype(bool)
    low_mask = np.where(tm1 >= 64, ~U64(0), (U64(1) << np.minimum(tm1, 63).astype(U64)) - U64(1))
    rest = ((sig & low_mask) != 0) & (t >= 1) | sticky
    inexact = guard | rest
    if mode is Rounding.RNE:
        odd = (kept if parity is None else kept + parity) & U64(1)
        inc = guard & (rest | (odd == 1))
    elif mode is Rounding.RMM:
        inc = guard
    elif mode is Rounding.RTZ:
        inc = np.zeros_like(guard)
    elif mode is Rounding.RUP:
        inc = inexact & ~sign
    else:  # RDN
        inc = inexact & sign
    return kept + inc.astype(U64), inexact
