"""Huawei PTO (Parallel Tile Operation) tile ISA: tiles, target profiles, ops, and a .pto interpreter.

>>> import numpy as np
>>> from tilesim import pto
>>> src = pto.Tile.from_array(np.array([[3, 1, 3], [2, 8, 5]], np.float32))
>>> idx = pto.Tile("vec", "u32", 1, 8, valid=(1, 3))
>>> pto.tcolargmax(idx, src, target="a5").valid_values.tolist()
[[0, 1, 1]]

Every op is a function named like the instruction (``trowmax``, ``tcolargmax``,
``trowexpandsub`` ...), destination first, with a ``target=`` keyword
(``cpu``, ``a2a3``, ``a5`` or a :class:`Profile`; default ``a5``).
"""

from .conformance import result_cmp
from .conv import BlockConfig, ConvTile, block_config
from .dtypes import DTYPES, DType, get_dtype
from .memory import capacity, overlaps, tassign
from .ops import *  # noqa: F401,F403
from .ops import OPS
from .ops import __all__ as _ops_all
from .pipe import TPipe, talloc, tfree, tget_scale_addr, tpop, tpush, tsync
from .targets import NAN_MODES, OP_TYPES, TARGETS, Profile, get_target
from .text import parse, run_file, run_text
from .tile import Tile

__all__ = ["Tile", "DType", "DTYPES", "get_dtype", "Profile", "TARGETS", "OP_TYPES", "NAN_MODES", "get_target",
           "tassign", "capacity", "overlaps", "result_cmp", "OPS", "parse", "run_file", "run_text",
           "ConvTile", "BlockConfig", "block_config", "TPipe", "tpush", "tpop", "talloc", "tfree", "tsync",
           "tget_scale_addr", *_ops_all]
