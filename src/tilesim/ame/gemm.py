"""The GEMM runtime: a large ``C = A x B (+ C)`` as a stream of MMACC.T instructions.

The proposal leaves large matrices to the compiler and runtime (§13, §13.B,
§14.4): they are cut into 16-row tiles and K-slices of one tile row, and the
4x4 guard is chosen by policy (§14.A). This module is that runtime, with the
choices the proposal leaves open written in docs/decisions.md (AME15-AME18):

- A (M x K) and B (K x N) are encoded into ``Ft`` as ``mld`` does (RND, SAT);
  B is held transposed, so every instruction is ``MMACC.T``. M and N are cut
  into 16-row blocks (zero-padded), blocks are grouped by the tiling mode
  (n_a A blocks x n_b B blocks per instruction, the grid padded to whole
  groups), and K into slices of ``e`` elements (Ft's elements per tile row),
  the last slice with ``mxtile.K`` = the rest. Each group keeps its C tiles
  resident while its K-slices run in ascending order; the first slice
  overwrites C (beta = 1) unless a C input is given.
- Every sub-product is computed from its own tiles, so the results do not
  depend on how blocks group into instructions: :func:`gemm` runs each
  K-slice for all blocks at once (numpy batches of sub-products), bit for bit
  what :meth:`GemmPlan.program` does instruction by instruction on a
  :class:`~tilesim.ame.Core` (the tests hold the two equal).
- Tiling ``auto`` serves the shape: of the modes whose tiles fit (the 4x4
  through GUARD4x4, when the accumulator is at most 16 bits), the one with the
  fewest modelled cycles at ``macs_per_cycle``; ties go to fewer tile loads,
  then to the wider mode. ``plan.why`` says why it chose.

>>> import numpy as np
>>> from tilesim.ame.gemm import gemm
>>> a = np.arange(40 * 24).reshape(40, 24) % 7 - 3
>>> b = np.arange(24 * 36).reshape(24, 36) % 5 - 2
>>> r = gemm(a, b, ft="int8", tiling="2x2")
>>> bool((r.values == a @ b).all()), r.plan.instructions, r.plan.tiling.name
(True, 8, '2x2')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .. import formats
from ..errors import DtypeError, EncodingError, GeometryError, TilesimError, UnsupportedError
from ..formats import Format, Kind
from ..formats.fit import fit
from . import engine, models, regfile, whatif
from .accum import accumulator
from .cost import Cost
from .csr import ROUNDING, TILING_4X4, TILINGS, Tiling, mxcfg, mxtile, tiling_mode
from .mmacc import saturates
from .lanes import whole_int_lane
from .progress import bar

__all__ = ["GemmPlan", "GemmResult", "plan_gemm", "gemm", "TILING_CHOICES", "DEFAULT_MACS_PER_CYCLE",
           "MAX_GEMM_ELEMENTS", "encode_operand"]

ROWS = regfile.ROWS
TILING_CHOICES: tuple[str, ...] = ("auto", "4x4") + tuple(t.name for t in TILINGS)
#: the most elements of A, B or C (2**28: Llama-3-70B's largest weight, 8192 x 28672, fits; AME28)
MAX_GEMM_ELEMENTS = 1 << 28
DEFAULT_MACS_PER_CYCLE = 16384  # the middle of the proposal's throughput points (64 cells): what ``auto`` plans for
_SUBPRODUCTS_PER_BATCH = 2048  # sub-products computed per numpy batch (bounds the memory of one step)


@dataclass(frozen=True)
class GemmPlan:
    """How one GEMM is cut into instructions, and what that costs (independent of the values)."""

    m: int
    n: int
    k: int
    ft: Format
    acc: Format
    bovf: int
    rnd: str
    sat: int
    requested: str
    tiling: Tiling
    guard4x4: bool  # the program sets GUARD4x4 (else TILING names the mode)
    with_c: bool
    macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE  # the throughput ``auto`` chose for
    choice: tuple[tuple[str, int, int], ...] = ()  # ``auto``: (mode, cycles, tile loads) of every legal mode, best first

    # ---------------------------------------------------------------- shape
    @property
    def k_step(self) -> int:
        """Elements of Ft per tile row: the K of one instruction."""
        return formats.elements_per_row(self.ft)

    @property
    def k_slices(self) -> tuple[int, ...]:
        """``mxtile.K`` of each K-slice, in order."""
        e = self.k_step
        return tuple(min(e, self.k - k0) for k0 in range(0, self.k, e))

    @property
    def tiles_per_result(self) -> int:
        return regfile.span(ROWS, self.acc)

    @property
    def blocks(self) -> tuple[int, int]:
        """16-row blocks of A and of B^T, the grid padded to whole groups of the tiling mode."""
        t = self.tiling
        return (-(-self.m // (ROWS * t.n_a)) * t.n_a, -(-self.n // (ROWS * t.n_b)) * t.n_b)

    @property
    def groups(self) -> int:
        bm, bn = self.blocks
        return (bm // self.tiling.n_a) * (bn // self.tiling.n_b)

    @property
    def c_tiles(self) -> int:
        """Tiles of one group's results."""
        return self.tiling.n_a * self.tiling.n_b * self.tiles_per_result

    @property
    def overlapped(self) -> bool:
        """The group's C takes the tiles its A and B were loaded into (one K-slice only, like seed example 2)."""
        return self.c_tiles + self.tiling.n_a + self.tiling.n_b > regfile.N_TILES

    @property
    def fallback(self) -> bool:
        """The 4x4 was asked for and 2x2 runs."""
        return self.requested == "4x4" and self.tiling is not TILING_4X4

    @property
    def fallback_why(self) -> str:
        """Why a 4x4 that was asked for runs as 2x2 ("" when it runs, or was not asked for): the hardware guard
        (an accumulator over 16 bits, ``guard_fallback`` set), or the runtime (16-bit results pass the guard,
        but their 32 tiles leave none for A and B across K-slices, so it names 2x2 and the flag stays clear)."""
        if not self.fallback:
            return ""
        if self.acc.lane_bits > 16:
            return (f"guard: the {self.acc.name} accumulator is {self.acc.lane_bits} bits, over 16; "
                    "guard_fallback set")
        c = TILING_4X4.n_a * TILING_4X4.n_b * self.tiles_per_result
        return (f"runtime: the guard passes, but 4x4 results take {c} tiles and A, B 8 more, over the "
                f"{regfile.N_TILES} across {len(self.k_slices)} K-slices; 2x2 named, guard_fallback clear")

    @property
    def guard_fallback(self) -> bool:
        """What ``mxstatus.guard_fallback`` shows after the program: the hardware guard itself fell back."""
        return self.guard4x4 and self.tiling is not TILING_4X4

    @property
    def in_proposal(self) -> bool:
        """The accumulator is the proposal's for Ft and bOVF (else a what-if, :mod:`.whatif`)."""
        return whatif.in_proposal(self.ft, self.bovf, self.acc)

    @property
    def instructions(self) -> int:
        """MMACC.T instructions."""
        return self.groups * len(self.k_slices)

    @property
    def useful_macs(self) -> int:
        return self.m * self.n * self.k

    @property
    def mode_arg(self) -> str:
        """The named ``tiling`` that plans this same mode and guard (for runs of parts of this GEMM)."""
        return "4x4" if self.guard4x4 else self.tiling.name

    @property
    def why(self) -> str:
        """Why this mode runs: ``auto``'s comparison of the legal modes, or what was asked for."""
        if not self.choice:
            return f"{self.requested} asked for" + (", 2x2 runs" if self.fallback else "")
        (best, cycles, loads), rest = self.choice[0], self.choice[1:]
        tied = [(m, ld) for m, c, ld in rest if c == cycles]
        out = f"auto chose {best}: fewest cycles at {self.macs_per_cycle:,} MACs/cycle ({cycles:,})"
        if tied:
            names = ", ".join(m for m, _ in tied)
            if all(ld > loads for _, ld in tied):
                out += f"; {names} as few, but more tile loads ({loads:,} vs " + ", ".join(f"{ld:,}" for _, ld in tied) + ")"
            else:
                out += f"; {names} as few, and no fewer tile loads ({loads:,}): the wider mode"
        others = [f"{m} {c:,}" for m, c, _ in rest if c != cycles]
        return out + ("; " + ", ".join(others) if others else "") + ("" if rest else "; the only mode that fits")

    # ----------------------------------------------------------------- cost
    def cost(self) -> Cost:
        """The program's cost, counted as the runner counts it (every instruction, tile and MAC)."""
        c = Cost()
        t, per = self.tiling, self.tiles_per_result
        sub = t.n_a * t.n_b
        for kk, count in Counter(self.k_slices).items():
            c.add_mmacc(sub * ROWS * ROWS * kk, t.n_a + t.n_b, self.c_tiles, count * self.groups)
        first_beta = 0 if self.with_c else 1  # tiles_read counts C when beta = 0
        c.tiles_read += self.c_tiles * self.groups * (len(self.k_slices) - first_beta)
        loads = self.instructions * (t.n_a + t.n_b) + (self.groups * sub * per if self.with_c else 0)
        c.tiles_loaded, c.tiles_stored = loads, self.groups * sub * per
        mld = self.instructions * (t.n_a + t.n_b) + (self.groups * sub if self.with_c else 0)
        csrw = 1 + self.groups * _changes(self.k_slices)
        c.instructions += mld + self.groups * sub + csrw  # + mst
        return c

    # -------------------------------------------------------------- program
    def csr_values(self, kk: int) -> tuple[int, int]:
        """(mxcfg, mxtile) for a K-slice of ``kk`` elements."""
        cfg = mxcfg(ft=self.ft.ame_codes[-1], bovf=self.bovf, rnd=self.rnd, sat=self.sat)
        if self.guard4x4:
            return cfg, mxtile(k=kk, m=ROWS, tiling="2x2", guard4x4=True)
        return cfg, mxtile(k=kk, m=ROWS, tiling=self.tiling.name)

    def program(self) -> str:
        """The AME assembly that computes this GEMM on a :class:`~tilesim.ame.Core`.

        Inputs: ``a`` (M' x K) and ``bt`` (N' x K, B transposed), with M and N
        padded to the block grid (:meth:`program_inputs`), and ``c`` in the
        accumulator format when there is a C input. Output: ``y`` (M' x N').

        Raises:
            UnsupportedError: a what-if accumulator, which no ``mxcfg`` selects (``ame.gemm.acc``).
        """
        if not self.in_proposal:
            raise UnsupportedError(f"{self.ft.name} -> {self.acc.name} is a what-if: no mxcfg selects that "
                                   "accumulator, so there is no AME program", instruction="gemm", operand="acc",
                                   rule="ame.gemm.acc", value=self.acc.name)
        t, per = self.tiling, self.tiles_per_result
        ta = 0 if self.overlapped else self.c_tiles
        tb = ta + t.n_a
        acc = self.acc.name
        cfg, _ = self.csr_values(self.k_step)
        lines = [f"# GEMM {self.m}x{self.n}x{self.k}: {self.ft.name} -> {acc}, {t.name}, "
                 f"{self.groups} groups x {len(self.k_slices)} K-slices",
                 f"csrw mxcfg, {cfg:#x}"]
        bm, bn = self.blocks
        for gi in range(0, bm, t.n_a):
            for gj in range(0, bn, t.n_b):
                results = [(i, j, (i * t.n_b + j) * per) for i in range(t.n_a) for j in range(t.n_b)]
                rows = {i: f"{(gi + i) * ROWS}:{(gi + i + 1) * ROWS}" for i in range(t.n_a)}
                cols = {j: f"{(gj + j) * ROWS}:{(gj + j + 1) * ROWS}" for j in range(t.n_b)}
                lines.append(f"# C blocks rows {gi}..{gi + t.n_a - 1}, cols {gj}..{gj + t.n_b - 1}")
                if self.with_c:
                    lines += [f"mld tr{c}, c[{rows[i]}, {cols[j]}], {acc}" for i, j, c in results]
                last = None
                for s, kk in enumerate(self.k_slices):
                    if kk != last:
                        lines.append(f"csrw mxtile, {self.csr_values(kk)[1]:#x}")
                        last = kk
                    ks = f"{s * self.k_step}:{s * self.k_step + kk}"
                    lines += [f"mld tr{ta + i}, a[{rows[i]}, {ks}]" for i in range(t.n_a)]
                    lines += [f"mld tr{tb + j}, bt[{cols[j]}, {ks}]" for j in range(t.n_b)]
                    beta = int(s == 0 and not self.with_c)
                    lines.append(f"MMACC.T tr0, tr{ta}, tr{tb}, {beta}")
                lines += [f"mst tr{c}, y[{rows[i]}, {cols[j]}]" for i, j, c in results]
        return "\n".join(lines) + "\n"

    def program_inputs(self, a, b, c=None) -> dict[str, np.ndarray]:
        """The arrays :meth:`program` reads: A and B^T (and C) padded to the block grid."""
        bm, bn = self.blocks
        out = {"a": _pad(np.asarray(a), bm * ROWS, self.k, self.ft), "bt": _pad(np.asarray(b).T, bn * ROWS, self.k,
                                                                               self.ft)}
        if c is not None:
            out["c"] = _pad(np.asarray(c), bm * ROWS, bn * ROWS, self.acc)
        return out


@dataclass(frozen=True)
class GemmResult:
    """The result codes and values (M x N, accumulator format), the status the program raises, the plan.

    ``wrapped``: how many integer results differ from what an accumulator without range limits would
    hold (AME has no status bit for it; docs/decisions.md AME21).
    """

    plan: GemmPlan
    codes: np.ndarray
    status: dict[str, bool]
    wrapped: int = 0

    @property
    def values(self) -> np.ndarray:
        """Exact values: int64 for integer accumulators, else float64."""
        if self.plan.acc.kind is Kind.INT:
            return formats.decode_int(self.codes, self.plan.acc)
        return formats.decode(self.codes, self.plan.acc)


def _changes(slices: tuple[int, ...]) -> int:
    """How many ``csrw mxtile`` a group issues: one at its start and one per change of K."""
    return sum(1 for i, kk in enumerate(slices) if i == 0 or kk != slices[i - 1])


def _pad_value(fmt: Format) -> float:
    """Padding: +0, or the smallest value of a format without zero (E8M0; docs/decisions.md AME16)."""
    return 0.0 if fmt.has_zero else float(formats.decode(np.array([0], fmt.dtype), fmt)[0])


def _pad(x: np.ndarray, rows: int, width: int, fmt: Format) -> np.ndarray:
    """``x`` in the top-left corner of a (rows, width) array of padding (int64 keeps integer inputs exact)."""
    exact_ints = x.dtype.kind in "iu" and fmt.kind is not Kind.FLOAT
    out = np.full((rows, width), _pad_value(fmt), np.int64 if exact_ints else np.float64)
    out[: x.shape[0], : x.shape[1]] = x
    return out


def _fits(t: Tiling, per: int, single_slice: bool, with_c: bool) -> bool:
    """C resident beside the operands, or one K-slice writing C over them."""
    c = t.n_a * t.n_b * per
    return c + t.n_a + t.n_b <= regfile.N_TILES or (single_slice and not with_c and c <= regfile.N_TILES)


def _named(requested: str, acc: Format, single_slice: bool, with_c: bool) -> tuple[Tiling, bool]:
    """(the mode that runs, whether the program sets GUARD4x4) for a named tiling."""
    per = regfile.span(ROWS, acc)
    if requested == "4x4":
        if acc.lane_bits <= 16 and _fits(TILING_4X4, per, single_slice, with_c):
            return TILING_4X4, True
        # a wide accumulator: the hardware guard falls back by itself; else the runtime names 2x2
        mode, guard = tiling_mode("2x2"), acc.lane_bits > 16
    else:
        mode, guard = tiling_mode(requested), False
    if not _fits(mode, per, single_slice, with_c):
        raise GeometryError(f"{mode.name} results of {acc.name} take {mode.n_a * mode.n_b * per} tiles, which with "
                            f"{mode.n_a + mode.n_b} operand tiles do not fit the {regfile.N_TILES} tiles across "
                            "K-slices; use 1x1, or K within one tile row", instruction="gemm", operand="tiling",
                            rule="ame.gemm.capacity", value=mode.name)
    return mode, guard


def _auto(plan: GemmPlan) -> GemmPlan:
    """The legal mode with the fewest cycles at ``plan.macs_per_cycle``; ties: fewer tile loads, then the wider."""
    per, single = regfile.span(ROWS, plan.acc), plan.k <= plan.k_step
    modes = [(TILING_4X4, True)] if plan.acc.lane_bits <= 16 else []
    modes += [(tiling_mode(x), False) for x in ("2x2", "1x4", "4x1", "1x1")]
    scored = []
    for order, (mode, guard) in enumerate(modes):
        if _fits(mode, per, single, plan.with_c):
            p = replace(plan, tiling=mode, guard4x4=guard)
            c = p.cost()
            scored.append((c.cycles(plan.macs_per_cycle), c.tiles_loaded, order, p))
    scored.sort(key=lambda x: x[:3])
    return replace(scored[0][3], choice=tuple((p.tiling.name, cyc, ld) for cyc, ld, _, p in scored))


def plan_gemm(m: int, n: int, k: int, *, ft="bf16", bovf: int = 0, rnd: str = "rne", sat: int = 0,
              tiling: str = "auto", with_c: bool = False, macs_per_cycle: int = DEFAULT_MACS_PER_CYCLE,
              acc=None) -> GemmPlan:
    """Plan ``C (M x N) = A (M x K) x B (K x N)``: formats, tiling, slices, cost.

    ``auto`` picks the legal mode with the fewest cycles at ``macs_per_cycle``
    (ties: fewer tile loads, then the wider mode); ``plan.why`` says why.
    ``acc`` replaces the proposal's accumulator by another (a what-if, :mod:`.whatif`).

    Raises:
        GeometryError: a dimension below 1 (``ame.gemm.shape``), or a tiling
            whose tiles do not fit (``ame.gemm.capacity``).
        UnsupportedError: an unknown tiling, or a format that is not an AME Ft.
        FormatError: an unknown format or rounding mode.
        TilesimError: a MAC throughput below 1 (``ame.cost.rate``), an accumulator :func:`.whatif.check`
            refuses (``ame.gemm.acc``).
    """
    for name, v in (("M", m), ("N", n), ("K", k)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise GeometryError(f"{name}={v!r}: GEMM dimensions are positive integers", instruction="gemm",
                                operand=name, rule="ame.gemm.shape", value=v)
    for name, rows, cols in (("A", m, k), ("B", k, n), ("C", m, n)):
        if int(rows) * int(cols) > MAX_GEMM_ELEMENTS:  # before any input is drawn or allocated
            raise GeometryError(f"{name} would be {rows}x{cols} = {int(rows) * int(cols):,} elements; a GEMM matrix "
                                f"holds at most {MAX_GEMM_ELEMENTS:,} (2**28)", instruction="gemm", operand=name,
                                rule="ame.gemm.size", value=(int(rows), int(cols)))
    if isinstance(macs_per_cycle, bool) or not isinstance(macs_per_cycle, (int, np.integer)) or macs_per_cycle < 1:
        raise TilesimError("the MAC throughput is a positive number of MACs per cycle", instruction="gemm",
                           operand="macs_per_cycle", rule="ame.cost.rate", value=macs_per_cycle)
    fmt = formats.get(ft)
    if not fmt.ame_codes:
        raise UnsupportedError(f"{fmt.name} has no AME FormatType code", instruction="gemm", operand="ft",
                               rule="ame.gemm.ft", value=fmt.name)
    if rnd not in ROUNDING:
        raise UnsupportedError(f"unknown rounding {rnd!r}; valid: " + ", ".join(ROUNDING), instruction="gemm",
                               operand="rnd", rule="ame.gemm.rnd", value=rnd)
    if tiling not in TILING_CHOICES:
        raise UnsupportedError(f"unknown tiling {tiling!r}; valid: " + ", ".join(TILING_CHOICES),
                               instruction="gemm", operand="tiling", rule="ame.gemm.tiling", value=tiling)
    acc = accumulator(fmt, bovf) if acc is None or acc == whatif.PROPOSAL else whatif.check(fmt, acc)
    plan = GemmPlan(int(m), int(n), int(k), fmt, acc, int(bool(bovf)), rnd, int(bool(sat)), tiling, TILING_4X4, True,
                    with_c, int(macs_per_cycle))
    if tiling == "auto":
        return _auto(plan)
    mode, guard = _named(tiling, acc, plan.k <= plan.k_step, with_c)
    return replace(plan, tiling=mode, guard4x4=guard)


def gemm(a, b, c=None, *, ft="bf16", bovf: int = 0, rnd: str = "rne", sat: int = 0, tiling: str = "auto",
         accumulation: str = "fused", quantize: bool = False, progress: bool | None = None,
         on_slice: Callable[[int, int], None] | None = None, acc=None, encoded: bool = False) -> GemmResult:
    """``A x B (+ C)`` as the runtime's MMACC.T stream would compute it, bit for bit.

    Args:
        a, b: values (M x K and K x N) of ``ft``.
        c: optional initial C (M x N) values of the accumulator format.
        ft, bovf, rnd, sat: the ``mxcfg`` fields.
        tiling: ``auto`` (the fewest cycles), ``4x4`` (guarded), ``2x2``, ``1x4``, ``4x1`` or ``1x1``.
        accumulation: the core's accumulation model (``fused``, ``sequential``, ``chain_then_add``).
        quantize: round inputs that ``ft`` (C: the accumulator) cannot hold with ``rnd`` and clamp them to
            its range, as ``run_program(quantize=True)`` does; without it such an input is an error (AME22).
        progress: a rich progress bar on stderr once the GEMM has run for a second (``None``: when
            stderr is a terminal).
        on_slice: called as results complete with (done, total), for progress bars of callers.
        acc: another accumulator than the proposal's (a what-if, :mod:`.whatif`); ``None``: the proposal's.
        encoded: ``a`` and ``b`` are already codes of ``ft`` (numpy arrays of its code dtype, as
            :func:`encode_operand` returns them), so a caller that also needs them encodes once.

    Returns:
        :class:`GemmResult`: codes and values of C, the status flags, ``wrapped``, the plan and its cost.

    Raises:
        GeometryError: shapes that do not chain (``ame.gemm.shape``), or a plan error.
        EncodingError: an input ``ft`` cannot hold, without ``quantize`` (``ame.gemm.quantize``).
        DtypeError: with ``encoded``, codes of another dtype than ``ft``'s or beyond its lane (``ame.gemm.dtype``).
    """
    a, b = _matrix(a, "a"), _matrix(b, "b")
    if a.shape[1] != b.shape[0]:
        raise GeometryError(f"A {a.shape} and B {b.shape} are not M x K and K x N", instruction="gemm",
                            operand="a, b", rule="ame.gemm.shape", value=(a.shape, b.shape))
    if c is not None:
        c = _matrix(c, "c")
        if c.shape != (a.shape[0], b.shape[1]):
            raise GeometryError(f"C {c.shape} is not M x N = {(a.shape[0], b.shape[1])}", instruction="gemm",
                                operand="c", rule="ame.gemm.shape", value=c.shape)
    models.check_model(accumulation)
    p = plan_gemm(a.shape[0], b.shape[1], a.shape[1], ft=ft, bovf=bovf, rnd=rnd, sat=sat, tiling=tiling,
                  with_c=c is not None, acc=acc)
    enc = {"rounding": p.rnd, "saturate": bool(p.sat), "quantize": quantize}
    if encoded:
        ac, bc = _codes(a, p.ft, "a"), np.ascontiguousarray(_codes(b, p.ft, "b").T)
    else:
        ac, bc = encode_operand(a, p.ft, "a", **enc), np.ascontiguousarray(encode_operand(b, p.ft, "b", **enc).T)
    cc = None if c is None else encode_operand(c, p.acc, "c", **enc)
    saturate = saturates(p.ft, p.bovf, p.sat)
    with bar(p.useful_macs, progress, on_slice) as tick:
        if p.ft.is_float or not p.acc.is_float:
            if engine.supports(p.ft, p.acc):
                codes, totals = engine.run(p, ac, bc, cc, accumulation, saturate, tick)
            else:
                codes, totals = _batched(p, ac, bc, cc, accumulation, saturate, tick)
        else:  # a what-if: integer inputs into a float accumulator, through a float format holding them exactly
            fc = whatif.carrier(p.ft)
            ac, bc = (formats.encode(formats.decode(x, p.ft), fc) for x in (ac, bc))
            codes, totals = _batched(p, ac, bc, cc, accumulation, saturate, tick, fc)
    status = {"guard_fallback": p.guard_fallback, "badgeom": False, "inexact": totals.inexact,
              "sat_hit": totals.sat_hit}
    return GemmResult(p, codes, status, totals.wrapped)


def _matrix(x, name: str) -> np.ndarray:
    """``x`` as a 2-D numeric array, or an error naming the operand."""
    try:
        x = np.asarray(x)
    except (ValueError, TypeError) as err:
        raise DtypeError(f"{name} is not an array of numbers: {err}", instruction="gemm", operand=name,
                         rule="ame.gemm.dtype") from None
    if x.dtype.kind not in "biuf":
        raise DtypeError(f"{name} has dtype {x.dtype}; expected integers or floats", instruction="gemm",
                         operand=name, rule="ame.gemm.dtype", value=str(x.dtype))
    if x.ndim != 2:
        raise GeometryError(f"{name} has shape {x.shape}; expected a 2-D matrix", instruction="gemm", operand=name,
                            rule="ame.gemm.shape", value=x.shape)
    return x


def _codes(x: np.ndarray, fmt: Format, name: str) -> np.ndarray:
    """``x`` as codes of ``fmt`` (``gemm(encoded=True)``): its code dtype, every code within the lane."""
    if x.dtype != fmt.dtype:
        raise DtypeError(f"{name} has dtype {x.dtype}; codes of {fmt.name} are {np.dtype(fmt.dtype)}",
                         instruction="gemm", operand=name, rule="ame.gemm.dtype", value=str(x.dtype))
    if fmt.lane_bits < 8 * x.itemsize and x.size and int(x.max()) >> fmt.lane_bits:
        raise DtypeError(f"{name} holds code {int(x.max())}, beyond {fmt.name}'s {fmt.lane_bits}-bit lane",
                         instruction="gemm", operand=name, rule="ame.gemm.dtype", value=int(x.max()))
    return x


def encode_operand(x: np.ndarray, fmt: Format, name: str, *, rounding: str, saturate: bool,
                   quantize: bool) -> np.ndarray:
    """Codes of ``x`` in ``fmt``; without ``quantize``, every value must be one ``fmt`` holds exactly."""
    whole = whole_int_lane(fmt)
    if whole is not None:  # integers that fit are their own two's complement codes (the common case, fast)
        with np.errstate(invalid="ignore"):
            xi = x.astype(np.int64)
        if ((xi == x) & (xi >= fmt.int_min) & (xi <= fmt.int_max)).all():
            return xi.astype(whole).view(fmt.dtype)
    if quantize:  # rounds and clamps, as mld (E3); what clamping cannot mend (NaN into no NaN, a negative or 0
        # into E8M0) is refused, as mld refuses it
        return fit(x, fmt, rounding=rounding, saturate=True, instruction="gemm", operand=name,
                   ask="pass values the format can hold")

    def refuse(at: list, v) -> EncodingError:
        stored = formats.encode(np.array([v]), fmt, rounding=rounding, saturate=saturate)
        back = (formats.decode_int if fmt.kind is Kind.INT and x.dtype.kind in "biu" else formats.decode)(stored, fmt)
        return EncodingError(f"{name}{at} = {v!r} is not a {fmt.name} value (it would be stored as "
                             f"{back[0].item()!r}); pass values of the format, or quantize=True to round them with "
                             "RND and clamp them as mld does", instruction="gemm", operand=name,
                             rule="ame.gemm.quantize", value=v)
    return fit(x, fmt, instruction="gemm", operand=name, refuse=refuse)


def _batched(p: GemmPlan, ac, bc, cc, accumulation: str, saturate: bool, tick, ft: Format | None = None):
    """The runtime's K-slices on padded 16 x 16 sub-products, batched: for the formats the engine leaves out.
    ``ft``: the format of the codes ``ac`` and ``bc`` when it is not ``p.ft`` (a what-if's carrier)."""
    bm, bn = p.blocks
    # code 0 is the padding value of every format (+0, or E8M0's smallest value: AME16)
    ac = np.pad(ac, ((0, bm * ROWS - p.m), (0, 0))).reshape(-1, ROWS, p.k)  # (blocks of A, 16, K)
    bc = np.pad(bc, ((0, bn * ROWS - p.n), (0, 0))).reshape(-1, ROWS, p.k)
    ia, ib = (x.ravel() for x in np.meshgrid(np.arange(ac.shape[0]), np.arange(bc.shape[0]), indexing="ij"))
    if cc is not None:
        cc = np.pad(cc, ((0, bm * ROWS - p.m), (0, bn * ROWS - p.n)))
        cc = cc.reshape(ac.shape[0], ROWS, bc.shape[0], ROWS).transpose(0, 2, 1, 3).reshape(-1, ROWS, ROWS)
    totals = engine.Totals()
    slices = p.k_slices
    for s, kk in enumerate(slices):
        k0 = s * p.k_step
        new = np.empty((ia.size, ROWS, ROWS), p.acc.dtype)
        for lo in range(0, ia.size, _SUBPRODUCTS_PER_BATCH):
            sel = slice(lo, lo + _SUBPRODUCTS_PER_BATCH)
            out = models.mac(ac[ia[sel], :, k0:k0 + kk], bc[ib[sel], :, k0:k0 + kk], None if cc is None else cc[sel],
                             ft or p.ft, p.acc, p.rnd, saturate, accumulation)
            new[sel] = out.codes
            totals.inexact |= out.inexact
            totals.sat_hit |= out.sat_hit
        cc = new
        if tick is not None:
            tick((s + 1) * p.m * p.n, len(slices) * p.m * p.n)
    grid = cc.reshape(ac.shape[0], bc.shape[0], ROWS, ROWS).transpose(0, 2, 1, 3).reshape(ac.shape[0] * ROWS, -1)
    return grid[: p.m, : p.n].copy(), totals
