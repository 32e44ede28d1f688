"""Value traces of ``.pto`` programs: one :class:`~tilesim.inspect.Step` per tile op executed.

A step records the op's line, the iteration of each enclosing ``scf.for`` or ``scf.while``, the block,
and what it wrote: each destination tile's valid region (its lane codes, read by the dtype's format)
under the tile's SSA name, and each global-memory window a TSTORE (or any op with a view destination) wrote, as
``%name[window]`` with the window's offset as origin. Statements that write no tile (constants, views,
control flow) make no step.

>>> from tilesim.pto.trace import trace_file
>>> out, steps = trace_file("examples/pto/row_softmax.pto", "examples/pto/row_softmax_inputs.npz", "a5")
>>> [s.op for s in steps][:3], steps[-1].writes[0].name
(['pto.tload', 'pto.trowmax', 'pto.trowexpandsub'], '%y[window]')
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from ..inspect.steps import Filter, Step, Traced, Write
from .dtypes import DTYPES, FLOATS, FP4, FP8
from .ops.convert_cpu import UndefinedCastWarning
from .text.interp import Interpreter, parse_file
from .tile import Tile

__all__ = ["observe", "trace_file", "why", "explain", "default_target", "REASONS", "GENERAL"]


def observe(it: Interpreter, steps: list[Step], keep: Filter | None = None) -> None:
    """Make ``it`` append a Step to ``steps`` for each tile op it executes (those ``keep`` keeps)."""
    source = it.program.source or "<text>"
    count = [0]

    def seen(st, env, wrote) -> None:
        if not wrote:
            return
        outs, windows = wrote
        step = Step(count[0], source, st.line, st.op, tuple(it.iters), getattr(it, "block", 0),
                    dtypes=_source_dtypes(st, env))
        count[0] += 1
        if keep is not None and not keep.keeps(step):
            return
        done = set()
        for t, name in zip(outs, _names(st, outs, env)):
            if isinstance(t, Tile) and id(t) not in done:
                done.add(id(t))
                step.writes.append(Write("%" + name.lstrip("%"), t.valid_bits.copy(), t.dtype.fmt))
        for arr, pv, extra, write in windows:
            if write:
                g = pv.view.ptr.glob
                offs = tuple(int(o) for o in pv.offsets[-2:])
                origin = (offs[0] + int(extra[0]), offs[1] + int(extra[1])) if len(offs) == 2 else offs
                step.writes.append(Write(f"%{g.name}[window]", np.ascontiguousarray(arr).view(g.dtype.lane).copy(),
                                         g.dtype.fmt, origin))
        steps.append(step)

    it.observe = seen


def _source_dtypes(st, env) -> tuple[str, ...]:
    """The dtypes of the tiles an op reads (its ``ins``; a TSTORE's tile, a TLOAD's none)."""
    vals = (env[o.name] for o in st.ins if getattr(o, "name", None) in env)
    return tuple(str(v.dtype) for v in vals if isinstance(v, Tile))


def _names(st, outs: list, env) -> list[str]:
    """The SSA names of an op's destinations: its ``outs(...)`` operands or its results, else found in ``env``."""
    written = [o.name for o in st.outs] if st.kind == "dps" else list(st.results)
    if len(written) == len(outs) and all(written):
        return written
    names = {id(v): k for k, v in env.items() if isinstance(v, Tile)}
    return [names.get(id(t), "?") for t in outs]


def trace_file(path, inputs=None, target=None, *, entry: str | None = None, blocks: int = 1, strict: bool = False,
               keep: Filter | None = None) -> Traced:
    """Run a ``.pto`` file as :func:`tilesim.pto.text.run_file` does; return ``Traced(outputs, steps)``.

    ``inputs`` is a dict of arrays by argument name, or the path of an ``.npz`` holding them.
    """
    if isinstance(inputs, (str, Path)):
        with np.load(inputs) as z:
            inputs = {k: z[k] for k in z.files}
    it = Interpreter(parse_file(path), inputs, target, blocks=blocks, strict=strict)
    steps: list[Step] = []
    observe(it, steps, keep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCastWarning)
        outputs = it.run(entry)
    return Traced(outputs, steps)


_MAXMIN = frozenset({"trowmax", "trowmin", "tcolmax", "tcolmin", "tmax", "tmin", "tmaxs", "tmins", "trowargmax",
                     "trowargmin", "tcolargmax", "tcolargmin"})
_COLARG = frozenset({"tcolargmax", "tcolargmin"})
_EXPAND = frozenset({"trowexpand", "tcolexpand"})
_REDUCE = frozenset({"trowsum", "trowmax", "trowmin", "trowprod", "tcolsum", "tcolmax", "tcolmin", "tcolprod"})

_TWO_BYTE = frozenset(n for n, d in DTYPES.items() if d.size == 2)
_FLOAT = frozenset(FLOATS + FP8 + FP4)

#: (Profile field, the ops it changes or None for any op, the dtypes of the op's first source tile the rule
#: states or None for any, the decision, what differs): why two targets write different values at one
#: statement. Op-specific rows come first.
REASONS: tuple[tuple[str, frozenset | None, frozenset | None, str, str], ...] = (
    ("vectorised_rowsum", frozenset({"trowsum"}), frozenset({"f32", "f16"}), "PTO91", "cpu sums an ND f32/f16 "
     "row as clang's vectorised loop does (two 4-lane partial sums per 8 columns, then the rest in order); a2a3, "
     "a5 and cpu on a program with bf16 (g++'s build, PTO193) sum in index order (PTO5)"),
    ("colarg_unsigned_as_float", _COLARG, frozenset({"u16", "u32"}), "PTO8", "A2A3 compares u16/u32 column-arg "
     "inputs as f16/f32 bit patterns"),
    ("colarg_f16_index", _COLARG, _TWO_BYTE, "PTO8", "A2A3 passes a 2-byte source's column-arg index through f16 "
     "(exact to 2048)"),
    ("int16_row_counter", _COLARG, _TWO_BYTE, "PTO8", "A2A3 counts a 2-byte source's column-arg rows in int16"),
    ("nan_mode", _MAXMIN, _FLOAT, "PTO2", "max, min and the arg ops follow another NaN rule"),
    ("cmp_i32_eq_only", frozenset({"tcmp", "tcmps"}), frozenset({"i32"}), "PTO9", "A2A3 compares i32 with EQ "
     "whatever the mode"),
    ("cpu_masks", frozenset({"tcmp", "tcmps", "tsel", "tsels"}), None, "PTO94", "cpu writes and reads masks as the "
     "CPU simulator's loops do"),
    ("cvt_cpu_model", frozenset({"tcvt"}), None, "PTO81", "cpu converts as the simulator's C++ casts do; the NPUs "
     "by the round mode and saturation of PTO11"),
    ("cvt_wrap_pairs", frozenset({"tcvt"}), None, "PTO11", "A2A3 wraps some non-saturating integer conversions"),
    ("colsum_pairwise", frozenset({"tcolsum"}), None, "PTO86", "cpu ignores TCOLSUM's is_binary and sums rows in "
     "order (PTO19)"),
    ("expand_casts", _EXPAND, None, "PTO87", "cpu casts the source to dst's dtype and reads it at dst's valid "
     "region"),
    ("tload_fills_pad", frozenset({"tload"}), None, "PTO98", "cpu fills the whole tile with its pad value first"),
    ("f16_pad_limits_zero", frozenset({"tfillpad"}), frozenset({"f16"}), "PTO96", "cpu's f16 max/min pad is +0"),
    ("mx_sim_codes", frozenset({"tmatmul_mx"}), None, "PTO75", "cpu reads fp8 and E8M0 codes as the simulator's "
     "MXType"),
    ("fp_modeless_casts", frozenset({"textract_fp", "tinsert_fp", "textract", "tinsert", "tmov"}), None, "PTO74",
     "cpu copies a dtype pair with no quant mode by ReLU and a C++ cast"),
    ("tmov_ignores_scalar", frozenset({"tmov"}), None, "PTO47", "cpu's TMOV ignores its pre-quant scalar"),
    ("prefetch_copies", frozenset({"tprefetch"}), None, "PTO68", "cpu's TPREFETCH copies global memory into dst"),
)

#: rows that hold for many ops, given only where no row of :data:`REASONS` does
GENERAL: tuple[tuple[str, frozenset | None, frozenset | None, str, str], ...] = (
    ("empty_reduce_cpu", _REDUCE, None, "PTO91", "cpu's loops give +0, 1 or the first element for an empty line"),
    ("flush_denormals", None, _FLOAT, "PTO4", "a2a3 and a5 flush subnormal inputs and results of vector arithmetic "
     "to zero; cpu does not"),
    ("x86_nans", None, _FLOAT, "PTO91", "cpu's NaN results carry x86-64's payloads; the NPUs write the canonical "
     "NaN (PTO6)"),
)


def why(op: str, a, b, dtypes: tuple = ()) -> list[str]:
    """The rules behind different values of ``op`` on profiles ``a`` and ``b``: the rows of :data:`REASONS` whose
    field differs, else those of :data:`GENERAL`. With the ``dtypes`` of the op's source tiles, a row that
    states a dtype condition is kept only where the first source meets it (without, every row is kept).

    >>> [r[:5] for r in why("pto.trowsum", "cpu", "a5")], [r[:4] for r in why("tcolargmax", "a2a3", "a5")][:2]
    (['PTO91'], ['PTO8', 'PTO8'])
    >>> [r[:40] for r in why("tcolargmax", "a2a3", "a5", ("u32", "u32"))]
    ['PTO8: A2A3 compares u16/u32 column-arg i']
    """
    from .targets import get_target
    from .text.forms import op_key

    pa, pb, key = get_target(a), get_target(b), op_key(op)

    def rows(table) -> list[str]:
        return [f"{rule}: {text}" for field, ops, types, rule, text in table
                if (ops is None or key in ops) and (types is None or not dtypes or dtypes[0] in types)
                and getattr(pa, field) != getattr(pb, field)]

    return rows(REASONS) or rows(GENERAL)


def default_target(path) -> str:
    """The target a run of the ``.pto`` file takes when none is given: the module's, else a5."""
    from .targets import DEFAULT_TARGET
    from .text.interp import program_target

    return program_target(parse_file(path)) or DEFAULT_TARGET


def explain(op: str, a: dict, b: dict, dtypes: tuple = ()) -> list[str]:
    """Why two runs' values differ at ``op``, given their run options (target, strict) and the dtypes of its
    source tiles."""
    from .targets import DEFAULT_TARGET

    out = why(op, a.get("target") or DEFAULT_TARGET, b.get("target") or DEFAULT_TARGET, dtypes)
    if bool(a.get("strict")) != bool(b.get("strict")):
        out.append("PTO64: strict stops at the first element a conversion computes by a C++-undefined cast")
    return out
