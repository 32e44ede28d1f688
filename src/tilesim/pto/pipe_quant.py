"""TPUSH with a FixpipeParams quant mode: an acc tile converted on its way to the vector side, as pto-isa's
CPU simulator does it (include/pto/cpu/TPush.hpp ``CopyTileWindowToLinear`` with ``ConvertStoreValue``;
decision PTO179).

Each mode fixes the source and payload dtypes. The scalar modes scale by the SET_QUANT_SCALAR word of the
block's configuration (an unset or zero word scales by 1.0, the simulator's stand-in), VDEQF16 by the first
valid-columns words of the SET_QUANT_VECTOR tile, column by column; the conversion is the fixpipe's
(:func:`tilesim.pto.ops.fixpipe.quantize`), except that F322F16 casts with no clamp (the simulator's
``quantize_element`` has no branch for it).
"""

from __future__ import annotations

import numpy as np

from ..errors import DtypeError, TilesimError
from .conv import block_config
from .dtypes import get_dtype
from .ops import fixpipe
from .ops._common import Op
from .tile import Tile

__all__ = ["MODES", "quantised"]

#: mode -> (acc dtype, payload dtype, vector quant)
MODES = {"F322F16": ("f32", "f16", False), "F322BF16": ("f32", "bf16", False), "DEQF16": ("i32", "f16", False),
         "VDEQF16": ("i32", "f16", True)}
#: the scale word the simulator uses when the quant scalar register holds 0 (1.0f)
UNIT_WORD = np.uint64(0x3F800000)


def quantised(tile: Tile, quant: str, direction: str, split: int, relu: bool, config, target):
    """(payload dtype, payload lanes) of ``tile``'s valid region pushed with ``quant``. Raises
    ``pto.pipe.quant`` (an unknown mode, a v2c or split push, no quant vector), ``pto.op.loc``,
    ``pto.op.dtype`` and the fixpipe's quant-word checks."""
    op = Op("tpush", target)
    if quant not in MODES:
        op.fail(f"quant must be one of {', '.join(MODES)}", "quant", "pto.pipe.quant", quant, TilesimError)
    src, dst, vector = MODES[quant]
    if direction != "c2v" or split:
        op.fail("a quantising push sends a whole acc tile from the cube to the vector side (c2v, split 0)",
                "quant", "pto.pipe.quant", (direction, split), TilesimError)
    if tile.loc != "acc":
        op.fail(f"a quantising push takes an acc tile, not a {tile.loc} tile", "tile", "pto.op.loc", tile.loc,
                TilesimError)
    if tile.dtype.name != src:
        op.fail(f"{quant} converts {src} acc tiles, not {tile.dtype}", "tile", "pto.op.dtype", tile.dtype.name,
                DtypeError)
    cfg = config if config is not None else block_config()
    if vector:
        if cfg.quant_vector is None:
            op.fail(f"{quant} reads the quant vector: SET_QUANT_VECTOR first", "quant", "pto.pipe.quant", quant,
                    TilesimError)
        words = fixpipe.quant_words(op, cfg.quant_vector, tile.valid_cols)
    else:
        words = np.uint64(cfg.quant_scalar) if cfg.quant_scalar else UNIT_WORD
    out = get_dtype(dst)
    lanes, _ = fixpipe.quantize(op, tile.valid_bits, tile.dtype, out, words, vector=vector, relu=relu,
                                clamp_f16=quant != "F322F16")
    return out, lanes
