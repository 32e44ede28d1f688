from __future__ import annotations

from .common import DTS, Case, Spec, conversion_pool, scratch, sentinel


def permute_cases(rng) -> list[Case]:
    """TTRANS (dst ND or DN, with its tmp; odd valid shapes), TINTERLEAVE, and TDEINTERLEAVE in its two- and
    one-source forms, over every dtype; the C++ calls take ``(dst1, dst0, src1, src0)``."""
    cases = []
    for dt in DTS:
        x, y = (conversion_pool(rng, dt, 32 * 32).reshape(32, 32) for _ in range(2))
        for bl, (vr, vc) in (("row_major", (13, 29)), ("col_major", (29, 13))):
            dst, src = Spec("dst", dt, 32, 32, bl), Spec("src", dt, 32, 32)
            cases.append(Case("ttrans", "TTRANS(dst, src, tmp);", (dst, src, Spec("tmp", dt, 32, 32)),
                              {"dst": (vc, vr), "src": (vr, vc), "tmp": (vr, vc)},
                              {"dst": sentinel(dt, (32, 32)), "src": x, "tmp": scratch(dt, 32, 32)}))
        R, C, valid = 16, 32, (15, 14)
        four = tuple(Spec(r, dt, R, C) for r in ("dst0", "dst1", "src0", "src1"))
        data = {"dst0": sentinel(dt, (R, C)), "dst1": sentinel(dt, (R, C)), "src0": x[:R], "src1": y[:R]}
        for op in ("tinterleave", "tdeinterleave"):
            cases.append(Case(op, f"{op.upper()}(dst1, dst0, src1, src0);", four, {s.role: valid for s in four},
                              data))
        one = (four[0], four[1], Spec("src", dt, R, C))
        cases.append(Case("tdeinterleave", "TDEINTERLEAVE(dst1, dst0, src);", one,
                          {"dst0": (15, 13), "dst1": (15, 13), "src": (15, 26)},
                          {"dst0": sentinel(dt, (R, C)), "dst1": sentinel(dt, (R, C)), "src": x[R:]}))
    return cases
