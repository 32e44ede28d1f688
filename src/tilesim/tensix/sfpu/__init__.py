"""The SFPU (Vector Unit) of Wormhole B0: its state and its instructions, one module per family.

:data:`HANDLERS` maps every SFPU mnemonic of the instruction table that tilesim executes to its
handler ``(machine, instruction, thread)``; :mod:`.state` holds the LRegs, lane flags, stack, PRNG
and configuration; :mod:`.fma` the Wormhole multiply-add that every float instruction uses.
"""

from . import bits, cc, convert, lanes, load, mad
from .fma import fma
from .state import SfpuState

__all__ = ["HANDLERS", "SfpuState", "fma"]

HANDLERS = {**load.HANDLERS, **mad.HANDLERS, **bits.HANDLERS, **cc.HANDLERS, **lanes.HANDLERS, **convert.HANDLERS}
