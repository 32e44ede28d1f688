"""The per-transaction scoreboard API: models agree with the vector sets, mismatches and cross coverage add up."""

from collections import Counter

import numpy as np
import pytest

from tilesim.errors import TilesimError, UnsupportedError
from tilesim.verify.commands import make_vectors
from tilesim.verify.scoreboard import Scoreboard, reference
from tilesim.verify.stimulus import pto as pto_gen
from tilesim.verify.stimulus import tensix as tensix_gen
from tilesim.verify.stimulus import tensix_sfpu as sfpu_gen


def _txn(vs, i):
    return {o.name: vs.arrays[o.name][i] for o in vs.operands if o.role == "input"}


@pytest.mark.parametrize("isa,op,opts", [
    ("ame", "mmacc", {"ft": "int8", "sat": 1, "m": 4, "k": 8}),
    ("ame", "mmacc", {"ft": "bf16", "tiling": "2x2", "m": 2, "k": 4, "rnd": "rtz"}),
    ("formats", "encode", {"format": "fp8_e5m2", "saturate": True}),
    ("formats", "decode", {"format": "fp6_e3m2"}),
    ("formats", "decode", {"format": "int4"}),
])
def test_models_give_the_golden_outputs(isa, op, opts):
    vs = make_vectors(isa, op, n=12, seed=9, **opts)
    model = reference(isa, op, vs.config)
    sb = Scoreboard(vs.operands)
    for i in range(vs.count):
        sb.check(i, model(_txn(vs, i)), {o.name: vs.arrays[o.name][i] for o in vs.operands}, vs.tags[i])
    assert sb.ok and sb.transactions == vs.count and "PASS" in sb.summary()


def test_mismatches_and_cross_coverage_add_up():
    vs = make_vectors("ame", "mmacc", ft="int8", sat=1, m=2, k=2, n=10, seed=3)
    sb = Scoreboard(vs.operands, {"sat": 1, "rnd": "rne"})
    for i in range(vs.count):
        got = {"c": vs.arrays["c"][i].copy(), "mxstatus": int(vs.arrays["mxstatus"][i, 0])}
        if i == 4:
            got["c"].reshape(-1)[1] ^= 0x8000
            got["mxstatus"] ^= 0b1000
        sb.check(i, {k: vs.arrays[k][i] for k in ("c", "mxstatus")}, got, vs.tags[i])
    assert sb.failing == [4] and [(m.operand, m.index) for m in sb.mismatches] == [("c", (0, 0, 1)), ("mxstatus", (0,))]
    assert sb.mismatches[1].value(sb.mismatches[1].got) in ("sat_hit", "-")
    cov = sb.coverage_record()
    assert cov["keys"] == ["class", "rnd", "sat"] and cov["transactions"] == vs.count
    tags = Counter(c for t in vs.tags for c in t)
    assert {b["class"]: b["count"] for b in cov["bins"]} == dict(tags)
    assert all((b["rnd"], b["sat"]) == ("rne", 1) for b in cov["bins"])


def test_scoreboard_refuses_bad_transactions():
    vs = make_vectors("ame", "mmacc", ft="int8", m=2, k=2, n=2)
    sb = Scoreboard(vs.operands)
    exp = {k: vs.arrays[k][0] for k in ("c", "mxstatus")}
    with pytest.raises(TilesimError) as e:
        sb.check(0, exp, {"c": exp["c"]})
    assert e.value.rule == "verify.scoreboard.output"
    with pytest.raises(TilesimError) as e:
        sb.check(0, exp, {"c": exp["c"].reshape(-1)[:3], "mxstatus": 0})
    assert e.value.rule == "verify.scoreboard.shape"
    with pytest.raises(UnsupportedError) as e:
        reference("riscv", "vadd", {})
    assert e.value.rule == "verify.model"


@pytest.mark.parametrize("op", pto_gen.OPS)
def test_pto_model_gives_every_op_its_golden_outputs(op):
    vs = make_vectors("pto", op, n=1, seed=3)
    model = reference("pto", op, vs.config)
    for i in range(vs.count):                    # partial_valid vectors included: the region is found again
        got = model(_txn(vs, i))
        assert set(got) == {o.name for o in vs.operands if o.role == "output"}
        assert all(np.array_equal(got[k], vs.arrays[k][i]) for k in got), (op, i)


@pytest.mark.parametrize("op", tensix_gen.OPS)
@pytest.mark.parametrize("opts", [{}, {"srca": "FP16", "dst32": False}, {"srca": "INT8"}])
def test_tensix_model_gives_every_instruction_its_golden_outputs(op, opts):
    vs = make_vectors("tensix", op, n=1, seed=5, **opts)
    model = reference("tensix", op, vs.config)
    for i in range(vs.count):
        got = model(_txn(vs, i))
        assert all(np.array_equal(got[k], vs.arrays[k][i]) for k in got), (op, i)


@pytest.mark.parametrize("op", sfpu_gen.OPS)
@pytest.mark.parametrize("opts", [{}, {"dst32": False, "rounding_model": "doc"}])
def test_sfpu_model_gives_every_instruction_its_golden_outputs(op, opts):
    vs = make_vectors("tensix", op, n=4, seed=7, **opts)
    model = reference("tensix", op, vs.config)
    for i in range(vs.count):
        got = model(_txn(vs, i))
        assert set(got) == {o.name for o in vs.operands if o.role == "output"}
        assert all(np.array_equal(got[k], vs.arrays[k][i]) for k in got), (op, i)


def test_every_generated_op_has_a_model():
    from tilesim.verify.scoreboard import MODELS
    from tilesim.verify.stimulus import GENERATORS, generator
    assert {(isa, op) for isa in GENERATORS for op in generator(isa).OPS} == set(MODELS)
