"""The numba kernels of :mod:`tilesim.pto.jit` against the numpy references they stand in for, bit for bit: every
way an operand broadcasts, tile views whose rows are not contiguous, NaN payloads, signed zeros, infinities and
subnormals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.pto import get_dtype, jit
from tilesim.pto import numerics as nx
from tilesim.pto.ops import reduce as rd

from .helpers import rand_bits

F32 = get_dtype("f32")
_SPECIAL = np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001,
                     0xFF812345, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x3F800000, 0xBF800000,
                     0x7F7FFFFF, 0xFF7FFFFF], np.uint32)


def _lanes(rng, shape, special: float = 0.1) -> np.ndarray:
    """f32 lanes: random bits over every binade, with the special codes mixed in at the rate ``special``."""
    x = rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)
    pick = rng.random(shape) < special
    x[pick] = rng.choice(_SPECIAL, int(pick.sum()))
    return x


def _finite(rng, shape) -> np.ndarray:
    """f32 lanes of moderate finite values (no NaN can come out of + - * / of two of them)."""
    return (rng.standard_normal(shape) * 4).astype(np.float32).view(np.uint32)


def _shapes(R: int, C: int) -> dict:
    """Operand shapes against an R x C result: the full tile, a row, a column and a scalar."""
    return {"full": (R, C), "row": (1, C), "col": (R, 1), "scalar": ()}


def _operand(rng, shape, make) -> np.ndarray:
    """A lane array of ``shape``; 2-D ones are views into a wider tile (rows not contiguous) half of the time."""
    if len(shape) == 2 and rng.random() < 0.5:
        wide = make(rng, (shape[0], shape[1] + 5))
        return wide[:, 2:2 + shape[1]]
    return make(rng, shape)


_EXACT = ("max", "min")  # answered on every input, NaNs included


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min"])
@pytest.mark.parametrize("a_shape, b_shape", [("full", b) for b in ("full", "row", "col", "scalar")]
                         + [(a, "full") for a in ("row", "col", "scalar")])
def test_binary_kernel_equals_the_exact_path_for_every_broadcast(op, a_shape, b_shape):
    rng = np.random.default_rng(hash((op, a_shape, b_shape)) % 2 ** 32)
    R, C = 13, 37
    shapes = _shapes(R, C)
    for make in (_finite, _lanes):
        a, b = _operand(rng, shapes[a_shape], make), _operand(rng, shapes[b_shape], make)
        out = np.full((R, C), 0xDEADBEEF, np.uint32)
        done = jit.run(op, a, b, out)
        want = nx.binary_exact(op, np.broadcast_to(a, (R, C)), np.broadcast_to(b, (R, C)), F32, x86=True)
        nan = np.isnan(want.view(np.float32))
        if op in _EXACT or not nan.any():
            assert done is True
            assert np.array_equal(out, want)
        else:  # a NaN result: the kernel says so, and every other lane is already right
            assert done is False
            assert np.array_equal(out[~nan], want[~nan])


@pytest.mark.parametrize("op", ["sqrt", "recip", "abs", "neg", "relu"])
def test_unary_kernel_equals_the_exact_path(op):
    rng = np.random.default_rng(len(op))
    for make in (_finite, _lanes):
        a = _operand(rng, (17, 40), make)
        if op == "sqrt" and make is _finite:
            a = a & np.uint32(0x7FFFFFFF)
        out = np.empty(a.shape, np.uint32)
        done = jit.run(op, a, None, out)
        want = nx.unary_exact(op, a, F32, x86=True)
        nan = np.isnan(want.view(np.float32))
        if op in ("abs", "neg", "relu") or not nan.any():
            assert done is True
            assert np.array_equal(out, want)
        else:
            assert done is False
            assert np.array_equal(out[~nan], want[~nan])


def test_abs_keeps_negative_zero_and_nans_as_x86_does():
    a = _SPECIAL.reshape(1, -1)
    out = np.empty_like(a)
    assert jit.run("abs", a, None, out)
    negative = (a.view(np.float32) < 0)
    assert np.array_equal(out, np.where(negative, a ^ np.uint32(0x80000000), a))
    assert out[0, 1] == 0x80000000 and out[0, 5] == 0xFFC00001


def test_kernels_refuse_what_they_do_not_take():
    a = np.zeros((4, 8), np.uint32)
    assert jit.run("add", a, a[:, ::2], np.empty((4, 4), np.uint32)) is None  # columns not contiguous
    assert jit.run("add", a, a, np.empty((2, 4, 8), np.uint32)) is None  # more than 2 dimensions
    assert jit.run("add", a, np.zeros((3, 8), np.uint32), np.empty((4, 8), np.uint32)) is None  # no broadcast
    assert jit.run("add", a[:, :1], a[:, 1:2], np.empty((4, 8), np.uint32)) is None  # neither has whole rows
    assert jit.run("add", a[::-1], a, np.empty((4, 8), np.uint32)) is None  # rows in reverse


def test_one_by_one_tiles_and_single_columns():
    """A 1 x 1 result, and an R x 1 one, where every operand both broadcasts and has the result's shape."""
    for shape in ((1, 1), (5, 1)):
        a = np.full(shape, 0x40000000, np.uint32)  # 2.0
        out = np.empty(shape, np.uint32)
        assert jit.run("sub", np.uint32(0x3F800000), a, out) is True  # 1 - 2
        assert (out == 0xBF800000).all()


@st.composite
def _tiles(draw):
    """An R x C lane array (sometimes a view whose rows are not contiguous), with NaN payloads and the rest of
    the special codes at a drawn rate, or none."""
    R, C = draw(st.integers(1, 24)), draw(st.integers(1, 45))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    special = draw(st.sampled_from([0.0, 0.02, 0.3]))
    x = _lanes(rng, (R, C + 3), special) if draw(st.booleans()) else rand_bits(rng, "f32", (R, C + 3))
    if not special:
        x = np.where(np.isnan(x.view(np.float32)), np.uint32(0x3F800000), x)
    return x[:, :C] if draw(st.booleans()) else np.ascontiguousarray(x[:, :C])


@settings(max_examples=150, deadline=None)
@given(_tiles())
def test_rowsum_kernel_equals_the_vectorised_loop(bits):
    assert np.array_equal(rd._vectorised_rowsum(bits), rd._vectorised_rowsum_exact(bits))


@settings(max_examples=150, deadline=None)
@given(_tiles(), st.sampled_from(["sum", "prod"]), st.integers(0, 1))
def test_sequential_kernel_equals_the_loop(bits, kind, axis):
    got = rd._sequential_x86(kind, bits, F32, F32, axis, acc_f32=False)
    want = rd._sequential_x86_loop(kind, bits, F32, F32, axis, acc_f32=False)
    assert np.array_equal(got, want)


def test_rowsum_of_negative_zeros_is_positive_zero():
    """Every partial sum starts from +0, so a row of -0 sums to +0 (numpy's reduce would give -0)."""
    bits = np.full((3, 19), 0x80000000, np.uint32)
    assert not rd._vectorised_rowsum(bits).any()
    assert not rd._sequential_x86("sum", bits, F32, F32, 0, acc_f32=False).any()


@pytest.mark.parametrize("name", ["exp", "log", "rsqrt"])
def test_certified_transcendental_writes_into_a_view(name):
    """The certificate's pass writes straight into a contiguous ``out``, through a temporary into a view."""
    rng = np.random.default_rng(11)
    x = _lanes(rng, (9, 21), 0.2)
    with np.errstate(invalid="ignore"):  # signaling NaNs quieted by the widening
        want = nx._transcendental_exact(name, nx.as_f32(x, F32).astype(np.float64), F32, False)
    wide = np.zeros((9, 30), np.uint32)
    for out in (np.zeros((9, 21), np.uint32), wide[:, 3:24]):
        with np.errstate(invalid="ignore"):
            nx._certified(name, x.view(np.float32), out)
        assert np.array_equal(out, want)
