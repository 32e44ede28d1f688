"""IMG2COL: the SET_* configuration ops that write a block's IMG2COL registers, and TIMG2COL, which reads a
feature map (:class:`~tilesim.pto.conv.ConvTile`) as an im2col matrix into a Left tile (decision PTO140).

Row ``m = posM + r`` of the matrix is output pixel (n, d, oh, ow) in that order; column ``k = posK + c`` is
(c1, kh, kw, c0) with c0 fastest. The element is the feature map's (n, d, c1, ih, iw, c0) at
``ih = oh*strideH + kh*dilationH - padTop``, ``iw = ow*strideW + kw*dilationW - padLeft``, or the pad value
where that is outside the map (or n, c1 past the map). ``outH = (H + padTop + padBottom -
dilationH*(filterH-1) - 1) / strideH + 1`` with C++'s truncating division, ``outW`` likewise.

``cpu`` reads every setting from the ConvTile, H and W from its shape, as pto-isa's CPU simulator does (its
SET_* ops only check). a2a3 and a5 read H, W and the pads from the bank's FMATRIX register and the pad value
from its padding register, written by the SET_* ops (``*_manual`` modes) or by TIMG2COL itself (``*_auto``),
and write K rounded up to whole 32-byte blocks, as ``img2colv2`` does.
"""

from __future__ import annotations

import numpy as np

from ...errors import StateError, TilesimError, UnsupportedError
from ..conv import FMATRIX_MODES, BlockConfig, ConvTile, block_config
from ..tile import Tile
from ._common import Op

__all__ = ["setfmatrix", "set_img2col_padding", "set_img2col_rpt", "timg2col"]


def _setup(name: str, src, mode: str, config, target) -> tuple[Op, BlockConfig]:
    op = Op(name, target)
    if not isinstance(src, ConvTile):
        op.fail(f"expected a ConvTile, got {type(src).__name__}", "src", "pto.op.operand", type(src).__name__,
                TilesimError)
    if mode not in FMATRIX_MODES:
        op.fail(f"mode must be one of {', '.join(FMATRIX_MODES)}", "mode", "pto.img2col.mode", mode, TilesimError)
    if config is not None and not isinstance(config, BlockConfig):
        op.fail(f"config must be a BlockConfig, got {type(config).__name__}", "config", "pto.op.operand",
                type(config).__name__, TilesimError)
    return op, config if config is not None else block_config()


def _bank(op: Op, mode: str, regs: str) -> str:
    """The bank a mode's ``regs`` ("fmatrix", or "rpt"/"padding") live in: A2A3 has one repeat and one
    padding register, whatever the mode."""
    if regs != "fmatrix" and not op.prof.img2col_banked_rpt:
        return "a"
    return mode[0]


def setfmatrix(src: ConvTile, *, mode: str = "a_manual", config: BlockConfig | None = None,
               target=None) -> BlockConfig:
    """SETFMATRIX: in a ``*_manual`` mode, write src's fmatrix word (fmap W, H and the four pad bytes) to the
    mode's bank; ``*_auto`` modes leave it to TIMG2COL. On ``cpu`` the simulator asserts a non-zero fmap
    (``pto.setfmatrix.fmap``). Returns the registers.

    >>> from tilesim.pto import ConvTile, BlockConfig
    >>> cfg = setfmatrix(ConvTile("f32", (1, 1, 3, 4, 8), fmap_h=3, fmap_w=4), config=BlockConfig())
    >>> hex(cfg.banks["a"].fmatrix)
    '0x30004'
    """
    op, cfg = _setup("setfmatrix", src, mode, config, target)
    if op.prof.img2col_from_tile and not (src.fmap_h and src.fmap_w):
        op.fail(f"fmap H x W = {src.fmap_h} x {src.fmap_w}: the simulator asserts both are non-zero", "src",
                "pto.setfmatrix.fmap", (src.fmap_h, src.fmap_w))
    if mode.endswith("manual"):
        cfg.banks[_bank(op, mode, "fmatrix")].fmatrix = src.fmatrix_word()
    return cfg


def set_img2col_padding(src: ConvTile, *, mode: str = "a_manual", config: BlockConfig | None = None,
                        target=None) -> BlockConfig:
    """SET_IMG2COL_PADDING: in a ``*_manual`` mode, write src's pad value (a one-byte pad repeated in both
    bytes) to the padding register (A2A3 has one; A5 one per bank). Returns the registers."""
    op, cfg = _setup("set_img2col_padding", src, mode, config, target)
    if mode.endswith("manual"):
        cfg.banks[_bank(op, mode, "padding")].padding = src.padding_word()
    return cfg


def set_img2col_rpt(src: ConvTile, *, mode: str = "a_manual", config: BlockConfig | None = None,
                    target=None) -> BlockConfig:
    """SET_IMG2COL_RPT: in a ``*_manual`` mode, write src's repeat word (stride, time, mode; A5 also the dst
    stride and M position) to the repeat register (A2A3 has one; A5 one per bank). Returns the registers."""
    op, cfg = _setup("set_img2col_rpt", src, mode, config, target)
    if mode.endswith("manual"):
        cfg.banks[_bank(op, mode, "rpt")].rpt = src.rpt_word(with_dst=op.prof.img2col_banked_rpt)
    return cfg


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def _npu_settings(op: Op, src: ConvTile, mode: str, cfg: BlockConfig):
    """(H, W, pads, pad lane code, registers to commit) from the bank's registers, or in an auto mode from the
    words TIMG2COL writes itself (committed only once every check has passed: a trap changes no register)."""
    fb, rb = cfg.banks[_bank(op, mode, "fmatrix")], cfg.banks[_bank(op, mode, "rpt")]
    words = (fb.fmatrix, rb.rpt, rb.padding)
    commit = []
    if mode.endswith("auto"):
        words = (src.fmatrix_word(), src.rpt_word(with_dst=op.prof.img2col_banked_rpt), src.padding_word())
        commit = [(fb, "fmatrix", words[0]), (rb, "rpt", words[1]), (rb, "padding", words[2])]
    for word, setter in zip(words, ("SETFMATRIX", "SET_IMG2COL_RPT", "SET_IMG2COL_PADDING")):
        if word is None:
            op.fail(f"mode {mode} reads registers that {setter} has not written on this block (run it first, or "
                    "use an *_auto mode)", "config", "pto.timg2col.config", setter, StateError)
    fmatrix, rpt, padding = words
    if (rpt >> 16) & 0xFF != 1:
        op.fail(f"repeat time {(rpt >> 16) & 0xFF}: tilesim models one repeat (PTO140)", "config",
                "pto.timg2col.repeat", (rpt >> 16) & 0xFF, UnsupportedError)
    h, w = fmatrix >> 16 & 0xFFFF, fmatrix & 0xFFFF
    if (h, w) != (src.dims["H"], src.dims["W"]):
        op.fail(f"the FMATRIX register's fmap H x W = {h} x {w} is not src's {src.dims['H']} x {src.dims['W']}",
                "config", "pto.timg2col.fmatrix", (h, w))
    pads = tuple(fmatrix >> (32 + 8 * i) & 0xFF for i in range(4))
    return h, w, pads, padding & ((1 << 8 * src.dtype.size) - 1), commit


def timg2col(dst: Tile, src: ConvTile, pos_m: int = 0, pos_k: int = 0, *, mode: str = "a_manual",
             config: BlockConfig | None = None, target=None) -> Tile:
    """TIMG2COL: dst's valid region from the im2col matrix of src, from row ``pos_m`` and column ``pos_k``.

    dst is a Left tile in the Nz layout (blayout col_major, slayout row_major; on a2a3 its Left layout Zz,
    blayout row_major) of src's dtype; src a ``mat``
    ConvTile. Rules: ``pto.op.loc``, ``pto.op.layout``, ``pto.op.same_dtype``, ``pto.op.dtype`` (A2A3: i8
    f16 bf16 f32; A5: i8 u8 i16 u16 i32 u32 f16 bf16 f32), ``pto.timg2col.pos`` (0..65535),
    ``pto.timg2col.stride`` (strides and dilations > 0), ``pto.timg2col.out`` (at least one output pixel),
    and on a2a3/a5 ``pto.timg2col.c0`` (C0 is 32 bytes), ``pto.timg2col.config``, ``pto.timg2col.fmatrix``,
    ``pto.timg2col.repeat`` (the registers; PTO140).

    >>> from tilesim.pto import ConvTile, Tile
    >>> src = ConvTile("f32", (1, 1, 2, 2, 8), filter_h=2, filter_w=2, pad_value=-1.0)
    >>> src.values[0, 0, :, :, 0] = [[1, 2], [3, 4]]
    >>> dst = Tile("left", "f32", 16, 32, blayout="col_major", slayout="row_major", valid=(1, 32))
    >>> timg2col(dst, src, target="cpu").values[0, ::8].tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    op, cfg = _setup("timg2col", src, mode, config, target)
    op.tile(dst, "dst", "left")
    if src.loc != "mat":
        op.fail("must be a mat ConvTile", "src", "pto.op.loc", src.loc)
    if src.layout not in ("NC1HWC0", "NDC1HWC0"):
        op.fail("TIMG2COL reads a feature map: an NC1HWC0 or NDC1HWC0 ConvTile", "src", "pto.convtile.layout",
                src.layout)
    if op.prof.left_blayout == "row_major":       # A2A3: its Left tile, Zz (npu/a2a3/TImg2col.hpp; PTO187)
        op.layout(dst, "dst", ("Zz",), "the Zz layout (BLayout RowMajor, SLayout RowMajor), A2A3's Left tile")
    else:
        op.layout(dst, "dst", ("Nz",), "the Nz layout (BLayout ColMajor, SLayout RowMajor)")
    if dst.dtype != src.dtype:
        op.fail(f"must have src's dtype {src.dtype}, not {dst.dtype}", "dst", "pto.op.same_dtype", str(dst.dtype),
                TilesimError)
    op.dtypes("timg2col", (dst.dtype,), ("dtype",))
    for name, v in (("pos_m", pos_m), ("pos_k", pos_k)):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 0 <= v <= 0xFFFF:
            op.fail("must be an integer in 0..65535 (uint16_t)", name, "pto.timg2col.pos", v)
    for name in ("stride_h", "stride_w", "dilation_h", "dilation_w"):
        if getattr(src, name) == 0:
            op.fail(f"{name} is 0 (the output size divides by the stride)", "src", "pto.timg2col.stride", name)
    N, D, C1, H, W, C0 = src.fmap_shape
    cpu = op.prof.img2col_from_tile
    if not cpu and C0 * src.dtype.size != 32:
        op.fail(f"C0 = {C0} {src.dtype} is not one 32-byte block", "src", "pto.timg2col.c0", C0)
    commit = []
    if cpu:
        pads, pad = src.pad_list, src.pad_bits
    else:
        H, W, pads, pad, commit = _npu_settings(op, src, mode, cfg)
    pl, _, pt, _ = pads
    oh = _trunc_div(H + pads[2] + pads[3] - src.dilation_h * (src.filter_h - 1) - 1, src.stride_h) + 1
    ow = _trunc_div(W + pads[0] + pads[1] - src.dilation_w * (src.filter_w - 1) - 1, src.stride_w) + 1
    if oh < 1 or ow < 1:
        op.fail(f"the output is {oh} x {ow} pixels", "src", "pto.timg2col.out", (oh, ow))
    R, C = dst.valid
    if not cpu:
        per = 32 // dst.dtype.size
        C = -(-C // per) * per
    m = pos_m + np.arange(R, dtype=np.int64)[:, None]
    k = pos_k + np.arange(C, dtype=np.int64)[None, :]
    n, rem = m // (D * oh * ow), m % (D * oh * ow)
    d, orow, ocol = rem // (oh * ow), rem % (oh * ow) // ow, rem % ow
    khw = src.filter_h * src.filter_w * C0
    c1, c0, ko = k // khw, k % C0, k % khw // C0
    ih = orow * src.stride_h + ko // src.filter_w * src.dilation_h - pt
    iw = ocol * src.stride_w + ko % src.filter_w * src.dilation_w - pl
    inside = (n < N) & (c1 < C1) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
    fmap = src.bits.reshape(N, D, C1, H, W, C0)
    got = fmap[np.where(inside, n, 0), np.where(inside, d, 0), np.where(inside, c1, 0), np.where(inside, ih, 0),
               np.where(inside, iw, 0), c0]
    dst.bits[:R, :C] = np.where(inside, got, np.asarray(pad, dst.dtype.lane))
    for bank, reg, word in commit:
        setattr(bank, reg, word)
    return dst
