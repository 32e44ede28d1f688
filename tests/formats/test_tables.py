"""The table-driven paths must equal the exact paths they are built from."""

import numpy as np
import pytest

from tilesim import formats
from tilesim.formats import tables
from tilesim.formats.codec import _encode_parts, to_parts

FLOATS = [f for f in formats.all_formats() if f.is_float]
MODES = ["rne", "rtz", "rup", "rdn", "rmm"]


def exact(x, f, mode, sat=False, flush=False):
    c, fl = _encode_parts(to_parts(x), f, formats.Rounding.of(mode), sat, flush, True)
    return c, fl.bits()


def inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    ut = np.dtype(f"u{np.dtype(dtype).itemsize}")
    raw = rng.integers(0, np.iinfo(ut).max, n, dtype=ut, endpoint=True).view(dtype)
    near = (rng.standard_normal(n) * 2.0 ** rng.integers(-30, 30, n)).astype(dtype)
    return np.concatenate([raw, near])


@pytest.mark.parametrize("f", [f for f in FLOATS if tables.has_encode_table(np.float16, f)], ids=lambda f: f.name)
def test_every_float16_input(f):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    for mode in MODES:
        for sat in (False, True):
            c, b = formats.encode(x, f, mode, saturate=sat, return_flags=True)
            ce, be = exact(x, f, mode, sat)
            assert (c == ce).all() and (b.bits() == be).all(), (f.name, mode, sat)


# Building each of the 15 tables of these pairs takes most of a second: 10 s a pair, so they run under -m slow.
BIG_TABLES = {("tf32", "float32"), ("uf16_e8m8", "float64")}


@pytest.mark.parametrize("f, dtype", [
    pytest.param(f, d, id=f"{f.name}-{d.__name__}",
                 marks=[pytest.mark.slow] if (f.name, d.__name__) in BIG_TABLES else [])
    for f in FLOATS for d in (np.float32, np.float64)])
def test_random_inputs(f, dtype):
    if not tables.has_encode_table(dtype, f):
        pytest.skip("no table for this pair")
    x = inputs(dtype, 100_000, seed=f.bits)
    for mode in MODES:
        for sat, flush in ((False, False), (True, False), (False, True)):
            c, b = formats.encode(x, f, mode, saturate=sat, flush_subnormals=flush, return_flags=True)
            ce, be = exact(x, f, mode, sat, flush)
            assert (c == ce).all() and (b.bits() == be).all(), (f.name, mode, sat, flush)


def test_table_coverage():
    """Every float format of 16 bits or fewer has a table from float32 inputs."""
    for f in FLOATS:
        if f.bits <= 16 and f.domain is not formats.Domain.TAPERED:  # HiF8 encodes through its exact path
            assert tables.has_encode_table(np.float32, f), f.name
    assert tables.has_encode_table(np.float64, formats.get("fp8_e4m3"))
    assert not tables.has_encode_table(np.float64, formats.get("fp16"))


def test_decode_table_rejects_bad_lanes():
    from tilesim.errors import FormatError
    with pytest.raises(FormatError):
        formats.decode(np.array([0x40], np.uint8), "fp6_e2m3")
    with pytest.raises(FormatError):
        formats.decode(np.array([0x10], np.uint8), "fp4_e2m1")


@pytest.mark.parametrize("f", [f for f in FLOATS if tables.via_float32(np.float64, f)], ids=lambda f: f.name)
def test_float64_through_float32_rounded_to_odd(f):
    """The two-step path (float64 -> float32 to odd -> table) equals one exact rounding,
    on random bit patterns and on values a hair off every kind of target midpoint,
    where plain double rounding (float64 -> float32 nearest -> target) would go wrong."""
    rng = np.random.default_rng(11)
    vals = formats.decode(np.arange(1 << f.bits, dtype=np.uint64), f)
    vals = np.unique(vals[np.isfinite(vals)])
    mids = (vals[:-1] + vals[1:]) / 2
    eps = np.ldexp(1.0, np.frexp(mids)[1] - 40)  # far below float32's last place
    x = np.concatenate([mids, mids + eps, mids - eps, vals * (1 + 2.0**-40), vals * (1 - 2.0**-40), [1e39, -1e300, 2.0**-160],
                        inputs(np.float64, 100_000, seed=3)])
    x = np.concatenate([x, -x])
    assert tables.round_to_odd_float32(x).dtype == np.float32
    for mode in MODES:
        for sat, flush in ((False, False), (True, False), (False, True)):
            c, b = formats.encode(x, f, mode, saturate=sat, flush_subnormals=flush, return_flags=True)
            ce, be = exact(x, f, mode, sat, flush)
            bad = (c != ce) | (b.bits() != be)
            assert not bad.any(), (f.name, mode, sat, flush, x[bad][:4])


TRUNCATING = [(d, f) for d in (np.float16, np.float32, np.float64) for f in FLOATS if tables.truncates(d, f)]


def test_truncating_pairs():
    """The carry path serves the pairs it was written for, and only IEEE targets."""
    names = {(np.dtype(d).name, f.name) for d, f in TRUNCATING}
    assert {("float32", "bf16"), ("float16", "fp8_e5m2"), ("float32", "tf32")} <= names
    assert not tables.truncates(np.float32, formats.get("fp8_e4m3"))
    assert not tables.truncates(np.float64, formats.get("bf16"))


@pytest.mark.parametrize("dtype,f", TRUNCATING, ids=lambda p: getattr(p, "name", str(p)))
def test_carry_path_equals_exact(dtype, f):
    """Without flags, saturate or flush the carry path runs; it must equal the exact encoder
    (every float16 input; float32 random bits, values near every kind of boundary, and the specials)."""
    if np.dtype(dtype) == np.float16:
        x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    else:
        ut = np.dtype(f"u{np.dtype(dtype).itemsize}")
        drop = {4: 23, 8: 52}[ut.itemsize] - f.man_bits
        rng = np.random.default_rng(5)
        kept = rng.integers(0, 1 << (ut.itemsize * 8 - drop), 50_000, dtype=np.uint64) << np.uint64(drop)
        low = np.array([0, 1, (1 << (drop - 1)) - 1, 1 << (drop - 1), (1 << (drop - 1)) + 1, (1 << drop) - 1],
                       np.uint64)
        special = np.array([0x7F7FFFFF, 0x7F800000, 0x7F800001, 0x7FFFFFFF, 0xFF800000, 0x80000001, 0x00800000],
                           np.uint64) if ut.itemsize == 4 else np.zeros(0, np.uint64)
        raw = np.concatenate([(kept[:, None] | low[None, :]).ravel(), special])
        x = raw.astype(ut).view(dtype)
    for mode in MODES:
        assert tables.truncates(x.dtype, f)
        c = formats.encode(x, f, mode)
        ce, _ = exact(x, f, mode)
        bad = c != ce
        assert not bad.any(), (f.name, mode, x[bad][:4], c[bad][:4], ce[bad][:4])
