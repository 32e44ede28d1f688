"""Tile sizes are refused before anything is allocated (issue 20 fuzz findings; decision PTO104)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tilesim import pto
from tilesim.errors import GeometryError, TilesimError
from tilesim.pto import Tile
from tilesim.pto.tile import MAX_TILE_BYTES
from tilesim.pto.targets import TARGETS


@pytest.mark.parametrize("rows, cols", [(2 ** 32, 16), (16, 2 ** 32), (2 ** 62, 2 ** 62), (8193, 32768)])
def test_a_python_tile_past_the_limit_is_refused(rows, cols):
    with pytest.raises(GeometryError) as e:
        Tile("vec", "f32", rows, cols)
    assert e.value.rule == "pto.tile.size" and f"{MAX_TILE_BYTES:,}" in str(e.value)


def test_a_large_python_tile_is_still_taken():
    assert Tile("vec", "f32", 512, 4096).offsets().shape == (512, 4096)


KERNEL = """module {{
  func.func @k() {{
    %a = pto.alloc_tile : !pto.tile_buf<{loc}, {rows}x{cols}xf32{extra}>
    return
  }}
}}
"""
_EXTRA = {"vec": "", "mat": "", "acc": ", blayout=col_major, slayout=row_major, fractal=1024"}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("loc", sorted(_EXTRA))
def test_a_program_tile_past_its_buffer_is_refused_when_its_type_is_read(target, loc):
    cap = TARGETS[target].capacities[loc]
    rows = cap // (16 * 4) + 16                                # the first 16-row step past the buffer
    with pytest.raises(TilesimError) as e:
        pto.run_text(KERNEL.format(loc=loc, rows=rows, cols=16, extra=_EXTRA[loc]), {}, target)
    assert e.value.rule == "pto.mem.size" and f"holds {cap:,}" in str(e.value) and e.value.line == 3
    pto.run_text(KERNEL.format(loc=loc, rows=cap // 64, cols=16, extra=_EXTRA[loc]), {}, target)  # exactly full


def test_a_loose_statement_with_a_huge_tile_is_refused():
    a = np.ones((16, 16), np.float32)
    with pytest.raises(GeometryError, match="pto.tile.size"):
        pto.run_text("%c = tadd %a, %b : !pto.tile<f32, 4294967312, 16>\n", {"a": a, "b": a})


@given(st.integers(1, 2 ** 64), st.integers(1, 2 ** 64))
def test_fuzz_program_tile_sizes(rows, cols):
    text = KERNEL.format(loc="vec", rows=rows, cols=cols, extra="")
    try:
        pto.run_text(text, {}, "a5")
    except TilesimError as e:                                   # never a MemoryError or an OverflowError
        assert rows * cols * 4 > TARGETS["a5"].capacities["vec"] or e.rule != "pto.mem.size"
    else:
        assert rows * cols * 4 <= TARGETS["a5"].capacities["vec"]


GLOBALS = {
    "memref.alloc": "    %m = memref.alloc() : memref<{n}x16xf32>",
    "make_tensor_view": "    %cb = arith.constant {n} : index\n    %c1 = arith.constant 1 : index\n"
                        "    %yv = pto.make_tensor_view %y, shape = [%cb, %c1], strides = [%c1, %c1] : "
                        "!pto.tensor_view<?x?xf32>",
    "dense": "    %v = arith.constant dense<1> : vector<{n}xi32>",
}


@pytest.mark.parametrize("form", GLOBALS)
def test_a_global_buffer_the_program_makes_is_bounded(form):
    from tilesim.pto.text.interp import MAX_GLOBAL_ELEMENTS
    text = "module {{\n  func.func @k(%y: !pto.ptr<f32>) {{\n" + GLOBALS[form] + "\n    return\n  }}\n}}\n"
    with pytest.raises(TilesimError) as e:
        pto.run_text(text.format(n=4294967312), {}, "a5")
    assert e.value.rule == "pto.mem.global_size" and f"{MAX_GLOBAL_ELEMENTS:,}" in str(e.value)
    pto.run_text(text.format(n=64), {}, "a5")                  # a small one is made
