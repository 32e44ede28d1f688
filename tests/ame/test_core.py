"""Core tile I/O: the register file layout, writes that touch only their elements, errors."""

import numpy as np
import pytest

from tilesim.ame import Core
from tilesim.errors import FormatError, GeometryError, UnsupportedError


def test_layout_is_the_decisions():
    core = Core()
    core.write_tile(3, np.array([[1, -2, 3]]), "int4")  # two per byte, element 2i in bits [3:0]
    assert core.tiles[3, :2].tolist() == [0xE1, 0x03]
    core.write_tile(4, np.array([[1.0, -2.0]]), "fp16")  # little-endian 16-bit lanes
    assert core.tiles[4, :4].tolist() == [0x00, 0x3C, 0x00, 0xC0]
    core.write_tile(5, np.array([[-1], [5]]), "int12")  # 16-bit lane, sign-extended; row 1 at byte 16
    assert core.tiles[5, [0, 1, 16, 17]].tolist() == [0xFF, 0xFF, 0x05, 0x00]
    core.write_tile(6, np.array([[1.0]]), "tf32")  # FP32 pattern in a 32-bit lane
    assert core.tiles[6, :4].tolist() == [0, 0, 0x80, 0x3F]


@pytest.mark.parametrize("fmt", ["int4", "fp4_e2m1", "fp6_e3m2", "int8", "fp8_e5m2", "int12", "bf16", "q4_8",
                                 "fp32", "fix24_16", "q32_32", "fp64"])
def test_round_trip(fmt):
    core = Core()
    rng = np.random.default_rng(0)
    from tilesim import formats
    f = formats.get(fmt)
    e = formats.elements_per_row(f)
    codes = formats.encode(rng.normal(0, 3, (16, e)), f, saturate=True)
    core.write_codes(7, codes, f)
    assert np.array_equal(core.read_codes(7, f), codes)
    assert np.array_equal(core.read_tile(7, f), formats.decode(codes, f) if not f.kind.value == "int"
                          else formats.decode_int(codes, f))


def test_writes_touch_only_their_elements():
    core = Core()
    core.tiles[:] = 0xAA
    core.write_tile(0, np.array([[1, 1, 1]]), "int4")  # 3 nibbles: byte 1 keeps its high nibble
    assert core.tiles[0, :3].tolist() == [0x11, 0xA1, 0xAA] and (core.tiles[0, 3:] == 0xAA).all()
    assert (core.tiles[1:] == 0xAA).all()


def test_matrix_spans_tiles_by_columns():
    core = Core()
    v = np.arange(16 * 12, dtype=float).reshape(16, 12)
    core.write_matrix(2, v, "fp16")  # 8 per row: columns 0..7 in tr2, 8..11 in tr3
    assert np.array_equal(core.read_tile(2, "fp16"), v[:, :8])
    assert np.array_equal(core.read_tile(3, "fp16", (16, 4)), v[:, 8:])
    assert np.array_equal(core.read_matrix(2, "fp16", (16, 12)), v)


def test_values_by_kind():
    core = Core()
    core.write_tile(0, np.array([[2**40 + 1]]), "int64")
    assert core.read_tile(0, "int64", (1, 1)).dtype == np.int64
    assert core.read_tile(0, "int64", (1, 1))[0, 0] == 2**40 + 1
    core.write_tile(1, np.array([[1.5]]), "q4_3")
    assert core.read_tile(1, "q4_3", (1, 1)).tolist() == [[1.5]]


@pytest.mark.parametrize("call,rule", [
    (lambda c: c.write_tile(0, np.zeros((17, 2)), "int8"), "ame.tile.shape"),
    (lambda c: c.write_tile(0, np.zeros((2, 17)), "int8"), "ame.tile.shape"),
    (lambda c: c.write_tile(32, np.zeros((2, 2)), "int8"), "ame.tile.index"),
    (lambda c: c.write_matrix(31, np.zeros((2, 9)), "fp16"), "ame.tile.index"),
    (lambda c: c.read_tile(-1, "int8"), "ame.tile.index"),
    (lambda c: c.write_codes(0, np.zeros((2, 2, 2), np.uint8), "int8"), "ame.tile.shape"),
])
def test_tile_errors(call, rule):
    core = Core()
    before = core.tiles.copy()
    with pytest.raises(GeometryError) as info:
        call(core)
    assert info.value.rule == rule and np.array_equal(core.tiles, before)


def test_bad_codes_and_model():
    with pytest.raises(FormatError):
        Core().write_codes(0, np.array([[0x1FF]]), "int8")
    with pytest.raises(UnsupportedError) as info:
        Core(accumulation="pairwise")
    assert info.value.rule == "ame.model"
