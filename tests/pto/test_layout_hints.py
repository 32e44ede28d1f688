"""Layout errors say which layout an op accepts and how to get it: the declaration that works, or the op that
takes the tile instead (issue 22). Each hint is then followed and the op runs."""

import numpy as np
import pytest

import tilesim.pto as pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile

F32_ONE = np.float32(1.0).view(np.uint32)


def _reduced(rows=8):
    return Tile("vec", "f32", rows, 1, blayout="col_major")


def _err(fn, *args, **kw) -> TilesimError:
    with pytest.raises(TilesimError) as e:
        fn(*args, **kw)
    return e.value


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("op", ["tmuls", "tadds"])
def test_tile_scalar_ops_refusing_a_row_reduce_result_name_the_ops_that_take_it(op, target):
    e = _err(getattr(pto, op), _reduced(), _reduced(), 2.0, target=target)
    assert e.rule == "pto.op.layout" and "TROWEXPANDADD/SUB/MUL/DIV/MAX/MIN (Mode 1)" in str(e)
    assert "!pto.tile_buf<vec, Rx8xf32, v_col=1>" in str(e)
    # following the hint: the reduce into an ND tile with one valid column, which the op takes
    x = Tile("vec", "f32", 8, 64)
    x.bits[...] = F32_ONE
    r, out = Tile("vec", "f32", 8, 8, valid=(8, 1)), Tile("vec", "f32", 8, 8, valid=(8, 1))
    pto.trowsum(r, x, target=target)
    getattr(pto, op)(out, r, 2.0, target=target)
    assert out.bits[:, 0].view(np.float32).tolist() == [128.0 if op == "tmuls" else 66.0] * 8  # the row sum 64, then *2 or +2


@pytest.mark.parametrize("target", ["a2a3", "a5"])
def test_trowexpand_of_a_col_major_tile_is_refused_on_npus_with_the_way_round(target):
    e = _err(pto.trowexpand, Tile("vec", "f32", 8, 64), _reduced(), target=target)
    assert e.rule == "pto.op.layout" and "TROWEXPANDADD it onto a tile of zeros (TEXPANDS 0.0)" in str(e)
    assert "target cpu takes every layout for TROWEXPAND; a2a3 and a5 do not" in str(e)
    pto.trowexpand(Tile("vec", "f32", 8, 64), _reduced(), target="cpu")  # as the message says
    zeros, col = Tile("vec", "f32", 8, 64), _reduced()
    col.bits[:, 0] = np.arange(8, dtype=np.float32).view(np.uint32)
    pto.trowexpandadd(zeros, zeros, col, target=target)
    assert (zeros.bits.view(np.float32) == np.arange(8, dtype=np.float32)[:, None]).all()


def test_mode_2_broadcast_needs_32_bytes_or_a_mode_1_tile():
    d = Tile("vec", "f32", 8, 64)
    e = _err(pto.trowexpandadd, d, d, Tile("vec", "f32", 8, 16, valid=(8, 4)), target="a5")
    assert e.rule == "pto.op.expand_shape" and "needs 8 valid columns" in str(e)
    assert "!pto.tile_buf<vec, 8x1xf32, blayout=col_major>" in str(e)


@pytest.mark.parametrize("which, declaration", [
    ("a", "blayout=col_major, slayout=row_major, fractal=512> (PTOAS gives a loc=left"),
    ("b", "loc=right, dtype=T, rows=K, cols=N, blayout=row_major, slayout=col_major"),
    ("c", "loc=acc, dtype=f32, rows=M, cols=N, blayout=col_major, slayout=row_major, fractal=1024"),
])
def test_tmatmul_layout_errors_give_the_tile_buf_that_works(which, declaration):
    a = Tile("left", "f16", 16, 32, blayout="col_major", slayout="row_major")
    b = Tile("right", "f16", 32, 16, blayout="row_major", slayout="col_major")
    c = Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major", fractal=1024)
    bad = {"a": Tile("left", "f16", 16, 32, blayout="col_major", slayout="col_major"),
           "b": Tile("right", "f16", 32, 16, blayout="col_major", slayout="row_major"),
           "c": Tile("acc", "f32", 16, 16, blayout="row_major", slayout="col_major", fractal=1024)}[which]
    ops = {"a": a, "b": b, "c": c, which: bad}
    e = _err(pto.tmatmul, ops["c"], ops["a"], ops["b"], target="a5")
    assert e.rule == "pto.op.layout" and declaration in str(e)
    pto.tmatmul(c, a, b, target="a5")


def test_no_acc_to_vec_tmov_on_a2a3_says_tstore():
    vec, acc = Tile("vec", "f32", 16, 16), Tile("acc", "f32", 16, 16, blayout="col_major", slayout="row_major",
                                                  fractal=1024)
    e = _err(pto.tmov, vec, acc, target="a2a3")
    assert e.rule == "pto.op.loc" and "TSTORE it to global memory and TLOAD it into the vec tile" in str(e)
    pto.tmov(vec, acc, target="a5")
