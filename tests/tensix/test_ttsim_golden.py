"""Replay every stored ttsim golden vector (``golden/ttsim_wh.npz``, made by ``tools/ttsim_vectors.py``
from tenstorrent/ttsim at the commit stored in the file) on tilesim's ``hardware`` model.

Every case must agree, or differ for a reason in :data:`ttsim_replay.INTENDED` (a decision), or be
one that ttsim does not model; then tilesim may only raise a ``TilesimError`` (no other exception).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from .ttsim_replay import load, replay

GOLDEN = Path(__file__).with_name("golden") / "ttsim_wh.npz"


@pytest.fixture(scope="module")
def verdicts():
    return replay(load(GOLDEN))


def test_golden_file_names_its_ttsim_commit():
    g = load(GOLDEN)
    assert len(str(g["ttsim_commit"])) == 40
    assert g.n > 10_000


def test_every_golden_vector_agrees_or_is_intended(verdicts):
    differ = [v for v in verdicts if v.verdict == "differ"]
    assert not differ, "\n".join(f"case {v.index} {v.group}: {v.detail}" for v in differ[:20])


def test_golden_vectors_compare_every_group(verdicts):
    """Each instruction group has cases that ttsim ran and tilesim matched (not only refusals)."""
    agree = Counter(v.group for v in verdicts if v.verdict == "agree")
    for group in ("ELWMUL", "ELWADD", "ELWSUB", "MVMUL", "GAPOOL", "GMPOOL", "ZEROACC", "MOVB2A", "FLIPS",
                  "MOVA2D", "MOVB2D", "MOVD2A", "MOVD2B"):
        assert agree[group] >= 50, group


def test_intended_differences_name_a_decision(verdicts):
    assert all(v.decision.startswith("TT") for v in verdicts if v.verdict == "intended")


def test_the_guide_states_the_replayed_counts(verdicts):
    """docs/tensix.md's counts of the stored ttsim cases are those the replay finds (no stale numbers)."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "tensix.md").read_text()
    c = Counter(v.verdict for v in verdicts)
    commit = str(load(GOLDEN)["ttsim_commit"])[:7]
    stated = (f"runs {len(verdicts):,} generated cases", f"At ttsim commit {commit}",
              f"{c['agree'] + c['intended']:,} cases that ttsim models, all agreeing ({c['intended']:,} of them by",
              f"{c['ttsim-limit']:,} cases that ttsim refuses")
    text = " ".join(guide.split())
    assert [s for s in stated if s not in text] == [] and c["differ"] == 0
