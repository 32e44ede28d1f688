"""MMACC against the scalar Fraction oracle, bit for bit, for every (Ft, bOVF, SAT, RND, model).

The oracle (``oracle.py``) is written from the proposal and the decisions
alone. States are random register files whose elements mix uniform codes,
edge values (zeros of both signs, max, min, smallest steps, Inf, NaN) and small
values that cancel and tie; unused padding bits are random.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from . import helpers, oracle

MODELS = ("fused", "sequential", "chain_then_add")
# examples per test scale with the hypothesis profile (150 by default, 3000 for "thorough")
SCALE = settings.default.max_examples / 150
CODES = sorted(oracle.FT)
# One test per (Ft, bOVF, SAT); each example runs every (RND, model) pair on the same state.
# (Fewer parametrized cases per function: hypothesis >= 6.16x wraps a parametrized test's
# settings once per case, and ~1000 cases overflow the recursion limit in its CI profile.)
COMBOS = list(itertools.product(CODES, (0, 1), (0, 1)))


def _formats(code, bovf):
    ft = oracle.fmt(oracle.FT[code])
    return ft, oracle.fmt(oracle.FT[code] if bovf else oracle.FULL[oracle.FT[code]])


@pytest.mark.parametrize("code,bovf,sat", COMBOS,
                         ids=[f"{oracle.FT[c]}@{c:#04x}-ovf{o}-sat{s}" for c, o, s in COMBOS])
@settings(max_examples=max(1, round(3 * SCALE)))
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 4), k=st.integers(1, 4), beta=st.integers(0, 1),
       shortcut=st.booleans())
def test_every_combination(code, bovf, sat, seed, m, k, beta, shortcut):
    """Random 1x1 MMACC.T for each combination; float formats run the float64 shortcut and the limbs."""
    ft, acc = _formats(code, bovf)
    tiles = helpers.random_tiles(np.random.default_rng(seed), ft, acc)
    k = min(k, oracle.per_row(ft))
    for rnd, model in itertools.product(range(4), MODELS):
        cfg = code | bovf << 8 | rnd << 9 | sat << 12
        with helpers.float64_shortcut(shortcut):
            assert helpers.compare(tiles, cfg, k | m << 8, 0, 3, 0, 2, beta, True, model) == "ok", \
                (oracle.RND[rnd], model)


@pytest.mark.parametrize("code,bovf", [(c, o) for c in CODES if c != 0x00 for o in (0, 1)],
                         ids=[f"{oracle.FT[c]}-ovf{o}" for c in CODES if c != 0x00 for o in (0, 1)])
@settings(max_examples=max(1, round(12 * SCALE)))
@given(data=st.data())
def test_random_instructions(code, bovf, data):
    """Random geometry too: every tiling mode, the guard, bTR, beta, tile positions (traps included)."""
    ft, acc = _formats(code, bovf)
    sat, rnd = data.draw(st.integers(0, 1), "SAT"), data.draw(st.integers(0, 3), "RND")
    model = data.draw(st.sampled_from(MODELS), "model")
    shortcut = data.draw(st.booleans(), "float64 shortcut")
    btr = data.draw(st.sampled_from([1, 1, 0, 2, 3]), "bTR")
    m = data.draw(st.integers(1, 4), "M")
    k = m if btr != 1 else data.draw(st.integers(1, min(4, oracle.per_row(ft))), "K")
    tiling, guard = data.draw(st.integers(0, 3), "TILING"), data.draw(st.sampled_from([0, 0, 1]), "GUARD4x4")
    ta, tb = data.draw(st.integers(0, 31), "tA"), data.draw(st.integers(0, 31), "tB")
    tc = data.draw(st.integers(0, 31), "tC")
    beta = data.draw(st.integers(0, 1), "beta")
    transposed = btr == 1 and data.draw(st.booleans(), "MMACC.T")
    imm = beta if transposed else beta | btr << 1
    seed = data.draw(st.integers(0, 2**32 - 1), "seed")
    tiles = helpers.random_tiles(np.random.default_rng(seed), ft, acc)
    cfg = code | bovf << 8 | rnd << 9 | sat << 12
    geo = k | m << 8 | tiling << 16 | guard << 18
    status = data.draw(st.integers(0, 15), "status before")
    with helpers.float64_shortcut(shortcut):
        helpers.compare(tiles, cfg, geo, status, tc, ta, tb, imm, transposed, model)
