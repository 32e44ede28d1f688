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
  with the same errors.

Each iteration starts from an empty scope holding only the induction variable, as the general way does; the
plan's frees after a statement are done after its call. A body holding anything else (a nested region, a call,
a view of a tile, a pipe, a sync op, ...) is not bound.
"""

from __future__ import annotations

from typing import Callable

from ..tile import Tile

__all__ = ["bind"]


def bind(it, body: list, scope, frame, var: str) -> list | None:
    """``(statement, call, frees)`` for each statement of ``body`` (its first iteration just ran in ``scope``,
    whose first map is the iteration's own), or None when a statement cannot be bound."""
    defined, reused, calls = {var}, set(), []
    for n, st in enumerate(body):
        if st.kind == "yield" and not st.ins and n == len(body) - 1:
            break  # the empty terminator
        call = _tile_op(it, st, scope, defined, reused)
        if call is None:
            call = _alloc(it, st, scope, frame, defined)
            if call is not None:
                reused.add(st.results[0])
        if call is None:
            call = _handler(it, st, scope, frame)
        if call is None:
            return None
        calls.append((st, call, frame.plan.free_after.get(id(st), ())))
        defined.update(st.results)
    return calls


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


def _handler(it, st, scope, frame) -> Callable | None:
    """The statement's own handler, called in ``scope``, for the other kinds a bound body may hold: arith,
    constants, ``partition_view``, and tile ops (:meth:`~.interp.Interpreter._op`, which tries the prepared step
    first, as the general way does)."""
    if st.kind == "part_view":
        return lambda: it._part_view(st, scope, frame)
    if st.kind == "constant" and not st.extra.get("dense"):
        return lambda: it._constant(st, scope, frame)
    if st.kind in ("dps", "op", "generic") and st.op.startswith("arith.") and len(st.results) == 1:
        return lambda: it._arith(st, scope)
    if st.kind == "dps" and not st.results and it._is_tile_op(st):
        return lambda: it._op(st, scope, frame, False)
    return None
