"""What the adapters share: tiles filled from gen_data.py files, TSTORE into a zeroed global tensor, the scalar
a main.cpp reads, and template arguments as integers."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import _int


def tile(dt: str, shape, valid=None, data: np.ndarray | None = None, **kw) -> pto.Tile:
    """A vec tile of ``shape`` with ``valid`` (the whole tile by default) holding the top-left of ``data``."""
    t = pto.Tile(kw.pop("loc", "vec"), dt, *shape, valid=valid or shape, **kw)
    if data is not None:
        vr, vc = t.valid_rows, t.valid_cols
        t.bits[:vr, :vc] = data[:vr, :vc]
    return t


def stored(t: pto.Tile, shape) -> np.ndarray:
    """TSTORE of ``t``'s valid region into the top-left of a global tensor of ``shape`` that held zeros."""
    out = np.zeros(shape, t.dtype.lane)
    out[: t.valid_rows, : t.valid_cols] = t.valid_bits
    return out


def f32_scalar(case, file: str, dt: str):
    """The float main.cpp reads from the first 4 bytes of ``file``, cast to ``dt`` as C++'s static_cast does
    (to nearest even for floats, toward zero for integers)."""
    v = np.fromfile(case.dir / file, np.float32, 1)
    return v.astype(pto.get_dtype(dt).np)[0]


def ints(args: list[str]) -> list[int]:
    """Template arguments as integers (``64``, ``NUM_64``, ``-2``)."""
    return [-_int(a[1:]) if a.startswith("-") else _int(a) for a in args]


def shapes(a: list[int], n: int) -> list[int]:
    """``n`` shape arguments from the ones given, the missing ones defaulting (as the templates do) to the first
    two, the valid rows and columns: ``[8, 16, 32, 32]`` -> ``[8, 16, 32, 32, 8, 16]`` for ``n = 6``."""
    return [*a, *a[:2] * n][:n]


def read_short(case, file: str, dt: str, rows: int, cols: int) -> np.ndarray:
    """``case.read`` of a file that may hold fewer than ``rows x cols`` lanes (main.cpp reads it into a larger
    host buffer): the lanes past its end are zeros here, their contents undefined there."""
    lanes = np.fromfile(case.dir / file, pto.get_dtype(dt).lane, rows * cols)
    return np.pad(lanes, (0, rows * cols - lanes.size)).reshape(rows, cols)


_CONSTEXPR = re.compile(r"constexpr\s+[\w:]+\s+(k\w+)\s*=\s*(-?\d+)\s*;")


def constants(folder: Path) -> dict[str, int]:
    """The integer ``constexpr kName = N;`` of main.cpp (the sizes of tests that declare them there)."""
    return {k: int(v) for k, v in _CONSTEXPR.findall((folder / "main.cpp").read_text())}
