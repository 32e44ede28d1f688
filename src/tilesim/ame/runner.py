"""Run an assembled AME program on a :class:`~tilesim.ame.Core` with named numpy arrays.

Arrays share one namespace: the inputs, and every array an ``mst`` writes
(created on first store, grown to fit, zero elsewhere). ``mld`` encodes a
block with the current ``Ft`` (or the format it names): a float format rounds
with RND; a value beyond the format's range is clamped when SAT = 1 and an
error otherwise; a non-integer into an integer format is an error. Run with
``quantize=True`` to round (RND) and clamp everything (decision E3). ``mst`` decodes with the accumulator format of
``Ft``/``bOVF`` (or the format it names): int64 for integer formats, float64
otherwise (docs/decisions.md AME11). An error names the line and column.

>>> import numpy as np
>>> from tilesim.ame import assemble, run_program
>>> prog = assemble('''
... csrw mxcfg, Ft=int8 | bOVF=0
... csrw mxtile, K=2 | M=2 | TILING=1x1
... mld tr0, a[0:2, 0:2]
... mld tr1, b[0:2, 0:2]
... MMACC.T tr2, tr0, tr1, 1
... mst tr2, c[0:2, 0:2]
... ''')
>>> r = run_program(prog, {"a": np.array([[1, 2], [3, 4]]), "b": np.array([[5, 6], [7, 8]])})
>>> r.outputs["c"].tolist(), r.cost.macs
([[17, 23], [39, 53]], 8)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import formats
from ..errors import GeometryError, TilesimError
from ..formats.checks import flag
from ..formats.fit import fit
from .accum import accumulator
from .asm import Instruction, Program, Slice
from .core import Core
from .cost import Cost
from .csr import MXCFG, ROUNDING
from .mmacc import Executed
from .regfile import span

__all__ = ["RunResult", "run_program"]

# the fix an mld error names once SAT=1 is set (or not needed): only quantize rounds what SAT cannot clamp
_QUANTIZE = "run with quantize=True (tilesim run --quantize) to round with RND and clamp"

_MASK64 = (1 << 64) - 1


@dataclass
class RunResult:
    """The machine after a run, the arrays its stores wrote, the scalar registers, and the cost."""

    core: Core
    outputs: dict[str, np.ndarray]
    x: list[int]
    cost: Cost
    executed: list[Executed] = field(default_factory=list)
    #: with ``trace=True``: one :class:`~tilesim.inspect.Step` per instruction, the values it wrote
    steps: list | None = None


class _Run:
    def __init__(self, core: Core, inputs: dict[str, np.ndarray], quantize: bool = False) -> None:
        self.core = core
        self.quantize = quantize
        self.arrays = _arrays(inputs)
        self.stored: list[str] = []
        self.x = [0] * 32
        self.cost = Cost()
        self.executed: list[Executed] = []

    def set_x(self, rd: int, v: int) -> None:
        if rd:
            self.x[rd] = v & _MASK64

    def value(self, v) -> int:
        return self.x[v[1]] if isinstance(v, tuple) else v

    def li(self, ins, rd, v):
        self.set_x(rd, v)

    def csrw(self, ins, name, v):
        self.core.csrw(name, self.value(v))

    def csrr(self, ins, rd, name):
        self.set_x(rd, self.core.csrr(name))

    def mmacc(self, ins, tc, ta, tb, imm):
        ex = (self.core.mmacc_t if ins.mnemonic == "mmacc.t" else self.core.mmacc)(tc, ta, tb, imm)
        self.cost.add_mmacc(ex.macs, ex.tiles_read, ex.tiles_written)
        self.executed.append(ex)
        return ex

    def _config(self, ins: Instruction):
        cfg = MXCFG.unpack(self.core.csrr(MXCFG))
        try:
            ft = formats.get(cfg["ft"])
        except TilesimError:
            raise TilesimError(f"Ft={cfg['ft']:#04x} is not a format, so there is no default format; "
                               "name one as the last operand", instruction=ins.mnemonic, operand="format",
                               rule="ame.run.format", value=cfg["ft"]) from None
        return cfg, ft

    def mld(self, ins, tile, sl: Slice, fmt=None):
        """Load block ``sl`` of an array into ``tile``: values the format holds as they are, unless asked (AME22)."""
        if sl.name not in self.arrays:
            raise TilesimError(f"no array named {sl.name!r}; given: " + (", ".join(sorted(self.arrays)) or "none"),
                               instruction=ins.mnemonic, operand=sl.name, rule="ame.run.array", value=sl.name).at(
                column=ins.arg_columns[1])
        a = self.arrays[sl.name]
        if a.ndim != 2 or sl.r1 > a.shape[0] or sl.c1 > a.shape[1]:
            raise GeometryError(f"block {sl} is outside the array's shape {a.shape}", instruction=ins.mnemonic,
                                operand=sl.name, rule="ame.run.bounds", value=a.shape).at(column=ins.arg_columns[1])
        cfg, ft = self._config(ins)
        f = formats.get(fmt) if fmt else ft
        if cfg["rnd"] >= len(ROUNDING):
            raise TilesimError(f"RND={cfg['rnd']} is reserved", instruction=ins.mnemonic, operand="RND",
                               rule="ame.run.rnd", value=cfg["rnd"])
        rounds = self.quantize or not f.is_integer
        codes = fit(a[sl.r0:sl.r1, sl.c0:sl.c1], f, rounding=ROUNDING[cfg["rnd"]] if rounds else None,
                    saturate=bool(cfg["sat"]) or self.quantize, instruction=ins.mnemonic, operand=sl.name,
                    ask=_QUANTIZE if cfg["sat"] else "set SAT=1 in mxcfg to clamp, or " + _QUANTIZE)
        self.core.write_codes(tile, codes, f)
        self.cost.tiles_loaded += span(sl.shape[1], f)

    def mst(self, ins, tile, sl: Slice, fmt=None):
        cfg, ft = self._config(ins)
        f = formats.get(fmt) if fmt else accumulator(ft, cfg["bovf"])
        v = self.core.read_matrix(tile, f, sl.shape)
        old = self.arrays.get(sl.name)  # an input, or an earlier store: rows and columns outside sl stay (AME27)
        if old is not None and old.ndim != 2:
            raise GeometryError(f"{sl.name!r} is a {old.ndim}-D input; mst writes blocks of a 2-D array",
                                instruction=ins.mnemonic, operand=sl.name, rule="ame.run.bounds",
                                value=old.shape).at(column=ins.arg_columns[1])
        shape = (max(sl.r1, old.shape[0] if old is not None else 0), max(sl.c1, old.shape[1] if old is not None else 0))
        dtype = np.result_type(v.dtype, old.dtype) if old is not None else v.dtype
        out = np.zeros(shape, dtype)
        if old is not None:
            out[: old.shape[0], : old.shape[1]] = old
        out[sl.r0:sl.r1, sl.c0:sl.c1] = v
        self.arrays[sl.name] = out
        if sl.name not in self.stored:
            self.stored.append(sl.name)
        self.cost.tiles_stored += span(sl.shape[1], f)


def _arrays(inputs) -> dict[str, np.ndarray]:
    """The named input arrays, checked: a mapping of names to numeric arrays."""
    if not hasattr(inputs, "items"):
        raise TilesimError(f"inputs are a dict of name -> array, not {type(inputs).__name__}",
                           instruction="run_program", operand="inputs", rule="ame.run.input", value=type(inputs).__name__)
    out = {}
    for k, v in inputs.items():
        try:
            a = np.asarray(v)
        except (ValueError, TypeError):
            a = None
        if not isinstance(k, str) or a is None or a.dtype.kind not in "biuf":
            raise TilesimError(f"input {k!r} must be a named array of numbers, not {type(v).__name__}"
                               + (f" of {a.dtype}" if a is not None else ""), instruction="run_program",
                               operand=str(k), rule="ame.run.input", value=type(v).__name__)
        out[k] = a
    return out


_HANDLERS = {"li": "li", "csrw": "csrw", "csrr": "csrr", "mmacc.t": "mmacc", "mmacc": "mmacc", "mld": "mld",
             "mst": "mst"}


def run_program(program: Program, inputs: dict[str, np.ndarray] | None = None, *, core: Core | None = None,
                accumulation: str = "fused", quantize: bool = False,
                on_step: Callable[[Instruction, "Executed | None", Core], None] | None = None,
                trace: bool = False) -> RunResult:
    """Run ``program`` from a fresh :class:`Core` (or ``core``) with the named input arrays.

    Args:
        quantize: let ``mld`` round integer-format inputs with RND and clamp values beyond the range
            even when SAT = 0 (otherwise those are errors).
        on_step: called after each instruction with it, its :class:`Executed`
            record (MMACC only, else ``None``) and the core (for traces).
        trace: fill :attr:`RunResult.steps` with the values each instruction wrote (:mod:`tilesim.ame.trace`).

    Raises:
        TilesimError: any error of an instruction, located at its line and column;
            a ``badgeom`` trap is a :class:`~tilesim.ame.BadGeom` and stops the run.
    """
    run = _Run(core if core is not None else Core(accumulation), inputs or {},
               flag(quantize, "quantize", "run_program"))
    steps = None
    if flag(trace, "trace", "run_program"):
        steps, on_step = _tracing(program, on_step)
    for ins in program:
        try:
            ex = getattr(run, _HANDLERS[ins.mnemonic])(ins, *ins.args)
        except TilesimError as e:
            raise e.at(source=ins.source, line=ins.line, column=e.column or ins.column) from None
        if ex is None:  # MMACC counts itself in the cost
            run.cost.instructions += 1
        if on_step is not None:
            on_step(ins, ex, run.core)
    outputs = {k: run.arrays[k] for k in run.stored}
    return RunResult(run.core, outputs, run.x, run.cost, run.executed, steps)


def _tracing(program: Program, on_step):
    """A step list and an ``on_step`` that fills it (and calls the caller's ``on_step`` too)."""
    from .trace import observer
    steps: list = []
    seen = observer(steps, program.source)
    if on_step is None:
        return steps, seen

    def both(ins, ex, core):
        seen(ins, ex, core)
        on_step(ins, ex, core)
    return steps, both
