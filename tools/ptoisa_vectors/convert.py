from __future__ import annotations

from .common import Case, DTS, FLOATS, ROUND_MODES, SAT, Spec, conversion_pool, sentinel


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
