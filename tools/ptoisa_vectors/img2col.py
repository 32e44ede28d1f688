"""TIMG2COL after SETFMATRIX / SET_IMG2COL_PADDING / SET_IMG2COL_RPT, over a ConvTile whose storage is a Mat
tile's (the driver points the ConvTile at it), into a Left Nz tile (PTO140)."""

from __future__ import annotations

import numpy as np

from tilesim.pto import get_dtype

from .common import CXX_TYPE, Case, Spec, rand_lanes, sentinel

_MODES = {"a_auto": "FMATRIX_A_AUTO", "b_auto": "FMATRIX_B_AUTO", "a_manual": "FMATRIX_A_MANUAL",
          "b_manual": "FMATRIX_B_MANUAL"}
_SETTERS = {"fmap_h": "FmapH", "fmap_w": "FmapW", "filter_h": "FilterH", "filter_w": "FilterW",
            "stride_h": "StrideH", "stride_w": "StrideW", "dilation_h": "DilationH", "dilation_w": "DilationW",
            "channel_size": "ChannelSize"}

#: (dtype, shape, pads l r t b, pad value bits, settings, dst rows x cols, dst valid, (posM, posK), mode)
IMG2COLS = (
    ("f32", (1, 1, 3, 4, 8), (1, 0, 1, 0), 0xBF800000, {"filter_h": 2, "filter_w": 2}, (16, 16), (4, 16),
     (1, 8), "b_manual"),
    ("i8", (1, 1, 4, 4, 32), (0, 0, 0, 0), 0, {"filter_h": 2, "filter_w": 2, "stride_h": 2, "stride_w": 2},
     (16, 32), (4, 32), (0, 32), "b_auto"),
    ("f16", (2, 2, 5, 6, 16), (2, 1, 1, 2), 0x7E55, {"filter_h": 3, "filter_w": 3, "stride_h": 2,
                                                     "dilation_w": 2}, (32, 64), (30, 50), (5, 20), "a_manual"),
    ("f32", (1, 2, 2, 3, 3, 8), (0, 1, 1, 0), 0x7FC12345, {"filter_h": 2}, (32, 24), (20, 24), (3, 0), "a_auto"),
    ("i32", (1, 1, 3, 3, 8), (0, 0, 0, 0), 0x7FFFFFFF, {}, (16, 16), (9, 16), (0, 0), "a_manual"),
    ("u16", (1, 1, 1, 2, 16), (0, 0, 0, 0), 0xFFFF, {"filter_h": 3, "stride_h": 3}, (16, 16), (16, 16), (0, 0),
     "a_manual"),                                               # outH = trunc(-2 / 3) + 1 = 1: all pad rows
    ("f32", (1, 2, 2, 2, 16), (1, 1, 1, 1), 0x00000001, {"filter_h": 2, "filter_w": 2}, (16, 40), (16, 37),
     (2, 3), "a_manual"),                                        # C0 of 64 bytes (cpu only), K past C1
)
IMG2COLS_BF16 = (("bf16", (1, 1, 4, 4, 16), (1, 1, 1, 1), 0xFF80, {"filter_h": 3, "filter_w": 3}, (16, 32),
                  (16, 32), (0, 0), "a_manual"),)


def img2col_cases(rng) -> list[Case]:
    """Each case sets the ConvTile's fields, runs the three SET_* ops and TIMG2COL in the case's mode."""
    cases = []
    for dt, shape, pads, pad_bits, settings, dshape, valid, (pm, pk), mode in IMG2COLS:
        layout = "NC1HWC0" if len(shape) == 5 else "NDC1HWC0"
        settings = {"fmap_h": shape[-3], "fmap_w": shape[-2], **settings}
        src = rand_lanes(rng, dt, (int(np.prod(shape[:-1])), shape[-1]))
        m = f"SetFmatrixMode::{_MODES[mode]}"
        sets = " ".join(f"cv.Set{_SETTERS[k]}({v});" for k, v in settings.items())
        call = (f"{{ using CT = ConvTile<TileType::Mat, {CXX_TYPE[dt]}, {src.size}, Layout::{layout}, "
                f"ConvTileShape<{', '.join(map(str, shape))}>>; CT cv; cv.data() = src.data(); "
                f"const uint8_t pl[4] = {{{', '.join(map(str, pads))}}}; cv.SetPadListArray(pl); {sets} "
                f"uint32_t pw = {pad_bits}u; CT::DType pv; std::memcpy(&pv, &pw, sizeof pv); cv.SetPadValue(pv); "
                f"SETFMATRIX<CT, {m}>(cv); SET_IMG2COL_PADDING<CT, {m}>(cv); SET_IMG2COL_RPT<CT, {m}>(cv); "
                f"TIMG2COL<T_dst, CT, {m}>(dst, cv, {pm}, {pk}); }}")
        specs = (Spec("dst", dt, *dshape, blayout="col_major", slayout="row_major", loc="left"),
                 Spec("src", dt, *src.shape, loc="mat"))
        args = {"shape": list(shape), "layout": layout, "pad_list": list(pads),
                "pad_bits": pad_bits & ((1 << 8 * get_dtype(dt).size) - 1), "settings": settings, "pos_m": pm,
                "pos_k": pk, "mode": mode}
        cases.append(Case("timg2col", call, specs, {"dst": valid, "src": src.shape},
                          {"dst": sentinel(dt, dshape), "src": src}, args=args))
    return cases
