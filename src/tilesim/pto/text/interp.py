"""Run PTO programs: ``run_file(path, inputs, target) -> dict of numpy arrays``.

The interpreter executes a parsed :class:`~.parser.Program` statement by
statement on one target, in tilesim's sequential model (every op finishes
before the next starts):

* Tiles live in a :class:`~tilesim.pto.memory.Memory` of the target's
  buffers: ``alloc_tile addr=``/``tassign`` place them at an address
  (overlapping tiles alias), ``alloc_tile`` without one at the lowest free
  address; a tile's bytes are free again after its last use (:mod:`.plan`).
* Control flow: ``scf.for`` (``iter_args``/``scf.yield``), ``scf.if``/``else``
  with results, ``scf.while``/``scf.condition``, ``func.call`` between the
  module's functions (``func.func private`` declarations may not be called),
  ``return`` with values.
* ``arith`` on scalars (:mod:`.scalars`), global memory through ``!pto.ptr``
  and ``memref`` arguments, ``memref.alloc``, views and windows, sync ops
  (:mod:`.sync`), TPUSH/TPOP pipes (:mod:`.pipes`), ``get_block_idx`` with
  ``blocks`` copies of the kernel run one after another on shared global
  memory, ``tprint`` to stdout.
* Every DPS op goes to its function in :data:`~tilesim.pto.OPS` (:mod:`.dispatch`).

Inputs are found by argument name without ``%`` (decision PTO16, PTO25). An
argument the program reads must be given; a pointer or tile argument that is
only written may be left out and starts as zeros (a pointer sized by the
views made over it). A name in ``inputs`` that is not an argument is an error.
Outputs: every pointer argument written (shaped like its input, or like the
first view made over it), every tile argument, and, in statements outside
functions, every tile result.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
import weakref
from collections import ChainMap
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np

from ...errors import ParseError, StateError, TilesimError
from .. import numerics as nx
from .. import pipe as pto_pipe
from ..dtypes import DTYPES, get_dtype
from ..memory import Memory
from ..ops import OPS
from ..ops.convert_cpu import UndefinedCastWarning
from ..targets import DEFAULT_TARGET, Profile, get_target
from ..tile import Tile, to_bits
from . import scalars as sc
from .bound import bind
from .comm import COMM_SPECIAL, WAITING_OPS, collective, comm_fed
from .conv import CONFIG_OPS, PAGE_SPELLINGS, REGISTER_OPS, conv_tile, tprefetch_async, with_registers
from .dispatch import call_op, enum_word
from .forms import op_key
from .parse_cache import parse_cached
from .parser import Func, Operand, Program, Stmt, TypeRef, parse
from .peers import Peers
from .pipes import Pipes
from .plan import Plan, plan
from .steps import Step, prepare
from .sync import SYNC_OPS, SyncState
from .types import memref_location, memref_shape, tile_spec, view_dtype
from .verify import verify, walk as _walk
from .values import Global, Opaque, PartView, Ptr, Scalar, TensorView, kind_of

__all__ = ["InputSizeWarning", "run_file", "run_text", "Interpreter", "Scalar", "Global", "Ptr", "TensorView",
           "PartView", "program_target"]

_MAX_WHILE = 1_000_000
#: the most elements of a global buffer the program itself makes (memref.alloc, a view of a pointer that is not an
#: input, a dense<> vector); inputs are as large as given (PTO104)
MAX_GLOBAL_ELEMENTS = 1 << 28
_MAX_DEPTH = 64
_ROW_REDUCE = ("trowsum", "trowmax", "trowmin", "trowprod")
_COL_REDUCE = ("tcolsum", "tcolmax", "tcolmin", "tcolprod")
_ARG_OPS = ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin")
#: ops whose operands include a global-memory window, and the rule for a window that does not match the tile
_WINDOW_RULE = {"tload": "pto.tload.shape", "tstore": "pto.tstore.shape", "tprefetch": "pto.tload.shape"}


class InputSizeWarning(UserWarning):
    """A pointer input holds more elements than the program's views reach: the rest are ignored (PTO103)."""


class _Return(Exception):
    """Unwinds a function body at ``return`` (internal)."""


#: id(program) -> (a weak reference to it, what runs derived from it); an entry goes when its program does
_DERIVED: dict[int, tuple] = {}


def derived(program: Program) -> dict:
    """What runs derive from the program alone (plans, the rule sets it verified on, whether it names bf16), kept
    for its next run while it lives (not on the object: a pickled program carries none of it): a kernel run many
    times is planned and verified once."""
    key = id(program)
    entry = _DERIVED.get(key)
    if entry is None or entry[0]() is not program:
        entry = _DERIVED[key] = (weakref.ref(program, lambda _, k=key: _DERIVED.pop(k, None)), {})
    return entry[1]


def uses_bf16(program: Program) -> bool:
    """Whether a function argument or a statement's type names bf16 (element, dtype or view type)."""
    def named(x) -> bool:
        if isinstance(x, TypeRef):
            return x.name == "bf16" or any(named(v) for _, v in x.params)
        if isinstance(x, (list, tuple)):
            return any(named(v) for v in x)
        return x == "bf16" or getattr(x, "elem", None) == "bf16"

    def stmts(body) -> bool:
        return any(named(st.in_types) or named(st.out_types) or any(stmts(r) for r in st.regions)
                   for st in body if isinstance(st, Stmt))
    return stmts(program.stmts) or any(named([t for _, t in f.args]) or stmts(f.body or ()) for f in program.funcs)


def program_target(program: Program) -> str | None:
    """The target a module names (``pto.target_arch = "a5"``/``"a3"``, ``pto.device-spec``), or None."""
    arch = str(program.attrs.get("pto.target_arch", "")).lower()
    if arch in ("a5",):
        return "a5"
    if arch in ("a3", "a2", "a2a3"):
        return "a2a3"
    spec = str(program.attrs.get("pto.device-spec", "")).lower()
    if "950" in spec:
        return "a5"
    if "910" in spec:
        return "a2a3"
    return None


class _Frame:
    """One function activation: its plan and the tiles it placed by name."""

    def __init__(self, func: Func | None, pl: Plan, depth: int, kind: str) -> None:
        self.func = func
        self.plan = pl
        self.depth = depth
        self.kind = kind
        self.placed: dict[str, Tile] = {}
        self.peers = Peers()


#: ops whose per-target path rules PTOAS checks on tile_buf operands only (PTO43)
_WINDOW_OPS = frozenset({"textract", "tinsert", "textract_fp", "tinsert_fp", "tmov"})

class Interpreter:
    """Executes a parsed :class:`Program` on one target.

    Args:
        program: the parsed program.
        inputs: arrays and scalars by argument name (without ``%``).
        target: ``cpu``, ``a2a3``, ``a5`` or a Profile; default the module's ``pto.target_arch``, else a5.
        trace: called with each statement and its results as it runs.
        blocks: run the kernel this many times (``get_block_idx`` = 0 .. blocks-1) on shared global memory.
        level: ``"level3"`` requires every ``alloc_tile`` to have an address (PTOAS ``--pto-level=level3``).
        stdout: where ``tprint`` writes (default ``sys.stdout``).
        strict: stop with ``SpecGapError`` (``pto.tcvt.undefined``) at the first element a conversion computes
            by an undefined C++ cast (target ``cpu``; ``a2a3``/``a5`` refuse those always). Without it such
            elements get x86-64's values, :attr:`undefined` counts them and :meth:`run` warns
            (:class:`~tilesim.pto.ops.convert_cpu.UndefinedCastWarning`).
        copy_inputs: False: a writable contiguous pointer input of the argument's dtype is the global memory
            itself (the run writes into it, as the simulator writes its buffers) instead of a copy, saving a pass
            over each; for callers whose arrays are theirs to give (the CLI reads them from files).
    """

    def __init__(self, program: Program, inputs: dict | None = None, target=None,
                 trace: Callable[[Stmt, list], None] | None = None, *, blocks: int = 1, level: str | None = None,
                 stdout=None, strict: bool = False, copy_inputs: bool = True) -> None:
        self.program = program
        if inputs is not None and not isinstance(inputs, dict):
            raise TilesimError("inputs must be a dict of arrays by argument name", instruction="pto.run",
                               operand="inputs", rule="pto.interp.input", value=type(inputs).__name__)
        self.inputs = dict(inputs or {})
        self.prof: Profile = get_target(target if target is not None else (program_target(program) or DEFAULT_TARGET))
        if not isinstance(strict, bool):
            raise TilesimError("strict must be True or False", instruction="pto.run", operand="strict",
                               rule="pto.interp.strict", value=strict)
        if strict and not self.prof.strict:
            self.prof = self.prof.with_(strict=True)
        bf16 = derived(program).get("bf16")
        if bf16 is None:
            bf16 = derived(program)["bf16"] = uses_bf16(program)
        if self.prof.cvt_cpu_model and not self.prof.gxx and bf16:  # only g++ builds it (PTO193)
            self.prof = self.prof.with_(gxx=True)
        self.trace = trace
        if not isinstance(copy_inputs, bool):
            raise TilesimError("copy_inputs must be True or False", instruction="pto.run", operand="copy_inputs",
                               rule="pto.interp.copy_inputs", value=copy_inputs)
        self.copy_inputs = copy_inputs
        #: called after each executed statement with it, its environment and the tiles and global windows a
        #: tile op wrote (``(outs, windows)``; empty for other statements): value traces (:mod:`tilesim.pto.trace`)
        self.observe: Callable | None = None
        #: the iteration number (from 0) of each enclosing ``scf.for``, outermost first
        self.iters: list[int] = []
        self._wrote: tuple = ()
        if not isinstance(blocks, int) or isinstance(blocks, bool) or blocks < 1:
            raise TilesimError("blocks must be a positive integer", instruction="pto.run", operand="blocks",
                               rule="pto.interp.blocks", value=blocks)
        if level not in (None, "level1", "level2", "level3"):
            raise TilesimError("level must be level1, level2 or level3", instruction="pto.run", operand="level",
                               rule="pto.interp.level", value=level)
        self.blocks = blocks
        self.level = level
        self.stdout = stdout if stdout is not None else sys.stdout
        self.globals: dict[str, Global] = {}
        self.tile_args: dict[str, Tile] = {}
        self.results: dict[str, Tile] = {}
        self.issues: list[str] = []
        #: ``(line, op, elements)`` for each statement run that marked elements in ``Tile.undefined``
        self.undefined: list[tuple[int, str, int]] = []
        self.sync_traces: list = []
        self._plans: dict[int, Plan] = derived(program).setdefault("plans", {})
        #: id(statement) -> its prepared step (:mod:`.steps`), or None where it does not qualify
        self._steps: dict[int, Step | None] = {}
        #: the tile each alloc_tile type describes, by the type's id (the program's types live as long as it does)
        self._specs: dict[int, tuple] = {}
        #: id(arith statement) -> :meth:`_arith_form`
        self._arith_forms: dict[int, tuple] = {}
        self._constants = _constant_names(program)
        self._planning: set = set()
        self._peers: Peers | None = None
        #: the blocks run as coroutines when the program waits on signals (TWAIT/TTEST, PTO155)
        self._ranks: Peers | None = None
        self._spins = 0
        #: the vector subblock running (0, or 1 where two run, PTO157)
        self.subblock = 0
        #: each (block, subblock)'s configuration registers, which the SET_* ops write (PTO187)
        self._registers: dict = {}

    # ----------------------------------------------------------------- errors
    def _err(self, node, detail: str, rule: str, operand: str | None = None, value=None,
             cls=ParseError) -> TilesimError:
        return cls(detail, instruction=getattr(node, "op", None) or "pto.run", operand=operand, rule=rule,
                   value=value, source=self.program.source, line=getattr(node, "line", 1) or 1,
                   column=getattr(node, "column", 1) or 1)

    @property
    def _program_name(self) -> str:
        return Path(self.program.source).name if self.program.source else "the program"

    # -------------------------------------------------------------------- run
    def run(self, entry: str | None = None) -> dict[str, np.ndarray]:
        """Run the entry function (or the loose statements) ``blocks`` times; return the outputs."""
        verified = derived(self.program).setdefault("verified", set())
        key = (self.prof.absent_ops, self.prof.dtypes.get("tgather_compare"), self.level)  # what verify reads
        if key not in verified:
            verify(self.program, self.prof, self.level)
            verified.add(key)
        fn = self._entry(entry) if self.program.funcs else None
        args = self._bind_inputs(fn)
        done: dict = {}

        def block(b: int) -> None:
            self._set_block_state((b, Memory(self.prof), SyncState(), Pipes(), [], None))
            if fn is not None:
                self._run_entry(fn, args)
            if self.program.stmts:
                self._loose(args)
            self.sync.finish()
            tag = f"block {b}: " if self.blocks > 1 else ""
            done[b] = (self.sync.trace, [tag + i for i in self.sync.issues + self.pipes.leftovers()])

        if self.blocks > 1 and any(st.op in WAITING_OPS for body in [self.program.stmts] + [
                f.body or [] for f in self.program.funcs] for st in _walk(body)):
            self._ranks = Peers()         # each block runs until it waits on a signal (PTO155)
            for b in range(self.blocks):
                self._ranks.queue(lambda b=b: block(b))
            self._ranks.run_all()
        else:
            for b in range(self.blocks):
                block(b)
        for b in sorted(done):
            self.sync_traces.append(done[b][0])
            self.issues += done[b][1]
        for message in self.undefined_summary():
            warnings.warn(message, UndefinedCastWarning, stacklevel=2)
        for message in self.input_summary():
            warnings.warn(message, InputSizeWarning, stacklevel=2)
        return self._outputs()

    def _block_state(self) -> tuple:
        """What belongs to the running block (saved while another block runs)."""
        return self.block, self.mem, self.sync, self.pipes, self.iters, self._peers

    def _set_block_state(self, state: tuple) -> None:
        self.block, self.mem, self.sync, self.pipes, self.iters, self._peers = state

    def input_summary(self) -> list[str]:
        """One line per pointer input with elements past the last one the program's views reach (PTO103)."""
        return [f"input {name!r} has {g.lanes.size:,} elements; the program's views reach only the first "
                f"{g.reach:,}, so the other {g.lanes.size - g.reach:,} are ignored" for name, g in self.globals.items()
                if g.given and 0 < g.reach < g.lanes.size]

    def undefined_summary(self) -> list[str]:
        """One line per statement that marked elements undefined: where, which op, how many elements in all."""
        counts: dict = {}
        for line, op, n in self.undefined:
            counts[(line, op)] = counts.get((line, op), 0) + n
        where = self.program.source or "<text>"
        why = {"pto.tci": "computed by a signed overflow that C++ leaves undefined; they hold x86-64's wrapped "
                          "values (strict mode stops here instead)"}  # PTO71
        cast = ("converted by a float->int cast that C++ leaves undefined (NaN, Inf or out of range, no "
                "saturation); they hold x86-64's values (strict mode stops here instead)")
        return [f"{where}:{line}: {op}: {n} element{'s' if n != 1 else ''} {why.get(op, cast)}"
                for (line, op), n in sorted(counts.items())]

    def _run_entry(self, fn: Func, args: dict) -> None:
        """Run the entry; a cube/vector entry whose pipe peers (``peer_func``) take arguments of the same
        names runs together with them, as the two sides of one block."""
        group = self._peer_group(fn) if self._uses_pipes(fn) else []
        if not group:
            self._call(fn, args, None, depth=0)
            return
        peers = Peers()
        two = any(self._vector_split_push(f) for f in [fn, *group])
        self.pipes.two_subblocks = two
        for f in [fn, *group]:
            vector = enum_word(str(f.attrs.get("pto.kernel_kind", "vector"))) != "cube"
            for sub in ((0, 1) if two and vector else (0,)):
                peers.queue(lambda f=f, sub=sub: self._as_subblock(sub, f, {n: args[n] for n, _ in f.args}))
        self._run_peers(peers)

    def _vector_split_push(self, fn: Func) -> bool:
        """Whether ``fn`` is a vector function that pushes one subblock's half (split 1 or 2) to the cube: then
        two vector subblocks run (PTO157)."""
        if enum_word(str(fn.attrs.get("pto.kernel_kind", "vector"))) == "cube":
            return False
        return any(st.op in ("pto.tpush_to_aic", "pto.tpush") and self._split(st) in (1, 2) for st in _walk(fn.body))

    def _as_subblock(self, sub: int, fn: Func, args: dict) -> None:
        """Run ``fn`` as vector subblock ``sub`` (subblock 1 has its own buffers)."""
        if sub:
            self.mem = Memory(self.prof)
        self.subblock = sub
        self._call(fn, args, None, depth=0)

    def _peer_group(self, fn: Func) -> list:
        names = {n for n, _ in fn.args}
        linked = set()
        for f in self.program.funcs:
            for st in _walk(f.body):
                peer = str(st.attrs.get("peer_func", "")).lstrip("@")
                if f.name == fn.name and peer:
                    linked.add(peer)
                elif peer == fn.name:
                    linked.add(f.name)
        group = [self.program.func(n) for n in sorted(linked - {fn.name})]
        return [g for g in group if g is not None and g.body is not None and self._uses_pipes(g)
                and all(n in names for n, _ in g.args)]

    def _loose(self, args: dict) -> None:
        pl = self._plan_of(self.program.stmts, [])
        frame = _Frame(None, pl, 0, "vector")
        env = ChainMap(dict(args))
        self._region(self.program.stmts, env, frame, loose=True)

    def _outputs(self) -> dict[str, np.ndarray]:
        out = {}
        for name, g in self.globals.items():
            if g.written:
                arr = g.lanes.view(g.dtype.np)
                if g.shape is not None and int(np.prod(g.shape)) <= arr.size:
                    arr = arr[: int(np.prod(g.shape))].reshape(g.shape)
                out[name] = arr     # the run's own buffer (a later run makes new ones): not copied
        for name, t in {**self.tile_args, **self.results}.items():
            t.pull()
            out[name] = t.valid_values.copy()
        return out

    # ------------------------------------------------------------- entry and inputs
    def _entry(self, entry) -> Func:
        funcs = self.program.funcs
        if entry is not None:
            fn = self.program.func(entry)
            if fn is None:
                raise self._err(funcs[0], f"no function @{entry}; have " + ", ".join("@" + f.name for f in funcs),
                                "pto.interp.entry")
        else:
            marked = [f for f in funcs if "pto.entry" in f.attrs]
            public = [f for f in funcs if not f.private]
            fn = marked[0] if marked else (public or funcs)[0]
        if fn.body is None:
            raise self._err(fn, f"@{fn.name} is only declared (func.func private without a body)", "pto.func.declared")
        if fn.results:
            raise self._err(fn, f"the entry function @{fn.name} returns {', '.join(t.text() for t in fn.results)}; "
                                "PTO entry functions must return nothing", "pto.func.entry_void")
        self._check_recursion(fn)
        return fn

    def _check_recursion(self, fn: Func) -> None:
        """Reject call cycles (PTOAS rejects recursive kernels)."""
        def callees(stmts):
            for st in stmts:
                if st.kind == "call":
                    yield st
                for r in st.regions:
                    yield from callees(r)
        stack, done = [], set()

        def visit(f: Func):
            if f.name in stack:
                cycle = " -> ".join("@" + n for n in stack[stack.index(f.name):] + [f.name])
                raise self._err(f, f"recursive calls are not supported: {cycle}", "pto.func.recursive")
            if f.name in done or f.body is None:
                return
            stack.append(f.name)
            for st in callees(f.body):
                g = self.program.func(st.extra["callee"])
                if g is not None:
                    visit(g)
            stack.pop()
            done.add(f.name)
        visit(fn)

    def _bind_inputs(self, fn: Func | None) -> dict:
        """Check the inputs against the entry's arguments and make the argument values."""
        if fn is None:
            return {}
        names = [n for n, _ in fn.args]
        unknown = [k for k in self.inputs if k not in names]
        if unknown:
            raise self._err(fn, f"{self._program_name} (@{fn.name}) has no argument named "
                                f"{', '.join(repr(k) for k in unknown)}; its arguments are "
                                f"{', '.join('%' + n for n in names) or 'none'} (pass them as --input NAME=... "
                                "or in inputs=)", "pto.interp.input", unknown[0], unknown)
        pl = self._plan_of(fn.body, names)
        return {name: self._arg(name, ty, fn, pl) for name, ty in fn.args}

    def _missing(self, fn: Func, name: str, ty: TypeRef, what: str) -> TilesimError:
        given = ", ".join(sorted(self.inputs)) or "nothing"
        return self._err(fn, f"{self._program_name} (@{fn.name}) reads argument %{name} ({ty.text()}): expected "
                             f"{what}; given: {given}. Pass it with --input {name}=FILE.npy (or a .npz holding "
                             f"'{name}'), or inputs={{'{name}': ...}}", "pto.interp.input", name)

    def _arg(self, name: str, ty: TypeRef, fn: Func, pl: Plan):
        if ty.name == "!pto.ptr" or (ty.name == "memref" and memref_location(ty) is None):
            dt = get_dtype(view_dtype(ty) or (memref_shape(ty).elem if ty.name == "memref" else ""),
                           instruction="pto.run", operand=name)
            if name in self.inputs:
                arr = self._input_array(name, fn, allow_nd=True)
                lanes = self._exact(arr, dt, name, fn).reshape(-1)
                if np.may_share_memory(lanes, arr) and (self.copy_inputs or not lanes.flags.writeable):
                    lanes = lanes.copy()
                g = Global(name, dt, lanes, True, arr.shape)
            else:
                if pl.is_read(name) and not comm_fed(fn, pl, name):
                    raise self._missing(fn, name, ty, f"an array of {dt} (numpy {dt.np})")
                g = Global(name, dt, np.zeros(0, dt.lane), False)
            self.globals[name] = g
            if ty.name == "memref":
                return self._memref_view(Ptr(g), ty, fn)
            return Ptr(g)
        conv = conv_tile(ty, self.program.source)
        if conv is not None:
            if name in self.inputs:
                self._fill_conv(conv, name, fn)
            elif pl.is_read(name):
                raise self._missing(fn, name, ty, f"an array of {conv.dtype} shaped {conv.shape}")
            return conv
        spec = tile_spec(ty, self.prof)
        if spec is not None:
            t = spec.make(valid=tuple(v if v is not None else d for v, d in zip(spec.valid, (spec.rows, spec.cols))))
            if name in self.inputs:
                self._fill_tile(t, spec, name, fn)
            elif pl.is_read(name):
                raise self._missing(fn, name, ty, f"a 2-D array of {t.dtype} for a {t.describe()} tile")
            self.tile_args[name] = t
            return t
        if ty.name == "vector":
            shape = next((q for _, q in ty.params if hasattr(q, "dims")), None)
            if name not in self.inputs:
                raise self._missing(fn, name, ty, f"an array of {shape.elem if shape else '?'}")
            return self._vector_input(name, ty, shape, fn)
        if name not in self.inputs:
            raise self._missing(fn, name, ty, f"a {ty.text()} scalar")
        return self._scalar_input(self.inputs[name], ty.name, fn, name)

    def _vector_input(self, name: str, ty: TypeRef, shape, fn: Func) -> Scalar:
        """A ``vector<NxT>`` argument: an array of that static shape whose values convert exactly to T."""
        dt = get_dtype(shape.elem if shape else "", instruction="pto.run", operand=name)
        arr = self._input_array(name, fn, allow_nd=True)
        if None in shape.dims or arr.shape != tuple(shape.dims):
            raise self._err(fn, f"input {name!r} has shape {arr.shape}; %{name} is {ty.text()}", "pto.interp.input",
                            name, arr.shape)
        return Scalar(ty.text(), self._exact(arr, dt, name, fn).copy())

    def _memref_view(self, ptr: Ptr, ty: TypeRef, node) -> TensorView:
        shape = memref_shape(ty)
        if None in shape.dims:
            raise self._err(node, "a global memref argument needs a static shape", "pto.interp.type")
        strides = []
        acc = 1
        for d in reversed(shape.dims):
            strides.insert(0, acc)
            acc *= d
        self._grow(ptr, acc, node)
        if ptr.glob.shape is None:
            ptr.glob.shape = tuple(shape.dims)
        return TensorView(ptr, tuple(shape.dims), tuple(strides))

    def _input_array(self, name: str, node, *, allow_nd: bool = False) -> np.ndarray:
        v = self.inputs[name]
        try:
            arr = np.asarray(v)
        except Exception as e:  # noqa: BLE001 - a ragged list, an object numpy cannot read
            raise self._err(node, f"input {name!r} is not an array ({type(e).__name__})", "pto.interp.input",
                            name) from None
        if arr.dtype.kind not in "biuf" and arr.dtype != np.dtype(get_dtype("bf16").np):
            raise self._err(node, f"input {name!r} has numpy dtype {arr.dtype}; numbers are expected",
                            "pto.interp.input", name, str(arr.dtype))
        if not allow_nd and arr.ndim > 2:
            raise self._err(node, f"input {name!r} has shape {arr.shape}; a tile takes a 2-D array (rows, cols)",
                            "pto.interp.input", name, arr.shape)
        return arr

    def _fill_tile(self, t: Tile, spec, name: str, node) -> None:
        arr = self._input_array(name, node)
        arr2 = np.atleast_2d(arr)
        want = t.valid
        if spec.dynamic:
            if arr2.shape[0] > t.rows or arr2.shape[1] > t.cols:
                raise self._err(node, f"input {name!r} is {arr2.shape[0]}x{arr2.shape[1]}; the tile holds at most "
                                      f"{t.rows}x{t.cols}", "pto.interp.input", name, arr2.shape)
            want = (arr2.shape[0] if spec.valid[0] is None else want[0],
                    arr2.shape[1] if spec.valid[1] is None else want[1])
            t.set_valid(*want)
        if arr2.shape != tuple(want):
            raise self._err(node, f"input {name!r} is {arr2.shape[0]}x{arr2.shape[1]}; %{name} is declared "
                                  f"{t.describe()}, so its valid region needs a {want[0]}x{want[1]} array",
                            "pto.interp.input", name, arr2.shape)
        t.fill(self._exact(arr2, t.dtype, name, node))

    def _fill_conv(self, t, name: str, node) -> None:
        """A ConvTile from an input array of its shape (PTO187)."""
        arr = self._input_array(name, node, allow_nd=True)
        if arr.shape != t.shape:
            raise self._err(node, f"input {name!r} has shape {arr.shape}; %{name} is a {t.describe()} conv_tile",
                            "pto.interp.input", name, arr.shape)
        t.values[...] = self._exact(arr, t.dtype, name, node)

    @property
    def registers(self):
        """The running block's configuration registers (a :class:`~tilesim.pto.BlockConfig`)."""
        from ..conv import BlockConfig

        return self._registers.setdefault((self.block, self.subblock), BlockConfig())

    def _exact(self, arr: np.ndarray, dt, name: str, node) -> np.ndarray:
        """``arr`` as values of ``dt``: same dtype as is; another dtype only if every value converts exactly."""
        if arr.dtype == dt.np:
            return arr
        if arr.dtype.kind == "f" and dt.is_int:
            raise self._err(node, f"input {name!r} is {arr.dtype}; %{name} holds {dt} (numpy {dt.np}): pass integers",
                            "pto.interp.input", name, str(arr.dtype))
        try:
            lanes = to_bits(arr, dt, what="pto.run")
        except TilesimError as e:
            raise self._err(node, f"input {name!r} ({arr.dtype}) does not fit {dt}: {e.detail}", "pto.interp.input",
                            name, e.value) from None
        if dt.is_float:
            back = lanes.view(dt.np).astype(np.float64)
            src = arr.astype(np.float64)
            bad = ~((back == src) | (np.isnan(back) & np.isnan(src)))
            if bad.any():
                k = np.flatnonzero(bad.ravel())
                raise self._err(node, f"input {name!r} is {arr.dtype}; %{name} holds {dt} (numpy {dt.np}). Another "
                                      f"dtype is accepted only when every value converts exactly, and {k.size} do not "
                                      f"(first: {src.ravel()[k[0]]!r} at flat index {k[0]}); cast it first, e.g. "
                                      f"x.astype(np.{dt.np})", "pto.interp.input", name, str(arr.dtype))
        return lanes.view(dt.np)

    def _scalar_input(self, value, type_name: str, node, name: str) -> Scalar:
        try:
            arr = np.asarray(value)
        except Exception:  # noqa: BLE001
            arr = np.asarray(0.5)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise self._err(node, f"input {name!r} must be one number for a {type_name} argument, not "
                                  f"{getattr(value, 'shape', type(value).__name__)}", "pto.interp.input", name)
        if sc.int_width(type_name) is not None:
            v = arr.item()
            if isinstance(v, float) and not v.is_integer():
                raise self._err(node, f"input {name!r} = {v} is not an integer ({type_name})", "pto.interp.input",
                                name, v)
            try:
                return sc.constant(type_name, int(v))
            except TilesimError as e:
                raise self._err(node, f"input {name!r}: {e.detail}", "pto.interp.input", name, v) from None
        if sc.is_float_type(type_name):
            if type_name in DTYPES or type_name == "bf16":
                dt = get_dtype(type_name)
                lanes = self._exact(np.atleast_1d(arr), dt, name, node)
                return Scalar(type_name, lanes.ravel()[0])
            return Scalar(type_name, np.float64(arr.item()))
        raise self._err(node, f"argument %{name} has type {type_name}, which tilesim cannot take as an input",
                        "pto.interp.type", name)

    # ------------------------------------------------------------------- calls
    def _plan_of(self, body: list, args: list) -> Plan:
        key = id(body)
        if key not in self._plans:
            self._plans[key] = plan(body, args, self._callee_reads)
        return self._plans[key]

    def _callee_reads(self, name: str, k: int) -> bool:
        """Whether function ``name`` reads its ``k``-th argument (unknown, declared or recursive: yes)."""
        fn = self.program.func(name)
        if fn is None or fn.body is None or k >= len(fn.args) or id(fn.body) in self._planning:
            return True
        self._planning.add(id(fn.body))
        try:
            return self._plan_of(fn.body, [n for n, _ in fn.args]).is_read(fn.args[k][0])
        finally:
            self._planning.discard(id(fn.body))

    def _call(self, fn: Func, args: dict, node, depth: int) -> list:
        if depth > _MAX_DEPTH:
            raise self._err(node, f"calls nest deeper than {_MAX_DEPTH}", "pto.func.depth")
        pl = self._plan_of(fn.body, [n for n, _ in fn.args])
        kind = enum_word(str(fn.attrs.get("pto.kernel_kind", "vector")))
        frame = _Frame(fn, pl, depth, str(kind))
        env = ChainMap(dict(args))
        try:
            self._region(fn.body, env, frame)
        except _Return as r:
            vals = r.args[0]
        else:
            vals = []
        self._run_peers(frame.peers)
        if len(vals) != len(fn.results):
            raise self._err(node or fn, f"@{fn.name} returns {len(vals)} values; its type says {len(fn.results)}",
                            "pto.func.return")
        return vals

    def _call_stmt(self, st: Stmt, env, frame: _Frame) -> None:
        callee = self.program.func(st.extra["callee"])
        if callee is None:
            raise self._err(st, f"no function @{st.extra['callee']} in this module", "pto.func.callee")
        if callee.body is None:
            raise self._err(st, f"@{callee.name} is only declared (func.func private without a body)",
                            "pto.func.declared")
        vals = [self._get(env, o, st) for o in st.ins]
        if len(vals) != len(callee.args):
            raise self._err(st, f"@{callee.name} takes {len(callee.args)} arguments, got {len(vals)}",
                            "pto.func.args")
        args = {}
        for (name, ty), v in zip(callee.args, vals):
            self._check_arg_kind(st, callee, name, ty, v)
            args[name] = v
        if not callee.results and self._uses_pipes(callee):     # runs with its peers when the caller ends
            frame.peers.queue(lambda: self._call(callee, args, st, frame.depth + 1))
            return
        results = self._call(callee, args, st, frame.depth + 1)
        self._bind(env, st, results)

    def _uses_pipes(self, fn: Func) -> bool:
        return fn.body is not None and any(x.op in _PIPE_OPS for x in _walk(fn.body))

    def _run_peers(self, peers: Peers) -> None:
        outer, self._peers = self._peers, peers
        try:
            peers.run_all()
        finally:
            self._peers = outer

    def _check_arg_kind(self, st, callee, name, ty, v) -> None:
        want_tile = tile_spec(ty, self.prof) is not None or ty.name in ("!pto.tile_buf", "!pto.tile")
        want_ptr = ty.name == "!pto.ptr"
        ok = (isinstance(v, Tile) if want_tile else isinstance(v, Ptr) if want_ptr
              else isinstance(v, Scalar) if (sc.int_width(ty.name) or sc.is_float_type(ty.name)) else True)
        if not ok:
            raise self._err(st, f"argument %{name} of @{callee.name} is {ty.text()}, given {kind_of(v)}",
                            "pto.func.args", name)

    # ------------------------------------------------------------------ regions
    def _region(self, stmts: list, env, frame: _Frame, loose: bool = False):
        """Run statements; return the terminator's (kind, values) if one ends the region."""
        for st in stmts:
            sig = self._exec(st, env, frame, loose)
            if sig is not None:
                return sig
        return None

    def _exec(self, st: Stmt, env, frame: _Frame, loose: bool):
        try:
            handler = _KINDS.get(st.kind)
            sig = handler(self, st, env, frame) if handler is not None else self._op(st, env, frame, loose)
        except (ParseError, _Return):
            raise
        except _LOCATED as e:
            self._raise_located(st, e)
        for name in frame.plan.free_after.get(id(st), ()):
            t = frame.placed.pop(name, None)
            if t is not None:
                self.mem.release(t)
        if self.trace is not None:
            self.trace(st, [env.get(r) for r in st.results])
        if self.observe is not None:
            self.observe(st, env, self._wrote)
            self._wrote = ()
        return sig

    def _raise_located(self, st: Stmt, e: Exception):
        """Raise a statement's failure ``e`` (called while it is being handled): a TilesimError with the
        statement's place (``e`` itself where it has one), or a ParseError for a too deep program or an
        internal error."""
        if isinstance(e, TilesimError):
            if e.line is not None:
                raise
            raise e.at(source=self.program.source, line=st.line, column=st.column) from None
        if isinstance(e, RecursionError):
            raise self._err(st, "the program nests too deeply", "pto.interp.depth") from None
        raise self._err(st, f"internal error ({type(e).__name__}: {e}); please report it with this program",
                        "pto.interp.internal", cls=TilesimError) from None

    # --------------------------------------------------------------- values
    def _get(self, env, op, node, loose: bool = False, ty: TypeRef | None = None):
        if isinstance(op, tuple):  # ("value", name) / ("int", n) from index lists
            kind, v = op
            return v if kind == "int" else self._index(env, ("value", v), node)
        if op.kind == "literal":
            return op
        if op.kind == "indexed":
            base = self._get(env, Operand("value", name=op.name, line=op.line, column=op.column), node, loose)
            return base, tuple(self._get(env, i, node) for i in op.indices)
        for scope in getattr(env, "maps", (env,)):  # innermost first, as ChainMap looks, in one pass
            if op.name in scope:
                return scope[op.name]
        if loose and op.name in self.inputs:
            t = self._loose_input(op, ty, node)
            env.maps[-1][op.name] = t
            return t
        raise ParseError(f"%{op.name} is used before it is defined" + (
            f"; give it as an input: --input {op.name}=FILE.npy, or inputs={{'{op.name}': ...}}" if loose else ""), instruction=getattr(node, "op", "pto.run"),
            operand=op.name, rule="pto.interp.undefined", source=self.program.source, line=op.line or node.line,
            column=op.column or node.column)

    def _loose_input(self, op: Operand, ty: TypeRef | None, node) -> Tile:
        """A value used before it is defined, in statements outside functions: a tile from the inputs."""
        conv = conv_tile(ty, self.program.source)
        if conv is not None:
            self._fill_conv(conv, op.name, node)
            return conv
        spec = tile_spec(ty, self.prof) if ty is not None else None
        if spec is not None:
            t = spec.make(valid=tuple(v if v is not None else d for v, d in zip(spec.valid, (spec.rows, spec.cols))))
            self._fill_tile(t, spec, op.name, node)
            return t
        arr = self._input_array(op.name, node)
        if arr.ndim == 0:
            raise self._err(node, f"input {op.name!r} is a single number; a tile takes a 2-D array",
                            "pto.interp.input", op.name)
        names = {d.np: n for n, d in DTYPES.items()}
        if arr.dtype not in names:
            raise self._err(node, f"input {op.name!r} is {arr.dtype}; a tile made from an input takes the array's "
                                  "dtype, which must be a PTO one: " + ", ".join(f"{n} ({d.np})" for n, d in
                                                                                  DTYPES.items()),
                            "pto.interp.input", op.name, str(arr.dtype))
        return Tile.from_array(np.atleast_2d(arr))

    def _index(self, env, op, node) -> int:
        v = self._get(env, Operand("value", name=op[1]) if isinstance(op, tuple) else op, node)
        if not isinstance(v, Scalar) or not v.is_int or v.type == "i1":
            raise self._err(node, f"%{op[1] if isinstance(op, tuple) else op.name} must be an index or integer, "
                                  f"not {kind_of(v)}", "pto.interp.index", op[1] if isinstance(op, tuple) else None)
        return int(v.value)

    def _int(self, env, op, node) -> int:
        """An index list entry: ("int", n) or ("value", name)."""
        if op[0] == "int":
            return int(op[1])
        return self._index(env, op, node)

    def _bind(self, env, st: Stmt, values: list) -> None:
        if len(values) != len(st.results):
            raise self._err(st, f"{len(st.results)} results named, {len(values)} produced", "pto.interp.results")
        for r, v in zip(st.results, values):
            env[r] = v

    def _scalar_arg(self, v, ty: TypeRef | None, node):
        """An operand as an op function takes it: tiles as they are, scalars as numbers, literals typed."""
        if isinstance(v, Operand):
            tname = ty.name if ty is not None else ("f32" if isinstance(v.value, (Fraction, float)) else "i32")
            if isinstance(v.value, (Fraction, float)) and tname in DTYPES:
                dt = get_dtype(tname)
                if dt.is_float:
                    if isinstance(v.value, float):
                        return np.asarray(v.value, dt.np)[()]
                    return np.asarray(nx.round_fraction(v.value, dt.format), dt.lane).view(dt.np)[()]
            if isinstance(v.value, bool):
                return int(v.value)
            return v.value if not isinstance(v.value, Fraction) else float(v.value)
        if isinstance(v, Scalar):
            return v.number()
        return v

    # -------------------------------------------------------------- statements
    def _constant(self, st: Stmt, env, frame) -> None:
        lit = st.ins[0].value
        if st.extra.get("dense"):
            ty = st.out_types[0] if st.out_types else None
            env[st.results[0]] = Scalar(ty.text() if ty else "vector", self._dense(st, ty, lit))
            return
        if st.out_types:
            tname = st.out_types[0].name
        else:
            tname = "i1" if isinstance(lit, bool) else "index" if isinstance(lit, int) else "f32"
        try:
            env[st.results[0]] = sc.constant(tname, lit, hex_bits=bool(st.extra.get("hex")) and sc.is_float_type(tname))
        except TilesimError as e:
            raise self._err(st, e.detail, "pto.interp.constant", value=lit) from None

    def _tile_from(self, st: Stmt, ty: TypeRef, valid: tuple | None = None) -> Tile:
        spec = tile_spec(ty, self.prof)
        if spec is None:
            raise self._err(st, f"{st.op} needs a concrete tile type, not {ty.text()}", "pto.interp.type")
        return spec.make(valid=valid or tuple(v if v is not None else d
                                               for v, d in zip(spec.valid, (spec.rows, spec.cols))))

    def _alloc(self, st: Stmt, env, frame) -> None:
        if not st.out_types:
            raise self._err(st, "pto.alloc_tile needs a !pto.tile_buf type", "pto.interp.type")
        ty = st.out_types[0]
        spec = self._specs.get(id(ty), (None, None))[1]
        if spec is None:
            conv = conv_tile(ty, self.program.source)
            if conv is not None:                       # a ConvTile is not placed in the buffers (PTO187)
                if st.extra["kw"]:
                    raise self._err(st, "a conv_tile takes no addr or valid operands (tilesim does not place it in "
                                        "the mat buffer)", "pto.interp.valid_operand", next(iter(st.extra["kw"])))
                env[st.results[0]] = conv
                return
            spec = tile_spec(ty, self.prof)
            if spec is None:
                raise self._err(st, "pto.alloc_tile needs a concrete !pto.tile_buf type", "pto.interp.type")
            self._specs[id(ty)] = (ty, spec)      # ty kept, so that its id is not reused
        kw = st.extra["kw"]
        for i, key in enumerate(("valid_row", "valid_col")):
            if (spec.valid[i] is None) != (key in kw):
                raise self._err(st, f"{key} is given exactly when the type's {('v_row', 'v_col')[i]} is ?",
                                "pto.interp.valid_operand", key)
        valid = tuple(self._int(env, kw[key], st) if spec.valid[i] is None else spec.valid[i]
                      for i, key in enumerate(("valid_row", "valid_col")))
        t = spec.make(valid=valid)
        self._place(st, frame, t, self._int(env, kw["addr"], st) if "addr" in kw else None)
        env[st.results[0]] = t

    def _place(self, st: Stmt, frame: _Frame, t: Tile, addr: int | None) -> None:
        name = st.results[0] if st.results else None
        if addr is None and self.level == "level3":
            raise self._err(st, f"{st.op} needs addr = ... at level3 (tiles are placed by hand there)",
                            "pto.mem.level3_addr")
        old = frame.placed.get(name)
        if old is not None and not self._referenced(old):
            self.mem.release(old)
        self.mem.place(t, addr, name=name, op=st.op)
        if name:
            frame.placed[name] = t

    def _referenced(self, t: Tile) -> bool:
        return any(v is t for v in self._live_values)

    def _memref_alloc(self, st: Stmt, env, frame) -> None:
        ty = st.out_types[0]
        if ty.name != "memref":
            raise self._err(st, f"{st.op} makes a memref, not {ty.text()}", "pto.interp.type")
        loc = memref_location(ty)
        if loc is None:
            shape = memref_shape(ty)
            if None in shape.dims:
                raise self._err(st, "memref.alloc in global memory needs a static shape", "pto.interp.type")
            dt = get_dtype(shape.elem, instruction=st.op, operand="type")
            self._room(st, math.prod(shape.dims), f"memref.alloc {ty.text()}")
            g = Global(st.results[0], dt, np.zeros(math.prod(shape.dims), dt.lane), True)
            env[st.results[0]] = self._memref_view(Ptr(g), ty, st)
            return
        t = self._tile_from(st, ty)
        self._place(st, frame, t, None)
        env[st.results[0]] = t

    def _dense(self, st: Stmt, ty, lit) -> np.ndarray:
        """A ``dense<...>`` literal as an array of its ``vector<NxT>`` type: broadcast to N, each integer taken
        modulo 2**bits (MLIR keeps a literal that fits the width signed or unsigned), floats rounded once."""
        shape = next((q for _, q in (ty.params if ty is not None else []) if hasattr(q, "dims")), None)
        if shape is None or None in shape.dims or shape.elem not in DTYPES:
            return np.asarray(lit)
        dt = get_dtype(shape.elem)
        self._room(st, math.prod(shape.dims), f"dense<...> of {ty.text()}")
        a = np.asarray(lit)
        if a.shape not in ((), tuple(shape.dims)):
            raise self._err(st, f"dense<...> holds {a.size} values; the type {ty.text()} has "
                                f"{int(np.prod(shape.dims))}", "pto.interp.type")
        if dt.is_int:
            bits = 8 * dt.size
            vals = [int(v) for v in a.ravel()]
            if any(not -(1 << (bits - 1)) <= v < (1 << bits) for v in vals):
                raise self._err(st, f"dense<...> values must fit {bits} bits for {dt}", "pto.interp.type", vals)
            lanes = np.array([v % (1 << bits) for v in vals], dtype=dt.lane).reshape(a.shape)
        else:
            lanes = to_bits(a.astype(np.float64), dt, what="arith.constant")
        return np.broadcast_to(lanes, tuple(shape.dims)).copy().view(dt.np)

    def _make_view(self, st: Stmt, env, frame) -> None:
        ptr = self._get(env, st.ins[0], st)
        if not isinstance(ptr, Ptr):
            raise self._err(st, f"make_tensor_view needs a !pto.ptr, not {kind_of(ptr)}", "pto.interp.operand")
        shape = tuple(self._int(env, v, st) for v in st.extra["shape"])
        strides = tuple(self._int(env, v, st) for v in st.extra["strides"])
        if len(shape) != len(strides) or not shape:
            raise self._err(st, "shape and strides must have the same, non-zero length", "pto.interp.view")
        if any(s < 0 for s in shape) or any(s < 0 for s in strides):
            raise self._err(st, f"shape {shape} and strides {strides} must not be negative", "pto.interp.view")
        need = 1 + sum((s - 1) * d for s, d in zip(shape, strides)) if all(shape) else 0
        self._grow(ptr, need, st)
        if ptr.glob.shape is None and not ptr.glob.given:
            ptr.glob.shape = shape
        layout = enum_word(st.attrs.get("layout")) if "layout" in st.attrs else None
        env[st.results[0]] = TensorView(ptr, shape, strides, 0, layout)

    def _room(self, node, n: int, what: str) -> None:
        """Refuse a buffer the program makes with more than :data:`MAX_GLOBAL_ELEMENTS`, before allocating it."""
        if n > MAX_GLOBAL_ELEMENTS:
            raise self._err(node, f"{what} needs {n:,} elements; a buffer the program makes holds at most "
                                  f"{MAX_GLOBAL_ELEMENTS:,} (2**28)", "pto.mem.global_size", value=n)

    def _grow(self, ptr: Ptr, need: int, node) -> None:
        g = ptr.glob
        g.reach = max(g.reach, ptr.offset + need)
        if not g.given:
            self._room(node, ptr.offset + need, f"a view of %{g.name}")
            g.ensure(ptr.offset + need)
        elif ptr.offset + need > g.lanes.size:
            raise self._err(node, f"a view needs {ptr.offset + need} elements of %{g.name}; the input has "
                                  f"{g.lanes.size}", "pto.mem.window", g.name)

    def _part_view(self, st: Stmt, env, frame) -> None:
        tv = self._get(env, st.ins[0], st)
        if isinstance(tv, PartView):
            tv = TensorView(tv.view.ptr, tv.sizes, tv.view.strides, tv.view.offset + int(
                sum(o * s for o, s in zip(tv.offsets, tv.view.strides))), tv.view.layout)
        if not isinstance(tv, TensorView):
            raise self._err(st, f"{st.op} needs a tensor view, not {kind_of(tv)}", "pto.interp.operand")
        offs = tuple(self._int(env, v, st) for v in st.extra["offsets"])
        sizes = tuple(self._int(env, v, st) for v in st.extra["sizes"])
        env[st.results[0]] = self._window_view(st, tv, offs, sizes)

    def _window_view(self, st: Stmt, tv: TensorView, offs: tuple, sizes: tuple) -> PartView:
        """The partition view ``offs`` + ``sizes`` of ``tv``, checked (PTO26)."""
        if len(offs) != len(tv.shape) or len(sizes) != len(tv.shape):
            raise self._err(st, f"offsets and sizes need one entry per view dimension ({len(tv.shape)})",
                            "pto.interp.view")
        beyond = False
        for k, (o, s, n) in enumerate(zip(offs, sizes, tv.shape)):
            if o < 0 or s <= 0:
                raise self._err(st, f"window offsets {list(offs)} and sizes {list(sizes)} must be >= 0 and > 0",
                                "pto.mem.window")
            if o + s > n:
                msg = f"window offsets {list(offs)} + sizes {list(sizes)} leave the {'x'.join(map(str, tv.shape))} view"
                if self._static(st.extra["offsets"][k]) and self._static(st.extra["sizes"][k]) and \
                        self._static_dim(st, k):
                    raise self._err(st, msg, "pto.mem.window")
                # decision PTO26: a run-time offset or view dim is address arithmetic; the buffer bound is
                # checked on access
                self.issues.append(f"line {st.line}: {msg} (allowed: a run-time offset or view shape)")
                beyond = True
        return PartView(tv, offs, sizes, beyond)

    @staticmethod
    def _static_dim(st: Stmt, k: int) -> bool:
        """Whether dim ``k`` of a partition_view's source type is static (``?`` is not; no type: static)."""
        ty = st.in_types[0] if st.in_types else None
        shape = next((p for _, p in (ty.params if ty is not None else []) if hasattr(p, "dims")), None)
        return shape is None or len(shape.dims) <= k or shape.dims[k] is not None

    def _static(self, op) -> bool:
        """Whether an index operand is a literal or an ``arith.constant`` (known before the kernel runs)."""
        if isinstance(op, tuple):
            return op[0] == "int" or op[1] in self._constants
        return op.kind == "literal" or op.name in self._constants

    def _reinterpret(self, st: Stmt, env, frame) -> None:
        src = self._get(env, st.ins[0], st)
        base = src.view if isinstance(src, PartView) else src
        if not isinstance(base, TensorView):
            raise self._err(st, f"{st.op} needs a global memref, not {kind_of(src)}", "pto.interp.operand")
        off = [self._int(env, v, st) for v in st.extra["offset"]]
        sizes = tuple(self._int(env, v, st) for v in st.extra["sizes"])
        strides = tuple(self._int(env, v, st) for v in st.extra["strides"])
        if len(off) != 1 or len(sizes) != len(strides):
            raise self._err(st, "offset is one value; sizes and strides have one entry per dimension",
                            "pto.interp.view")
        need = 1 + sum((s - 1) * d for s, d in zip(sizes, strides))
        self._grow(Ptr(base.ptr.glob, base.ptr.offset + off[0]), need, st)
        env[st.results[0]] = TensorView(Ptr(base.ptr.glob, base.ptr.offset + off[0]), sizes, strides)

    def _subset(self, st: Stmt, env, frame) -> None:
        src, idx = self._get(env, st.ins[0], st)
        if not isinstance(src, Tile):
            raise self._err(st, f"pto.subset takes a tile, not {kind_of(src)}", "pto.interp.operand")
        rows, cols = (self._int(env, v, st) for v in st.extra["sizes"])
        if len(idx) != 2:
            raise self._err(st, "pto.subset takes [row, col]", "pto.interp.operand")
        env[st.results[0]] = src.subtile(int(idx[0]), int(idx[1]), rows, cols)

    def _tassign(self, st: Stmt, env, frame) -> None:
        t = self._get(env, st.ins[0], st)
        if not isinstance(t, Tile):
            raise self._err(st, f"tassign needs a tile, not {kind_of(t)}", "pto.interp.operand")
        addr = self._int(env, st.extra["addr"], st)
        name = st.ins[0].name
        self.mem.place(t, addr, name=name, op="TASSIGN")
        frame.placed[st.results[0] if st.results else name] = t
        if st.results:
            env[st.results[0]] = t

    def _scale_addr(self, st: Stmt, env, frame) -> None:
        """TGET_SCALE_ADDR (A5): :func:`tilesim.pto.pipe.tget_scale_addr` in this core's memory."""
        if len(st.ins) != 1 or len(st.outs) != 1:
            raise self._err(st, "tget_scale_addr takes ins(src) outs(dst)", "pto.interp.operands")
        src, dst = self._get(env, st.ins[0], st), self._get(env, st.outs[0], st)
        pto_pipe.tget_scale_addr(dst, src, memory=self.mem, name=st.outs[0].name)
        frame.placed[st.outs[0].name] = dst

    def _set_valid(self, st: Stmt, env, frame) -> None:
        t = self._get(env, st.ins[0], st)
        if not isinstance(t, Tile):
            raise self._err(st, f"set_validshape needs a tile, not {kind_of(t)}", "pto.interp.operand")
        r, c = (self._int(env, v, st) for v in st.extra["valid"])
        t.set_valid(r, c)
        if st.results:
            env[st.results[0]] = t

    # ------------------------------------------------------------ control flow
    def _cond(self, env, op, st) -> bool:
        v = self._get(env, op, st)
        if not isinstance(v, Scalar) or v.type != "i1":
            raise self._err(st, f"the condition must be an i1 value, not {kind_of(v)}", "pto.scf.condition")
        return bool(v.value)

    def _for(self, st: Stmt, env, frame) -> None:
        lb, ub, step = (self._int(env, b, st) for b in st.extra["bounds"])
        if step <= 0:
            raise self._err(st, f"the step must be positive, not {step}", "pto.scf.step", value=step)
        iters = st.extra["iter_args"]
        carried = [self._get(env, o, st) for _, o in iters]
        var = st.extra["var"]
        ivt = "index"
        self.iters.append(0)
        calls = scope = None
        last = len(range(lb, ub, step)) - 1
        for k, i in enumerate(range(lb, ub, step)):
            self.iters[-1] = k
            if calls:
                if scope is not None:               # a new scope holding only the induction variable
                    scope.clear()
                    scope[var] = Scalar(ivt, i)
                self._run_calls(calls)
                continue
            inner = env.new_child({var: Scalar(ivt, i), **{n: v for (n, _), v in zip(iters, carried)}})
            sig = self._region(st.body, inner, frame)
            carried = self._yielded(st, sig, len(iters))
            if calls is None and k < last:         # bound for the iterations left, if any
                calls, scoped = (not iters and self._bound_body(st.body, inner, frame, var)) or ([], False)
                scope = inner.maps[0] if scoped else None
        self.iters.pop()
        self._bind(env, st, carried)

    def _bound_body(self, body: list, env, frame: _Frame, var: str) -> tuple | None:
        """``([(statement, call)], whether a call reads the iteration's scope)`` for a loop body that has run once
        in ``env``, when each statement can be bound (:func:`.bound.bind`) and nothing watches per statement;
        else None (PTO166, PTO116)."""
        if self.trace is not None or self.observe is not None:
            return None
        return bind(self, body, env, frame, var)

    def _run_calls(self, calls: list) -> None:
        """One iteration of a bound loop body, failing as :meth:`_exec` does."""
        for st, call in calls:
            try:
                call()
            except (ParseError, _Return):
                raise
            except _LOCATED as e:
                self._raise_located(st, e)

    def _yielded(self, st: Stmt, sig, n: int) -> list:
        vals = sig[1] if sig is not None and sig[0] == "yield" else []
        if len(vals) != n:
            raise self._err(st, f"the region yields {len(vals)} values; {st.op} carries {n}", "pto.scf.yield")
        return vals

    def _if(self, st: Stmt, env, frame) -> None:
        c = self._cond(env, st.ins[0], st)
        n = len(st.results)
        if not c and len(st.regions) < 2:
            if n:
                raise self._err(st, "an scf.if with results needs an else region", "pto.scf.else")
            return
        sig = self._region(st.regions[0 if c else 1], env.new_child(), frame)
        self._bind(env, st, self._yielded(st, sig, n) if n or (sig and sig[1]) else [])

    def _while(self, st: Stmt, env, frame) -> None:
        before, after = st.regions
        names = [n for n, _ in st.extra["inits"]]
        vals = [self._get(env, o, st) for _, o in st.extra["inits"]]
        self.iters.append(0)
        try:
            self._while_loop(st, env, frame, before, after, names, vals)
        finally:
            self.iters.pop()

    def _while_loop(self, st: Stmt, env, frame, before, after, names, vals) -> None:
        """The iterations of ``scf.while``; iteration k numbers both regions' statements k (PTO100)."""
        for k in range(_MAX_WHILE):
            self.iters[-1] = k
            sig = self._region(before, env.new_child(dict(zip(names, vals))), frame)
            if sig is None or sig[0] != "condition":
                raise self._err(st, "the before-region of scf.while must end with scf.condition", "pto.scf.condition")
            go, vals = sig[1], sig[2]
            if not go:
                self._bind(env, st, vals)
                return
            labels = after[0].extra["args"] if after and after[0].kind == "label" else []
            if len(labels) != len(vals):
                raise self._err(st, f"the after-region takes {len(labels)} values; scf.condition passes {len(vals)}",
                                "pto.scf.while")
            sig = self._region(after, env.new_child({n: v for (n, _), v in zip(labels, vals)}), frame)
            vals = self._yielded(st, sig, len(names))
        raise self._err(st, f"scf.while ran {_MAX_WHILE} iterations without stopping", "pto.scf.while_limit",
                        cls=StateError)

    def _condition(self, st: Stmt, env, frame):
        return ("condition", self._cond(env, st.ins[0], st), [self._get(env, o, st) for o in st.ins[1:]])

    def _yield(self, st: Stmt, env, frame):
        return ("yield", [self._get(env, o, st) for o in st.ins])

    def _return(self, st: Stmt, env, frame):
        vals = [self._get(env, o, st) for o in st.ins]
        if frame.func is None:
            return ("return", vals)
        raise _Return(vals)

    def _label(self, st: Stmt, env, frame) -> None:
        return None

    def _section(self, st: Stmt, env, frame) -> None:
        sig = self._region(st.body or [], env.new_child(), frame)
        if sig is not None and sig[0] == "return":
            raise _Return(sig[1])

    # ------------------------------------------------------------------- ops
    def _tile_op(self, st: Stmt) -> tuple | None:
        """``(key, fn)`` when :meth:`_op` runs ``st`` as a tile op of :data:`~tilesim.pto.OPS` (or a SET_*
        register op) through :meth:`_dps`; None for arith, special, sync and section statements."""
        name = st.op
        if name.startswith(("arith.", "pto.section")) or name in _SPECIAL or name in SYNC_OPS or \
                collective(st) is not None:
            return None
        return self._op_fn(st)

    @staticmethod
    def _op_fn(st: Stmt) -> tuple | None:
        """``(key, fn)`` of the tile op (or SET_* register op) that ``st`` names, or None."""
        if not (st.op.startswith("pto.") or st.kind == "generic"):
            return None
        key = op_key(st.op)
        key = PAGE_SPELLINGS.get(key, key)
        fn = OPS.get(key) or CONFIG_OPS.get(key)
        return None if fn is None else (key, fn)

    def _op(self, st: Stmt, env, frame: _Frame, loose: bool):
        step = self._steps.get(id(st))
        if step is not None:
            outs = step.run(env, self.prof, self.undefined)
            if outs is not None:
                if self.observe is not None:
                    self._wrote = (outs, [])
                return None
        name = st.op
        if name.startswith("arith."):
            return self._arith(st, env)
        special = _SPECIAL.get(name) or collective(st)
        if special is not None:
            return special(self, st, env, frame)
        if name.startswith("pto.section"):
            return self._section(st, env, frame)
        if name in SYNC_OPS:
            return self._sync(st, env)
        op = self._op_fn(st)
        if op is None:
            raise self._err(st, f"unsupported operation {name!r}", "pto.interp.op", name)
        return self._dps(*op, st, env, loose)

    def _operands(self, st: Stmt, env, loose: bool) -> tuple[list, list, list, list]:
        """(outs, ins, results-to-bind, names of the destination operands) of a tile op in any form."""
        types = list(st.in_types)
        if st.kind == "generic" and len(types) == 1 and len(st.ins) > 1:
            types = types * len(st.ins)                           # assembly: one type for every operand
        at = {"dps": None, "quoted": len(st.ins) - 1}.get(st.kind, None if st.results or op_key(st.op) in (
            "tstore", "tprint") else 0)                            # an explicit destination written first
        if st.kind == "dps":
            for o, ty in zip(st.outs, st.out_types):
                self._new_destination(env, o, loose, ty)
        elif at is not None and st.ins:
            self._new_destination(env, st.ins[at], loose, types[at] if at < len(types) else None)
        ins = [self._get(env, o, st, loose, types[i] if i < len(types) else None) for i, o in enumerate(st.ins)]
        if st.kind == "dps":
            outs = [self._get(env, o, st, loose) for o in st.outs]
            return outs, ins, [], [getattr(o, "name", None) for o in st.outs]
        if st.kind == "quoted":
            tiles = [i for i, v in enumerate(ins) if isinstance(v, (Tile, PartView, TensorView))]
            if not tiles:
                raise self._err(st, f"{st.op} has no tile operand", "pto.interp.operand")
            k = tiles[-1]
            return [ins[k]], ins[:k] + ins[k + 1:], [], [getattr(st.ins[k], "name", None)]
        if st.results:
            return None, ins, st.results, []
        if op_key(st.op) == "tstore":
            return ins[1:], ins[:1], [], []
        return ins[:1], ins[1:], [], [getattr(st.ins[0], "name", None)] if at is not None and st.ins else []

    def _new_destination(self, env, op, loose: bool, ty: TypeRef | None) -> None:
        """Outside functions, a destination not yet defined (``tadd %dst, %a, %b : T``) is a new tile of its type."""
        if not loose or not isinstance(op, Operand) or op.kind != "value" or op.name in env or op.name in self.inputs:
            return
        spec = tile_spec(ty, self.prof) if ty is not None else None
        if spec is not None:
            env[op.name] = spec.make(valid=tuple(v if v is not None else d
                                                 for v, d in zip(spec.valid, (spec.rows, spec.cols))))

    def _dps(self, key: str, fn, st: Stmt, env, loose: bool) -> None:
        outs, ins, results, named = self._operands(st, env, loose)
        self._dps_run(key, fn, st, env, outs, ins, results, named, loose)

    def _dps_run(self, key: str, fn, st: Stmt, env, outs: list | None, ins: list, results: list, named: list,
                 loose: bool) -> None:
        """A tile op on its operands' values (:meth:`_operands`): windows, scalars, the call, the write-back."""
        types = list(st.in_types)
        if outs is None:
            outs = self._new_results(key, st, ins)
        if key == "tstore" and st.kind == "generic" and len(ins) == 1 and isinstance(ins[0], Tile) \
                and len(types) >= 1:
            types = types[:1]
        args_in = [self._scalar_arg(v, types[i] if i < len(types) and st.kind != "generic" or (
            st.kind == "generic" and i < len(types)) else None, st) for i, v in enumerate(ins)]
        for v in [*ins, *outs]:
            if isinstance(v, Ptr):
                name = v.glob.name
                raise self._err(st, f"%{name} is a !pto.ptr; {st.op} takes global memory through a view: "
                                    f"%v = pto.make_tensor_view %{name}, shape = [...], strides = [...], then "
                                    "%p = pto.partition_view %v, offsets = [...], sizes = [...], and pass %p",
                                "pto.interp.ptr", name)
        tiles = [v for v in outs + args_in if isinstance(v, Tile)]
        for t in tiles:
            t.pull()
        windows = []
        # a vector<...> out (TMRGSORT's executed counts) is its array, written in place
        outs = [v.value if isinstance(v, Scalar) and isinstance(v.value, np.ndarray) else v for v in outs]
        outs = [self._window_of(st, key, v, tiles, "dst", windows, write=True) for v in outs]
        args_in = [self._window_of(st, key, v, tiles, "src", windows, write=False) for v in args_in]
        prof = self.prof
        if key in _WINDOW_OPS and prof.window_paths is not None and any(
                t.name == "memref" for t in list(st.in_types) + list(st.out_types)):
            # PTOAS verifies TEXTRACT/TINSERT per target only on tile_buf operands, not on memrefs (PTO43)
            prof = prof.with_(name=prof.name, window_paths=None, quant_paths=None)
        marks = [(t, t.undefined) for t in outs if isinstance(t, Tile)]
        attrs = with_registers(st.op, dict(st.attrs), self.registers) if key in REGISTER_OPS else dict(st.attrs)
        call_op(key, fn, outs, args_in, attrs, prof)
        if id(st) not in self._steps and not windows and prof is self.prof and not loose and key not in REGISTER_OPS:
            self._steps[id(st)] = prepare(st, key, fn, outs, args_in)
        for t, before in marks:
            t.push()
            if t.undefined is not before and t.undefined is not None and t.undefined.any():
                self.undefined.append((st.line, st.op, int(np.count_nonzero(t.undefined))))
        if self.observe is not None:
            self._wrote = (outs, windows)
        for arr, pv, extra, write in windows:
            if write:
                g = pv.view.ptr.glob
                g.lanes[pv.flat_index(extra)] = arr.view(g.dtype.lane)
                g.written = True
        if results:
            self._bind(env, st, outs)
        if loose:                                                 # statements outside functions return their tiles
            for r, t in zip(results or named, outs):
                if r is not None and isinstance(t, Tile):
                    self.results[r] = t

    def _window_of(self, st: Stmt, key: str, v, tiles: list, operand: str, windows: list, write: bool):
        """A view operand as the 2-D numpy array an op reads or writes (written back after the op)."""
        if isinstance(v, TensorView):
            v = v.window()
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], TensorView):
            v = (v[0].window(), v[1])
        if not (isinstance(v, PartView) or (isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], PartView))):
            return v
        pv, extra = v if isinstance(v, tuple) else (v, (0, 0))
        if len(extra) != 2 or not pv.beyond and any(o + e + n > d for o, e, n, d in zip(
                pv.offsets[-2:], extra, pv.sizes[-2:], pv.view.shape[-2:])):
            raise self._err(st, f"offset {list(extra)} moves the window out of the "
                                f"{'x'.join(map(str, pv.view.shape))} view", "pto.mem.window", operand)
        idx = pv.flat_index(extra)
        rule = _WINDOW_RULE.get(key)
        if rule and len(tiles) == 1 and idx.shape != tiles[0].valid:
            t = tiles[0]
            raise self._err(st, f"the {idx.shape[0]}x{idx.shape[1]} window ({idx.size} elements) does not match "
                                f"the tile's valid {t.valid_rows}x{t.valid_cols}", rule, operand)
        g = pv.view.ptr.glob
        if idx.size and (int(idx.max()) >= g.lanes.size or int(idx.min()) < 0):
            raise self._err(st, f"the window reaches element {int(idx.max())} of %{g.name} ({g.lanes.size} "
                                "elements)", "pto.mem.window", operand)
        if idx.size:
            g.reach = max(g.reach, int(idx.max()) + 1)
        if not write and not g.given and not g.written:
            raise self._err(st, f"%{g.name} is read before anything was written to it, and it is not an input; "
                                f"pass it with --input {g.name}=...", "pto.interp.input", g.name)
        arr = g.lanes[idx].view(g.dtype.np).copy()
        windows.append((arr, pv, extra, write))
        return arr

    def _new_results(self, key: str, st: Stmt, ins: list) -> list:
        outs = []
        for i, ty in enumerate(st.out_types or [None] * len(st.results)):
            spec = tile_spec(ty, self.prof) if ty is not None else None
            if spec is not None:
                outs.append(spec.make(valid=tuple(v if v is not None else d
                                                  for v, d in zip(spec.valid, (spec.rows, spec.cols)))))
            else:
                outs.append(self._infer(key, st, ins, i, len(st.results)))
        if len(outs) != len(st.results):
            raise self._err(st, f"{len(st.results)} results named, {len(outs)} result types", "pto.interp.results")
        return outs

    def _infer(self, name: str, st: Stmt, ins: list, i: int, n: int) -> Tile:
        """The result tile of an op whose result type is a placeholder (``!pto.tile<...>``; decision PTO15)."""
        tiles = [t for t in ins if isinstance(t, Tile)]
        if name == "tload":
            pv = ins[0][0] if isinstance(ins[0], tuple) else ins[0]
            if isinstance(pv, TensorView):
                pv = pv.window()
            if isinstance(pv, PartView):
                r, c = pv.rows_cols
                return _nd(pv.view.ptr.dtype.name, r, c)
        if not tiles or name in ("tcvt",):
            raise self._err(st, f"cannot infer the result tile of {name}; write its type", "pto.interp.infer", name)
        src = max(tiles, key=lambda t: t.valid_rows * t.valid_cols)
        R, C = src.valid
        dt = src.dtype
        if name in _ROW_REDUCE:
            return _nd(dt.name, R, 1)
        if name in _COL_REDUCE:
            return _nd(dt.name, 1, C)
        if name in _ARG_OPS:
            shape = (R, 1) if name.startswith("trow") else (1, C)
            if i != n - 1:
                return _nd(dt.name, *shape)
            key = ("tcolarg" if name.startswith("tcol") else "trowarg") + ("_val" if n == 2 else "")
            ok = [t for t in ("i32", "u32", "i16", "u16") if (dt.name, t) in self.prof.dtypes[key]]
            return _nd(ok[0] if ok else "i32", *shape)
        if name in ("tcmp", "tcmps"):
            mask = "u8" if self.prof.cmp_i32_eq_only else "u32"
            return _nd(mask, R, -(-C // (8 * get_dtype(mask).size)))
        if name == "tmatmul":
            a, b = tiles[0], tiles[1] if len(tiles) > 1 else tiles[0]
            return Tile("acc", "i32" if a.dtype.name == "i8" else "f32", a.rows, b.cols, (a.valid_rows, b.valid_cols),
                        "col_major", "row_major", 1024)
        return _nd(dt.name, R, C)

    # ---------------------------------------------------------------- arith
    def _arith(self, st: Stmt, env) -> None:
        fixed = self._arith_forms.get(id(st))
        if fixed is None:
            fixed = self._arith_forms[id(st)] = self._arith_form(st)
        kind, pred, to, tname = fixed
        vals = []
        for o in st.ins:
            v = self._get(env, o, st)
            if isinstance(v, Operand):
                v = sc.constant(tname, v.value)
            vals.append(v)
        r = sc.run_arith(kind, vals, pred=pred, to=to)
        self._bind(env, st, [r])

    def _arith_form(self, st: Stmt) -> tuple:
        """What an arith statement's text fixes: (op kind, predicate, result type, literal operands' type)."""
        kind = st.op.split(".", 1)[1]
        syn = st.extra.get("syn")
        pred = None
        if kind in ("cmpi", "cmpf"):
            words = [enum_word(w.text if hasattr(w, "text") else str(w)) for w in (syn.words if syn else [])]
            if len(words) != 1:
                raise self._err(st, f"arith.{kind} needs one predicate (eq, slt, ...)", "pto.arith.predicate")
            pred = words[0]
        return (kind, pred, st.out_types[0].name if st.out_types else None,
                st.in_types[0].name if st.in_types else "index")

    # ----------------------------------------------------------------- sync
    def _sync(self, st: Stmt, env) -> None:
        syn = st.extra.get("syn")
        args: list = []
        for w in syn.words if syn else []:
            parts = w.items if getattr(w, "open", None) == "[" else [w]
            for p in parts:
                if getattr(p, "type", None) == "COMMA":
                    continue
                args.append(self._sync_word(p, env, st))
        args += [self._sync_value(o, env, st) for o in st.ins]
        self.sync.run(st.op, args, st.line)

    def _sync_word(self, p, env, st):
        from .forms import render

        if getattr(p, "type", None) == "VALUE":
            return self._get(env, Operand("value", name=p.text[1:], line=p.line, column=p.column), st)
        if getattr(p, "type", None) in ("INT", "HEX"):
            return int(p.text, 0)
        text = render(p)
        if text.startswith("<") and text.endswith(">"):
            text = text[1:-1].strip()
        return enum_word(text)

    def _sync_value(self, o, env, st):
        v = self._get(env, o, st)
        return v.value if isinstance(v, Operand) else v

    # ----------------------------------------------------- misc pto ops (table _SPECIAL)
    def _block_idx(self, st, env, frame) -> None:
        vals = {"pto.get_block_idx": self.block, "pto.get_block_num": self.blocks,
                "pto.get_subblock_idx": self.subblock, "pto.get_subblock_num": 2 if self.pipes.two_subblocks else 1}
        ty = st.out_types[0].name if st.out_types else "i64"          # PTOAS PTOOps.td: I64 results
        self._bind(env, st, [sc.make_int(ty if sc.int_width(ty) else "i64", vals[st.op])])

    def _view_result(self, st, env, frame) -> None:
        """treshape / bitcast: a new tile type over the same bytes (treshape: :func:`~tilesim.pto.treshape`)."""
        src = self._get(env, st.ins[0], st)
        if not isinstance(src, Tile):
            raise self._err(st, f"{st.op} takes a tile, not {kind_of(src)}", "pto.interp.operand")
        if not st.out_types:
            raise self._err(st, f"{st.op} needs its result type", "pto.interp.type")
        if st.op == "pto.treshape":   # the op's checks (PTO129); DPS: outs(%dst) becomes the view
            t = self._get(env, st.outs[0], st) if st.kind == "dps" else self._tile_from(st, st.out_types[0])
            if not isinstance(t, Tile):
                raise self._err(st, f"{st.op} writes a tile, not {kind_of(t)}", "pto.interp.operand")
            OPS["treshape"](t, src, target=self.prof)
            if st.kind != "dps":
                self._bind(env, st, [t])
            return
        t = self._tile_from(st, st.out_types[0])
        if t.span != src.span:
            raise self._err(st, f"{st.op} must keep the byte size: {src.describe()} is {src.span} bytes, "
                                f"{t.describe()} {t.span}", "pto.op.reshape_size")
        if st.op == "pto.bitcast" and t.dtype == src.dtype:
            raise self._err(st, "pto.bitcast must change the element type", "pto.op.bitcast_dtype")
        src.push()
        t.bind(src._mem, src._off)
        t.addr = src.addr
        self._bind(env, st, [t])

    def _bind_tile(self, st, env, frame) -> None:
        """``pto.bind_tile %m, %vr, %vc {config}``: the memref's bytes as a tile of the config's layout, fractal
        and pad, valid (vr, vc) (PTO158)."""
        src = self._get(env, st.ins[0], st) if st.ins else None
        if not isinstance(src, Tile) or not st.out_types:
            raise self._err(st, "pto.bind_tile takes a local memref and names its result type", "pto.interp.operand")
        cfg = dict(re.findall(r"(\w+)\s*=\s*(-?\d+)", str(st.attrs.get("config", ""))))
        blayout = {"0": "row_major", "1": "col_major"}.get(cfg.get("blayout", "0"))
        slayout = {"0": "none_box", "1": "row_major", "2": "col_major"}.get(cfg.get("slayout", "0"))
        pad = {"0": "null", "1": "zero", "2": "max", "3": "min"}.get(cfg.get("pad", "0"))
        if None in (blayout, slayout, pad):
            raise self._err(st, "config needs blayout 0/1, slayout 0/1/2 and pad 0..3", "pto.interp.attr",
                            "config", st.attrs.get("config"))
        spec = tile_spec(st.out_types[0], self.prof)
        if spec is None:
            raise self._err(st, f"{st.op} needs a local memref result type", "pto.interp.type")
        valid = (spec.rows, spec.cols)
        if len(st.ins) >= 3:
            vr, vc = (self._index(env, o, st) for o in st.ins[1:3])
            dims = memref_shape(st.out_types[0]).dims
            if len(dims) > 2 and (vr, vc) != tuple(dims[:2]):
                # PTOAS's tile is dims 0 x 1; tilesim's folds every leading dim into rows: only "all" maps
                raise self._err(st, f"valid {vr}x{vc} of a rank-{len(dims)} memref: PTOAS's tile is dims 0 x 1 "
                                    f"({dims[0]}x{dims[1]}), tilesim's {spec.rows}x{spec.cols}; only the whole "
                                    "memref maps between them", "pto.bind_tile.valid", "valid", (vr, vc))
            if len(dims) <= 2:
                valid = (vr, vc)
        t = Tile(spec.loc, spec.dtype, spec.rows, spec.cols, valid, blayout, slayout,
                 int(cfg.get("s_fractal_size", spec.fractal)), pad)
        if t.span != src.span:
            raise self._err(st, f"{st.op} must keep the byte size: {src.describe()} is {src.span} bytes, "
                                f"{t.describe()} {t.span}", "pto.op.reshape_size")
        src.push()
        t.bind(src._mem, src._off)
        t.addr = src.addr
        self._bind(env, st, [t])

    def _declare_tile(self, st, env, frame) -> None:
        self._bind(env, st, [self._tile_from(st, st.out_types[0])] if st.out_types else [])

    def _tprint(self, st, env, frame) -> None:
        outs, ins, _, _ = self._operands(st, env, False)
        tiles = [v for v in (outs or []) + ins if isinstance(v, Tile)]
        if len(tiles) != 1:
            raise self._err(st, "pto.tprint prints one tile", "pto.interp.operands")
        t = tiles[0]
        t.pull()
        with np.printoptions(threshold=1 << 20, linewidth=160):
            body = np.array2string(np.asarray(t.valid_values.astype(np.float64) if t.dtype.name == "bf16"
                                              else t.valid_values))
        self.stdout.write(f"tprint {t.describe()}:\n{body}\n")

    def _eventid_array(self, st, env, frame) -> None:
        ty = st.out_types[0] if st.out_types else None
        n = ty.params[0][1] if ty is not None and ty.params and isinstance(ty.params[0][1], int) else None
        if n is None or n <= 0:
            raise self._err(st, "declare_eventid_array needs -> !pto.eventid_array<N>", "pto.interp.type")
        self._bind(env, st, [Opaque("eventid_array", {"ids": [0] * n})])

    def _eventid_access(self, st, env, frame) -> None:
        arr, idx = self._get(env, st.ins[0], st) if st.ins and st.ins[0].kind == "indexed" else (None, ())
        if not isinstance(arr, Opaque) or arr.kind != "eventid_array" or len(idx) != 1:
            raise self._err(st, f"{st.op} takes %array[%index]", "pto.interp.operand")
        ids = arr.fields["ids"]
        k = int(idx[0])
        if not 0 <= k < len(ids):
            raise self._err(st, f"index {k} is outside the {len(ids)}-entry event-id array", "pto.sync.event_index")
        if st.op.endswith("_get"):
            self._bind(env, st, [sc.make_int("index", ids[k])])
            return
        v = self._get(env, st.ins[1], st) if len(st.ins) > 1 else None
        if not isinstance(v, Scalar) or not v.is_int or not 0 <= v.value < 8:
            raise self._err(st, "the event id must be an integer 0..7", "pto.sync.event")
        ids[k] = v.value

    def _addptr(self, st, env, frame) -> None:
        p = self._get(env, st.ins[0], st)
        off = self._get(env, st.ins[1], st) if len(st.ins) > 1 else None
        if not isinstance(p, Ptr) or not isinstance(off, Scalar) or not off.is_int:
            raise self._err(st, "pto.addptr takes a pointer and an integer offset", "pto.interp.operand")
        self._bind(env, st, [Ptr(p.glob, p.offset + int(off.value))])

    def _pointer_cast(self, st, env, frame) -> None:
        addr = self._get(env, st.ins[0], st) if st.ins else None
        if not isinstance(addr, Scalar) or not addr.is_int:
            raise self._err(st, "pto.pointer_cast takes an integer address", "pto.interp.operand")
        t = self._tile_from(st, st.out_types[0] if st.out_types else TypeRef("?"))
        self._place(st, frame, t, int(addr.value))
        self._bind(env, st, [t])

    def _reserve(self, st, env, frame) -> None:
        name = st.attrs.get("name")
        if not isinstance(name, str):
            raise self._err(st, f"{st.op} needs name = \"...\"", "pto.pipe.reserve")
        if st.op == "pto.reserve_buffer":
            size = st.attrs.get("size")
            loc = enum_word(str(st.attrs.get("location", "<vec>")).strip("<>"))
            if not isinstance(size, int) or size <= 0:
                raise self._err(st, "reserve_buffer needs a positive size", "pto.pipe.reserve")
            t = Tile(_LOC.get(loc, "vec"), "u8", 1, size)
            self.mem.place(t, st.attrs.get("base") if st.attrs.get("auto", True) is False else None, name=name,
                           op=st.op)
            self.pipes.reserved[name] = t.addr
        addr = self.pipes.reserved.get(name, 0)
        self._bind(env, st, [sc.make_int("i32", addr)])

    def _init_pipe(self, st, env, frame) -> None:
        mask = st.attrs.get("dir_mask")
        if mask not in (1, 2, 3):
            raise self._err(st, "dir_mask must be 1 (cube to vector), 2 (vector to cube) or 3 (both)",
                            "pto.pipe.dir_mask", value=mask)
        h = Opaque("pipe", {"dir_mask": mask, **st.attrs})
        if st.results:
            self._bind(env, st, [h])
        else:
            frame.pipe = h

    def _pipe_dir(self, st, frame, pushing: bool, pipe: Opaque | None = None) -> str:
        if st.op.endswith(("_to_aiv", "_from_aic")):
            return "c2v"
        if st.op.endswith(("_to_aic", "_from_aiv")):
            return "v2c"
        mask = pipe.fields.get("dir_mask", 1) if pipe is not None else 1
        if mask in (1, 2):
            return "c2v" if mask == 1 else "v2c"
        cube = frame.kind == "cube"
        return ("c2v" if cube else "v2c") if pushing else ("v2c" if cube else "c2v")

    def _split(self, st) -> int:
        s = st.attrs.get("split", 0)
        return int(s) if isinstance(s, int) and not isinstance(s, bool) else -1

    def _tpush(self, st, env, frame) -> None:
        vals = [self._get(env, o, st) for o in st.ins]
        tile = next((v for v in vals if isinstance(v, Tile)), None)
        pipe = next((v for v in vals if isinstance(v, Opaque) and v.kind == "pipe"), None)
        if tile is None:
            raise self._err(st, f"{st.op} pushes a tile", "pto.interp.operand")
        tile.pull()
        self.pipes.push(self._pipe_dir(st, frame, True, pipe), tile, self._split(st), st.op, self.subblock)

    def _tpop(self, st, env, frame) -> None:
        vals = [self._get(env, o, st) for o in st.ins]
        pipe = next((v for v in vals if isinstance(v, Opaque) and v.kind == "pipe"), None)
        tile = next((v for v in vals if isinstance(v, Tile)), None)
        if tile is None:
            if not st.out_types:
                raise self._err(st, f"{st.op} needs its result tile type", "pto.interp.type")
            valid = None
            ints = [v for v in vals if isinstance(v, Scalar)]
            if ints:
                spec = tile_spec(st.out_types[0], self.prof)
                if spec is None or not spec.dynamic:
                    raise self._err(st, "with valid_row/valid_col operands the result tile needs a dynamic valid "
                                        "shape (v_row=?, v_col=?)", "pto.pipe.valid_shape")
                valid = tuple(int(v.value) for v in ints[:2])
            tile = self._tile_from(st, st.out_types[0], valid)
        direction = self._pipe_dir(st, frame, False, pipe)
        sub = self.subblock if frame.kind != "cube" else 0
        if self._peers is not None and not self.pipes.ready(direction, sub):
            mine = self.mem, self.subblock           # another subblock runs meanwhile with its own buffers
            self._peers.wait_for(lambda: self.pipes.ready(direction, sub), direction, st.op)
            self.mem, self.subblock = mine
        self.pipes.pop(direction, tile, self._split(st), sub, st.op)
        if st.results:
            self._bind(env, st, [tile])

    def _tfree(self, st, env, frame) -> None:
        if self._split(st) not in (0, 1, 2):
            raise self._err(st, "split must be 0, 1 or 2", "pto.pipe.split")
        pipe = next((v for v in (self._get(env, o, st) for o in st.ins) if isinstance(v, Opaque)
                     and v.kind == "pipe"), None)
        self.pipes.free(self._pipe_dir(st, frame, False, pipe), self.subblock if frame.kind != "cube" else 0)

    def _async_session(self, st, env, frame) -> None:
        self._bind(env, st, [Opaque("session", {})])

    def _async_copy(self, st, env, frame) -> None:
        vals = [self._get(env, o, st) for o in st.ins]
        views = [v.window() if isinstance(v, TensorView) else v for v in vals if isinstance(v, (TensorView,
                                                                                              PartView))]
        if len(views) != 2:
            raise self._err(st, f"{st.op} copies between two global memrefs", "pto.interp.operand")
        dst, src = views
        si, di = src.flat_index(), dst.flat_index()
        if si.size != di.size or src.view.ptr.dtype != dst.view.ptr.dtype:
            raise self._err(st, "source and destination must have the same element count and type",
                            "pto.async.shape")
        dst.view.ptr.glob.lanes[di.ravel()] = src.view.ptr.glob.lanes[si.ravel()]
        dst.view.ptr.glob.written = True
        self._bind(env, st, [Opaque("event", {"done": True})])

    def _async_wait(self, st, env, frame) -> None:
        self._bind(env, st, [sc.make_int("i1", 1)])

    def _noop(self, st, env, frame) -> None:
        for o in st.ins:
            self._get(env, o, st)

    @property
    def _live_values(self):
        return ()


_LOC = {"vec": "vec", "ub": "vec", "mat": "mat", "l1": "mat", "acc": "acc", "left": "left", "right": "right"}


def _constant_names(program: Program) -> set:
    """Names bound by ``arith.constant`` anywhere in the program."""
    bodies = [program.stmts] + [f.body for f in program.funcs]
    return {r for body in bodies for st in _walk(body) if st.kind == "constant" for r in st.results}


def _nd(dtype: str, rows: int, cols: int) -> Tile:
    per = 32 // get_dtype(dtype).size
    return Tile("vec", dtype, rows, -(-cols // per) * per, (rows, cols))


#: what :meth:`Interpreter._raise_located` places on a failing statement
_LOCATED = (TilesimError, RecursionError, ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError)

_KINDS = {
    "constant": Interpreter._constant, "alloc": Interpreter._alloc, "make_view": Interpreter._make_view,
    "part_view": Interpreter._part_view, "subset": Interpreter._subset, "reinterpret": Interpreter._reinterpret,
    "memref_alloc": Interpreter._memref_alloc, "tassign": Interpreter._tassign, "set_valid": Interpreter._set_valid,
    "for": Interpreter._for, "if": Interpreter._if, "while": Interpreter._while,
    "condition": Interpreter._condition, "yield": Interpreter._yield, "return": Interpreter._return,
    "call": Interpreter._call_stmt, "label": Interpreter._label,
}

#: pto ops that are not tile computations: how the interpreter runs each
_PIPE_OPS = ("pto.tpush", "pto.tpush_to_aiv", "pto.tpush_to_aic", "pto.tpop", "pto.tpop_from_aic",
             "pto.tpop_from_aiv")

_SPECIAL = {
    **{op: Interpreter._block_idx for op in ("pto.get_block_idx", "pto.get_block_num", "pto.get_subblock_idx",
                                             "pto.get_subblock_num")},
    "pto.treshape": Interpreter._view_result, "pto.bitcast": Interpreter._view_result,
    "pto.declare_tile": Interpreter._declare_tile,
    "pto.bind_tile": Interpreter._bind_tile, "pto.tprint": Interpreter._tprint,
    "pto.declare_eventid_array": Interpreter._eventid_array, "pto.eventid_array_get": Interpreter._eventid_access,
    "pto.eventid_array_set": Interpreter._eventid_access, "pto.addptr": Interpreter._addptr,
    "pto.pointer_cast": Interpreter._pointer_cast,
    "pto.reserve_buffer": Interpreter._reserve, "pto.import_reserved_buffer": Interpreter._reserve,
    **{op: Interpreter._init_pipe for op in ("pto.aic_initialize_pipe", "pto.aiv_initialize_pipe",
                                             "pto.initialize_l2l_pipe", "pto.initialize_l2g2l_pipe")},
    **{op: Interpreter._tpush for op in ("pto.tpush", "pto.tpush_to_aiv", "pto.tpush_to_aic")},
    **{op: Interpreter._tpop for op in ("pto.tpop", "pto.tpop_from_aic", "pto.tpop_from_aiv")},
    **{op: Interpreter._tfree for op in ("pto.tfree", "pto.tfree_from_aic", "pto.tfree_from_aiv")},
    "pto.build_async_session": Interpreter._async_session, "pto.tput_async": Interpreter._async_copy,
    "pto.tget_async": Interpreter._async_copy, "pto.wait_async_event": Interpreter._async_wait,
    "pto.test_async_event": Interpreter._async_wait, "memref.dealloc": Interpreter._noop,
    "pto.auto_sync_tail_hint": Interpreter._noop, "pto.tget_scale_addr": Interpreter._scale_addr,
    **COMM_SPECIAL, "pto.tprefetch_async": tprefetch_async,
}


def run_text(text: str, inputs: dict | None = None, target=None, *, source: str | None = None,
             entry: str | None = None, trace=None, blocks: int = 1, level: str | None = None,
             stdout=None, strict: bool = False) -> dict[str, np.ndarray]:
    """Parse and run program text; see :func:`run_file`."""
    return _run(Interpreter(parse(text, source), inputs, target, None if trace is True else trace, blocks=blocks,
                            level=level, stdout=stdout, strict=strict), entry, trace is True)


def run_file(path, inputs: dict | None = None, target=None, *, entry: str | None = None, trace=None,
             blocks: int = 1, level: str | None = None, stdout=None, strict: bool = False) -> dict[str, np.ndarray]:
    """Run a ``.pto`` file on ``target`` and return its outputs by name.

    Args:
        path: the program file.
        inputs: arrays (and scalars) by argument name without ``%``.
        target: ``cpu``, ``a2a3``, ``a5`` or a :class:`~tilesim.pto.Profile`; default the module's
            ``pto.target_arch``, else ``a5``.
        entry: the function to run (default: the one marked ``pto.entry``, else the first public one).
        trace: called with each statement and its results as it runs; ``True``: return
            ``Traced(outputs, steps)``, one :class:`~tilesim.inspect.Step` per tile op with the values it wrote
            (:mod:`tilesim.pto.trace`).
        blocks: run the kernel once per block (``get_block_idx`` 0 .. blocks-1) on shared global memory.
        level: ``"level3"``: every ``alloc_tile`` must give ``addr =`` (PTOAS ``--pto-level=level3``).
        stdout: where ``tprint`` writes (default ``sys.stdout``).
        strict: raise at the first element a conversion computes by a C++-undefined cast (see
            :class:`Interpreter`); without it such elements are counted and a ``UndefinedCastWarning`` says how many.

    Raises:
        ParseError: malformed text, or a program error (undefined value, unsupported op) with its line.
        TilesimError: an op's check failed; the error carries the statement's line and column.
        SpecGapError: under ``strict``, rule ``pto.tcvt.undefined``, naming the op, the operand, the first
            offending element's position and its value.
    """
    return _run(Interpreter(parse_file(path), inputs, target, None if trace is True else trace, blocks=blocks,
                            level=level, stdout=stdout, strict=strict), entry, trace is True)


def _run(it: Interpreter, entry: str | None, values: bool):
    """Run; with ``values``, return :class:`~tilesim.inspect.Traced` (the outputs and every tile op's Step)."""
    if not values:
        return it.run(entry)
    from ...inspect.steps import Traced
    from ..trace import observe
    steps: list = []
    observe(it, steps)
    return Traced(it.run(entry), steps)


def parse_file(path) -> Program:
    """Read and parse a ``.pto`` file (an unreadable file is a TilesimError, rule ``pto.io.read``); a file parsed
    before with the same text is not parsed again (:func:`.parse_cache.parse_cached`, PTO117)."""
    p = Path(path)
    try:
        text = p.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise TilesimError(f"cannot read {p}: {e}", instruction="pto.run", operand="path", rule="pto.io.read",
                           value=str(p)) from None
    return parse_cached(text, str(p))
