"""TPRINT: a tile's valid region as text, the way the pto-isa CPU reference prints it.

Format (pto-isa include/pto/cpu/TPrint.hpp, default ``Width8_Precision4``): a
header ``TPRINT <rows>x<cols>``, then one line per valid row, values separated
by one space, each right-aligned in 8 characters; floats in fixed notation
with 4 decimals (``%8.4f``, correctly rounded from the exact value), integers
(8-bit ones as numbers) with ``%8d``. f16, bf16 and the 8-bit floats print
like floats; NaN prints as ``nan`` whatever its sign (decision PTO58).
"""

from __future__ import annotations

import sys

import numpy as np

from ..tile import Tile
from ._common import Op

__all__ = ["tprint", "PRINT_FORMATS"]

#: PrintFormat -> (width, precision)
PRINT_FORMATS = {"width8_precision4": (8, 4), "width8_precision2": (8, 2), "width10_precision6": (10, 6)}


def _text(t: Tile, width: int, prec: int) -> str:
    R, C = t.valid
    lines = [f"TPRINT {R}x{C}"]
    vals = t.valid_values
    if t.dtype.is_float:
        x = vals.astype(np.float64)
        cells = [["nan".rjust(width) if np.isnan(v) else f"{v:{width}.{prec}f}" for v in row] for row in x]
    else:
        cells = [[f"{int(v):{width}d}" for v in row] for row in vals]
    lines += [" ".join(row) for row in cells]
    return "\n".join(lines) + "\n"


def tprint(src: Tile, *, fmt: str = "width8_precision4", out=None, target=None) -> str:
    """TPRINT: write src's valid region as text to ``out`` (default stdout) and return the text.

    fmt: ``Width8_Precision4`` (default), ``Width8_Precision2`` or ``Width10_Precision6``.
    """
    op = Op("tprint", target)
    op.tile(src, "src", None)
    key = str(fmt).lower().replace("#pto.print_format<", "").rstrip(">")
    if key not in PRINT_FORMATS:
        op.fail("format must be one of " + ", ".join(PRINT_FORMATS), "fmt", "pto.tprint.format", fmt)
    text = _text(src, *PRINT_FORMATS[key])
    (out or sys.stdout).write(text)
    return text
