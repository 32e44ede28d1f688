"""TGATHER, TSORT32 and THISTOGRAM against the scalar references in oracle_ops."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import Tile

from . import oracle_ops as oo
from .helpers import rand_bits, seed, sentinel


@given(dt=st.sampled_from(["f32", "f16", "i8", "u32", "bf16"]), idt=st.sampled_from(["i32", "u32"]),
       vr=st.integers(1, 4), vc=st.integers(1, 64), s=st.integers(0, 10 ** 6))
def test_tgather_index(dt, idt, vr, vc, s):
    rng = np.random.default_rng(s)
    src = Tile("vec", dt, 3, 64)
    src.bits[...] = rand_bits(rng, dt, src.bits.shape)
    idx = Tile("vec", idt, 4, 64, valid=(vr, vc))
    k = rng.integers(-20, 3 * 64 + 20, size=(4, 64))
    idx.bits[...] = k.astype(np.int64).astype(pto.get_dtype(idt).np).view(idx.bits.dtype)
    dst = Tile("vec", dt, 4, 64, valid=(vr, vc))
    keep = sentinel(dst)
    pto.tgather(dst, src, idx, Tile("vec", idt, 4, 64))
    rows = [[int(x) for x in r] for r in src.bits]
    for i in range(vr):
        for j in range(vc):
            kk = int(idx.values[i, j])
            assert int(dst.bits[i, j]) == oo.gather_index(rows, kk)
    assert (dst.bits[vr:] == keep[vr:]).all() and (dst.bits[:, vc:] == keep[:, vc:]).all()


@pytest.mark.parametrize("pat", sorted(oo.MASKS))
def test_tgather_mask_row_and_col(pat):
    rng = np.random.default_rng(seed("mask", pat))
    src = Tile("vec", "f16", 8, 32, valid=(6, 28))
    src.bits[...] = rand_bits(rng, "f16", src.bits.shape)
    sel = oo.MASKS[pat]
    picked = [int(src.bits[r, c]) for r in range(6) for c in range(28) if sel(c)]
    dst = Tile("vec", "u16", 12, 16)
    keep = sentinel(dst)
    pto.tgather(dst, src, mask_pattern=f"#pto.mask_pattern<{pat}>")
    flat = dst.bits.reshape(-1)
    assert [int(x) for x in flat[: len(picked)]] == picked
    assert (flat[len(picked):] == keep.reshape(-1)[len(picked):]).all()
    rows = [r for r in range(6) if sel(r)]
    dcol = Tile("vec", "f16", len(rows), 32)
    pto.tgather(dcol, src, mask_pattern=pat, axis="col")
    assert dcol.bits[:, :28].tolist() == [[int(x) for x in src.bits[r, :28]] for r in rows]


def test_tgather_checks():
    src = Tile("vec", "f32", 2, 8)
    with pytest.raises(TilesimError) as e:
        pto.tgather(Tile("vec", "f32", 2, 8), src)
    assert e.value.rule == "pto.tgather.form"
    with pytest.raises(TilesimError) as e:
        pto.tgather(Tile("vec", "f32", 2, 8), src, mask_pattern="P1001")
    assert e.value.rule == "pto.tgather.pattern"
    with pytest.raises(DtypeError) as e:
        pto.tgather(Tile("vec", "f32", 2, 8), src, Tile("vec", "i16", 2, 16))
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(GeometryError) as e:
        pto.tgather(Tile("vec", "f32", 2, 8, valid=(2, 4)), src, mask_pattern="P1111")
    assert e.value.rule == "pto.tgather.dst_cols"
    with pytest.raises(GeometryError) as e:
        pto.tgather(Tile("vec", "f32", 2, 8), src, mask_pattern="P0101", axis="col")
    assert e.value.rule == "pto.tgather.dst_rows"


@pytest.mark.parametrize("dt", ["f32", "i32", "f16", "bf16", "i16"])
@pytest.mark.parametrize("vc", [32, 20, 45])
def test_tsort32(dt, vc):
    rng = np.random.default_rng(seed("sort", dt, vc))
    src = Tile("vec", dt, 2, 64, valid=(2, vc))
    src.bits[...] = rand_bits(rng, dt, src.bits.shape, ties=0.6)
    idx = Tile("vec", "u32", 2, 64, valid=(2, vc))
    idx.bits[...] = rng.integers(0, 1 << 32, size=idx.bits.shape, dtype=np.uint64).astype(np.uint32)
    per = 8 // pto.get_dtype(dt).size
    dst = Tile("vec", dt, 2, 256)
    keep = sentinel(dst)
    pto.tsort32(dst, src, idx)
    exp = keep.astype(np.int64)
    for r in range(2):
        for j0 in range(0, vc, 32):
            n = min(32, vc - j0)
            rec = oo.sort32_block([int(x) for x in src.bits[r, j0:j0 + n]], [int(x) for x in idx.bits[r, j0:j0 + n]],
                                  dt)
            exp[r, 2 * j0: 2 * j0 + n * per] = rec
    assert (dst.bits.astype(np.int64) == exp).all()


def test_tsort32_checks():
    src, idx = Tile("vec", "f32", 1, 32), Tile("vec", "u32", 1, 32)
    with pytest.raises(GeometryError) as e:
        pto.tsort32(Tile("vec", "f32", 1, 32), src, idx)
    assert e.value.rule == "pto.tsort32.dst_cols"
    with pytest.raises(DtypeError) as e:
        pto.tsort32(Tile("vec", "f32", 1, 64), src, Tile("vec", "i32", 1, 32))
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(DtypeError) as e:
        pto.tsort32(Tile("vec", "u8", 1, 64), Tile("vec", "u8", 1, 32), idx)
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(GeometryError) as e:
        pto.tsort32(Tile("vec", "f32", 1, 64), src, Tile("vec", "u32", 1, 32, valid=(1, 31)))
    assert e.value.rule == "pto.op.valid_match"


@pytest.mark.parametrize("sdt,byte", [("u16", 1), ("u16", 0), ("u32", 3), ("u32", 2), ("u32", 1), ("u32", 0)])
def test_thistogram(sdt, byte):
    rng = np.random.default_rng(seed("hist", sdt, byte))
    nb = pto.get_dtype(sdt).size
    src = Tile("vec", sdt, 8, 64, valid=(5, 50))
    # few distinct high bytes, so the filters pass often
    hi = rng.integers(0, 3, size=src.bits.shape).astype(np.uint64) << np.uint64(8 * (nb - 1))
    mid = rng.integers(0, 2, size=src.bits.shape).astype(np.uint64) * np.uint64(0x0101) if nb == 4 else 0
    src.bits[...] = (hi | mid | rng.integers(0, 256, size=src.bits.shape).astype(np.uint64)).astype(src.bits.dtype)
    idx = Tile("vec", "u8", 32, 1, valid=(8, 1), blayout="col_major")
    idx.bits[:, 0] = rng.integers(0, 3, size=32)
    dst = Tile("vec", "u32", 8, 256, valid=(5, 256))
    if sdt == "u16":
        pto.thistogram(dst, src, idx, is_msb="true" if byte == 1 else False)
    else:
        pto.thistogram(dst, src, idx, byte=byte)
    for r in range(5):
        vals = [int(x) for x in src.bits[r, :50]]
        if sdt == "u16":
            filters = [] if byte == 1 else [int(idx.bits[r, 0])]
        else:
            filters = [int(idx.bits[k, 0]) for k in range(3 - byte)]
        assert [int(x) for x in dst.bits[r, :256]] == oo.histogram_row(vals, nb, byte, filters)


def test_thistogram_checks():
    src, idx = Tile("vec", "u16", 2, 16), Tile("vec", "u8", 32, 1, blayout="col_major")
    with pytest.raises(GeometryError) as e:
        pto.thistogram(Tile("vec", "u32", 2, 128), src, idx)
    assert e.value.rule == "pto.thistogram.bins"
    with pytest.raises(DtypeError) as e:
        pto.thistogram(Tile("vec", "u32", 2, 256), Tile("vec", "i16", 2, 16), idx)
    assert e.value.rule == "pto.op.dtype"
    with pytest.raises(GeometryError) as e:
        pto.thistogram(Tile("vec", "u32", 2, 256), src, idx, byte=2)
    assert e.value.rule == "pto.thistogram.byte"


_NAN = {"f32": 0x7FC00000, "f16": 0x7E00}


def _records(rng, dt: str, n: int, cols: int) -> Tile:
    """A one-row tile of n sorted (descending) records; values tie often and a NaN shows up now and then."""
    k = 8 // pto.get_dtype(dt).size
    t = Tile("vec", dt, 1, cols, valid=(1, n * k))
    vals = sorted((int(v) for v in rng.integers(-6, 6, n)), reverse=True)
    lanes = rng.integers(0, 1 << (8 * pto.get_dtype(dt).size), (n, k))
    lanes[:, 0] = [oo.encode(v, dt) for v in vals]
    if n and rng.random() < 0.3:
        lanes[rng.integers(0, n), 0] = _NAN[dt]
    t.bits[0, : n * k] = lanes.ravel()
    return t


def _as_records(lanes: np.ndarray, dt: str) -> list[tuple]:
    """(value, lane, lane ...) tuples of a flat lane array; the value decoded by the oracle."""
    k = 8 // pto.get_dtype(dt).size
    rec = lanes.reshape(-1, k)
    return [(float(oo.value(int(r[0]), dt)), *map(int, r)) for r in rec]


@pytest.mark.parametrize("dt", ["f32", "f16"])
@pytest.mark.parametrize("nlists", [2, 3, 4])
@pytest.mark.parametrize("exhausted", [False, True])
def test_tmrgsort_lists_match_the_cpu_merge(dt, nlists, exhausted):
    rng = np.random.default_rng(seed("tmrgsort", dt, nlists, exhausted))
    k = 8 // pto.get_dtype(dt).size
    for _ in range(8):
        sizes = [int(rng.integers(0, 9)) for _ in range(nlists)]
        srcs = [_records(rng, dt, n, 16 * k) for n in sizes]
        room = int(rng.integers(0, sum(sizes) + 2))
        dst = Tile("vec", dt, 1, 64 * k, valid=(1, room * k))
        dst.bits[...] = 3
        tmp = Tile("vec", dt, 1, 64 * k)
        ex = np.full(4, -1, np.int16)
        pto.tmrgsort(dst, ex, *srcs, tmp, exhausted=exhausted, target="a2a3")
        want, pos = oo.mrgsort([_as_records(s.bits[0, : n * k], dt) for s, n in zip(srcs, sizes)], room, exhausted)
        got = _as_records(dst.bits[0, : len(want) * k], dt)
        assert [r[1:] for r in got] == [r[1:] for r in want]
        assert (dst.bits[0, len(want) * k:] == 3).all()
        assert ex.tolist() == pos + [0] * (4 - nlists)


def test_tmrgsort_blocks_and_checks():
    rng = np.random.default_rng(seed("tmrgsort-blocks"))
    src = Tile("vec", "f32", 1, 512)
    for b in range(8):                         # 8 blocks of 32 records (64 lanes), each sorted
        src.bits[0, 64 * b: 64 * (b + 1)] = _records(rng, "f32", 32, 64).bits[0]
    dst = Tile("vec", "f32", 1, 512)
    pto.tmrgsort(dst, src, 64)
    for g in range(2):
        lists = [_as_records(src.bits[0, 256 * g + 64 * b: 256 * g + 64 * (b + 1)], "f32") for b in range(4)]
        want, _ = oo.mrgsort(lists, 128, False)
        got = _as_records(dst.bits[0, 256 * g: 256 * (g + 1)], "f32")
        assert [r[1:] for r in got] == [r[1:] for r in want]
    with pytest.raises(TilesimError) as e:
        pto.tmrgsort(dst, src, 96)
    assert e.value.rule == "pto.tmrgsort.block_len"
    a, b = Tile("vec", "f32", 1, 64), Tile("vec", "f32", 1, 64)
    with pytest.raises(TilesimError) as e:
        pto.tmrgsort(Tile("vec", "f32", 1, 128), None, a, b, Tile("vec", "f32", 1, 64))
    assert e.value.rule == "pto.tmrgsort.tmp_cols"
    with pytest.raises(DtypeError):
        pto.tmrgsort(Tile("vec", "i32", 1, 128), None, Tile("vec", "i32", 1, 64), Tile("vec", "i32", 1, 64),
                     Tile("vec", "i32", 1, 128))
    with pytest.raises(TilesimError) as e:
        pto.tmrgsort(Tile("vec", "f32", 2, 128), None, a, b, Tile("vec", "f32", 1, 128))
    assert e.value.rule == "pto.tmrgsort.rows"


def test_cpu_tmrgsort_does_not_read_tmp():
    """PTO164: the simulator never reads TMRGSORT's tmp, so on cpu a tmp narrower than the sources together
    (pto-isa's top-k kernel: two 1 x TOPK lists, a tmp of TOPK columns) is taken and the merge is the same."""
    rng = np.random.default_rng(seed("tmrgsort-tmp"))
    a, b = _records(rng, "f32", 32, 64), _records(rng, "f32", 32, 64)
    dst = Tile("vec", "f32", 1, 128)
    pto.tmrgsort(dst, None, a, b, Tile("vec", "f32", 1, 8), target="cpu")
    want, _ = oo.mrgsort([_as_records(t.bits[0], "f32") for t in (a, b)], 64, False)
    assert [r[1:] for r in _as_records(dst.bits[0], "f32")] == [r[1:] for r in want]


_ROW = "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols={c}, v_row=1, v_col={c}, blayout=row_major, slayout=none_box, fractal=512, pad=0>"
_MRG = f"""
module {{
  func.func @merge(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %ex: vector<4xi16>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %cnt = arith.constant dense<[7, 50000, 0, 1]> : vector<4xi16>
    %xv = pto.make_tensor_view %x, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c1, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>
    %a = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    %b = pto.partition_view %xv, offsets = [%c0, %c16], sizes = [%c1, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x16xf32>
    %o = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c1, %c32] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x32xf32>
    %s0 = pto.alloc_tile : {_ROW.format(c=16)}
    %s1 = pto.alloc_tile : {_ROW.format(c=16)}
    %d = pto.alloc_tile : {_ROW.format(c=32)}
    %t = pto.alloc_tile : {_ROW.format(c=32)}
    pto.tload ins(%a : !pto.partition_tensor_view<1x16xf32>) outs(%s0 : {_ROW.format(c=16)})
    pto.tload ins(%b : !pto.partition_tensor_view<1x16xf32>) outs(%s1 : {_ROW.format(c=16)})
    pto.tmrgsort ins(%s0, %s1, %t {{exhausted = false}} : {_ROW.format(c=16)}, {_ROW.format(c=16)}, {_ROW.format(c=32)}) outs(%d, %cnt : {_ROW.format(c=32)}, vector<4xi16>)
    pto.tmrgsort ins(%s0, %s1, %t {{exhausted = true}} : {_ROW.format(c=16)}, {_ROW.format(c=16)}, {_ROW.format(c=32)}) outs(%d, %ex : {_ROW.format(c=32)}, vector<4xi16>)
    pto.tstore ins(%d : {_ROW.format(c=32)}) outs(%o : !pto.partition_tensor_view<1x32xf32>)
    return
  }}
}}
"""


def test_tmrgsort_from_text_with_vector_operands():
    """Two 8-record lists merged from a .pto kernel; the executed list is a dense constant or a vector argument."""
    vals = np.array([[9, 7, 5, 3, 2, 1, 0, -1], [8, 8, 6, 4, 2, -3, -4, -5]], np.float32)
    x = np.stack([vals, np.arange(16, dtype=np.float32).reshape(2, 8)], axis=-1).reshape(1, 32)
    y = pto.run_text(_MRG, {"x": x, "ex": np.zeros(4, np.int16)}, "a2a3")["y"].reshape(16, 2)
    lists = [[(float(v), int(i)) for v, i in zip(vals[j], range(8 * j, 8 * j + 8))] for j in (0, 1)]
    want, _ = oo.mrgsort(lists, 16, True)           # the second merge stops when one list is used up
    assert [(float(v), int(i)) for v, i in y[: len(want)]] == want
    with pytest.raises(TilesimError) as e:
        pto.run_text(_MRG, {"x": x, "ex": np.zeros(3, np.int16)}, "a2a3")
    assert e.value.rule == "pto.interp.input"
    with pytest.raises(TilesimError) as e:
        pto.run_text(_MRG.replace("50000", "70000"), {"x": x, "ex": np.zeros(4, np.int16)}, "a2a3")
    assert e.value.rule == "pto.interp.type"


def test_tmrgsort_block_form_on_cpu_takes_what_the_simulator_takes():
    """cpu (PTO71): any block_len of whole records, groups over dst's valid columns; block_len 96 (48 records a
    block) merges one group of 384 lanes against the scalar merge oracle; an odd f32 block_len writes nothing."""
    rng = np.random.default_rng(seed("tmrgsort-blocks-cpu"))
    src = Tile("vec", "f32", 1, 512)
    for b in range(4):
        src.bits[0, 96 * b: 96 * (b + 1)] = _records(rng, "f32", 48, 96).bits[0]
    dst = Tile("vec", "f32", 1, 512)
    dst.bits[...] = 0xA5A5A5A5
    pto.tmrgsort(dst, src, 96, target="cpu")
    lists = [_as_records(src.bits[0, 96 * b: 96 * (b + 1)], "f32") for b in range(4)]
    want, _ = oo.mrgsort(lists, 192, False)
    assert [r[1:] for r in _as_records(dst.bits[0, :384], "f32")] == [r[1:] for r in want]
    assert (dst.bits[0, 384:] == 0xA5A5A5A5).all()
    before = dst.bits.copy()
    pto.tmrgsort(dst, src, 3, target="cpu")
    assert (dst.bits == before).all()
    with pytest.raises(TilesimError) as e:
        pto.tmrgsort(dst, src, 96, target="a5")
    assert e.value.rule == "pto.tmrgsort.block_len"
