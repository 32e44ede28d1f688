"""Test data and the target facts the tests expect (taken from pto-isa's buffer_limits.hpp and per-op pages, not from the profiles)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tilesim.pto import Tile

from . import oracle as o

#: What the spec says about each target (§4, §6, §8, §9); test_targets checks the profiles agree.
FACTS = {
    "cpu": dict(nan="first", ftz=False, colarg_float_view=False, f16_index=False, a2a3_scan=False),
    "a2a3": dict(nan="propagate", ftz=True, colarg_float_view=True, f16_index=True, a2a3_scan=True),
    "a5": dict(nan="first", ftz=True, colarg_float_view=False, f16_index=False, a2a3_scan=False),
}
TARGETS = tuple(FACTS)

_NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8, "i16": np.int16,
       "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
       "f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2, "f8e8m0": ml_dtypes.float8_e8m0fnu}
_LANE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def size(dt: str) -> int:
    return np.dtype(_NP[dt]).itemsize


def lane(dt: str):
    return _LANE[size(dt)]


def per_block(dt: str) -> int:
    return 32 // size(dt)


def rand_bits(rng: np.random.Generator, dt: str, shape, special: float = 0.08, ties: float = 0.3,
              lo: float = -100, hi: float = 100) -> np.ndarray:
    """Lane codes: random values, many small integers (ties), and special values (±0, ±Inf, NaN, subnormals)."""
    n = int(np.prod(shape))
    if dt.startswith("f8") or dt == "hif8":  # every code is interesting at 8 bits
        return rng.integers(0, 256, size=n, dtype=np.uint8).reshape(shape)
    if dt in o.INTS:
        bits, signed = o.INTS[dt]
        lo_i, hi_i = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        full = rng.integers(lo_i, hi_i, size=n, endpoint=True, dtype=np.int64 if dt != "u64" else np.uint64)
        small = rng.integers(max(lo_i, -6), min(hi_i, 6), size=n, endpoint=True).astype(full.dtype)
        ext = rng.choice(np.array([lo_i, hi_i, 0, 1], dtype=object), size=n).astype(full.dtype)
        pick = rng.random(n)
        v = np.where(pick < ties, small, np.where(pick < ties + special, ext, full))
        return v.astype(_NP[dt]).view(lane(dt)).reshape(shape)
    x = rng.uniform(lo, hi, n)
    small = rng.integers(-6, 7, n).astype(np.float64)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -130, -(2.0 ** -20), 2.0 ** -140,
                         1e30, -1e30])
    sp = rng.choice(specials, n)
    pick = rng.random(n)
    v = np.where(pick < ties, small, np.where(pick < ties + special, sp, x))
    with np.errstate(over="ignore"):
        return v.astype(np.float32).astype(_NP[dt]).view(lane(dt)).reshape(shape)


def make_tile(bits: np.ndarray, dt: str, rows: int | None = None, cols: int | None = None, *, loc="vec",
              blayout="row_major", slayout="none_box", garbage: bool = True, rng=None) -> Tile:
    """A tile whose valid region holds ``bits``; everything outside it is garbage (so reads there show)."""
    vr, vc = bits.shape
    pb = per_block(dt)
    if rows is None:
        rows = -(-vr // pb) * pb if blayout == "col_major" else vr
    if cols is None:
        cols = -(-vc // pb) * pb if blayout == "row_major" else vc
    t = Tile(loc, dt, rows, cols, valid=(vr, vc), blayout=blayout, slayout=slayout)
    if garbage:
        r = rng or np.random.default_rng(99)
        t.bits[...] = r.integers(0, np.iinfo(lane(dt)).max, size=t.bits.shape, dtype=lane(dt), endpoint=True)
    t.bits[:vr, :vc] = bits
    return t


def row_dst(dt: str, vr: int, dn: bool) -> Tile:
    """A row-reduce destination: DN with one column, or ND with one valid column."""
    if dn:
        pb = per_block(dt)
        return Tile("vec", dt, -(-vr // pb) * pb, 1, valid=(vr, 1), blayout="col_major")
    return Tile("vec", dt, max(vr, 1), per_block(dt), valid=(vr, 1))


def col_dst(dt: str, vc: int, rows: int = 1) -> Tile:
    pb = per_block(dt)
    return Tile("vec", dt, rows, max(-(-vc // pb) * pb, pb), valid=(1, vc))


def sentinel(t: Tile) -> np.ndarray:
    """Fill a destination with a recognisable pattern; return a copy to compare the untouched part against."""
    t.bits[...] = np.arange(t.bits.size, dtype=np.uint64).reshape(t.bits.shape).astype(t.bits.dtype) | 1
    return t.bits.copy()


def lines(bits: np.ndarray, axis: int) -> list[list[int]]:
    a = bits if axis == 1 else bits.T
    return [[int(v) for v in row] for row in a]


def seed(*parts) -> int:
    """A stable seed from test parameters (Python's str hash changes between runs).

    Set TILESIM_SEED_SALT to draw other data (a cheap "thorough" run: loop over salts).
    """
    import os
    import zlib
    return zlib.crc32(repr((os.environ.get("TILESIM_SEED_SALT", ""), *parts)).encode())


def nan_blind(rows, dt: str, target: str):
    """Lane rows with every NaN made canonical on ``cpu``, whose NaN payloads follow x86-64 (decision PTO91;
    checked against the CPU simulator's golden vectors in test_ptoisa_golden.py); unchanged elsewhere."""
    from . import oracle as o
    if target != "cpu" or dt not in o.FLOATS:
        return [list(r) for r in rows]
    return [[o.canon_nan(dt) if o.is_nan_bits(int(v), dt) else int(v) for v in r] for r in rows]
