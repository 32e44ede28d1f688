from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import (
    DTS, FLOATS, SCALAR_DECL, Case, conversion_pool, lanes, pair_operands, scalar_params, scalar_values, scratch,
    tiles3,
)

#: exponents that make pow exact, odd, even, fractional, huge or tiny
_F_EXPS = [0, 1, -1, 2, 3, -2, -3, 0.5, -0.5, 1.5, 2.5, 0.25, 1 / 3, 10, 31, -31, 127, 1e-3, 1e3, -1e3, 65504, 3e38]
#: bases near 1, powers of two, perfect squares and the specials' neighbours
_F_BASES = [1 + 2 ** -12, 1 - 2 ** -12, 1 + 2 ** -10, 2, 0.5, 4, 9, 2.25, 1.5, 0.75, -2, -0.5, -1, 1, 3, -3, 10, 1e-3,
            2 ** -126, 2 ** -140, 65504, 1e30, -1e30]


def _float_operands(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bases x exponents: the specials paired, then the bases above against the exponents above, then bases
    spread over every binade against exponents in [-8, 8] (halves, thirds, integers and random)."""
    a, b = pair_operands(rng, dt, n)
    gb, ge = (x.ravel() for x in np.meshgrid(lanes(dt, _F_BASES), lanes(dt, _F_EXPS)))
    spread = lanes(dt, rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n))
    small = lanes(dt, np.where(rng.random(n) < 0.5, rng.integers(-16, 17, n) / rng.choice([1, 2, 3, 4], n),
                               rng.uniform(-8, 8, n)))
    return (np.resize(np.concatenate([a[:400], gb, spread]), n), np.resize(np.concatenate([b[:400], ge, small]), n))


def _int_operands(rng, dt: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Small bases (0, +-1 among them) against exponents 0..70 (and negative ones), then random codes (wrapping)."""
    d = get_dtype(dt)
    lo = max(d.format.int_min, -5)
    base = rng.integers(lo, 12, n)
    exp = rng.integers(-4 if d.signed else 0, 71, n)
    edge = lanes(dt, [0, 1, 2, d.format.int_max] + ([-1, -2, d.format.int_min] if d.signed else [3]))
    eb, ee = (x.ravel() for x in np.meshgrid(edge, lanes(dt, [0, 1, 2, 3, 63, 64] + ([-1, -2] if d.signed else []))))
    a = np.concatenate([eb, lanes(dt, base[: n // 2]), conversion_pool(rng, dt, n // 2)])
    b = np.concatenate([ee, lanes(dt, exp[: n // 2]), conversion_pool(rng, dt, n // 2)[::-1]])
    return a[:n], b[:n]


def pow_cases(rng) -> list[Case]:
    """TPOW over every dtype (32x64 tiles, 32x32 for 8-byte types, valid 31 x cols-3, and one col-major case)
    and TPOWS with the tile-scalar scalars plus powers' own (0.5, 2, 3, -1; integers: 0..3, which keep the
    double pow in range)."""
    cases = []
    R = 32
    for dt in DTS:
        d = get_dtype(dt)
        C = 64 if d.size <= 4 else 32
        ops = _float_operands if dt in FLOATS else _int_operands
        a, b = (x.reshape(R, C) for x in ops(rng, dt, R * C))
        four = ("dst", "src0", "src1", "tmp")
        cases.append(tiles3("tpow", "TPOW(dst, src0, src1, tmp);", dt, four,
                            {"src0": a, "src1": b, "tmp": scratch(dt, R, C)}, (R - 1, C - 3), R=R, C=C))
        cases.append(tiles3("tpow", "TPOW(dst, src0, src1, tmp);", dt, four,
                            {"src0": a[:32], "src1": b[:32], "tmp": scratch(dt, 32, C)}, (29, 13), "col_major",
                            R=32, C=C))
        if dt in FLOATS:
            codes = scalar_values(dt) + [int(v) for v in lanes(dt, [0.5, 2, 3, -1, 1 / 3])]
        else:
            codes = [int(v) for v in lanes(dt, [0, 1, 2, 3])]
            a = np.where(np.abs(a.view(d.np).astype(np.float64)) < 2 ** (d.bits // 3 - 1), a, lanes(dt, [7])[0])
        for code in codes:
            cases.append(tiles3("tpows", SCALAR_DECL + "TPOWS(dst, src, sc, tmp);", dt, ("dst", "src", "tmp"),
                                {"src": a[:16], "tmp": scratch(dt, 16, C)}, (15, C - 3),
                                params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=16, C=C))
    return cases
