"""MMACC.T and MMACC: geometry, tiling modes, the guarded 4x4, the precise ``badgeom`` trap.

Semantics (proposal v0.14_1 §7, §11; docs/decisions.md AME section):

- ``C (+)= op(A) x op(B)`` for every sub-product of the tiling mode, with
  ``A`` and ``B`` tiles of M rows and K elements of format ``Ft`` and a result
  of M x M in the accumulator format (:mod:`tilesim.ame.accum`).
- ``imm``: bit 0 = beta (0 accumulates, 1 overwrites: C starts from +0);
  bits [2:1] = bTR (00 A x B, 01 A x B^T, 10 A^T x B, 11 A^T x B^T).
  ``MMACC.T`` is MMACC with bTR = 01; its imm carries beta only.
- Tiling: A tiles are consecutive from tA, B tiles from tB; sub-products run
  A0xB0, A0xB1, ..., A1xB0, ...; each result takes ``ceil(M / e)`` consecutive
  tiles from tC (e = accumulator elements per tile row), split by columns.
- Guarded 4x4: with GUARD4x4 = 1 (which overrides TILING), 4x4 runs when the
  accumulator is at most 16 bits wide and its 16 results take at most 32
  tiles; otherwise 2x2 runs and ``guard_fallback`` is set.
- Every check comes first; a failure raises :class:`BadGeom` (rule ids
  ``ame.geom.*``) with every tile and CSR untouched. All operands are read
  before any result is written, so C may overlap A and B.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import formats
from ..errors import EncodingError, FormatError, GeometryError
from ..formats import Format
from . import jit, models, regfile
from .accum import accumulator
from .csr import MXCFG, MXSTATUS, MXTILE, ROUNDING, TILING_4X4, Field, Tiling, tiling_mode

__all__ = ["BadGeom", "IMM", "Plan", "Executed", "plan", "execute", "imm_fields", "saturates"]

IMM: tuple[Field, ...] = (
    Field("beta", 0, 0, "beta", "0: C += A x B; 1: C = A x B (C starts from +0)"),
    Field("btr", 2, 1, "bTR", "00 A x B, 01 A x B^T, 10 A^T x B, 11 A^T x B^T"),
)
_IMM_MASK = sum(f.mask for f in IMM)


class BadGeom(GeometryError):
    """``mx.badgeom``: the precise trap of an illegal format or geometry.

    The machine state is exactly as before the instruction; :attr:`status_bit`
    is the ``mxstatus`` bit that names the cause (a handler may set it).
    """

    status_bit = MXSTATUS.field("badgeom").mask


@dataclass(frozen=True)
class Plan:
    """Everything an instruction does, decided before it touches state."""

    instruction: str
    ft: Format
    acc: Format
    rounding: str
    saturate: bool
    k: int
    m: int
    btr: int
    beta: int
    tiling: Tiling
    fallback: bool
    tiles_per_result: int
    a_tiles: tuple[int, ...]
    b_tiles: tuple[int, ...]
    pairs: tuple[tuple[int, int, int], ...]  # (A tile, B tile, first C tile) per sub-product

    @property
    def c_tiles(self) -> tuple[int, ...]:
        return tuple(c + j for _, _, c in self.pairs for j in range(self.tiles_per_result))

    @functools.cached_property
    def indices(self) -> tuple[np.ndarray, ...]:
        """(A tiles, B tiles, A of each sub-product, B of each, first C tile of each) as index arrays."""
        return (np.array(self.a_tiles), np.array(self.b_tiles), np.array([x - self.a_tiles[0] for x, _, _ in self.pairs]),
                np.array([y - self.b_tiles[0] for _, y, _ in self.pairs]), np.array([c for _, _, c in self.pairs]))

    @property
    def macs(self) -> int:
        return len(self.pairs) * self.m * self.m * self.k

    @functools.cached_property
    def kernel(self):
        """The fast path's plan-fixed arguments (:func:`tilesim.ame.jit.kernel_args`), or ``None``."""
        return jit.kernel_args(self)


@dataclass(frozen=True)
class Executed:
    """What one instruction did: its plan, the status events it raised, its cost inputs."""

    plan: Plan
    inexact: bool
    sat_hit: bool

    @property
    def macs(self) -> int:
        return self.plan.macs

    @property
    def tiles_read(self) -> int:
        p = self.plan
        return len(p.a_tiles) + len(p.b_tiles) + (0 if p.beta else len(p.c_tiles))

    @property
    def tiles_written(self) -> int:
        return len(self.plan.c_tiles)


def imm_fields(imm, instruction: str) -> dict[str, int]:
    """beta and bTR of an immediate; ``MMACC.T`` fixes bTR = 01.

    Raises:
        EncodingError: reserved bits set (``ame.imm.reserved``), or MMACC.T
            given a bTR other than 01 (``ame.imm.btr``).
    """
    if isinstance(imm, bool) or not isinstance(imm, (int, np.integer)) or int(imm) < 0 or int(imm) & ~_IMM_MASK:
        raise EncodingError(f"imm={imm!r}: only bits [2:0] (beta, bTR) are defined", instruction=instruction,
                            operand="imm", rule="ame.imm.reserved", value=imm)
    out = {f.name: f.get(int(imm)) for f in IMM}  # int(): numpy's uint64 cannot take ~mask
    if instruction == "MMACC.T":
        if out["btr"] not in (0, 1):
            raise EncodingError(f"MMACC.T computes A x B^T (bTR=01); imm bTR={out['btr']:02b} needs MMACC",
                                instruction=instruction, operand="imm", rule="ame.imm.btr", value=imm)
        out["btr"] = 1
    return out


def _bad(detail, operand, rule, value, instruction):
    return BadGeom(f"mx.badgeom trap: {detail}", instruction=instruction, operand=operand, rule=rule, value=value)


def plan(mxcfg: int, mxtile: int, tc, ta, tb, imm, *, instruction: str = "MMACC") -> Plan:
    """Check an instruction against the CSRs and decide what it does (plans of plain ints are cached).

    Raises:
        EncodingError: a malformed immediate.
        BadGeom: ``ame.geom.ft`` (reserved or vendor Ft), ``ame.geom.rnd``
            (RND 4-7), ``ame.geom.k`` (K = 0 or more than Ft's elements per
            tile row), ``ame.geom.m`` (M = 0 or more than 16), ``ame.geom.btr``
            (bTR other than 01 with M != K), ``ame.geom.tile`` (a tile index
            outside 0..31 for the mode that would run).
    """
    if all(type(x) is int for x in (mxcfg, mxtile, tc, ta, tb, imm)):  # hashable, and bool/numpy ints excluded
        return _cached_plan(mxcfg, mxtile, tc, ta, tb, imm, instruction)
    return _plan(mxcfg, mxtile, tc, ta, tb, imm, instruction)


def _plan(mxcfg, mxtile, tc, ta, tb, imm, instruction: str) -> Plan:
    fields = imm_fields(imm, instruction)
    for name, t in (("tC", tc), ("tA", ta), ("tB", tb)):
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
            raise GeometryError("a tile operand is an integer index", instruction=instruction, operand=name,
                                rule="ame.geom.tile", value=t)
    cfg, geo = MXCFG.unpack(mxcfg), MXTILE.unpack(mxtile)
    try:
        ft = formats.get(cfg["ft"])
    except FormatError:
        raise _bad(f"Ft={cfg['ft']:#04x} is a reserved or vendor FormatType", "Ft", "ame.geom.ft", cfg["ft"],
                   instruction) from None
    if cfg["rnd"] >= len(ROUNDING):
        raise _bad(f"RND={cfg['rnd']} is reserved (0-3 are defined)", "RND", "ame.geom.rnd", cfg["rnd"], instruction)
    e = formats.elements_per_row(ft)
    k, m = geo["k"], geo["m"]
    if not 1 <= k <= e:
        raise _bad(f"K={k} is outside 1..{e} for {ft.name}", "K", "ame.geom.k", k, instruction)
    if not 1 <= m <= regfile.ROWS:
        raise _bad(f"M={m} is outside 1..{regfile.ROWS}", "M", "ame.geom.m", m, instruction)
    if fields["btr"] != 0b01 and m != k:
        raise _bad(f"bTR={fields['btr']:02b} transposes an operand, which needs square tiles; M={m}, K={k}",
                   "bTR", "ame.geom.btr", fields["btr"], instruction)
    acc = accumulator(ft, cfg["bovf"])
    per_result = regfile.span(m, acc)
    fallback = False
    if geo["guard4x4"]:
        mode = TILING_4X4
        if not (acc.lane_bits <= 16 and TILING_4X4.n_a * TILING_4X4.n_b * per_result <= regfile.N_TILES):
            mode, fallback = tiling_mode("2x2"), True
    else:
        mode = tiling_mode(geo["tiling"])
    pairs = tuple((ta + i, tb + j, tc + (i * mode.n_b + j) * per_result)
                  for i in range(mode.n_a) for j in range(mode.n_b))
    for name, first, count in (("tA", ta, mode.n_a), ("tB", tb, mode.n_b), ("tC", tc, len(pairs) * per_result)):
        if not 0 <= first <= first + count <= regfile.N_TILES:
            raise _bad(f"{name}={first!r} with {mode.name} needs tiles {first}..{first + count - 1}; "
                       f"there are {regfile.N_TILES} (0..{regfile.N_TILES - 1})", name, "ame.geom.tile", first,
                       instruction)
    saturate = saturates(ft, cfg["bovf"], cfg["sat"])
    return Plan(instruction, ft, acc, ROUNDING[cfg["rnd"]], saturate, k, m, fields["btr"], fields["beta"], mode,
                fallback, per_result, tuple(range(ta, ta + mode.n_a)), tuple(range(tb, tb + mode.n_b)), pairs)


_cached_plan = functools.lru_cache(maxsize=4096)(_plan)  # the CSRs and operands decide everything: decode once


def saturates(ft: Format, bovf: int, sat: int) -> bool:
    """Whether SAT clamps results: float accumulators always may; integers only at full width (bOVF = 0)."""
    return bool(sat) and (ft.is_float or not bovf)


def execute(tiles: np.ndarray, p: Plan, model: str):
    """Compute a planned instruction from ``tiles`` without changing them.

    Returns:
        (indices, new bytes, outcome): the C tiles and their new content, and
        the :class:`~tilesim.ame.models.Outcome` (status events).
    """
    a_tiles, b_tiles, ia, ib, first_c = p.indices
    a = regfile.gather(tiles, a_tiles, p.ft, p.m, p.k)  # (nA, M, K)
    b = regfile.gather(tiles, b_tiles, p.ft, p.m, p.k)
    if p.btr & 0b10:  # A^T
        a = np.swapaxes(a, -1, -2)
    if not p.btr & 0b01:  # B (not B^T): C = a b, so the rows of b^T are B's columns
        b = np.swapaxes(b, -1, -2)
    c_old = None if p.beta else regfile.gather(tiles, first_c, p.acc, p.m, p.m)
    out = models.mac(a[ia], b[ib], c_old, p.ft, p.acc, p.rounding, p.saturate, model)
    idx, new = regfile.scatter(tiles, first_c, out.codes, p.acc)
    return idx, new, out
