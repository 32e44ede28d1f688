"""``tilesim compare``: every machine's result equals its own ISA's API on the same data; the exact
references equal Fraction arithmetic; inputs built to differ give the expected counts; bad input is a
clear error."""

import csv
import io
import re
import struct
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim import formats, pto, tensix
from tilesim.ame.gemm import gemm
from tilesim.cli import app
from tilesim.compare import COLUMNS, evaluate, exact, run
from tilesim.compare import tensix as tensix_compare
from tilesim.errors import TilesimError
from tilesim.tensix.fpu.pool import argmax_rows

from ..pto import oracle as o

PTO_DT = {"bf16": "bf16", "fp16": "f16", "fp32": "f32"}


def _rows(cmp, machine):
    return [(r, run_) for r, run_ in zip(cmp.records, cmp.runs) if r["machine"] == machine and r["ran"]]


# ------------------------------------------------------------------ each machine against its ISA's own API
def _tensix_text(m, lines):
    """Run instructions given as the ISA's text (independently of the compare module's encodings)."""
    m.run("\n".join(lines))


def test_tensix_gmpool_block_by_block():
    """Each 16x16 block through its own GMPOOL program (as examples/tensix/gmpool_argmax.tt writes it)."""
    cmp = evaluate("colargmax", dtype="bf16", shape="48x32", seed=3)
    x = cmp.inputs[0]
    for rounding in ("hardware", "doc"):
        maxima, index = np.empty((3, 32)), np.empty((3, 32), np.int64)
        for b in range(3):
            for s in (0, 16):
                m = tensix.Machine(rounding).configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5,
                                                       ALU_ACC_CTRL_Fp32_enabled=1)
                m.unpack("srca", x[16 * b:16 * b + 16, s:s + 16], "BF16")
                m.unpack("srcb", np.ones((1, 16)), "BF16")
                _tensix_text(m, ["TT_ZEROACC(3, 0, 0)", "TT_GMPOOL(((1) << 1) + 1, true, 0, true, 0)"])
                maxima[b, s:s + 16] = m.pack("BF16", rows=1, rounding=False).values[0]
                index[b, s:s + 16] = argmax_rows(m.dst[8])  # Dst32 row 0: low half at physical row 8
        best = maxima.argmax(axis=0)
        (rec, got), = [(r, g) for r, g in _rows(cmp, "tensix") if rounding in r["config"]]
        cols = np.arange(32)
        assert np.array_equal(got.values, maxima[best, cols])
        assert np.array_equal(got.index, 16 * best + index[best, cols])
        assert rec["instructions"] == "ZEROACC 2, GMPOOL 6"


@pytest.mark.parametrize("dtype", ["bf16", "fp16", "fp32"])
def test_tensix_elwmul_and_mvmul(dtype):
    """ELWMUL at each fidelity and MVMUL at HiFi4, one block each, as .tt-style programs: phases by AddrMod 1."""
    cmp = evaluate("elwmul", dtype=dtype, shape="8x16", seed=1)
    a, b = cmp.inputs
    fmt, out = {"bf16": ("BF16", {}), "fp16": ("FP16", {}), "fp32": ("FP32", {"out": "TF32"})}[dtype]
    code = {"bf16": 5, "fp16": 1, "fp32": 4}[dtype]
    for rec, got in _rows(cmp, "tensix"):
        phases = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}[rec["config"].split()[1].rstrip(",")]
        m = tensix.Machine(rec["config"].split()[-1]).configure(
            ALU_FORMAT_SPEC_REG0_SrcA=code, ALU_FORMAT_SPEC_REG1_SrcB=code, ALU_ACC_CTRL_Fp32_enabled=1,
            ADDR_MOD_DST_SEC1_FidelityIncr=1)
        m.unpack("srca", a, fmt, **out)
        m.unpack("srcb", b, fmt, **out)
        _tensix_text(m, ["TT_ZEROACC(3, 0, 0)"] + ["TT_ELWMUL(0, 1, 0, 1, 0)"] * (phases - 1) +
                     ["TT_ELWMUL(3, 1, 0, 1, 0)"])
        assert np.array_equal(got.values, m.pack("FP32", rows=8).values), rec["config"]
        assert rec["count"] == 1 + phases
    cmp = evaluate("gemm", dtype=dtype, shape="8x16x16", seed=2)
    a, b = cmp.inputs
    for rec, got in _rows(cmp, "tensix"):
        m = tensix.Machine(rec["config"].split()[-1]).configure(
            ALU_FORMAT_SPEC_REG0_SrcA=code, ALU_FORMAT_SPEC_REG1_SrcB=code, ALU_ACC_CTRL_Fp32_enabled=1,
            ADDR_MOD_DST_SEC1_FidelityIncr=1)
        m.unpack("srca", b, fmt, **out)  # MVMUL: Dst += SrcB @ SrcA, so SrcA holds B and SrcB holds A
        m.unpack("srcb", a, fmt, **out)
        _tensix_text(m, ["TT_ZEROACC(3, 0, 0)"] + [m_ for m_ in ["TT_MVMUL(0, 0, 1, 0)"] * 3] +
                     ["TT_MVMUL(3, 0, 1, 0)"])
        assert np.array_equal(got.values, m.pack("FP32", rows=8).values), rec["config"]


@pytest.mark.parametrize("dtype", ["bf16", "fp16", "fp32"])
@pytest.mark.parametrize("rounding", ["hardware", "doc"])
@pytest.mark.parametrize("fidelity", ["LoFi", "HiFi3"])
def test_tensix_batched_mvmul_equals_the_instruction_program(dtype, rounding, fidelity):
    """compare's batched MVMUL against the MVMUL program it stands for, run instruction by instruction on a
    Machine: two strips, three K-slices, and M = 72 (a second SrcB chunk of 8 rows); zeros and wide exponents."""
    rng = np.random.default_rng(7)
    a, b = (rng.standard_normal(s) * np.exp2(rng.integers(-12, 12, s)) for s in ((72, 48), (48, 32)))
    a[rng.random(a.shape) < 0.1] = 0
    if dtype == "fp16":
        a, b = np.clip(a, -6e4, 6e4), np.clip(b, -6e4, 6e4)
    got = tensix_compare.mvmul(a, b, dtype, fidelity, rounding)
    want = tensix_compare.mvmul_program(a, b, dtype, fidelity, rounding)
    assert got[1].dtype == want[1].dtype and np.array_equal(got[1], want[1])
    assert np.array_equal(got[0], want[0], equal_nan=True) and got[2] == want[2]


@pytest.mark.parametrize("op, shape", [("colmax", "40x24"), ("colargmax", "40x24"), ("elwmul", "24x40"),
                                       ("gemm", "24x40x56")])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_pto_and_ame_against_their_apis(op, shape, dtype):
    """PTO rows equal the op called on a tile of the same values; AME rows equal the GEMM runtime."""
    tshape = {"40x24": (48, 32), "24x40": (24, 48), "24x40x56": (24, 32, 48)}[shape]  # Tensix takes 16s
    x = "x".join(map(str, tshape))
    cmp = evaluate(op, dtype=dtype, shape=x, seed=4)
    ins = cmp.inputs
    dt = PTO_DT[dtype]
    for rec, got in _rows(cmp, "pto"):
        target = rec["config"].split()[-1]
        if op == "gemm":
            lb = pto.get_target(target).left_blayout or "row_major"
            (m, k), n = ins[0].shape, ins[1].shape[1]
            a = pto.Tile("left", dt, 32, 64, valid=(m, k), blayout=lb, slayout="row_major").fill(ins[0])
            b = pto.Tile("right", dt, 64, n, valid=(k, n), blayout="row_major", slayout="col_major").fill(ins[1])
            c = pto.Tile("acc", "f32", 32, n, valid=(m, n), blayout="col_major", slayout="row_major", fractal=1024)
            want = pto.tmatmul(c, a, b, target=target).valid_values
        elif op == "elwmul":
            a, b = pto.Tile.from_array(ins[0], dt), pto.Tile.from_array(ins[1], dt)
            want = pto.tmul(pto.Tile.from_array(np.zeros_like(ins[0]), dt), a, b, target=target).valid_values
        else:
            src = pto.Tile.from_array(ins[0], dt)
            if op == "colmax":
                want = pto.tcolmax(pto.Tile("vec", dt, 1, src.cols, valid=(1, 32)), src, target=target).valid_values[0]
            else:
                idx = pto.tcolargmax(pto.Tile("vec", "u32", 1, 32), src, target=target)
                assert np.array_equal(got.index, idx.valid_values[0])
                continue
        assert np.array_equal(got.values, want.astype(np.float64)), rec["config"]
    for rec, got in _rows(cmp, "ame"):
        want = gemm(ins[0], ins[1], ft=dtype, accumulation=rec["config"].split()[-1])
        assert np.array_equal(got.values, want.values) and rec["out_format"] == want.plan.acc.name


# ------------------------------------------------------------------ exact references against Fractions
def _round(x: Fraction, dt: str) -> float:
    bits = o.round_bits(x, PTO_DT[dt] if dt != "fp32" else "f32")
    return o.dec(bits, PTO_DT[dt] if dt != "fp32" else "f32")


@pytest.mark.parametrize("dtype", ["bf16", "fp16", "fp32"])
def test_exact_references(dtype):
    rng = np.random.default_rng(5)
    scale = 2.0 ** rng.integers(-12, 12, (6, 9))
    a = formats.quantize(rng.standard_normal((6, 9)) * scale, dtype)
    b = formats.quantize(rng.standard_normal((9, 5)) * scale[:, :5].repeat(2, 0)[:9], dtype)
    got = exact.round_once(exact.gemm_exact(a, b), dtype)
    for i in range(6):
        for j in range(5):
            s = sum(Fraction(a[i, k]) * Fraction(b[k, j]) for k in range(9))
            assert got[i, j] == _round(s, dtype), (i, j)
    p = exact.round_once(exact.product(a[:, :5], b[:6]), dtype)
    for i in range(6):
        for j in range(5):
            assert p[i, j] == _round(Fraction(a[i, j]) * Fraction(b[i, j]), dtype)
    # a tie in bf16 broken by a term far below float64's precision: the exact sum rounds up, float64 to even
    t = np.array([[1.0, 2.0**-60, 2.0**-8]]), np.ones((3, 1))
    assert exact.round_once(exact.gemm_exact(*t), "bf16")[0, 0] == _round(Fraction(1) + Fraction(1, 2**8) +
                                                                         Fraction(1, 2**60), "bf16") == 1 + 2**-7


def test_exact_gemm_takes_blas_only_where_the_certificate_holds():
    """BLAS's sums where a row's and a column's spans prove them exact, two fsums elsewhere: the same bits as
    two fsums everywhere, on bf16 values near 1, fp32 values (wide spans), 2**-60 beside 1, signed zeros that
    cancel, and a NaN."""
    rng = np.random.default_rng(6)
    for dtype in ("bf16", "fp32"):
        a = formats.quantize(rng.standard_normal((12, 40)), dtype)
        b = formats.quantize(rng.standard_normal((40, 10)), dtype)
        a[1, 3], a[2], b[:, 4] = 2.0**-60, -0.0, 0.0
        a[3, :2], b[:2, 5] = [1.0, -1.0], [2.0, 2.0]  # an exact zero through cancellation
        a[5, 9] = np.nan
        want = np.array([[exact._odd_sum((a[i] * b[:, j]).tolist()) for j in range(10)] for i in range(12)])
        got = exact.gemm_exact(a, b)
        fin = np.isfinite(want)
        assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got[fin]), np.signbit(want[fin]))


# ------------------------------------------------------------------ inputs built to differ
def test_argmax_reasons():
    """Ties in the first 8 rows, maxima in rows 8..15 of a block, ties across the window, a NaN column.

    GMPOOL visits a block's first eight rows in the order 4, 5, 6, 7, 0, 1, 2, 3: with the hardware's
    strict comparison the first visited of equal values wins, with the page's >= the last."""
    x = -(1 + np.arange(32)[:, None] / 64) * np.ones((1, 16))  # distinct, exact in bf16; row 0 the largest
    x[2, 0] = x[5, 0] = 4.0      # tie inside the window: hardware visits 5 first, doc ends on 2 (numpy: 2)
    x[12, 1] = 4.0               # the maximum outside GMPOOL's window
    x[3, 2] = x[12, 2] = 4.0     # a tie across the window: row 3 everywhere
    x[20, 3] = 4.0               # second block, inside its window
    x[16 + 9, 4] = 4.0           # second block, outside its window
    x[0, 5] = x[16, 5] = 4.0     # a tie across blocks: the first block wins
    records = {r["config"]: r for r in run("colargmax", x, dtype="bf16")}
    hw, doc, cpu = records["GMPOOL ArgMax, hardware"], records["GMPOOL ArgMax, doc"], records["TCOLARGMAX cpu"]
    assert (hw["idx_differ"], hw["idx_ties"], hw["idx_window"], hw["idx_other"]) == (3, 1, 2, 0)
    assert (doc["idx_differ"], doc["idx_ties"], doc["idx_window"], doc["idx_other"]) == (2, 0, 2, 0)
    assert cpu["idx_differ"] == 0
    x[7, 6] = np.nan             # numpy: the NaN's row; A2A3 drifts to the last row, CPU and A5 skip it
    records = {r["config"]: r for r in run("colargmax", x, dtype="fp16")}
    for target in ("cpu", "a2a3", "a5"):
        r = records[f"TCOLARGMAX {target}"]
        assert (r["idx_differ"], r["idx_nan"]) == (1, 1), (target, r)


def test_unsigned_argmax_as_floats():
    """A2A3 compares uint16 column-argmax inputs as fp16 bit patterns: 0x9000 is a negative float there."""
    x = np.array([[1, 5], [2, 0x7000], [0x9000, 3]] + [[0, 0]] * 13, np.float64)
    x = np.hstack([x] * 8)
    records = {r["config"]: r for r in run("colargmax", x, dtype="uint16")}
    assert records["TCOLARGMAX a2a3"]["idx_differ"] == 8 == records["TCOLARGMAX a2a3"]["idx_other"]
    assert records["TCOLARGMAX cpu"]["idx_differ"] == 0 == records["TCOLARGMAX a5"]["idx_differ"]
    assert records["GMPOOL ArgMax, hardware"]["ran"] == 0 and "unsigned" in records["GMPOOL ArgMax, doc"]["note"]


def test_values_that_need_hifi4():
    """bf16 operands whose low mantissa bits are set: LoFi and HiFi2 truncate them, HiFi4 is exact."""
    a = np.full((8, 16), 1.5)
    a[:, ::2] = 1 + 2.0**-7          # SrcA's low part: phases 1 and 3 read it
    b = np.full((8, 16), 1.25)
    b[:4] = 1 + 2.0**-7              # SrcB's low bit: phases 2 and 3 read it
    records = {r["config"]: r for r in run("elwmul", (a, b), dtype="bf16")}
    differ = {cfg.split()[1].rstrip(","): r["differ"] for cfg, r in records.items() if "hardware" in cfg}
    assert differ == {"LoFi": 8 * 16 - 4 * 8, "HiFi2": 4 * 16, "HiFi3": 4 * 8, "HiFi4": 0}
    assert records["TMUL cpu"]["differ"] == 0 and records["TMUL a2a3"]["ran"] == 0


# ------------------------------------------------------------------ errors and the command
@pytest.mark.parametrize("args, words", [
    (["sum"], "unknown operation 'sum'"),
    (["gemm", "-f", "int4"], "no machine compares gemm in 'int4'"),
    (["colmax", "--format", "fp64"], "bf16, fp16, fp32, uint16"),
    (["elwmul", "--dtype", "uint16"], "no machine compares elwmul in 'uint16'"),
    (["gemm", "--shape", "12x16x16"], "tensix cannot take 12x16x16 for gemm: MVMUL"),
    (["colmax", "--shape", "20x16"], "tensix cannot take 20x16 for colmax: GMPOOL"),
    (["elwmul", "--shape", "1024x16"], "at most 512 rows"),
    (["gemm", "--shape", "16x16x4112"], "pto cannot take 16x16x4112 for gemm: TMATMUL"),
    (["gemm", "--shape", "16x16"], "MxNxK"),
    (["colmax", "--output-format", "xml"], "unknown output format"),
])
def test_cli_errors(args, words):
    res = CliRunner().invoke(app, ["compare", *args])
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output, res.output


def test_api_input_errors():
    for op, inputs, words in (("gemm", (np.ones((16, 16)), np.ones((32, 16))), "K differs"),
                              ("elwmul", (np.ones((8, 16)), np.ones((16, 16))), "one shape"),
                              ("colmax", (np.ones((16, 16)), np.ones((16, 16))), "takes 1 input"),
                              ("colmax", np.ones(16), "2-D array")):
        with pytest.raises(TilesimError, match=words):
            run(op, inputs)


@pytest.mark.parametrize("op, options, words", [
    ("colmax", {"shape": (16, 16, 16)}, "not (R, C)"),
    ("colmax", {"shape": ()}, "not (R, C)"),
    ("colmax", {"shape": ("16", "16")}, "not (R, C)"),
    ("colmax", {"shape": (16.0, 16)}, "not (R, C)"),
    ("elwmul", {"shape": (-8, 16)}, "positive integers"),
    ("gemm", {"shape": (16, 16)}, "not (M, N, K)"),
    ("gemm", {"shape": (16, 16, True)}, "not (M, N, K)"),
    ("colmax", {"seed": 1.5}, "seed 1.5"),
    ("gemm", {"seed": "a"}, "seed 'a'"),
    ("elwmul", {"seed": -1}, "non-negative"),
])
def test_api_shape_and_seed_errors(op, options, words):
    """Shapes no machine can take, and seeds numpy would reject, are TilesimErrors naming the operand (issue 20)."""
    with pytest.raises(TilesimError, match=re.escape(words)) as e:
        run(op, **options)
    assert e.value.operand in ("shape", "seed")


def test_gemm_with_inf_and_minus_inf_in_one_sum():
    """+Inf and -Inf in one dot product: the exact reference is NaN (IEEE), not fsum's ValueError (issue 20)."""
    a, b = np.ones((16, 16)), np.ones((16, 16))
    a[0, 0], a[0, 1], a[1, 0] = np.inf, -np.inf, np.inf
    ref = exact.gemm_exact(a, b)
    assert np.isnan(ref[0]).all() and (ref[1] == np.inf).all() and (ref[2:] == 16).all()
    records = run("gemm", (a, b), dtype="fp32")
    assert {r["machine"] for r in records} >= {"tensix", "pto", "ame", "exact"}


def test_int64_inputs_round_once():
    """An int64 input is rounded once to the dtype: 2**54 + 2**30 + 1 is above fp32's tie, so it rounds up;
    through float64 first (2**54 + 2**30, a tie) it would round to even, down (issue 20)."""
    x = np.full((8, 16), 2**54 + 2**30 + 1, np.int64)
    cmp = evaluate("elwmul", (x, np.ones((8, 16), np.int64)), dtype="fp32")
    assert (cmp.inputs[0] == 2.0**54 + 2.0**31).all()


def test_cli(tmp_path):
    res = CliRunner().invoke(app, ["compare", "gemm", "--dtype", "fp16", "--shape", "16x16x32", "--csv",
                                   str(tmp_path / "t.csv"), "--plot", str(tmp_path / "t.png")])
    assert res.exit_code == 0, res.output
    assert "MVMUL HiFi4, hardware" in res.output and "TMATMUL a5" in res.output and "chain_then_add" in res.output
    rows = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    assert list(rows[0]) == [c for c, _ in COLUMNS] and len(rows) == 8
    assert [r["differ"] for r in rows if r["machine"] == "exact"] == ["0"]
    raw = (tmp_path / "t.png").read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", raw[16:20])[0] == 900
    res = CliRunner().invoke(app, ["compare", "colargmax", "--shape", "32x16", "--output-format", "json"])
    assert res.exit_code == 0 and '"idx_window"' in res.output
