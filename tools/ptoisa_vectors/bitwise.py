from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import (
    INTS, SCALAR_DECL, Case, lanes, pair_operands, rand_lanes, scalar_params, scalar_values, scratch, tiles3,
)

#: the bitwise ops' dtypes tried (the simulator's C++ operators compile for every integer type; PTO122)
BITWISE_DTS = INTS


def _counts(rng, dt: str, shape) -> np.ndarray:
    """Shift counts the simulator defines: 0 .. 31 for types promoted to int, else 0 .. bits - 1, the ends
    included."""
    width = max(32, get_dtype(dt).bits)
    n = rng.integers(0, width, size=shape)
    n.flat[:4] = (0, 1, width - 1, width - 1)
    return lanes(dt, n.ravel()).reshape(shape)


def bitwise_cases(rng) -> list[Case]:
    """TAND, TOR, TXOR (with tmp), TNOT, TSHL, TSHR over every integer dtype, and the scalar forms TANDS, TORS,
    TXORS (with tmp), TSHLS, TSHRS with the tile-scalar ops' scalars (shifts: counts 0, 1, 7, width - 1);
    16x32 tiles, valid 15x29, shift sources of random bits."""
    cases = []
    R, C, valid = 16, 32, (15, 29)
    three = ("dst", "src0", "src1")
    for dt in BITWISE_DTS:
        a, b = (x.reshape(R, C) for x in pair_operands(rng, dt, R * C))
        for op in ("tand", "tor"):
            cases.append(tiles3(op, f"{op.upper()}(dst, src0, src1);", dt, three, {"src0": a, "src1": b}, valid, R=R))
        cases.append(tiles3("txor", "TXOR(dst, src0, src1, tmp);", dt, three + ("tmp",),
                            {"src0": a, "src1": b, "tmp": scratch(dt, R, C)}, valid, R=R))
        cases.append(tiles3("tnot", "TNOT(dst, src);", dt, ("dst", "src"), {"src": a}, valid, R=R))
        x = rand_lanes(rng, dt, (R, C))
        for op in ("tshl", "tshr"):
            cases.append(tiles3(op, f"{op.upper()}(dst, src0, src1);", dt, three,
                                {"src0": x, "src1": _counts(rng, dt, (R, C))}, valid, R=R))
        for op in ("tands", "tors", "txors"):
            tmp = op == "txors"
            call = SCALAR_DECL + (f"{op.upper()}(dst, src, sc, tmp);" if tmp else f"{op.upper()}(dst, src, sc);")
            for code in scalar_values(dt):
                cases.append(tiles3(op, call, dt, ("dst", "src") + (("tmp",) if tmp else ()),
                                    {"src": a, **({"tmp": scratch(dt, R, C)} if tmp else {})}, valid,
                                    params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R))
        for op, call in (("tand", "TAND(dst, src0, src1);"), ("tshr", "TSHR(dst, src0, src1);"),
                         ("tnot", "TNOT(dst, src);"), ("tors", SCALAR_DECL + "TORS(dst, src, sc);")):
            roles = ("dst", "src") if op in ("tnot", "tors") else three  # col-major tiles (any layout on cpu)
            a2, b2 = (v.reshape(32, C) for v in pair_operands(rng, dt, 32 * C))
            data = {"src": a2} if len(roles) == 2 else {"src0": a2, "src1": _counts(rng, dt, (32, C))
                                                        if op == "tshr" else b2}
            params = (0,) + scalar_params(dt, int(b2[0, 0])) if op == "tors" else ()
            cases.append(tiles3(op, call, dt, roles, data, (29, 13), "col_major", params=params,
                                args={"scalar": int(b2[0, 0])} if op == "tors" else None, R=32))
        width = max(32, get_dtype(dt).bits)
        for op in ("tshls", "tshrs"):
            for n in (0, 1, 7, width - 1):
                code = int(lanes(dt, [n])[0])
                cases.append(tiles3(op, SCALAR_DECL + f"{op.upper()}(dst, src, sc);", dt, ("dst", "src"), {"src": x},
                                    valid, params=(0,) + scalar_params(dt, code), args={"scalar": code}, R=R))
    return cases

