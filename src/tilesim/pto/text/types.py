"""From written types to tiles and global-memory element types.

* ``!pto.tile_buf<loc=L, dtype=T, rows=R, cols=C, v_row=VR, v_col=VC, blayout=B, slayout=S, fractal=F, pad=P[, compact=K]>``
  (keyed; fields in exactly this order; VR/VC an integer, ``?`` or -1 for dynamic; pad 0..3 = null/zero/max/min).
* ``!pto.tile_buf<vec, 16x128xf32, valid=16x1, blayout=col_major>`` (compact; defaults omitted). A compact
  ``left`` tile_buf gets the target's Left layout (A2A3 row_major, A5 col_major) whatever it says, as PTOAS's
  type parser does (PTOAS ``lib/PTO/IR/PTOTypeDefs.cpp``, ``resolveTileBufBLayout``; decision PTO35).
* ``!pto.tile<16x16xf32>`` (SSA), ``!pto.tile<f32, 16, 16>`` (assembly) and the documentation's positional
  ``!pto.tile<loc=vec, f32, 16, 16, RowMajor, NoneBox, None, Zero>``. An SSA/assembly shape is the
  *valid* shape of an ND tile whose columns are padded to 32 bytes (decision PTO15).
* ``!pto.tile<...>`` is a placeholder: the interpreter infers the result tile from the op.
* ``memref<AxBx...xT, #pto.address_space<S>>``: in a local space (vec/ub, mat/l1, left, right, acc, bias,
  scaling) a tile whose rows are the product of the leading dimensions; in ``gm`` (or with no space) global
  memory. Local memref tiles are ND, except left/right/acc, which get the layouts TMATMUL needs on the target
  (decision PTO24).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ParseError, TilesimError
from ..dtypes import get_dtype
from ..targets import Profile
from ..tile import Tile
from .parser import Shape, TypeRef

__all__ = ["TileSpec", "tile_spec", "view_dtype", "KEYED_ORDER"]

KEYED_ORDER = ("loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad", "compact")
_COMPACT_KEYS = ("valid", "blayout", "slayout", "fractal", "pad", "compact")
_DOC_LAYOUT = {"rowmajor": "row_major", "colmajor": "col_major", "nonebox": "none_box", "none": None}


@dataclass
class TileSpec:
    """Everything needed to make a Tile; ``valid`` entries are None where the type says ``?``."""

    loc: str
    dtype: str
    rows: int
    cols: int
    valid: tuple
    blayout: str = "row_major"
    slayout: str = "none_box"
    fractal: int = 512
    pad: object = "null"
    layout_note: str = ""     # where a layout the type did not name came from (errors say it)

    @property
    def dynamic(self) -> bool:
        return None in self.valid

    def make(self, valid=None) -> Tile:
        t = Tile(self.loc, self.dtype, self.rows, self.cols, valid or self.valid, self.blayout, self.slayout,
                 self.fractal, self.pad)
        t.layout_note = self.layout_note
        return t


def _err(t: TypeRef, detail: str, rule: str = "pto.parse.type") -> ParseError:
    return ParseError(detail, instruction="pto.type", operand=t.text(), rule=rule, line=t.line, column=t.column)


def _dim(t: TypeRef, v, what: str):
    if v in ("?", -1):
        return None
    if isinstance(v, int) and v >= 0:
        return v
    raise _err(t, f"{what} must be an integer, ? or -1, not {v!r}")


#: memref address spaces -> tile locations (None: global memory)
SPACES = {"gm": None, "global": None, "vec": "vec", "ub": "vec", "mat": "mat", "l1": "mat", "cbuf": "mat",
          "left": "left", "l0a": "left", "right": "right", "l0b": "right", "acc": "acc", "l0c": "acc",
          "bias": "bias", "scaling": "scaling", "fb": "scaling"}


def memref_space(t: TypeRef) -> str | None:
    """The address space a ``memref`` type names (``gm`` when none), as written."""
    for _, v in t.params[1:]:
        if isinstance(v, str) and v.startswith("#pto.address_space<"):
            return v[len("#pto.address_space<"): -1].strip()
    return "gm"


def memref_shape(t: TypeRef) -> Shape:
    if not t.params or not isinstance(t.params[0][1], Shape) or t.params[0][1].elem is None:
        raise _err(t, "a memref type starts with its shape and element type (e.g. memref<16x16xf32, ...>)")
    return t.params[0][1]


def memref_location(t: TypeRef) -> str | None:
    """The tile location of a local memref type; None for global memory."""
    space = memref_space(t)
    if space not in SPACES:
        raise _err(t, f"unknown address space {space!r}; spaces: {', '.join(SPACES)}")
    return SPACES[space]


def _memref_tile(t: TypeRef, prof: Profile) -> TileSpec:
    shape = memref_shape(t)
    if None in shape.dims or not shape.dims:
        raise _err(t, "a local memref needs a static shape")
    loc = memref_location(t)
    rows = 1
    for d in shape.dims[:-1]:
        rows *= d
    cols = shape.dims[-1]
    lay = {"left": (prof.left_blayout or "row_major", "row_major", 512), "right": ("row_major", "col_major", 512),
           "acc": ("col_major", "row_major", 1024)}.get(loc, ("row_major", "none_box", 512))
    return TileSpec(loc, shape.elem, rows, cols, (rows, cols), *lay)


def tile_spec(t: TypeRef, prof: Profile) -> TileSpec | None:
    """The tile a type describes; None for a placeholder (``!pto.tile<...>``) or a non-tile type."""
    if t.name == "memref" and memref_location(t) is not None:
        return _memref_tile(t, prof)
    if t.name not in ("!pto.tile_buf", "!pto.tile") or t.is_placeholder or not t.params:
        return None
    keys = [k for k, _ in t.params]
    if t.name == "!pto.tile_buf" and keys and keys[0] == "loc":
        spec = _keyed(t)
    elif t.name == "!pto.tile_buf":
        spec = _compact(t, prof)
    else:
        return _doc_tile(t)
    _check_size(t, spec, prof)
    if spec.loc == "left" and prof.left_blayout and spec.blayout != prof.left_blayout:
        spec.blayout = prof.left_blayout     # PTOAS's parser gives every Left tile_buf the target's layout
        spec.layout_note = f"blayout {prof.left_blayout} is {prof.name}'s for every Left tile"
    return spec


def _check_size(t: TypeRef, spec: TileSpec, prof: Profile) -> None:
    """A tile larger than its buffer on the target is refused before anything is allocated (PTO104)."""
    cap = prof.capacities.get(spec.loc)
    if cap is None or not all(isinstance(v, int) and v > 0 for v in (spec.rows, spec.cols)):
        return                                               # Tile() names what is wrong with these
    try:
        size = get_dtype(spec.dtype).size
    except TilesimError:
        return
    if spec.rows * spec.cols * size > cap:
        raise _err(t, f"a {spec.rows}x{spec.cols} {spec.dtype} tile takes {spec.rows * spec.cols * size:,} bytes; "
                      f"the {spec.loc} buffer on {prof.name} holds {cap:,}", rule="pto.mem.size")


def _keyed(t: TypeRef) -> TileSpec:
    got = dict(t.params)
    order = [k for k, _ in t.params]
    expected = [k for k in KEYED_ORDER if k in got]
    unknown = [k for k in order if k not in KEYED_ORDER]
    if unknown:
        raise _err(t, f"unknown tile_buf field {unknown[0]!r}; fields are {', '.join(KEYED_ORDER)}")
    missing = [k for k in KEYED_ORDER[:10] if k not in got]
    if missing:
        raise _err(t, f"tile_buf is missing {', '.join(missing)}")
    if order != expected or None in order:
        raise _err(t, "tile_buf fields must come in the order " + ", ".join(KEYED_ORDER))
    for k in ("rows", "cols", "fractal", "pad"):
        if not isinstance(got[k], int):
            raise _err(t, f"{k} must be an integer, not {got[k]!r}")
    valid = (_dim(t, got["v_row"], "v_row"), _dim(t, got["v_col"], "v_col"))
    return TileSpec(str(got["loc"]), str(got["dtype"]), got["rows"], got["cols"], valid, str(got["blayout"]),
                    str(got["slayout"]), got["fractal"], got["pad"])


def _compact(t: TypeRef, prof: Profile) -> TileSpec:
    params = list(t.params)
    if len(params) < 2 or params[0][0] is not None or params[1][0] is not None or not isinstance(params[1][1], Shape):
        raise _err(t, "a compact tile_buf starts with a location and RxCxdtype (e.g. vec, 16x128xf32)")
    loc, shape = str(params[0][1]), params[1][1]
    if len(shape.dims) != 2 or shape.elem is None:
        raise _err(t, "the compact shape must be RxCxdtype with integer R and C")
    if None in shape.dims:
        raise _err(t, "expected static shape: the compact shape RxC takes integers (put ? in valid=...)",
                   rule="pto.parse.tile_buf.static_shape")
    kw = {}
    for k, v in params[2:]:
        if k not in _COMPACT_KEYS:
            raise _err(t, f"unknown compact tile_buf field {k!r}; fields are {', '.join(_COMPACT_KEYS)}")
        if k in kw:
            raise _err(t, f"duplicate {k} in tile_buf compact syntax; give each field once",
                       rule="pto.parse.tile_buf.duplicate")      # as PTOAS's compact-syntax parser
        kw[k] = v
    valid = shape.dims
    if "valid" in kw:
        v = kw["valid"]
        if not isinstance(v, Shape) or len(v.dims) != 2 or v.elem is not None:
            raise _err(t, "tile_buf valid must have exactly two dims, VRxVC (e.g. valid=16x1 or valid=?x?)",
                       rule="pto.parse.tile_buf.valid_dims")
        valid = v.dims
    blayout = kw.get("blayout")
    if blayout is None:
        blayout = (prof.left_blayout or "row_major") if loc == "left" else "row_major"
    slayout = str(kw.get("slayout", "none_box"))
    said = {"blayout": f"{blayout} is {prof.name}'s default blayout for a {loc} tile",
            "slayout": f"{slayout} is the default slayout"}
    unnamed = [k for k in said if k not in kw]
    note = (f"the type names no {'layout' if len(unnamed) > 1 else unnamed[0]}: "
            + ", ".join(said[k] for k in unnamed)) if unnamed else ""
    return TileSpec(loc, shape.elem, shape.dims[0], shape.dims[1], tuple(valid), str(blayout), slayout,
                    int(kw.get("fractal", 512)), kw.get("pad", "null"), note)


def _padded(dtype: str, rows: int, cols: int) -> tuple[int, int]:
    per = 32 // get_dtype(dtype).size
    return rows, -(-cols // per) * per


def _doc_tile(t: TypeRef) -> TileSpec:
    params = list(t.params)
    if len(params) == 1 and isinstance(params[0][1], Shape):
        s = params[0][1]
        if len(s.dims) != 2 or s.elem is None or None in s.dims:
            raise _err(t, "an SSA tile type is RxCxdtype")
        r, c = _padded(s.elem, *s.dims)
        return TileSpec("vec", s.elem, r, c, tuple(s.dims))
    loc = "vec"
    if params and params[0][0] == "loc":
        loc = str(params.pop(0)[1])
    pos = [v for k, v in params]
    if any(k is not None for k, _ in params) or len(pos) < 3:
        raise _err(t, "expected !pto.tile<[loc=L,] dtype, rows, cols[, blayout, slayout, fractal, pad]>")
    dtype, rows, cols = str(pos[0]), pos[1], pos[2]
    if not (isinstance(rows, int) and isinstance(cols, int)):
        raise _err(t, "rows and cols must be integers")
    names = [(_DOC_LAYOUT.get(str(v).lower(), str(v).lower()) if isinstance(v, str) else v) for v in pos[3:]]
    blayout = names[0] if len(names) > 0 and names[0] else "row_major"
    slayout = names[1] if len(names) > 1 and names[1] else "none_box"
    fractal = names[2] if len(names) > 2 and isinstance(names[2], int) else 512
    pad = names[3] if len(names) > 3 and names[3] else "null"
    if blayout == "row_major" and slayout == "none_box":
        r, c = _padded(dtype, rows, cols)
        return TileSpec(loc, dtype, r, c, (rows, cols), blayout, slayout, fractal, pad)
    return TileSpec(loc, dtype, rows, cols, (rows, cols), blayout, slayout, fractal, pad)


def view_dtype(t: TypeRef) -> str | None:
    """Element type of ``!pto.ptr<T>``, ``!pto.tensor_view<..xT>``, ``!pto.partition_tensor_view<..xT>``."""
    for _, v in t.params:
        if isinstance(v, Shape) and v.elem:
            return v.elem
        if isinstance(v, str) and v not in ("?", "..."):
            return v
    return None
