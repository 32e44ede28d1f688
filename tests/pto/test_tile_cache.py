"""A Tile of a type seen before skips the type checks (tile.py's ``_STATIC``): the same fields as a first
construction, and an argument equal to a cached one but of another type (True for 1) is still checked."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim.errors import GeometryError
from tilesim.pto import Tile
from tilesim.pto import tile as tile_mod


@pytest.mark.parametrize("args", [("vec", "f32", 1, 64), ("vec", "f16", 16, 32, (3, 5), "col_major"),
                                  ("mat", "bf16", 16, 32, None, "col_major", "row_major"),
                                  ("vec", "i8", 32, 32, (32, 32), "row_major", "none_box", 512, "custom:0xbf80")])
def test_a_cached_type_gives_the_same_tile(args):
    tile_mod._STATIC.clear()
    first, again = Tile(*args), Tile(*args)
    fields = set(tile_mod._STATIC_FIELDS) | {"_valid", "key", "addr", "undefined", "_off"}
    assert {k: first.__dict__[k] for k in fields} == {k: again.__dict__[k] for k in fields}
    assert first.bits.shape == again.bits.shape and not np.shares_memory(first._mem, again._mem)
    again.bits[...] = 1
    assert not first.bits.any()


@pytest.mark.parametrize("bad", [{"rows": True}, {"pad": True}])
def test_an_equal_argument_of_another_type_is_still_refused(bad):
    good = {"loc": "vec", "dtype": "f32", "rows": 1, "cols": 8, "pad": 1}
    assert Tile(**good).pad == "zero" and Tile(**good).rows == 1      # cached
    with pytest.raises(GeometryError):
        Tile(**(good | bad))


def test_an_unhashable_argument_is_refused_by_the_checks():
    with pytest.raises(GeometryError):
        Tile("vec", "f32", [16], 16)
