"""``tilesim vectors tensix`` for the SFPU ops: every op writes a set that checks against itself, a
flipped bit is caught, and the SFPMAD vectors agree with the scalar FMA oracle."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim.verify.check import check
from tilesim.verify.commands import make_vectors
from tilesim.verify.stimulus import tensix_sfpu

from ..tensix.sfpu_fma_oracle import fma_oracle


@pytest.mark.parametrize("op", tensix_sfpu.OPS)
def test_every_sfpu_op_round_trips(op, tmp_path):
    vs = make_vectors("tensix", op, n=2, seed=3, min_per_class=0)
    vs.write(tmp_path)
    assert check(tmp_path, tmp_path).ok


def test_a_flipped_lane_is_caught(tmp_path):
    gold, dump = tmp_path / "g", tmp_path / "d"
    vs = make_vectors("tensix", "sfpstore", n=4, seed=1, min_per_class=0)
    vs.write(gold)
    vs.arrays["dst_out"][2, 5, 7] ^= 1
    vs.write(dump)
    r = check(gold, dump)
    assert not r.ok


def test_sfpmad_vectors_agree_with_the_oracle():
    vs = make_vectors("tensix", "sfpmad", n=24, seed=5, min_per_class=1)
    a = vs.arrays
    checked = 0
    for i in range(vs.count):
        w = int(a["insn"][i, 0])
        ra, rb, rc, d = (w >> 16) & 15, (w >> 12) & 15, (w >> 8) & 15, (w >> 4) & 15
        lanes = a["flags"][i].astype(bool) if a["flags_enabled"][i, 0] else np.ones(32, bool)
        for lane in np.flatnonzero(lanes):
            x, y, z = (int(a["lregs"][i, r, lane]) for r in (ra, rb, rc))
            assert int(a["lregs_out"][i, d, lane]) == fma_oracle(x, y, z)
            checked += 1
    assert checked > 300


def test_fpu_options_are_refused_for_sfpu_ops():
    from tilesim.errors import TilesimError
    with pytest.raises(TilesimError) as e:
        make_vectors("tensix", "sfpmad", n=1, srca="BF16")
    assert e.value.rule == "verify.option"
