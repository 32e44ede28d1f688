"""TGATHER's compare form (PTO159): indices of the elements that compare true, row by row, and their counts."""

from __future__ import annotations

import io

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError


def _oracle(x: np.ndarray, cols: int, k, mode: str, offset: int) -> tuple[list, list]:
    """Per valid row: the wanted indices (offset + row * storage cols + col) and their count, by plain loops."""
    rows, counts = [], []
    for i, row in enumerate(x.tolist()):
        hits = [(offset + i * cols + j) % 2 ** 32 for j, v in enumerate(row) if (v == k if mode == "eq" else v > k)]
        rows.append(hits)
        counts.append(len(hits))
    return rows, counts


@pytest.mark.parametrize("dt,mode", [("f16", "eq"), ("f16", "gt"), ("f32", "gt"), ("i32", "eq")])
def test_indices_and_counts_match_a_loop_oracle(dt, mode):
    rng = np.random.default_rng(hash((dt, mode)) % 2 ** 32)
    npdt = {"f16": np.float16, "f32": np.float32, "i32": np.int32}[dt]
    x = rng.integers(-3, 4, (5, 24)).astype(npdt)
    x[0, 0], x[1, 1] = (-0.0, 0.0) if dt != "i32" else (0, 0)          # -0 == 0
    if dt != "i32":
        x[2, 2] = np.nan                                                  # NaN compares false
    src = pto.Tile("vec", dt, 5, 32, valid=(5, 24))
    src.values[:5, :24] = x
    dst, cdst = pto.Tile("vec", "u32", 5, 32), pto.Tile("vec", "i32", 1, 8)
    dst.bits[...] = 0xA5A5A5A5
    offset = 2 ** 32 - 40                                                 # the indices wrap
    pto.tgather(dst, src, npdt(0), cdst=cdst, cmp_mode=mode, offset=offset, target="a2a3")
    want, counts = _oracle(x, 32, 0, mode, offset)
    for i, hits in enumerate(want):
        assert dst.bits[i, :len(hits)].tolist() == hits
        assert (dst.bits[i, len(hits):] == 0xA5A5A5A5).all()             # the rest of the row is left alone
    assert cdst.bits.reshape(-1)[:5].tolist() == counts


def test_the_form_is_a2a3s_and_its_checks():
    src, dst, cdst = pto.Tile("vec", "f32", 2, 8), pto.Tile("vec", "i32", 2, 8), pto.Tile("vec", "i32", 1, 8)
    for target, why in (("cpu", "no compare-form"), ("a5", "not modelled")):
        with pytest.raises(TilesimError, match=f"pto.tgather.form.*{why}"):
            pto.tgather(dst, src, 1.0, cdst=cdst, target=target)
    with pytest.raises(TilesimError, match="pto.tgather.form.*k_value tile"):
        pto.tgather(dst, src, pto.Tile("vec", "i32", 1, 8), cdst=cdst, target="a2a3")
    with pytest.raises(TilesimError, match="pto.op.dtype"):
        pto.tgather(dst, pto.Tile("vec", "i32", 2, 8), 1, cdst=cdst, cmp_mode="gt", target="a2a3")
    with pytest.raises(TilesimError, match="pto.op.cmp_mode"):
        pto.tgather(dst, src, 1.0, cdst=cdst, cmp_mode="lt", target="a2a3")
    with pytest.raises(TilesimError, match="pto.tgather.cdst"):
        pto.tgather(pto.Tile("vec", "i32", 16, 8), pto.Tile("vec", "f32", 16, 8), 1.0, cdst=cdst, target="a2a3")


def test_the_ptoas_dps_form_with_a_scalar_k_and_an_offset():
    t = ("!pto.tile_buf<loc=vec, dtype={dt}, rows=1, cols=32, v_row=1, v_col=32, blayout=row_major, "
         "slayout=none_box, fractal=512, pad=0>")
    f16, i32, u8 = (t.format(dt=d) for d in ("f16", "i32", "ui8"))
    text = f"""
func.func @k(%src: {f16}) {{
  %k = arith.constant 2.0 : f16
  %tmp = pto.alloc_tile : {u8}
  %dst = pto.alloc_tile : {i32}
  %cdst = pto.alloc_tile : {i32}
  pto.tgather ins(%src, %k, %tmp : {f16}, f16, {u8}) outs(%dst, %cdst : {i32}, {i32}) {{offset = 7 : i32}}
  pto.tprint ins(%dst : {i32})
  pto.tprint ins(%cdst : {i32})
  return
}}"""
    x = np.zeros((1, 32), np.float16)
    x[0, [3, 10, 31]] = 2.0
    out = io.StringIO()
    pto.run_text(text, {"src": x}, "a2a3", stdout=out)
    printed = out.getvalue().splitlines()
    assert printed[1].startswith("[[10 17 38  0") and printed[3].startswith("[[3 0 0")
