"""The PTO Tile: a typed, shaped, laid-out block of on-chip storage with a valid region.

``Tile(loc, dtype, rows, cols, valid, blayout, slayout, fractal, pad)`` is the
pto-isa ``Tile<TileType, T, Rows, Cols, BLayout, RowValid, ColValid, SLayout,
SFractalSize, PadVal>`` (spec §2). Its static rules are checked when it is
made; each broken rule raises :class:`~tilesim.errors.GeometryError` with a
rule id (``pto.tile.*``).

Data: ``tile.bits`` is the logical ``(rows, cols)`` array of lane codes
(unsigned integers); ``tile.values`` views the same memory as numbers
(``float32``, ``float16``, ``bfloat16``, ``int16`` ...). Writing through
either writes the tile. The block/box layout does not change the logical
array; it decides the *storage order* (:meth:`Tile.offsets`,
:meth:`Tile.storage`) that byte addresses and TASSIGN see.

Storage: a tile is a typed view of bytes. A new tile owns its bytes; one
placed in a :class:`~tilesim.pto.memory.Memory` (``alloc_tile addr=``,
TASSIGN) views its buffer at a byte address, so tiles that overlap alias,
each reading the shared bytes in its own dtype and layout. ND and DN tiles
are numpy views of the bytes (every read and write goes through); a boxed
tile (Nz, Zn, Zz, Nn) keeps a logical copy that :meth:`Tile.pull` refreshes
from the bytes and :meth:`Tile.push` writes back (the interpreter does both
around every op).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import formats
from ..errors import GeometryError, TilesimError
from .dtypes import DType, get_dtype
from .targets import LOCATIONS

__all__ = ["Tile", "BLAYOUTS", "SLAYOUTS", "FRACTALS", "PADS", "MAX_TILE_BYTES"]

BLAYOUTS = ("row_major", "col_major")
SLAYOUTS = ("none_box", "row_major", "col_major")
FRACTALS = (512, 1024, 32)
#: the largest Tile made from Python (1 GiB; far past every buffer, so numpy-sized studies fit); a ``.pto``
#: program's tiles must fit the target's buffer (PTO104)
MAX_TILE_BYTES = 1 << 30
#: PadValue codes as PTOAS writes them (pad=0..3); pto-spec's codes differ and are not accepted.
PADS = ("null", "zero", "max", "min")

_ALIGN = 32
_FIXED = 16          # TileConfig fixedRowSize / fixedColSize
_MX_ROW, _MX_COL = 16, 2


def _norm(value, allowed, what: str, rule: str, aliases: dict | None = None) -> str:
    v = str(value).lower()
    v = (aliases or {}).get(v, v)
    if v not in allowed:
        raise GeometryError(f"{what} must be one of {', '.join(map(str, allowed))}", instruction="Tile",
                            operand=what, rule=rule, value=value)
    return v


@lru_cache(maxsize=64)
def _all_defined(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only array of False: :attr:`Tile.undefined` after an op that wrote no lane through undefined behaviour."""
    a = np.zeros(shape, bool)
    a.flags.writeable = False
    return a


def _custom_pad(value) -> str:
    """``custom:0xWORD`` normalised (eight lower-case hex digits), the word checked to fit 32 bits."""
    try:
        word = int(str(value).split(":", 1)[1], 0)
    except (IndexError, ValueError):
        word = -1
    if not 0 <= word < 1 << 32:
        raise GeometryError("a custom pad must be custom:WORD, WORD a 32-bit number (custom:0xbf80)",
                            instruction="Tile", operand="pad", rule="pto.tile.pad", value=value)
    return f"custom:0x{word:08x}"


_LAYOUT_ALIASES = {"rowmajor": "row_major", "colmajor": "col_major", "nonebox": "none_box", "none": "none_box"}


#: the fields of a Tile that follow from its type arguments alone
_STATIC_FIELDS = ("loc", "dtype", "rows", "cols", "blayout", "slayout", "fractal", "pad", "inner_rows", "inner_cols",
                  "_layout", "signature", "span")
#: checked type arguments (with their types) -> those fields: a tile of a type seen before skips the checks
_STATIC: dict[tuple, dict] = {}


class Tile:
    """A PTO tile.

    Args:
        loc: ``vec`` (UB), ``mat`` (L1), ``left`` (L0A), ``right`` (L0B), ``acc`` (L0C), ``bias``, ``scaling``.
        dtype: a PTO dtype name (``f32``, ``f16``, ``bf16``, ``i8`` .. ``i64``, ``u8``/``ui8`` .. ``u64``).
        rows, cols: capacity (``Rows``, ``Cols``), both > 0.
        valid: ``(valid_rows, valid_cols)``, default the whole tile; each within 0..capacity.
        blayout: block layout, ``row_major`` or ``col_major``.
        slayout: inner box layout, ``none_box`` (plain ND/DN), ``row_major`` or ``col_major``.
        fractal: inner box bytes: 512, 1024 (16x16 accumulator boxes) or 32 (MX scale boxes).
        pad: ``null``, ``zero``, ``max``, ``min`` (or the PTOAS codes 0..3), or ``custom:0xWORD``: pto-isa's
            ``PadValueCustom``, a 32-bit word whose low bytes are the pad's lane code (f32: the word; 16-bit
            dtypes: its low 16 bits, as ``PadValueCustom16``; 8-bit: its low byte).

    Static rules (``GeometryError`` rule ids):
        ``pto.tile.loc``, ``pto.tile.shape`` (rows, cols > 0), ``pto.tile.valid`` (0 <= valid <= capacity),
        ``pto.tile.blayout``/``slayout``/``fractal``/``pad`` (known values),
        ``pto.tile.align`` (none_box row_major: cols*sizeof(T) % 32 == 0; none_box col_major:
        rows*sizeof(T) % 32 == 0), ``pto.tile.box_cols`` (cols % inner_cols == 0),
        ``pto.tile.box_rows`` (rows % inner_rows == 0 unless vec, 1 row or the 32-byte MX fractal).

    >>> t = Tile("vec", "f32", 16, 256, valid=(16, 255))
    >>> t.layout, t.valid, t.nbytes
    ('ND', (16, 255), 16384)
    >>> Tile("vec", "f32", 16, 4)
    Traceback (most recent call last):
    ...
    tilesim.errors.GeometryError: Tile: operand cols: rule pto.tile.align: a row_major none_box tile needs cols*sizeof(f32) = 16 to be a multiple of 32 bytes
    """

    #: where a layout the program's type did not name came from (a target's default); errors quote it
    layout_note: str = ""
    #: bytes of the tile past its buffer's end: a windowed TASSIGN on cpu (PTO176); ops refuse such a tile
    overhang: int = 0

    def __init__(self, loc: str = "vec", dtype="f32", rows: int = 16, cols: int = 16, valid=None,
                 blayout: str = "row_major", slayout: str = "none_box", fractal: int = 512, pad="null") -> None:
        args = (loc, dtype, rows, cols, blayout, slayout, fractal, pad)
        try:
            key = args + tuple(map(type, args))              # 1 and True are equal keys; their types are not
            static = _STATIC.get(key)
        except TypeError:                                    # an unhashable argument: checked (and refused) below
            key = static = None
        if static is None:
            self._check_args(*args)
            static = {k: self.__dict__[k] for k in _STATIC_FIELDS}
            if key is not None and len(_STATIC) < 4096:
                _STATIC[key] = static
        else:
            self.__dict__.update(static)
        self.addr: int | None = None
        #: lanes whose value the last op on target ``cpu`` wrote through C++ undefined behaviour (x86-64's result;
        #: :meth:`mark_undefined`)
        self.undefined: np.ndarray | None = None
        self._mem = np.zeros(self.span, np.uint8)
        self._off = 0
        self._shadow = np.zeros((self.rows, self.cols), self.dtype.lane) if self.is_boxed else None
        self._bits = self._view()
        self._valid = (self.rows, self.cols)
        self.set_valid(*(valid if valid is not None else (self.rows, self.cols)))

    def _check_args(self, loc, dtype, rows, cols, blayout, slayout, fractal, pad) -> None:
        """Check and normalise the type arguments; set the fields that follow from them alone
        (:data:`_STATIC_FIELDS`, which ``__init__`` keeps per argument tuple)."""
        self.loc = _norm(loc, tuple(LOCATIONS), "loc", "pto.tile.loc")
        self.dtype: DType = get_dtype(dtype, instruction="Tile", operand="dtype")
        for name, v in (("rows", rows), ("cols", cols)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
                raise GeometryError(f"{name} must be a positive integer", instruction="Tile", operand=name,
                                    rule="pto.tile.shape", value=v)
        self.rows, self.cols = int(rows), int(cols)
        if self.rows * self.cols * self.dtype.size > MAX_TILE_BYTES:
            raise GeometryError(f"a {self.rows}x{self.cols} {self.dtype} tile takes "
                                f"{self.rows * self.cols * self.dtype.size:,} bytes; a Tile holds at most {MAX_TILE_BYTES:,} (the largest on-chip buffer holds "
                                "512 KiB; a program's tiles are checked against its target's buffers)",
                                instruction="Tile", operand="rows,cols", rule="pto.tile.size", value=(rows, cols))
        self.blayout = _norm(blayout, BLAYOUTS, "blayout", "pto.tile.blayout", _LAYOUT_ALIASES)
        self.slayout = _norm(slayout, SLAYOUTS, "slayout", "pto.tile.slayout", _LAYOUT_ALIASES)
        if fractal not in FRACTALS:
            raise GeometryError("fractal must be 512, 1024 or 32 bytes", instruction="Tile", operand="fractal",
                                rule="pto.tile.fractal", value=fractal)
        self.fractal = int(fractal)
        if isinstance(pad, (int, np.integer)) and not isinstance(pad, bool):
            if not 0 <= pad < len(PADS):
                raise GeometryError("pad code must be 0 (null), 1 (zero), 2 (max) or 3 (min)", instruction="Tile",
                                    operand="pad", rule="pto.tile.pad", value=pad)
            pad = PADS[pad]
        self.pad = _custom_pad(pad) if str(pad).lower().startswith("custom") else _norm(pad, PADS, "pad", "pto.tile.pad")
        self.inner_rows, self.inner_cols = self._inner_box()
        self._layout = self._layout_name()
        #: what an op's static checks read (:meth:`~tilesim.pto.ops._common.Op.static`); fixed for the tile's life
        self.signature = (self.loc, self.dtype.name, self.rows, self.cols, self.blayout, self.slayout, self.fractal,
                          self.pad)
        self._check_static()
        self.span = self._span()

    # ------------------------------------------------------------ static rules
    def _inner_box(self) -> tuple[int, int]:
        """Inner box (InnerRows, InnerCols), as pto_tile.hpp derives it from the fractal size."""
        inner_row_major = self.slayout == "row_major"
        if self.fractal == 1024:
            return _FIXED, _FIXED
        if self.fractal == 32:
            return (_MX_ROW, _MX_COL) if inner_row_major else (_MX_COL, _MX_ROW)
        if self.slayout == "none_box":
            return 1, 1
        per_block = _ALIGN // self.dtype.size
        return (_FIXED, per_block) if inner_row_major else (per_block, _FIXED)

    def _check_static(self) -> None:
        size = self.dtype.size
        if self.cols % self.inner_cols:
            raise GeometryError(f"cols must be a multiple of the inner box's {self.inner_cols} columns",
                                instruction="Tile", operand="cols", rule="pto.tile.box_cols", value=self.cols)
        if not (self.loc == "vec" or self.fractal == 32 or self.rows == 1 or self.rows % self.inner_rows == 0):
            raise GeometryError(f"rows must be a multiple of the inner box's {self.inner_rows} rows "
                                "(unless the tile is vec, has one row, or uses the 32-byte MX fractal)",
                                instruction="Tile", operand="rows", rule="pto.tile.box_rows", value=self.rows)
        if self.slayout == "none_box":
            if self.blayout == "row_major" and (self.cols * size) % _ALIGN:
                raise GeometryError(f"a row_major none_box tile needs cols*sizeof({self.dtype}) = {self.cols * size} "
                                    "to be a multiple of 32 bytes", instruction="Tile", operand="cols",
                                    rule="pto.tile.align", value=self.cols)
            if self.blayout == "col_major" and (self.rows * size) % _ALIGN:
                raise GeometryError(f"a col_major none_box tile needs rows*sizeof({self.dtype}) = {self.rows * size} "
                                    "to be a multiple of 32 bytes", instruction="Tile", operand="rows",
                                    rule="pto.tile.align", value=self.rows)

    def _span(self) -> int:
        """Bytes the tile covers in storage order (a boxed vec tile may end in a partial box)."""
        n = self.numel
        if self.slayout != "none_box":
            n = max(n, int(self.offsets().max()) + 1)
        return n * self.dtype.size

    # ------------------------------------------------------------ storage
    @property
    def bits(self) -> np.ndarray:
        """The logical (rows, cols) lane codes: a view of the tile's bytes (ND, DN) or its logical copy (boxed)."""
        return self._bits

    def _view(self) -> np.ndarray:
        """Make :attr:`bits`: made once per placement (``__init__``, :meth:`bind`), since ops read it per call."""
        if self._shadow is not None:
            return self._shadow
        lanes = self._mem[self._off: self._off + self.span].view(self.dtype.lane)
        if self.blayout == "row_major":
            return lanes.reshape(self.rows, self.cols)
        return lanes.reshape(self.cols, self.rows).T

    @bits.setter
    def bits(self, value) -> None:
        self.bits[...] = value

    def __getstate__(self) -> dict:
        # the kept views are remade on unpickling, so that they view the unpickled bytes (a pickled view is a copy)
        return {k: v for k, v in self.__dict__.items() if k not in ("_bits", "_valid_bits")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bits = self._view()
        self._valid_bits = self._bits[: self._valid[0], : self._valid[1]]

    def bind(self, data: np.ndarray, offset: int) -> "Tile":
        """View ``data`` (a uint8 buffer) from byte ``offset`` on: the tile now reads and writes those bytes."""
        if data.dtype != np.uint8 or data.ndim != 1 or not 0 <= offset <= data.size - self.span:
            raise GeometryError(f"a {self.span}-byte tile does not fit {data.size} bytes at {offset}",
                                instruction="Tile.bind", operand="offset", rule="pto.mem.bounds", value=offset)
        self._mem, self._off, self.overhang = data, int(offset), 0
        self._rekey()
        self._bits = self._view()
        self._valid_bits = self._bits[: self._valid[0], : self._valid[1]]
        self.pull()
        return self

    def pull(self) -> "Tile":
        """Refresh a boxed tile's logical copy from its bytes (ND/DN tiles are always current)."""
        if self._shadow is not None:
            lanes = self._mem[self._off: self._off + self.span].view(self.dtype.lane)
            self._shadow[...] = lanes[self.offsets()]
        return self

    def push(self) -> "Tile":
        """Write a boxed tile's logical copy back to its bytes."""
        if self._shadow is not None:
            lanes = self._mem[self._off: self._off + self.span].view(self.dtype.lane)
            lanes[self.offsets()] = self._shadow
        return self

    def raw_bytes(self) -> np.ndarray:
        """The tile's bytes (a view)."""
        self.push()
        return self._mem[self._off: self._off + self.span]

    # ------------------------------------------------------------ valid region
    @property
    def valid(self) -> tuple[int, int]:
        """``(GetValidRow(), GetValidCol())``: the origin-anchored region ops read and write."""
        return self._valid

    @property
    def valid_rows(self) -> int:
        return self._valid[0]

    @property
    def valid_cols(self) -> int:
        return self._valid[1]

    def set_valid(self, valid_rows: int, valid_cols: int) -> "Tile":
        """Change the (dynamic) valid region, as ``pto.set_validshape`` does.

        Raises:
            GeometryError: a size outside 0..capacity (rule ``pto.tile.valid``).
        """
        for name, v, cap in (("valid_rows", valid_rows, self.rows), ("valid_cols", valid_cols, self.cols)):
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not 0 <= v <= cap:
                raise GeometryError(f"{name} must be an integer in 0..{cap}", instruction="Tile", operand=name,
                                    rule="pto.tile.valid", value=v)
        self._valid = (int(valid_rows), int(valid_cols))
        self._valid_bits = self._bits[: self._valid[0], : self._valid[1]]
        self._rekey()
        return self

    def _rekey(self) -> None:
        """What an op's cached checks read (:meth:`~tilesim.pto.ops._common.Op.static`): the type, the valid region
        and the overhang (a tile that has one never passes, so its key is never cached)."""
        self.key = (self.signature, self._valid, self.overhang)

    # ------------------------------------------------------------------ layout
    @property
    def is_boxed(self) -> bool:
        return self.slayout != "none_box"

    @property
    def is_row_major(self) -> bool:
        return self.blayout == "row_major"

    @property
    def layout(self) -> str:
        """``ND``, ``DN`` (plain), or the boxed ``Nz``, ``Zn``, ``Zz``, ``Nn``."""
        return self._layout

    @property
    def layouts(self) -> str:
        """``blayout/slayout`` for messages, with where a layout the program did not name came from."""
        return f"{self.blayout}/{self.slayout}" + (f" ({self.layout_note})" if self.layout_note else "")

    def _layout_name(self) -> str:
        if not self.is_boxed:
            return "ND" if self.is_row_major else "DN"
        outer = "Z" if self.is_row_major else "N"
        inner = "z" if self.slayout == "row_major" else "n"
        return outer + inner

    @property
    def is_nd(self) -> bool:
        return self.layout == "ND"

    @property
    def is_dn(self) -> bool:
        return self.layout == "DN"

    @property
    def numel(self) -> int:
        return self.rows * self.cols

    @property
    def nbytes(self) -> int:
        return self.numel * self.dtype.size

    def offsets(self, r=None, c=None) -> np.ndarray:
        """Storage offset (in elements) of logical ``(r, c)``; all of them as a (rows, cols) array by default.

        Plain layouts: ``r*cols + c`` (ND) or ``c*rows + r`` (DN). Boxed layouts
        (pto-isa ``cpu/tile_offsets.hpp``), with inner box ``ir x ic`` and ``n = ir*ic``:
        Nz ``(c//ic)*rows*ic + (r//ir)*n + (r%ir)*ic + c%ic``; Zn ``(r//ir)*cols*ir + (c//ic)*n + (c%ic)*ir + r%ir``;
        Zz ``(r//ir)*cols*ir + (c//ic)*n + (r%ir)*ic + c%ic``; Nn ``(c//ic)*rows*ic + (r//ir)*n + (c%ic)*ir + r%ir``.
        """
        if r is None and c is None:
            r, c = np.indices((self.rows, self.cols))
        r, c = np.asarray(r, np.int64), np.asarray(c, np.int64)
        ir, ic = self.inner_rows, self.inner_cols
        n = ir * ic
        lay = self.layout
        if lay == "ND":
            return r * self.cols + c
        if lay == "DN":
            return c * self.rows + r
        within_rm = (r % ir) * ic + c % ic
        within_cm = (c % ic) * ir + r % ir
        if lay in ("Nz", "Nn"):
            base = (c // ic) * self.rows * ic + (r // ir) * n
        else:
            base = (r // ir) * self.cols * ir + (c // ic) * n
        return base + (within_rm if lay in ("Nz", "Zz") else within_cm)

    def storage(self) -> np.ndarray:
        """The tile's lane codes in storage order (1-D), as they sit in the buffer (a copy)."""
        return self.raw_bytes().view(self.dtype.lane).copy()

    def load_storage(self, lanes: np.ndarray) -> "Tile":
        """Fill the tile from lane codes in storage order (the inverse of :meth:`storage`)."""
        lanes = np.asarray(lanes)
        off = self.offsets()
        if lanes.ndim != 1 or lanes.size <= int(off.max()) or lanes.dtype.itemsize != self.dtype.size:
            raise GeometryError(f"storage must be a 1-D array of {off.max() + 1} {self.dtype.size}-byte lanes",
                                instruction="Tile.load_storage", operand="lanes", rule="pto.tile.storage",
                                value=lanes.shape)
        self.bits[...] = lanes.view(self.dtype.lane)[off]
        self.push()
        return self

    def mark_undefined(self, where, mask) -> None:
        """Record which lanes of ``where`` (an index into the logical array) the op just wrote through C++
        undefined behaviour (``mask``, broadcast to it); every other lane is defined (issue 11, PTO82). Without
        such a lane it is a shared read-only array of False (an op on a large tile then allocates nothing)."""
        if mask is False or not np.any(mask):
            self.undefined = _all_defined(self.bits.shape)
            return
        self.undefined = np.zeros(self.bits.shape, bool)
        if mask is not False:
            self.undefined[where] = mask

    # -------------------------------------------------------------------- data
    @property
    def values(self) -> np.ndarray:
        """The logical (rows, cols) array viewed as numbers (writes go to the tile's bits); for a dtype numpy
        has no type for (``f4e1m2``), a float64 copy decoded through its format."""
        if not self.dtype.has_view:
            return formats.decode(self.bits, self.dtype.format)
        return self.bits.view(self.dtype.np)

    @property
    def valid_values(self) -> np.ndarray:
        """``values`` restricted to the valid region."""
        return self.values[: self.valid_rows, : self.valid_cols]

    @property
    def valid_bits(self) -> np.ndarray:
        """``bits`` restricted to the valid region (a view kept with the valid region and the placement)."""
        return self._valid_bits

    def fill(self, values, *, rounding: str = "rne") -> "Tile":
        """Write numbers into the top-left of the tile, each rounded once to the dtype.

        ``values`` of the tile's own numpy dtype are copied bit for bit; floats
        are rounded with :func:`tilesim.formats.encode`; integers must fit.
        A scalar fills the valid region.
        """
        a = np.asarray(values)
        if a.ndim == 0:
            a = np.broadcast_to(a, (self.valid_rows, self.valid_cols))
        if a.ndim == 1:
            a = a[None, :]
        if a.ndim != 2 or a.shape[0] > self.rows or a.shape[1] > self.cols:
            raise GeometryError(f"values of shape {a.shape} do not fit a {self.rows}x{self.cols} tile",
                                instruction="Tile.fill", operand="values", rule="pto.tile.fill", value=a.shape)
        self.bits[: a.shape[0], : a.shape[1]] = to_bits(a, self.dtype, rounding=rounding, what="Tile.fill")
        return self

    @classmethod
    def from_array(cls, values, dtype=None, *, loc: str = "vec", rows: int | None = None, cols: int | None = None,
                   rounding: str = "rne", **layout) -> "Tile":
        """A row-major tile holding a 2-D array as its valid region; cols padded to 32 bytes.

        >>> Tile.from_array(np.ones((3, 5), np.float32)).describe()
        'vec f32 3x8 valid 3x5 ND'
        """
        a = np.asarray(values)
        if a.ndim == 1:
            a = a[None, :]
        dt = get_dtype(dtype if dtype is not None else a.dtype, instruction="Tile.from_array", operand="dtype")
        per = _ALIGN // dt.size
        r = rows if rows is not None else a.shape[0]
        c = cols if cols is not None else -(-a.shape[1] // per) * per
        t = cls(loc, dt, r, c, valid=a.shape, **layout)
        return t.fill(a, rounding=rounding)

    def copy(self) -> "Tile":
        """An independent tile with the same type, valid region and bits (address not copied)."""
        t = Tile(self.loc, self.dtype, self.rows, self.cols, self.valid, self.blayout, self.slayout, self.fractal,
                 self.pad)
        t.bits[...] = self.bits
        return t

    def describe(self) -> str:
        return (f"{self.loc} {self.dtype} {self.rows}x{self.cols} valid {self.valid_rows}x{self.valid_cols} "
                f"{self.layout}" + (f" @0x{self.addr:X}" if self.addr is not None else ""))

    def __repr__(self) -> str:
        try:
            return f"Tile({self.describe()})"
        except AttributeError:  # a tile whose construction failed
            return "Tile(<invalid>)"


def to_bits(values, dtype, *, rounding: str = "rne", what: str = "pto") -> np.ndarray:
    """Numbers as lane codes of ``dtype``: same-dtype arrays bit for bit, floats rounded once, integers exactly.

    Raises:
        TilesimError: an integer out of the dtype's range, or a float into an integer dtype
            that is not an exact integer (rule ``pto.value.range``).
    """
    dt = get_dtype(dtype)
    a = np.asarray(values)
    if a.dtype == dt.np:
        return np.array(a, order="C").view(dt.lane)
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iuf" and a.dtype != object:
        a = a.astype(np.float64)
    if dt.is_int:
        if a.dtype.kind == "f":
            if not np.all(np.isfinite(a)) or np.any(a != np.round(a)):
                raise TilesimError(f"{dt} needs whole numbers", instruction=what, operand="values",
                                   rule="pto.value.range", value=a.flat[np.flatnonzero(~np.isfinite(a) | (a != np.round(a)))[0]])
            a = a.astype(np.float64)
        lo, hi = dt.format.int_min, dt.format.int_max
        big = np.asarray(a, dtype=object) if a.dtype == object else a
        if a.size and (np.min(big) < lo or np.max(big) > hi):
            raise TilesimError(f"values must lie in {lo}..{hi} for {dt}", instruction=what, operand="values",
                               rule="pto.value.range", value=(np.min(big), np.max(big)))
        if a.dtype.kind == "f":
            return formats.encode(a, dt.format)
        return np.asarray(a).astype(dt.np).view(dt.lane)
    if a.dtype.kind in "iu" and a.dtype.itemsize == 8:
        return formats.encode(a, dt.format, rounding=rounding)
    return formats.encode(a.astype(np.float64) if a.dtype.kind != "f" else a, dt.format, rounding=rounding)
