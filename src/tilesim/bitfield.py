"""Bits ``[hi:lo]`` of a word: what an instruction field and a CSR field have in common.

A mixin for the frozen dataclass rows of the ISA tables (Tensix instruction
fields, AME CSR fields); each row declares its own ``hi`` and ``lo``.
"""

from __future__ import annotations

__all__ = ["BitRange"]


class BitRange:
    """Derived views of a ``hi``/``lo`` bit range (``hi`` >= ``lo``, bit 0 is the LSB)."""

    hi: int
    lo: int

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @property
    def mask(self) -> int:
        """The range's bits in place."""
        return ((1 << self.width) - 1) << self.lo

    def get(self, word: int) -> int:
        """The field's value in ``word``.

        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class F(BitRange):
        ...     hi: int
        ...     lo: int
        >>> F(11, 8).get(0xA53), hex(F(11, 8).mask)
        (10, '0xf00')
        """
        return (word >> self.lo) & ((1 << self.width) - 1)
