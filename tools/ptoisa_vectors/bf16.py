from __future__ import annotations

import numpy as np

from .common import BF16, Case, FLOATS, Spec, conversion_pool, narrowed, sentinel, tiles3
from .reduce import mixed_col_case, mixed_row_case


def bf16_family(family, suffix: str = "", **tables):
    """``family`` with the package's dtype tables set to ``tables`` (and bf16 a float), keeping the cases with a
    bf16 tile: the same kinds of values (ties, NaN payloads, subnormals, range edges) in bf16. These cases are
    built by the ``--bf16-cxx`` toolchain, the only one with a real ``std::bfloat16_t`` (PTO88). ``suffix`` names
    a second narrowing of one family (its own generator)."""
    def cases(rng) -> list[Case]:
        with narrowed(FLOATS=FLOATS + (BF16,), **tables):
            return [c for c in family(rng) if c.stem.endswith(".bf16")]
    cases.__name__ = family.__name__.replace("_cases", f"_bf16{suffix}_cases")
    cases.__doc__ = f"{family.__name__} in bf16 ({', '.join(tables)} narrowed)"
    return cases


#: the reduces with no dtype static_assert in the simulator (any pair compiles), and their exact widenings into
#: bf16 beside bf16 -> f32 (the mixed pairs cpu takes, PTO91; the others are refused there, PTO46)
BF16_REDUCE_FREE = ("trowmax", "trowmin", "trowprod", "tcolmin", "tcolprod")
BF16_REDUCE_MIXED = [("i8", BF16), ("u8", BF16)]


def _every_code(ops) -> list[Case]:
    """Every bf16 code once through each unary op of ``ops`` (a 256 x 256 tile)."""
    codes = np.arange(1 << 16, dtype=np.uint16).reshape(256, 256)
    return [tiles3(op, f"{op.upper()}(dst, src);", BF16, ("dst", "src"), {"src": codes}, (256, 256), R=256, C=256)
            for op in ops]


def every_code_bf16_cases(rng) -> list[Case]:
    """Every bf16 code once through TEXP and TLOG."""
    return _every_code(("texp", "tlog"))


def every_code_root_bf16_cases(rng) -> list[Case]:
    """Every bf16 code once through TSQRT and TRECIP (TRSQRT: the simulator refuses bf16, PTO79)."""
    return _every_code(("tsqrt", "trecip"))


#: custom pad words (pto-isa's ``PadValueCustom``): bf16 -1.0, a NaN with a payload, the smallest subnormal, and
#: the f32 word of 1.5 (``PadValueCustom(1.5f)``), whose low 16 bits a bf16 tile takes: +0
BF16_CUSTOM_PADS = ("custom:0xbf80", "custom:0x7fc1", "custom:0x0001", "custom:0x3fc00000")


def fillpad_custom_bf16_cases(rng) -> list[Case]:
    """TFILLPAD/_EXPAND/_INPLACE with custom pads, and TLOAD into a tile with one (the simulator pads it with 0)."""
    with narrowed(FLOATS=FLOATS + (BF16,)):
        cases = []
        R, C = 16, 32
        src = conversion_pool(rng, BF16, R * C).reshape(R, C)
        for op, pad in zip(("tfillpad", "tfillpad", "tfillpad_expand", "tfillpad_inplace"), BF16_CUSTOM_PADS):
            dr, dc = (R + 8, C + 32) if op == "tfillpad_expand" else (R, C)
            specs = (Spec("dst", BF16, dr, dc, pad=pad), Spec("src", BF16, R, C))
            for vr, vc in ((13, 29), (1, 1)):
                cases.append(Case(op, f"{op.upper()}(dst, src);", specs, {"dst": (dr, dc), "src": (vr, vc)},
                                  {"dst": sentinel(BF16, (dr, dc)), "src": src}))
        g = conversion_pool(rng, BF16, 40 * 48).reshape(40, 48)
        glob = (f"GlobalTensor<bfloat16_t, Shape<1, 1, 1, 29, 37>, Stride<1, 1, 1, 48, 1>> g(gm.data() + {3 * 48 + 5});"
                " TLOAD(dst, g);")
        cases.append(Case("tload", glob, (Spec("dst", BF16, 32, 64, pad=BF16_CUSTOM_PADS[0]),
                                          Spec("gm", BF16, 40, 48, loc="gm")), {"dst": (29, 37), "gm": (29, 37)},
                          {"dst": sentinel(BF16, (32, 64)), "gm": g}, (), {"offset": [3, 5]}))
        return cases


# mixred: the five unchecked reduces between bf16 and each other dtype, exact widenings aside (PTO67)
BF16_MIXED_PAIRS = [(a, b) for o in ("f16", "f32", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")
                    for a, b in ((BF16, o), (o, BF16)) if (a, b) not in BF16_REDUCE_MIXED + [(BF16, "f32")]]


def bf16_mixed_reduce_cases(rng) -> list[Case]:
    """:func:`mixed_row_reduce_cases` and :func:`mixed_col_reduce_cases` for the pairs with bf16 (the g++ build
    rejects some; the harness lists them)."""
    return [(mixed_row_case if op.startswith("trow") else mixed_col_case)(rng, op, s, d)
            for op in BF16_REDUCE_FREE for s, d in BF16_MIXED_PAIRS]
