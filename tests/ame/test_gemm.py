"""The GEMM runtime: batched results equal its own program run on the core, instruction by instruction;
integer results equal exact integer matmul (wrapped or saturated); plans, costs and errors."""

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from tilesim import formats
from tilesim.ame import Core, assemble, run_program
from tilesim.ame.gemm import TILING_CHOICES, gemm, plan_gemm
from tilesim.errors import GeometryError, TilesimError, UnsupportedError

FTS = ["int8", "int4", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1", "fp16", "bf16", "q4_3", "int16", "fp32", "e8m0", "fp64",
       "q16_16", "int12"]


def _values(rng, fmt, shape):
    """Random values of ``fmt`` (codes decoded), with some zeros and, for floats, some huge and tiny ones."""
    f = formats.get(fmt)
    codes = formats.canonical(rng.integers(0, 1 << f.bits, shape, dtype=np.uint64) << np.uint64(f.lane_shift), f)
    v = formats.decode(codes, f) if f.is_float else formats.decode(codes, f).astype(np.float64)
    v[rng.random(shape) < 0.1] = 0.0 if f.has_zero else v.flat[0]
    return np.where(np.isfinite(v), v, 1.0)


def _program_result(plan, a, b, c, accumulation):
    """The program's ``y`` as codes. ``mst`` gives float64 for q32_32, which cannot hold every code:
    then the runtime's codes are compared through the same decoding."""
    prog = assemble(plan.program())
    out = run_program(prog, plan.program_inputs(a, b, c), accumulation=accumulation, quantize=True)
    return out.outputs["y"][: plan.m, : plan.n], out


@settings(max_examples=max(1, round(60 * settings.default.max_examples / 150)), deadline=None)
@given(data=st.data())
def test_batched_runtime_equals_its_program_on_the_core(data):
    """Every result bit, every status flag, and every cost figure."""
    ft = data.draw(st.sampled_from(FTS), "ft")
    f = formats.get(ft)
    bovf, sat = data.draw(st.integers(0, 1), "bOVF"), data.draw(st.integers(0, 1), "SAT")
    rnd = data.draw(st.sampled_from(["rne", "rup", "rdn", "rtz"]), "RND")
    model = data.draw(st.sampled_from(["fused", "sequential", "chain_then_add"]), "model")
    e = formats.elements_per_row(f)
    m, n = data.draw(st.integers(1, 40), "M"), data.draw(st.integers(1, 40), "N")
    k = data.draw(st.integers(1, 3 * e), "K")
    with_c = data.draw(st.booleans(), "C input")
    tiling = data.draw(st.sampled_from(TILING_CHOICES), "tiling")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    a, b = _values(rng, ft, (m, k)), _values(rng, ft, (k, n))
    try:
        plan = plan_gemm(m, n, k, ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, with_c=with_c)
    except GeometryError as err:
        assert err.rule == "ame.gemm.capacity" and tiling in ("4x4", "2x2", "1x4", "4x1")
        event("capacity")
        return
    c = _values(rng, plan.acc.name, (m, n)) if with_c else None
    r = gemm(a, b, c, ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling, accumulation=model)
    want, run = _program_result(plan, a, b, c, model)
    if plan.acc.name == "q32_32":
        got = r.values
        assert np.array_equal(got, want), (ft, plan.acc.name, tiling)
    else:
        assert np.array_equal(r.codes, formats.encode(want, plan.acc)), (ft, plan.acc.name, tiling)
    assert r.status == run.core.status
    got, ran = plan.cost(), run.cost
    for field in ("instructions", "mmacc", "macs", "tiles_read", "tiles_written", "tiles_loaded", "tiles_stored"):
        assert getattr(got, field) == getattr(ran, field), field
    assert [got.cycles(x) for x in (1, 4096, 32768)] == [ran.cycles(x) for x in (1, 4096, 32768)]
    assert ran.mmacc == plan.instructions


@pytest.mark.parametrize("tiling", TILING_CHOICES)
def test_int8_wraps_like_exact_integer_matmul(tiling):
    """INT8 -> INT16 without SAT is the exact product sum modulo 2**16 (any order); with SAT, K in one
    slice, it is the exact sum clamped; bOVF=1 accumulates in INT8, modulo 2**8."""
    rng = np.random.default_rng(1)
    a, b = rng.integers(-128, 128, (70, 100)), rng.integers(-128, 128, (100, 50))
    exact = a @ b
    wrapped = (exact + 2**15) % 2**16 - 2**15
    assert np.array_equal(gemm(a, b, ft="int8", tiling=tiling).values, wrapped)
    assert np.array_equal(gemm(a, b, ft="int8", bovf=1, tiling=tiling).values, (exact + 128) % 256 - 128)
    a16, b16 = a[:, :16], b[:16]
    clamped = np.clip(a16 @ b16, -2**15, 2**15 - 1)
    assert np.array_equal(gemm(a16, b16, ft="int8", sat=1, tiling=tiling).values, clamped)


def test_initial_c_is_added():
    rng = np.random.default_rng(2)
    a, b, c = rng.integers(-4, 4, (20, 33)), rng.integers(-4, 4, (33, 18)), rng.integers(-999, 999, (20, 18))
    assert np.array_equal(gemm(a, b, c, ft="int8").values, a @ b + c)


def test_fp16_exact_when_no_rounding_happens():
    """Small integers in FP16 multiply and add exactly in FP32: the result is the exact matmul, not inexact."""
    rng = np.random.default_rng(3)
    a, b = rng.integers(-8, 8, (48, 64)).astype(float), rng.integers(-8, 8, (64, 40)).astype(float)
    r = gemm(a, b, ft="fp16")
    assert np.array_equal(r.values, a @ b) and not r.status["inexact"]


def test_bf16_rounds_each_k_slice():
    """FP32 accumulation rounds once per K-slice (8 BF16 elements): 2**24 + 1 + 1 is lost slice by slice
    but kept when the ones share a slice with each other and not with 2**24."""
    a = np.zeros((1, 16))
    a[0, 0], a[0, 8], a[0, 9] = 2.0**24, 1.0, 1.0
    b = np.ones((16, 1))
    r = gemm(a, b, ft="bf16")
    assert r.values[0, 0] == 2.0**24 + 2  # slice 1: 2^24; slice 2: 2^24 + 2 exactly
    a[0, 9], a[0, 1] = 0.0, 1.0  # the ones now fall in different slices: each add of 1 to 2^24 ties to even
    r = gemm(a, b, ft="bf16")
    assert r.values[0, 0] == 2.0**24 and r.status["inexact"]


def test_plan_follows_the_guard_policy():
    """A named 4x4 goes through GUARD4x4: it runs when the 16-bit results fit, else 2x2 runs."""
    p = plan_gemm(64, 64, 64, ft="int8", bovf=1, tiling="4x4")  # INT8 C: 16 tiles + 8 operands
    assert p.tiling.name == "4x4" and p.guard4x4 and not p.fallback
    p = plan_gemm(64, 64, 64, ft="int8", tiling="4x4")  # INT16 C needs all 32 tiles across slices: the runtime
    assert p.tiling.name == "2x2" and p.fallback and not p.guard_fallback  # names 2x2 itself
    p = plan_gemm(64, 64, 64, ft="bf16", tiling="4x4")  # FP32 accumulator: the hardware guard falls back
    assert p.tiling.name == "2x2" and p.fallback and p.guard_fallback
    r = gemm(np.ones((32, 8)), np.ones((8, 32)), ft="bf16", tiling="4x4")
    assert r.status["guard_fallback"]


def test_auto_serves_the_shape():
    """The issue's case: M = 16, N = K = 4096 in BF16 runs 1x4 (all MACs useful, half 2x2's cycles)."""
    p, two = plan_gemm(16, 4096, 4096, ft="bf16"), plan_gemm(16, 4096, 4096, ft="bf16", tiling="2x2")
    assert p.tiling.name == "1x4" and p.cost().macs == p.useful_macs and two.cost().macs == 2 * p.useful_macs
    assert 2 * p.cost().cycles(16384) == two.cost().cycles(16384)
    assert p.why.startswith("auto chose 1x4: fewest cycles at 16,384 MACs/cycle (32,768); 2x2 65,536")
    assert plan_gemm(64, 64, 16, ft="int8").tiling.name == "4x4"  # one slice: C over the operands, fewest loads
    assert not plan_gemm(64, 64, 16, ft="int8").fallback
    assert plan_gemm(4, 4, 4, tiling="1x4").why == "1x4 asked for"


@settings(max_examples=max(1, round(40 * settings.default.max_examples / 150)), deadline=None)
@given(ft=st.sampled_from(FTS), bovf=st.integers(0, 1), m=st.integers(1, 300), n=st.integers(1, 300),
       k=st.integers(1, 100), with_c=st.booleans(), rate=st.sampled_from([1024, 4096, 16384, 32768, 65536]))
def test_auto_is_the_cheapest_legal_named_mode(ft, bovf, m, n, k, with_c, rate):
    """Against every named mode planned on its own: the fewest cycles, ties to the fewest tile loads,
    then to the first of 4x4 (guarded), 2x2, 1x4, 4x1, 1x1; the reason lists every legal mode."""
    legal = []
    for order, name in enumerate(("4x4", "2x2", "1x4", "4x1", "1x1")):
        try:
            q = plan_gemm(m, n, k, ft=ft, bovf=bovf, tiling=name, with_c=with_c)
        except GeometryError:
            continue
        if name == "4x4" and q.fallback:
            continue  # the guard would run 2x2: that is the 2x2 candidate
        legal.append((q.cost().cycles(rate), q.cost().tiles_loaded, order, q))
    best = min(legal, key=lambda x: x[:3])[3]
    p = plan_gemm(m, n, k, ft=ft, bovf=bovf, with_c=with_c, macs_per_cycle=rate)
    assert (p.tiling, p.guard4x4) == (best.tiling, best.guard4x4)
    assert sorted(name for name, _, _ in p.choice) == sorted(q.tiling.name for *_, q in legal)
    assert p.choice[0] == (p.tiling.name, p.cost().cycles(rate), p.cost().tiles_loaded)


def test_plan_counts():
    p = plan_gemm(1000, 1024, 1030, ft="bf16", tiling="2x2")
    assert p.blocks == (64, 64) and p.groups == 32 * 32
    assert p.k_slices == (8,) * 128 + (6,) and p.instructions == 1024 * 129
    assert p.useful_macs == 1000 * 1024 * 1030
    assert p.cost().macs == 1024 * 4 * 256 * 1030  # padded rows are issued too


def test_errors():
    with pytest.raises(GeometryError) as e:
        plan_gemm(0, 4, 4)
    assert e.value.rule == "ame.gemm.shape" and e.value.operand == "M"
    with pytest.raises(GeometryError) as e:
        plan_gemm(64, 64, 64, ft="fp64", tiling="2x2")  # FP64 results: 8 tiles each, 32 + 4 operands
    assert e.value.rule == "ame.gemm.capacity"
    assert plan_gemm(64, 64, 2, ft="fp64", tiling="2x2").overlapped  # one slice may overwrite the operands
    assert plan_gemm(64, 64, 64, ft="fp64", tiling="auto").tiling.name == "1x1"  # auto finds the mode that fits
    with pytest.raises(UnsupportedError) as e:
        plan_gemm(4, 4, 4, tiling="3x3")
    assert e.value.rule == "ame.gemm.tiling"
    with pytest.raises(UnsupportedError) as e:
        plan_gemm(4, 4, 4, ft="uint8")
    assert e.value.rule == "ame.gemm.ft"
    with pytest.raises(UnsupportedError):
        plan_gemm(4, 4, 4, rnd="rmm")
    with pytest.raises(GeometryError) as e:
        gemm(np.ones((4, 5)), np.ones((4, 5)))
    assert e.value.rule == "ame.gemm.shape"
    with pytest.raises(GeometryError):
        gemm(np.ones((4, 5)), np.ones((5, 3)), np.ones((3, 4)))
    with pytest.raises(TilesimError):
        gemm(np.ones((4, 5)), np.ones((5, 3)), accumulation="tree")


@pytest.mark.parametrize("ft, bad", [("e8m0", -2.0), ("e8m0", 0.0), ("int8", np.nan)])
def test_quantize_refuses_what_clamping_cannot_mend_as_mld_does(ft, bad):
    """A negative or zero E8M0 value, or a NaN into int8, has no code even when clamped: gemm(quantize=True)
    refuses it with the rule the program's mld raises (it used to store E8M0's NaN code without a word)."""
    plan = plan_gemm(2, 2, 2, ft=ft)
    a, b = np.ones((2, 2)), np.ones((2, 2))
    a[1, 0] = bad
    with pytest.raises(TilesimError) as by_gemm:
        gemm(a, b, ft=ft, quantize=True)
    with pytest.raises(TilesimError) as by_mld:
        run_program(assemble(plan.program()), plan.program_inputs(a, b), quantize=True)
    assert by_gemm.value.rule == by_mld.value.rule == "formats.fit.invalid"
    assert (by_gemm.value.instruction, by_gemm.value.operand) == ("gemm", "a")


def test_program_runs_from_a_fresh_core_and_leaves_status():
    plan = plan_gemm(20, 20, 20, ft="fp8_e4m3", tiling="1x4")
    a, b = np.full((20, 20), 0.1), np.full((20, 20), 3.0)
    run = run_program(assemble(plan.program()), plan.program_inputs(a, b), core=Core())
    assert run.outputs["y"].shape == (32, 64)  # the padded block grid of 1x4 groups
    assert run.core.status["inexact"] == gemm(a, b, ft="fp8_e4m3", tiling="1x4", quantize=True).status["inexact"]


def test_study_errors_against_float64():
    """The quick view's errors are what they say: zero accumulation error where every sum is exact, the
    input quantisation error in the total, and integer wrap visible when INT16 overflows."""
    from tilesim.ame.study import compare, problem
    fp4, int8 = (r.record for r in compare(16, 16, 32, ["fp4_e2m1", "int8"], seed=5))
    a, b = (x.astype(np.float64) for x in problem(16, 16, 32, seed=5))
    aq, bq = formats.quantize(a, "fp4_e2m1"), formats.quantize(b, "fp4_e2m1")
    assert fp4["acc_err_rel"] == 0.0 and fp4["acc_ulp_max"] == 0.0  # FP4 products and these sums are exact in FP16
    assert fp4["err_rel"] == pytest.approx(np.linalg.norm(aq @ bq - a @ b) / np.linalg.norm(a @ b))
    assert 0 < int8["err_rel"] < 0.05 and int8["wrapped"] == 0  # K=32: no INT16 overflow at this size
    wide = compare(16, 16, 512, ["int8"], seed=5)[0].record
    assert wide["err_rel"] > 0.1 and wide["wrapped"] > 0  # full-scale INT8 products overflow INT16 over K=512


def test_cli_gemm(tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    runner = CliRunner()
    res = runner.invoke(app, ["gemm", "40", "24", "20", "-f", "int8", "-f", "bf16", "--tiling", "1x4"])
    assert res.exit_code == 0, res.output
    assert "int8->int16" in res.output and "bf16->fp32" in res.output
    prog = tmp_path / "g.s"
    res = runner.invoke(app, ["gemm", "20", "20", "20", "-f", "fp8_e4m3", "--emit", str(prog)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["run", str(prog), "-i", str(prog.with_suffix(".npz")), "-o", str(tmp_path / "y.npz")])
    assert res.exit_code == 0, res.output
    from tilesim.ame.study import problem
    a, b = problem(20, 20, 20, seed=0)
    want = gemm(a, b, ft="fp8_e4m3", quantize=True).values
    assert np.array_equal(np.load(tmp_path / "y.npz")["y"][:20, :20], want)
    for args, words in ((["--tiling", "3x3"], "ame.gemm.tiling"), (["-f", "nope"], "unknown format"),
                        (["-f", "int8", "-f", "bf16", "--emit", str(prog)], "exactly one -f/--format"),
                        (["--macs-per-cycle", "0"], "positive"), (["--output-format", "xml"], "study.option"),
                        (["--block", "0x4", "--workers", "1"], "ROWSxCOLS")):
        res = runner.invoke(app, ["gemm", "8", "8", "8", *args])
        assert res.exit_code == 2 and words in res.output, (args, res.output)


def test_cli_gemm_acc_whatifs(tmp_path):
    """--acc adds what-if accumulators on the same data, as study's --acc: INT8 into INT32 holds every sum of
    512 INT8 products (|sum| <= 512 * 128 * 128 < 2**31), so it is exact where the proposal's INT16 wraps."""
    import csv
    import io

    from typer.testing import CliRunner

    from tilesim.cli import app
    runner = CliRunner()
    args = ["gemm", "16", "16", "512", "-f", "int8", "--seed", "5"]
    res = runner.invoke(app, [*args, "--acc", "proposal", "--acc", "int32", "--acc", "int16",
                              "--output-format", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.output)))
    assert [(r["acc"], r["in_proposal"]) for r in rows] == [("int16", "1"), ("int32", "0")]  # int16 is the proposal's
    assert int(rows[0]["wrapped"]) > 0 and float(rows[0]["acc_err_rel"]) > 0.1
    assert int(rows[1]["wrapped"]) == 0 and float(rows[1]["acc_err_rel"]) == 0.0
    assert rows[0]["err_rel"] != rows[1]["err_rel"] and rows[0]["macs"] == rows[1]["macs"]
    res = runner.invoke(app, [*args, "--acc", "int32"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "int8->int32 (what-if)" in res.output and "int8->int16" not in res.output
    prog = tmp_path / "g.s"
    for extra, words in ((["-f", "bf16", "--acc", "int32"], "rule ame.gemm.acc"),
                         (["-f", "int8", "--acc", "int32", "--emit", str(prog)], "no AME program"),
                         (["-f", "int8", "--acc", "int16", "--acc", "int32", "--emit", str(prog)],
                          "rule ame.gemm.emit")):
        res = runner.invoke(app, ["gemm", "8", "8", "8", *extra])
        assert res.exit_code == 2 and words in res.output, (extra, res.output)
    assert not prog.exists()
    res = runner.invoke(app, ["gemm", "8", "8", "8", "-f", "int8", "--acc", "int16", "--emit", str(prog)])
    assert res.exit_code == 0 and prog.exists(), res.output   # the proposal's own accumulator has a program
