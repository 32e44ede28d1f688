"""HiFloat8 (``hif8``) against an independent transcription of the paper's field rules (Luo et al., "Ascend
HiFloat8 Format for Deep Learning", arXiv 2409.16626, section 2: the dot field, sign-magnitude exponent
with an implicit leading 1, denormal mode 2**(M - 23), Inf and NaN codes): every code decoded, and
rounding in every mode checked against a Fraction nearest-value search over the same table."""

from __future__ import annotations

import bisect
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim import formats

HIF8 = formats.get("hif8")
#: the dot prefixes, as bit strings, and the exponent width each announces (paper, Table 1)
DOTS = (("11", 4), ("10", 3), ("01", 2), ("001", 1), ("0001", 0))


def paper_value(code: int):
    """The paper's value of a code: a Fraction, or "nan" / "+inf" / "-inf"."""
    bits = f"{code:08b}"
    neg, rest = bits[0] == "1", bits[1:]
    for dot, width in DOTS:
        if rest.startswith(dot):
            e_bits, m_bits = rest[len(dot):len(dot) + width], rest[len(dot) + width:]
            magnitude = int("1" + e_bits[1:], 2) if width else 0
            e = -magnitude if width and e_bits[0] == "1" else magnitude
            if width == 4 and e == 15 and m_bits == "1":
                return "-inf" if neg else "+inf"
            v = Fraction(2) ** e * (1 + Fraction(int(m_bits, 2), 2 ** len(m_bits)))
            return -v if neg else v
    m = int(rest[4:], 2)                    # dot 0000: the denormal mode
    if m == 0:
        return "nan" if neg else Fraction(0)
    v = Fraction(2) ** (m - 23)
    return -v if neg else v


VALUES = {c: paper_value(c) for c in range(256)}
FINITE = sorted({v for v in VALUES.values() if not isinstance(v, str)})
CODE_OF = {v: c for c, v in VALUES.items() if not isinstance(v, str)}
MAX = FINITE[-1]
INF_SLOT = Fraction(3, 2) * MAX             # where the Inf code's fields would put a value


def test_every_code_decodes_to_the_paper_value():
    got = formats.decode(np.arange(256, dtype=np.uint8), "hif8")
    for c in range(256):
        v = VALUES[c]
        if v == "nan":
            assert np.isnan(got[c]), hex(c)
        elif isinstance(v, str):
            assert got[c] == (np.inf if v == "+inf" else -np.inf), hex(c)
        else:
            assert Fraction(got[c]) == v, hex(c)
    p = formats.decode_exact(np.arange(256, dtype=np.uint8), "hif8")
    for c in range(256):
        if not isinstance(VALUES[c], str):
            assert Fraction(int(p.sig[c])) * Fraction(2) ** int(p.exp[c]) * (-1 if p.sign[c] else 1) == VALUES[c]


def test_the_format_record_states_the_papers_limits():
    assert (HIF8.max_exact, HIF8.min_normal_exact, HIF8.min_subnormal_exact) == (MAX, Fraction(1, 2 ** 15),
                                                                                  Fraction(1, 2 ** 22))
    assert MAX == 2 ** 15 and min(v for v in FINITE if v > 0) == Fraction(1, 2 ** 22)
    assert len(FINITE) == 2 * 126 + 1  # 253 distinct finite values: no -0
    assert (HIF8.nan_code, HIF8.inf_code, HIF8.has_negzero) == (0x80, 0x6F, False)


def oracle(x: Fraction | str, mode: str, saturate: bool = False) -> int:
    """The code the paper's rounding gives: the nearest table value (ties by the mode), a result past 2**15
    toward the Inf slot being Inf (or 2**15 when saturating, and for the directed modes that round toward it)."""
    if x == "nan":
        return 0x80
    if isinstance(x, str):
        return (0x6E if saturate else 0x6F) | (0x80 if x == "-inf" else 0)
    neg, a = x < 0, abs(x)
    table = FINITE[FINITE.index(0):] + [INF_SLOT]
    i = bisect.bisect_left(table, a)
    if a >= INF_SLOT:
        pick = MAX if mode == "rtz" or (mode == "rup" and neg) or (mode == "rdn" and not neg) else INF_SLOT
    elif table[i] == a:
        pick = a
    else:
        lo, hi = table[i - 1], table[i]
        up = {"rtz": False, "rup": not neg, "rdn": neg}.get(mode)
        if up is None:                      # nearest: ties away (rmm) or to the even multiple of the step
            twice = 2 * a - lo - hi
            up = twice > 0 or (twice == 0 and (mode == "rmm" or (hi / (hi - lo)) % 2 == 0))
        pick = hi if up else lo
    if pick == INF_SLOT:
        code = 0x6E if saturate else 0x6F
    else:
        code = CODE_OF[pick]
    return code | 0x80 if neg and code else code


def probes() -> list[float]:
    """Every finite value, the midpoints of neighbours and the float64s next to them, the range's ends."""
    vals = [float(v) for v in FINITE]
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])] + [float((MAX + INF_SLOT) / 2)]
    near = [np.nextafter(m, s) for m in mids for s in (-np.inf, np.inf)]
    return vals + mids + near + [1e6, 2.0 ** 16, 2.0 ** -23, 2.0 ** -40, 2.0 ** 15 * 1.5]


@pytest.mark.parametrize("mode", ["rne", "rtz", "rup", "rdn", "rmm"])
@pytest.mark.parametrize("saturate", [False, True])
def test_rounding_at_every_midpoint(mode, saturate):
    x = np.array(probes() + [-v for v in probes()] + [np.inf, -np.inf, np.nan])
    got = formats.encode(x, "hif8", rounding=mode, saturate=saturate)
    want = [oracle("nan" if v != v else ("+inf" if v == np.inf else "-inf") if abs(v) == np.inf else Fraction(v),
                   mode, saturate) for v in x]
    bad = [(float(v), hex(g), hex(w)) for v, g, w in zip(x, got, want) if g != w]
    assert not bad, bad[:5]


def test_every_f16_and_f32_probe_round_trip():
    """Every positive f16 code rounds (ties away) as the oracle says (negatives mirror them: the midpoint test);
    decode(encode(v)) is v for every table value."""
    x = np.arange(1 << 15, dtype=np.uint16).view(np.float16)
    got = formats.encode(x, "hif8", rounding="rmm")
    fin = np.isfinite(x)
    want = [oracle(Fraction(float(v)), "rmm") if f else None for v, f in zip(x, fin)]
    assert all(g == w for g, w, f in zip(got, want, fin) if f)
    assert (formats.encode(formats.decode(np.arange(256, dtype=np.uint8), "hif8"), "hif8")[np.arange(256) != 0x80]
            == np.arange(256)[np.arange(256) != 0x80]).all()


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=20),
       st.sampled_from(["rne", "rtz", "rup", "rdn", "rmm"]))
def test_any_float64(xs, mode):
    got = formats.encode(np.array(xs), "hif8", rounding=mode)
    for v, g in zip(xs, got):
        x = "nan" if v != v else ("+inf" if v > 0 else "-inf") if abs(v) == np.inf else Fraction(v)
        assert g == oracle(x, mode), (v, mode)
