"""The directed classes are what they claim, checked with exact arithmetic independent of tilesim."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim.errors import TilesimError
from tilesim.verify.commands import make_vectors
from tilesim.verify.hexfile import read_mem, write_hex

from .readmemh import readmemh


def _value(bits: int, exp_bits: int, man_bits: int) -> Fraction:
    """Exact value of a finite IEEE-style code (independent decode)."""
    sign = -1 if bits >> (exp_bits + man_bits) & 1 else 1
    e = bits >> man_bits & ((1 << exp_bits) - 1)
    m = bits & ((1 << man_bits) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    if e == 0:
        return sign * Fraction(m, 1 << man_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << man_bits)) * Fraction(2) ** (e - bias)


def _is_tie(x: Fraction, man_bits: int) -> bool:
    """x (normal range) lies halfway between two numbers with man_bits fraction bits."""
    if x == 0:
        return False
    a = abs(x)
    e = 0
    while a >= 2:
        a /= 2
        e += 1
    while a < 1:
        a *= 2
        e -= 1
    scaled = a * (1 << man_bits)
    return scaled.denominator == 2


def test_pto_tadd_f16_tie_vectors_are_ties():
    vs = make_vectors("pto", "tadd", n=1, dtype="f16", target="cpu", min_per_class=2, seed=9)
    tie_vectors = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert len(tie_vectors) >= 2
    for i in tie_vectors:
        r, c = (int(x) for x in vs.arrays["valid"][i][0])
        a, b = vs.arrays["src0"][i][:r, :c].ravel(), vs.arrays["src1"][i][:r, :c].ravel()
        ties = [_is_tie(_value(int(x), 5, 10) + _value(int(y), 5, 10), 10) for x, y in zip(a, b)
                if (int(x) >> 10 & 31) != 31 and (int(y) >> 10 & 31) != 31]
        assert any(ties)


def test_ame_fp16_tie_vectors_are_ties():
    vs = make_vectors("ame", "mmacc", n=1, ft="fp16", m=2, k=4, min_per_class=1, seed=2)
    for i, t in enumerate(vs.tags):
        if "tie" not in t:
            continue
        a, b, c = vs.arrays["a"][i][0], vs.arrays["b"][i][0], vs.arrays["c_in"][i][0]
        assert int(vs.arrays["imm"][i][0]) & 1 == 0                     # accumulates
        for r in range(2):
            for j in range(2):
                exact = _value(int(c[r, j]), 8, 23) + sum(_value(int(a[r, k]), 5, 10) * _value(int(b[j, k]), 5, 10)
                                                         for k in range(4))
                assert _is_tie(exact, 23)


def test_ame_int8_overflow_vectors_overflow():
    vs = make_vectors("ame", "mmacc", n=1, ft="int8", sat=1, m=4, k=8, seed=4)
    s8 = lambda v: v.astype(np.int8).astype(np.int64)                    # noqa: E731
    for i, t in enumerate(vs.tags):
        a, b, c = s8(vs.arrays["a"][i][0]), s8(vs.arrays["b"][i][0]), vs.arrays["c_in"][i][0].astype(np.int16)
        beta = int(vs.arrays["imm"][i][0]) & 1
        exact = a @ b.T + (0 if beta else c.astype(np.int64))
        out_of_range = bool(((exact > 32767) | (exact < -32768)).any())
        assert ("overflow" in t) == out_of_range
        assert ("saturation" in t) == out_of_range == bool(int(vs.arrays["mxstatus"][i][0]) & 8)


@settings(max_examples=max(20, settings().max_examples // 5), deadline=None)
@given(lane_bits=st.integers(1, 64), count=st.integers(1, 4), size=st.integers(1, 5), data=st.data())
def test_hex_write_read_and_readmemh_agree(tmp_path_factory, lane_bits, count, size, data):
    dt = np.uint8 if lane_bits <= 8 else np.uint16 if lane_bits <= 16 else np.uint32 if lane_bits <= 32 else np.uint64
    values = data.draw(st.lists(st.integers(0, (1 << lane_bits) - 1), min_size=count * size,
                                max_size=count * size))
    arr = np.array(values, dtype=np.uint64).astype(dt).reshape(count, size)
    path = tmp_path_factory.mktemp("hex") / "x.hex"
    write_hex(path, arr, lane_bits, ["header"], [f"vector {i}" for i in range(count)])
    assert readmemh(path) == values
    assert read_mem(path, count * size, lane_bits).values.tolist() == values


def test_tie_mask_matches_fractions():
    from tilesim import formats
    from tilesim.verify.stimulus.values import tie_mask, tie_values
    rng = np.random.default_rng(0)
    for name in ("fp16", "bf16", "fp8_e4m3", "fp4_e2m1", "int8", "q8_8", "fp32"):
        f = formats.get(name)
        x = np.concatenate([tie_values(f, rng, 50), rng.normal(0, 50, 50), [0.0, 1.0]])
        lo = formats.encode(x, f, rounding="rdn")
        hi = formats.encode(x, f, rounding="rup")
        want = [lo_ != hi_ and 2 * Fraction(float(v)) == Fraction(float(formats.decode(np.array([lo_]), f)[0]))
                + Fraction(float(formats.decode(np.array([hi_]), f)[0]))
                for v, lo_, hi_ in zip(x, lo, hi)]
        assert tie_mask(x, f).tolist() == want, name
        assert sum(want) >= 50


def _pto(op, n=12, **kw):
    return make_vectors("pto", op, n=n, seed=4, min_per_class=1, **kw)


def test_pto_tprint_text_is_the_source_values():
    vs = _pto("tprint")
    for i in range(vs.count):
        r, c = (int(x) for x in vs.arrays["valid"][i][0])
        raw = bytes(vs.arrays["text_out"][i][0].astype(np.uint8))
        text = raw.rstrip(b"\0").decode()
        assert raw[len(text):] == bytes(len(raw) - len(text))            # zero-padded
        nums = [float(w) for w in text.split("\n", 1)[1].split()]
        want = vs.arrays["src"][i][:r, :c].astype(np.uint16).view(np.float16).astype(float).ravel()
        assert len(nums) == r * c
        same = [a == b or (np.isnan(a) and np.isnan(b)) or (np.isfinite(b) and abs(a - b) <= 5.000001e-5)
                for a, b in zip(nums, want)]                             # printed to 4 decimals
        assert all(same)


def test_pto_tprefetch_leaves_dst_and_textract_takes_the_bottom_right_window():
    vs = _pto("tprefetch")
    assert (vs.arrays["dst_out"] == vs.arrays["dst"]).all()
    vs = _pto("textract")
    for i in range(vs.count):
        r, c = (int(x) for x in vs.arrays["valid"][i][1])
        src, dst, out = vs.arrays["src"][i], vs.arrays["dst"][i], vs.arrays["dst_out"][i]
        assert (out[:r, :c] == src[src.shape[0] - r:, src.shape[1] - c:]).all()
        out[:r, :c] = dst[:r, :c]
        assert (out == dst).all()


def test_pto_tgather_reads_src_at_each_index():
    vs = _pto("tgather")
    for i in range(vs.count):
        r, c = (int(x) for x in vs.arrays["valid"][i][2])
        src, idx = vs.arrays["src"][i].ravel(), vs.arrays["indices"][i].astype(np.uint32).view(np.int32)
        for y in range(r):
            for x in range(c):
                k = int(idx[y, x])
                assert int(vs.arrays["dst_out"][i][y, x]) == (int(src[k]) if 0 <= k < src.size else 0)


@pytest.mark.parametrize("op,dtype", [("trem", "f16"), ("trem", "i32"), ("trems", "f32"), ("trems", "i16")])
def test_pto_trem_divisors_are_never_zero(op, dtype):
    vs = _pto(op, n=30, dtype=dtype, target="a5")
    d = vs.arrays["src1"] if op == "trem" else vs.arrays["scalar"]
    assert (d != 0).all()
    if dtype == "f16":                                           # nor -0 or subnormal
        assert ((d.astype(np.uint16) & 0x7C00) != 0).all()
    assert {"zero", "partial_valid"} <= {c for t in vs.tags for c in t}


def test_pto_fixed_signature_ops_reject_another_dtype():
    assert _pto("tconcat", n=1, dtype="f16").config["dtype"] == ["f16"]
    with pytest.raises(TilesimError) as e:
        _pto("tconcat", n=1, dtype="f32")
    assert e.value.rule == "verify.pto.dtype" and "f16" in str(e.value)


def test_pto_tinsert_on_a2a3_is_acc_f32_into_a_mat_f16_window():
    """A2A3 TINSERT has only the acc -> mat path, f32 -> f16 (PTO43): the stimulus uses it, and each
    output is src rounded to f16 (numpy's cast as the oracle) at the window, the rest of dst kept."""
    vs = _pto("tinsert", n=6, target="a2a3")
    assert vs.config["target"] == "a2a3"
    for i in range(vs.count):
        r, c = (int(x) for x in vs.arrays["valid"][i][0])          # src's valid region
        src = vs.arrays["src"][i].astype(np.uint32).view(np.float32)
        before, after = vs.arrays["dst"][i], vs.arrays["dst_out"][i]
        r0, c0 = 16 - r, 16 - c
        with np.errstate(all="ignore"):
            want = src[:r, :c].astype(np.float16)
        got = after[r0:, c0:].astype(np.uint16)
        nan = np.isnan(want)                                          # any NaN code (PTO6)
        assert (got[~nan] == want.view(np.uint16)[~nan]).all() and np.isnan(got.view(np.float16)[nan]).all()
        keep = np.ones(after.shape, bool)
        keep[r0:, c0:] = False
        assert (after[keep] == before[keep]).all()


# -- --dist, --range, --weight (decision V17) ------------------------------------------------------------

def _dst32_values(a):
    """FP32 values of Dst32 datums from physical 16-bit rows (high half in rows with bit 3 clear)."""
    from tilesim.tensix import layouts
    rows = np.arange(a.shape[1])
    hi, lo = a[:, rows[rows & 8 == 0]].astype(np.uint64), a[:, rows[rows & 8 != 0]].astype(np.uint64)
    bits = layouts.dst32_to_fp32((hi << np.uint64(16)) | lo).astype(np.uint32)
    return bits.view(np.float32)


def test_default_float_stimulus_is_mostly_finite():
    from tilesim import formats
    vs = make_vectors("ame", "mmacc", ft="bf16", tiling="2x2", n=300, seed=1)
    c = formats.decode(vs.arrays["c"], formats.get(vs.operand("c").fmt))
    assert np.isfinite(c).mean() >= 0.9
    assert vs.config["stimulus"] == {"dist": "default", "range": None, "weights": {}}
    t = make_vectors("tensix", "elwmul", n=100, seed=1)
    assert np.isfinite(_dst32_values(t.arrays["dst_out"])).mean() >= 0.9
    bits = make_vectors("ame", "mmacc", ft="bf16", tiling="2x2", n=100, seed=1, dist="bits")
    assert np.isfinite(formats.decode(bits.arrays["c"], formats.get("fp32"))).mean() < 0.9   # why the default moved


@pytest.mark.parametrize("dist", ["bits", "normal", "exp-uniform", "edge"])
@pytest.mark.parametrize("fmt", ["bf16", "fp8_e4m3", "fp4_e2m1", "int8", "uint4", "e8m0", "fp32"])
def test_every_dist_draws_codes_of_the_format(dist, fmt):
    from tilesim import formats
    from tilesim.verify.stimulus.dist import Dist
    from tilesim.verify.stimulus.values import measure
    f = formats.get(fmt)
    codes = Dist.make(dist).codes(f, np.random.default_rng(3), (400,))
    assert codes.dtype == f.dtype and codes.shape == (400,)
    formats.decode_exact(codes, f)                         # every one a valid code
    m = measure(codes, f)
    if dist == "edge":
        special = np.zeros(400, bool)
        for v in m.values():
            special |= v
        assert special.all()                              # every element in a value class
    elif f.is_float:
        assert not (m.get("nan", False) | m.get("inf", False)).any()


@pytest.mark.parametrize("fmt", ["bf16", "fp8_e5m2", "int8", "uint8", "q8_8"])
def test_range_keeps_values_inside(fmt):
    from tilesim import formats
    from tilesim.verify.stimulus.dist import Dist
    f = formats.get(fmt)
    for dist in ("bits", "normal", "exp-uniform"):
        c = Dist.make(dist, range="-3:5").codes(f, np.random.default_rng(0), (500,))
        v = formats.decode_int(c, f) if f.is_integer and f.frac_bits == 0 else formats.decode(c, f)
        assert (v >= -3).all() and (v <= 5).all() and len(np.unique(v)) > 3


def test_weights_plant_their_class_at_about_their_rate():
    from tilesim import formats
    from tilesim.verify.stimulus.dist import Dist
    from tilesim.verify.stimulus.values import measure
    f = formats.get("bf16")
    c = Dist.make("normal", weights="nan=0.2,subnormal=0.1").codes(f, np.random.default_rng(0), (5000,))
    m = measure(c, f)
    assert 0.17 < m["nan"].mean() < 0.23 and 0.07 < m["subnormal"].mean() < 0.13


@pytest.mark.parametrize("args,rule", [
    (["--dist", "uniform"], "verify.opt.dist"), (["--range", "5:1"], "verify.opt.range"),
    (["--range", "a:b"], "verify.opt.range"), (["--weight", "tie=0.1"], "verify.opt.weight"),
    (["--weight", "nan=0.7,inf=0.7"], "verify.opt.weight"), (["--range", "0.1:0.2", "--ft", "fp4_e2m1"],
                                                            "verify.opt.range"),
])
def test_bad_stimulus_options(args, rule, tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    r = CliRunner().invoke(app, ["vectors", "ame", "mmacc", "--n", "2", *args, "-o", str(tmp_path / "v")])
    assert r.exit_code == 2 and rule in r.output, r.output
    r = CliRunner().invoke(app, ["vectors", "formats", "decode", "--dist", "edge", "-o", str(tmp_path / "v")])
    assert r.exit_code == 2 and "verify.option" in r.output


@pytest.mark.parametrize("op", ["elwmul", "mvmul", "gapool", "elwadd"])
@pytest.mark.parametrize("style", ["BF16", "FP16"])
def test_tensix_tie_vectors_round_exact_ties(op, style):
    """Every element a tie vector writes is an exact product (or sum) of its inputs that lies halfway between
    two Dst16 values, rounded away from zero (the hardware model); checked with the format core's RMM."""
    from tilesim import formats
    from tilesim.tensix import layouts
    from tilesim.verify.stimulus.values import tie_mask
    vs = make_vectors("tensix", op, n=1, seed=4, srca=style, dst32=False)
    assert "tie" in vs.classes
    fmt = formats.get(style.lower())
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        a = np.unique(np.abs(layouts.src_values(vs.arrays["srca"][i], style)))
        b = np.unique(np.abs(layouts.src_values(vs.arrays["srcb"][i], style)))
        a, b = a[a != 0], b[b != 0]
        exact = np.unique((a[:, None] + b[None, :]) if op == "elwadd" else (a[:, None] * b[None, :]))
        exact = exact[tie_mask(exact, fmt)]
        assert exact.size
        allowed = set(formats.decode(formats.encode(exact, fmt, rounding="rmm"), fmt).tolist())
        before = layouts.dst16_values(vs.arrays["dst"][i], style)
        after = layouts.dst16_values(vs.arrays["dst_out"][i], style)
        written = np.abs(after[(after != before)])
        assert written.size and set(written.tolist()) <= allowed


@pytest.mark.parametrize("op,dtype", [("trowsum", "f16"), ("tcolsum", "f32"), ("trowprod", "f32"),
                                      ("tcolprod", "f16"), ("tmatmul", "f32,f16,f16"),
                                      ("tmatmul_acc", "f32,bf16,bf16"), ("tmatmul_bias", "f32,f32,f32")])
def test_pto_reduce_and_matmul_tie_vectors_are_ties(op, dtype):
    """The exact results (float64 is exact here: two nonzero terms per result) lie halfway between two codes
    of the result format, and the op's output is one of the two."""
    from tilesim import formats
    from tilesim.verify.stimulus.values import tie_mask
    vs = make_vectors("pto", op, n=1, seed=6, dtype=dtype, target="a5")
    assert "tie" in vs.classes
    ops = {o.name: o for o in vs.operands}
    fmt = lambda name: formats.get(ops[name].fmt)  # noqa: E731
    for i in [i for i, t in enumerate(vs.tags) if "tie" in t]:
        dst = fmt("dst_out")
        if op.startswith("tmatmul"):
            a = formats.decode(vs.arrays["a"][i], fmt("a"))
            b = formats.decode(vs.arrays["b"][i], fmt("b"))
            exact = a @ b
            rows, cols = exact.shape
        else:
            x = formats.decode(vs.arrays["src"][i], fmt("src"))
            reduce = np.sum if op.endswith("sum") else np.prod
            exact = reduce(x, axis=1 if op.startswith("trow") else 0)
            rows, cols = (exact.size, 1) if op.startswith("trow") else (1, exact.size)
        exact = exact.reshape(rows, cols)
        out = vs.arrays["dst_out"][i][:rows, :cols]
        assert tie_mask(exact.reshape(-1), dst).all()
        lo = formats.encode(exact, dst, rounding="rdn")
        hi = formats.encode(exact, dst, rounding="rup")
        assert ((out == lo) | (out == hi)).all()


#: PTO ops whose results never need a tie class (decision V18), by reason; every other op must have one
_EXACT = {"trowmax", "trowmin", "tcolmax", "tcolmin", "trowargmax", "trowargmin", "tcolargmax", "tcolargmin",
          "trowexpand", "tcolexpand", "trowexpandmax", "trowexpandmin", "tcolexpandmax", "tcolexpandmin", "tmax",
          "tmin", "tmaxs", "tmins", "tpartmax", "tpartmin", "tabs", "tneg", "trelu", "texpands", "tcmp", "tcmps",
          "tsel", "tsels", "tload", "tstore", "trem", "trems", "tci", "ttri", "tconcat", "textract", "tinsert",
          "tmov", "tfillpad", "tfillpad_expand", "tfillpad_inplace", "tgather", "thistogram", "tmrgsort", "tsort32",
          "tpack", "tprefetch", "tprint", "trandom", "tcvt",     # tcvt: its default f32 -> f32; narrowing pairs tie
          "tand", "tands", "tor", "tors", "txor", "txors", "tnot", "tshl", "tshls", "tshr", "tshrs", "ttrans",
          "tinterleave", "tdeinterleave", "tfmod", "tfmods",     # bit ops, moves and fmod: exact
          "tpartargmax", "tpartargmin", "treshape", "tsubview", "tgatherb", "timg2col", "tprefetch_async",
          "tscatter", "mgather", "mscatter"}
_NO_MIDPOINT = {"tdiv", "tdivs", "trowexpanddiv", "tcolexpanddiv", "tsqrt", "trsqrt", "trecip"}
_TRANSCENDENTAL = {"texp", "tlog", "trowexpandexpdif", "tcolexpandexpdif", "tpow", "tpows"}
#: ops that round but whose stimulus plants no tie yet (their vectors keep sums and sources in range instead)
_UNPLANTED = {"tadddeqrelu", "taddreluconv", "tsubreluconv", "tquant_mx"}


def test_every_rounding_pto_op_has_a_tie():
    from tilesim.verify.stimulus.pto import OPS, _classes, _signature
    groups = (_EXACT, _NO_MIDPOINT, _TRANSCENDENTAL, _UNPLANTED)
    assert sum(map(len, groups)) == len(set().union(*groups))
    without = {op for op in OPS if "tie" not in _classes(op, _signature(op, "a5", None), "a5")}
    assert without == set().union(*groups)
    for op in ("tadd", "tpartadd", "trowsum", "tcolprod", "tmatmul", "tmatmul_bias", "taddc", "taxpy", "tdequant",
               "textract_fp", "tinsert_fp", "tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias", "taddsc",
               "tpairreducesum"):
        assert any("tie" in t for t in make_vectors("pto", op, n=1, seed=1).tags), op


def test_tensix_int8_math_vectors():
    """INT8 math (ALU_ACC_CTRL_INT8_math_enabled): sign-magnitude Src datums, an INT32 Dst; ELWADD writes sums."""
    from tilesim.tensix import layouts
    vs = make_vectors("tensix", "elwadd", n=6, seed=2, srca="INT8")
    assert vs.config["int8_math"] and vs.config["style"] == "INT8"
    assert vs.operand("dst_out").fmt == "tt.dst32rows.INT32" and vs.operand("srca").fmt == "tt.src.INT8"
    assert {"zero", "min_normal", "max_normal", "accumulate"} <= set(vs.classes)
    rows = np.arange(64)
    for i, tags in enumerate(vs.tags):
        a = layouts.src_read_int8(vs.arrays["srca"][i])
        b = layouts.src_read_int8(vs.arrays["srcb"][i])
        assert np.abs(a).max() <= 127 and np.abs(b).max() <= 127
        if "accumulate" in tags:
            continue
        pair = lambda d: layouts.dst32_to_int(  # noqa: E731
            (d[rows[rows & 8 == 0]].astype(np.uint64) << np.uint64(16)) | d[rows[rows & 8 != 0]])
        before, after = pair(vs.arrays["dst"][i]), pair(vs.arrays["dst_out"][i])
        written = after[after != before]
        sums = set((a.reshape(-1)[:, None] + np.unique(b)[None, :]).reshape(-1).tolist())
        assert written.size and set(written.tolist()) <= sums


def test_tensix_int8_math_refuses_mixed_or_16_bit_dst(tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    for extra in (["--srcb", "BF16"], ["--dst16"]):
        r = CliRunner().invoke(app, ["vectors", "tensix", "elwmul", "--srca", "INT8", *extra, "-o", str(tmp_path)])
        assert r.exit_code == 2 and "verify.tensix.style" in r.output


@pytest.mark.parametrize("op,dtype", [("taddc", "f16"), ("taddc", "f32"), ("taxpy", "f16,f32"), ("taxpy", "f16,f16")])
@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_pto_taddc_and_taxpy_tie_vectors_are_ties(op, dtype, target):
    from tilesim import formats
    from tilesim.verify.stimulus.values import tie_mask
    vs = make_vectors("pto", op, n=1, seed=3, dtype=dtype, target=target)
    fmt = {o.name: formats.get(o.fmt) for o in vs.operands if o.fmt != "bits"}
    for i in [i for i, t in enumerate(vs.tags) if "tie" in t]:
        val = lambda n: formats.decode(vs.arrays[n][i], fmt[n])  # noqa: E731
        exact = val("src0") + val("src1") + val("src2") if op == "taddc" else val("dst") + val("src") * val("scalar")[0]
        r, c = vs.arrays["valid"][i][0]
        exact, out = exact[:r, :c], vs.arrays["dst_out"][i][:r, :c]
        assert tie_mask(exact.reshape(-1), fmt["dst_out"]).all()
        lo, hi = (formats.encode(exact, fmt["dst_out"], rounding=m) for m in ("rdn", "rup"))
        assert ((out == lo) | (out == hi)).all()


def test_pto_tquant_tie_vectors_are_ties():
    from tilesim import formats
    from tilesim.verify.stimulus.values import tie_mask
    vs = make_vectors("pto", "tquant", n=1, seed=3, target="cpu")
    i8, f32 = formats.get("int8"), formats.get("fp32")
    for i in [i for i, t in enumerate(vs.tags) if "tie" in t]:
        r, c = vs.arrays["valid"][i][0]
        exact = formats.decode(vs.arrays["src"][i], f32)[:r, :c] * formats.decode(vs.arrays["fp"][i], f32)[:r, :1]
        assert tie_mask(exact.reshape(-1), i8).all()
        got = formats.decode_int(vs.arrays["dst_out"][i][:r, :c], i8)
        assert (np.abs(got - exact) == 0.5).all()


def _ties_rounded(vs, exact: np.ndarray, out: np.ndarray) -> None:
    """Every exact result is a midpoint of dst's format and the output is one of its two neighbours."""
    from tilesim import formats
    from tilesim.verify.stimulus.values import tie_mask
    dst = formats.get(vs.operand("dst_out").fmt)
    assert exact.size and tie_mask(exact.reshape(-1), dst).all()
    lo, hi = (formats.encode(exact, dst, rounding=m) for m in ("rdn", "rup"))
    assert ((out == lo) | (out == hi)).all()


@pytest.mark.parametrize("dtype,target", [(None, "a5"), ("i8,f32", "a2a3"), ("f32,f16", "cpu"), ("u8,f16", "cpu"),
                                          ("i32,f32", "cpu")])
def test_pto_tdequant_tie_vectors_are_ties(dtype, target):
    """(src - offset) x scale, with the row's parameters, exact in float64 (a whole difference times one scale)."""
    from tilesim import formats
    vs = make_vectors("pto", "tdequant", n=1, seed=4, dtype=dtype, target=target)
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        val = lambda n: formats.decode(vs.arrays[n][i], vs.operand(n).fmt)  # noqa: E731
        r, c = vs.arrays["valid"][i][0]
        exact = (val("src")[:r, :c] - val("offset")[:r, :1]) * val("scale")[:r, :1]
        _ties_rounded(vs, exact, vs.arrays["dst_out"][i][:r, :c])


def _quant_scale(words: np.ndarray) -> np.ndarray:
    """The vector quant word's scale, bits 13..31 (sign, 8-bit exponent, 10-bit mantissa), read here apart."""
    w = words.astype(object)
    return np.array([(-1) ** (x >> 31 & 1) * (1 + (x >> 13 & 0x3FF) / 1024) * 2.0 ** ((x >> 23 & 0xFF) - 127)
                     for x in w])


@pytest.mark.parametrize("op", ["textract_fp", "tinsert_fp"])
@pytest.mark.parametrize("target", ["a5", "a2a3", "cpu"])
def test_pto_window_fp_tie_vectors_are_ties(op, target):
    """src x the column's scale + its offset lies halfway between two int8 values; the output is one of them."""
    from tilesim import formats
    vs = make_vectors("pto", op, n=1, seed=4, target=target)
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        (sr, sc), _, (dr, dc) = vs.arrays["valid"][i]
        r, c = (dr, dc) if op == "textract_fp" else (sr, sc)       # the window
        words = vs.arrays["fp"][i][0].astype(np.uint64)
        c0 = sc - c if op == "textract_fp" else 0                  # the window's first src column
        src = formats.decode(vs.arrays["src"][i], "fp32")[sr - r:sr, c0:c0 + c]
        cols = slice(c0, c0 + c)
        exact = src * _quant_scale(words[cols]) + (words[cols] >> np.uint64(37) & np.uint64(0x1FF)).astype(float)
        out = vs.arrays["dst_out"][i]
        out = out[:r, :c] if op == "textract_fp" else out[dr - r:dr, dc - c:dc]
        _ties_rounded(vs, exact, out)


@pytest.mark.parametrize("op", ["tstore_fp", "tmov_fp"])
@pytest.mark.parametrize("target", ["a5", "a2a3", "cpu"])
def test_pto_store_move_fp_tie_vectors_are_ties(op, target):
    """src x the scale + the offset (one quant word repeated) lies halfway between two int8 values."""
    from tilesim import formats
    vs = make_vectors("pto", op, n=1, seed=4, target=target)
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        (r, c), _, _ = vs.arrays["valid"][i]
        words = vs.arrays["fp"][i][0].astype(np.uint64)
        assert (words == words[0]).all()
        src = formats.decode(vs.arrays["src"][i], "fp32")[:r, :c]
        exact = src * _quant_scale(words[:1]) + float(words[0] >> np.uint64(37) & np.uint64(0x1FF))
        _ties_rounded(vs, exact, vs.arrays["dst_out"][i][:r, :c])


@pytest.mark.parametrize("op", ["tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias"])
@pytest.mark.parametrize("target", ["a5", "cpu"])
def test_pto_matmul_mx_tie_vectors_are_ties(op, target):
    """sum_k a[i, k] b[k, j] 2^(sa[i, k // 32] - 127) 2^(sb[k // 32, j] - 127) (E8M0 read here apart), exact in
    float64 (three terms within 2^25), is a midpoint of f32; C = 0 and bias 0 add nothing."""
    from tilesim import formats
    vs = make_vectors("pto", op, n=1, seed=4, target=target)
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        val = lambda n: formats.decode(vs.arrays[n][i], vs.operand(n).fmt)  # noqa: E731
        a, b = val("a"), val("b")
        r, c = vs.arrays["valid"][i][-1]
        sa = 2.0 ** (vs.arrays["a_scale"][i].astype(float) - 127)
        sb = 2.0 ** (vs.arrays["b_scale"][i].astype(float) - 127)
        g = np.arange(64) // 32
        exact = np.einsum("ik,kj,ik,kj->ij", a[:r, :64], b[:64, :c], sa[:r, g], sb[g, :c])
        for name in ("c_in", "bias"):
            if name in vs.arrays:
                assert not vs.arrays[name][i].any()
        _ties_rounded(vs, exact, vs.arrays["dst_out"][i][:r, :c])


#: the exact result of each composite op of issue 21 from its inputs (v: name -> values), before its rounding
_TWO_STEP_EXACT = {
    "taddsc": lambda v: v["src0"] + v["scalar"] + v["src1"], "tsubsc": lambda v: v["src0"] - v["scalar"] + v["src1"],
    "tsubrelu": lambda v: v["src0"] - v["src1"], "tlrelu": lambda v: v["src"] * v["scalar"],
    "tprelu": lambda v: v["src0"] * v["src1"], "tmuladddst": lambda v: v["src0"] * v["src1"] + v["dst"],
    "tfusedmuladd": lambda v: v["src0"] * v["dst"] + v["src1"],
    "tfusedmuladdrelu": lambda v: v["src0"] * v["dst"] + v["src1"],
    "tpairreducesum": lambda v: v["src"][:, 0::2] + v["src"][:, 1::2],
}


@pytest.mark.parametrize("op", sorted(_TWO_STEP_EXACT))
@pytest.mark.parametrize("target,dtype", [("a5", None), ("a5", "f16"), ("cpu", "f16"), ("cpu", "bf16")])
def test_pto_two_step_tie_vectors_are_ties(op, target, dtype):
    """float64 is exact here (two nonzero terms, or a product of 12-bit significands); tlrelu and tprelu take
    the slope's branch (negative sources), the ReLU ops' results are positive."""
    from tilesim import formats
    vs = make_vectors("pto", op, n=1, seed=4, target=target, dtype=dtype)
    ties = [i for i, t in enumerate(vs.tags) if "tie" in t]
    assert ties
    for i in ties:
        r, c = vs.arrays["valid"][i][0]
        v = {o.name: formats.decode(vs.arrays[o.name][i], o.fmt) for o in vs.operands if o.role == "input"
             and o.name != "valid"}
        v = {k: x if k == "scalar" else x[:r, :c] for k, x in v.items()}
        if "scalar" in v:
            v["scalar"] = v["scalar"][0]
        exact = _TWO_STEP_EXACT[op](v)
        if op in ("tlrelu", "tprelu"):
            assert (v["src" if op == "tlrelu" else "src0"] < 0).all()
        _ties_rounded(vs, exact, vs.arrays["dst_out"][i][: exact.shape[0], : exact.shape[1]])
