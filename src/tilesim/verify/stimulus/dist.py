"""How the undirected elements of a vector are drawn: ``--dist``, ``--range``, ``--weight``.

- ``bits``: every finite code equally likely (NaN and Inf become zero): exercises every bit pattern,
  but most float products then overflow;
- ``normal``: values from a normal distribution (sigma 1 for floats, a quarter of the largest integer
  for integer formats, or a sixth of ``--range``), rounded to the format by the format core;
- ``exp-uniform``: exponent fields uniform over the format's finite range, random mantissa and sign
  (integers: bit lengths uniform);
- ``edge``: every element a class code (NaN, Inf, zero, subnormal, smallest and largest normal),
  the classes the format has, equally likely unless weighted.

``--range LO:HI`` keeps every drawn value in [LO, HI]. ``--weight CLASS=W`` plants a code of that
value class in each element with probability W, on top of any distribution. The default is
``normal`` for float formats and ``bits`` for integers (decision V17); every code is still a code of
the format, never a float that stands in for one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import formats
from ...errors import TilesimError
from ...formats import Domain, Format
from .values import VALUE_CLASSES, applicable, class_codes, lane_of, measure, random_codes

__all__ = ["DISTS", "Dist", "parse_range", "parse_weights"]

DISTS = ("bits", "normal", "exp-uniform", "edge")
_CMD = "tilesim vectors"


def parse_range(text) -> tuple[float, float] | None:
    """``LO:HI`` (floats, LO < HI, both finite) or None."""
    if text is None:
        return None
    if isinstance(text, (tuple, list)):
        parts = list(text)
    else:
        parts = str(text).split(":")
    try:
        lo, hi = (float(p) for p in parts)
    except (TypeError, ValueError):
        lo = hi = math.nan
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise TilesimError("--range takes LO:HI, two finite numbers with LO < HI (e.g. -4:4)", instruction=_CMD,
                           operand="--range", rule="verify.opt.range", value=text)
    return lo, hi


def parse_weights(text) -> dict[str, float]:
    """``CLASS=W[,CLASS=W]`` (value classes, 0 <= W <= 1, sum at most 1) as a dict."""
    if text is None or text == {}:
        return {}
    items = text.items() if isinstance(text, dict) else (p.split("=", 1) for p in str(text).split(","))
    out = {}
    for item in items:
        try:
            cls, w = item
            w = float(w)
        except (TypeError, ValueError):
            cls, w = str(item), math.nan
        cls = str(cls).strip()
        if cls not in VALUE_CLASSES or not 0 <= w <= 1:
            raise TilesimError(f"--weight takes CLASS=W with CLASS one of {', '.join(VALUE_CLASSES)} and W in 0..1",
                               instruction=_CMD, operand="--weight", rule="verify.opt.weight", value=str(item))
        out[cls] = w
    if sum(out.values()) > 1:
        raise TilesimError("--weight: the weights add up to more than 1", instruction=_CMD, operand="--weight",
                           rule="verify.opt.weight", value=text)
    return out


@dataclass(frozen=True)
class Dist:
    """A distribution of element codes: ``kind`` (None: the format's default), a value range, class weights."""

    kind: str | None = None
    range: tuple[float, float] | None = None
    weights: tuple[tuple[str, float], ...] = ()

    @classmethod
    def make(cls, kind=None, range=None, weights=None) -> "Dist":
        if kind is not None and kind not in DISTS:
            raise TilesimError(f"--dist takes {', '.join(DISTS)}", instruction=_CMD, operand="--dist",
                               rule="verify.opt.dist", value=kind)
        return cls(kind, parse_range(range), tuple(sorted(parse_weights(weights).items())))

    def kind_for(self, fmt: Format) -> str:
        return self.kind or ("normal" if fmt.is_float else "bits")

    def config(self) -> dict:
        """What the manifest records."""
        return {"dist": self.kind or "default", "range": list(self.range) if self.range else None,
                "weights": dict(self.weights)}

    def codes(self, fmt: Format, rng: np.random.Generator, shape) -> np.ndarray:
        """Codes of ``fmt`` of ``shape`` drawn from this distribution."""
        shape = tuple(shape)
        kind = self.kind_for(fmt)
        if kind == "normal":
            codes = _normal(fmt, rng, shape, self.range)
        elif kind == "exp-uniform":
            codes = _exp_uniform(fmt, rng, shape)
        elif kind == "edge":
            codes = _edge(fmt, rng, shape)
        else:
            codes = random_codes(fmt, rng, shape)
        if kind != "edge" and fmt.is_float:                  # NaN and Inf only where planted or weighted
            m = measure(codes, fmt)
            codes = np.where(m["nan"] | m["inf"], class_codes(fmt, "zero", rng, 1)[0], codes)
        if self.range is not None:
            codes = _in_range(codes, fmt, rng, self.range)
        for cls, w in self.weights:
            if cls in applicable(fmt) and w > 0:
                hit = rng.random(shape) < w
                codes = np.where(hit, class_codes(fmt, cls, rng, int(np.prod(shape))).reshape(shape), codes)
        return np.asarray(codes).astype(fmt.dtype)


def _normal(fmt: Format, rng, shape, rng_range) -> np.ndarray:
    if rng_range is not None:
        lo, hi = rng_range
        x = rng.normal((lo + hi) / 2, (hi - lo) / 6, shape)
    else:
        sigma = 1.0 if fmt.is_float else max(1.0, float(fmt.max_exact) / 4)
        x = rng.normal(0, sigma, shape)
    if not fmt.signed:
        x = np.abs(x)
    if fmt.domain is Domain.SCALE:                             # a power-of-two scale: no zero, no sign
        x = np.exp2(np.round(x * 4))
    return formats.encode(x, fmt, rounding="rne", saturate=True).reshape(shape)


def _exp_uniform(fmt: Format, rng, shape) -> np.ndarray:
    n = int(np.prod(shape))
    r = lambda lo, hi: rng.integers(lo, hi, size=n, dtype=np.uint64, endpoint=True)  # noqa: E731
    if fmt.is_integer:
        length = r(0, fmt.bits - (1 if fmt.signed else 0))
        lo = np.where(length == 0, np.uint64(0), np.uint64(1) << (length - np.uint64(1)))
        hi = np.where(length == 0, np.uint64(0), (lo << np.uint64(1)) - np.uint64(1))
        mag = rng.integers(lo, hi, dtype=np.uint64, endpoint=True)
        neg = r(0, 1).astype(bool) & fmt.signed
        code = np.where(neg, (~mag + np.uint64(1)), mag) & np.uint64(fmt.code_mask)
        return lane_of(code, fmt).reshape(shape)
    m = fmt.man_bits
    low = 0 if fmt.domain is Domain.SCALE else 1
    e = r(low, fmt.max_code >> m)
    mag = np.minimum((e << np.uint64(m)) | (r(0, (1 << m) - 1) if m else np.uint64(0)), np.uint64(fmt.max_code))
    sign = (r(0, 1) << np.uint64(fmt.sign_bit)) if fmt.signed else np.uint64(0)
    return lane_of(mag | sign, fmt).reshape(shape)


def _edge(fmt: Format, rng, shape) -> np.ndarray:
    classes = applicable(fmt)
    n = int(np.prod(shape))
    pick = rng.integers(0, len(classes), n)
    out = np.zeros(n, np.uint64)
    for i, c in enumerate(classes):
        where = pick == i
        out[where] = class_codes(fmt, c, rng, int(where.sum()))
    return out.astype(fmt.dtype).reshape(shape)


def _in_range(codes, fmt: Format, rng, rng_range) -> np.ndarray:
    """Codes whose value is outside [lo, hi] (or NaN) redrawn uniformly in it, rounded inward.

    Raises:
        TilesimError: no code of ``fmt`` lies in the range (``verify.opt.range``).
    """
    lo, hi = rng_range
    v = _values(codes, fmt)
    bad = ~((v >= lo) & (v <= hi))
    if not bad.any():
        return codes
    top = float(fmt.max_exact)
    bottom = -top if fmt.signed else (float(fmt.min_exact) if fmt.domain is Domain.SCALE else 0.0)
    a, b = max(lo, bottom), min(hi, top)
    x = rng.uniform(a, b, int(bad.sum())) if a <= b else np.full(int(bad.sum()), a)
    new = formats.encode(x, fmt, rounding="rtz", saturate=True)
    up = formats.encode(np.full(1, a), fmt, rounding="rup", saturate=True)
    down = formats.encode(np.full(1, b), fmt, rounding="rdn", saturate=True)
    nv = _values(new, fmt)
    new = np.where(nv < lo, up[0], np.where(nv > hi, down[0], new))
    nv = _values(new, fmt)
    if not ((nv >= lo) & (nv <= hi)).all():
        raise TilesimError(f"no {fmt.name} value lies in {lo:g}:{hi:g}", instruction=_CMD, operand="--range",
                           rule="verify.opt.range", value=f"{lo:g}:{hi:g}")
    codes = codes.copy()
    codes[bad] = new
    return codes


def _values(codes, fmt: Format) -> np.ndarray:
    if fmt.is_integer and fmt.frac_bits == 0:
        return formats.decode_int(codes, fmt).astype(np.float64)
    return formats.decode(codes, fmt)
