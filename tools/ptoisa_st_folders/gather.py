"""TGATHER's folder: the mask-pattern forms along rows and columns (``test_gather``, ``test_gather_col``), the
f32 -> i32 mask gather of bit-cast indices (``test_gather_xtype``) and the index form (``runTGATHERTest``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto.ops.gather import MASK_PATTERNS

from ptoisa_st import CXX_DTYPES, Row, each_case, refusals, score

from .common import stored, tile

_DEFINE = re.compile(r"^#define\s+(\w+)\s+(\d+)\s*$", re.M)
_PATTERN = re.compile(r"([01]{4})$")
_RUN_1D = re.compile(r"runTGATHERTest<\s*(\w+)\s*,\s*(\w+)\s*>\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,")


def macros(folder: Path) -> dict[str, int]:
    """The folder's integer ``#define``s (headers and main.cpp)."""
    text = "".join(p.read_text() for p in (*folder.glob("*.h"), folder / "main.cpp"))
    return {k: int(v) for k, v in _DEFINE.findall(text)}


def value(arg: str, defs: dict[str, int]) -> int:
    """A template argument of integers, macros and ``+ - * /`` (``COL_HALF_P0101_ROW / 2``)."""
    names = re.findall(r"[A-Za-z_]\w*", arg)
    if not set(names) <= set(defs):
        raise ValueError(arg)
    expr = re.sub(r"[A-Za-z_]\w*", lambda m: str(defs[m.group(0)]), arg)
    if not re.fullmatch(r"[\d\s+*/()-]+", expr):
        raise ValueError(arg)
    return int(eval(expr.replace("/", "//"), {"__builtins__": {}}))  # digits and operators only


def _as_f32(bits: np.ndarray, n_bytes: int) -> np.ndarray:
    """The first ``n_bytes`` of ``bits`` as the f32 lanes main.cpp compares them as (a ``vector<float>``)."""
    return np.ascontiguousarray(bits).view(np.uint8).ravel()[: n_bytes // 4 * 4].view(np.uint32)


def run_tgather(folder: Path, st: Path, verbose: bool) -> Row:
    """Mask forms: ``<T, PATTERN, ROW, COL[, OUT_ROW]>``; src a (ROW + 5) x (COL + 32) tile of valid ROW x COL
    from ``x1_gm.bin``; the row form writes the selected columns into a ROW x COL dst row by row, the column
    form the selected rows into an OUT_ROW x COL dst; the bytes of the gathered elements are compared with
    ``golden.bin`` as f32 lanes, as main.cpp does. The index form reads ``src0.bin`` and the i32 ``src1.bin``."""
    row = Row(folder.name)
    defs = macros(folder)
    main = (folder / "main.cpp").read_text()
    for case in each_case(folder, st, row, exempt=lambda c: c.calls[0][0] == "test_gather_xtype"):
        with refusals(row, case):
            fn, args = case.calls[0]
            if fn in ("test_gather", "test_gather_col"):
                _mask(row, case, fn, args, defs, verbose)
            elif fn == "test_gather_xtype":
                _xtype(row, case, [value(a, defs) for a in args[:2]], verbose)
            else:
                body = main[main.index(f"TEST_F(TGATHERTest, {case.name})"):]
                dt, it, r0, c0, r1, c1 = _RUN_1D.search(body).groups()
                _index(row, case, CXX_DTYPES[dt], CXX_DTYPES[it], *(int(v) for v in (r0, c0, r1, c1)), verbose)
    return row


def _mask(row, case, fn, args, defs, verbose):
    dt = case.dtype
    pattern = "P" + _PATTERN.search(args[1]).group(1)
    r, c = value(args[2], defs), value(args[3], defs)
    src = tile(dt, (r + 5, c + 32), (r, c), case.read("x1_gm.bin", dt, r, c))
    if fn == "test_gather":
        dst = tile(dt, (r, c))
        pto.tgather(dst, src, mask_pattern=pattern, target="cpu")
        n_bytes = r * (c // MASK_PATTERNS[pattern.lower()][0]) * src.dtype.size
    else:
        dst = tile(dt, (value(args[4], defs), c))
        pto.tgather(dst, src, mask_pattern=pattern, axis="col", target="cpu")
        n_bytes = dst.rows * c * src.dtype.size
    got = _as_f32(stored(dst, (dst.rows, dst.cols)), n_bytes)
    want = _as_f32(np.fromfile(case.dir / "golden.bin", np.uint8, n_bytes), n_bytes)
    score(row, case, verbose, (got, want, "f32"))


def _xtype(row, case, shape, verbose):
    """The P1010 gather from f32 into i32 of main.cpp's own data: pairs (1.0, the index i % 255 + 1 bit-cast to
    f32); the i32 dst must hold the indices exactly (main.cpp's EXPECT_EQ)."""
    r, c = shape
    idx = (np.arange(r * c // 2) % 255 + 1).astype(np.int32)
    data = np.empty(r * c, np.uint32)
    data[0::2], data[1::2] = np.float32(1.0).view(np.uint32), idx.view(np.uint32)
    src = tile("f32", (r + 5, c + 32), (r, c), data.reshape(r, c))
    dst = tile("i32", (r, c))
    pto.tgather(dst, src, mask_pattern="P1010", target="cpu")
    case.eps = 0.0                                                  # exact, as EXPECT_EQ
    score(row, case, verbose, (dst.bits.ravel()[: idx.size], idx.view(np.uint32), "i32"))


def _index(row, case, dt, it, r0, c0, r1, c1, verbose):
    src = tile(dt, (r0, c0), None, case.read("src0.bin", dt, r0, c0))
    indices = tile(it, (r1, c1), None, case.read("src1.bin", it, r1, c1))
    dst = tile(dt, (r1, c1))
    pto.tgather(dst, src, indices, tile(it, (r1, c1)), target="cpu")
    score(row, case, verbose, (dst.bits, case.read("golden.bin", dt, r1, c1), dt))


ADAPTERS = {"tgather": run_tgather}
