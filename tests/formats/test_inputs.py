"""Odd inputs to the format functions (issue 20 fuzz findings, decision F10): big-endian arrays are read by value,
arrays past the size limit are refused before any copy, and complex/object/0-d inputs are clean errors or right."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from tilesim import formats
from tilesim.errors import FormatError, TilesimError
from tilesim.formats.checks import MAX_ELEMENTS

SMALL = ["bf16", "fp16", "int16", "int8", "fp8_e4m3", "fp8_e5m2", "uint8", "fp4_e2m1", "int4", "int12"]


def _all_codes(fmt):
    f = formats.get(fmt)
    return formats.canonical(np.arange(1 << f.lane_bits, dtype=np.uint64), f)


def _same(a, b):
    if isinstance(a, formats.Parts):
        return all(_same(getattr(a, k), getattr(b, k)) for k in ("sign", "sig", "exp", "sticky", "cls"))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("fmt", SMALL)
@pytest.mark.parametrize("order", [">", "<"])
def test_every_code_reads_the_same_in_either_byte_order(fmt, order):
    """Exhaustive: each lane code of a <=16-bit format, as a big- or little-endian array of each integer width."""
    codes = _all_codes(fmt)
    f = formats.get(fmt)
    for kind in ("u", "i"):
        for size in (2, 4, 8):
            if kind == "i" and size * 8 == f.lane_bits:
                native = codes.astype(f"u{size}").view(f"i{size}")   # the signed view of the lane's bits
            else:
                native = codes.astype(f"{kind}{size}")
            swapped = native.astype(native.dtype.newbyteorder(order))
            calls = [formats.decode, formats.decode_exact, formats.pack, formats.canonical]
            calls += [formats.decode_int] if f.is_integer else []
            for fn in calls:
                assert _same(fn(swapped, fmt), fn(native, fmt)), (fn.__name__, kind, size)


@given(hnp.arrays(st.sampled_from([np.dtype(">f4"), np.dtype(">f8"), np.dtype(">f2"), np.dtype(">i4"),
                                   np.dtype(">u8"), np.dtype(">i8")]), hnp.array_shapes(max_dims=2, max_side=6)),
       st.sampled_from(["bf16", "fp8_e4m3", "int8", "fp32", "q8_8"]), st.sampled_from(["rne", "rtz", "rmm"]))
def test_big_endian_values_encode_as_their_values(a, fmt, rounding):
    native = a.astype(a.dtype.newbyteorder("="))
    got = formats.encode(a, fmt, rounding=rounding, saturate=True, return_flags=True)
    want = formats.encode(native, fmt, rounding=rounding, saturate=True, return_flags=True)
    assert _same(got[0], want[0]) and _same(got[1].bits(), want[1].bits())
    assert _same(formats.to_parts(a), formats.to_parts(native))


_HUGE = [np.broadcast_to(np.float32(1), (1 << 40,)), np.broadcast_to(np.uint16(1), (1 << 20, 1 << 20)),
         np.broadcast_to(np.int8(0), (MAX_ELEMENTS + 1,))]
_CALLS = {"encode": lambda x: formats.encode(x, "bf16"), "to_parts": formats.to_parts,
          "quantize": lambda x: formats.quantize(x, "int8"), "decode": lambda x: formats.decode(x, "bf16"),
          "decode_int": lambda x: formats.decode_int(x, "int16"),
          "decode_exact": lambda x: formats.decode_exact(x, "fp16"),
          "pack": lambda x: formats.pack(x, "bf16"), "canonical": lambda x: formats.canonical(x, "int12"),
          "unpack": lambda x: formats.unpack(x, "int8")}


@pytest.mark.parametrize("name", _CALLS)
@pytest.mark.parametrize("huge", range(len(_HUGE)))
def test_an_array_past_the_limit_is_refused_before_any_copy(name, huge):
    with pytest.raises(FormatError) as e:
        _CALLS[name](_HUGE[huge])
    assert e.value.rule == "formats.size" and "2**31" in str(e.value)


_ODD = [np.array([1 + 2j]), np.array(1j), np.array([1, "x"], object), np.array([None]), np.array([[1, 2.5]], object),
        np.array(3.0), np.array(7, ">u2"), np.array([True, False]), np.zeros((0, 3)), np.array([2 ** 70], object),
        [[1, 2], [3]], "1.0", b"\x01", None, np.array([1.5], np.longdouble), np.datetime64("2020-01-01"),
        np.array([(1, 2)], dtype=[("a", "u1"), ("b", "u1")])]


@pytest.mark.parametrize("name", _CALLS)
@pytest.mark.parametrize("odd", range(len(_ODD)), ids=lambda i: repr(_ODD[i])[:30])
def test_odd_inputs_are_a_clean_error_or_a_result(name, odd):
    try:
        out = _CALLS[name](_ODD[odd])
    except TilesimError as e:
        assert e.rule and e.instruction.startswith("formats.")
    else:
        assert out is not None


def test_zero_d_and_bool_inputs_give_their_values():
    assert formats.encode(np.array(1.0), "bf16").tolist() == 0x3F80
    assert formats.decode(np.array(0x3F80, ">u2"), "bf16").tolist() == 1.0
    assert formats.encode(np.array([True, False]), "int8").tolist() == [1, 0]
    assert formats.decode_int(np.array(0xFF, ">u2"), "int8").tolist() == -1
