"""``tilesim vectors tensix``: the Matrix Unit's ops (:mod:`.tensix`) and the SFPU's (:mod:`.tensix_sfpu`)."""

from __future__ import annotations

from . import tensix, tensix_sfpu
from ...errors import TilesimError

__all__ = ["OPS", "OPTIONS", "generate"]

OPS = tensix.OPS + tensix_sfpu.OPS
OPTIONS = tensix.OPTIONS | tensix_sfpu.OPTIONS


def generate(op: str, **kw):
    """The vector set of a Matrix Unit or SFPU op; an option that the op's unit does not take is refused."""
    mod = tensix_sfpu if op in tensix_sfpu.OPS else tensix
    extra = sorted(k for k, v in kw.items() if k not in ("n", "seed", "min_per_class") and k not in mod.OPTIONS)
    if extra:
        raise TilesimError(f"{extra[0]} does not apply to {op} (it takes: {', '.join(sorted(mod.OPTIONS))})",
                           instruction="tilesim vectors", operand=extra[0], rule="verify.option", value=op)
    return mod.generate(op, **kw)
