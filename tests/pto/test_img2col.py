"""TIMG2COL against a scalar oracle (one element at a time, Python ints), the SET_* registers it reads on the
NPUs, and every rule (PTO140)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, StateError, TilesimError, UnsupportedError
from tilesim.pto import BlockConfig, ConvTile, Tile

from .helpers import rand_bits, seed


def _oracle(dst: Tile, src: ConvTile, pm: int, pk: int, cols: int) -> np.ndarray:
    """dst's logical lanes after the op, written from the formula of docs/isa/TIMG2COL.md and the simulator's
    loop, element by element; ``cols`` columns of each valid row are written."""
    N, D, C1, H, W, C0 = src.fmap_shape
    pl, pr, pt, pb = src.pad_list

    def out(size, lo, hi, dil, f, s):
        num = size + lo + hi - dil * (f - 1) - 1
        return int(num / s) + 1                      # C++ truncates toward zero

    oh = out(H, pt, pb, src.dilation_h, src.filter_h, src.stride_h)
    ow = out(W, pl, pr, src.dilation_w, src.filter_w, src.stride_w)
    fmap = src.bits.reshape(N, D, C1, H, W, C0)
    want = dst.bits.copy()
    for r in range(dst.valid_rows):
        m = pm + r
        n, rem = divmod(m, D * oh * ow)
        d, rem = divmod(rem, oh * ow)
        y, x = divmod(rem, ow)
        for c in range(cols):
            k = pk + c
            c1, within = divmod(k, src.filter_h * src.filter_w * C0)
            kh, kw = divmod(within // C0, src.filter_w)
            ih, iw = y * src.stride_h + kh * src.dilation_h - pt, x * src.stride_w + kw * src.dilation_w - pl
            ok = n < N and c1 < C1 and 0 <= ih < H and 0 <= iw < W
            want[r, c] = fmap[n, d, c1, ih, iw, k % C0] if ok else src.pad_bits
    return want


def _conv(rng, dt: str, shape, **kw) -> ConvTile:
    src = ConvTile(dt, shape, "NC1HWC0" if len(shape) == 5 else "NDC1HWC0", fmap_h=shape[-3], fmap_w=shape[-2],
                   **kw)
    src.bits[...] = rand_bits(rng, dt, src.shape)
    return src


def _left(dt: str, rows: int, cols: int, valid, target: str = "a5") -> Tile:
    """A Left tile in the layout TIMG2COL writes on ``target``: Nz, or A2A3's Zz (PTO187)."""
    t = Tile("left", dt, rows, cols, valid=valid, blayout="row_major" if target == "a2a3" else "col_major",
             slayout="row_major")
    t.bits[...] = 0x5A
    return t


CONFIGS = [  # dtype, shape, settings, dst (rows, cols, valid), (posM, posK)
    ("f32", (1, 1, 3, 4, 8), dict(pad_list=(1, 0, 1, 0), filter_h=2, filter_w=2, pad_value=-1.0), (16, 16, (4, 16)),
     (1, 8)),
    ("f16", (2, 2, 5, 6, 16), dict(pad_list=(2, 1, 1, 2), filter_h=3, filter_w=3, stride_h=2, dilation_w=2),
     (32, 64, (30, 50)), (5, 20)),
    ("i8", (1, 1, 4, 4, 32), dict(filter_h=2, filter_w=2, stride_h=2, stride_w=2), (16, 64, (16, 40)), (0, 32)),
    ("f32", (1, 2, 2, 3, 3, 8), dict(pad_list=(0, 1, 1, 0), filter_h=2), (32, 24, (20, 24)), (3, 0)),
    ("bf16", (1, 1, 1, 2, 16), dict(filter_h=3, stride_h=3, pad_value=2.5), (16, 16, (16, 16)), (0, 0)),
]


@pytest.mark.parametrize("dt,shape,kw,d,pos", CONFIGS)
def test_timg2col_cpu_matches_the_oracle(dt, shape, kw, d, pos):
    src = _conv(np.random.default_rng(seed("timg2col", dt, shape)), dt, shape, **kw)
    dst = _left(dt, *d)
    want = _oracle(dst, src, *pos, dst.valid_cols)
    pto.timg2col(dst, src, *pos, target="cpu")
    assert (dst.bits == want).all()


@pytest.mark.parametrize("target", ["a2a3", "a5"])
@pytest.mark.parametrize("dt,shape,kw,d,pos", CONFIGS[:3])
def test_timg2col_npu_reads_the_registers_and_writes_whole_blocks(target, dt, shape, kw, d, pos):
    src = _conv(np.random.default_rng(seed("timg2col", target, dt)), dt, shape, **kw)
    dst, cfg = _left(dt, *d, target), BlockConfig()
    untouched = dst.bits.copy()
    with pytest.raises(StateError, match="pto.timg2col.config"):
        pto.timg2col(dst, src, *pos, mode="b_manual", config=cfg, target=target)
    assert (dst.bits == untouched).all()
    for op in (pto.setfmatrix, pto.set_img2col_padding, pto.set_img2col_rpt):
        op(src, mode="b_manual", config=cfg, target=target)
    per = 32 // src.dtype.size
    want = _oracle(dst, src, *pos, -(-dst.valid_cols // per) * per)
    pto.timg2col(dst, src, *pos, mode="b_manual", config=cfg, target=target)
    assert (dst.bits == want).all()
    auto, acfg = _left(dt, *d, target), BlockConfig()
    pto.timg2col(auto, src, *pos, mode="a_auto", config=acfg, target=target)
    assert (auto.bits == want).all() and acfg.banks["a"].fmatrix == src.fmatrix_word()   # auto writes them


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 2), st.integers(1, 2), st.integers(1, 5), st.integers(1, 5), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.lists(st.integers(0, 2), min_size=4, max_size=4),
       st.integers(0, 40), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_timg2col_cpu_property(n, c1, h, w, fh, fw, s, dil, pads, pm, pk, salt):
    rng = np.random.default_rng(salt)
    src = _conv(rng, "i32", (n, c1, h, w, 8), filter_h=fh, filter_w=fw, stride_h=s, stride_w=3 - s % 3,
                dilation_h=dil, pad_list=tuple(pads), pad_value=-7)
    dst = _left("i32", 16, 24, (int(rng.integers(0, 17)), int(rng.integers(0, 25))))
    if _out_pixels(src) < 1:
        with pytest.raises(GeometryError, match="pto.timg2col.out"):
            pto.timg2col(dst, src, pm, pk, target="cpu")
        return
    want = _oracle(dst, src, pm, pk, dst.valid_cols)
    pto.timg2col(dst, src, pm, pk, target="cpu")
    assert (dst.bits == want).all()


def _out_pixels(src: ConvTile) -> int:
    _, _, _, H, W, _ = src.fmap_shape
    pl, pr, pt, pb = src.pad_list
    oh = int((H + pt + pb - src.dilation_h * (src.filter_h - 1) - 1) / src.stride_h) + 1
    ow = int((W + pl + pr - src.dilation_w * (src.filter_w - 1) - 1) / src.stride_w) + 1
    return min(oh, ow)


def test_register_words_and_banks():
    """The words are A5's/A2A3's encodings; A2A3 has one repeat and one padding register for both modes."""
    src = ConvTile("i8", (1, 1, 2, 3, 32), fmap_h=2, fmap_w=3, pad_list=(1, 2, 3, 4), pad_value=-2,
                   repeat_stride=5, repeat_time=1, repeat_mode=1, dst_stride=7, dst_mposition=9)
    assert src.fmatrix_word() == 0x04030201_00020003
    assert src.padding_word() == 0xFEFE
    assert src.rpt_word() == 0x0009_0007_01_01_0005
    for target, bank in (("a5", "b"), ("a2a3", "a")):
        cfg = BlockConfig()
        pto.set_img2col_rpt(src, mode="b_manual", config=cfg, target=target)
        pto.set_img2col_padding(src, mode="b_manual", config=cfg, target=target)
        pto.setfmatrix(src, mode="b_manual", config=cfg, target=target)
        assert cfg.banks["b"].fmatrix == src.fmatrix_word() and cfg.banks["a"].fmatrix is None
        assert cfg.banks[bank].rpt == src.rpt_word(with_dst=target == "a5")
        assert cfg.banks[bank].padding == 0xFEFE
    cfg = BlockConfig()
    pto.setfmatrix(src, mode="a_auto", config=cfg, target="a5")      # auto: TIMG2COL writes them itself
    assert cfg.banks["a"].fmatrix is None
    pto.setfmatrix(src, target="a5")                                 # the default registers
    assert pto.block_config().banks["a"].fmatrix == src.fmatrix_word()
    pto.block_config().reset()


def _ok():
    src = ConvTile("f32", (1, 1, 2, 2, 8), fmap_h=2, fmap_w=2)
    return src, _left("f32", 16, 16, (4, 16))


@pytest.mark.parametrize("change,rule,cls,target", [
    (lambda s, d: (s, Tile("vec", "f32", 16, 16)), "pto.op.loc", GeometryError, "cpu"),
    (lambda s, d: (s, Tile("left", "f32", 16, 16, blayout="row_major", slayout="row_major")), "pto.op.layout",
     GeometryError, "cpu"),
    (lambda s, d: (s, _left("i32", 16, 16, (4, 16))), "pto.op.same_dtype", TilesimError, "cpu"),
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 8), loc="vec"), d), "pto.op.loc", GeometryError, "cpu"),
    (lambda s, d: (Tile("mat", "f32", 4, 8), d), "pto.op.operand", TilesimError, "cpu"),
    (lambda s, d: (ConvTile("u16", (1, 1, 2, 2, 16), fmap_h=2, fmap_w=2), _left("u16", 16, 16, (4, 16), "a2a3")),
     "pto.op.dtype", DtypeError, "a2a3"),
    (lambda s, d: (s, d), "pto.op.layout", GeometryError, "a2a3"),      # an Nz dst: A2A3 writes its Zz Left tile
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 8), stride_w=0), d), "pto.timg2col.stride", GeometryError, "cpu"),
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 8), filter_h=4), d), "pto.timg2col.out", GeometryError, "cpu"),
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 16), fmap_h=2, fmap_w=2), d), "pto.timg2col.c0", GeometryError,
     "a5"),
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 8), fmap_h=2, fmap_w=3), d), "pto.timg2col.fmatrix",
     GeometryError, "a5"),
    (lambda s, d: (ConvTile("f32", (1, 1, 2, 2, 8), fmap_h=2, fmap_w=2, repeat_time=2), d), "pto.timg2col.repeat",
     UnsupportedError, "a5"),
])
def test_timg2col_refusals_leave_dst_alone(change, rule, cls, target):
    src, dst = change(*_ok())
    before, cfg = dst.bits.copy(), BlockConfig()
    with pytest.raises(cls, match=rule):
        pto.timg2col(dst, src, mode="a_auto", config=cfg, target=target)
    assert (dst.bits == before).all() and cfg == BlockConfig()          # no register written either


def test_other_refusals():
    src, dst = _ok()
    with pytest.raises(GeometryError, match="pto.timg2col.pos"):
        pto.timg2col(dst, src, 65536, 0, target="cpu")
    with pytest.raises(TilesimError, match="pto.img2col.mode"):
        pto.timg2col(dst, src, mode="c_manual", target="cpu")
    with pytest.raises(GeometryError, match="pto.setfmatrix.fmap"):
        pto.setfmatrix(ConvTile("f32", (1, 1, 2, 2, 8)), config=BlockConfig(), target="cpu")
    pto.setfmatrix(ConvTile("f32", (1, 1, 2, 2, 8)), config=BlockConfig(), target="a5")   # the NPUs do not check
    with pytest.raises(TilesimError, match="pto.op.operand"):
        pto.set_img2col_rpt(src, config=object(), target="cpu")
    for kw, rule in ((dict(shape=(1, 2, 3, 4)), "pto.convtile.shape"), (dict(layout="NHWC"), "pto.convtile.layout"),
                     (dict(stride_h=256), "pto.convtile.field"), (dict(pad_list=(1, 2)), "pto.convtile.field"),
                     (dict(bogus=1), "pto.convtile.field"), (dict(loc="l9"), "pto.tile.loc")):
        args = {"dtype": "f32", "shape": (1, 1, 2, 2, 8), **kw}
        with pytest.raises(GeometryError, match=rule):
            ConvTile(args.pop("dtype"), args.pop("shape"), **args)
