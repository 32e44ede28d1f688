"""PTO193: on ``cpu`` a program with a bf16 type runs as g++ 14's build of the simulator (the only one that
compiles bf16, PTO88): its f32 TROWSUM adds in index order, where clang's build vectorises the sum (PTO91)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.pto.text.interp import uses_bf16

_PROGRAM = """\
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %z: !pto.ptr<ZT>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c1], strides = [%c1, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x64xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c1] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x1xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 8x64xf32>
    %s = pto.alloc_tile : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x64xf32>) outs(%a : !pto.tile_buf<vec, 8x64xf32>)
    pto.trowsum ins(%a : !pto.tile_buf<vec, 8x64xf32>) outs(%s : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>)
    pto.tstore ins(%s : !pto.tile_buf<vec, 8x1xf32, blayout=col_major>) outs(%yp : !pto.partition_tensor_view<8x1xf32>)
    return
  }
}
"""


def _in_order(x: np.ndarray) -> np.ndarray:
    """Each row summed element after element in f32 (g++'s loop)."""
    acc = np.zeros(x.shape[0], np.float32)
    for j in range(x.shape[1]):
        acc = (acc + x[:, j]).astype(np.float32)
    return acc


def _vectorised(x: np.ndarray) -> np.ndarray:
    """Clang's vectorised loop (PTO91) for a width that is a multiple of 8: 8 partial sums, halves, lanes."""
    parts = np.zeros((x.shape[0], 8), np.float32)
    for k in range(0, x.shape[1], 8):
        parts = (parts + x[:, k:k + 8]).astype(np.float32)
    v = (parts[:, :4] + parts[:, 4:]).astype(np.float32)
    return (((v[:, 0] + v[:, 1]).astype(np.float32) + v[:, 2]).astype(np.float32) + v[:, 3]).astype(np.float32)


@pytest.mark.parametrize("zt", ["bf16", "f32"])
def test_a_bf16_program_sums_rows_in_index_order_on_cpu(zt):
    x = np.random.default_rng(7).uniform(-1, 1, (8, 64)).astype(np.float32) ** 2
    seq, vec = _in_order(x), _vectorised(x)
    assert (seq.view(np.uint32) != vec.view(np.uint32)).any()   # the two orders round differently here
    z = np.zeros(8, np.uint16 if zt == "bf16" else np.float32)
    out = pto.run_text(_PROGRAM.replace("ZT", zt), {"x": x.ravel(), "y": np.zeros(8, np.float32), "z": z}, "cpu")
    want = seq if zt == "bf16" else vec
    np.testing.assert_array_equal(np.asarray(out["y"]).view(np.uint32), want.view(np.uint32))


def test_uses_bf16_finds_every_place_a_type_names_it():
    assert uses_bf16(pto.parse(_PROGRAM.replace("ZT", "bf16")))
    assert not uses_bf16(pto.parse(_PROGRAM.replace("ZT", "f16")))
    tile = _PROGRAM.replace("ZT", "f32").replace("%s = pto.alloc_tile", "%t = pto.alloc_tile : "
                                                  "!pto.tile_buf<vec, 8x64xbf16>\n    %s = pto.alloc_tile")
    assert uses_bf16(pto.parse(tile))


def test_the_profile_flag_and_the_api():
    """Outside a program the g++ build is the profile ``cpu`` with ``gxx``; plain ``cpu`` stays clang's."""
    x = np.random.default_rng(7).uniform(-1, 1, (8, 64)).astype(np.float32) ** 2
    src, dst = pto.Tile.from_array(x), pto.Tile("vec", "f32", 8, 8, valid=(8, 1))
    pto.trowsum(dst, src, target=pto.get_target("cpu").with_(gxx=True))
    np.testing.assert_array_equal(dst.bits[:, 0], _in_order(x).view(np.uint32))
    pto.trowsum(dst, src, target="cpu")
    np.testing.assert_array_equal(dst.bits[:, 0], _vectorised(x).view(np.uint32))


def test_diff_names_the_vectorised_sum_only_where_one_side_has_it():
    from tilesim.pto.trace import why

    gxx = pto.get_target("cpu").with_(gxx=True)
    assert [r[:5] for r in why("pto.trowsum", "cpu", gxx)] == ["PTO91"]
    assert [r[:5] for r in why("pto.trowsum", "cpu", "a5")] == ["PTO91"]
    assert not any("vectorised" in r for r in why("pto.trowsum", gxx, "a5"))
