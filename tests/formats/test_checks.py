"""Argument checks of the public format functions, exact fitting, and a fuzz of every entry point (issue 9)."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim import formats
from tilesim.errors import EncodingError, FormatError, TilesimError
from tilesim.formats.fit import fit


@pytest.mark.parametrize("call, fn, rule", [
    (lambda: formats.encode([1.0], None), "formats.get", "formats.name"),  # numpy would read None as float64
    (lambda: formats.encode(np.array(["a"]), "int8"), "formats.encode", "formats.values"),
    (lambda: formats.encode("1.0", "int8"), "formats.encode", "formats.values"),
    (lambda: formats.encode([1 + 2j], "fp16"), "formats.encode", "formats.values"),
    (lambda: formats.encode([[1.0], [2.0, 3.0]], "fp16"), "formats.encode", "formats.values"),
    (lambda: formats.encode([1.0], "fp16", saturate="yes"), "formats.encode", "formats.flag"),
    (lambda: formats.encode([1.0], "fp16", rounding="nearest"), "formats.encode", "formats.rounding"),
    (lambda: formats.pack(np.array([300]), "int4"), "formats.pack", "formats.codes"),  # not formats.decode
    (lambda: formats.pack(np.array([1.0, 2.0]), "int8"), "formats.pack", "formats.codes"),
    (lambda: formats.pack(np.array([1, 2, 3]), "int4"), "formats.pack", "formats.pairs"),
    (lambda: formats.unpack(np.array([256]), "int8"), "formats.unpack", "formats.bytes"),
    (lambda: formats.unpack(np.array([1, 2]), "int8", count=3), "formats.unpack", "formats.count"),
    (lambda: formats.unpack(np.array([1, 2]), "int8", count=-1), "formats.unpack", "formats.count"),
    (lambda: formats.decode([-1], "fp8_e4m3"), "formats.decode", "formats.codes"),
    (lambda: formats.decode_int([1], "fp16"), "formats.decode_int", "formats.integer"),
    (lambda: formats.fixed(70, 2), "formats.fixed", "formats.count"),
    (lambda: formats.get(3.5), "formats.get", "formats.name"),
])
def test_bad_arguments_blame_the_public_function(call, fn, rule):
    with pytest.raises(FormatError) as e:
        call()
    assert e.value.instruction == fn and e.value.rule == rule
    assert str(e.value).startswith(fn)


def test_exact_conversions_are_kept():
    # longdouble that float64 holds, ml_dtypes arrays, and Python ints beyond float64's 53 bits
    assert formats.encode(np.array([1.5], np.longdouble), "fp16").tolist() == [0x3E00]
    assert formats.encode(np.array([1.5], ml_dtypes.bfloat16), "fp16").tolist() == [0x3E00]
    assert formats.decode_int(formats.encode([2**62 + 1], "int64"), "int64").tolist() == [2**62 + 1]
    with pytest.raises(FormatError, match="cannot hold"):
        formats.encode(np.array([2**62 + 1, 0.5], dtype=object), "int64")


def test_fit_stores_only_what_the_format_holds():
    want = np.array([1.0, -2.5], ml_dtypes.float8_e4m3fn).view(np.uint8)  # oracle: ml_dtypes
    assert fit([1.0, -2.5], "fp8_e4m3").tolist() == want.tolist()
    with pytest.raises(FormatError) as e:
        fit([[1, 300]], "int8", instruction="write_tile", ask="pass quantize=True")
    assert e.value.rule == "formats.fit.range" and "[0, 1]" in str(e.value) and "-128..127" in str(e.value)
    with pytest.raises(FormatError) as e:
        fit([0.1], "bf16")
    assert e.value.rule == "formats.fit.inexact" and "0.099609375" in str(e.value)  # the two nearest values
    with pytest.raises(FormatError) as e:
        fit([np.nan], "int8", rounding="rne", saturate=True)
    assert e.value.rule == "formats.fit.invalid"
    assert fit([300, 0.4], "int8", rounding="rne", saturate=True).tolist() == [127, 0]
    assert fit([np.inf], "fp8_e4m3", saturate=True).tolist() == [0x7E]  # E4M3 has no Inf: clamp when asked


def test_fit_raises_the_callers_error_for_every_refusal():
    """``refuse(index, value)`` replaces all three rules (range, inexact, invalid); accepted values are untouched."""
    seen = []

    def refuse(at, v):
        seen.append((at, v))
        return EncodingError("caller's words", rule="caller.rule")
    for bad, fmt, at in (([[1, 300]], "int8", [0, 1]), ([0.5, 0.1], "bf16", [1]), ([[2], [np.nan]], "int8", [1, 0])):
        with pytest.raises(EncodingError, match="caller's words"):
            fit(bad, fmt, refuse=refuse)
        assert seen[-1][0] == at
    assert seen[0][1] == 300 and type(seen[0][1]) is int and np.isnan(seen[2][1])
    assert fit([1.0, -2.5], "fp8_e4m3", refuse=refuse).tolist() == [0x38, 0xC2]


# ------------------------------------------------------------------ fuzz: only TilesimErrors escape
_ANY = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.text(max_size=4),
    st.complex_numbers(max_magnitude=10), st.lists(st.floats(), max_size=3), st.lists(st.integers(-300, 300),
                                                                                      max_size=5),
    st.sampled_from([np.zeros((2, 2)), np.arange(4, dtype=np.uint8), np.array(["a"]), np.array([1.5], np.longdouble),
                     np.array([1.0], ml_dtypes.float8_e4m3fn), np.array([[1], [2]], np.int16), np.array(3)]),
)
_FMT = st.one_of(st.sampled_from([f.name for f in formats.all_formats()]), st.integers(-2, 300), st.none(),
                 st.text(max_size=6), st.sampled_from([np.float32, np.dtype("int16"), "f8", 1.5]))
_CALLS = {
    "encode": lambda x, f, o: formats.encode(x, f, rounding=o, saturate=o),
    "decode": lambda x, f, o: formats.decode(x, f),
    "decode_int": lambda x, f, o: formats.decode_int(x, f),
    "decode_exact": lambda x, f, o: formats.decode_exact(x, f),
    "quantize": lambda x, f, o: formats.quantize(x, f, flush_subnormals=o),
    "pack": lambda x, f, o: formats.pack(x, f),
    "unpack": lambda x, f, o: formats.unpack(x, f, count=o),
    "canonical": lambda x, f, o: formats.canonical(x, f),
    "fixed": lambda x, f, o: formats.fixed(x, o),
}


@settings(max_examples=max(settings().max_examples, 300))
@given(st.sampled_from(sorted(_CALLS)), _ANY, _FMT, st.one_of(st.none(), st.booleans(), st.integers(-3, 40),
                                                              st.sampled_from(["rne", "rtz", "x"])))
def test_fuzz_entry_points_raise_only_tilesim_errors(fn, x, f, o):
    try:
        _CALLS[fn](x, f, o)
    except TilesimError:
        pass


def test_doctests():
    import doctest

    from tilesim.formats import fit as fit_module

    assert doctest.testmod(fit_module, optionflags=doctest.ELLIPSIS).failed == 0
