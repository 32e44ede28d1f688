"""TLOAD, TSTORE, TEXTRACT and TTRANS of ConvTiles (PTO172-PTO174), stored in ``<op>.conv.npz``. Each ConvTile
views a plain tile's storage (the driver points it at the tile, as pto-isa's st kernels do): ``C0`` lanes a row,
its first ``prod(shape)`` lanes; a global tensor is a ``gm`` array of its flat elements. ``args["conv"]`` names
each ConvTile role's layout and shape, ``args["global"]`` the global tensor's shape."""

from __future__ import annotations

import numpy as np

from tilesim.pto import get_dtype

from .common import CXX_TYPE, Case, Spec, rand_lanes, sentinel


def _c0(dt: str) -> int:
    return 32 // get_dtype(dt).size


def _holder(role: str, dt: str, shape, loc: str) -> Spec:
    """The plain tile whose storage a ConvTile of ``shape`` views: C0 lanes a row."""
    c0 = _c0(dt)
    return Spec(role, dt, -(-int(np.prod(shape)) // c0), c0, loc=loc)


def _conv(name: str, role: str, dt: str, layout: str, shape, loc: str) -> str:
    """C++ declaring ConvTile ``name`` over tile ``role``'s storage."""
    nbytes = int(np.prod(shape)) * get_dtype(dt).size
    return (f"ConvTile<TileType::{loc.capitalize()}, {CXX_TYPE[dt]}, {nbytes}, Layout::{layout}, "
            f"ConvTileShape<{', '.join(map(str, shape))}>> {name}; {name}.data() = {role}.data();")


def _global(dt: str, layout: str, g) -> str:
    """C++ declaring GlobalTensor ``g`` (contiguous; NDC1HWC0's five dims leave C0 to the strides)."""
    dims = list(g[:5])
    inner = g[5] if len(g) == 6 else 1
    strides = [int(np.prod(dims[k + 1:])) * inner for k in range(5)]
    return (f"GlobalTensor<{CXX_TYPE[dt]}, Shape<{', '.join(map(str, dims))}>, Stride<{', '.join(map(str, strides))}>, "
            f"Layout::{layout}> g(gm.data());")


#: TLOAD: (dtype, layout, tile shape, global shape); the last two read a global of another shape by the
#: simulator's walk (decision PTO172)
CONV_LOADS = (("f16", "NC1HWC0", (2, 2, 3, 4, 16), (2, 2, 3, 4, 16)),
              ("i8", "NC1HWC0", (1, 2, 2, 3, 32), (1, 2, 2, 3, 32)),
              ("f32", "NDC1HWC0", (2, 2, 3, 2, 3, 8), (2, 2, 3, 2, 3, 8)),
              ("u16", "FRACTAL_Z", (12, 1, 16, 16), (2, 2, 3, 16, 16)),
              ("i32", "FRACTAL_Z", (2, 2, 3, 20, 8), (2, 2, 3, 20, 8)),
              ("f32", "NC1HWC0", (1, 2, 3, 4, 8), (2, 3, 3, 5, 8)),
              ("i16", "FRACTAL_Z", (2, 2, 3, 5, 16), (3, 2, 3, 7, 16)))
#: TSTORE: (dtype, layout, shape), into a global of random lanes
CONV_STORES = (("f32", "NC1HWC0", (2, 2, 3, 4, 8)), ("f16", "NDC1HWC0", (2, 2, 2, 3, 2, 16)),
               ("u8", "NC1HWC0", (1, 1, 2, 5, 32)))
#: TEXTRACT: (dtype, layout, source shape, dst rows x cols, dst valid, index row, index col)
CONV_EXTRACTS = (("f16", "FRACTAL_Z", (6, 3, 16, 16), (48, 32), (40, 30), 16, 16),
                 ("f32", "FRACTAL_Z", (2, 2, 3, 32, 8), (16, 32), (16, 17), 16, 0),
                 ("i8", "FRACTAL_Z_3D", (4, 2, 16, 32), (64, 16), (64, 16), 32, 16),
                 ("i32", "FRACTAL_Z", (4, 2, 16, 8), (24, 16), (17, 9), 8, 16))
#: TTRANS: (dtype, src layout, src shape, dst layout, dst shape)
CONV_TRANSES = (("f32", "NCHW", (3, 11, 2, 3), "NC1HWC0", (3, 2, 2, 3, 8)),
                ("u16", "NC1HWC0", (2, 2, 3, 2, 16), "NCHW", (2, 32, 3, 2)),
                ("i8", "NC1HWC0", (19, 1, 2, 3, 32), "FRACTAL_Z", (6, 2, 16, 32)),
                ("f16", "GNCHW", (2, 3, 20, 2, 2), "GNC1HWC0", (2, 3, 2, 2, 2, 16)),
                ("i32", "GNC1HWC0", (2, 9, 2, 2, 1, 8), "FRACTAL_Z", (8, 1, 16, 8)),
                ("f32", "NCDHW", (17, 10, 2, 2, 3), "FRACTAL_Z_3D", (24, 2, 16, 8)),
                ("f8e8m0", "NCHW", (2, 40, 1, 3), "NC1HWC0", (2, 2, 1, 3, 32)))


#: the bf16 cases (the g++ build, PTO88)
CONV_BF16 = {"CONV_LOADS": (("bf16", "NC1HWC0", (1, 2, 4, 4, 16), (1, 2, 4, 4, 16)),
                            ("bf16", "FRACTAL_Z", (6, 1, 16, 16), (2, 1, 3, 16, 16))),
             "CONV_STORES": (("bf16", "NDC1HWC0", (1, 2, 1, 2, 3, 16)),),
             "CONV_EXTRACTS": (("bf16", "FRACTAL_Z", (4, 2, 16, 16), (32, 32), (30, 20), 16, 0),),
             "CONV_TRANSES": (("bf16", "GNCHW", (1, 2, 18, 2, 4), "GNC1HWC0", (1, 2, 2, 2, 4, 16)),
                              ("bf16", "NC1HWC0", (17, 1, 2, 2, 16), "FRACTAL_Z", (4, 2, 16, 16)))}


def convtile_cases(rng) -> list[Case]:
    """Every ConvTile form of the four ops on target cpu, the destination's untouched lanes kept (sentinel)."""
    cases = []
    for dt, layout, shape, g in CONV_LOADS:
        dst, gm = _holder("dst", dt, shape, "mat"), Spec("gm", dt, 1, int(np.prod(g)), loc="gm")
        call = f"{{ {_conv('cv', 'dst', dt, layout, shape, 'mat')} {_global(dt, layout, g)} TLOAD(cv, g); }}"
        cases.append(Case("tload", call, (dst, gm), {"dst": (dst.rows, dst.cols), "gm": (1, gm.cols)},
                          {"dst": sentinel(dt, (dst.rows, dst.cols)), "gm": rand_lanes(rng, dt, (1, gm.cols))},
                          args={"conv": {"dst": [layout, list(shape)]}, "global": list(g)}, suffix=".conv"))
    for dt, layout, shape in CONV_STORES:
        src, gm = _holder("src", dt, shape, "mat"), Spec("dst_gm", dt, 1, int(np.prod(shape)), loc="gm")
        call = (f"{{ {_conv('cv', 'src', dt, layout, shape, 'mat')} {_global(dt, layout, shape)} "
                "TSTORE(g, cv); }").replace("gm.data()", "dst_gm.data()")
        cases.append(Case("tstore", call, (gm, src), {"dst_gm": (1, gm.cols), "src": (src.rows, src.cols)},
                          {"dst_gm": rand_lanes(rng, dt, (1, gm.cols)),
                           "src": rand_lanes(rng, dt, (src.rows, src.cols))},
                          args={"conv": {"src": [layout, list(shape)]}, "global": list(shape)}, suffix=".conv"))
    for dt, layout, shape, (rows, cols), valid, ir, ic in CONV_EXTRACTS:
        src, dst = _holder("src", dt, shape, "mat"), Spec("dst", dt, rows, cols, "row_major", "col_major", loc="right")
        call = f"{{ {_conv('cv', 'src', dt, layout, shape, 'mat')} TEXTRACT(dst, cv, {ir}, {ic}); }}"
        cases.append(Case("textract", call, (dst, src), {"dst": valid, "src": (src.rows, src.cols)},
                          {"dst": sentinel(dt, (rows, cols)), "src": rand_lanes(rng, dt, (src.rows, src.cols))},
                          args={"conv": {"src": [layout, list(shape)]}, "index_row": ir, "index_col": ic},
                          suffix=".conv"))
    for dt, sl, ss, dl, ds in CONV_TRANSES:
        src, dst = _holder("src", dt, ss, "vec"), _holder("dst", dt, ds, "vec")
        call = (f"{{ {_conv('cs', 'src', dt, sl, ss, 'vec')} {_conv('cd', 'dst', dt, dl, ds, 'vec')} "
                "TTRANS(cd, cs, src); }")
        cases.append(Case("ttrans", call, (dst, src), {"dst": (dst.rows, dst.cols), "src": (src.rows, src.cols)},
                          {"dst": sentinel(dt, (dst.rows, dst.cols)), "src": rand_lanes(rng, dt, (src.rows, src.cols))},
                          args={"conv": {"src": [sl, list(ss)], "dst": [dl, list(ds)]}}, suffix=".conv"))
    return cases
