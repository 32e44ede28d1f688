"""The AME machine state: the tile register file, the CSRs, and the instructions on them.

>>> import numpy as np
>>> from tilesim.ame import Core, mxcfg, mxtile
>>> core = Core()
>>> core.csrw("mxcfg", mxcfg(ft="int8", bovf=0))
>>> core.csrw("mxtile", mxtile(k=2, m=2, tiling="1x1"))
>>> core.write_tile(0, np.array([[-128, -128], [1, 2]]), "int8")
>>> core.write_tile(1, np.array([[-128, -128], [3, 4]]), "int8")
>>> _ = core.mmacc_t(2, 0, 1)
>>> core.read_tile(2, "int16", shape=(2, 2)).tolist()  # 2 * 16384 wraps in INT16
[[-32768, -896], [-384, 11]]
"""

from __future__ import annotations

import numpy as np

from .. import formats
from ..errors import EncodingError, GeometryError
from ..formats import Format, Kind
from ..formats.checks import flag, values_array
from ..formats.fit import fit
from . import jit, regfile
from .csr import CSRS, MXCFG, MXSTATUS, MXTILE, Csr, csr
from .models import check_model
from .mmacc import Executed, execute, plan

__all__ = ["Core"]

_XLEN_MASK = (1 << 64) - 1
_FALLBACK, _INEXACT, _SAT_HIT = (MXSTATUS.field(f).mask for f in ("guard_fallback", "inexact", "sat_hit"))


class Core:
    """One AME core: 32 tiles of 256 bytes, ``mxcfg``/``mxtile``/``mxstatus``, MMACC.

    Args:
        accumulation: ``fused`` (default), ``sequential`` or ``chain_then_add``
            (how a result's products and C are summed and rounded; see
            :mod:`tilesim.ame.models`).

    Attributes:
        tiles: the register file, ``uint8`` (32, 256); row r of tile t is
            ``tiles[t, 16 r: 16 r + 16]``.
    """

    def __init__(self, accumulation: str = "fused") -> None:
        self.accumulation = check_model(accumulation)
        self.tiles = np.zeros((regfile.N_TILES, regfile.TILE_BYTES), np.uint8)
        self._csr: dict[int, int] = {c.address: c.reset for c in CSRS}

    # ------------------------------------------------------------------ CSRs
    def csrr(self, key: "str | int | Csr") -> int:
        """Read a CSR by name (``mxcfg``, ``mxtile``, ``mxstatus``) or address."""
        return self._csr[csr(key).address]

    def csrw(self, key: "str | int | Csr", value: int) -> None:
        """Write a CSR; bits outside its fields are dropped (WARL), so they read back as 0."""
        c = csr(key)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise EncodingError(f"a CSR value is an integer (an XLEN=64 register), not {value!r}", instruction="csrw",
                                operand=c.name, rule="ame.csr.value", value=repr(value))
        self._csr[c.address] = (int(value) & _XLEN_MASK) & c.mask

    @property
    def status(self) -> dict[str, bool]:
        """The sticky status flags, by name."""
        return {k: bool(v) for k, v in MXSTATUS.unpack(self.csrr(MXSTATUS)).items()}

    def snapshot(self) -> tuple[np.ndarray, dict[int, int]]:
        """A copy of the whole state (tiles, CSRs), for comparisons and traces."""
        return self.tiles.copy(), dict(self._csr)

    # ---------------------------------------------------------- instructions
    def mmacc(self, tc: int, ta: int, tb: int, imm: int = 0) -> Executed:
        """``MMACC tC, tA, tB, imm``: C (+)= op(A) x op(B), bTR and beta from ``imm``.

        See :mod:`tilesim.ame.mmacc` for the semantics and the rule ids.

        Raises:
            BadGeom: the precise trap; nothing changed.
            EncodingError: reserved ``imm`` bits.
        """
        return self._run("MMACC", tc, ta, tb, imm)

    def mmacc_t(self, tc: int, ta: int, tb: int, imm: int = 0) -> Executed:
        """``MMACC.T tC, tA, tB, imm``: C (+)= A x B^T (bTR = 01); ``imm`` bit 0 is beta."""
        return self._run("MMACC.T", tc, ta, tb, imm)

    def _run(self, name, tc, ta, tb, imm) -> Executed:
        p = plan(self._csr[MXCFG.address], self._csr[MXTILE.address], tc, ta, tb, imm, instruction=name)
        flags = jit.run(self.tiles, p, self.accumulation)  # the kernels, in place; None: they do not take it
        if flags is None:
            idx, new, out = execute(self.tiles, p, self.accumulation)  # the numpy reference
            self.tiles[idx] = new  # commit: nothing above changed any state
            flags = out.inexact, out.sat_hit
        inexact, sat_hit = flags
        self._csr[MXSTATUS.address] |= ((_FALLBACK if p.fallback else 0) | (_INEXACT if inexact else 0)
                                        | (_SAT_HIT if sat_hit else 0))
        return Executed(p, inexact, sat_hit)

    # ------------------------------------------------------------ tile data
    def _span_check(self, index, cols: int, fmt: Format, rows: int, what: str, one_tile: bool) -> int:
        e = formats.elements_per_row(fmt)
        if not 1 <= rows <= regfile.ROWS or cols < 1 or (one_tile and cols > e):
            limit = f"1..{regfile.ROWS} x 1..{e}" if one_tile else f"1..{regfile.ROWS} rows"
            raise GeometryError(f"a {rows}x{cols} {fmt.name} matrix does not fit ({limit})", instruction=what,
                                operand="shape", rule="ame.tile.shape", value=(rows, cols))
        n = regfile.span(cols, fmt)
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not (
                0 <= index and index + n <= regfile.N_TILES):
            raise GeometryError(f"tile {index!r} (+{n - 1} more for {cols} columns) is outside 0..31",
                                instruction=what, operand="index", rule="ame.tile.index", value=index)
        return n

    def write_codes(self, index: int, codes, fmt, *, one_tile: bool = False) -> None:
        """Write lane codes (rows <= 16, cols) of ``fmt`` from tile ``index`` (wide matrices span tiles)."""
        fmt = formats.get(fmt)
        c = np.atleast_2d(np.asarray(codes))
        if c.ndim != 2:
            raise GeometryError(f"expected a 2-D array, got shape {c.shape}", instruction="write", operand="codes",
                                rule="ame.tile.shape", value=c.shape)
        self._span_check(index, c.shape[1], fmt, c.shape[0], "write", one_tile)
        formats.decode(c, fmt)  # checks every code is a lane code of fmt (FormatError otherwise)
        lanes = formats.canonical(c, fmt).astype(fmt.dtype)
        idx, new = regfile.scatter(self.tiles, [index], lanes[None], fmt)
        self.tiles[idx] = new

    def read_codes(self, index: int, fmt, shape: tuple[int, int] | None = None, *,
                   one_tile: bool = False) -> np.ndarray:
        """Lane codes of a (rows, cols) matrix of ``fmt`` from tile ``index`` (default: one whole tile)."""
        fmt = formats.get(fmt)
        if shape is None:
            shape = (regfile.ROWS, formats.elements_per_row(fmt))
        if not (isinstance(shape, (tuple, list)) and len(shape) == 2 and all(
                isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) for n in shape)):
            raise GeometryError(f"shape is (rows, cols), two integers, not {shape!r}", instruction="read",
                                operand="shape", rule="ame.tile.shape", value=repr(shape))
        rows, cols = (int(n) for n in shape)
        self._span_check(index, cols, fmt, rows, "read", one_tile)
        return regfile.gather(self.tiles, [index], fmt, rows, cols)[0]

    def write_tile(self, index: int, values, fmt, *, rounding: str | None = None, saturate: bool = False,
                   quantize: bool = False) -> None:
        """Encode ``values`` (rows <= 16, cols <= elements per row) into the leading part of one tile.

        Every value must be one ``fmt`` holds (docs/decisions.md E2): a value between two codes is
        rounded only with ``rounding`` given (``rne``, ``rtz``...), one beyond the range is clamped
        only with ``saturate=True``, and ``quantize=True`` asks for both (``rounding`` default
        ``rne``). Otherwise it is a :class:`~tilesim.errors.FormatError` (``formats.fit.*``) naming
        the element. The rest of the tile is unchanged.

        >>> Core().write_tile(0, np.full((2, 2), 300), "int8")
        Traceback (most recent call last):
        ...
        tilesim.errors.FormatError: write_tile: operand values: rule formats.fit.range: 300 at [0, 0] is outside \
int8's range -128..127; pass quantize=True to round and clamp (or rounding=... / saturate=True)
        """
        self.write_codes(index, _fit(values, fmt, rounding, saturate, quantize, "write_tile"), fmt, one_tile=True)

    def read_tile(self, index: int, fmt, shape: tuple[int, int] | None = None) -> np.ndarray:
        """Decode one tile (or its leading ``shape``): int64 for integer formats, else float64."""
        fmt = formats.get(fmt)
        return _values(self.read_codes(index, fmt, shape, one_tile=True), fmt)

    def write_matrix(self, index: int, values, fmt, *, rounding: str | None = None, saturate: bool = False,
                     quantize: bool = False) -> None:
        """Like :meth:`write_tile`, for matrices wider than a tile row: they continue in the next tiles."""
        self.write_codes(index, _fit(values, fmt, rounding, saturate, quantize, "write_matrix"), fmt)

    def read_matrix(self, index: int, fmt, shape: tuple[int, int]) -> np.ndarray:
        """Decode a (rows, cols) matrix laid over tiles from ``index`` (as MMACC lays out its results)."""
        fmt = formats.get(fmt)
        return _values(self.read_codes(index, fmt, shape), fmt)


def _fit(values, fmt, rounding, saturate, quantize, what: str) -> np.ndarray:
    """Codes of ``values`` as :meth:`Core.write_tile` defines them (nothing rounded or clamped unless asked)."""
    q = flag(quantize, "quantize", what)
    v = np.atleast_2d(values_array(values, what))
    return fit(v, fmt, rounding=rounding if rounding is not None or not q else "rne", saturate=saturate or q,
               instruction=what, ask="pass quantize=True to round and clamp (or rounding=... / saturate=True)")


def _values(codes: np.ndarray, fmt: Format) -> np.ndarray:
    """Values of codes: exact integers (int64) for INT formats, float64 otherwise."""
    if fmt.kind is Kind.INT:
        return formats.decode_int(codes, fmt)
    return formats.decode(codes, fmt)
