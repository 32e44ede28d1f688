"""Errors as data.

Every error tilesim raises is a :class:`TilesimError`. It carries the
instruction (or op, or function), the operand, the id of the rule that was
broken, the offending value and, for text input, the source line and column.
The message is built from those fields, so two errors of the same kind always
read the same way::

    prog.s:3:9: MMACC.T: operand K: rule ame.geom.k: K=0 is outside 1..16

Categories are subclasses, so callers can catch broadly (``TilesimError``) or
narrowly (``GeometryError``). Where a Python built-in category fits, the class
derives from it as well (``ValueError`` for bad values, ``KeyError`` is avoided
because its ``str()`` quotes the message).
"""

from __future__ import annotations

__all__ = [
    "TilesimError",
    "FormatError",
    "EncodingError",
    "GeometryError",
    "DtypeError",
    "UnsupportedError",
    "SpecGapError",
    "ParseError",
    "StateError",
]


class TilesimError(Exception):
    """Base class: a precise, structured error.

    Args:
        detail: what is wrong, in words (the end of the message).
        instruction: the instruction, op or function that raised it.
        operand: the operand or field at fault.
        rule: a stable rule id (e.g. ``ame.geom.k``) that tests and docs cite.
        value: the offending value.
        source: a file name, for text input.
        line, column: 1-based position in ``source``.
    """

    category = "error"

    def __init__(
        self,
        detail: str,
        *,
        instruction: str | None = None,
        operand: str | None = None,
        rule: str | None = None,
        value: object = None,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.detail = detail
        self.instruction = instruction
        self.operand = operand
        self.rule = rule
        self.value = value
        self.source = source
        self.line = line
        self.column = column
        super().__init__(self._message())

    def _message(self) -> str:
        parts = []
        if self.line is not None:
            where = f"{self.source or '<input>'}:{self.line}"
            if self.column is not None:
                where += f":{self.column}"
            parts.append(where)
        if self.instruction:
            parts.append(self.instruction)
        if self.operand:
            parts.append(f"operand {self.operand}")
        if self.rule:
            parts.append(f"rule {self.rule}")
        parts.append(self.detail)
        return ": ".join(parts)

    def at(self, *, source: str | None = None, line: int | None = None,
           column: int | None = None) -> "TilesimError":
        """Return a copy of this error located at a text position."""
        return type(self)(
            self.detail, instruction=self.instruction, operand=self.operand,
            rule=self.rule, value=self.value, source=source or self.source,
            line=line, column=column,
        )


class FormatError(TilesimError, ValueError):
    """An unknown format, rounding mode, or a code that is not valid for a format."""

    category = "format"


class EncodingError(TilesimError, ValueError):
    """A malformed instruction word or a field value that does not fit."""

    category = "encoding"


class GeometryError(TilesimError, ValueError):
    """Illegal shapes: tile sizes, valid regions, K/M, register indices."""

    category = "geometry"


class DtypeError(TilesimError, TypeError):
    """A data type that the instruction or target does not accept."""

    category = "dtype"


class UnsupportedError(TilesimError, NotImplementedError):
    """Something the modelled hardware does not support (a table row marked so)."""

    category = "unsupported"


class SpecGapError(TilesimError):
    """Behaviour the specification leaves undefined and tilesim refuses to guess."""

    category = "spec-gap"


class ParseError(TilesimError, SyntaxError):
    """Malformed program text; always carries line and column."""

    category = "parse"

    def __str__(self) -> str:  # SyntaxError overrides __str__; keep ours.
        return self._message()


class StateError(TilesimError, RuntimeError):
    """The machine cannot proceed in its current state (e.g. it would stall)."""

    category = "state"
