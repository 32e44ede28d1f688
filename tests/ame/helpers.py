"""Random machine states and the fast-vs-oracle comparison shared by the AME tests."""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache

import numpy as np

from tilesim import formats
from tilesim.ame import Core, MXCFG, MXSTATUS, MXTILE, models
from tilesim.errors import TilesimError

from . import oracle

_EDGE_VALUES = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -3.0, np.inf, -np.inf, np.nan, 1e-300, -1e300)
_SMALL_VALUES = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 0.25, 3.0)


def _codes_of(values, f) -> np.ndarray:
    # Parts input: the exact encoder, without building a fast-path table for a handful of values
    return np.unique(formats.encode(formats.to_parts(np.array(values, np.float64)), f, saturate=f.is_integer))


@lru_cache(maxsize=None)
def interesting_codes(f) -> np.ndarray:
    """Codes of edge values of ``f``: zeros, ones, max, min, smallest step, specials."""
    vals = list(_EDGE_VALUES) + [f.max, -f.max, f.min, f.min_subnormal, -f.min_subnormal, f.min_normal]
    return _codes_of([v for v in vals if np.isfinite(v)] if f.is_integer else vals, f)


@lru_cache(maxsize=None)
def small_codes(f) -> np.ndarray:
    """Codes of a few small values, so that sums cancel and tie often."""
    return _codes_of(_SMALL_VALUES, f)


def random_lanes(rng, f, n: int) -> np.ndarray:
    """n lanes of ``f``: a third uniform over all codes, a third edge values, a third small values.

    Uniform codes get random bits in the lane's padding (which readers ignore);
    signed integers narrower than their lane are sign-extended instead.
    """
    pick = rng.integers(0, 3, n)
    raw = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    lane_mask = np.uint64((1 << f.lane_bits) - 1)
    if not oracle.is_float(f) and f.signed:  # sign-extend the code field through the lane
        field = raw & np.uint64((1 << f.bits) - 1) if f.bits < 64 else raw
        neg = (field >> np.uint64(f.bits - 1)) == 1
        uniform = np.where(neg, field | (lane_mask ^ np.uint64((1 << f.bits) - 1)), field) & lane_mask
    else:
        uniform = raw & lane_mask
    edge, small = interesting_codes(f), small_codes(f)
    return np.where(pick == 0, uniform, np.where(pick == 1, rng.choice(edge, n), rng.choice(small, n)))


def _bytes(lanes: np.ndarray, f) -> np.ndarray:
    """A 256-byte tile from (16, e) lanes, little-endian (4-bit: low nibble first)."""
    if f.lane_bits == 4:
        return (lanes[:, 0::2] | (lanes[:, 1::2] << np.uint64(4))).astype(np.uint8).reshape(-1)
    dt = np.dtype(f"<u{f.lane_bits // 8}")
    return lanes.astype(dt).view(np.uint8).reshape(-1)


def random_tiles(rng, ft, acc) -> list[list[int]]:
    """A register file of random elements: tiles alternate between ``ft`` and ``acc`` layouts."""
    tiles = []
    for t in range(32):
        f = ft if t % 2 == 0 else acc
        e = oracle.per_row(f)
        tiles.append(_bytes(random_lanes(rng, f, 16 * e).reshape(16, e), f).tolist())
    return tiles


@contextmanager
def float64_shortcut(on: bool):
    """Switch :data:`tilesim.ame.models.FLOAT64_SHORTCUT` for a block (the limbs run when it is off)."""
    old, models.FLOAT64_SHORTCUT = models.FLOAT64_SHORTCUT, on
    try:
        yield
    finally:
        models.FLOAT64_SHORTCUT = old


def compare(tiles, cfg: int, geo: int, status: int, tc: int, ta: int, tb: int, imm: int, transposed: bool,
            model: str) -> str:
    """Run the fast core and the oracle from the same state; assert identical bits (or the same trap)."""
    core = Core(accumulation=model)
    core.tiles[:] = np.array(tiles, np.uint8)
    core.csrw(MXCFG, cfg)
    core.csrw(MXTILE, geo)
    core.csrw(MXSTATUS, status)
    before = core.snapshot()
    try:
        want_tiles, want_status = oracle.mmacc(tiles, cfg, geo, status, tc, ta, tb, imm, transposed, model)
        want_rule = None
    except oracle.Trap as t:
        want_rule = t.rule
    try:
        (core.mmacc_t if transposed else core.mmacc)(tc, ta, tb, imm)
        got_rule = None
    except TilesimError as e:
        got_rule = e.rule
    where = f"cfg={cfg:#x} geo={geo:#x} tc={tc} ta={ta} tb={tb} imm={imm} T={transposed} model={model}"
    assert got_rule == want_rule, f"{where}: trap {got_rule} != oracle {want_rule}"
    if want_rule is not None:
        after = core.snapshot()
        assert np.array_equal(after[0], before[0]) and after[1] == before[1], f"{where}: state changed by a trap"
        return want_rule
    want = np.array(want_tiles, np.uint8)
    diff = np.argwhere(core.tiles != want)
    assert diff.size == 0, (f"{where}: {len(diff)} bytes differ, first tile {diff[0][0]} byte {diff[0][1]}: "
                            f"got {core.tiles[tuple(diff[0])]:#04x} want {want[tuple(diff[0])]:#04x}")
    assert core.csrr(MXSTATUS) == want_status, f"{where}: status {core.csrr(MXSTATUS):#x} != {want_status:#x}"
    return "ok"
