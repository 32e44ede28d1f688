"""Tables and a short tour of the format core, for the command line."""

from __future__ import annotations

import numpy as np
from rich.table import Table

from . import all_formats, decode, encode, get, pack
from .format import Domain, Format

__all__ = ["format_tables", "quantize_table", "demo"]


def _num(x: float) -> str:
    return f"{x:.6g}"


_FORMAT_COLUMNS = ("name", "aliases", "AME", "bits/lane", "kind", "bias", "max", "min normal", "min subnormal",
                   "specials")


def _format_row(f: Format) -> list[str]:
    tapered = f.domain is Domain.TAPERED  # HiF8: the exponent width varies with the value
    kind = "tapered" if tapered else f"e{f.exp_bits}m{f.man_bits}" if f.is_float else (
        f"{f.frac_bits} frac" if f.frac_bits else ("signed" if f.signed else "unsigned"))
    return [f.name, ", ".join(f.aliases[:3]), ", ".join(f"{c:#04x}" for c in f.ame_codes), f"{f.bits}/{f.lane_bits}",
            kind, str(f.bias) if f.is_float and not tapered else "-", _num(f.max), _num(f.min_normal),
            _num(f.min_subnormal), f.specials]


def format_tables(console, fmts: list[Format] | None = None) -> list[Table]:
    """Every format (name, aliases, AME codes, bits, bias, limits and specials) in tables that fit ``console``:
    one wide table, or the formats on their side, every cell in full (decision E14)."""
    from ..tables import tables
    return tables(console, [(c, "left") for c in _FORMAT_COLUMNS], [_format_row(f) for f in fmts or all_formats()],
                  "tilesim formats")


def quantize_table(values: np.ndarray, fmt, rounding="rne", saturate=False, flush=False) -> Table:
    """Codes, values and flags of ``values`` rounded to ``fmt``."""
    f = get(fmt)
    codes, flags = encode(values, f, rounding, saturate=saturate, flush_subnormals=flush, return_flags=True)
    back = decode(codes, f)
    digits = (f.lane_bits + 3) // 4
    t = Table(title=f"{f.name}, {rounding}" + (", saturating" if saturate else ""))
    for col in ("input", "code", "value", "flags"):
        t.add_column(col, justify="right" if col != "flags" else "left", overflow="fold")  # wraps, never cut (E14)
    for i, x in enumerate(values):
        t.add_row(repr(float(x)), f"0x{int(codes[i]):0{digits}X}", repr(float(back[i])),
                  " ".join(flags.names_at(i)) or "-")
    return t


def demo(console) -> None:
    """A tour: a few formats, rounding modes, overflow policies, tile packing."""
    for t in format_tables(console, [get(n) for n in ("fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "e8m0", "bf16", "int4",
                                                      "q4_3")]):
        console.print(t)
    x = np.array([0.1, 1.0 / 3, 300.0, 464.0, 465.0, -1e-3, np.inf, np.nan])
    for mode in ("rne", "rtz"):
        console.print(quantize_table(x, "fp8_e4m3", mode))
    console.print(quantize_table(np.array([70000.0, -70000.0, 2.0**-25]), "fp16", "rtz"))
    console.print(quantize_table(np.array([100.0, -200.0, 2.5]), "int8", "rne", saturate=True))
    row = encode(np.arange(-8, 8).repeat(2), "int4")
    console.print("int4 -8..7 (each twice) packed into one 16-byte AME tile row:",
                  " ".join(f"{b:02X}" for b in pack(row, "int4")))
