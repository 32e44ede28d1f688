"""The ConvTile layout folders (PTO172-PTO174): TLOAD into a ConvTile (tloadconv), TLOAD + TSTORE of an
NDC1HWC0 ConvTile (tstore_conv), TEXTRACT of FRACTAL_Z fractals into a Right tile (textract_conv) and TTRANS
between ConvTile layouts (ttrans_conv). Where a kernel points a ConvTile at a vec tile's storage
(``convTile.data() = vecTile.data()``), the adapter fills the ConvTile's storage from the same file."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import ints
from .memory import pack, unpack

#: the MX element types of ttrans_conv's ``test_ttrans_MX`` (compared as bytes there)
MX_DTYPES = {"float8_e8m0_t": "f8e8m0", "float8_e4m3_t": "f8e4m3", "float4_e2m1x2_t": "f4e2m1"}


def _nums(args: list[str]) -> list[int]:
    """Template arguments as integers, products such as ``3 * 16`` multiplied out."""
    return [int(np.prod(ints([f.strip() for f in a.split("*")]))) for a in args]


def _flat(case, dt: str, n: int) -> np.ndarray:
    """The first n lanes of ``input.bin`` (a packed 4-bit file unpacked to one code a lane)."""
    if dt in ("f4e2m1", "f4e1m2"):
        return unpack(np.fromfile(case.dir / "input.bin", np.uint8, n // 2))
    return case.read("input.bin", dt, 1, n).ravel()


def run_tloadconv(folder: Path, st: Path, verbose: bool) -> Row:
    """``tload_test<key, T>``: the kernel's ``launch_key`` runs ``runTloadDynamic<T, N, C1, H, W, Layout>``
    (NC1HWC0: global and tile (N, C1, H, W, C0); FRACTAL_Z: global (C1, H, W, N, C0) into the 4-D tile
    (C1*H*W, N/16, 16, C0)) or ``runTloadFractalZ5D<T, C1, H, W, N>`` (global and tile (C1, H, W, N, C0)); the
    tile's storage is compared with golden.bin at main.cpp's eps 0."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    launches = {k: (f, [a.strip() for a in args.split(",")]) for k, f, args in
                re.findall(r"launch_(\d+)\([^)]*\)\s*\{\s*(runTload\w+)<([^>]*)>", kernel)}

    def form(case):
        if case.dir is None:
            return "gen_data.py made no data"
        return None if case.args and case.args[0] in launches and case.dtype else "not the folder's form"

    for case in each_case(folder, st, row, form, exempt=lambda c: True):
        with refusals(row, case):
            fn, args = launches[case.args[0]]
            dt, c0 = case.dtype, 32 // pto.get_dtype(case.dtype).size
            if fn == "runTloadFractalZ5D":
                C1, H, W, N = _nums(args[1:5])
                g = t = (C1, H, W, N, c0)
                layout = "FRACTAL_Z"
            elif args[5].endswith("NC1HWC0"):
                N, C1, H, W = _nums(args[1:5])
                g = t = (N, C1, H, W, c0)
                layout = "NC1HWC0"
            else:
                N, C1, H, W = _nums(args[1:5])
                g, t, layout = (C1, H, W, N, c0), (C1 * H * W, N // 16, 16, c0), "FRACTAL_Z"
            data = _flat(case, dt, int(np.prod(g)))
            dst = pto.tload(pto.ConvTile(dt, t, layout), data.reshape(g).view(pto.get_dtype(dt).np), target="cpu")
            case.eps = 0.0
            score(row, case, verbose, (dst.bits.ravel(), case.read("golden.bin", dt, 1, dst.bits.size).ravel(), dt))
    return row


def run_tstore_conv(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tstore<T, 2, D, C1, H, W, C0, ..., N>``: an NDC1HWC0 global (N, D, C1, H, W, C0) loaded into a mat
    ConvTile of that shape and stored into a global of zeros, compared with golden.bin."""
    row = Row(folder.name)

    def form(case):
        return None if len(case.args) == 13 and case.args[1] == "2" else "not the folder's form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            a = _nums(case.args[1:])
            shape = (a[-1], *a[1:6])
            dt = case.dtype
            gm = _flat(case, dt, int(np.prod(shape))).reshape(shape).view(pto.get_dtype(dt).np)
            src = pto.tload(pto.ConvTile(dt, shape, "NDC1HWC0"), gm, target="cpu")
            out = pto.tstore(np.zeros_like(gm), src, target="cpu")
            score(row, case, verbose, (out.view(src.dtype.lane).ravel(),
                                       case.read("golden.bin", dt, 1, out.size).ravel(), dt))
    return row


def run_textract_conv(folder: Path, st: Path, verbose: bool) -> Row:
    """``textract_test_4d<T, C1HW, N1, N0, C0, ROWS, COLS, idxR, idxC>``: a mat FRACTAL_Z ConvTile
    (C1HW, N1, N0, C0) holding input.bin, TEXTRACT at (idxR, idxC) into a Right ROWS x COLS tile (BLayout
    RowMajor, SLayout ColMajor); the tile's storage is compared with golden.bin."""
    row = Row(folder.name)

    def form(case):
        return None if len(case.args) == 9 else "not the folder's form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            c1hw, n1, n0, c0, rows, cols, ir, ic = _nums(case.args[1:])
            dt = case.dtype
            src = pto.ConvTile(dt, (c1hw, n1, n0, c0), "FRACTAL_Z")
            src.bits[...] = _flat(case, dt, src.bits.size).reshape(src.shape)
            dst = pto.Tile("right", dt, rows, cols, slayout="col_major")
            pto.textract(dst, src, ir, ic, target="cpu")
            score(row, case, verbose, (dst.storage(), case.read("golden.bin", dt, 1, rows * cols).ravel(), dt))
    return row


def _ttrans_shapes(fmt: int, s: list[int], d: list[int], g: int, c0: int):
    """(src layout, shape, dst layout, shape) of ``LaunchTTRANSConv``'s format."""
    return {0: ("NCHW", s[:4], "NC1HWC0", (s[0], -(-s[1] // c0), s[2], s[3], c0)),
            1: ("NC1HWC0", s, "NCHW", (s[0], s[1] * s[4], s[2], s[3])),
            2: ("NC1HWC0", s, "FRACTAL_Z", (d[0] * d[1] * d[2], d[3], d[4], d[5])),
            3: ("GNCHW", (g, *s[:4]), "GNC1HWC0", (g, s[0], -(-s[1] // c0), s[2], s[3], c0)),
            4: ("GNC1HWC0", (g, *s), "FRACTAL_Z", (g * d[0] * d[1] * d[2], d[3], d[4], d[5])),
            5: ("NCDHW", s, "FRACTAL_Z_3D", tuple(d[:4]))}[fmt]


def run_ttrans_conv(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_ttrans<T, format, s0..s4, d0..d4[, d5, G]>`` (and ``test_ttrans_MX`` of the fp8 and packed fp4
    types, compared as bytes): input.bin in a ConvTile of the format's source layout, TTRANS into a ConvTile of
    zeros, its storage compared with golden.bin."""
    row = Row(folder.name)

    def dtype(case) -> str | None:
        return MX_DTYPES.get(case.args[0]) or CXX_DTYPES.get(case.args[0])

    def form(case):
        if case.dir is None:
            return "gen_data.py made no data"
        ok = len(case.args) in (12, 13, 14) and dtype(case) and case.args[1] in "012345"
        return None if ok else "not the folder's form"

    for case in each_case(folder, st, row, form, exempt=lambda c: c.args[0] in MX_DTYPES):
        with refusals(row, case):
            dt = dtype(case)
            a = _nums(case.args[1:])
            s, d, g = a[1:6], [*a[6:], 1, 1][:6], (a[12] if len(a) > 12 else 1)
            c0 = pto.ConvTile(dt, (1, 1, 1, 1, 1)).c0
            sl, ss, dl, ds = _ttrans_shapes(a[0], s, d, g, c0)
            src = pto.ConvTile(dt, tuple(ss), sl, loc="vec")
            src.bits[...] = _flat(case, dt, src.bits.size).reshape(src.shape)
            dst = pto.ttrans(pto.ConvTile(dt, tuple(ds), dl, loc="vec"), src, target="cpu")
            out = dst.bits.ravel()
            if dt in MX_DTYPES.values():
                case.eps = 0.001
                got = pack(out) if dt == "f4e2m1" else out
                score(row, case, verbose, (got, np.fromfile(case.dir / "golden.bin", np.uint8, got.size), "u8"))
            else:
                score(row, case, verbose, (out, case.read("golden.bin", dt, 1, out.size).ravel(), dt))
    return row


ADAPTERS = {"tloadconv": run_tloadconv, "tstore_conv": run_tstore_conv, "textract_conv": run_textract_conv,
            "ttrans_conv": run_ttrans_conv}
