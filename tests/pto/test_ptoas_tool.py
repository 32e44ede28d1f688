"""Helpers of tools/ptoas_conformance.py that run without a PTOAS checkout: ulp distances and the
table of traced golden differences (PTO44, PTO45)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

_PATH = Path(__file__).resolve().parents[2] / "tools" / "ptoas_conformance.py"
_spec = importlib.util.spec_from_file_location("ptoas_conformance", _PATH)
conf = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("ptoas_conformance", conf)        # its dataclasses look their module up
_spec.loader.exec_module(conf)


def test_ulp_distance_is_the_rank_distance_on_every_finite_bf16_code():
    codes = np.arange(1 << 16, dtype=np.uint32)
    with np.errstate(invalid="ignore"):                      # signalling NaN codes
        vals = (codes << 16).view(np.float32).astype(np.float64)
    finite = np.isfinite(vals)
    codes, vals = codes[finite].astype(np.uint16), vals[finite]
    _, rank = np.unique(vals, return_inverse=True)          # -0 and +0 share a rank
    rng = np.random.default_rng(7)
    i, j = rng.integers(0, codes.size, (2, 20000))
    got = conf.ulp_distance(codes[i], codes[j], np.uint16)
    assert (got == np.abs(rank[i] - rank[j])).all()


def test_ulp_distance_f32_neighbours_and_sign_crossing():
    x = np.array([1.0, -1.0, 0.0, 1e-45], np.float32)
    nxt = np.nextafter(x, np.float32(np.inf))
    assert conf.ulp_distance(x, nxt, np.uint32).tolist() == [1, 1, 1, 1]
    tiny = np.array([1e-45], np.float32)
    assert conf.ulp_distance(tiny, -tiny, np.uint32).tolist() == [2]   # -min, 0, +min


def test_traced_golden_pairs_name_their_decision():
    def case(d, stem):
        return SimpleNamespace(path=Path("test/samples") / d / f"{stem}.pto")
    for d in ("Qwen3DecodeA3", "Qwen3DecodeA5"):
        assert conf.explained(case(d, "qwen3_decode_incore_9"))[0] == "PTO44"
        assert conf.explained(case(d, "qwen3_decode_incore_4"))[0] == "PTO45"
        assert conf.explained(case(d, "qwen3_decode_incore_8")) is None      # bit-exact: nothing to explain
    assert conf.explained(case("MatMul", "qwen3_decode_incore_9")) is None


def test_a_path_that_is_no_checkout_exits_2_with_one_line(tmp_path, capsys):
    assert conf.main([str(tmp_path / "missing")]) == 2
    assert conf.main([str(tmp_path)]) == 2            # a folder, but no PTOAS test/ tree
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 2 and "is not a PTOAS checkout" in err
