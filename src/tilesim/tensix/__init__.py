"""Tenstorrent Tensix (Wormhole B0) Matrix Unit: state, instruction table, bit-exact semantics.

>>> import numpy as np
>>> from tilesim import tensix
>>> m = tensix.Machine()                                   # rounding="hardware"
>>> _ = m.configure(ALU_FORMAT_SPEC_REG0_SrcA=5, ALU_FORMAT_SPEC_REG1_SrcB=5)  # BF16 operands, BF16 Dst16
>>> _ = m.unpack("srca", np.full((8, 16), 3.0), "BF16")
>>> _ = m.unpack("srcb", np.full((8, 16), 5.0), "BF16")
>>> m.run(["TT_ZEROACC(3, 0, 0)", "TT_ELWMUL(3, 1, 0, 0, 0)"])
>>> m.pack("BF16", rows=1).values[0, :4].tolist()
[15.0, 15.0, 15.0, 15.0]
"""

from .dataformat import DATA_FORMATS, DataFormat, data_format
from .isa import BY_MNEMONIC, INSTRUCTIONS, Instruction, decode, encode, make, parse, to_text
from .pack import Packed
from .program import TraceEntry
from .state import RWC, Client, Machine

__all__ = [
    "Machine", "RWC", "Client", "Instruction", "INSTRUCTIONS", "BY_MNEMONIC", "encode", "decode", "parse",
    "to_text", "make", "DATA_FORMATS", "DataFormat", "data_format", "Packed", "TraceEntry",
]
