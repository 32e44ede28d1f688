"""What the bits of an operand mean: values for the mismatch table, NaN tests, ULP distances.

An operand names its *lane kind* in the manifest (``"fmt"``):

- a :mod:`tilesim.formats` name (``bf16``, ``int16``, ``fp64``...): decoded by the format core;
- ``tt.src.<STYLE>``, ``tt.dst16.<STYLE>``, ``tt.dst32.<STYLE>``: Tensix register datums,
  read with :mod:`tilesim.tensix.layouts` (STYLE is TF32, BF16, FP16, INT8, FP32 or INT32);
- ``tt.dst32rows.<STYLE>``: physical 16-bit Dst rows of a 32-bit Dst (FP32 or INT32): the datum of
  ``Dst32b`` has its high half in a row with bit 3 clear and its low half 8 rows below, so a
  report pairs the two halves and shows the datum's value;
- ``bits``: plain unsigned fields (flags, counters, instruction words), shown as integers, or as
  flag names where the operand names its bits (``flags`` in the manifest).

Everything here runs on the few elements a report shows, or on whole arrays with numpy.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from ..errors import FormatError
from ..formats import Domain, Kind

__all__ = ["values", "nan_mask", "ulp_distance", "check_kind", "numeric", "flag_names", "hex_xz", "dst32_partner",
           "dst32_datum", "dst32_kind"]

_TT_KINDS = {"src": ("TF32", "BF16", "FP16", "INT8"), "dst16": ("BF16", "FP16", "INT8"), "dst32": ("FP32", "INT32"),
             "dst32rows": ("FP32", "INT32")}


def check_kind(kind: str) -> str:
    """Raise FormatError unless ``kind`` is a lane kind this module reads."""
    if kind == "bits":
        return kind
    if kind.startswith("tt."):
        parts = kind.split(".")
        if len(parts) == 3 and parts[2] in _TT_KINDS.get(parts[1], ()):
            return kind
        raise FormatError("unknown Tensix lane kind", instruction="tilesim check", operand="fmt",
                          rule="verify.manifest.fmt", value=kind)
    formats.get(kind)
    return kind


def _tt(kind: str):
    _, reg, style = kind.split(".")
    return reg, style


def values(codes: np.ndarray, kind: str) -> np.ndarray:
    """Numbers of ``codes`` (float64; integers exact up to 2**53), for display."""
    c = np.asarray(codes)
    if kind == "bits":
        return c.astype(np.float64)
    if kind.startswith("tt."):
        from ..tensix import layouts
        reg, style = _tt(kind)
        fn = {"src": layouts.src_values, "dst16": layouts.dst16_values, "dst32": layouts.dst32_values}[reg]
        return fn(c, style)
    fmt = formats.get(kind)
    if fmt.kind is Kind.INT and fmt.frac_bits == 0:
        return formats.decode_int(c, fmt).astype(np.float64)
    return formats.decode(formats.canonical(c, fmt), fmt)


def nan_mask(codes: np.ndarray, kind: str) -> np.ndarray:
    """Where ``codes`` are NaN (always False for kinds without NaN, Tensix datums included)."""
    c = np.asarray(codes)
    if kind == "bits" or kind.startswith("tt."):
        return np.zeros(c.shape, bool)
    fmt = formats.get(kind)
    if not fmt.is_float or fmt.domain is Domain.FINITE:
        return np.zeros(c.shape, bool)
    x = (c.astype(np.uint64) >> np.uint64(fmt.lane_shift)) & np.uint64(fmt.code_mask)
    mag = x & np.uint64(fmt.mag_mask)
    if fmt.domain is Domain.IEEE:
        top = np.uint64(fmt.exp_max_field << fmt.man_bits)
        return mag > top
    return mag == np.uint64(fmt.mag_mask)


def _order_key(code: int, kind: str) -> int | None:
    """A monotonic integer for one code (adjacent values differ by 1), or None where there is none."""
    if kind == "bits":
        return int(code)
    if kind.startswith("tt."):
        from ..tensix import layouts
        reg, style = _tt(kind)
        if reg == "dst32":
            if style == "INT32":
                return int(layouts.dst32_to_int(np.array([code]))[0])
            return _order_key(int(layouts.dst32_to_fp32(np.array([code]))[0]), "fp32")
        if reg == "dst16" and style != "INT8":
            to = layouts.dst16_to_bf16 if style == "BF16" else layouts.dst16_to_fp16
            return _order_key(int(to(np.array([code]))[0]), style.lower())
        sign = code >> (15 if reg == "dst16" else 18)
        mag = code & ((1 << (15 if reg == "dst16" else 18)) - 1)
        return -mag if sign else mag
    fmt = formats.get(kind)
    if fmt.is_integer:
        p = formats.decode_exact(np.array([code], fmt.dtype), fmt)
        step = int(p.sig[0]) << (int(p.exp[0]) + fmt.frac_bits)   # the value in units of the last place
        return -step if p.sign[0] else step
    x = (int(code) >> fmt.lane_shift) & fmt.code_mask
    mag = x & fmt.mag_mask
    return -mag if fmt.signed and x >> fmt.sign_bit & 1 else mag


def ulp_distance(expected: int, got: int, kind: str) -> int | None:
    """Steps between two codes in the format's order (None when either is NaN)."""
    if nan_mask(np.array([expected, got], np.uint64), kind).any():
        return None
    a, b = _order_key(int(expected), kind), _order_key(int(got), kind)
    return None if a is None or b is None else abs(a - b)


def numeric(kind: str) -> bool:
    """Whether codes of ``kind`` hold numbers (so a ULP distance means something)."""
    return kind != "bits"


def flag_names(code: int, names) -> str:
    """The set bits of a status word by name (``bitN`` for a bit with no name), ``-`` for none."""
    on = [(names[i] if i < len(names) and names[i] else f"bit{i}") for i in range(int(code).bit_length())
          if code >> i & 1]
    return " ".join(on) or "-"


def hex_xz(code: int, xbits: int, zbits: int, width: int) -> str:
    """A dump word as hex digits, with ``x`` (``z``) for digits that had any X (Z) bit."""
    out = []
    for d in range(width - 1, -1, -1):
        nib = 0xF << (4 * d)
        out.append("x" if xbits & nib else "z" if zbits & nib else f"{(code & nib) >> (4 * d):x}")
    return "".join(out)


def dst32_partner(flat: int, shape: tuple[int, ...]) -> int:
    """The flat index of the other half of the Dst32 datum at physical row element ``flat``."""
    cols = shape[-1]
    row, col = divmod(flat, cols)
    return (row ^ 8) * cols + col


def dst32_datum(code: int, partner: int, index: tuple[int, ...]) -> int:
    """The 32-bit Dst datum from the half at ``index`` (physical row, column) and its partner."""
    hi, lo = (code, partner) if not index[0] & 8 else (partner, code)
    return (hi << 16) | lo


def dst32_kind(kind: str) -> str:
    """The lane kind of a whole datum (``tt.dst32.FP32``) for a ``tt.dst32rows`` kind."""
    return kind.replace("tt.dst32rows.", "tt.dst32.")
