"""ConvTile (a feature map or filter in one of pto-isa's convolution layouts, with its IMG2COL settings) and a
block's configuration registers, which the SET_* ops write and their consumers read (decisions PTO140, PTO172).

Layouts (:data:`LAYOUTS`): NC1HWC0 and NDC1HWC0 (TIMG2COL's feature maps; TLOAD/TSTORE), NCHW, GNCHW,
GNC1HWC0 and NCDHW (TTRANS's sources and results), FRACTAL_Z as ``(C1*H*W, N1, N0, C0)`` or ``(C1, H, W, N, C0)``
and FRACTAL_Z_3D as ``(D*C1*H*W, N1, N0, C0)`` (TLOAD, TEXTRACT, TTRANS). The storage is the shape's C order
(:attr:`ConvTile.bits`), as the CPU simulator's ``ConvTile::data()`` holds it; a 4-bit dtype keeps one code a lane.

pto-isa's ``ConvTile`` (include/pto/common/pto_tile.hpp) carries the feature map's shape and the fields that
SETFMATRIX, SET_IMG2COL_PADDING and SET_IMG2COL_RPT copy into registers: the fmatrix word (fmap W in bits
0-15, H in 16-31, the four pad bytes left/right/top/bottom from bit 32), the repeat word (repeat stride 0-15,
time 16-23, mode 24-31, dst stride 32-47, dst M position 48-63) and the padding word (the pad value's bits;
one-byte dtypes repeat the byte). Register words are built as A2A3's and A5's ``Set*`` implementations build
them (include/pto/npu/*/SetFmatrix.hpp, SetImg2colRpt.hpp, SetImg2colPadding.hpp).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import GeometryError
from .dtypes import PACKED, DType, get_dtype
from .tile import LOCATIONS, to_bits

__all__ = ["ConvTile", "BlockConfig", "FMATRIX_MODES", "block_config"]

#: SetFmatrixMode values (include/pto/common/type.hpp): which register bank, and who writes it
FMATRIX_MODES = ("a_auto", "b_auto", "a_manual", "b_manual")
#: layouts and their dimension names (FRACTAL_Z has two forms, told apart by their rank)
LAYOUTS = {"NC1HWC0": (("N", "C1", "H", "W", "C0"),), "NDC1HWC0": (("N", "D", "C1", "H", "W", "C0"),),
           "NCHW": (("N", "C", "H", "W"),), "GNCHW": (("G", "N", "C", "H", "W"),),
           "GNC1HWC0": (("G", "N", "C1", "H", "W", "C0"),), "NCDHW": (("N", "C", "D", "H", "W"),),
           "FRACTAL_Z": (("C1HW", "N1", "N0", "C0"), ("C1", "H", "W", "N", "C0")),
           "FRACTAL_Z_3D": (("C1DHW", "N1", "N0", "C0"),)}
#: each setting's C++ setter width in bits (its argument type), and its default (the struct's initialiser)
FIELDS = {"fmap_h": (16, 0), "fmap_w": (16, 0), "filter_h": (16, 1), "filter_w": (16, 1), "dilation_h": (8, 1),
          "dilation_w": (8, 1), "stride_h": (8, 1), "stride_w": (8, 1), "channel_size": (16, 0),
          "repeat_stride": (16, 0), "repeat_time": (8, 1), "repeat_mode": (8, 0), "dst_stride": (16, 0),
          "dst_mposition": (16, 0)}
_MAX_ELEMS = 1 << 28


def _field(name: str, value, bits: int) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < 1 << bits:
        raise GeometryError(f"{name} must be an integer in 0..{(1 << bits) - 1} (its register field's width)",
                            instruction="ConvTile", operand=name, rule="pto.convtile.field", value=value)
    return int(value)


class ConvTile:
    """A feature-map tile: pto-isa's ``ConvTile<Loc, T, BufferSize, Layout, ConvTileShape<...>>``.

    Args:
        dtype: a PTO dtype name.
        shape: the layout's sizes (:data:`LAYOUTS`): ``(N, C1, H, W, C0)`` for ``NC1HWC0``, ``(N, D, C1, H, W,
            C0)`` for ``NDC1HWC0``, ``(C1*H*W, N1, N0, C0)`` or ``(C1, H, W, N, C0)`` for ``FRACTAL_Z`` ...
        layout: a key of :data:`LAYOUTS`.
        loc: the tile's location (TIMG2COL reads a ``mat`` tile).
        pad_list: (left, right, top, bottom), each 0..255.
        pad_value: the value outside the feature map, rounded once to the dtype.
        settings: ``fmap_h`` ``fmap_w`` ``filter_h`` ``filter_w`` ``dilation_h`` ``dilation_w`` ``stride_h``
            ``stride_w`` ``channel_size`` ``repeat_stride`` ``repeat_time`` ``repeat_mode`` ``dst_stride``
            ``dst_mposition`` and ``transpose``, each within its setter's width (:data:`FIELDS`).

    Rules: ``pto.convtile.layout``, ``pto.convtile.shape``, ``pto.convtile.field`` (GeometryError).

    >>> t = ConvTile("f16", (1, 1, 4, 4, 16), fmap_h=4, fmap_w=4, pad_list=(1, 1, 0, 0))
    >>> t.bits.shape, hex(t.fmatrix_word())
    ((1, 1, 4, 4, 16), '0x10100040004')
    """

    def __init__(self, dtype, shape, layout: str = "NC1HWC0", *, loc: str = "mat", pad_list=(0, 0, 0, 0),
                 pad_value=0, transpose: bool = False, **settings) -> None:
        self.dtype: DType = get_dtype(dtype, instruction="ConvTile", operand="dtype")
        if layout not in LAYOUTS:
            raise GeometryError(f"layout must be one of {', '.join(LAYOUTS)}", instruction="ConvTile",
                                operand="layout", rule="pto.convtile.layout", value=layout)
        if loc not in LOCATIONS:
            raise GeometryError(f"loc must be one of {', '.join(LOCATIONS)}", instruction="ConvTile",
                                operand="loc", rule="pto.tile.loc", value=loc)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        forms = {len(d): d for d in LAYOUTS[layout]}
        dims = forms.get(len(shape), LAYOUTS[layout][0])
        if len(shape) != len(dims) or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                              and v > 0 for v in shape) or np.prod(shape) > _MAX_ELEMS:
            want = " or ".join(f"{len(d)} positive sizes ({', '.join(d)})" for d in LAYOUTS[layout])
            raise GeometryError(f"a {layout} shape is {want}, at most {_MAX_ELEMS:,} elements",
                                instruction="ConvTile", operand="shape", rule="pto.convtile.shape", value=shape)
        unknown = set(settings) - set(FIELDS)
        if unknown:
            raise GeometryError(f"unknown settings; known: {', '.join(FIELDS)}, pad_list, pad_value, transpose",
                                instruction="ConvTile", operand=sorted(unknown)[0], rule="pto.convtile.field",
                                value=sorted(unknown))
        self.layout, self.loc, self.shape = layout, loc, tuple(int(v) for v in shape)
        self.dims = dict(zip(dims, self.shape))
        for name, (bits, default) in FIELDS.items():
            setattr(self, name, _field(name, settings.get(name, default), bits))
        pads = tuple(pad_list) if isinstance(pad_list, (tuple, list)) else ()
        if len(pads) != 4:
            raise GeometryError("pad_list is 4 bytes: left, right, top, bottom", instruction="ConvTile",
                                operand="pad_list", rule="pto.convtile.field", value=pad_list)
        self.pad_list = tuple(_field("pad_list", p, 8) for p in pads)
        self.pad_bits = int(to_bits(np.asarray([pad_value]), self.dtype, what="ConvTile.pad_value")[0])
        self.transpose = bool(transpose)
        self.bits = np.zeros(self.shape, self.dtype.lane)

    @property
    def values(self) -> np.ndarray:
        """The feature map viewed as numbers (writes go to :attr:`bits`)."""
        return self.bits.view(self.dtype.np)

    @property
    def c0(self) -> int:
        """The C0 the CPU simulator derives from the dtype: one 32-byte block (64 codes of a packed 4-bit type)."""
        return 64 if self.dtype.name in PACKED else 32 // self.dtype.size

    @property
    def fmap_shape(self) -> tuple[int, int, int, int, int, int]:
        """(N, D, C1, H, W, C0), D = 1 for NC1HWC0."""
        d = self.dims
        return d["N"], d.get("D", 1), d["C1"], d["H"], d["W"], d["C0"]

    def fmatrix_word(self) -> int:
        """The FMATRIX register word SETFMATRIX writes."""
        word = self.fmap_w | self.fmap_h << 16
        for i, p in enumerate(self.pad_list):
            word |= p << (32 + 8 * i)
        return word

    def rpt_word(self, with_dst: bool = True) -> int:
        """The repeat word SET_IMG2COL_RPT writes (A2A3's has no dst stride or M position)."""
        word = self.repeat_stride | self.repeat_time << 16 | self.repeat_mode << 24
        return word | (self.dst_stride << 32 | self.dst_mposition << 48 if with_dst else 0)

    def padding_word(self) -> int:
        """The padding word SET_IMG2COL_PADDING writes: the pad's bits, a one-byte pad repeated."""
        return self.pad_bits * 0x101 if self.dtype.size == 1 else self.pad_bits

    def describe(self) -> str:
        return f"{self.loc} {self.dtype} {self.layout} {'x'.join(map(str, self.shape))}"

    def __repr__(self) -> str:
        return f"ConvTile({self.describe()})"


@dataclass
class Img2colBank:
    """One IMG2COL register bank (A or B): the words last written, None while never written."""

    fmatrix: int | None = None
    rpt: int | None = None
    padding: int | None = None


@dataclass
class BlockConfig:
    """A block's configuration registers: the IMG2COL banks ``a`` and ``b``, and the quant registers
    (SET_QUANT_SCALAR's 64-bit word, SET_QUANT_VECTOR's Scaling tile)."""

    banks: dict = field(default_factory=lambda: {"a": Img2colBank(), "b": Img2colBank()})
    quant_scalar: int | None = None
    quant_vector: object = None

    def reset(self) -> "BlockConfig":
        self.banks = {"a": Img2colBank(), "b": Img2colBank()}
        self.quant_scalar = self.quant_vector = None
        return self


_DEFAULT = BlockConfig()


def block_config() -> BlockConfig:
    """The registers the SET_* ops and their consumers use when no ``config=`` is given."""
    return _DEFAULT
