"""The number-format core: every format, decode, encode (rounding), tile byte layout.

>>> from tilesim import formats
>>> formats.encode([1.0, 0.1], "bf16").tolist()
[16256, 15821]
>>> formats.decode([0x3F80], "bf16").tolist()
[1.0]
"""

from .codec import Flags, canonical, decode, decode_exact, decode_int, encode, quantize, to_parts
from .format import Domain, Format, Kind
from .layout import elements_per_row, pack, unpack
from .registry import AME_CODES, all_formats, fixed, get
from .rounding import Parts, Rounding

__all__ = [
    "AME_CODES", "Domain", "Flags", "Format", "Kind", "Parts", "Rounding",
    "all_formats", "canonical", "decode", "decode_exact", "decode_int", "elements_per_row",
    "encode", "fixed", "get", "pack", "quantize", "to_parts", "unpack",
]
