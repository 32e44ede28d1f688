from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import Case, FLOATS, F_SPECIAL, Spec, aligned_cols, conversion_pool, lanes, sentinel


def random_histogram_cases(rng) -> list[Case]:
    """TRANDOM (Philox 4x32, 7 and 10 rounds, keys and counters from the params, odd valid widths) and
    THISTOGRAM (every byte of u16/u32 sources, idx filters that match and that do not)."""
    cases = []
    for dt in ("u32", "i32"):
        for rounds in (7, 10):
            call = (f"TRandomKey key = {{(uint32_t)P[0], (uint32_t)P[1]}}; TRandomCounter ctr = {{(uint32_t)P[2], "
                    f"(uint32_t)P[3], (uint32_t)P[4], (uint32_t)P[5]}}; TRANDOM<{rounds}>(dst, key, ctr);")
            for k, valid in enumerate(((16, 32), (5, 13), (1, 4))):
                words = [int(w) for w in rng.integers(0, 1 << 32, 6, dtype=np.uint64)]
                if k == 2:
                    words[2:] = [0xFFFFFFFF] * 4  # counter carries
                cases.append(Case("trandom", call, (Spec("dst", dt, 16, 32),), {"dst": valid},
                                  {"dst": sentinel(dt, (16, 32))},
                                  tuple(int(np.uint32(w).view(np.int32)) for w in words),
                                  {"key0": words[0], "key1": words[1], "counter0": words[2], "counter1": words[3],
                                   "counter2": words[4], "counter3": words[5], "rounds": rounds}))
    for sdt, nbytes in (("u16", 2), ("u32", 4)):
        for byte in range(nbytes):
            src = rng.integers(0, 1 << 16, (8, 64)).astype(np.uint64)
            src = (src | (src << 16)).astype(get_dtype(sdt).np).view(get_dtype(sdt).lane) if sdt == "u32" else \
                src.astype(np.uint16)
            src[:, :20] &= get_dtype(sdt).lane.type(0xFF0F)  # some rows share high bytes with idx
            idx = np.zeros((8, 32), np.uint8)
            idx[:, 0] = rng.integers(0, 256, 8)
            idx[::2, 0] = (src[::2, 0] >> (8 * (nbytes - 1))).astype(np.uint8)
            idx[:, 1] = (src[:, 0] >> 8).astype(np.uint8) if nbytes == 4 else 0
            call = f"THISTOGRAM<HistByte::BYTE_{byte}>(dst, src, idx);"
            specs = (Spec("dst", "u32", 8, 256), Spec("src", sdt, 8, 64), Spec("idx", "u8", 8, 32))
            cases.append(Case("thistogram", call, specs, {"dst": (7, 256), "src": (7, 61), "idx": (7, 32)},
                              {"dst": sentinel("u32", (8, 256)), "src": src, "idx": idx}, (), {"byte": byte}))
    return cases


def quant_cases(rng) -> list[Case]:
    """TQUANT INT8_SYM (f32 -> i8) and INT8_ASYM (f32 -> u8 with a zero point): ties, range edges, NaN, +-Inf;
    the scale and zero point are one value per row."""
    cases = []
    R, C = 16, 32
    x = lanes("f32", np.concatenate([[np.nan, np.inf, -np.inf, 127.5, -128.5, 255.5, -0.5, 0.5, 1e30, -1e30,
                                      126.5, 2.5, -2.5, 0.0, -0.0, 3.5], rng.integers(-600, 600, R * C - 16) / 4.0]
                                    )).reshape(R, C)
    scale = lanes("f32", np.where(rng.random(R * 8) < 0.5, 1.0, rng.choice([0.5, 2.0, 0.1, 3.0], R * 8))).reshape(R, 8)
    zero = lanes("f32", rng.integers(-10, 140, R * 8).astype(np.float64)).reshape(R, 8)
    for qt, ddt in (("INT8_SYM", "i8"), ("INT8_ASYM", "u8")):
        specs = [Spec("dst", ddt, R, C), Spec("src", "f32", R, C), Spec("fp", "f32", R, 8)]
        data = {"dst": sentinel(ddt, (R, C)), "src": x, "fp": scale}
        valid = {"dst": (15, 29), "src": (15, 29), "fp": (R, 1)}
        call = f"TQUANT<QuantType::{qt}>(dst, src, fp);"
        if qt == "INT8_ASYM":
            specs.append(Spec("offset", "f32", R, 8))
            data["offset"], valid["offset"] = zero, (R, 1)
            call = f"TQUANT<QuantType::{qt}>(dst, src, fp, &offset);"
        cases.append(Case("tquant", call, tuple(specs), valid, data, (), {"quant_type": qt}))
    return cases


#: (src, dst) dtypes tried for TDEQUANT (the CPU loop casts through dst's type; the compiler says the rest)
DEQUANT_PAIRS = (("i8", "f32"), ("i16", "f32"), ("i32", "f32"), ("u8", "f32"), ("i16", "f16"), ("f16", "f32"),
                 ("u16", "f32"), ("u32", "f32"), ("f32", "f32"), ("i8", "f16"), ("u8", "f16"), ("u16", "f16"),
                 ("f16", "f16"), ("i32", "f16"), ("u32", "f16"), ("f32", "f16"), ("i64", "f32"), ("u64", "f32"),
                 ("i64", "f16"), ("i16", "i16"), ("i8", "i16"), ("u8", "u8"), ("i32", "u32"), ("i16", "i8"),
                 ("u16", "u32"))


def dequant_cases(rng) -> list[Case]:
    """TDEQUANT ``(src - offset) * scale`` with per-row parameters of one or several valid columns (the CPU loop
    reads column ``min(c, P - 1)``); scales and offsets with +-0, +-Inf, NaN, subnormals, range edges."""
    cases = []
    R, C = 16, 32
    for sdt, ddt in DEQUANT_PAIRS:
        src = conversion_pool(rng, sdt, R * C).reshape(R, C)
        pc = aligned_cols(ddt, 5)
        if ddt in FLOATS:
            scale = lanes(ddt, rng.choice([1.0, 0.5, -2.0, 0.1, 3e-3, 1e30], R * pc)).reshape(R, pc)
            offset = lanes(ddt, rng.integers(-130, 130, R * pc).astype(np.float64)).reshape(R, pc)
            sp = F_SPECIAL[ddt]
            scale[1, :3], scale[2, 0], scale[3, 0] = sp[6], sp[2], sp[1]
            offset[4, :2], offset[5, 0] = [sp[4], sp[3]], sp[9]
        else:  # integer dst: the whole expression in integers, wrapping on the store
            scale, offset = (conversion_pool(rng, ddt, R * pc).reshape(R, pc) for _ in range(2))
        specs = (Spec("dst", ddt, R, C), Spec("src", sdt, R, C), Spec("scale", ddt, R, pc), Spec("offset", ddt, R, pc))
        for (vr, vc), pcols in (((15, 29), 1), ((16, 32), 5), ((1, 1), 1), ((16, 7), 3), ((3, 0), 1)):
            cases.append(Case("tdequant", "TDEQUANT(dst, src, scale, offset);", specs,
                              {"dst": (vr, vc), "src": (vr, vc), "scale": (vr, pcols), "offset": (vr, pcols)},
                              {"dst": sentinel(ddt, (R, C)), "src": src, "scale": scale, "offset": offset}))
    return cases
