"""Matrix Unit semantics, one module per family; :data:`HANDLERS` maps each mnemonic to its handler."""

from . import elementwise, matmul, moves, pool, rwc, zero

__all__ = ["HANDLERS"]

HANDLERS = {**elementwise.HANDLERS, **matmul.HANDLERS, **pool.HANDLERS, **moves.HANDLERS, **zero.HANDLERS,
            **rwc.HANDLERS}
