from __future__ import annotations

import numpy as np
from tilesim.pto import get_dtype

from .common import Case, FLOATS, F_SPECIAL, Spec, aligned_cols, lanes, rand_lanes, scratch, sentinel


SORT_DTS = ("f32", "f16", "i32", "i16")


def sort_cases(rng) -> list[Case]:
    """TSORT32: 32-element blocks by score, descending, ties by index; ties, +-0, +-Inf, a partial last block.
    No NaN scores: the simulator's comparator is then no strict weak order (std::stable_sort is undefined)."""
    cases = []
    R, C = 4, 64
    for dt in SORT_DTS:
        per = 8 // get_dtype(dt).size
        dcols = aligned_cols(dt, 2 * 32 + 32 * per)
        for k in range(3):
            if k == 0:
                src = lanes(dt, rng.integers(-3, 4, R * C))
            elif dt in FLOATS:
                vals = rng.choice([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 2.5], R * C)
                src = lanes(dt, np.where(rng.random(R * C) < 0.5, vals, rng.standard_normal(R * C) * 100))
            else:
                src = rand_lanes(rng, dt, R * C)
            idx = rng.permutation(1 << 16)[: R * C].astype(np.uint32)
            specs = (Spec("dst", dt, R, dcols), Spec("src", dt, R, C), Spec("idx", "u32", R, C))
            vr, vc = ((3, 61), (4, 64), (2, 32))[k]
            cases.append(Case("tsort32", "TSORT32(dst, src, idx);", specs,
                              {"dst": (R, dcols), "src": (vr, vc), "idx": (vr, vc)},
                              {"dst": sentinel(dt, (R, dcols)), "src": src.reshape(R, C), "idx": idx.reshape(R, C)}))
    return cases


def _records(rng, dt: str, n: int, kind: int) -> np.ndarray:
    """n 8-byte (value, index) records as lanes, values descending: small integers with ties (kind 0), with
    +-Inf, +-0 and a NaN (kind 1), or random values (kind 2); the index lanes are random."""
    k = 8 // get_dtype(dt).size
    if dt not in FLOATS:  # integer records: ties, range ends, random values, descending
        d = get_dtype(dt)
        pool = lanes(dt, [d.format.int_max, d.format.int_min, 0, 1, -1 if d.format.int_min else 2, 5, 5])
        vals = np.concatenate([pool, rand_lanes(rng, dt, n)])[:n] if kind else rand_lanes(rng, dt, n)
        order = np.argsort(vals.view(d.np), kind="stable")[::-1]
        rec = rand_lanes(rng, dt, (n, k))
        rec[:, 0] = vals[order]
        return rec.reshape(-1)
    if kind == 0:
        v = np.sort(rng.integers(-3, 4, n).astype(np.float64))[::-1]
    elif kind == 1:
        v = np.sort(rng.choice([np.inf, 2.5, 1.0, 0.0, -1.0, -np.inf], n))[::-1]
    else:
        v = np.sort(rng.standard_normal(n) * 100)[::-1]
    vals = lanes(dt, v)
    if kind == 1 and n > 2:
        zeros = np.flatnonzero(v == 0)
        vals[zeros[::2]] = F_SPECIAL[dt][1]              # -0 and +0 tie
        vals[n // 2] = F_SPECIAL[dt][6]                  # a NaN inside the list
    rec = rand_lanes(rng, dt, (n, k))
    rec[:, 0] = vals
    return rec.reshape(-1)


def mrgsort_cases(rng) -> list[Case]:
    """TMRGSORT: 2, 3 and 4 lists (f32, f16) with ties across lists, NaN heads, empty and truncated lists, a
    dst shorter than the input, with and without ``exhausted`` (the counts go to ``dst_ex``); the block form
    over one and two groups of four blocks."""
    cases = []
    for dt in FLOATS:
        k = 8 // get_dtype(dt).size
        C = 16 * k
        plans = [((5, 16), 0), ((16, 16), 1), ((0, 7), 2), ((3, 9, 4), 0), ((16, 1, 2), 1), ((6, 6, 6, 6), 0),
                 ((2, 16, 0, 11), 1), ((9, 4, 13, 1), 2)]
        for lens, kind in plans:
            n = len(lens)
            srcs = [_records(rng, dt, C // k, kind).reshape(1, C) for _ in range(n)]
            if kind == 0 and n > 2:
                srcs[2][0, 0] = F_SPECIAL[dt][6]         # a NaN head in a later list never wins
            if kind == 1:
                srcs[0][0, 0] = F_SPECIAL[dt][4]         # a NaN head in list 0 wins at once
            total = sum(lens) * k
            for exh in (0, 1):
                room = total if exh else max(total - 3 * k, 0)
                specs = (Spec("dst", dt, 1, 4 * C), Spec("dst_ex", "u16", 1, 16), Spec("tmp", dt, 1, 4 * C),
                         *[Spec(f"src{i}", dt, 1, C) for i in range(n)])
                roles = ", ".join(f"src{i}" for i in range(n))
                types = ", ".join(f"T_src{i}" for i in range(n))
                call = (f"MrgSortExecutedNumList ex{{}}; TMRGSORT<T_dst, T_tmp, {types}, {str(bool(exh)).lower()}>"
                        f"(dst, ex, tmp, {roles}); uint16_t e4[4] = {{ex.mrgSortList0, ex.mrgSortList1, "
                        "ex.mrgSortList2, ex.mrgSortList3}; std::memcpy(dst_ex.data(), e4, sizeof e4);")
                valid = {"dst": (1, room + (exh and k > 1)), "dst_ex": (1, 16), "tmp": (1, 4 * C),
                         **{f"src{i}": (1, ln * k + (i == 1 and k > 1 and ln < 16)) for i, ln in enumerate(lens)}}
                data = {"dst": sentinel(dt, (1, 4 * C)), "dst_ex": sentinel("u16", (1, 16)),
                        "tmp": scratch(dt, 1, 4 * C), **{f"src{i}": s for i, s in enumerate(srcs)}}
                cases.append(Case("tmrgsort", call, specs, valid, data, (), {"exhausted": bool(exh)}))
        for groups, kind in ((1, 0), (2, 1), (1, 2)):
            W = 256 * groups
            blocks = [_records(rng, dt, 64 // k, (kind + b) % 3) for b in range(4 * groups)]
            src = np.concatenate(blocks).reshape(1, W)
            specs = (Spec("dst", dt, 1, W + 64), Spec("src", dt, 1, W))
            cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", specs,
                              {"dst": (1, W), "src": (1, W)}, {"dst": sentinel(dt, (1, W + 64)), "src": src},
                              (64,), {"block_len": 64}))
        # what only the simulator takes: other block lengths, dst's valid width deciding the groups, src's
        # valid width ignored, a block_len of no whole records (nothing written)
        for blen, dv, sv in ((32, 256, 256), (16, 200, 64), (48, 192, 192), (2 * k + 2, 256, 100), (k + 1, 256, 256)):
            n = max(blen // k, 1)
            src = np.concatenate([_records(rng, dt, n, b % 3) for b in range(-(-256 // (n * k)))])[:256]
            specs = (Spec("dst", dt, 1, 256), Spec("src", dt, 1, 256))
            cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", specs,
                              {"dst": (1, dv), "src": (1, sv)}, {"dst": sentinel(dt, (1, 256)),
                                                               "src": src.reshape(1, 256)}, (blen,),
                              {"block_len": blen}))
    for dt in ("i32", "u16", "i8", "i64", "u32"):  # integer records: only the simulator takes them (PTO71)
        k = 8 // get_dtype(dt).size
        C = aligned_cols(dt, 16 * k)
        for lens, kind in (((5, 16), 1), ((3, 9, 4), 0), ((6, 6, 6, 6), 1)):
            n = len(lens)
            srcs = [_records(rng, dt, C // k, kind).reshape(1, C) for _ in range(n)]
            total = sum(lens) * k
            specs = (Spec("dst", dt, 1, 4 * C), Spec("dst_ex", "u16", 1, 16), Spec("tmp", dt, 1, 4 * C),
                     *[Spec(f"src{i}", dt, 1, C) for i in range(n)])
            call = (f"MrgSortExecutedNumList ex{{}}; TMRGSORT<T_dst, T_tmp, {', '.join(f'T_src{i}' for i in range(n))}, "
                    f"false>(dst, ex, tmp, {', '.join(f'src{i}' for i in range(n))}); uint16_t e4[4] = "
                    "{ex.mrgSortList0, ex.mrgSortList1, ex.mrgSortList2, ex.mrgSortList3}; "
                    "std::memcpy(dst_ex.data(), e4, sizeof e4);")
            cases.append(Case("tmrgsort", call, specs,
                              {"dst": (1, total), "dst_ex": (1, 16), "tmp": (1, 4 * C),
                               **{f"src{i}": (1, ln * k) for i, ln in enumerate(lens)}},
                              {"dst": sentinel(dt, (1, 4 * C)), "dst_ex": sentinel("u16", (1, 16)),
                               "tmp": scratch(dt, 1, 4 * C), **{f"src{i}": x for i, x in enumerate(srcs)}},
                              (), {"exhausted": False}))
        W = aligned_cols(dt, 4 * 64)
        src = np.concatenate([_records(rng, dt, 64 // k, b % 2) for b in range(4)]).reshape(1, 256)
        cases.append(Case("tmrgsort", "TMRGSORT(dst, src, (uint32_t)P[0]);", (Spec("dst", dt, 1, W), Spec("src", dt, 1, W)),
                          {"dst": (1, 256), "src": (1, 256)},
                          {"dst": sentinel(dt, (1, W)), "src": np.pad(src, ((0, 0), (0, W - 256)))}, (64,),
                          {"block_len": 64}))
    for dt in FLOATS:                                # a tmp narrower than the sources: never read (PTO164)
        k = 8 // get_dtype(dt).size
        srcs = [_records(rng, dt, 16, kind).reshape(1, 16 * k) for kind in (0, 1)]
        specs = (Spec("dst", dt, 1, 32 * k), Spec("dst_ex", "u16", 1, 16), Spec("tmp", dt, 1, 8 * k),
                 Spec("src0", dt, 1, 16 * k), Spec("src1", dt, 1, 16 * k))
        call = ("MrgSortExecutedNumList ex{}; TMRGSORT<T_dst, T_tmp, T_src0, T_src1, false>(dst, ex, tmp, src0, "
                "src1); uint16_t e4[4] = {ex.mrgSortList0, ex.mrgSortList1, ex.mrgSortList2, ex.mrgSortList3}; "
                "std::memcpy(dst_ex.data(), e4, sizeof e4);")
        cases.append(Case("tmrgsort", call, specs,
                          {"dst": (1, 32 * k), "dst_ex": (1, 16), "tmp": (1, 8 * k), "src0": (1, 16 * k),
                           "src1": (1, 16 * k)},
                          {"dst": sentinel(dt, (1, 32 * k)), "dst_ex": sentinel("u16", (1, 16)),
                           "tmp": scratch(dt, 1, 8 * k), "src0": srcs[0], "src1": srcs[1]}, (), {"exhausted": False}))
    return cases
