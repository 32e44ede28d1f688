"""Exact float64 values rounded to an accumulator format, fast where numpy's casts are the rounding.

numpy casts float64 to float32 and float16 with one IEEE 754 rounding to
nearest even (subnormals and overflow included), so a cast is FP32's or
FP16's RNE; the directed modes then step the results that went the wrong way
by one ulp with ``nextafter``. The tests hold this against
:func:`tilesim.formats.encode` on every boundary (docs/decisions.md AME19).
Other formats, and SAT on formats without Inf, go through
:func:`tilesim.formats.encode`.
"""

from __future__ import annotations

import numpy as np

from .. import formats
from ..formats import Format

__all__ = ["round_values", "FAST_DTYPES"]

FAST_DTYPES = {"fp32": np.float32, "fp16": np.float16}  # accumulators numpy rounds to exactly (RNE casts)


def round_values(s: np.ndarray, acc: Format, rounding: str, saturate: bool, flags: bool = True):
    """Round exact float64 values to ``acc``: (codes, values, inexact, sat_hit).

    FP32 and FP16 by numpy's casts (see the module docstring). Without
    ``flags`` (a caller that knows ``inexact`` is already set) nearest-even
    rounding skips the comparison and reports ``inexact`` False.
    """
    dt = FAST_DTYPES.get(acc.name)
    if dt is None or saturate:
        codes, fl = formats.encode(s, acc, rounding=rounding, saturate=saturate, return_flags=True)
        return codes, formats.decode(codes, acc), bool(fl.inexact.any()), bool(fl.saturated.any())
    with np.errstate(over="ignore"):
        y = s.astype(dt)
    back = y.astype(np.float64)
    if rounding == "rne":
        return y.view(acc.dtype), back, flags and bool((back != s).any()), False  # NaN != NaN: inexact, as before
    if rounding == "rtz":
        wrong = np.abs(back) > np.abs(s)
        toward = 0.0
    elif rounding == "rup":
        wrong, toward = back < s, np.inf
    else:
        wrong, toward = back > s, -np.inf
    inexact = bool((back != s).any())
    if wrong.any():
        i = np.nonzero(wrong)
        with np.errstate(over="ignore"):  # max -> Inf toward +-Inf is the rounding, not an accident
            y[i] = np.nextafter(y[i], dt(toward))
        back[i] = y[i]
    return y.view(acc.dtype), back, inexact, False
