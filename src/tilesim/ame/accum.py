"""Which accumulator (result) format each input FormatType uses, from ``Ft`` and ``bOVF``.

One row per input format, transcribed from the proposal's
resolution rule (v0.14_1 §4) with tilesim's choices for the rows the
decisions leave out (docs/decisions.md AME2). The table is checked at import:
every AME FormatType has exactly one row, integer inputs accumulate in integer
or fixed-point formats and float inputs in floats, and a fixed-point
accumulator never has more fraction bits than an exact product.

>>> accumulator("int8", 0).name, accumulator("int8", 1).name, accumulator(0x11, 0).name
('int16', 'int8', 'fp16')
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import formats
from ..formats import Format

__all__ = ["AccRule", "ACCUMULATORS", "accumulator", "rule_of", "validate", "markdown"]


@dataclass(frozen=True)
class AccRule:
    """Input format ``ft`` accumulates in ``full`` when bOVF=0 and in ``ovf`` when bOVF=1."""

    ft: str
    full: str
    ovf: str
    source: str = "decisions"


_F24_0 = formats.fixed(24, 0).name  # an integer of 24 bits in a 32-bit lane: twice INT12's width

ACCUMULATORS: tuple[AccRule, ...] = (
    AccRule("int4", "int8", "int4"),
    AccRule("int8", "int16", "int8"),
    AccRule("int12", _F24_0, "int12", "AME2: twice the width, as the other integers"),
    AccRule("int16", "int32", "int16"),
    AccRule("int32", "int64", "int32"),
    AccRule("int64", "int64", "int64", "AME2: no 128-bit format; wraps or saturates at 64 bits"),
    AccRule("fp4_e2m1", "fp16", "fp4_e2m1"),
    AccRule("fp4_e1m2", "fp16", "fp4_e1m2"),
    AccRule("fp6_e3m2", "fp16", "fp6_e3m2"),
    AccRule("fp6_e2m3", "fp16", "fp6_e2m3"),
    AccRule("fp6_e4m1", "fp16", "fp6_e4m1"),
    AccRule("uf4_e2m2", "fp32", "uf4_e2m2"),
    AccRule("uf4_e1m3", "fp32", "uf4_e1m3"),
    AccRule("uf6_e4m2", "fp32", "uf6_e4m2"),
    AccRule("fp8_e4m3", "fp16", "fp8_e4m3"),
    AccRule("fp8_e5m2", "fp16", "fp8_e5m2"),
    AccRule("e8m0", "fp32", "e8m0"),
    AccRule("fp12_e5m6", "fp32", "fp12_e5m6", "AME2: products overflow FP16, as FP16's do"),
    AccRule("fp12_e4m7", "fp32", "fp12_e4m7", "AME2: as fp12_e5m6"),
    AccRule("fp16", "fp32", "fp16"),
    AccRule("bf16", "fp32", "bf16"),
    AccRule("uf16_e8m8", "fp32", "uf16_e8m8"),
    AccRule("tf32", "fp32", "tf32"),
    AccRule("fp32", "fp32", "fp32"),
    AccRule("fp64", "fp64", "fp64"),
    AccRule("q4_3", "fix16_6", "q4_3"),
    AccRule("q2_5", "fix16_10", "q2_5"),
    AccRule("q4_8", "fix24_16", "q4_8"),
    AccRule("q5_7", "fix24_14", "q5_7"),
    AccRule("q8_8", "q16_16", "q8_8"),
    AccRule("q16_16", "q32_32", "q16_16"),
    AccRule("q32_32", "q32_32", "q32_32", "AME2: twice would be 128 bits; accumulates in itself, like fp64"),
)

def validate(rows: tuple[AccRule, ...]) -> dict[str, AccRule]:
    """Check an accumulator table and index it by input format name.

    Every AME FormatType needs exactly one row; integer inputs accumulate in
    integer or fixed-point formats and floats in floats; bOVF=1 keeps the input
    format; a fixed-point accumulator has no more fraction bits than a product.

    Raises:
        ValueError: the first problem found.
    """
    by_ft: dict[str, AccRule] = {}
    for row in rows:
        ft = formats.get(row.ft)
        if ft.name in by_ft:
            raise ValueError(f"two accumulator rows for {ft.name}")
        by_ft[ft.name] = row
        for acc in (formats.get(row.full), formats.get(row.ovf)):
            if acc.is_float != ft.is_float:
                raise ValueError(f"{ft.name} -> {acc.name}: integer inputs need integer accumulators and floats floats")
            if acc.is_integer and acc.frac_bits > 2 * ft.frac_bits:
                raise ValueError(f"{ft.name} -> {acc.name}: more fraction bits than a product has")
        if formats.get(row.ovf) is not ft:
            raise ValueError(f"{ft.name}: bOVF=1 accumulates in the input format")
    coded = {f.name for f in formats.AME_CODES.values()}
    if coded != set(by_ft):
        raise ValueError(f"accumulator table and AME codes differ: {sorted(coded ^ set(by_ft))}")
    return by_ft


_BY_FT = validate(ACCUMULATORS)


def rule_of(ft) -> AccRule:
    """The table row of an input format (name, code or Format)."""
    return _BY_FT[formats.get(ft).name]


def accumulator(ft, bovf: int) -> Format:
    """The accumulator (result) format of input format ``ft`` with the given bOVF bit."""
    row = rule_of(ft)
    return formats.get(row.ovf if bovf else row.full)


def markdown() -> str:
    """The accumulator table as Markdown, for docs/ame.md (a test keeps the page in step)."""
    rows = ["| Ft | code | bOVF=0 | bOVF=1 | source |", "|---|---|---|---|---|"]
    for r in ACCUMULATORS:
        codes = ", ".join(f"0x{c:02X}" for c in sorted(formats.get(r.ft).ame_codes))
        rows.append(f"| {r.ft} | {codes} | {r.full} | {r.ovf} | {r.source} |")
    return "\n".join(rows) + "\n"
