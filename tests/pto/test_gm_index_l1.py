"""The NPUs' GM -> L1 MGATHER and A5's DN UB tiles (decision PTO110) against scalar transcriptions of
MGatherGm2L1RowImpl and MGatherGm2L1ElemImpl (include/pto/npu/a2a3/MGather.hpp and npu/a5/MGather.hpp, the
same loops): indexes read from global memory as uint32_t, Row mode one nd2nz copy of ``validCol`` elements per
valid row into NZ slot ``r * C0`` (``zero`` first clears the whole L1 tile), Elem mode every lane staged into a
zeroed NZ scratch at ``(c / C0) * (Rows * C0) + r * C0 + c % C0`` and the scratch copied whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tilesim.errors import DtypeError, TilesimError
from tilesim.pto import Tile, get_dtype, mgather, mscatter

from .test_gm_index_nz import U32, _remap  # gather_remap_l1 remaps as mgather_remap does


def _kernel(storage, table, idx, rows: int, c0: int, valid, coalesce: str, oob: str):
    """The tile's NZ storage after the kernel, from its storage before."""
    vr, vc = valid
    flat = table.reshape(-1)
    if coalesce == "elem":
        out = np.zeros_like(storage)                                  # the zeroed scratch, copied whole
        for r in range(vr):
            for c in range(vc):
                k = _remap(int(idx[r, c]), flat.size, oob)
                if k is not None:
                    out[(c // c0) * rows * c0 + r * c0 + c % c0] = flat[k]
        return out
    out = np.zeros_like(storage) if oob == "zero" else storage.copy()  # pto_create_cbuf_matrix
    for r in range(vr):
        k = _remap(int(idx.reshape(-1)[r]), table.shape[0], oob)
        if k is not None:
            for c in range(vc):                                       # nd2nz of one row, validCol wide
                out[(c // c0) * rows * c0 + r * c0 + c % c0] = table[k, c]
    return out


DTYPES = {"a2a3": ["f32", "f16", "i8", "u16"], "a5": ["f32", "bf16", "u8", "f8e4m3", "hif8"]}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([(t, d) for t, ds in DTYPES.items() for d in ds]),
       st.sampled_from(["clamp", "wrap", "zero"]), st.sampled_from(["elem", "row"]), st.sampled_from([16, 32]))
def test_gm2l1_gather_matches_the_kernel(seed, target_dt, oob, coalesce, rows):
    target, dt = target_dt
    rng = np.random.default_rng(seed)
    lane = get_dtype(dt).lane
    c0 = 32 // np.dtype(lane).itemsize
    cols = 2 * c0
    vr, vc = int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1))
    table = rng.integers(0, 2 ** (8 * np.dtype(lane).itemsize), (23, cols + 3), dtype=np.uint64).astype(lane)
    cap = table.size if coalesce == "elem" else table.shape[0]
    shape = (vr, vc) if coalesce == "elem" else (1, vr)
    idx = rng.integers(-3, cap + 5, shape).astype(np.int64).astype(rng.choice([np.int32, np.uint32]))
    dst = Tile("mat", dt, rows, cols, (vr, vc), "col_major", "row_major")
    dst.load_storage(rng.integers(0, 2 ** (8 * np.dtype(lane).itemsize), rows * cols, dtype=np.uint64).astype(lane))
    want = _kernel(dst.storage(), table, idx.astype(np.int64) % U32, rows, c0, (vr, vc), coalesce, oob)
    mgather(dst, table.view(get_dtype(dt).np), idx, coalesce=coalesce, oob=oob, target=target)
    assert np.array_equal(dst.storage(), want)


def test_gm2l1_refusals():
    table = np.zeros((8, 16), np.float32)
    mat = Tile("mat", "f32", 16, 16, (4, 16), "col_major", "row_major")
    idx = np.arange(4, dtype=np.int32).reshape(1, 4)
    for target in ("a2a3", "a5"):
        with pytest.raises(TilesimError) as e:                        # the index comes from global memory
            mgather(mat, table, Tile("vec", "i32", 1, 8, (1, 4)), coalesce="row", target=target)
        assert e.value.rule == "pto.op.dtype"
        with pytest.raises(DtypeError):                               # int32_t / uint32_t only
            mgather(mat, table, idx.astype(np.int64), coalesce="row", target=target)
        with pytest.raises(TilesimError) as e:                        # NZ only
            mgather(Tile("mat", "f32", 16, 16, (4, 16), "row_major", "none_box"), table, idx, coalesce="row",
                    target=target)
        assert e.value.rule == "pto.op.layout"
        with pytest.raises(TilesimError) as e:                        # a vec dst keeps its index tile
            mgather(Tile("vec", "f32", 4, 16), table, idx, coalesce="row", target=target)
        with pytest.raises(TilesimError) as e:
            mgather(mat, table, np.full((1, 4), 8, np.int32), coalesce="row", target=target)
        assert e.value.rule == "pto.mgather.index" and not mat.bits.any()
    f8 = Tile("mat", "f8e4m3", 16, 32, (4, 32), "col_major", "row_major")
    with pytest.raises(DtypeError):                                   # A5 adds the 8-bit floats; A2A3 does not
        mgather(f8, np.zeros(64, np.uint8).view(get_dtype("f8e4m3").np), np.zeros((4, 32), np.int32), target="a2a3")
    with pytest.raises(TilesimError) as e:                            # A2A3's NZ table pairs with a vec tile
        mgather(mat, np.zeros((1, 2, 1, 16, 8), np.float32), idx, coalesce="row", target="a2a3")
    assert e.value.rule == "pto.mgather.nz"


@pytest.mark.parametrize("coalesce", ["elem", "row"])
def test_a5_ub_tiles_may_be_dn(coalesce):
    """A5's SIMT kernels address UB through tile_offset_2d: a DN (col_major, none_box) dst or src holds the same
    logical values as an ND one; A2A3 takes ND (or its NZ form) only."""
    rng = np.random.default_rng(5)
    table = rng.standard_normal((6, 5)).astype(np.float32)
    nd, dn = Tile("vec", "f32", 8, 8, (4, 5)), Tile("vec", "f32", 8, 8, (4, 5), "col_major")
    if coalesce == "elem":
        idx = Tile("vec", "i32", 8, 8, (4, 5))
        idx.bits[:4, :5] = rng.integers(0, table.size, (4, 5)).astype(np.uint32)
    else:
        idx = Tile("vec", "i32", 1, 8, (1, 4))
        idx.bits[0, :4] = np.array([5, 0, 5, 2], np.uint32)
    mgather(nd, table, idx, coalesce=coalesce, target="a5")
    mgather(dn, table, idx, coalesce=coalesce, target="a5")
    flat = table.reshape(-1)
    want = flat[idx.bits[:4, :5]] if coalesce == "elem" else table[idx.bits[0, :4]]
    assert np.array_equal(dn.valid_values, want) and np.array_equal(nd.valid_values, want)
    assert not np.array_equal(dn.storage(), nd.storage())             # the layouts differ, the values do not
    out = mscatter(np.zeros_like(table), dn, idx, coalesce=coalesce, target="a5")
    assert np.array_equal(out, mscatter(np.zeros_like(table), nd, idx, coalesce=coalesce, target="a5"))
    with pytest.raises(TilesimError) as e:
        mgather(dn, table, idx, coalesce=coalesce, target="a2a3")
    assert e.value.rule == "pto.op.layout"
