"""Exact references of ``tilesim compare``: what each operation is, rounded once to an output format.

- Column max and argmax: numpy's, whose ties go to the first index (and a
  NaN wins, at its first index).
- Products of two bf16, fp16 or fp32 values are exact in float64 (at most
  48 significant bits), so ``encode(a * b, fmt)`` rounds the exact product once.
- GEMM sums are exact through :func:`math.fsum` (the correctly rounded
  float64 sum) and a second fsum of the residual, which gives the sign of
  the sum's rounding error: the float64 sum is moved toward zero when the
  exact sum is smaller in magnitude and then rounded to odd, and rounding
  to odd at 53 bits, then once to a format of at most 51 bits, equals
  rounding the exact sum once (Boldo and Melquiond, "When double rounding
  is odd", 2005).

>>> a = np.array([[1.0, 2.0**-60, 2.0**-8]]); b = np.array([[1.0], [1.0], [1.0]])
>>> float(round_once(gemm_exact(a, b), "bf16")[0, 0]) == 1 + 2.0**-7   # a tie in bf16, broken by 2**-60
True
>>> float(round_once(a @ b, "bf16")[0, 0])                             # float64 loses 2**-60: ties to even
1.0
"""

from __future__ import annotations

import math

import numpy as np

from .. import formats

__all__ = ["colmax", "colargmax", "product", "gemm_exact", "round_once"]


def colmax(x: np.ndarray) -> np.ndarray:
    return np.max(x, axis=0)


def colargmax(x: np.ndarray) -> np.ndarray:
    return np.argmax(x, axis=0)


def product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The exact element-wise product of values of at most 24 significant bits (float64 holds it)."""
    return a * b


def gemm_exact(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` rounded to odd at float64's 53 bits: exact where float64 holds the sum, else the
    truncated sum with its last bit set. Round this once to any narrower format.

    float64 BLAS gives the sums that a certificate proves exact (AME19's, over the whole K: the
    spans of a row of A and a column of B, plus ceil(log2 K), fit 53 bits; zeros are +0, as fsum
    gives them); the others, and non-finite terms, go through :func:`_odd_sum`.
    """
    with np.errstate(all="ignore"):
        out = a @ b
    lg = (a.shape[1] - 1).bit_length()
    ok = (_spans(a, 1)[:, None] + _spans(b, 0)[None, :] + lg <= 53) & np.isfinite(out)
    out[out == 0] = 0.0
    for i, j in zip(*np.nonzero(~ok)):
        out[i, j] = _odd_sum((a[i, :] * b[:, j]).tolist())
    return out


def _spans(x: np.ndarray, axis: int) -> np.ndarray:
    """Along ``axis``: top exponent minus lowest set-bit exponent of the finite non-zero values (every value is a
    multiple of 2**low below 2**top); very large where a value is not finite, very negative for zeros only."""
    live = np.isfinite(x) & (x != 0)
    frac, ex = np.frexp(np.where(live, x, 1.0))
    sig = np.abs(np.ldexp(frac, 53)).astype(np.int64)  # the significand as a 53-bit integer
    _, tz = np.frexp((sig & -sig).astype(np.float64))  # its lowest set bit, 2**(tz - 1)
    low = np.where(live, ex - 53 + tz - 1, 1 << 20).min(axis)
    top = np.where(live, ex, -(1 << 20)).max(axis)
    return np.where(np.isfinite(x).all(axis), top - low, 1 << 40)


def _odd_sum(t: list) -> float:
    """The exact sum of ``t`` rounded to odd at 53 bits, through two :func:`math.fsum`."""
    s = math.fsum(t)
    r = math.fsum(t + [-s])  # the exact sum minus s, correctly rounded: its sign is exact
    if r != 0 and math.isfinite(s):
        if (r < 0) != (s < 0):  # s is above the exact sum in magnitude: step toward zero
            s = math.nextafter(s, 0.0)
        bits = np.float64(s).view(np.int64) | 1
        s = float(np.int64(bits).view(np.float64))
    return s


def round_once(x: np.ndarray, fmt: str) -> np.ndarray:
    """``x`` rounded to nearest-even in ``fmt`` (one rounding), as float64."""
    return formats.quantize(x, fmt)
