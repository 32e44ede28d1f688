"""TFILLPAD's folder. Its main.cpp builds the data (no gen_data.py data): src holds each element's flat index
``r * cols + c`` converted to the element type, and the golden is src over the valid region and the dst
tile's pad value elsewhere. The adapter reads each key's ``runTFILLPAD<...>`` from the kernel."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import tile

_RUN = re.compile(r"void launchTFILLPAD_(\d+)\([^)]*\)\s*\{\s*runTFILLPAD<([^>]*)>")
_CUSTOM = re.compile(r"constexpr PadValue (\w+) = PadValueCustom(16)?\(([^)]*)\);")
PADS = {"PadValue::Null": "null", "PadValue::Zero": "zero", "PadValue::Max": "max", "PadValue::Min": "min"}


def _pads(kernel: str) -> dict[str, str]:
    """Pad spellings -> tilesim pads: the four named ones and the kernel's ``PadValueCustom(-1.0f)`` (an f32's
    bits) or ``PadValueCustom16(0xBC00)`` (a 16-bit word)."""
    custom = {}
    for name, is16, arg in _CUSTOM.findall(kernel):
        word = int(arg, 0) if is16 else struct.unpack("<I", struct.pack("<f", float(arg.rstrip("f"))))[0]
        custom[name] = f"custom:{word:#x}"
    return {**PADS, **custom}


def pad_bits(pad: str, dt: str) -> int:
    """The golden's fill for ``pad``, as main.cpp's test computes it: a custom word's low lanes, +-inf for
    floats with infinities (f16's numeric_limits are unspecialised there: 0, PTO96), the integer limits, or 0."""
    d = pto.get_dtype(dt)
    if pad.startswith("custom:"):
        return int(pad[7:], 16) & ((1 << (8 * d.size)) - 1)
    if pad in ("max", "min") and d.is_float:
        if dt == "f16":
            return 0
        return int(np.array(np.inf if pad == "max" else -np.inf, np.float32).astype(d.np).view(d.lane))
    if pad in ("max", "min"):
        info = np.iinfo(d.np)
        return int(np.array(info.max if pad == "max" else info.min, d.np).view(d.lane))
    return 0


def linear(dt: str, rows: int, cols: int) -> np.ndarray:
    """Lanes of ``r * cols + c`` converted to ``dt`` as C++ converts an int (floats to nearest, integers
    modulo their width)."""
    d = pto.get_dtype(dt)
    v = np.arange(rows * cols).reshape(rows, cols)
    if d.is_float:
        return v.astype(np.float32).astype(d.np).view(d.lane)
    return v.astype(np.int64).astype(d.lane)


def run_tfillpad(folder: Path, st: Path, verbose: bool) -> Row:
    """``tfillpad_test<key, T, blocks>``: the kernel's ``runTFILLPAD<T, s0, s1, s2, ROWS, COLS, TROWS, TCOLS,
    dyn, LoadPad, FillPad[, inplace[, expand]]>``: src a TROWS x TCOLS tile (expand: COLS rounded to 32 bytes)
    of pad LoadPad and valid ROWS x COLS, dst a whole TROWS x TCOLS tile of pad FillPad; TFILLPAD (its
    in-place and expand forms), dst stored whole and compared with the test's golden, exactly."""
    row = Row(folder.name)
    kernel = "".join(p.read_text() for p in folder.glob("*_kernel.cpp"))
    runs = {int(k): [a.strip() for a in args.split(",")] for k, args in _RUN.findall(kernel)}
    pads = _pads(kernel)

    def form(c):
        a = runs.get(int(c.args[0])) if c.args[0].isdigit() else None
        if a is None or a[0] not in CXX_DTYPES or a[9:11] and not set(a[9:11]) <= set(pads):
            return "no runTFILLPAD for the key in the kernel"
        return None if a[1:4] == ["1", "1", "1"] else "more than one block of rows"

    for case in each_case(folder, st, row, form, exempt=lambda c: True):
        with refusals(row, case):
            a = runs[int(case.args[0])]
            dt = CXX_DTYPES[a[0]]
            r, c, tr, tc = (int(v) for v in a[4:8])
            load_pad, fill_pad = (pads[p] for p in (a[9:11] + ["PadValue::Null"] * 2)[:2])
            inplace, expand = (a[11:12] == ["true"]), (a[12:13] == ["true"])
            per = 32 // pto.get_dtype(dt).size
            src = tile(dt, (tr, -(-c // per) * per if expand else tc), (r, c), pad=load_pad)
            dst = tile(dt, (tr, tc), pad=fill_pad)
            want = np.full((tr, tc), pad_bits(fill_pad, dt), dst.dtype.lane)
            want[:r, :c] = linear(dt, r, c)
            case.eps = 0.0                                               # ResultCmp(golden, devFinal, 0)
            pto.tload(src, linear(dt, r, c).view(src.dtype.np), target="cpu")
            if inplace:
                dst.bits[...] = src.bits                             # one storage
                pto.tfillpad_inplace(dst, src, target="cpu")
            else:
                (pto.tfillpad_expand if expand else pto.tfillpad)(dst, src, target="cpu")
            score(row, case, verbose, (dst.bits, want, dt))
    return row


ADAPTERS = {"tfillpad": run_tfillpad}
