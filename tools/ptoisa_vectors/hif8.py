from __future__ import annotations

import numpy as np

from .common import ROUND_MODES, SAT, Case, Spec, conversion_pool, scratch, sentinel

#: dtypes TCVT is tried with to and from hifloat8_t (the simulator converts each through double)
HIF8_PEERS = ("f32", "f16", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64")


def _sim_table() -> np.ndarray:
    """The simulator's finite values of hifloat8_t, sorted (its encoder searches them)."""
    from tilesim.pto.ops.convert_hif8 import SIM_VALUES
    v = SIM_VALUES[np.isfinite(SIM_VALUES)]
    return np.unique(v)


def _f32_probes() -> np.ndarray:
    """f32 values for hifloat8_t's encoder: every finite value of its table, each midpoint (a tie) and the
    floats beside it, the range's ends and beyond, ±0, NaN, ±Inf."""
    v = _sim_table()
    mids = (v[:-1] + v[1:]) / 2
    near = np.concatenate([np.nextafter(mids.astype(np.float32), np.float32(s)) for s in (-np.inf, np.inf)])
    extra = [0.0, -0.0, np.nan, np.inf, -np.inf, 32768.0, 40960.0, 49152.0, 65504.0, 1e30, -1e30, 2.0 ** -23,
             2.0 ** -24, 1e-30, -1e-30, 0.5, 0.75, 0.9375, -0.6]
    return np.concatenate([v, mids, near, extra]).astype(np.float32)


def hif8_cases(rng) -> list[Case]:
    """HiFloat8 (PTO182, PTO183): TCVT of every code to each peer and to itself, of every f16 code and of the
    encoder's ties and edges (f32) and of each peer's pool to hifloat8_t, saturation off and on, two round
    modes (ignored); TTRANS, TLOAD, TSTORE and TMOV of its codes."""
    cases = []
    R, C = 8, 32
    every = np.arange(256, dtype=np.uint8).reshape(R, C)

    def cvt(s, d, src, mode="RINT", sat="OFF", shape=(R, C)):
        cases.append(Case("tcvt", "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);",
                          (Spec("dst", d, *shape), Spec("src", s, *shape)), {"dst": shape, "src": shape},
                          {"dst": sentinel(d, shape), "src": src}, (ROUND_MODES.index(mode), SAT[sat]),
                          {"rmode": mode, "sat": sat == "ON"}))

    for d in HIF8_PEERS + ("hif8",):
        cvt("hif8", d, every)
    cvt("hif8", "f32", every, "TRUNC", "ON")
    probes = _f32_probes()
    n = -(-probes.size // C) * C
    f32 = np.resize(probes, n).view(np.uint32).reshape(-1, C)
    for mode in ("RINT", "FLOOR"):
        cvt("f32", "hif8", f32, mode, shape=f32.shape)
    cvt("f32", "hif8", f32, "RINT", "ON", shape=f32.shape)
    f16 = np.arange(1 << 16, dtype=np.uint16).reshape(-1, 256)
    for half in (f16[:128], f16[128:]):
        cvt("f16", "hif8", half, shape=half.shape)
    for s in HIF8_PEERS[2:]:
        cvt(s, "hif8", conversion_pool(rng, s, R * C).reshape(R, C))
    for bl, (vr, vc) in (("row_major", (13, 29)), ("col_major", (29, 13))):
        cases.append(Case("ttrans", "TTRANS(dst, src, tmp);",
                          (Spec("dst", "hif8", 32, 32, bl), Spec("src", "hif8", 32, 32), Spec("tmp", "hif8", 32, 32)),
                          {"dst": (vc, vr), "src": (vr, vc), "tmp": (vr, vc)},
                          {"dst": sentinel("hif8", (32, 32)), "src": np.resize(every, (32, 32)),
                           "tmp": scratch("hif8", 32, 32)}))
    GR, GC, (wr, wc), (r0, c0) = 40, 72, (29, 61), (3, 5)
    g = rng.integers(0, 256, (GR, GC)).astype(np.uint8)
    glob = ("GlobalTensor<hifloat8_t, Shape<1, 1, 1, {wr}, {wc}>, Stride<1, 1, 1, {GC}, 1>> "
            "g({gm}.data() + {off});")
    for tile in (Spec("dst", "hif8", 32, 64), Spec("dst", "hif8", 32, 64, "col_major", "row_major", loc="mat")):
        cases.append(Case("tload", glob.format(wr=wr, wc=wc, GC=GC, gm="gm", off=r0 * GC + c0) + " TLOAD(dst, g);",
                          (tile, Spec("gm", "hif8", GR, GC, loc="gm")), {"dst": (wr, wc), "gm": (wr, wc)},
                          {"dst": sentinel("hif8", (32, 64)), "gm": g}, (), {"offset": [r0, c0]}))
    cases.append(Case("tstore", glob.format(wr=wr, wc=wc, GC=GC, gm="dst_gm", off=r0 * GC + c0) + " TSTORE(g, src);",
                      (Spec("dst_gm", "hif8", GR, GC, loc="gm"), Spec("src", "hif8", 32, 64)),
                      {"dst_gm": (wr, wc), "src": (wr, wc)}, {"dst_gm": g, "src": np.resize(every, (32, 64))}, (),
                      {"offset": [r0, c0]}))
    nz, zn = ("col_major", "row_major"), ("row_major", "col_major")
    for dst, src in ((Spec("dst", "hif8", 32, 64), Spec("src", "hif8", 32, 64)),
                     (Spec("dst", "hif8", 32, 64, *nz, loc="left"), Spec("src", "hif8", 32, 64, *nz, loc="mat")),
                     (Spec("dst", "hif8", 64, 32, *zn, loc="right"), Spec("src", "hif8", 64, 32, *zn, loc="mat"))):
        cases.append(Case("tmov", "TMOV(dst, src);", (dst, src), {"dst": (29, 27), "src": (29, 27)},
                          {"dst": sentinel("hif8", (dst.rows, dst.cols)),
                           "src": np.resize(every, (src.rows, src.cols))}))
    return cases


def hif8_bf16_cases(rng) -> list[Case]:
    """TCVT between hifloat8_t and bf16 (the g++ 14 build, PTO88): every code to bf16, and bf16 lanes (the
    encoder's ties and edges, random codes) to hifloat8_t, saturation off and on."""
    cases = []
    every = np.arange(256, dtype=np.uint8).reshape(8, 32)
    probes = (_f32_probes().view(np.uint32) >> np.uint32(16)).astype(np.uint16)   # bf16: f32's top half
    pool = np.concatenate([probes, rng.integers(0, 1 << 16, 256).astype(np.uint16)])
    bf = np.resize(pool, -(-pool.size // 32) * 32).reshape(-1, 32)
    for s, d, src in (("hif8", "bf16", every), ("bf16", "hif8", bf)):
        for sat in ("OFF", "ON"):
            shape = src.shape
            cases.append(Case("tcvt", "TCVT(dst, src, (RoundMode)P[0], (SaturationMode)P[1]);",
                              (Spec("dst", d, *shape), Spec("src", s, *shape)), {"dst": shape, "src": shape},
                              {"dst": sentinel(d, shape), "src": src}, (ROUND_MODES.index("RINT"), SAT[sat]),
                              {"rmode": "RINT", "sat": sat == "ON"}))
    return cases
