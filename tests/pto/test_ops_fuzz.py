"""Fuzz the new ops' entry points: any operands give a result or a TilesimError, and a trap writes nothing."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile

#: op -> operand kinds after dst: t = tile, i = small integer, s = scalar number, w = quant word
ARITY = {
    "tmov": "t", "textract": "tii", "tinsert": "tii", "textract_fp": "ttii", "tinsert_fp": "ttii",
    "tmatmul_acc": "ttt", "tmatmul_bias": "ttt", "tmatmul_mx": "tttt", "tmatmul_mx_acc": "ttttt",
    "tmatmul_mx_bias": "ttttt", "tconcat": "tt", "tpack": "t", "tfillpad": "t", "tfillpad_inplace": "t",
    "tfillpad_expand": "t", "tprefetch": "t", "tmatmul": "tt", "tgather": "tt", "tsort32": "tt", "thistogram": "tt",
    "trem": "tt", "trems": "ts", "tpartadd": "tt", "tpartmul": "tt", "tpartmax": "tt", "tpartmin": "tt",
    "taxpy": "ts", "taddc": "ttt", "tquant": "tt", "trandom": "iiiiii", "tprint": "",
    "tadddeqrelu": "tts", "taddreluconv": "tt", "tsubreluconv": "tt", "tquant_mx": "tttt", "timg2col": "tii",
}
LOCS = ("vec", "mat", "left", "right", "acc", "bias", "scaling")
LAYOUTS = (("row_major", "none_box"), ("col_major", "none_box"), ("col_major", "row_major"),
           ("row_major", "col_major"), ("row_major", "row_major"))


@st.composite
def tiles(draw):
    dt = draw(st.sampled_from(sorted(pto.DTYPES)))
    size = pto.get_dtype(dt).size
    bl, sl = draw(st.sampled_from(LAYOUTS))
    rows = draw(st.sampled_from([1, 2, 16, 32]))
    cols = draw(st.sampled_from([32 // size, 64 // size, 16, 32]))
    try:
        t = Tile(draw(st.sampled_from(LOCS)), dt, rows, cols, blayout=bl, slayout=sl,
                 pad=draw(st.sampled_from(["null", "zero", "max", "min"])))
    except TilesimError:
        t = Tile("vec", dt, rows, 32 // size)
    t.set_valid(draw(st.integers(0, t.rows)), draw(st.integers(0, t.cols)))
    t.bits[...] = np.asarray(draw(st.lists(st.integers(0, 255), min_size=1, max_size=4)), np.uint8).sum()
    return t


def operand(kind, draw):
    if kind == "t":
        return draw(tiles())
    if kind == "i":
        return draw(st.one_of(st.integers(-3, 40), st.just(1 << 40), st.just(True), st.just(1.5)))
    return draw(st.one_of(st.integers(-5, 5), st.floats(allow_nan=True), st.just("x"), st.just(None)))


@given(data=st.data(), name=st.sampled_from(sorted(ARITY)))
def test_ops_trap_cleanly(data, name):
    dst = data.draw(tiles())
    args = [operand(k, data.draw) for k in ARITY[name]]
    target = data.draw(st.sampled_from(["cpu", "a2a3", "a5"]))
    before = dst.bits.copy()
    kw = {"out": io.StringIO()} if name == "tprint" else {}
    try:
        getattr(pto, name)(dst, *args, target=target, **kw)
    except TilesimError:
        assert (dst.bits == before).all(), "a trapping op wrote its destination"
