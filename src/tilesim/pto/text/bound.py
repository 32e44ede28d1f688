"""Bound loop bodies: an ``scf.for`` body that has run once, as one call per statement (decisions PTO166, PTO116).

After the first iteration of a body without ``iter_args`` has run the general way, :func:`bind` turns each of its
statements into a call that does what :meth:`~.interp.Interpreter._exec` would, without the dispatch:

* a prepared tile op (:class:`~.steps.Step`) whose tiles cannot change between iterations is bound to them
  (:meth:`.Step.bind`);
* ``alloc_tile`` at a fixed address with a static valid shape makes its tile live again at that address
  (:meth:`~tilesim.pto.memory.Memory.relive`) instead of making a new one: the first iteration's tile, with what a
  new tile of its type would hold (no undefined lanes, its type's valid shape). Its bytes are the same bytes, and
  nothing outside the iteration can still name the old tile (a body binds its names in its own scope), so the two
  cannot be told apart; the tile ops that name it then bind to it like any other;
* ``arith`` statements, constants, ``partition_view`` and the tile ops that read views or scalars (a windowed
  ``tload``/``tstore``) call their handler directly, in the iteration's scope: the same checks, in the same order,
  with the same errors;
* ``scf.if`` and ``scf.for`` whose regions hold only such statements call their handler, which runs the regions
  the general way (an inner loop binds its own body).

Each iteration starts from an empty scope holding only the induction variable, as the general way does; the
plan's frees after a statement are done after its call. A body holding anything else (a call, a view of a tile,
a pipe, a sync or communication op, ...) is not bound.
"""

from __future__ import annotations

from typing import Callable

from ...errors import TilesimError
from ..tile import Tile
from . import scalars as sc
from .values import Scalar, TensorView
from .verify import walk

__all__ = ["bind"]


def bind(it, body: list, scope, frame, var: str) -> tuple | None:
    """``([(statement, call)], scoped)`` for the statements of ``body`` (its first iteration just ran in ``scope``,
    whose first map is the iteration's own; ``scoped``: a call reads or writes it), or None when a statement cannot
    be bound."""
    defined, reused, calls, scoped = {var}, set(), [], False
    for n, st in enumerate(body):
        if st.kind == "yield" and not st.ins and n == len(body) - 1:
            break  # the empty terminator
        if any(r in defined or any(r in m for m in scope.maps[1:]) for r in st.results):
            return None  # a name bound twice, or shadowing one outside: what it denotes depends on the place
        call = _tile_op(it, st, scope, defined, reused)
        if call is None:
            call = _alloc(it, st, scope, frame, defined)
            if call is not None:
                reused.add(st.results[0])
            else:
                call = _handler(it, st, scope, frame, defined)
                if call is None:
                    return None
            scoped = True
        calls.append((st, _then_free(it, call, frame, frame.plan.free_after.get(id(st), ()))))
        defined.update(st.results)
    return calls, scoped


def _then_free(it, call: Callable, frame, names) -> Callable:
    """``call``, then the plan's frees after its statement (as :meth:`~.interp.Interpreter._exec` does them)."""
    if not names:
        return call

    def call_and_free() -> None:
        call()
        for name in names:
            t = frame.placed.pop(name, None)
            if t is not None:
                it.mem.release(t)
    return call_and_free


def _tile_op(it, st, scope, defined: set, reused: set) -> Callable | None:
    """A prepared step bound to its tiles, when each is named outside the body or by a reused ``alloc_tile``."""
    step = it._steps.get(id(st))
    if step is None or any(n in defined and n not in reused for n in step.names):
        return None
    return step.bind(scope, it.prof, it.undefined)


def _alloc(it, st, scope, frame, defined: set) -> Callable | None:
    """``alloc_tile addr = A`` of a static valid shape, A a literal or a value from outside the body: its first
    iteration's tile, made live again at A."""
    if st.kind != "alloc" or len(st.results) != 1 or not st.out_types:
        return None
    spec = it._specs.get(id(st.out_types[0]), (None, None))[1]
    kw = st.extra["kw"]
    if spec is None or set(kw) != {"addr"} or None in spec.valid:
        return None
    addr = kw["addr"]
    if isinstance(addr, tuple) and addr[0] == "value" and addr[1] in defined:
        return None
    name = st.results[0]
    t = scope.maps[0].get(name)
    if not isinstance(t, Tile) or t.addr != it._int(scope, addr, st):
        return None
    local, placed, valid = scope.maps[0], frame.placed, tuple(spec.valid)

    def call() -> None:
        old = placed.get(name)
        if old is not None and old is not t:
            it.mem.release(old)
        it.mem.relive(t, name)
        placed[name] = t
        t.undefined = None
        if t.valid != valid:
            t.set_valid(*valid)
        t.pull()
        local[name] = t
    return call


def _handler(it, st, scope, frame, defined: set) -> Callable | None:
    """The other kinds a bound body may hold: integer arith and partition views with their operands found once,
    constants, other arith, and tile ops (:meth:`~.interp.Interpreter._op`, which tries the prepared step first, as
    the general way does) through their handlers, in ``scope``."""
    if st.kind in ("if", "for") and all(_plain(it, x) for r in st.regions for x in walk(r)):
        handler = it._if if st.kind == "if" else it._for
        return lambda: handler(st, scope, frame)
    if st.kind == "part_view":
        return _part_view(it, st, scope, defined) or (lambda: it._part_view(st, scope, frame))
    if st.kind == "constant" and not st.extra.get("dense"):
        return lambda: it._constant(st, scope, frame)
    if st.kind in ("dps", "op", "generic") and st.op.startswith("arith.") and len(st.results) == 1:
        return _int_arith(it, st, scope, defined) or (lambda: it._arith(st, scope))
    op = it._tile_op(st) if st.kind == "dps" and not st.results else None
    if op is not None:
        return _tile_call(it, st, scope, defined, *op) or (lambda: it._op(st, scope, frame, False))
    return None


def _tile_call(it, st, scope, defined: set, key: str, fn) -> Callable | None:
    """A tile op that is not a prepared step (a window or a scalar among its operands), its operands found once:
    what :meth:`~.interp.Interpreter._dps` does after looking them up."""
    if it._steps.get(id(st)) is not None:
        return None
    ins, outs = ([_operand(o, scope, defined) for o in ops] for ops in (st.ins, st.outs))
    if None in ins or None in outs:
        return None
    named = [o.name for o in st.outs]

    def call() -> None:
        it._dps_run(key, fn, st, scope, [g() for g in outs], [g() for g in ins], [], named, False)
    return call


def _operand(o, scope, defined: set) -> Callable | None:
    """What :meth:`~.interp.Interpreter._get` gives for a value or literal operand of a tile op."""
    if getattr(o, "kind", None) == "literal":
        return lambda: o
    if getattr(o, "kind", None) == "value":
        return _getter(o.name, scope, defined)
    return None


def _plain(it, st) -> bool:
    """Whether a statement of a nested region is of a kind a bound body may hold (or a region, a yield, a view
    of a pointer): no call, pipe, sync or communication op that could keep a tile or wait."""
    if st.kind in ("constant", "alloc", "part_view", "make_view", "for", "if", "yield"):
        return True
    return st.kind in ("dps", "op", "generic") and (st.op.startswith("arith.") or it._tile_op(st) is not None)


def _getter(name: str, scope, defined: set) -> Callable | None:
    """What ``name`` denotes in each iteration: the iteration's own value when the body defines it before this
    statement, else the value outside the body (which a bound body cannot rebind); None when it has none."""
    if name in defined:
        local = scope.maps[0]
        return lambda: local[name]
    for m in scope.maps[1:]:
        if name in m:
            v = m[name]
            return lambda: v
    return None


def _int_arith(it, st, scope, defined: set) -> Callable | None:
    """Integer ``arith`` on two operands: :func:`~.scalars.run_arith`'s own function when both are integers of one
    type, else ``run_arith`` itself (its checks and errors)."""
    form = it._arith_forms.get(id(st))
    fn = sc.int_binary(form[0]) if form is not None else None
    if fn is None or len(st.ins) != 2:
        return None
    kind, pred, to, tname = form
    getters = []
    for o in st.ins:
        if o.kind == "literal":
            try:
                v = sc.constant(tname, o.value)
            except TilesimError:
                return None
            getters.append(lambda v=v: v)
        elif o.kind == "value":
            getters.append(_getter(o.name, scope, defined))
        else:
            return None
    if None in getters:
        return None
    (get_a, get_b), res, local, name = getters, st.results[0], scope.maps[0], f"arith.{kind}"

    def call() -> None:
        a, b = get_a(), get_b()
        if type(a) is Scalar and type(b) is Scalar and a.type == b.type and type(a.value) is int and \
                type(b.value) is int:
            local[res] = fn(name, a, b)
        else:
            local[res] = sc.run_arith(kind, [a, b], pred=pred, to=to)
    return call


def _part_view(it, st, scope, defined: set) -> Callable | None:
    """``partition_view`` of a tensor view from outside the body: only its offsets and sizes are read again."""
    src = st.ins[0] if st.ins else None
    if getattr(src, "kind", None) != "value" or src.name in defined:
        return None
    get_tv = _getter(src.name, scope, defined)
    tv = get_tv() if get_tv is not None else None
    if type(tv) is not TensorView:
        return None
    offs = [_index(it, e, scope, defined, st) for e in st.extra["offsets"]]
    sizes = [_index(it, e, scope, defined, st) for e in st.extra["sizes"]]
    if None in offs or None in sizes:
        return None
    res, local = st.results[0], scope.maps[0]

    def call() -> None:
        local[res] = it._window_view(st, tv, tuple(g() for g in offs), tuple(g() for g in sizes))
    return call


def _index(it, entry, scope, defined: set, st) -> Callable | None:
    """An index list entry (``("int", n)`` or ``("value", name)``) as :meth:`~.interp.Interpreter._int` reads it,
    checks and errors included."""
    if entry[0] == "int":
        n = int(entry[1])
        return lambda: n
    get = _getter(entry[1], scope, defined)
    if get is None:
        return None

    def value() -> int:
        v = get()
        if type(v) is Scalar and type(v.value) is int and v.type != "i1":
            return v.value
        return it._index(scope, entry, st)
    return value
