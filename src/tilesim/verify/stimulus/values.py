"""Codes of a :mod:`tilesim.formats` format by class, random lane codes, and class measurement.

Shared by every ISA's generator: a class (``nan``, ``inf``, ``zero``, ``subnormal``,
``min_normal``, ``max_normal``) is a set of codes that the format's own fields define, never a
value computed in float arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ... import formats
from ...formats import Domain, Format

__all__ = ["VALUE_CLASSES", "applicable", "random_codes", "class_codes", "measure", "lane_of", "exact_values",
           "tie_mask", "tie_values"]

#: The classes a code can be in by itself (the op-level classes such as ``tie`` are built per op).
VALUE_CLASSES = ("nan", "inf", "zero", "subnormal", "min_normal", "max_normal")

U64 = np.uint64


def lane_of(field: np.ndarray, fmt: Format) -> np.ndarray:
    """Lane codes of ``bits``-wide code fields (shifted into place, sign-extended where the format says)."""
    f = np.asarray(field).astype(U64) << U64(fmt.lane_shift)
    return formats.canonical(f, fmt).astype(fmt.dtype)


def applicable(fmt: Format) -> list[str]:
    """The value classes ``fmt`` has codes for."""
    out = []
    if fmt.is_float:
        if fmt.has_nan:
            out.append("nan")
        if fmt.has_inf:
            out.append("inf")
        if fmt.has_zero:
            out.append("zero")
        if fmt.man_bits and fmt.domain is not Domain.SCALE:
            out.append("subnormal")
    else:
        out.append("zero")
    return out + ["min_normal", "max_normal"]


def random_codes(fmt: Format, rng: np.random.Generator, shape) -> np.ndarray:
    """Uniform lane codes (every canonical code equally likely)."""
    hi = (1 << fmt.bits) - 1
    field = rng.integers(0, hi, size=shape, dtype=np.uint64, endpoint=True)
    return lane_of(field, fmt)


def class_codes(fmt: Format, cls: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` lane codes of ``fmt`` in class ``cls`` (random signs and payloads where there is a choice)."""
    r = lambda lo, hi: rng.integers(lo, hi, size=size, dtype=np.uint64, endpoint=True)  # noqa: E731
    if fmt.is_integer:
        value = {"zero": 0, "min_normal": fmt.int_min, "max_normal": fmt.int_max}[cls]
        return lane_of(np.full(size, value & fmt.code_mask, U64), fmt)
    m = fmt.man_bits
    if cls == "nan":
        if fmt.domain is Domain.IEEE:
            mag = (U64(fmt.exp_max_field) << U64(m)) | r(1, (1 << m) - 1)
        else:
            mag = np.full(size, fmt.mag_mask, U64)
    elif cls == "inf":
        mag = np.full(size, fmt.exp_max_field << m, U64)
    elif cls == "zero":
        mag = np.zeros(size, U64)
    elif cls == "subnormal":
        mag = r(1, (1 << m) - 1)
    elif cls == "min_normal":
        mag = np.full(size, 0 if fmt.domain is Domain.SCALE else 1 << m, U64)
    elif cls == "max_normal":
        mag = np.full(size, fmt.max_code, U64)
    else:
        raise KeyError(cls)
    sign = (r(0, 1) << U64(fmt.sign_bit)) if fmt.signed else U64(0)
    return lane_of(mag | sign, fmt)


def measure(codes: np.ndarray, fmt: Format) -> dict[str, np.ndarray]:
    """For each value class, a bool per code: is it in the class."""
    c = (np.asarray(codes).astype(U64) >> U64(fmt.lane_shift)) & U64(fmt.code_mask)
    out = {}
    if fmt.is_integer:
        c = formats.canonical(c << U64(fmt.lane_shift), fmt)
        low = formats.canonical(np.array([fmt.int_min & fmt.code_mask], U64), fmt)[0]
        out["zero"] = c == 0
        out["min_normal"] = c == low
        out["max_normal"] = c == U64(fmt.int_max)
        return out
    mag = c & U64(fmt.mag_mask)
    m = fmt.man_bits
    exp = mag >> U64(m)
    top = U64(fmt.exp_max_field)
    out["nan"] = (mag > U64(top << U64(m))) if fmt.domain is Domain.IEEE else (
        (mag == U64(fmt.mag_mask)) if fmt.has_nan else np.zeros(c.shape, bool))
    out["inf"] = (mag == U64(top << U64(m))) if fmt.has_inf else np.zeros(c.shape, bool)
    scale = fmt.domain is Domain.SCALE
    out["zero"] = (mag == 0) & (not scale)
    out["subnormal"] = (exp == 0) & (mag != 0) & (not scale)
    out["min_normal"] = mag == U64(0 if scale else 1 << m)
    out["max_normal"] = mag == U64(fmt.max_code)
    return out


def exact_values(codes: np.ndarray, fmt: Format) -> list[Fraction]:
    """Exact values of finite codes (Fractions from the format core's exact decode)."""
    p = formats.decode_exact(codes, fmt)
    return [(-1 if s else 1) * Fraction(int(g)) * Fraction(2) ** int(e)
            for s, g, e in zip(p.sign.tolist(), p.sig.tolist(), p.exp.tolist())]


def tie_mask(x: np.ndarray, fmt: Format) -> np.ndarray:
    """Where a float64 input lies exactly halfway between two adjacent codes of ``fmt``."""
    lo, fl = formats.encode(x, fmt, rounding="rdn", return_flags=True)
    hi = formats.encode(x, fmt, rounding="rup")
    out = np.zeros(x.shape, bool)
    cand = np.nonzero(fl.inexact & ~fl.overflow & ~fl.invalid & np.isfinite(x))[0]
    if cand.size and fmt.bits <= 32:
        # codes of at most 32 bits are exact in float64, and so is the midpoint of two adjacent ones
        mid = (formats.decode(lo[cand], fmt) + formats.decode(hi[cand], fmt)) / 2
        out[cand] = x[cand] == mid
    elif cand.size:
        a, b = exact_values(lo[cand], fmt), exact_values(hi[cand], fmt)
        for j, i in enumerate(cand.tolist()):
            out[i] = 2 * Fraction(float(x[i])) == a[j] + b[j]
    return out


def tie_values(fmt: Format, rng: np.random.Generator, size: int) -> np.ndarray:
    """Float64 inputs exactly halfway between two adjacent finite codes (small integers for integer formats)."""
    if fmt.is_integer:
        step = float(fmt.min_normal_exact)
        lo = max(fmt.int_min, -1000)
        k = rng.integers(lo, min(fmt.int_max, 1000), size=size)
        return (k + 0.5) * step
    codes = random_codes(fmt, rng, 4 * size)
    finite = ~measure(codes, fmt)["nan"] & ~measure(codes, fmt)["inf"] & ~measure(codes, fmt)["max_normal"]
    codes = codes[finite][:size]
    hi = codes.astype(np.uint64) + np.uint64(1 << fmt.lane_shift)   # the next code up in magnitude
    a, b = exact_values(codes, fmt), exact_values(hi.astype(fmt.dtype), fmt)
    return np.array([float((p + q) / 2) for p, q in zip(a, b)])
