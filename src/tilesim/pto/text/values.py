"""The values a running PTO program holds, besides tiles.

* :class:`Scalar`: ``index``, ``i1``, an integer type (a Python int, signed
  for ``iN``, unsigned for ``uiN``) or a float type (a numpy scalar of it).
* :class:`Global`: one global-memory buffer (a flat lane array) and what the
  program did with it; :class:`Ptr` is an element offset into one
  (``!pto.ptr<T>`` arguments, ``pto.addptr``).
* :class:`TensorView` (``make_tensor_view``, memref arguments) and
  :class:`PartView` (``partition_view``): shapes and strides over a pointer;
  a window of either is read and written as (rows, cols), leading
  dimensions folded into rows.
* :class:`Opaque`: pipe handles, event-id arrays, reserved buffers, async
  sessions: interpreter state named by the op that made it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..dtypes import DType

__all__ = ["Scalar", "Global", "Ptr", "TensorView", "PartView", "Opaque", "kind_of"]


@dataclass
class Scalar:
    """A scalar: ``type`` is ``index``, ``i1``, ``i8`` ... ``i64``, ``ui8`` ..., ``f16``, ``bf16``, ``f32``, ``f64``."""

    type: str
    value: object

    def number(self):
        """The value as ops take it (int, or a numpy float of the type)."""
        return self.value

    @property
    def is_int(self) -> bool:
        """index, i1 and the integer types (their values are Python ints)."""
        return isinstance(self.value, int)


@dataclass
class Global:
    """A global-memory buffer: ``lanes`` (flat, of ``dtype``); ``given`` when it came from the inputs."""

    name: str
    dtype: DType
    lanes: np.ndarray
    given: bool
    shape: tuple | None = None
    written: bool = False
    reach: int = 0              # one past the highest element a view spans or a window touched

    def __post_init__(self) -> None:
        if self.lanes.dtype != self.dtype.lane:          # keep bit patterns: stores assign lane codes
            self.lanes = np.ascontiguousarray(self.lanes).view(self.dtype.lane)

    def ensure(self, size: int) -> None:
        """Grow a buffer the program made (not an input) to at least ``size`` elements."""
        if size > self.lanes.size and not self.given:
            grown = np.zeros(size, self.dtype.lane)
            grown[: self.lanes.size] = self.lanes
            self.lanes = grown


@dataclass
class Ptr:
    """A pointer into a :class:`Global`: element ``offset`` (``pto.addptr`` moves it)."""

    glob: Global
    offset: int = 0

    @property
    def dtype(self) -> DType:
        return self.glob.dtype


@dataclass
class TensorView:
    """``shape``/``strides`` (elements) over ``ptr``, from element ``offset`` on."""

    ptr: Ptr
    shape: tuple
    strides: tuple
    offset: int = 0
    layout: str | None = None

    def window(self) -> "PartView":
        return PartView(self, tuple(0 for _ in self.shape), tuple(self.shape))


@dataclass
class PartView:
    """A window ``offsets`` + ``sizes`` of a :class:`TensorView` (``beyond``: it may leave the view's shape,
    decision PTO26)."""

    view: TensorView
    offsets: tuple
    sizes: tuple
    beyond: bool = False
    #: the last (extra, flat_index(extra)): an op's window is read, then written back at the same indices
    _flat: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def flat_index(self, extra=(0, 0)) -> np.ndarray:
        """Flat element indices of this window as (rows, cols): leading dims folded into rows (read-only)."""
        extra = tuple(extra)
        if self._flat is not None and self._flat[0] == extra:
            return self._flat[1]
        offs = list(self.offsets)
        if len(offs) >= 2:
            offs[-2:] = [offs[-2] + extra[0], offs[-1] + extra[1]]
        else:
            offs[-1] += extra[1]
        sizes = [int(s) for s in self.sizes]
        strides = self.view.strides
        idx = np.int64(self.view.ptr.offset + self.view.offset + sum(o * st for o, st in zip(offs, strides)))
        for d, (s, st) in enumerate(zip(sizes, strides)):
            shape = [1] * len(sizes)
            shape[d] = s
            idx = idx + (np.arange(s, dtype=np.int64) * st).reshape(shape)
        lead = math.prod(sizes[:-1])
        idx = np.broadcast_to(idx, sizes).reshape(lead, sizes[-1])
        idx.flags.writeable = False
        self._flat = (extra, idx)
        return idx

    @property
    def rows_cols(self) -> tuple[int, int]:
        lead = int(np.prod(self.sizes[:-1])) if len(self.sizes) > 1 else 1
        return lead, int(self.sizes[-1])


@dataclass
class Opaque:
    """Interpreter state an op made: ``kind`` (pipe, eventid_array, reserved, session, event) and fields."""

    kind: str
    fields: dict = field(default_factory=dict)


def kind_of(v) -> str:
    """A value's kind, for error messages."""
    from ..tile import Tile

    if isinstance(v, Tile):
        return f"a tile ({v.describe()})"
    if isinstance(v, Scalar):
        return f"a {v.type} scalar"
    if isinstance(v, Ptr):
        return f"a !pto.ptr<{v.dtype}>"
    if isinstance(v, TensorView):
        return "a tensor view"
    if isinstance(v, PartView):
        return "a partition view"
    if isinstance(v, Opaque):
        return f"a {v.kind}"
    return type(v).__name__
