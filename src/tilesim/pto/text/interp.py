"""Run PTO programs: ``run_file(path, inputs, target="a5") -> dict of numpy arrays``.

Values in a running program are tiles, scalars (``index`` or a dtype), global
pointers (flat lane arrays), tensor views (shape and strides over a pointer)
and partition views (offsets and sizes within a tensor view).

Inputs are looked up by name without ``%``: pointer arguments (``%arg0:
!pto.ptr<f32>``) take an array whose values must be exact in the pointer's
dtype; scalar arguments take a number; tile arguments and, in loose
statements (no ``func``), any value used before it is defined take an array
that becomes a tile's valid region. A pointer argument missing from
``inputs`` starts as zeros sized by the views made over it.

Outputs: every pointer written by TSTORE (shaped like its input, or like the
first tensor view made over it), every tile argument, and in loose
statements every tile result, as arrays of the dtype's numpy type.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

import numpy as np

from ... import formats
from ...errors import ParseError, TilesimError
from .. import numerics as nx
from ..dtypes import DType, get_dtype
from ..memory import tassign
from ..ops import OPS
from ..targets import Profile, get_target
from ..tile import Tile, to_bits
from .parser import Operand, Program, Stmt, TypeRef, parse
from .types import tile_spec, view_dtype

__all__ = ["run_file", "run_text", "Interpreter", "Scalar", "GlobalPtr", "TensorView", "PartView"]


@dataclass
class Scalar:
    """A scalar: ``index`` (a Python int) or a dtype with its lane bits."""

    dtype: str
    value: object

    def number(self):
        if self.dtype == "index":
            return self.value
        dt = get_dtype(self.dtype)
        return np.asarray(self.value, dt.lane).view(dt.np)[()]


@dataclass
class GlobalPtr:
    name: str
    dtype: DType
    lanes: np.ndarray
    shape: tuple | None = None
    written: bool = False

    def ensure(self, size: int) -> None:
        if size > self.lanes.size:
            grown = np.zeros(size, self.dtype.lane)
            grown[: self.lanes.size] = self.lanes
            self.lanes = grown


@dataclass
class TensorView:
    ptr: GlobalPtr
    shape: tuple
    strides: tuple


@dataclass
class PartView:
    view: TensorView
    offsets: tuple
    sizes: tuple

    def flat_index(self, extra=(0, 0)) -> np.ndarray:
        """Flat element indices of this window as (rows, cols): leading dims folded into rows."""
        offs = list(self.offsets)
        offs[-2:] = [offs[-2] + extra[0], offs[-1] + extra[1]] if len(offs) >= 2 else [offs[-1] + extra[1]]
        grids = np.meshgrid(*[np.arange(s) + o for s, o in zip(self.sizes, offs)], indexing="ij")
        idx = sum(g.astype(np.int64) * st for g, st in zip(grids, self.view.strides))
        lead = int(np.prod(self.sizes[:-1])) if len(self.sizes) > 1 else 1
        return np.asarray(idx).reshape(lead, self.sizes[-1])


_ATTR_KW = {"cmpMode": "cmp_mode", "cmp_mode": "cmp_mode", "rmode": "rmode", "sat_mode": "sat", "atomic": "atomic",
            "isBinary": "is_binary", "is_binary": "is_binary"}
_ARG_OPS = ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin")
_ROW_REDUCE = ("trowsum", "trowmax", "trowmin", "trowprod")
_COL_REDUCE = ("tcolsum", "tcolmax", "tcolmin", "tcolprod")


def _enum_word(v) -> object:
    """``#pto<cmp lt>`` / ``#pto.cmp<EQ>`` / ``"lt"`` -> ``lt`` / ``EQ``."""
    if isinstance(v, str) and v.startswith("#") and "<" in v:
        inner = v[v.index("<") + 1: -1].strip()
        return inner.split()[-1]
    return v


class Interpreter:
    """Executes a parsed :class:`Program` on one target."""

    def __init__(self, program: Program, inputs: dict | None = None, target="a5",
                 trace: Callable[[Stmt, list], None] | None = None) -> None:
        self.program = program
        self.inputs = dict(inputs or {})
        self.prof: Profile = get_target(target)
        self.trace = trace
        self.ptrs: dict[str, GlobalPtr] = {}
        self.tile_args: dict[str, Tile] = {}
        self.results: dict[str, Tile] = {}

    # ----------------------------------------------------------------- errors
    def _err(self, node, detail: str, rule: str, operand: str | None = None) -> ParseError:
        return ParseError(detail, instruction=getattr(node, "op", "pto"), operand=operand, rule=rule,
                          source=self.program.source, line=getattr(node, "line", 1) or 1,
                          column=getattr(node, "column", 1) or 1)

    # ------------------------------------------------------------------- run
    def run(self, entry: str | None = None) -> dict[str, np.ndarray]:
        env: dict = {}
        if self.program.funcs:
            fn = self._entry(entry)
            for name, ty in fn.args:
                env[name] = self._arg(name, ty, fn)
            self._block(fn.body, env)
        self._block(self.program.stmts, env, loose=True)
        out = {}
        for name, p in self.ptrs.items():
            if p.written:
                arr = p.lanes.view(p.dtype.np)
                if p.shape is not None and int(np.prod(p.shape)) <= arr.size:
                    arr = arr[: int(np.prod(p.shape))].reshape(p.shape)
                out[name] = arr.copy()
        for name, t in {**self.tile_args, **self.results}.items():
            out[name] = t.valid_values.copy()
        return out

    def _entry(self, entry):
        funcs = self.program.funcs
        if entry is not None:
            for f in funcs:
                if f.name == entry:
                    return f
            raise self._err(funcs[0], f"no function @{entry}; have " + ", ".join("@" + f.name for f in funcs),
                            "pto.interp.entry")
        marked = [f for f in funcs if "pto.entry" in f.attrs]
        return marked[0] if marked else funcs[0]

    def _arg(self, name: str, ty: TypeRef, fn):
        if ty.name == "!pto.ptr":
            dt = get_dtype(view_dtype(ty) or "", instruction="pto.ptr", operand=name)
            if name in self.inputs:
                arr = np.asarray(self.inputs[name])
                lanes = self._exact_lanes(arr, dt, name, fn).reshape(-1)
                p = GlobalPtr(name, dt, lanes.copy(), arr.shape)
            else:
                p = GlobalPtr(name, dt, np.zeros(0, dt.lane))
            self.ptrs[name] = p
            return p
        spec = tile_spec(ty, self.prof)
        if spec is not None:
            t = spec.make(valid=tuple(v if v is not None else d for v, d in zip(spec.valid, (spec.rows, spec.cols))))
            if name in self.inputs:
                t.fill(self._exact_values(np.asarray(self.inputs[name]), t.dtype, name, fn))
            self.tile_args[name] = t
            return t
        if name not in self.inputs:
            raise self._err(fn, f"scalar argument %{name} ({ty.text()}) needs a value in the inputs",
                            "pto.interp.input", name)
        return self._scalar_from(self.inputs[name], ty.name, fn, name)

    def _exact_lanes(self, arr: np.ndarray, dt: DType, name: str, node) -> np.ndarray:
        return to_bits(self._exact_values(arr, dt, name, node), dt, what="pto.run")

    def _exact_values(self, arr: np.ndarray, dt: DType, name: str, node) -> np.ndarray:
        if arr.dtype == dt.np:
            return arr
        lanes = to_bits(arr, dt, what="pto.run")  # integers: range-checked there
        if dt.is_float:
            back = lanes.view(dt.np).astype(np.float64)
            src = arr.astype(np.float64)
            same = (back == src) | (np.isnan(back) & np.isnan(src))
            if not np.all(same):
                raise self._err(node, f"input {name} has values that {dt} cannot hold exactly; cast it first",
                                "pto.interp.input", name)
        return lanes.view(dt.np)

    def _scalar_from(self, value, type_name: str, node, name: str) -> Scalar:
        if type_name == "index":
            return Scalar("index", int(value))
        dt = get_dtype(type_name, instruction="pto.run", operand=name)
        lanes = self._exact_lanes(np.asarray(value), dt, name, node)
        return Scalar(dt.name, lanes)

    # ----------------------------------------------------------------- blocks
    def _block(self, stmts: list, env: dict, loose: bool = False) -> None:
        for st in stmts:
            try:
                self._stmt(st, env, loose)
            except ParseError:
                raise
            except TilesimError as e:
                raise e.at(source=self.program.source, line=st.line, column=st.column) from None

    def _get(self, env: dict, op: Operand | tuple, node, loose: bool = False):
        if isinstance(op, tuple):  # ("value", name) / ("int", n) from index lists
            kind, v = op
            return v if kind == "int" else self._index_value(env, v, node)
        if op.kind == "literal":
            return op
        if op.kind == "indexed":  # %view[%i, %j]: a partition view and an offset within it
            base = self._get(env, Operand("value", name=op.name, line=op.line, column=op.column), node, loose)
            return base, tuple(self._get(env, i, node) for i in op.indices)
        if op.name in env:
            return env[op.name]
        if loose and op.name in self.inputs:
            arr = np.asarray(self.inputs[op.name])
            t = Tile.from_array(arr if arr.ndim == 2 else np.atleast_2d(arr))
            env[op.name] = t
            return t
        raise self._err(op, f"%{op.name} is used before it is defined", "pto.interp.undefined", op.name)

    def _index_value(self, env, name, node) -> int:
        v = env.get(name)
        if v is None and name in self.inputs:
            v = Scalar("index", int(self.inputs[name]))
        if not isinstance(v, Scalar) or not (v.dtype == "index" or get_dtype(v.dtype).is_int):
            raise self._err(node, f"%{name} is not an index or integer value", "pto.interp.index", name)
        return int(v.number())

    def _stmt(self, st: Stmt, env: dict, loose: bool) -> None:
        k = st.kind
        if k == "constant":
            env[st.results[0]] = self._constant(st)
        elif k == "alloc":
            env[st.results[0]] = self._alloc(st, env)
        elif k == "make_view":
            env[st.results[0]] = self._make_view(st, env)
        elif k == "part_view":
            env[st.results[0]] = self._part_view(st, env)
        elif k == "for":
            lb, ub, step = (self._get(env, b, st) for b in st.extra["bounds"])
            for i in range(lb, ub, step):
                env[st.extra["var"]] = Scalar("index", i)
                self._block(st.body, env, loose)
        elif k == "section":
            self._block(st.body, env, loose)
        elif k in ("return", "yield", "sync"):
            pass
        elif k == "tassign":
            t = self._get(env, st.ins[0], st)
            if not isinstance(t, Tile):
                raise self._err(st, "tassign needs a tile", "pto.interp.operand")
            tassign(t, int(self._get(env, st.extra["addr"], st)), target=self.prof)
            if st.results:
                env[st.results[0]] = t
        elif k == "set_valid":
            t = self._get(env, st.ins[0], st)
            r, c = (self._get(env, v, st) for v in st.extra["valid"])
            t.set_valid(r, c)
        else:
            self._op(st, env, loose)
        if self.trace is not None:
            self.trace(st, [env.get(r) for r in st.results])

    # --------------------------------------------------------------- helpers
    def _constant(self, st: Stmt) -> Scalar:
        lit = st.ins[0].value
        ty = st.out_types[0].name if st.out_types else ("index" if isinstance(lit, int) else "f32")
        if ty == "index" or (ty.startswith("i") and ty[1:].isdigit() and ty not in ("i8", "i16", "i32", "i64")):
            return Scalar("index", int(lit))
        if ty == "i1":
            return Scalar("index", int(bool(lit)))
        dt = get_dtype(ty, instruction="arith.constant", operand="type")
        if dt.is_float:
            if isinstance(lit, bool):
                raise self._err(st, "a float constant needs a number", "pto.interp.constant")
            if st.extra.get("hex"):  # MLIR: a hexadecimal float literal is the bit pattern
                return Scalar(dt.name, np.asarray(lit, dt.lane))
            if isinstance(lit, float):  # inf / nan
                return Scalar(dt.name, formats.encode(np.array(lit), dt.format))
            return Scalar(dt.name, np.asarray(nx.round_fraction(Fraction(lit), dt.format), dt.lane))
        return Scalar(dt.name, to_bits(np.asarray(int(lit)), dt, what="arith.constant"))

    def _alloc(self, st: Stmt, env: dict) -> Tile:
        spec = tile_spec(st.out_types[0], self.prof)
        if spec is None:
            raise self._err(st, "pto.alloc_tile needs a concrete !pto.tile_buf type", "pto.interp.type")
        kw = st.extra["kw"]
        for i, key in enumerate(("valid_row", "valid_col")):
            if (spec.valid[i] is None) != (key in kw):
                raise self._err(st, f"{key} is given exactly when the type's {('v_row', 'v_col')[i]} is ?",
                                "pto.interp.valid_operand", key)
        valid = tuple(self._get(env, kw[key], st) if spec.valid[i] is None else spec.valid[i]
                      for i, key in enumerate(("valid_row", "valid_col")))
        t = spec.make(valid=valid)
        if "addr" in kw:
            tassign(t, int(self._get(env, kw["addr"], st)), target=self.prof)
        return t

    def _make_view(self, st: Stmt, env: dict) -> TensorView:
        ptr = self._get(env, st.ins[0], st)
        if not isinstance(ptr, GlobalPtr):
            raise self._err(st, "make_tensor_view needs a !pto.ptr argument", "pto.interp.operand")
        shape = tuple(self._get(env, v, st) for v in st.extra["shape"])
        strides = tuple(self._get(env, v, st) for v in st.extra["strides"])
        if len(shape) != len(strides) or not shape:
            raise self._err(st, "shape and strides must have the same, non-zero length", "pto.interp.view")
        need = 1 + sum((s - 1) * d for s, d in zip(shape, strides))
        if ptr.name not in self.inputs:
            ptr.ensure(need)
            if ptr.shape is None:
                ptr.shape = shape
        elif need > ptr.lanes.size:
            raise self._err(st, f"a {'x'.join(map(str, shape))} view needs {need} elements, input %{ptr.name} "
                            f"has {ptr.lanes.size}", "pto.mem.window")
        return TensorView(ptr, shape, strides)

    def _part_view(self, st: Stmt, env: dict) -> PartView:
        tv = self._get(env, st.ins[0], st)
        if not isinstance(tv, TensorView):
            raise self._err(st, "partition_view needs a tensor view", "pto.interp.operand")
        offs = tuple(self._get(env, v, st) for v in st.extra["offsets"])
        sizes = tuple(self._get(env, v, st) for v in st.extra["sizes"])
        if len(offs) != len(tv.shape) or len(sizes) != len(tv.shape):
            raise self._err(st, "offsets and sizes need one entry per view dimension", "pto.interp.view")
        for o, s, n in zip(offs, sizes, tv.shape):
            if o < 0 or s <= 0 or o + s > n:
                raise self._err(st, f"window {offs}+{sizes} leaves the {tv.shape} view", "pto.mem.window")
        return PartView(tv, offs, sizes)

    # -------------------------------------------------------------------- ops
    def _op(self, st: Stmt, env: dict, loose: bool) -> None:
        name = st.op[4:] if st.op.startswith("pto.") else st.op
        if name.startswith("arith."):
            return self._arith(st, env)
        if name not in OPS:
            raise self._err(st, f"unsupported operation {st.op!r}", "pto.interp.op", st.op)
        kw = {_ATTR_KW[k]: self._attr(k, v) for k, v in st.attrs.items() if k in _ATTR_KW}
        ins = [self._get(env, o, st, loose) for o in st.ins]
        in_types = list(st.in_types)
        if st.kind == "dps":
            outs = [self._get(env, o, st, loose) for o in st.outs]
        elif st.results:
            outs = self._new_results(name, st, ins)
        elif name == "tstore":
            outs, ins = ins[1:], ins[:1]
        else:  # assembly, destination first
            outs, ins = ins[:1], ins[1:]
            in_types = in_types[1:]
        ins = [self._scalar_or_value(v, in_types[i] if i < len(in_types) else None, st) for i, v in enumerate(ins)]
        self._call(name, st, outs, ins, kw)
        for r, t in zip(st.results, outs):
            env[r] = t
            if loose and isinstance(t, Tile):
                self.results[r] = t

    def _attr(self, key: str, v):
        w = _enum_word(v)
        if key == "sat_mode":
            return str(w).upper() == "ON"
        if key in ("cmpMode", "cmp_mode"):
            return str(w).lower()
        return w

    def _scalar_or_value(self, v, ty: TypeRef | None, st: Stmt):
        if isinstance(v, Operand):  # a literal operand
            tname = ty.name if ty is not None else ("f32" if isinstance(v.value, Fraction) else "i32")
            if isinstance(v.value, Fraction):
                dt = get_dtype(tname)
                return np.asarray(nx.round_fraction(v.value, dt.format), dt.lane).view(dt.np)[()]
            return self._scalar_from(v.value, tname, st, "literal").number()
        if isinstance(v, Scalar):
            return v.number()
        return v

    def _call(self, name: str, st: Stmt, outs: list, ins: list, kw: dict) -> None:
        fn = OPS[name]
        tgt = {"target": self.prof}
        if name in _ARG_OPS:
            src, tmp = ins[0], (ins[1] if len(ins) > 1 else None)
            if len(outs) == 2:
                fn(outs[1], src, tmp, dst_val=outs[0], **tgt)
            else:
                fn(outs[0], src, tmp, **tgt)
        elif name == "tcvt":
            fn(outs[0], ins[0], kw.get("rmode", "CAST_RINT"), kw.get("sat"), ins[1] if len(ins) > 1 else None, **tgt)
        elif name == "tload":
            fn(outs[0], self._window(ins[0], st, outs[0].valid, "src"), **tgt)
        elif name == "tstore":
            self._store(st, ins[0], outs[0], kw.get("atomic", "none"))
        elif name in ("tcmp", "tcmps"):
            fn(*outs, *ins, kw.get("cmp_mode", "eq"), **tgt)
        elif name == "tcolsum":
            fn(outs[0], ins[0], ins[1] if len(ins) > 1 else None, is_binary=bool(kw.get("is_binary", False)), **tgt)
        else:
            fn(*outs, *ins, **tgt)

    def _window(self, src, st: Stmt, shape, operand: str) -> np.ndarray:
        pv, extra = (src if isinstance(src, tuple) else (src, (0, 0)))
        if not isinstance(pv, PartView):
            raise self._err(st, f"{operand} must be a partition view", "pto.interp.operand", operand)
        if len(extra) != 2 or any(o + e + n > d for o, e, n, d in zip(pv.offsets[-2:], extra, pv.sizes[-2:],
                                                                         pv.view.shape[-2:])):
            raise self._err(st, f"offset {extra} moves the window out of the {pv.view.shape} view",
                            "pto.mem.window", operand)
        idx = pv.flat_index(extra)
        if idx.shape != tuple(shape):
            raise self._err(st, f"the {idx.shape[0]}x{idx.shape[1]} window does not match the tile's valid "
                            f"{shape[0]}x{shape[1]}", "pto.tload.shape", operand)
        ptr = pv.view.ptr
        if idx.size and int(idx.max()) >= ptr.lanes.size:
            raise self._err(st, f"the window reaches element {int(idx.max())} of %{ptr.name} "
                            f"({ptr.lanes.size} elements)", "pto.mem.window", operand)
        return ptr.lanes[idx].view(ptr.dtype.np)

    def _store(self, st: Stmt, tile, dst, atomic: str) -> None:
        if not isinstance(tile, Tile):
            raise self._err(st, "tstore stores a tile", "pto.interp.operand", "src")
        win = self._window(dst, st, tile.valid, "dst")
        OPS["tstore"](win, tile, atomic=atomic, target=self.prof)
        pv = dst[0] if isinstance(dst, tuple) else dst
        ptr = pv.view.ptr
        ptr.lanes[pv.flat_index(dst[1] if isinstance(dst, tuple) else (0, 0))] = win.view(ptr.dtype.lane)
        ptr.written = True

    def _arith(self, st: Stmt, env: dict) -> None:
        vals = [self._get(env, o, st) for o in st.ins]
        nums = [v.number() if isinstance(v, Scalar) else v.value for v in vals]
        kind = st.op.split(".", 1)[1]
        ops = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
               "index_cast": lambda a: a, "floordivsi": lambda a, b: a // b}
        if kind not in ops:
            raise self._err(st, f"unsupported operation {st.op!r}", "pto.interp.op", st.op)
        env[st.results[0]] = Scalar("index", int(ops[kind](*[int(n) for n in nums])))

    # ----------------------------------------------------------- SSA results
    def _new_results(self, name: str, st: Stmt, ins: list) -> list:
        outs = []
        for i, ty in enumerate(st.out_types or [None] * len(st.results)):
            spec = tile_spec(ty, self.prof) if ty is not None else None
            if spec is not None:
                outs.append(spec.make(valid=tuple(v if v is not None else d
                                                  for v, d in zip(spec.valid, (spec.rows, spec.cols)))))
            else:
                outs.append(self._infer(name, st, ins, i, len(st.results)))
        return outs

    def _infer(self, name: str, st: Stmt, ins: list, i: int, n: int) -> Tile:
        """The result tile of an op whose result type is a placeholder (``!pto.tile<...>``)."""
        tiles = [t for t in ins if isinstance(t, Tile)]
        if name == "tload":
            pv = ins[0][0] if isinstance(ins[0], tuple) else ins[0]
            if isinstance(pv, PartView):
                r = int(np.prod(pv.sizes[:-1])) if len(pv.sizes) > 1 else 1
                return _nd(pv.view.ptr.dtype.name, r, pv.sizes[-1])
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
            is_idx = i == n - 1
            shape = (R, 1) if name.startswith("trow") else (1, C)
            if not is_idx:
                return _nd(dt.name, *shape)
            key = ("tcolarg" if name.startswith("tcol") else "trowarg") + ("_val" if n == 2 else "")
            ok = [t for t in ("i32", "u32", "i16", "u16") if (dt.name, t) in self.prof.dtypes[key]]
            return _nd(ok[0] if ok else "i32", *shape)
        if name in ("tcmp", "tcmps"):
            mask = "u8" if self.prof.cmp_i32_eq_only else "u32"
            return _nd(mask, R, -(-C // (8 * get_dtype(mask).size)))
        if name == "tmatmul":
            a, b = ins[0], ins[1]
            return Tile("acc", "i32" if a.dtype.name == "i8" else "f32", a.rows, b.cols, (a.valid_rows, b.valid_cols),
                        "col_major", "row_major", 1024)
        return _nd(dt.name, R, C)


def _nd(dtype: str, rows: int, cols: int) -> Tile:
    per = 32 // get_dtype(dtype).size
    return Tile("vec", dtype, rows, -(-cols // per) * per, (rows, cols))


def run_text(text: str, inputs: dict | None = None, target="a5", *, source: str | None = None,
             entry: str | None = None, trace=None) -> dict[str, np.ndarray]:
    """Parse and run program text; see :func:`run_file`."""
    return Interpreter(parse(text, source), inputs, target, trace).run(entry)


def run_file(path, inputs: dict | None = None, target="a5", *, entry: str | None = None,
             trace=None) -> dict[str, np.ndarray]:
    """Run a ``.pto`` file on ``target`` and return its outputs by name.

    Args:
        path: the program file.
        inputs: arrays (and scalars) by argument name without ``%``.
        target: ``cpu``, ``a2a3``, ``a5`` or a :class:`~tilesim.pto.Profile`.
        entry: the function to run (default: the one marked ``pto.entry``, else the first).
        trace: called with each statement and its results as it runs.

    Raises:
        ParseError: malformed text, or a program error (undefined value, unsupported op) with its line.
        TilesimError: an op's check failed; the error carries the statement's line and column.
    """
    p = Path(path)
    return run_text(p.read_text(), inputs, target, source=str(p), entry=entry, trace=trace)
