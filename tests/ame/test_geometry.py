"""Tiling modes, the C-tile mapping, the guarded 4x4, and every badgeom path (state untouched)."""

import numpy as np
import pytest

from tilesim import formats
from tilesim.ame import BadGeom, Core, mxcfg, mxtile
from tilesim.errors import EncodingError, GeometryError

# (Ft, bOVF, result format, tiles per 16x16 result) from the accumulator table and 256-byte tiles
WIDTHS = [("int4", 1, "int4", 1), ("int8", 1, "int8", 1), ("int8", 0, "int16", 2), ("fp16", 0, "fp32", 4),
          ("fp64", 0, "fp64", 8)]
MODES = {"1x1": (1, 1), "2x2": (2, 2), "1x4": (1, 4), "4x1": (4, 1)}


def labelled_core(ft, bovf, tiling, k, guard=False):
    """A core whose A tile i holds i+1 everywhere and B tile j holds row c = 10(j+1) + c, K = k.

    With C = A x B^T, result (i, j) at row r, column c is k (i+1)(10(j+1) + c): every
    element says which sub-product and column it is.
    """
    core = Core()
    core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf))
    core.csrw("mxtile", mxtile(k=k, m=16, tiling=tiling, guard4x4=guard))
    for i in range(4):
        core.write_tile(i, np.full((16, k), i + 1), ft)
        core.write_tile(4 + i, (10 * (i + 1) + np.arange(16))[:, None].repeat(k, 1) % 8, ft)
    return core


def expected(i, j, k, bits=64):
    """The labelled result, wrapped to a ``bits``-wide integer result (INT4, INT8 with bOVF=1)."""
    c = np.arange(16)
    v = np.tile(k * (i + 1) * ((10 * (j + 1) + c) % 8), (16, 1))
    return v if bits >= 16 else (v + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)


@pytest.mark.parametrize("ft,bovf,res,per", WIDTHS)
@pytest.mark.parametrize("tiling", list(MODES))
def test_c_tile_mapping(ft, bovf, res, per, tiling):
    n_a, n_b = MODES[tiling]
    tc = 8 if n_a * n_b * per <= 24 else 0  # 64-bit 2x2 takes all 32 tiles, over the inputs
    core = labelled_core(ft, bovf, tiling, k=1)
    ex = core.mmacc_t(tc, 0, 4, 1)
    assert ex.plan.tiles_per_result == per
    e = 16 // per  # elements per tile row of the result format, for 16 columns
    for i in range(n_a):
        for j in range(n_b):
            first = tc + (i * n_b + j) * per  # A0xB0, A0xB1, ..., A1xB0, ... from tC
            for t in range(per):  # tile first + t holds columns [t e, (t + 1) e) of all 16 rows
                got = core.read_tile(first + t, res, (16, e))
                want = expected(i, j, 1, bits=formats.get(res).bits if res.startswith("int") else 64)
                assert np.array_equal(got, want[:, t * e:(t + 1) * e]), (i, j, t)
    written = set(range(tc, tc + n_a * n_b * per))
    assert {t for t in range(8, 32) if t not in written and core.tiles[t].any()} == set()


def test_seed_2x2_fp32_mapping():
    # the seed's 2x2 picture: A0xB0 -> C0..C3, A0xB1 -> C4..C7, A1xB0 -> C8..C11, A1xB1 -> C12..C15
    core = labelled_core("fp16", 0, "2x2", k=1)
    ex = core.mmacc_t(16, 0, 4, 1)
    assert [c - 16 for _, _, c in ex.plan.pairs] == [0, 4, 8, 12] and ex.plan.c_tiles == tuple(range(16, 32))


def test_guard_passes_for_16_bit_results():
    # INT8 -> INT16: 16 results x 2 tiles = 32 tiles: 4x4 runs, over the inputs (read before written)
    core = labelled_core("int8", 0, "2x2", k=1, guard=True)
    ex = core.mmacc_t(0, 0, 4, 1)
    assert ex.plan.tiling.name == "4x4" and not ex.plan.fallback and not core.status["guard_fallback"]
    for i in range(4):
        for j in range(4):
            first = 2 * (4 * i + j)
            got = np.hstack([core.read_tile(first, "int16"), core.read_tile(first + 1, "int16")])
            assert np.array_equal(got, expected(i, j, 1))


def test_guard_ignores_tiling_field_and_int8_fits_in_16_tiles():
    core = labelled_core("int8", 1, "1x1", k=1, guard=True)
    ex = core.mmacc_t(8, 0, 4, 1)
    assert ex.plan.tiling.name == "4x4" and ex.plan.c_tiles == tuple(range(8, 24))


def test_guard_falls_back_and_is_sticky():
    core = labelled_core("fp16", 0, "1x4", k=1, guard=True)  # FP32 results are wider than 16 bits
    ex = core.mmacc_t(16, 0, 4, 1)
    assert ex.plan.tiling.name == "2x2" and ex.plan.fallback and core.status["guard_fallback"]
    for i in range(2):
        for j in range(2):
            got = np.hstack([core.read_tile(16 + 4 * (2 * i + j) + t, "fp32") for t in range(4)])
            assert np.array_equal(got, expected(i, j, 1))
    core.csrw("mxtile", mxtile(k=1, m=16, tiling="1x1"))
    core.mmacc_t(16, 0, 4, 1)
    assert core.status["guard_fallback"]  # sticky until written
    core.csrw("mxstatus", 0)
    assert not core.status["guard_fallback"]


def test_partial_tiles_touch_only_their_elements():
    rng = np.random.default_rng(7)
    core = Core()
    core.tiles[:] = rng.integers(0, 256, core.tiles.shape, dtype=np.uint8)
    before = core.tiles.copy()
    core.csrw("mxcfg", mxcfg(ft="fp8_e4m3"))
    core.csrw("mxtile", mxtile(k=3, m=5, tiling="2x2"))
    core.write_tile(0, np.ones((5, 3)), "fp8_e4m3")
    core.write_tile(1, np.ones((5, 3)), "fp8_e4m3")
    core.write_tile(2, np.ones((5, 3)), "fp8_e4m3")
    core.write_tile(3, np.ones((5, 3)), "fp8_e4m3")
    before[:4] = core.tiles[:4]
    core.mmacc_t(10, 0, 2, 1)  # 4 results of 5x5 FP16: 1 tile each, tr10..tr13, bytes [16r, 16r + 10) of rows 0..4
    changed = np.argwhere(core.tiles != before)
    for t, byte in changed:
        assert 10 <= t <= 13 and byte // 16 < 5 and byte % 16 < 10
    assert np.all(core.read_tile(10, "fp16", (5, 5)) == 3.0)


# ------------------------------------------------------------ badgeom: one test per rule
def _core(ft="int8", bovf=0, rnd="rne", k=16, m=16, tiling="2x2", guard=False, raw_cfg=None):
    core = Core()
    core.tiles[:] = np.random.default_rng(1).integers(0, 256, core.tiles.shape, dtype=np.uint8)
    core.csrw("mxcfg", raw_cfg if raw_cfg is not None else mxcfg(ft=ft, bovf=bovf, rnd=rnd))
    core.csrw("mxtile", mxtile(k=k, m=m, tiling=tiling, guard4x4=guard))
    core.csrw("mxstatus", 0b0101)
    return core


def trap(core, rule, *operands, transposed=True, err=BadGeom):
    before = core.snapshot()
    with pytest.raises(err) as info:
        (core.mmacc_t if transposed else core.mmacc)(*operands)
    after = core.snapshot()
    assert np.array_equal(before[0], after[0]) and before[1] == after[1], "a trap changed the state"
    assert info.value.rule == rule
    if err is BadGeom:
        assert info.value.status_bit == 0b10 and isinstance(info.value, GeometryError)
    return info.value


@pytest.mark.parametrize("k", [0, 17])
def test_badgeom_k(k):
    e = trap(_core(k=k), "ame.geom.k", 8, 0, 2, 0)
    assert e.value == k and e.operand == "K"


def test_badgeom_k_depends_on_ft():
    trap(_core(ft="fp16", k=9), "ame.geom.k", 8, 0, 2, 0)  # 16-bit rows hold 8
    trap(_core(ft="fp64", k=3), "ame.geom.k", 8, 0, 2, 0)  # 64-bit rows hold 2
    _core(ft="int4", k=32).mmacc_t(8, 0, 2, 0)  # 4-bit rows hold 32


@pytest.mark.parametrize("m", [0, 17])
def test_badgeom_m(m):
    assert trap(_core(m=m), "ame.geom.m", 8, 0, 2, 0).value == m


@pytest.mark.parametrize("operands", [(31, 0, 2), (8, 31, 2), (8, 0, 31), (40, 0, 2), (-1, 0, 2)])
def test_badgeom_tile_past_31(operands):
    trap(_core(), "ame.geom.tile", *operands, 0)  # 2x2 touches index and index + 1 (C: 8 tiles)


def test_badgeom_tile_in_4x4_and_in_fallback():
    trap(_core(bovf=1, guard=True), "ame.geom.tile", 20, 0, 4, 0)  # 4x4 INT8 results need tr20..tr35
    core = _core(ft="fp16", k=8, guard=True)  # falls back to 2x2: 16 FP32 tiles from tr20 do not fit
    trap(core, "ame.geom.tile", 20, 0, 4, 0)
    assert core.csrr("mxstatus") == 0b0101  # a trap sets nothing (the flags set before stay)


@pytest.mark.parametrize("btr", [0b00, 0b10, 0b11])
def test_badgeom_btr_needs_square_tiles(btr):
    trap(_core(k=8, m=16), "ame.geom.btr", 8, 0, 2, btr << 1, transposed=False)
    _core(k=16, m=16).mmacc(8, 0, 2, btr << 1)  # square: fine


@pytest.mark.parametrize("ft", [0x0A, 0x16, 0x1D, 0x21, 0x2C, 0x4B, 0x8B, 0xD0, 0xE5, 0xFF])
def test_badgeom_illegal_ft(ft):
    e = trap(_core(raw_cfg=ft), "ame.geom.ft", 8, 0, 2, 0)
    assert e.value == ft and e.operand == "Ft"


@pytest.mark.parametrize("rnd", [4, 5, 6, 7])
def test_badgeom_illegal_rnd(rnd):
    assert trap(_core(raw_cfg=0x10 | rnd << 9), "ame.geom.rnd", 8, 0, 2, 0).value == rnd


def test_imm_reserved_bits_and_mmacc_t_btr():
    trap(_core(), "ame.imm.reserved", 8, 0, 2, 8, err=EncodingError)
    trap(_core(), "ame.imm.reserved", 8, 0, 2, -1, err=EncodingError)
    trap(_core(), "ame.imm.btr", 8, 0, 2, 0b100, err=EncodingError)
    trap(_core(), "ame.geom.tile", 8, 0, 2.5, 0, err=GeometryError)


def test_check_order_is_ft_rnd_k_m_btr_tile():
    core = _core(raw_cfg=0x16 | 5 << 9, k=0, m=0)
    trap(core, "ame.geom.ft", 40, 0, 2, 0)
    core.csrw("mxcfg", 0x10 | 5 << 9)
    trap(core, "ame.geom.rnd", 40, 0, 2, 0)
    core.csrw("mxcfg", 0x10)
    trap(core, "ame.geom.k", 40, 0, 2, 0)
