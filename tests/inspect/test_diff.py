"""`tilesim diff` and value traces on each ISA: a difference planted in one statement of a multi-statement
program is found at exactly that statement; identical configurations agree; traces round-trip."""

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim.ame.trace import trace_file as ame_trace
from tilesim.cli import app
from tilesim.inspect import differences, load
from tilesim.pto.trace import trace_file as pto_trace
from tilesim.tensix.trace import trace_file as tt_trace

from .programs import AME_TWO, AME_TWO_LINE, PTO_SUM, PTO_SUM_LINE, TENSIX_TIE, TENSIX_TIE_LINE

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "pto"
runner = CliRunner()


def _cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def _flat(text: str) -> str:
    return re.sub(r"[\s│┃━╇─┏┓┗┛┡┩└┘┌┐]+", " ", text)


@pytest.fixture
def pto(tmp_path):
    p = tmp_path / "k.pto"
    p.write_text(PTO_SUM)
    x = np.random.default_rng(5).standard_normal((8, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    return p, {"x": x}, ["-i", f"x={tmp_path / 'x.npy'}"]


@pytest.fixture
def tensix(tmp_path):
    p = tmp_path / "tie.tt"
    p.write_text(TENSIX_TIE)
    return p, {}, []


@pytest.fixture
def ame(tmp_path):
    p = tmp_path / "two.s"
    p.write_text(AME_TWO)
    rng = np.random.default_rng(3)
    ins = {"i": rng.integers(-8, 8, (2, 4)), "f": rng.standard_normal((2, 8)) * 2.0 ** rng.integers(-12, 12, (2, 8)),
           "g": rng.standard_normal((2, 8))}
    ins = {k: v if k == "i" else _bf16(v) for k, v in ins.items()}
    np.savez(tmp_path / "in.npz", **ins)
    return p, ins, ["-i", str(tmp_path / "in.npz")]


def _bf16(x):
    """Values of bf16 (truncated float32), so that mld takes them without rounding."""
    return (np.asarray(x, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32).astype(np.float64)


# ------------------------------------------------------------------------- planted differences, per ISA
def test_pto_difference_found_at_the_trowsum(pto):
    p, ins, _ = pto
    _, a = pto_trace(p, ins, "cpu")
    _, b = pto_trace(p, ins, "a5")
    assert [s.line for s in a] == [13, 14, 16, 17] or [s.op for s in a][2] == "pto.trowsum"
    d = differences(a, b)
    assert len(d) == 1 and d[0].kind == "values" and d[0].step.line == PTO_SUM_LINE and d[0].write == "%s"
    assert differences(a, a) == []


def test_tensix_difference_found_at_the_tie(tensix):
    p, _, _ = tensix
    _, a = tt_trace(p)
    _, b = tt_trace(p, rounding_model="doc")
    d = differences(a, b, all=True)
    assert d[0].step.line == TENSIX_TIE_LINE and d[0].step.op == "TT_ELWADD"
    e = d[0].elements[0]
    assert e.index == (8, 0) and e.bits == (0x3F81, 0x3F80) and e.ulp == 1 and e.values == (1.0078125, 1.0)
    assert [x.step.line for x in d] == [TENSIX_TIE_LINE, 18]  # then only the .pack that reads it


def test_ame_difference_found_at_the_bf16_mmacc(ame):
    p, ins, _ = ame
    _, a = ame_trace(p, ins)
    _, b = ame_trace(p, ins, accumulation="sequential")
    d = differences(a, b)
    assert len(d) == 1 and d[0].step.line == AME_TWO_LINE and d[0].step.op == "mmacc.t" and d[0].fmt == "fp32"
    assert all(e.ulp is not None and e.ulp >= 1 for e in d[0].elements)


@pytest.mark.parametrize("isa", ["pto", "tensix", "ame"])
def test_a_flipped_bit_in_one_step_is_found_there(isa, request):
    """Plant a difference by flipping one bit of one step's writes: found at that step and element only."""
    p, ins, _ = request.getfixturevalue(isa)
    _, a = {"pto": lambda: pto_trace(p, ins, "a5"), "tensix": lambda: tt_trace(p),
            "ame": lambda: ame_trace(p, ins)}[isa]()
    _, b = {"pto": lambda: pto_trace(p, ins, "a5"), "tensix": lambda: tt_trace(p),
            "ame": lambda: ame_trace(p, ins)}[isa]()
    k = max(i for i, s in enumerate(b) if s.writes and s.writes[0].bits.size > 1) - 1
    k = next(i for i in range(k, -1, -1) if b[i].writes)
    w = b[k].writes[-1]
    w.bits = w.bits.copy()
    w.bits.flat[w.bits.size // 2] ^= 1
    d = differences(a, b, all=True)
    assert len(d) == 1 and d[0].step.index == a[k].index and d[0].write == w.name and d[0].count == 1
    assert np.unravel_index(w.bits.size // 2, w.bits.shape) == tuple(
        i - o for i, o in zip(d[0].elements[0].index, w.origin))


# -------------------------------------------------------------------------------------- the command
@pytest.mark.parametrize("isa, first, second, line, rule", [
    ("pto", ["--target", "cpu"], "a5", PTO_SUM_LINE, "PTO91"),
    ("tensix", [], "doc", TENSIX_TIE_LINE, "TT2"),
    ("ame", ["--accumulation", "fused"], "sequential", AME_TWO_LINE, "AME10"),
])
def test_diff_names_the_statement_and_the_rule(isa, first, second, line, rule, request):
    p, _, inputs = request.getfixturevalue(isa)
    res = _cli("diff", p, *first, "--against", second, *inputs)
    out = _flat(res.output)
    assert res.exit_code == 1, res.output
    assert f"{p}:{line}:" in out and f"why: {rule}:" in out and "1 statement differs" in out


@pytest.mark.parametrize("isa, same", [("pto", ["--target", "a5", "--against", "a5"]),
                                       ("tensix", ["--against", "hardware"]),
                                       ("ame", ["--accumulation", "sequential", "--against", "sequential"])])
def test_identical_configurations_exit_0(isa, same, request):
    p, _, inputs = request.getfixturevalue(isa)
    res = _cli("diff", p, *same, *inputs)
    assert res.exit_code == 0 and "no statement differs" in res.output, res.output


def test_diff_all_lists_every_differing_statement(pto):
    p, _, inputs = pto
    res = _cli("diff", p, "--target", "cpu", "--against", "a5", "--all", *inputs)
    out = _flat(res.output)
    assert res.exit_code == 1 and f"k.pto:{PTO_SUM_LINE}:" in out and "k.pto:17:" in out
    assert "2 statements differ" in out


@pytest.mark.parametrize("args, rule", [
    (["--target", "cpu"], "cli.option"),                        # nothing to compare against
    (["--against", "tpu"], "pto.target.name"),                  # no such target
    (["--against", "rounding_model=doc"], "cli.option"),        # a Tensix option on a PTO program
    (["--against", "blocks=two"], "cli.option"),
])
def test_diff_errors_exit_2(pto, args, rule):
    p, _, inputs = pto
    res = _cli("diff", p, *args, *inputs)
    assert res.exit_code == 2 and rule in res.output, res.output


def test_layernorm_cpu_against_a5_names_the_first_trowsum_and_pto91():
    res = _cli("diff", EX / "layernorm.pto", "--target", "cpu", "--against", "a5", "-i",
               EX / "layernorm_inputs.npz")
    out = _flat(res.output)
    assert res.exit_code == 1
    assert "layernorm.pto:30: pto.trowsum" in out and "%mean: 7 of 8 elements differ (fp32)" in out
    assert "why: PTO91:" in out


# ------------------------------------------------------------------------------------- trace files
@pytest.mark.parametrize("isa", ["pto", "tensix", "ame"])
def test_trace_file_round_trips_and_equals_the_in_process_trace(isa, request, tmp_path):
    p, ins, inputs = request.getfixturevalue(isa)
    out = tmp_path / "trace.npz"
    res = _cli("run", p, "--trace-values", "-o", out, *inputs)
    assert res.exit_code == 0, res.output
    stored, meta = load(out)
    _, here = {"pto": lambda: pto_trace(p, ins), "tensix": lambda: tt_trace(p), "ame": lambda: ame_trace(p, ins)}[isa]()
    assert meta["program"] == str(p) and len(stored) == len(here) > 3
    for x, y in zip(stored, here):
        assert (x.index, x.source, x.line, x.op, x.iters, x.block) == (y.index, y.source, y.line, y.op, y.iters,
                                                                       y.block)
        assert [(w.name, w.fmt, w.origin, w.bits.dtype, w.bits.tolist()) for w in x.writes] == \
            [(w.name, w.fmt, w.origin, w.bits.dtype, w.bits.tolist()) for w in y.writes]


def test_trace_filters_keep_lines_ops_and_iterations(tmp_path):
    gemm = EX / "tiled_gemm.pto"
    ins = EX / "tiled_gemm_inputs.npz"
    _, every = pto_trace(gemm, ins, "a5")
    loops = {s.iters for s in every if s.iters}
    assert len(loops) >= 2
    out = tmp_path / "t.npz"
    res = _cli("run", gemm, "--target", "a5", "-i", ins, "--trace-values", "--ops", "tmatmul_acc,pto.tmatmul",
               "--iterations", "1:2", "-o", out)
    assert res.exit_code == 0, res.output
    kept, _ = load(out)
    want = [s.index for s in every if s.op in ("pto.tmatmul", "pto.tmatmul.acc") and all(i == 1 for i in s.iters)]
    assert [s.index for s in kept] == want and len(want) == 2   # the first TMATMUL, and iteration 1's
    assert [s.iters for s in kept] == [(), (1,)]
    line = every[0].line
    res = _cli("run", gemm, "--target", "a5", "-i", ins, "--trace-values", "--lines", f"{line}", "-o", out)
    assert res.exit_code == 0 and {s.line for s in load(out)[0]} == {line}


@pytest.mark.parametrize("args", [["--lines", "x"], ["--iterations", "3"], ["--lines", "3"]])
def test_bad_or_lone_filters_exit_2(pto, args):
    p, _, inputs = pto
    extra = [] if args == ["--lines", "3"] else ["--trace-values"]
    res = _cli("run", p, *extra, *args, *inputs)
    assert res.exit_code == 2 and ("inspect.filter" in res.output or "cli.option" in res.output), res.output


def test_a_file_that_is_not_a_trace_is_refused(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(3))
    with pytest.raises(Exception, match="inspect.file"):
        load(tmp_path / "x.npz")


def _same_steps(x, y):
    return [(s.index, s.line, s.op, s.iters, [(w.name, w.bits.tolist()) for w in s.writes]) for s in x] == \
        [(s.index, s.line, s.op, s.iters, [(w.name, w.bits.tolist()) for w in s.writes]) for s in y]


def test_trace_true_on_the_python_run_functions(pto, ame):
    import tilesim.pto as tpto
    from tilesim.ame import assemble, run_program
    p, ins, _ = pto
    r = tpto.run_file(p, ins, "cpu", trace=True)
    assert _same_steps(r.steps, pto_trace(p, ins, "cpu").steps) and (r.outputs["y"] == tpto.run_file(p, ins, "cpu")["y"]).all()
    assert _same_steps(tpto.run_text(PTO_SUM, ins, "cpu", source=str(p), trace=True).steps, r.steps)
    p, ins, _ = ame
    seen = []
    res = run_program(assemble(p.read_text(), source=str(p)), ins, trace=True, on_step=lambda *a: seen.append(a[0]))
    assert _same_steps(res.steps, ame_trace(p, ins).steps) and len(seen) == len(res.steps)
    assert run_program(assemble(p.read_text()), ins).steps is None


# ------------------------------------------------------------------------------ the tutorial's kernels
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_layernorm_kernel_normalises_each_row(target):
    import tilesim.pto as tpto
    x = dict(np.load(EX / "layernorm_inputs.npz"))
    y = tpto.run_file(EX / "layernorm.pto", x, target)["y"].astype(np.float64)
    xx = x["x"].astype(np.float64)
    want = (xx - xx.mean(1, keepdims=True)) / np.sqrt(xx.var(1, keepdims=True) + 1e-5)
    assert y.shape == (8, 64) and np.abs(y - want).max() < 1e-5


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tiled_gemm_kernel_is_the_f32_fma_chain(target):
    """Oracle: per 16-wide K block a chain of f32 fused multiply-adds from +0 (exact Fractions, one rounding per
    step); TMATMUL_ACC then adds the block's chain to C, rounded once (as tests/pto/test_matmul_forms.py)."""
    from fractions import Fraction

    import tilesim.pto as tpto

    from ..pto import oracle as o
    ab = dict(np.load(EX / "tiled_gemm_inputs.npz"))
    c = tpto.run_file(EX / "tiled_gemm.pto", ab, target)["c"]
    a, b = ab["a"].astype(np.float64), ab["b"].astype(np.float64)
    for i, j in [(0, 0), (3, 7), (15, 15), (9, 2)]:
        total = None
        for k0 in range(0, 64, 16):
            chain = 0
            for k in range(k0, k0 + 16):
                chain = o.round_bits(Fraction(o.dec(chain, "f32")) + Fraction(a[i, k]) * Fraction(b[k, j]), "f32")
            total = chain if total is None else o.round_bits(
                Fraction(o.dec(chain, "f32")) + Fraction(o.dec(total, "f32")), "f32")
        assert int(c[i, j:j + 1].view(np.uint32)[0]) == total


def test_against_takes_any_run_option_as_option_equals_value(pto, ame):
    p, _, inputs = pto
    res = _cli("diff", p, "--target", "cpu", "--against", "target=a5", *inputs)
    assert res.exit_code == 1 and f"k.pto:{PTO_SUM_LINE}:" in _flat(res.output)
    res = _cli("diff", p, "--target", "cpu", "--against", "strict=1", *inputs)  # no undefined cast here
    assert res.exit_code == 0, res.output
    p, _, inputs = ame
    res = _cli("diff", p, "--against", "accumulation=chain_then_add", "--against", "quantize=1", *inputs)
    assert res.exit_code == 1 and f"two.s:{AME_TWO_LINE}:" in _flat(res.output)


def test_a_run_that_stops_is_named_and_exits_2(tmp_path):
    """TMULS of a col_major tile: every target refuses it; the message says which run stopped."""
    p = tmp_path / "bad.pto"
    p.write_text(PTO_SUM.replace("pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x16xf32>, !pto.tile_buf<vec, 8x16xf32>) "
                                 "outs(%b : !pto.tile_buf<vec, 8x16xf32>)",
                                 "pto.tmuls ins(%s, %c : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>, f32) "
                                 "outs(%s : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>)").replace(
        "    %c16 = arith.constant 16 : index\n", "    %c16 = arith.constant 16 : index\n    %c = arith.constant 2.0 : f32\n"))
    x = np.zeros((8, 16), np.float32)
    np.save(tmp_path / "x.npy", x)
    res = _cli("diff", p, "--target", "cpu", "--against", "a5", "-i", f"x={tmp_path / 'x.npy'}")
    assert res.exit_code == 2 and "the run with target=cpu stopped with an error" in res.output
    assert "pto.op.layout" in res.output and "TROWEXPANDADD" in _flat(res.output)


def test_trace_files_keep_the_name_given_and_refuse_damaged_ones(tmp_path, pto):
    p, _, inputs = pto
    out = tmp_path / "trace.bin"
    assert _cli("run", p, "--trace-values", "-o", out, *inputs).exit_code == 0 and out.is_file()
    assert load(out)[0]
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(b"PK\x03\x04" + out.read_bytes()[4:200])
    with pytest.raises(Exception, match="inspect.file"):
        load(damaged)


def test_trace_true_on_the_tensix_program_runner(tensix):
    from tilesim.tensix.cli import parse_program, run_program
    p, _, _ = tensix
    seen = []
    m, traced = run_program(parse_program(p.read_text(), str(p)), {}, "doc", str(p), trace=True,
                            observe=lambda s, *_: seen.append(s.line))
    assert _same_steps(traced.steps, tt_trace(p, rounding_model="doc").steps) and len(seen) == len(p.read_text().splitlines())
    assert (traced.outputs["out"] == run_program(parse_program(p.read_text(), str(p)), {}, "doc")[1]["out"]).all()


def test_a2a3_float_compare_of_unsigned_column_arg_inputs_is_named(tmp_path):
    """The issue's example: col_argmax.pto with a u32 source; a2a3 compares u32 as f32 bit patterns (PTO8)."""
    text = (EX / "col_argmax.pto").read_text()
    p = tmp_path / "u32.pto"
    p.write_text(text.replace("xf32", "xui32").replace("dtype=f32", "dtype=ui32").replace("ptr<f32>", "ptr<ui32>"))
    x = np.arange(16 * 32, dtype=np.uint32).reshape(16, 32)
    x[3] |= np.uint32(0x80000000)          # row 3 is the largest u32, a negative float on a2a3
    np.save(tmp_path / "x.npy", x)
    res = _cli("diff", p, "--target", "a2a3", "--against", "a5", "-i", f"x={tmp_path / 'x.npy'}")
    out = _flat(res.output)
    assert res.exit_code == 1 and "u32.pto:23: pto.tcolargmax" in out and "%i: 30 of 30 elements differ" in out
    assert "why: PTO8: A2A3 compares u16/u32 column-arg inputs as f16/f32 bit patterns" in out
    # rules stated for other sources are left out: the 2-byte f16 index and row counter, the float NaN rule
    assert "2-byte" not in out and "PTO2" not in out
    assert "(0, 0) 15 0x0000000F 3 0x00000003 12" in out   # a2a3: the last row; a5: row 3


def test_long_traces_print_the_first_steps_and_save_them_all(tmp_path, monkeypatch):
    from tilesim.inspect import cli as icli
    monkeypatch.setattr(icli, "SHOWN", 5)
    out = tmp_path / "t.npz"
    res = _cli("run", EX / "tiled_gemm.pto", "-i", EX / "tiled_gemm_inputs.npz", "--trace-values", "-o", out)
    assert res.exit_code == 0 and "... 16 more steps" in res.output and len(load(out)[0]) == 21
