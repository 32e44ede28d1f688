from __future__ import annotations

from .common import Case, Spec, conversion_pool, sentinel


FILLPAD_DTS = ("f32", "f16", "i32", "i16", "i8", "u8", "u16", "u32")
#: (op, dtype, pad) beyond TFILLPAD's max and min pads of FILLPAD_DTS
FILLPAD_MORE = (("tfillpad", "f32", "zero"), ("tfillpad", "i8", "zero"), ("tfillpad_inplace", "f32", "min"),
                ("tfillpad_inplace", "i32", "max"),
                *(("tfillpad_expand", dt, "max") for dt in ("f32", "f16", "i16", "u8")))


def fillpad_cases(rng) -> list[Case]:
    """TFILLPAD (every dtype size, each pad value), TFILLPAD_EXPAND (a larger dst) and TFILLPAD_INPLACE."""
    cases = []
    R, C = 16, 32
    plan = [("tfillpad", dt, pad) for dt in FILLPAD_DTS for pad in ("max", "min")]
    plan += list(FILLPAD_MORE)
    for op, dt, pad in plan:
        src = conversion_pool(rng, dt, R * C).reshape(R, C)
        dr, dc = (R + 8, C + 32) if op == "tfillpad_expand" else (R, C)
        specs = (Spec("dst", dt, dr, dc, pad=pad), Spec("src", dt, R, C))
        for vr, vc in ((13, 29), (R, C), (1, 1)):
            cases.append(Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (dr, dc), "src": (vr, vc)},
                              {"dst": sentinel(dt, (dr, dc)), "src": src}))
    return cases
