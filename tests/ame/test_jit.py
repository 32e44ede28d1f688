"""The MMACC kernels (tilesim.ame.jit) against the numpy reference path they stand in front of: every code of
every tile and every status flag, over every Ft, RND, SAT, bOVF, model, tiling, transposition and beta."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from tilesim import formats
from tilesim.ame import Core, jit, mxcfg, mxtile
from tilesim.ame.accum import accumulator
from tilesim.ame.models import MODELS
from tilesim.errors import TilesimError

from .helpers import random_tiles, small_codes

FTS = sorted({f.name for f in formats.AME_CODES.values()})


def _tile_bytes(f, codes) -> np.ndarray:
    """The 256 bytes of a tile holding ``codes`` (16, e) of ``f``."""
    core = Core()
    core.write_codes(0, codes, f)
    return core.tiles[0]


def _spy(took: list):
    """:func:`jit.run` that notes whether the kernels took each instruction."""
    real = jit.run

    def run(*args):
        out = real(*args)
        took.append(out is not None)
        return out
    return mock.patch.object(jit, "run", run)


def _outcome(core, name, *operands):
    """What one instruction does to a core: its status events, or its trap (rule id), and the state after."""
    try:
        ex = getattr(core, name)(*operands)
        result = (ex.inexact, ex.sat_hit)
    except TilesimError as err:
        result = (type(err).__name__, err.rule)
    tiles, csrs = core.snapshot()
    return result, tiles, csrs


@settings(max_examples=settings.default.max_examples, deadline=None)
@given(data=st.data())
def test_kernels_equal_the_numpy_reference(data):
    """A short stream of instructions on two cores from one random state (random lanes: uniform codes with
    NaNs, Infs and padding bits, edge values, small values that cancel), one with the kernels and one
    without: identical tiles, CSRs, status events and traps after every instruction."""
    ft = data.draw(st.sampled_from(FTS), "ft")
    f = formats.get(ft)
    bovf, sat = data.draw(st.integers(0, 1), "bOVF"), data.draw(st.integers(0, 1), "SAT")
    rnd = data.draw(st.sampled_from(["rne", "rup", "rdn", "rtz"]), "RND")
    model = data.draw(st.sampled_from(MODELS + ("fused",)), "model")  # fused twice: the float kernel's model
    tiling = data.draw(st.sampled_from(["1x1", "2x2", "1x4", "4x1"]), "tiling")
    guard = data.draw(st.booleans(), "GUARD4x4")
    e = formats.elements_per_row(f)
    k = data.draw(st.integers(1, e), "K")
    transposing = data.draw(st.booleans(), "MMACC with any bTR")
    m = min(k, 16) if transposing and data.draw(st.booleans(), "square") else data.draw(st.integers(1, 16), "M")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    acc = accumulator(f, bovf)
    state = np.array(random_tiles(rng, f, acc), np.uint8)
    if data.draw(st.booleans(), "small values only"):  # sums float64 holds: the float kernel's own ground
        state = np.zeros_like(state)
        for t in range(32):
            g = f if t % 2 == 0 else acc
            state[t] = _tile_bytes(g, rng.choice(small_codes(g), (16, formats.elements_per_row(g))))
    cores = []
    for _ in range(2):
        core = Core(accumulation=model)
        core.tiles[:] = state
        core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf, rnd=rnd, sat=sat))
        core.csrw("mxtile", mxtile(k=k, m=m, tiling=tiling, guard4x4=guard))
        cores.append(core)
    small = st.one_of(st.integers(0, 8), st.integers(0, 31))
    took = []
    for _ in range(data.draw(st.integers(1, 3), "instructions")):
        name = "mmacc" if transposing else "mmacc_t"
        operands = (data.draw(small, "tC"), data.draw(small, "tA"), data.draw(small, "tB"),
                    data.draw(st.integers(0, 7 if transposing else 1), "imm"))
        with _spy(took):
            fast = _outcome(cores[0], name, *operands)
        with mock.patch.object(jit, "ENABLED", False):
            ref = _outcome(cores[1], name, *operands)
        assert fast[0] == ref[0]
        assert np.array_equal(fast[1], ref[1])
        assert fast[2] == ref[2]
        event("trap" if isinstance(fast[0][0], str) else "kernel" if took[-1] else "reference")


@pytest.mark.parametrize("ft,bovf,sat", [("int8", 0, 0), ("int8", 0, 1), ("int8", 1, 0), ("int4", 0, 1),
                                         ("int4", 1, 0), ("int16", 0, 1), ("int32", 0, 0), ("int64", 0, 0),
                                         ("q4_3", 0, 1), ("q16_16", 0, 0), ("bf16", 0, 0), ("fp16", 0, 1),
                                         ("fp8_e4m3", 0, 0), ("fp8_e5m2", 1, 1), ("fp4_e2m1", 0, 0),
                                         ("fp4_e2m1", 1, 0), ("e8m0", 0, 0), ("fp32", 0, 0), ("uf16_e8m8", 0, 0)])
@pytest.mark.parametrize("model", MODELS)
def test_the_kernels_take_the_common_configurations(ft, bovf, sat, model):
    """The fast path runs (and agrees) on small values: integers in every model, floats in ``fused``."""
    f = formats.get(ft)
    rng = np.random.default_rng(1)
    cores = [Core(accumulation=model) for _ in range(2)]
    for core in cores:
        core.csrw("mxcfg", mxcfg(ft=ft, bovf=bovf, sat=sat, rnd="rdn"))
        core.csrw("mxtile", mxtile(k=formats.elements_per_row(f), m=8, tiling="2x2"))
    for t in range(8):
        v = rng.choice([0.25, 0.5, 1.0, 2.0, 3.0], (16, formats.elements_per_row(f)))
        codes = formats.encode(v * rng.choice([-1, 1], v.shape) if f.signed else v, f, saturate=True)
        for core in cores:
            core.write_codes(t, codes, f)
    took = []
    with _spy(took):
        cores[0].mmacc_t(16, 0, 4, 0)
        cores[0].mmacc_t(16, 2, 6, 0)
    with mock.patch.object(jit, "ENABLED", False):
        cores[1].mmacc_t(16, 0, 4, 0)
        cores[1].mmacc_t(16, 2, 6, 0)
    assert np.array_equal(cores[0].tiles, cores[1].tiles) and cores[0].status == cores[1].status
    assert all(took) == (not f.is_float or model == "fused")


def test_a_sum_float64_cannot_hold_goes_to_the_reference_untouched():
    """BF16 2**100 and 2**-100 in one row: the kernel declines before writing anything, the reference runs."""
    core = Core()
    core.csrw("mxcfg", mxcfg(ft="bf16"))
    core.csrw("mxtile", mxtile(k=2, m=1, tiling="1x1"))
    core.write_tile(0, np.array([[2.0**100, 2.0**-100]]), "bf16")
    core.write_tile(1, np.array([[1.0, 1.0]]), "bf16")
    before = core.tiles.copy()
    p = core.mmacc_t(2, 0, 1).plan
    assert jit.run(before.copy(), p, "fused") is None
    assert core.read_tile(2, "fp32", (1, 1))[0, 0] == np.float32(2.0**100)
    assert core.status["inexact"]
