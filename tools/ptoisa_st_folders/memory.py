"""TLOAD's and TSTORE's folders. TLOAD: main.cpp builds the data (each element its flat index) and the golden
(the tile's storage, pad values where it is not valid). TSTORE: a 5-D global
tensor (shape ``g0..g4`` inside a whole ``W0..W4`` array) loaded into a vec tile and stored back. tilesim's
global memory is a 2-D array, so the adapters gather the tensor's elements in the tile's order (the address
arithmetic of the GlobalTensor's strides), load and store that window with tilesim's TLOAD/TSTORE, and scatter
the result back into the whole array."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.dtypes import PACKED
from tilesim.pto.ops.convert_sub_byte import mx_encode

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import ints, tile
from .fillpad import linear, pad_bits, PADS

_RUN_ND = re.compile(r"void launchTLOAD_(\d+)\([^)]*\)\s*\{\s*(runTLOAD\w+)<([^>]*)>")

FORMATS = {"0": "ND", "1": "DN", "2": "NZ"}


def offsets(fmt: str, g: list[int], w: list[int]) -> np.ndarray:
    """Flat offsets in the whole array of the tile's valid elements, row by row: ND rows are (g0, g1, g2, g3)
    and columns g4 (strides W1*W2*W3*W4 ... W4, 1); DN rows are g3 and columns (g0, g1, g2, g4) (the last two
    strides 1 and W3); NZ (boxes of g3 x g4) rows are (g2, g3) and columns (g0, g1, g4), the ND strides."""
    s = [w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4]]
    a, b, c, d, e = np.meshgrid(*(np.arange(n) for n in g), indexing="ij")
    if fmt == "ND":
        flat = a * s[0] + b * s[1] + c * s[2] + d * w[4] + e
        return flat.reshape(-1, g[4])
    if fmt == "NZ":
        flat = a * s[0] + b * s[1] + c * s[2] + d * w[4] + e
        return flat.transpose(2, 3, 0, 1, 4).reshape(g[2] * g[3], -1)
    flat = a * s[0] + b * s[1] + c * s[2] + d + e * w[3]
    return flat.transpose(3, 0, 1, 2, 4).reshape(g[3], -1)


def unpack(data: np.ndarray) -> np.ndarray:
    """The codes of a flat packed fp4 byte stream, as the CPU simulator reads it: element 2k in the low nibble
    of byte k (include/pto/cpu/MXTypes.hpp ``GetProperDataPart``)."""
    return np.stack([data & 0xF, data >> 4], axis=-1).reshape(*data.shape[:-1], -1)


def pack(codes: np.ndarray) -> np.ndarray:
    """The flat byte stream of fp4 codes (an even count), element 2k in the low nibble of byte k."""
    flat = np.ravel(codes).astype(np.uint8)
    return flat[0::2] | flat[1::2] << 4


def run_tstore(folder: Path, st: Path, verbose: bool) -> Row:
    """``test_tstore<format, T, g0..g4, W0..W4>``: ND into a row-major tile of g0*g1*g2*g3 rows, DN into a
    col-major tile of g3 rows, NZ into an Nz tile of g2*g3 rows and g0*g1*g4 columns, each with 32-byte rounded
    capacity; the whole stored array (zeros elsewhere) compared with ``golden.bin``. Packed fp4 arrays are
    unpacked to one code a lane, gathered and loaded with ``packed=False`` (a window's rows need not start on a
    byte), and the result packed again and compared byte for byte as main.cpp does."""
    row = Row(folder.name)

    def form(c):
        return None if len(c.args) == 12 and c.args[0] in FORMATS else "not the form"

    for case in each_case(folder, st, row, form):
        with refusals(row, case):
            fmt, dt = FORMATS[case.args[0]], case.dtype
            vals = ints(case.args[2:])
            g, w = vals[:5], vals[5:]
            fp4 = {"packed": False} if dt in PACKED else {}
            n = int(np.prod(w))
            flat_in = (unpack(case.read("input.bin", "u8", 1, n // 2).ravel()) if fp4 else
                       case.read("input.bin", dt, 1, n).ravel())
            where = offsets(fmt, g, w)
            vr, vc = where.shape
            per = 32 // pto.get_dtype(dt).size * (2 if fp4 else 1)
            up = (lambda n: -(-n // per) * per)
            shape, lay = {"ND": ((vr, up(vc)), ("row_major", "none_box")),
                          "DN": ((up(vr), vc), ("col_major", "none_box")),
                          "NZ": ((vr, up(vc)), ("col_major", "row_major"))}[fmt]
            src = tile(dt, shape, (vr, vc), blayout=lay[0], slayout=lay[1])
            pto.tload(src, flat_in[where].view(src.dtype.np), target="cpu", **fp4)
            window = pto.tstore(np.zeros((vr, vc), src.dtype.np), src, target="cpu", **fp4)
            out = np.zeros_like(flat_in)
            out[where] = window.view(src.dtype.lane)
            if fp4:
                score(row, case, verbose, (pack(out), case.read("golden.bin", "u8", 1, n // 2).ravel(), "u8"))
            else:
                score(row, case, verbose, (out, case.read("golden.bin", dt, 1, out.size).ravel(), dt))
    return row


def _tload_nz(case, dt: str, shape: list[int], pad: str):
    """``runTLOADNZ<T, s0, s1, s2, 16, blk>``: an Nz global of s0 * s1 column blocks and s2 row blocks of
    16 x blk boxes into an Nz tile of s2 * 16 rows and s0 * s1 * blk columns. main.cpp writes its flat-index
    data for the first s0*s1*s2*(16 / (s0*s1*s2))*blk elements (the rest of the host buffer: zeros here) and
    compares that many lanes of the tile's storage, which follows the global's order."""
    s0, s1, s2, r16, blk = shape
    rows, cols = s2 * r16, s0 * s1 * blk
    n = s0 * s1 * s2 * (r16 // (s0 * s1 * s2)) * blk
    flat = np.zeros(s0 * s1 * s2 * r16 * blk, pto.get_dtype(dt).lane)
    flat[:n] = linear(dt, 1, n).ravel()
    r, c = np.arange(rows)[:, None], np.arange(cols)[None, :]
    where = (c // blk) * (s2 * r16 * blk) + (r // r16) * (r16 * blk) + (r % r16) * blk + c % blk
    per = 32 // pto.get_dtype(dt).size
    dst = tile(dt, (rows, -(-cols // per) * per), (rows, cols), pad=pad, blayout="col_major", slayout="row_major")
    pto.tload(dst, flat[where].view(dst.dtype.np), target="cpu")
    case.eps = 0.0
    return dst.storage()[:n], flat[:n], dt


def _tload_fp4(dt: str, tr: int, tc: int, cols: int, pad: str):
    """``runTLOADND`` of a packed fp4 type: main.cpp's data is ``MXType(double(i))`` of each flat index i, two
    codes a byte; the golden is the tile's packed storage (``tr * tc / 2`` bytes), ``numeric_limits`` max()
    (code 7) or min() (code 1) where not valid. A global row of odd length starts mid-byte, which tilesim's
    packed array cannot hold, so those codes go in one a lane (``packed=False``)."""
    codes = mx_encode(np.arange(tr * cols, dtype=np.float64), pto.get_dtype(dt))[0].reshape(tr, cols)
    dst = tile(dt, (tr, tc), (tr, cols), pad=pad)
    if cols % 2:
        pto.tload(dst, codes, packed=False, target="cpu")
    else:
        pto.tload(dst, pack(codes).reshape(tr, cols // 2), target="cpu")
    want = np.full((tr, tc), {"max": 7, "min": 1}.get(pad, 0), np.uint8)
    want[:, :cols] = codes
    return pack(dst.bits), pack(want), "u8"


def run_tload(folder: Path, st: Path, verbose: bool) -> Row:
    """``tload_test<key, T, blocks>``: the kernel's ``runTLOADND/DN/NZ<T, s0, s1, s2, ROWS, COLS, TROWS,
    TCOLS, dyn, Pad>`` over the tensor of flat indices main.cpp builds. ND: the (TROWS x COLS) rows into a
    row-major TROWS x TCOLS tile (valid TROWS x COLS); DN: s0 * s1 * s2 blocks of ROWS x COLS / (s0 * s1 * s2),
    each block's columns side by side, into a col-major tile (valid ROWS x TCOLS); NZ: see ``_tload_nz``. The
    tile's storage is compared with the golden exactly; pad values fill what is not valid. Packed fp4 types:
    see ``_tload_fp4``."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    runs = {int(k): (fn, [a.strip() for a in args.split(",")]) for k, fn, args in _RUN_ND.findall(kernel)}

    def form(c):
        fn, a = runs.get(int(c.args[0]), (None, [])) if c.args[0].isdigit() else (None, [])
        if fn not in ("runTLOADND", "runTLOADDN", "runTLOADNZ"):
            return f"{fn or 'no run function'}: not a TLOAD kernel the adapter reads"
        return None if a[0] in CXX_DTYPES and a[9] in PADS else f"no tilesim dtype or pad for {a[0]}, {a[9]}"

    for case in each_case(folder, st, row, form, exempt=lambda c: True):
        with refusals(row, case):
            fn, a = runs[int(case.args[0])]
            dt = CXX_DTYPES[a[0]]
            blocks = int(a[1]) * int(a[2]) * int(a[3])
            rows, cols, tr, tc = (int(v) for v in a[4:8])
            pad = PADS[a[9]]
            if fn == "runTLOADNZ":
                score(row, case, verbose, _tload_nz(case, dt, [int(v) for v in a[1:6]], pad))
                continue
            if dt in PACKED:
                score(row, case, verbose, _tload_fp4(dt, tr, tc, cols, pad))
                continue
            if fn == "runTLOADND":
                dst = tile(dt, (tr, tc), (tr, cols), pad=pad)
                data = linear(dt, tr, cols)
            else:                                   # block b's (ROWS x COLS / blocks) side by side: ROWS x COLS
                dst = tile(dt, (tr, tc), (rows, tc), pad=pad, blayout="col_major")
                per = tc // blocks
                data = linear(dt, blocks * rows, per).reshape(blocks, rows, per).transpose(1, 0, 2).reshape(rows, tc)
            want = np.full((tr, tc), pad_bits(pad, dt), dst.dtype.lane)
            want[: dst.valid_rows, : dst.valid_cols] = data
            case.eps = 0.0                                               # ResultCmp(golden, devFinal, 0)
            pto.tload(dst, data.view(dst.dtype.np), target="cpu")
            storage = dst.bits if fn == "runTLOADND" else dst.bits.T
            score(row, case, verbose, (storage, want if fn == "runTLOADND" else want.T, dt))
    return row


ADAPTERS = {"tstore": run_tstore, "tload": run_tload}
