"""The exact-sum engine (32-bit limbs) and the float64 shortcut's condition, against Fractions."""

from fractions import Fraction

import numpy as np
from hypothesis import given, strategies as st

from tilesim import formats
from tilesim.ame import exact
from tilesim.formats import Parts

FINITE, INF, NAN = 0, 1, 2

term = st.tuples(
    st.booleans(),                                                      # sign
    st.one_of(st.just(0), st.integers(1, 2**64 - 1), st.sampled_from([1, 2**63, 2**64 - 1, 3 << 40])),
    st.integers(-1200, 1200),                                           # exponent
    st.sampled_from([FINITE] * 12 + [INF, NAN]),
)


def _value(sign, sig, exp):
    return (-1) ** sign * Fraction(sig) * Fraction(2) ** exp


@given(st.lists(st.lists(term, min_size=1, max_size=9), min_size=1, max_size=6), st.booleans())
def test_exact_sum_matches_fractions(rows, rdn):
    width = max(len(r) for r in rows)
    pad = [(False, 0, 0, FINITE)] * width  # +0 terms change nothing but the zero sign
    rows = [r + pad[: width - len(r)] for r in rows]
    arr = [np.array([[t[i] for t in r] for r in rows], dtype=object) for i in range(4)]
    p = exact.exact_sum(Parts(arr[0].astype(bool), arr[1].astype(np.uint64), arr[2].astype(np.int64),
                              np.zeros(arr[0].shape, bool), arr[3].astype(np.int8)), rdn)
    for n, r in enumerate(rows):
        infs = {s for s, _, _, c in r if c == INF}
        if any(c == NAN for *_, c in r) or len(infs) == 2:
            assert p.cls[n] == NAN
            continue
        if infs:
            assert p.cls[n] == INF and bool(p.sign[n]) == infs.pop()
            continue
        s = sum(_value(sg, sig, e) for sg, sig, e, _ in r)
        sig, exp, sticky = int(p.sig[n]), int(p.exp[n]), bool(p.sticky[n])
        assert p.cls[n] == FINITE
        if s == 0:
            zeros = [sg for sg, sig_, _, _ in r if sig_ == 0]
            want_neg = (len(zeros) == len(r) and all(zeros)) or (rdn and not (len(zeros) == len(r) and not any(zeros)))
            assert sig == 0 and not sticky and bool(p.sign[n]) == want_neg
            continue
        assert bool(p.sign[n]) == (s < 0)
        lo = Fraction(sig) * Fraction(2) ** exp
        if sticky:  # truncated: the top 64 bits, something below them
            assert sig >= 2**63 and lo < abs(s) < lo + Fraction(2) ** exp
        else:
            assert lo == abs(s)


def test_products_split_equals_whole():
    rng = np.random.default_rng(3)
    a = formats.decode_exact(rng.integers(0, 2**63, 50, dtype=np.uint64), "fp64")
    b = formats.decode_exact(rng.integers(0, 2**63, 50, dtype=np.uint64), "fp64")
    split = exact.products(a, b, split=True)
    for i in range(50):
        if a.cls[i] == FINITE and b.cls[i] == FINITE:
            got = sum(_value(False, int(split.sig[i, j]), int(split.exp[i, j])) for j in range(4))
            assert got == Fraction(int(a.sig[i]) * int(b.sig[i])) * Fraction(2) ** int(a.exp[i] + b.exp[i])


def test_float64_bounds_cover_every_e4m3_to_fp16_instruction():
    # all products and C are multiples of 2^-24 below 2^23 in magnitude: 47 bits, always exact in float64
    e4m3, fp16, fp32 = (formats.get(n) for n in ("fp8_e4m3", "fp16", "fp32"))
    a = formats.decode(np.array([0x01, 0x7E, 0x81, 0xFE] * 4, np.uint8).reshape(1, 1, 16), e4m3)  # min sub, max
    c = formats.decode(np.array([[[0x0001, 0x7BFF]]], np.uint16), fp16)
    assert exact.float64_fused_exact(a, a, c, e4m3, fp16).tolist() == [[[True, True]]]
    # FP32 C values 2^-149 and 2^127 are 276 bits apart: no float64 shortcut for the result with the tiny C
    c32 = formats.decode(np.array([[[0x00000001, 0x7F000000, 0x3F800000]]], np.uint32), fp32)
    assert exact.float64_fused_exact(a, a, c32, e4m3, fp32).tolist() == [[[False, False, True]]]
    # a step of a chain adds one product, so the bound drops log2(16) = 4 bits
    assert exact.float64_grid(a, a, c, e4m3, fp16) == -24
    # E5M2 spans 2^-32 .. 2^36 with K = 16: not always exact
    e5m2 = formats.get("fp8_e5m2")
    w = formats.decode(np.array([0x01, 0x7B] * 8, np.uint8).reshape(1, 1, 16), e5m2)
    assert exact.float64_fused_exact(w, w, c, e5m2, fp16).tolist() == [[[False, False]]]
    assert exact.float64_fused_exact(a, a, np.array([[[np.inf, 1.0]]]), e4m3, fp16).tolist() == [[[False, True]]]
    assert exact.float64_grid(a, a, np.array([[[np.inf]]]), e4m3, fp16) is None


def test_float64_fused_bounds_are_per_result():
    """One wide row of A sends only its own results to the limbs (the rest stay in float64)."""
    bf16, fp32 = formats.get("bf16"), formats.get("fp32")
    a = np.ones((1, 3, 4))
    a[0, 1, 0] = 2.0 ** -120  # row 1 spans 2^-127 .. 2^1 in its products
    ok = exact.float64_fused_exact(a, np.ones((1, 2, 4)), np.zeros((1, 3, 2)), bf16, fp32)
    assert ok.tolist() == [[[True, True], [False, False], [True, True]]]
