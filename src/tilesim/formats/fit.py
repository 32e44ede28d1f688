"""Encode values that must fit a format: nothing is rounded or clamped unless the caller asked.

An API that stores user values into a format (``Core.write_tile``, ``mld``, the
GEMM runtime) uses :func:`fit` rather than :func:`~tilesim.formats.encode`, so a
value the format does not hold is an error that says how to ask for rounding
or clamping (docs/decisions.md E2).
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .checks import flag, values_array
from .codec import decode, encode
from .registry import get

__all__ = ["fit"]


def fit(values, fmt, *, rounding=None, saturate: bool = False, instruction: str = "formats.fit",
        operand: str = "values", ask: str = "pass rounding='rne' to round and saturate=True to clamp", refuse=None):
    """Codes of values that ``fmt`` must hold as given: nothing is rounded or clamped unless asked.

    With ``rounding=None`` a value between two codes is an error; with
    ``saturate=False`` a value beyond the format's range (±Inf into a format
    without Inf, a negative into an unsigned format) is an error. A NaN into a
    format without NaN, or a value with no code at all (0 into E8M0), is always
    an error. The message names the first offending element and ends with
    ``ask``: how the caller asks for rounding or clamping. A caller with its own
    rule id and wording passes ``refuse(index, value)``, which returns the
    exception to raise for the first offending element instead.

    >>> fit([1.0, -2.5], "fp8_e4m3").tolist()
    [56, 194]
    >>> fit([300], "int8", instruction="write_tile", ask="pass quantize=True")
    Traceback (most recent call last):
    ...
    tilesim.errors.FormatError: write_tile: operand values: rule formats.fit.range: 300 at [0] is outside int8's \
range -128..127; pass quantize=True

    Raises:
        FormatError: rules ``formats.fit.inexact``, ``formats.fit.range``, ``formats.fit.invalid``.
    """
    fmt = get(fmt)
    a = values_array(values, instruction, operand)
    sat = flag(saturate, "saturate", instruction)
    mode = rounding if rounding is not None else "rne"
    codes, flags = encode(a, fmt, mode, saturate=sat, return_flags=True)
    invalid = flags.invalid & ~flags.saturated
    if not sat and np.any(invalid):  # what clamping cannot mend either (NaN, 0 into E8M0)
        clamped = encode(a, fmt, mode, saturate=True, return_flags=True)[1]
        invalid = clamped.invalid & ~clamped.saturated
    none = np.zeros(a.shape, bool)
    over = none if sat else (flags.overflow | flags.invalid) & ~invalid
    inexact = none if rounding is not None else flags.inexact & ~flags.overflow & ~flags.invalid
    where = {"instruction": instruction, "operand": operand}
    if refuse is not None:
        _refuse(invalid | over | inexact, a, "", "", fmt, "", where, refuse)
    _refuse(invalid, a, "has no {fmt} code ({fmt} holds {range}{specials})", "formats.fit.invalid", fmt, "", where)
    _refuse(over, a, "is outside {fmt}'s range {range}", "formats.fit.range", fmt, ask, where)
    _refuse(inexact, a, "is not a {fmt} value (the nearest are {nearest})", "formats.fit.inexact", fmt, ask, where)
    return codes


def _refuse(mask, a, detail: str, rule: str, fmt, ask: str, where: dict, refuse=None) -> None:
    """Raise ``rule`` for the first element under ``mask``, if any (``detail`` names it), or ``refuse``'s error."""
    if not np.any(mask):
        return
    at = tuple(int(i) for i in np.argwhere(mask)[0])
    x = a[at]
    if refuse is not None:
        raise refuse(list(at), x.item() if isinstance(x, np.generic) else x)
    text = detail.format(fmt=fmt.name, range=_range(fmt), specials="" if fmt.is_integer else f"; {fmt.specials}",
                         nearest=_nearest(x, fmt) if "{nearest}" in detail else "")
    raise FormatError(f"{_shown(x)} at {list(at)} {text}" + (f"; {ask}" if ask else ""), rule=rule,
                      value=_shown(x), **where)


def _shown(x) -> str:
    return repr(x.item()) if isinstance(x, np.generic) else repr(x)


def _range(fmt) -> str:
    if fmt.is_integer and not fmt.frac_bits:
        return f"{fmt.int_min}..{fmt.int_max}"
    return f"{fmt.min:.9g}..{fmt.max:.9g}"


def _nearest(x, fmt) -> str:
    lo, hi = (float(decode(encode(np.array([x]), fmt, m), fmt)[0]) for m in ("rdn", "rup"))
    return f"{lo!r} and {hi!r}"
