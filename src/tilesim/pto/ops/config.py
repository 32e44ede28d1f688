"""The quant configuration registers (SET_QUANT_SCALAR, SET_QUANT_VECTOR) and the ordering statements SYNCALL and
TPREFETCH_ASYNC, which move no tile data (decisions PTO141, PTO142).

SET_QUANT_SCALAR writes the pre-quant word: the f32 scalar's bits (sign-extended from 32 to 64 bits on A2A3
and A5, whose implementations cast through ``int32_t``; zero-extended on ``cpu``, whose simulator casts
through ``uint32_t``), with bit 46 set for an ``i8`` and cleared for a ``u8`` output. SET_QUANT_VECTOR records
a Scaling tile and, on the NPUs, the FPC word ``(address >> 7) << 8`` of a placed tile. Their consumers are the
fixpipe's quantising moves (TPUSH and the stores from Acc).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DtypeError, TilesimError
from ..conv import BlockConfig, block_config
from ..dtypes import get_dtype
from ..tile import Tile, to_bits
from ._common import Op

__all__ = ["set_quant_scalar", "set_quant_vector", "syncall", "tprefetch_async", "PrefetchEvent"]

SYNC_MODES = ("hard", "soft")
CORE_TYPES = ("aiv_only", "aic_only", "mix")
_SIGN_BIT = 1 << 46


def _config(op: Op, config) -> BlockConfig:
    if config is None:
        return block_config()
    if not isinstance(config, BlockConfig):
        op.fail(f"config must be a BlockConfig, got {type(config).__name__}", "config", "pto.op.operand",
                type(config).__name__, TilesimError)
    return config


def set_quant_scalar(scalar, *, out_dtype, config: BlockConfig | None = None, target=None) -> int:
    """SET_QUANT_SCALAR: write the pre-quant word of ``scalar`` (rounded once to f32) for outputs of
    ``out_dtype`` to the block's registers; returns the word (PTO141).

    >>> from tilesim.pto import BlockConfig
    >>> hex(set_quant_scalar(-0.5, out_dtype="i8", config=BlockConfig(), target="a5"))
    '0xffffffffbf000000'
    >>> hex(set_quant_scalar(-0.5, out_dtype="u8", config=BlockConfig(), target="cpu"))
    '0xbf000000'
    """
    op = Op("set_quant_scalar", target)
    cfg = _config(op, config)
    out = get_dtype(out_dtype, instruction=op.inst, operand="out_dtype")
    if isinstance(scalar, (bool, np.bool_)) or not isinstance(scalar, (int, float, np.integer, np.floating)):
        op.fail(f"the scalar must be a number, got {type(scalar).__name__}", "scalar", "pto.op.operand",
                type(scalar).__name__, TilesimError)
    word = int(to_bits(np.asarray([scalar]), "f32", what=op.inst)[0])
    if word >> 31 and not op.prof.quant_scalar_zero_extends:
        word |= 0xFFFFFFFF << 32                       # static_cast<uint64_t>(int32_t)
    if out.size == 1:
        word = word & ~_SIGN_BIT | (_SIGN_BIT if out.name == "i8" else 0)
    cfg.quant_scalar = word
    return word


def set_quant_vector(fp: Tile, *, config: BlockConfig | None = None, target=None) -> Tile:
    """SET_QUANT_VECTOR: make ``fp`` (a ``scaling`` tile) the block's quant vector; on the NPUs a placed tile's
    address must be a multiple of 128 bytes, as the FPC register holds it in 128-byte units
    (``pto.set_quant_vector.align``). Returns ``fp``."""
    op = Op("set_quant_vector", target)
    op.tile(fp, "fp", "scaling")
    cfg = _config(op, config)
    if not op.prof.quant_scalar_zero_extends and fp.addr is not None and fp.addr % 128:
        op.fail(f"address 0x{fp.addr:X} is not a multiple of 128 bytes (the FPC register drops the low 7 bits)",
                "fp", "pto.set_quant_vector.align", fp.addr)
    cfg.quant_vector = fp
    return fp


def syncall(workspace=None, used_cores: int = 0, *, mode: str = "hard", core_type: str = "aiv_only",
            target=None) -> None:
    """SYNCALL: a barrier across the blocks of a launch. Blocks run one after another here, so it orders
    nothing and writes nothing (PTO142); it checks its operands: ``mode`` hard or soft, ``core_type`` aiv_only,
    aic_only or mix, and in soft mode an int32 global-memory ``workspace`` (a numpy array of at least one
    element; ``pto.syncall.workspace``) and ``used_cores`` >= 0."""
    op = Op("syncall", target)
    if mode not in SYNC_MODES:
        op.fail(f"mode must be one of {', '.join(SYNC_MODES)}", "mode", "pto.syncall.mode", mode, TilesimError)
    if core_type not in CORE_TYPES:
        op.fail(f"core_type must be one of {', '.join(CORE_TYPES)}", "core_type", "pto.syncall.mode", core_type,
                TilesimError)
    if not isinstance(used_cores, (int, np.integer)) or isinstance(used_cores, bool) or used_cores < 0:
        op.fail("used_cores must be an integer >= 0 (0: every launched core)", "used_cores", "pto.syncall.cores",
                used_cores, TilesimError)
    if mode == "soft":
        if not isinstance(workspace, np.ndarray) or workspace.size < 1:
            op.fail("soft mode needs a global-memory workspace: a numpy int32 array of at least one element",
                    "workspace", "pto.syncall.workspace", type(workspace).__name__, TilesimError)
        if workspace.dtype != np.int32:
            op.fail(f"the workspace holds int32 counters, not {workspace.dtype}", "workspace",
                    "pto.syncall.workspace", str(workspace.dtype), DtypeError)


@dataclass(frozen=True)
class PrefetchEvent:
    """What TPREFETCH_ASYNC returns: the prefetch is complete when waited on (it moves no data here)."""

    nbytes: int

    def wait(self) -> bool:
        return True

    def test(self) -> bool:
        return True


def tprefetch_async(src, workspace=None, *, target=None) -> PrefetchEvent:
    """TPREFETCH_ASYNC: a hint that ``src`` (global memory: a contiguous numpy array) be staged in L2; it
    changes no value (the CPU simulator returns an empty event), so only its operands are checked: src a
    contiguous array (``pto.op.operand``, ``pto.prefetch.contiguous``), ``workspace`` None or a numpy uint8 array
    (the SDMA workspace the NPUs need; ``pto.prefetch.workspace``). Returns a :class:`PrefetchEvent` (PTO142)."""
    op = Op("tprefetch_async", target)
    if isinstance(src, Tile) or not isinstance(src, np.ndarray):
        op.fail(f"src must be global memory (a numpy array), not {type(src).__name__}", "src", "pto.op.operand",
                type(src).__name__, TilesimError)
    if not src.flags.c_contiguous:
        op.fail("src must be flat contiguous (a packed 1-D region)", "src", "pto.prefetch.contiguous", src.shape)
    if workspace is not None and not (isinstance(workspace, np.ndarray) and workspace.dtype == np.uint8):
        op.fail("workspace must be a numpy uint8 array (the SDMA workspace) or None", "workspace",
                "pto.prefetch.workspace", type(workspace).__name__, TilesimError)
    return PrefetchEvent(int(src.nbytes))
