"""``.tt`` sizes and rows are refused before anything is allocated or wrapped (issue 20 fuzz findings; TT39)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim.errors import GeometryError, ParseError, TilesimError
from tilesim.tensix.cli import MAX_ARRAY, parse_program, run_program

GMPOOL = open("examples/tensix/gmpool_argmax.tt").read()


@pytest.mark.parametrize("shape", ["4294967312x16", "16x4294967312", "1048577x1", "65536x17", "0x1152921504606846976"])
def test_an_array_past_the_limit_is_refused_before_allocating(shape):
    with pytest.raises(ParseError) as e:
        parse_program(f".array a {shape} fill=1\n", "p.tt")
    assert e.value.rule == "tt.prog.array_size" and f"{MAX_ARRAY:,}" in str(e.value)
    assert (e.value.line, e.value.column) == (1, 10)


def test_the_largest_array_is_taken():
    (s,) = parse_program(".array a 1024x1024 fill=2\n")
    assert s.args[1].shape == (1024, 1024)


@pytest.mark.parametrize("opts", ["row=512", "row=600", "row=-1", "rows=0", "rows=-3", "row=510 rows=3",
                                  "row=0 rows=513"])
def test_argmax_rows_outside_the_32_bit_dst_are_refused_like_pack(opts):
    with pytest.raises(GeometryError) as e:
        run_program(parse_program(GMPOOL + f".argmax bad {opts}\n"), {})
    assert e.value.rule == "tt.argmax.rows" and "0..511" in str(e.value)


def test_argmax_rows_inside_read_their_rows():
    _, out = run_program(parse_program(GMPOOL + ".argmax last row=511\n.argmax all row=0 rows=512\n"), {})
    assert out["last"].shape == (1, 16) and out["all"].shape == (512, 16)
    assert (out["all"][511] == out["last"][0]).all()


@given(st.integers(-2 ** 40, 2 ** 40), st.integers(-2 ** 40, 2 ** 40))
def test_fuzz_argmax_rows_never_wrap(row, rows):
    text = GMPOOL + f".argmax x row={row} rows={rows}\n"
    if 0 <= row and rows >= 1 and row + rows <= 512:
        assert run_program(parse_program(text), {})[1]["x"].shape == (rows, 16)
    else:
        with pytest.raises(GeometryError):
            run_program(parse_program(text), {})


@given(st.integers(0, 2 ** 64), st.integers(0, 2 ** 64))
def test_fuzz_array_shapes_are_taken_or_refused_cleanly(r, c):
    try:
        (s,) = parse_program(f".array a {r}x{c} fill=0\n")
    except TilesimError as e:
        assert e.rule == "tt.prog.array_size" and max(r * c, r, c) > MAX_ARRAY
    else:
        assert s.args[1].shape == (r, c) and max(r * c, r, c) <= MAX_ARRAY and not np.any(s.args[1])
