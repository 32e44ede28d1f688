"""The pto-isa simulator's E1M2 (``fp4_e1m2_b1``, bias 1) against a Fraction oracle written from its
definition (pto-isa include/pto/cpu/MXTypes.hpp: 1 sign, 1 exponent, 2 mantissa bits, bias 1, every code
finite), and apart from the AME ``fp4_e1m2`` (bias 0)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tilesim import formats


def _value(code: int) -> Fraction:
    """E1M2 with bias 1: exponent 0 is subnormal, m/4 * 2**(1 - 1); exponent 1 is (1 + m/4) * 2**(1 - 1)."""
    sign = -1 if code & 8 else 1
    e, m = (code >> 2) & 1, code & 3
    return sign * (Fraction(m, 4) if e == 0 else 1 + Fraction(m, 4))


F = formats.get("fp4_e1m2_b1")


def test_every_code_decodes_to_the_oracle():
    got = formats.decode(np.arange(16, dtype=np.uint8), F)
    assert [Fraction(float(v)) for v in got] == [_value(c) for c in range(16)]
    assert np.signbit(got[8]) and not np.signbit(got[0])


def test_every_value_encodes_back_and_midpoints_round_to_even():
    codes = np.arange(16, dtype=np.uint8)
    assert formats.encode(formats.decode(codes, F), F).tolist() == codes.tolist()
    pos = [_value(c) for c in range(8)]
    for c, (lo, hi) in enumerate(zip(pos, pos[1:])):
        mid = (lo + hi) / 2
        want = c if c % 2 == 0 else c + 1  # ties to the even code
        assert int(formats.encode(np.array([float(mid)]), F)[0]) == want, float(mid)
        assert int(formats.encode(np.array([-float(mid)]), F)[0]) == want | 8


@pytest.mark.parametrize("x,code", [(1.75, 0x7), (1.9, 0x7), (100.0, 0x7), (-1e9, 0xF), (0.1, 0x0), (0.125, 0x0),
                                    (0.13, 0x1)])
def test_beyond_the_codes(x, code):
    """Finite format: magnitudes past 1.75 saturate to it (the FINITE domain's rule), tiny ones round to 0."""
    assert int(formats.encode(np.array([x]), F)[0]) == code


def test_not_the_ame_e1m2():
    ame = formats.get("fp4_e1m2")
    assert ame.bias == 0 and F.bias == 1 and F is not ame
    assert not F.ame_codes and F not in formats.AME_CODES.values()
    assert (formats.decode(np.arange(16, dtype=np.uint8), ame) == 2 * formats.decode(np.arange(16, dtype=np.uint8), F)).all()
