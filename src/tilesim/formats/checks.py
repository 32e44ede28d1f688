"""Argument checks of the public format functions.

Every check names the public function the caller called (``formats.pack``,
not a helper inside it) and says what it accepts. Numbers are taken only where
they convert exactly: bool, integers, IEEE float16/32/64, ml_dtypes types and
Python numbers; a ``longdouble`` only where float64 holds every value. Arrays of
either byte order are read by value, and one call takes at most
:data:`MAX_ELEMENTS` elements.
"""

from __future__ import annotations

import numpy as np

from ..errors import FormatError

__all__ = ["values_array", "codes_array", "flag", "count", "MAX_ELEMENTS"]

#: the most elements one call of a format function takes (F-series decision F11)
MAX_ELEMENTS = 1 << 31

_IEEE = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_VALUE_KINDS = "bool, integer, float16/32/64 or ml_dtypes arrays, Python numbers, or Parts"


def _array(x, fn: str, operand: str) -> np.ndarray:
    if isinstance(x, (str, bytes)):
        raise FormatError(f"expected numbers, got the string {x!r}", instruction=fn, operand=operand,
                          rule="formats.values", value=x)
    try:
        a = np.asarray(x)
    except (ValueError, TypeError):
        raise FormatError("expected a number or a rectangular array of numbers", instruction=fn, operand=operand,
                          rule="formats.values", value=type(x).__name__) from None
    if a.size > MAX_ELEMENTS:  # before any copy: a broadcast view of 2**40 elements costs nothing until then
        raise FormatError(f"{a.size:,} elements ({'x'.join(map(str, a.shape))}); the format functions take at most "
                          f"{MAX_ELEMENTS:,} (2**31) per call: pass the array in pieces", instruction=fn,
                          operand=operand, rule="formats.size", value=a.shape)
    if not a.dtype.isnative and a.dtype.kind in "biufc":  # big-endian: read by value, never as swapped bytes
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def _ml_dtypes_kind(dt: np.dtype) -> str | None:
    """``f`` or ``i`` for an ml_dtypes float or integer dtype, else None."""
    if dt.kind != "V" or not dt.type.__module__.startswith("ml_dtypes"):
        return None
    import ml_dtypes

    try:
        ml_dtypes.finfo(dt)
        return "f"
    except ValueError:
        ml_dtypes.iinfo(dt)
        return "i"


def _python_numbers(a: np.ndarray, fn: str, operand: str) -> np.ndarray:
    """An object array of Python/numpy real numbers as int64, uint64 or float64, exactly."""
    flat = list(a.flat)
    for i, x in enumerate(flat):
        if not isinstance(x, (int, float, np.integer, np.floating, np.bool_)) or (
                isinstance(x, np.floating) and np.dtype(type(x)) not in _IEEE and float(x) != x):
            at = [int(j) for j in np.unravel_index(i, a.shape)] if a.ndim else []
            raise FormatError(f"element {at} is {x!r} "
                              f"({type(x).__name__}); valid: {_VALUE_KINDS}", instruction=fn, operand=operand,
                              rule="formats.values", value=repr(x))
    ints = [int(x) for x in flat if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))]
    if len(ints) == len(flat):
        if all(-(1 << 63) <= v < (1 << 63) for v in ints):
            return a.astype(np.int64)
        if all(0 <= v < (1 << 64) for v in ints):
            return a.astype(np.uint64)
        raise FormatError("integers beyond 64 bits cannot be encoded exactly; pass Parts", instruction=fn,
                          operand=operand, rule="formats.values")
    inexact = [v for v in ints if float(v) != v]
    if inexact:
        raise FormatError(f"{inexact[0]} is mixed with floats but float64 cannot hold it; pass integers and "
                          "floats as separate arrays", instruction=fn, operand=operand, rule="formats.values",
                          value=inexact[0])
    return a.astype(np.float64)


def values_array(values, fn: str, operand: str = "values") -> np.ndarray:
    """``values`` as a bool, integer or IEEE float array with the same numbers (converted exactly).

    Raises:
        FormatError: strings, complex, objects that are not numbers, or a conversion that would round.
    """
    a = _array(values, fn, operand)
    dt = a.dtype
    if dt.kind in "biu" or dt in _IEEE:
        return a
    if dt.kind == "O":
        return _python_numbers(a, fn, operand)
    ml = _ml_dtypes_kind(dt)
    if ml is not None:
        return a.astype(np.float64 if ml == "f" else np.int64)
    if dt.kind == "f":  # longdouble: only where float64 holds every value
        b = a.astype(np.float64)
        same = (b.astype(dt) == a) | (np.isnan(a) & np.isnan(b))
        if not np.all(same):
            raise FormatError(f"{dt} values that float64 cannot hold exactly (e.g. {a[~same].flat[0]!r}); "
                              "pass float64 or Parts", instruction=fn, operand=operand, rule="formats.values",
                              value=str(dt))
        return b
    raise FormatError(f"values of dtype {dt} cannot be encoded exactly; valid: {_VALUE_KINDS}", instruction=fn,
                      operand=operand, rule="formats.values", value=str(dt))


def codes_array(codes, fn: str, operand: str = "codes",
                want: str = "codes are unsigned integers (the bits of each lane)") -> np.ndarray:
    """``codes`` as an integer array (bool and Python ints accepted).

    Raises:
        FormatError: anything that is not an integer.
    """
    a = _array(codes, fn, operand)
    if a.dtype.kind in "iu":
        return a
    if a.dtype.kind == "b":
        return a.astype(np.uint8)
    ml = _ml_dtypes_kind(a.dtype)
    if ml == "i":
        return a.astype(np.int64)
    if a.dtype.kind == "O":
        bad = [x for x in a.flat if not isinstance(x, (int, np.integer))]
        if not bad:
            return _python_numbers(a, fn, operand)
    raise FormatError(f"{want}, not {a.dtype}"
                      + (" values: encode values first with formats.encode" if a.dtype.kind in "fV" else ""),
                      instruction=fn, operand=operand, rule="formats.codes", value=str(a.dtype))


def flag(x, name: str, fn: str) -> bool:
    """A yes/no argument: ``bool``, ``numpy.bool_``, or the integers 0 and 1."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, (int, np.integer)) and x in (0, 1)):
        return bool(x)
    raise FormatError(f"{name} is True or False (or 0 or 1), not {x!r}", instruction=fn, operand=name,
                      rule="formats.flag", value=repr(x))


def count(x, name: str, fn: str, lo: int = 0, hi: int | None = None) -> int:
    """An integer argument in ``lo..hi``."""
    ok = isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
    if not ok or x < lo or (hi is not None and x > hi):
        span = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
        raise FormatError(f"{name} is an integer {span}, not {x!r}", instruction=fn, operand=name,
                          rule="formats.count", value=repr(x))
    return int(x)
