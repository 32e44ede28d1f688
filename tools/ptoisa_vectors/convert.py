from __future__ import annotations

import numpy as np

from .common import Case, DTS, FLOATS, ROUND_MODES, SAT, Spec, conversion_pool, lanes, sentinel


#: the dtype pairs TCVT is tried with in DN and boxed layouts
TCVT_LAYOUT_PAIRS = (("f32", "i32"), ("f16", "f32"), ("f32", "f16"), ("i32", "f32"), ("f16", "i8"))


def tcvt_cases(rng) -> list[Case]:
    cases = []
    R, C = 8, 32
    for s in DTS:
        pool = conversion_pool(rng, s, R * C).reshape(R, C)
        for d in DTS:
            modes = ROUND_MODES if s in FLOATS else ("RINT", "FLOOR")
            for mode in modes:
                for sat in ((None, "OFF", "ON") if mode == "RINT" else ("OFF", "ON")):
                    src, dst = Spec("src", s, R, C), Spec("dst", d, R, C)
                    call = ("TCVT(dst, src, (RoundMode)P[0]);" if sat is None
                            else "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);")
                    params = (ROUND_MODES.index(mode),) + (() if sat is None else (SAT[sat],))
                    cases.append(Case("tcvt", call, (dst, src), {"dst": (R, C - 1), "src": (R, C - 1)},
                                      {"dst": sentinel(d, (R, C)), "src": pool}, params,
                                      {"rmode": mode, "sat": None if sat is None else sat == "ON"}))
    # other layouts: DN and boxed tiles, odd valid shapes
    for s, d in TCVT_LAYOUT_PAIRS:
        for bl, sl in (("col_major", "none_box"), ("col_major", "row_major"), ("row_major", "col_major")):
            rows = 32
            src, dst = Spec("src", s, rows, 32, bl, sl), Spec("dst", d, rows, 32, bl, sl)
            pool = conversion_pool(rng, s, rows * 32).reshape(rows, 32)
            cases.append(Case("tcvt", "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);", (dst, src),
                              {"dst": (29, 7), "src": (29, 7)}, {"dst": sentinel(d, (rows, 32)), "src": pool},
                              (ROUND_MODES.index("ROUND"), SAT["OFF"]), {"rmode": "ROUND", "sat": False}))
    return cases


#: the 4-bit dtypes (int4b_t, float4_e2m1x2_t, float4_e1m2x2_t), and the dtypes converted to and from them
SUB_BYTE = ("i4", "f4e2m1", "f4e1m2")
SUB_BYTE_PEERS = ("f32", "f16", "i8", "u8", "i16", "i32", "u32", "i64")


def tcvt_sub_byte_cases(rng) -> list[Case]:
    """TCVT from every code of each 4-bit dtype to the others and :data:`SUB_BYTE_PEERS`, and from those to
    the 4-bit dtypes (ties, range edges, wrapping exponents, NaN and Inf), every round mode, saturation off
    and on; an odd valid width leaves half of a packed destination's last byte alone (PTO153)."""
    cases = []
    R, C = 4, 64
    every = np.resize(np.arange(16, dtype=np.uint8), R * C).reshape(R, C)
    small = np.arange(-40, 41) / 4.0                       # -10 .. 10 in quarters: ties of every mode
    for s in SUB_BYTE + SUB_BYTE_PEERS:
        if s in SUB_BYTE:
            pool, targets = every, SUB_BYTE + SUB_BYTE_PEERS
        else:
            extra = lanes(s, small) if s in FLOATS else lanes(s, np.arange(-20, 21) if s[0] == "i" else np.arange(41))
            base = conversion_pool(rng, s, R * C)
            pool = np.concatenate([extra, base])[: R * C].astype(base.dtype).reshape(R, C)
            targets = SUB_BYTE
        for d in targets:
            if d == s:
                continue
            modes = ROUND_MODES if s in FLOATS or (s in SUB_BYTE[1:] and d in FLOATS) else ("RINT",)
            for mode in modes:
                for sat in ("OFF", "ON"):
                    src, dst = Spec("src", s, R, C), Spec("dst", d, R, C)
                    cases.append(Case("tcvt", "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);", (dst, src),
                                      {"dst": (R, C - 1), "src": (R, C - 1)}, {"dst": sentinel(d, (R, C)) & 0xF
                                      if d in SUB_BYTE else sentinel(d, (R, C)), "src": pool},
                                      (ROUND_MODES.index(mode), SAT[sat]), {"rmode": mode, "sat": sat == "ON"}))
    return cases
