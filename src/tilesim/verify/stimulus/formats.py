"""Stimulus for the number-format core: ``encode`` (float64 -> format) and ``decode`` (format -> value).

- ``encode``: input ``x`` (float64 bit patterns, 16 per vector); outputs ``code`` (the format's lanes)
  and ``flags`` (inexact, overflow, underflow, invalid, saturated as bits 0..4).
- ``decode``: input ``code``; output ``value`` (float64 bits; int64/uint64 for integer formats).

Options: ``format`` (name, alias or AME code), ``rounding`` (encode), ``saturate`` (encode).
"""

from __future__ import annotations

import numpy as np

from ... import formats
from ...errors import TilesimError
from ...formats import Format, Kind
from ..classes import finish, plan
from ..vectorset import Operand, VectorSet
from .values import applicable, class_codes, measure, random_codes, tie_mask, tie_values

__all__ = ["OPS", "OPTIONS", "generate"]

OPS = ("encode", "decode")
OPTIONS = frozenset({"format", "rounding", "saturate"})
LANES = 16


def _values_for(fmt: Format, cls: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """Float64 inputs for ``encode`` in class ``cls``."""
    if cls == "nan":
        bits = np.uint64(0x7FF0000000000000) | rng.integers(1, (1 << 52) - 1, size=size, dtype=np.uint64)
        bits |= rng.integers(0, 1, size=size, dtype=np.uint64, endpoint=True) << np.uint64(63)
        return bits.view(np.float64)
    if cls == "inf":
        return rng.choice([np.inf, -np.inf], size)
    if cls == "zero":
        return rng.choice([0.0, -0.0], size)
    if cls == "tie":
        return tie_values(fmt, rng, size)
    if cls in ("overflow", "saturation"):
        big = float(fmt.max_exact) * rng.uniform(1.5, 4, size)
        return big * (rng.choice([-1, 1], size) if fmt.signed else 1)
    if cls == "subnormal" and fmt.is_float:
        return formats.decode(class_codes(fmt, cls, rng, size), fmt) * rng.uniform(0.5, 1, size)
    return formats.decode(class_codes(fmt, cls, rng, size), fmt)


def _random_values(fmt: Format, rng: np.random.Generator, size: int) -> np.ndarray:
    """Values across the format's range: its own values, nudged off the grid, and float64 noise."""
    v = formats.decode(random_codes(fmt, rng, size), fmt)
    nudge = rng.uniform(-1, 1, size) * float(fmt.min_subnormal_exact if fmt.is_float else fmt.min_normal_exact)
    v = np.where(rng.random(size) < 0.5, v + nudge, v)
    return np.where(np.isfinite(v), v, rng.normal(0, 4, size))


def _classes(op: str, fmt: Format, saturate: bool) -> list[str]:
    base = applicable(fmt)
    if op == "decode":
        return base
    out = ["nan", "inf", "zero"] + [c for c in base if c not in ("nan", "inf", "zero")]
    if fmt.name != "fp64":
        out += ["tie", "overflow"] + (["saturation"] if saturate else [])
    return out


def _measure_encode(x: np.ndarray, fmt: Format, flags) -> list[set]:
    absx = np.abs(x)
    rows = {
        "nan": np.isnan(x), "inf": np.isinf(x), "zero": x == 0,
        "max_normal": absx == float(fmt.max_exact),
        "overflow": flags.overflow, "saturation": flags.saturated,
        "tie": tie_mask(x.ravel(), fmt).reshape(x.shape),
    }
    if fmt.is_float:
        rows["subnormal"] = (absx > 0) & (absx < float(fmt.min_normal_exact))
        rows["min_normal"] = absx == float(fmt.min_normal_exact)
    else:
        rows["min_normal"] = x == float(fmt.min_exact)
    return [{c for c, m in rows.items() if m[i].any()} for i in range(x.shape[0])]


def generate(op: str, *, n: int, seed: int, min_per_class: int, format: str = "fp8_e4m3", rounding: str = "rne",
             saturate: bool = False) -> VectorSet:
    """A vector set for ``encode`` or ``decode`` of one format."""
    key: str | int = int(format, 0) if isinstance(format, str) and format.lower().startswith("0x") else format
    fmt = formats.get(key)
    formats.encode(np.zeros(1), fmt, rounding=rounding)  # checks the rounding mode (FormatError)
    rng = np.random.default_rng(seed)
    classes = _classes(op, fmt, saturate)
    order = plan(classes, n, min_per_class, rng)
    config = {"format": fmt.name, "rounding": rounding, "saturate": bool(saturate)} if op == "encode" else \
        {"format": fmt.name}
    if op == "encode":
        x = np.stack([_random_values(fmt, rng, LANES) for _ in order])
        for i, cls in enumerate(order):
            if cls != "random":
                k = rng.integers(1, LANES // 2, endpoint=True)
                pos = rng.choice(LANES, k, replace=False)
                x[i, pos] = _values_for(fmt, cls, rng, k)
        code, flags = formats.encode(x, fmt, rounding=rounding, saturate=saturate, return_flags=True)
        tags = [sorted(m | ({c} if c != "random" else set())) for m, c in zip(_measure_encode(x, fmt, flags), order)]
        operands = [Operand("x", "input", (LANES,), 64, "fp64", doc="float64 inputs"),
                    Operand("code", "output", (LANES,), fmt.lane_bits, fmt.name, nan_any=True,
                            doc=f"{fmt.name} codes"),
                    Operand("flags", "output", (LANES,), 5, "bits",
                            doc="bit 0 inexact, 1 overflow, 2 underflow, 3 invalid, 4 saturated",
                            flags=formats.Flags.NAMES)]
        arrays = {"x": x.view(np.uint64), "code": code.astype(fmt.dtype), "flags": flags.bits()}
    elif op == "decode":
        codes = random_codes(fmt, rng, (len(order), LANES))
        for i, cls in enumerate(order):
            if cls != "random":
                k = rng.integers(1, LANES // 2, endpoint=True)
                codes[i, rng.choice(LANES, k, replace=False)] = class_codes(fmt, cls, rng, k)
        meas = measure(codes, fmt)
        tags = [sorted({c for c, m in meas.items() if m[i].any()} | ({c} if c != "random" else set()))
                for i, c in enumerate(order)]
        if fmt.kind is Kind.INT:
            out_fmt = "int64" if fmt.signed else "uint64"
            value = formats.decode_int(codes, fmt).astype(np.int64 if fmt.signed else np.uint64).view(np.uint64)
        else:
            out_fmt, value = "fp64", formats.decode(codes, fmt).view(np.uint64)
        operands = [Operand("code", "input", (LANES,), fmt.lane_bits, fmt.name, doc=f"{fmt.name} codes"),
                    Operand("value", "output", (LANES,), 64, out_fmt, nan_any=True, doc=f"{out_fmt} values")]
        arrays = {"code": codes.astype(fmt.dtype), "value": value}
    else:
        raise TilesimError(f"unknown formats op; known: {', '.join(OPS)}", instruction="tilesim vectors",
                           operand="OP", rule="verify.op", value=op)
    tags = finish(tags, classes, min_per_class)
    return VectorSet("formats", op, config, seed, operands, arrays, tags, classes, min_per_class)
