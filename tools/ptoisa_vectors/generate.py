from __future__ import annotations

from tilesim.pto import get_dtype

from .common import Case, FLOATS, F_SPECIAL, SCALAR_DECL, Spec, lanes, scalar_params, sentinel


# ------------------------------------------------ newcov: generators, TDEQUANT, TMRGSORT, layouts
#: TCI's dtypes on the simulator (no dtype check; bf16 left out, PTO88); TTRI's (its static_assert)
TCI_DTS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32")
TTRI_DTS = ("i32", "i16", "u32", "u16", "f16", "f32")


def _tci_starts(dt: str) -> list[tuple[int, int]]:
    """(start code, descending) pairs: small, negative and range-edge starts, and starts that wrap (defined in
    C++ for types narrower than int and unsigned ones; for i32/i64 signed overflow, undefined, which tilesim
    marks, PTO71)."""
    d = get_dtype(dt)
    if dt in FLOATS:
        sp = F_SPECIAL[dt]
        vals = [0.0, 1.5, -3.25, 100.0, 2040.0, 65472.0, 16777200.0, 1e30]
        codes = [int(c) for c in lanes(dt, vals)] + [sp[1], sp[2], sp[3], sp[6], sp[9]]
        return [(c, k % 2) for k, c in enumerate(codes)] + [(sp[1], 1), (int(lanes(dt, [65472.0])[0]), 0)]
    lo, hi = d.format.int_min, d.format.int_max
    vals = [(0, 0), (7, 1), (hi - 70, 0), (lo + 70, 1), (-5 if lo else 5, 0), (hi - 3, 0), (lo + 3, 1), (hi, 0),
            (lo, 1)]
    return [(int(lanes(dt, [v])[0]), desc) for v, desc in vals]


def generator_cases(rng) -> list[Case]:
    """TCI (every dtype, ascending and descending, starts that wrap, +-0, +-Inf, NaN, f16 rounding; odd valid
    widths) and TTRI (lower and upper, diagonals on and off the tile, 1-row, 1-column and empty valid shapes)."""
    cases = []
    for dt in TCI_DTS:
        C = 64
        for k, (code, desc) in enumerate(_tci_starts(dt)):
            call = SCALAR_DECL + f"TCI<T_dst, typename T_dst::DType, {desc}>(dst, sc);"
            cases.append(Case("tci", call, (Spec("dst", dt, 1, C),), {"dst": (1, (C, 37, 1, 0, 61)[k % 5])},
                              {"dst": sentinel(dt, (1, C))}, (0,) + scalar_params(dt, code),
                              {"scalar": code, "descending": desc}))
    R, C = 16, 32
    shapes = ((13, 29), (16, 32), (1, 1), (16, 1), (1, 32), (0, 7))
    for dt in TTRI_DTS:
        for upper in (0, 1):
            for k, diag in enumerate((-40, -3, 0, 1, 5, 40)):
                cases.append(Case("ttri", f"TTRI<T_dst, {upper}>(dst, P[0]);", (Spec("dst", dt, R, C),),
                                  {"dst": shapes[(k + upper) % len(shapes)]}, {"dst": sentinel(dt, (R, C))},
                                  (diag,), {"diagonal": diag, "upper_or_lower": upper}))
    return cases
