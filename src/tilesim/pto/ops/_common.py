"""Shared operand checks for the op families.

Every check raises before anything is written, with the op (upper-case
instruction name), the operand, a stable rule id and the offending value.
Rule ids used here:

==========================  ====================================================
``pto.op.operand``          an operand is not a Tile (or not a number, for scalars)
``pto.op.loc``              the tile is in the wrong location (e.g. not ``vec``)
``pto.op.layout``           the tile's layout is not one the op accepts
``pto.op.dtype``            the dtype signature is not in the target's table
``pto.op.same_dtype``       operands that must share a dtype do not
``pto.op.valid_nonzero``    a valid size is zero where the op needs data
``pto.op.rows_match``       valid row counts that must be equal are not
``pto.op.cols_match``       valid column counts that must be equal are not
``pto.op.valid_match``      valid shapes that must be equal are not
``pto.op.dst_rows``         a row-vector destination does not have one valid row
``pto.op.tmp_dtype``        (A2A3) tmp must have the source dtype
``pto.op.target``           the target does not have the op (``Profile.absent_ops``)
``pto.mem.overhang``          a tile's static span passes its buffer's end (a windowed TASSIGN on cpu)
==========================  ====================================================
"""

from __future__ import annotations

from ...errors import DtypeError, GeometryError, TilesimError
from ..targets import Profile, get_target
from ..tile import Tile

__all__ = ["Op", "layout_hint"]

#: the tile_buf declaration that gives each layout an op may ask for (:meth:`Op.layout`'s names)
DECLARATIONS = {
    "ND": "declare it !pto.tile_buf<vec, RxCxT> (blayout=row_major, slayout=none_box)",
    "ROW_MAJOR": "declare it with blayout=row_major (e.g. !pto.tile_buf<vec, RxCxT>)",
    "NONEBOX": "declare it with slayout=none_box",
    "DN1": "declare it !pto.tile_buf<vec, Rx1xT, blayout=col_major>",
    "ND_VC1": "declare it !pto.tile_buf<vec, RxCxT, v_col=1>",
    "DN": "declare it with blayout=col_major, slayout=none_box",
    "Nz": "declare it with blayout=col_major, slayout=row_major",
    "Zz": "declare it with blayout=row_major, slayout=row_major",
}
#: where a one-column col_major tile (what the row reduces write) goes instead
_REDUCED = ("a one-column col_major tile, as TROWSUM/TROWMAX/TROWMIN write, is the broadcast operand of "
            "TROWEXPANDADD/SUB/MUL/DIV/MAX/MIN (Mode 1); to spread it over every column, TROWEXPANDADD it onto a "
            "tile of zeros (TEXPANDS 0.0); or write the reduce into an ND tile of 32-byte rows and one valid column "
            "(f32: !pto.tile_buf<vec, Rx8xf32, v_col=1>), which the element-wise ops take")

#: (op name, id(profile), operand keys) -> (the profile those operands' checks passed on, their plan)
_PASSED: dict = {}


class Op:
    """One call of one op: its name, its target profile, and the checks it makes."""

    def __init__(self, name: str, target=None) -> None:
        self.name = name
        self.inst = name.upper()
        self.prof: Profile = get_target(target)
        if name in self.prof.absent_ops:
            self.fail(f"{self.inst} is not available on target {self.prof.name}", "op", "pto.op.target",
                      self.prof.name, TilesimError)

    def static(self, operands: tuple, checks):
        """Run ``checks()``, the checks that read only the operands' types and valid regions (location, dtype,
        layout, valid shapes), unless they passed before for such operands on this profile (ops run in loops);
        returns what ``checks()`` returned then (a plan of the call: it may depend only on what the key holds)."""
        key = (self.name, id(self.prof), *[t.key if isinstance(t, Tile) else type(t) for t in operands])
        hit = _PASSED.get(key)
        if hit is not None and hit[0] is self.prof:  # the entry keeps the profile alive, so its id is not reused
            return hit[1]
        for t in operands:  # a tile with an overhang (its key says so) fails here, so no key of one is cached
            if getattr(t, "overhang", 0):
                self.window(t)
        plan = checks()
        if len(_PASSED) > 4096:
            _PASSED.clear()
        _PASSED[key] = (self.prof, plan)
        return plan

    # ---------------------------------------------------------------- errors
    def fail(self, detail: str, operand: str, rule: str, value=None, cls=GeometryError):
        raise cls(detail, instruction=self.inst, operand=operand, rule=rule, value=value)

    def window(self, t: Tile, operand: str = "tile"):
        """Refuse a tile whose static span passes its buffer's end (PTO176): tilesim's ops view the whole tile."""
        self.fail(f"{t.describe()} ends {t.overhang} bytes past its buffer (a windowed TASSIGN on cpu, which bounds "
                  f"only its valid region's footprint): tilesim's ops address all {t.rows}x{t.cols} elements, so "
                  "none runs on it; place the tile where its whole span fits, or read and write its valid region "
                  "through bits/values", operand, "pto.mem.overhang", t.overhang)

    # ----------------------------------------------------------------- kinds
    def tile(self, t, operand: str, loc: str | tuple[str, ...] | None = "vec") -> Tile:
        if not isinstance(t, Tile):
            self.fail(f"expected a Tile, got {type(t).__name__}", operand, "pto.op.operand", type(t).__name__,
                      TilesimError)
        if t.overhang:
            self.window(t, operand)
        locs = (loc,) if isinstance(loc, str) else loc
        if locs is not None and t.loc not in locs:
            self.fail(f"must be a {' or '.join(locs)} tile", operand, "pto.op.loc", t.loc)
        return t

    def layout(self, t: Tile, operand: str, allowed: tuple[str, ...], what: str) -> None:
        """``allowed`` holds layout names (ND, DN, Nz ...) plus ``DN1`` (DN with cols == 1),
        ``ND_VC1`` (ND with one valid column), ``NONEBOX`` (ND or DN), ``ROW_MAJOR`` (any row-major block layout)."""
        if self.name in self.prof.any_layout:
            return
        lay = t.layout
        ok = (lay in allowed or ("DN1" in allowed and lay == "DN" and t.cols == 1)
              or ("ND_VC1" in allowed and lay == "ND" and t.valid_cols == 1)
              or ("NONEBOX" in allowed and not t.is_boxed)
              or ("ROW_MAJOR" in allowed and t.is_row_major))
        if not ok:
            self.fail(f"must use {what}, not {lay} ({t.layouts}, {t.rows}x{t.cols}); "
                      + layout_hint(self.name, t, allowed), operand, "pto.op.layout", lay)

    def dtypes(self, key: str, sig: tuple, operands: tuple[str, ...]) -> None:
        """Check a dtype signature against the target's table row ``key`` (arg ops share rows)."""
        if tuple([d.name for d in sig]) in self.prof.dtypes[key]:  # DTypes (the common, accepted case)
            return
        try:
            self.prof.check_dtypes(key, tuple(str(s) for s in sig), operands)
        except DtypeError as e:
            raise DtypeError(e.detail, instruction=self.inst, operand=e.operand, rule=e.rule, value=e.value) from None

    def same_dtype(self, a: Tile, b: Tile, operand: str, other: str) -> None:
        if a.dtype != b.dtype:
            self.fail(f"must have {other}'s dtype {a.dtype}, not {b.dtype}", operand, "pto.op.same_dtype",
                      str(b.dtype), DtypeError)

    def tmp(self, tmp, src: Tile) -> None:
        """tmp is optional and never enforced in size; A2A3 requires src's dtype for some ops."""
        if tmp is None:
            return
        self.tile(tmp, "tmp", None)
        if self.prof.tmp_used and self.name in self.prof.tmp_same_dtype and tmp.dtype != src.dtype:
            self.fail(f"on {self.prof.name} tmp must have src's dtype {src.dtype}, not {tmp.dtype}", "tmp",
                      "pto.op.tmp_dtype", str(tmp.dtype), DtypeError)

    # --------------------------------------------------------------- runtime
    def nonzero(self, t: Tile, operand: str) -> None:
        if t.valid_rows == 0 or t.valid_cols == 0:
            self.fail(f"valid region {t.valid_rows}x{t.valid_cols} must not be empty", operand,
                      "pto.op.valid_nonzero", t.valid)

    def rows_match(self, a: Tile, b: Tile, operand: str, other: str) -> None:
        if a.valid_rows != b.valid_rows:
            self.fail(f"valid rows {b.valid_rows} != {other}'s {a.valid_rows}", operand, "pto.op.rows_match",
                      (a.valid_rows, b.valid_rows))

    def cols_match(self, a: Tile, b: Tile, operand: str, other: str) -> None:
        if a.valid_cols != b.valid_cols:
            self.fail(f"valid cols {b.valid_cols} != {other}'s {a.valid_cols}", operand, "pto.op.cols_match",
                      (a.valid_cols, b.valid_cols))

    def valid_match(self, a: Tile, b: Tile, operand: str, other: str) -> None:
        if a.valid != b.valid:
            self.fail(f"valid shape {b.valid_rows}x{b.valid_cols} != {other}'s {a.valid_rows}x{a.valid_cols}",
                      operand, "pto.op.valid_match", (a.valid, b.valid))

    def zero_noop(self, *tiles: Tile) -> bool:
        """True when this op returns silently on this target because a valid size is zero."""
        return self.name in self.prof.zero_size_noop and any(0 in t.valid for t in tiles)



def layout_hint(op: str, t: Tile, allowed: tuple[str, ...]) -> str:
    """How to give op a tile it accepts: the declaration that works, and for a row reduce's one-column
    col_major result, the op that takes it; notes when target ``cpu`` takes every layout for this op."""
    how = "; or ".join(DECLARATIONS[a] for a in allowed if a in DECLARATIONS)
    if t.layout == "DN" and t.cols == 1 and "DN1" not in allowed:
        how = _REDUCED + "; or " + how
    if op in get_target("cpu").any_layout:
        how += f" (target cpu takes every layout for {op.upper()}; a2a3 and a5 do not)"
    return how
