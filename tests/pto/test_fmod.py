"""TFMOD and TFMODS (PTO123) against an exact oracle (``x - trunc(x / y) * y`` in Fractions, the dividend's sign
on a zero result), over every finite f16 dividend with a set of divisors and random f32/int lanes; the traps,
the skipped zero scalar on cpu and the refusals. The simulator's own values are in tests/pto/golden."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import SpecGapError

from . import oracle as o
from .helpers import lane, make_tile


def _fmod_bits(x: int, y: int, dt: str) -> int | None:
    """The exact fmod of two float codes; None where the result is NaN (NaN in, Inf dividend or zero divisor)."""
    a, b = o.dec(x, dt), o.dec(y, dt)
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or b == 0:
        return None
    if math.isinf(b) or a == 0:
        return x
    fa, fb = Fraction(a), Fraction(b)
    r = fa - math.trunc(fa / fb) * fb
    return o.round_bits(r, dt) if r != 0 else o.round_bits(("zero", a < 0), dt)


def _int_fmod(x: int, y: int) -> int:
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def _check(got, a, b, dt):
    for g, x, y in zip(got.ravel().tolist(), a.ravel().tolist(), b.ravel().tolist()):
        want = _fmod_bits(x, y, dt)
        if want is None:
            assert o.dec(g, dt) != o.dec(g, dt), (x, y)  # NaN
        else:
            assert g == want, (hex(x), hex(y), hex(g), hex(want))


@pytest.mark.parametrize("target", ("cpu", "a5"))
def test_f16_dividends_across_every_binade(target):
    codes = np.arange(1 << 16, dtype=np.uint16)
    a = codes[(codes & 0x7C00) != 0x7C00][::121][:512].reshape(8, 64)  # finite codes, every binade, both signs
    # 1, -3, 65504, 0.333 and (cpu: the NPUs flush it to a zero divisor) the smallest subnormal
    for y in (0x3C00, 0xC200, 0x7BFF, 0x3555) + ((0x0001,) if target == "cpu" else ()):
        b = np.full(a.shape, y, np.uint16)
        dst = make_tile(np.zeros_like(a), "f16")
        pto.tfmod(dst, make_tile(a, "f16"), make_tile(b, "f16"), target=target)
        got = dst.bits[: a.shape[0], : a.shape[1]]
        keep = np.ones(a.shape, bool)
        if target == "a5":  # subnormals flushed before the op: compare where both operands are normal
            keep = ((a & 0x7C00) != 0) & ((b & 0x7C00) != 0)
        _check(got[keep], a[keep], b[keep], "f16")


def test_random_f32_and_specials_on_cpu():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2 ** 32, (8, 64), dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2 ** 32, (8, 64), dtype=np.uint64).astype(np.uint32)
    b[0, :6] = [0, 0x80000000, 0x7F800000, 0x7FC00000, 0x00000001, 0x3F800000]
    dst = make_tile(np.zeros_like(a), "f32")
    pto.tfmod(dst, make_tile(a, "f32"), make_tile(b, "f32"), target="cpu")
    _check(dst.bits[:8, :64], a, b, "f32")


@pytest.mark.parametrize("dt", ("i8", "u16", "i32", "i64", "u64"))
def test_integer_fmod_and_fmods_on_cpu(dt):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 2 ** 63, (4, 32), dtype=np.uint64).astype(lane(dt)) * 7
    b = rng.integers(1, 100, (4, 32), dtype=np.uint64).astype(lane(dt))
    dst = make_tile(np.zeros_like(a), dt)
    pto.tfmod(dst, make_tile(a, dt), make_tile(b, dt), target="cpu")
    sv = lambda v: int(np.array([v], lane(dt)).view(pto.get_dtype(dt).np)[0])  # noqa: E731
    want = [[o.int_bits(_int_fmod(sv(x), sv(y)), dt) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    assert dst.bits[:4, :32].tolist() == want
    scalar = b[0, :1].view(pto.get_dtype(dt).np)[0]
    pto.tfmods(dst, make_tile(a, dt), scalar, target="cpu")
    assert dst.bits[:4, :32].tolist() == [[o.int_bits(_int_fmod(sv(x), sv(b[0, 0])), dt) for x in r] for r in a]


def test_zero_divisors():
    a = np.array([[5, 7]], np.uint32)
    z = np.zeros((1, 2), np.uint32)
    dst = make_tile(np.full((1, 2), 9, np.uint32), "i32")
    before = dst.bits.copy()
    with pytest.raises(SpecGapError, match="by zero") as e:  # C's % by zero traps in the simulator
        pto.tfmod(dst, make_tile(a, "i32"), make_tile(z, "i32"), target="cpu")
    assert e.value.rule == "pto.op.div_zero" and (dst.bits == before).all()
    pto.tfmods(dst, make_tile(a, "i32"), np.int32(0), target="cpu")  # the simulator skips a zero scalar
    assert (dst.bits == before).all()
    for target, kw in (("a5", {}), ("cpu", {"strict": True})):
        t = pto.get_target(target).with_(**kw) if kw else target
        with pytest.raises(SpecGapError):
            pto.tfmods(make_tile(np.zeros((1, 8), np.uint32), "f32"), make_tile(np.ones((1, 8), np.uint32), "f32"),
                       0.0, target=t)
    with pytest.raises(SpecGapError, match="INT_MIN|-2147483648") as e:
        pto.tfmods(dst, make_tile(np.array([[2 ** 31, 1]], np.uint32), "i32"), np.int32(-1), target="cpu")
    assert e.value.rule == "pto.op.div_overflow"
