"""The 4-bit data format codes that Tensix configuration registers, unpackers and packers use.

One row per code (``UNPACR_Regular.md``, ``Packers/FormatConversion.md`` of
tenstorrent/tt-isa-documentation). Naming trap: the doc's ``BFP8`` (8-bit shared
exponent) is tt-metal's ``Bfp8_b``; the doc's ``BFP8a`` is tt-metal's ``Bfp8``.
Both spellings of the tt-metal names are accepted as aliases.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..errors import FormatError

__all__ = ["DataFormat", "Kind", "DATA_FORMATS", "data_format", "BF16_STYLE_CODES", "FP16_STYLE_CODES"]


class Kind(enum.Enum):
    FLOAT = "float"
    BFP = "bfp"      # sign + magnitude per datum, one shared exponent per 16 datums
    INT = "int"


@dataclass(frozen=True)
class DataFormat:
    """One data format code.

    ``exp_bits`` / ``man_bits`` describe floats; for BFP formats ``man_bits`` is
    the magnitude width (no implicit bit) and ``exp_bits`` the shared exponent
    width. ``core`` names the matching :mod:`tilesim.formats` format (IEEE bit
    order in L1), where there is one.
    """

    code: int
    name: str
    kind: Kind
    l1_bits: int
    exp_bits: int = 0
    man_bits: int = 0
    core: str | None = None
    aliases: tuple[str, ...] = ()


DATA_FORMATS: tuple[DataFormat, ...] = (
    DataFormat(0, "FP32", Kind.FLOAT, 32, 8, 23, "fp32", ("float32",)),
    DataFormat(1, "FP16", Kind.FLOAT, 16, 5, 10, "fp16", ("float16",)),
    DataFormat(2, "BFP8a", Kind.BFP, 8, 5, 7, None, ("bfp8_a",)),
    DataFormat(3, "BFP4a", Kind.BFP, 4, 5, 3, None, ("bfp4_a",)),
    DataFormat(4, "TF32", Kind.FLOAT, 32, 8, 10, "tf32"),
    DataFormat(5, "BF16", Kind.FLOAT, 16, 8, 7, "bf16", ("bfloat16", "float16_b")),
    DataFormat(6, "BFP8", Kind.BFP, 8, 8, 7, None, ("bfp8_b",)),
    DataFormat(7, "BFP4", Kind.BFP, 4, 8, 3, None, ("bfp4_b",)),
    DataFormat(8, "INT32", Kind.INT, 32, core="int32"),
    DataFormat(9, "INT16", Kind.INT, 16, core="int16"),
    DataFormat(10, "FP8", Kind.FLOAT, 8, 5, 2, "fp8_e5m2", ("fp8_e5m2", "e5m2")),
    DataFormat(11, "BFP2a", Kind.BFP, 2, 5, 1, None, ("bfp2_a",)),
    DataFormat(14, "INT8", Kind.INT, 8, core="int8", aliases=("uint8",)),
    DataFormat(15, "BFP2", Kind.BFP, 2, 8, 1, None, ("bfp2_b",)),
)

_BY_KEY: dict[object, DataFormat] = {}
for _f in DATA_FORMATS:
    for _k in (_f.code, _f.name.lower(), *_f.aliases):
        if _k in _BY_KEY:
            raise AssertionError(f"duplicate data format key {_k!r}")
        _BY_KEY[_k] = _f

#: SrcA format codes that make the Matrix Unit use BF16 style (8-bit exponent, 7-bit mantissa).
BF16_STYLE_CODES = frozenset({0, 5, 6, 7, 15, 8, 9})
#: SrcA format codes that make the Matrix Unit use FP16 style (5-bit exponent).
FP16_STYLE_CODES = frozenset({1, 10, 2, 3, 11, 14})


def data_format(key: "DataFormat | int | str") -> DataFormat:
    """The format for a code (0..15), a doc name (``"BFP8a"``) or an alias, case-insensitive.

    Raises:
        FormatError: rule ``tt.fmt.code``; the message lists the valid names.
    """
    if isinstance(key, DataFormat):
        return key
    k = key.lower() if isinstance(key, str) else key
    try:
        return _BY_KEY[k]
    except (KeyError, TypeError):
        raise FormatError("unknown Tensix data format; valid: " + ", ".join(f"{f.name} ({f.code})"
                                                                             for f in DATA_FORMATS),
                          operand="format", rule="tt.fmt.code", value=key) from None
