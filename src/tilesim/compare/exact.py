"""Exact references of ``tilesim compare``: what each operation is, rounded once to an output format.

- Column max and argmax: numpy's, whose ties go to the first index (and a
  NaN wins, at its first index).
- Products of two bf16, fp16 or fp32 values are exact in float64 (at most
  48 significant bits), so ``encode(a * b, fmt)`` rounds the exact product once.
- Reciprocals ``1 / x`` are rounded to odd at float64's 53 bits from the exact quotient
  (``Fraction``), so one more rounding to a narrower format is the single rounding.
- ``exp(x)`` is computed by :mod:`decimal` to 60 digits (its ``exp`` is correctly rounded there), far
  beyond the ~2**-120 that the hardest double cases need, and rounded to odd at 53 bits from that.
- GEMM sums are exact through :func:`math.fsum` (the correctly rounded
  float64 sum) and a second fsum of the residual, which gives the sign of
  the sum's rounding error: the float64 sum is moved toward zero when the
  exact sum is smaller in magnitude and then rounded to odd, and rounding
  to odd at 53 bits, then once to a format of at most 51 bits, equals
  rounding the exact sum once (Boldo and Melquiond, "When double rounding
  is odd", 2005).
- A sum with a non-finite term is IEEE's: NaN with a NaN term or with +Inf
  and -Inf together, else the infinity (what any order of float adds gives).

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

__all__ = ["colmax", "colargmax", "product", "gemm_exact", "reciprocal", "exp", "round_once"]


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
    gives them); the others go through :func:`_odd_sum`, and sums with a non-finite term are
    float64's, in order (fsum refuses Inf - Inf).
    """
    with np.errstate(all="ignore"):
        out = a @ b
    lg = (a.shape[1] - 1).bit_length()
    ok = (_spans(a, 1)[:, None] + _spans(b, 0)[None, :] + lg <= 53) & np.isfinite(out)
    out[out == 0] = 0.0
    for i, j in zip(*np.nonzero(~ok)):
        with np.errstate(all="ignore"):
            t = a[i, :] * b[:, j]
            out[i, j] = _odd_sum(t.tolist()) if np.isfinite(t).all() else np.add.accumulate(t)[-1]
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
    """The exact sum of finite ``t`` rounded to odd at 53 bits, through two :func:`math.fsum`."""
    s = math.fsum(t)
    r = math.fsum(t + [-s])  # the exact sum minus s, correctly rounded: its sign is exact
    if r != 0 and math.isfinite(s):
        if (r < 0) != (s < 0):  # s is above the exact sum in magnitude: step toward zero
            s = math.nextafter(s, 0.0)
        bits = np.float64(s).view(np.int64) | 1
        s = float(np.int64(bits).view(np.float64))
    return s


def reciprocal(x: np.ndarray) -> np.ndarray:
    """``1 / x`` rounded to odd at 53 bits (``1 / +-0`` is +-Inf); round this once to a narrower format."""
    from fractions import Fraction
    out = np.empty(np.shape(x))
    flat, res = np.asarray(x, np.float64).reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        if v == 0 or not math.isfinite(v):
            res[i] = math.copysign(math.inf, v) if v == 0 else (0.0 if math.isinf(v) else math.nan)
            continue
        res[i] = _odd(1 / v, 1 / Fraction(v))
    return out


def _odd(s: float, q) -> float:
    """``s`` (the float nearest ``q``) rounded to odd: stepped toward zero if above ``q``, last bit set,
    unless ``s`` is ``q`` exactly."""
    from fractions import Fraction
    if Fraction(s) == q:
        return s
    if abs(Fraction(s)) > abs(q):
        s = math.nextafter(s, 0.0)
    return float(np.int64(np.float64(s).view(np.int64) | 1).view(np.float64))


def exp(x: np.ndarray) -> np.ndarray:
    """``exp(x)`` rounded to odd at 53 bits (exact 1 at 0, Inf above float64's range)."""
    import decimal
    from fractions import Fraction
    ctx = decimal.Context(prec=60)
    out = np.empty(np.shape(x))
    res = out.reshape(-1)
    for i, v in enumerate(np.asarray(x, np.float64).reshape(-1).tolist()):
        if v == 0 or not math.isfinite(v) or abs(v) > 745:
            res[i] = 1.0 if v == 0 else math.exp(v) if not math.isnan(v) else math.nan
            continue
        q = Fraction(ctx.exp(decimal.Decimal(v)))
        res[i] = _odd(float(q), q)
    return out


def round_once(x: np.ndarray, fmt: str) -> np.ndarray:
    """``x`` rounded to nearest-even in ``fmt`` (one rounding), as float64."""
    return formats.quantize(x, fmt)
