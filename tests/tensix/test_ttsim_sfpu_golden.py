"""Replay the stored ttsim SFPU vectors (``golden/ttsim_wh_sfpu.npz``, made by ``tools/ttsim_vectors.py --sfpu``
from tenstorrent/ttsim at the commit stored in the file) on tilesim: every case that ttsim ran must
agree bit for bit (LRegs, lane flags, stack depth, PRNG, configuration, Dst rows, RWC.Dst), and every
case it refused must be refused by tilesim at the same instruction with a ``TilesimError``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tilesim.tensix.isa import SFPU_ROWS

from .ttsim_sfpu_replay import load, replay

GOLDEN = Path(__file__).with_name("golden") / "ttsim_wh_sfpu.npz"


@pytest.fixture(scope="module")
def verdicts():
    return replay(load(GOLDEN))


def test_sfpu_golden_file_names_its_ttsim_commit():
    g = load(GOLDEN)
    assert len(str(g["ttsim_commit"])) == 40 and len(g["status"]) > 2000


def test_every_sfpu_golden_vector_agrees(verdicts):
    differ = [v for v in verdicts if v.verdict == "differ"]
    assert not differ, "\n".join(f"case {v.index} {v.group}: {v.detail}" for v in differ[:20])


def test_the_numpy_reference_path_agrees_too():
    """``Machine(jit=False)``: the numpy path that the numba kernels (FMA, SFP_STOCH_RND) are held to."""
    differ = [v for v in replay(load(GOLDEN), jit=False) if v.verdict == "differ"]
    assert not differ, "\n".join(f"case {v.index} {v.group}: {v.detail}" for v in differ[:20])


def test_sfpu_golden_vectors_compare_every_instruction(verdicts):
    """Each modelled SFPU instruction has cases that ttsim ran and tilesim matched, not only refusals."""
    agree = Counter(v.group for v in verdicts if v.verdict == "agree")
    want = [r.mnemonic for r in SFPU_ROWS if r.status == "implemented" and r.mnemonic != "SFPPOPC"]
    assert [m for m in want if agree[m] < 5] == []
    assert agree["CC"] > 50 and agree["STACK"] > 10 and agree["LOAD-MAD-STORE"] > 50 and agree["PRNG SEED"] == 20
    # the transcribed tt-llk kernels of examples/tensix run whole, bit for bit as ttsim runs them
    assert {g for g in agree if g.startswith("KERNEL")} == {"KERNEL llk_sfpu_exp", "KERNEL llk_sfpu_lrelu",
                                                            "KERNEL llk_sfpu_reciprocal"}
