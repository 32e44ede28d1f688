"""The ``.pto`` forms of the communication instructions (:mod:`tilesim.pto.comm`, decisions PTO155, PTO156).

Each takes its operands in the ISA page's order, as a DPS statement (outs
first) or in the pages' assembly form::

    pto.tput ins(%src, %staging : view, tile) outs(%dst : view) {atomic = #pto.atomic_type<atomic_add>}
    pto.tput %dst, %src, %staging : (view, view, tile)          # also tget
    pto.tnotify ins(%value : i32) outs(%signal : view) {op = #pto.notify_op<AtomicAdd>}
    pto.tnotify %signal, %value {op = #pto.notify_op<Set>} : (view, i32)
    pto.twait ins(%signal, %value : view, i32) {cmp = #pto.cmp<GE>}
    %ok = pto.ttest ins(%signal, %value : view, i32) {cmp = #pto.cmp<EQ>} -> i1
    pto.tbroadcast ins(%src, %staging : view, tile) outs(%r0, %r1, ... : view, view, ...)
    pto.treduce ins(%r0, %r1, ..., %acc, %recv : ...) outs(%dst : view) {op = #pto.reduce_op<Sum>, root = 0}
    pto.tgather ins(%r0, %r1, ..., %staging : ...) outs(%dst : view) {root = 0}      # the collective forms
    pto.tscatter ins(%src, %staging : view, tile) outs(%r0, %r1, ... : view, view, ...) {root = 0}

The ping-pong forms add a second tile after the first (TPUT/TGET/TGATHER/
TSCATTER: ``%ping, %pong``; TREDUCE: ``%acc, %ping, %pong``). A ``pto.tgather``
or ``pto.tscatter`` with a tensor or partition view operand is the collective
(PTO184); with tiles only it is the tile op of that name.

Global memory operands are tensor or partition views. A TWAIT whose signal
does not hold lets the other blocks run (the interpreter runs the blocks of
such a program as coroutines) until it does, and a TNOTIFY that makes a
waiting block's signal hold lets that block run at once (so a waiter sees
each value a notifier sets); when every other block is done or waiting too
it is ``pto.comm.wait``, naming the block, the statement and the signal. A
false TTEST lets the other blocks run once before the program
goes on; ``pto.comm.spin`` stops a block that tests a signal no block can
change any more 65,536 times in a row.
"""

from __future__ import annotations

import numpy as np

from ...errors import StateError
from .. import comm
from ..tile import Tile
from . import scalars as sc
from .values import PartView, TensorView
from .verify import walk

__all__ = ["COMM_SPECIAL", "WAITING_OPS", "comm_fed", "collective"]

#: statements that may wait for other blocks: a program with one runs its blocks as coroutines
WAITING_OPS = frozenset({"pto.twait", "pto.ttest"})
_SPIN_LIMIT = 1 << 16


def comm_fed(fn, pl, name: str) -> bool:
    """Whether a communication statement of ``fn`` writes ``name`` (or a view of it): another block may fill
    it before this one reads, so it needs no input (reading it first is still ``pto.interp.input``)."""
    r = pl.root.get(name, name)
    for st in walk(fn.body or []):
        if (st.op in COMM_SPECIAL or collective(st)) and st.op not in WAITING_OPS:
            written = st.outs if st.kind == "dps" else (st.ins[:-2] if st.op == "pto.tbroadcast" else st.ins[:1])
            if any(getattr(o, "name", None) and pl.root.get(o.name, o.name) == r for o in written):
                return True
    return False


def _operands(it, st, env) -> list:
    ops = [*st.outs, *st.ins] if st.kind == "dps" else list(st.ins)
    return [it._get(env, o, st) for o in ops]


def _attrs(st, **names) -> dict:
    """The statement's attributes renamed to the Python keywords (``atomicType`` -> ``atomic``)."""
    out = {}
    for key, v in st.attrs.items():
        param = names.get(key, key)
        out[param] = v
    return out


def _call(it, st, fn, args: list, writes: set, **kw):
    """Run ``fn`` on ``args`` with views as numpy windows; write back the windows at positions ``writes``."""
    windows: list = []
    tiles = [a for a in args if isinstance(a, Tile)]
    arrs = []
    for i, a in enumerate(args):
        if isinstance(a, (TensorView, PartView)):
            a = it._window_of(st, st.op[4:], a, tiles, "dst" if i in writes else "src", windows, i in writes)
        elif isinstance(a, sc.Scalar):
            a = a.value
            a = int(a) if isinstance(a, (int, np.integer)) else a
        arrs.append(a)
    out = fn(arrs, **kw, target=it.prof)
    for arr, pv, extra, write in windows:
        if write:
            g = pv.view.ptr.glob
            g.lanes[pv.flat_index(extra)] = arr.view(g.dtype.lane)
            g.written = True
    return out


def _signal_reader(it, st, v):
    """A function that reads the signal view's current elements (never written back)."""
    return lambda: it._window_of(st, st.op[4:], v, [], "signal", [], True)


def _name(v) -> str:
    pv = v.window() if isinstance(v, TensorView) else v
    return f"%{pv.view.ptr.glob.name}" + (f" at {list(pv.offsets)}" if isinstance(pv, PartView) else "")


def _tput(it, st, env, frame) -> None:
    a = _operands(it, st, env)
    kw = _attrs(st, atomicType="atomic", atomic_type="atomic")
    fn = comm.tput if st.op == "pto.tput" else comm.tget
    _call(it, st, lambda x, **k: fn(*x, **k), a, {0}, **kw)


def _tnotify(it, st, env, frame) -> None:
    a = _operands(it, st, env)            # outs(%signal) ins(%value), or %signal, %value
    _call(it, st, lambda x, **k: comm.tnotify(*x, **k), a, {0}, **_attrs(st, notify_op="op"))
    if it._ranks is not None:            # a block whose TWAIT this satisfied runs now (PTO155)
        state = it._block_state()
        it._ranks.wake()
        it._set_block_state(state)


def _test(it, st, env):
    a = _operands(it, st, env)
    if len(a) != 2 or not isinstance(a[0], (TensorView, PartView)):
        raise it._err(st, f"{st.op} takes a signal view and an i32 value", "pto.interp.operand")
    kw = _attrs(st)
    read = _signal_reader(it, st, a[0])     # a signal no input gave starts as zeros, like any written pointer
    value = a[1].value if isinstance(a[1], sc.Scalar) else a[1]
    value = int(value) if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else value
    cmp = comm._cmp(st.op[4:].upper(), kw.get("cmp", "eq"))
    comm._i32(st.op[4:].upper(), value, "cmp_value")
    comm._signal(st.op[4:].upper(), read(), one=False)
    return a[0], value, cmp, (lambda: comm.compare(read(), value, cmp)), read


def _twait(it, st, env, frame) -> None:
    v, value, cmp, holds, read = _test(it, st, env)
    if holds():
        return
    ranks, block = it._ranks, it.block

    def stuck(why: str) -> StateError:          # called in this block's thread, maybe while another's state is set
        name = (f"block {block}: " if it.blocks > 1 else "") + _name(v)
        return comm.wait_error("TWAIT", read(), value, cmp, why, name, source=it.program.source,
                               line=st.line, column=st.column)

    if ranks is None or ranks.current() is None:
        raise stuck("no other block runs that could change it" if it.blocks == 1 else
                    "it waits inside a cube/vector peer function, where tilesim runs no other block")
    state = it._block_state()
    try:
        ranks.wait_for(holds, "signal", st.op, stuck=lambda: stuck("every other block is done or waiting"))
    finally:
        it._set_block_state(state)


def _ttest(it, st, env, frame) -> None:
    v, value, cmp, holds, read = _test(it, st, env)
    ok = holds()
    if ok:
        it._spins = 0
    else:
        ranks = it._ranks
        state = it._block_state()
        moved = ranks is not None and ranks.pass_turn()
        it._set_block_state(state)
        it._spins = 0 if moved else it._spins + 1
        if it._spins >= _SPIN_LIMIT:
            raise StateError(f"block {it.block}: {_name(v)} was tested false {_SPIN_LIMIT:,} times in a row and "
                             "no other block can run to change it (the loop would spin for ever)",
                             instruction="TTEST", operand="signal", rule="pto.comm.spin", value=f"{cmp} {value}")
    it._bind(env, st, [sc.make_int("i1", int(ok))])


def _tbroadcast(it, st, env, frame) -> None:
    a = _operands(it, st, env)            # the group's views (outs), then src and the staging tile (ins)
    if len(a) < 3:
        raise it._err(st, "pto.tbroadcast takes the group's views, then src and the staging tile",
                      "pto.interp.operand")
    k = len(a) - 2
    _call(it, st, lambda x, **kw: comm.tbroadcast(x[:k], x[k], x[k + 1], **kw), a, set(range(k)))


def _treduce(it, st, env, frame) -> None:
    a = _operands(it, st, env)
    if len(a) < 4:
        raise it._err(st, "pto.treduce takes dst, the group's views, then the acc and recv tiles",
                      "pto.interp.operand")
    kw = _attrs(st, reduce_op="op", rootIdx="root", root_idx="root")
    if "root" in kw:
        kw["root"] = int(kw["root"])
    k = _tiles_at_end(a)             # acc, recv or acc, ping, pong
    _call(it, st, lambda x, **kw: comm.treduce(x[1:-k], x[0], *x[-k:], **kw), a, {0}, **kw)


def _tiles_at_end(a: list) -> int:
    """How many operands at the end are tiles (the staging, ping-pong or acc/recv tiles), at least 1."""
    k = 0
    while k < len(a) and isinstance(a[-1 - k], Tile):
        k += 1
    return max(k, 1)


def _root(st) -> dict:
    kw = _attrs(st, rootIdx="root", root_idx="root")
    if "root" in kw:
        kw["root"] = int(kw["root"])
    return kw


def _tgather(it, st, env, frame) -> None:
    a = _operands(it, st, env)            # dst (outs), the group's views, then the staging tile(s)
    k = _tiles_at_end(a)
    if st.kind != "dps" or len(a) < 3:
        raise it._err(st, "pto.tgather (collective) takes outs(dst) and ins(the group's views, then the staging "
                      "tile or the ping and pong tiles)", "pto.interp.operand")
    _call(it, st, lambda x, **kw: comm.tgather(x[1:-k], x[0], *x[-k:], **kw), a, {0}, **_root(st))


def _tscatter(it, st, env, frame) -> None:
    a = _operands(it, st, env)            # the group's views (outs), then src and the staging tile(s) (ins)
    k = _tiles_at_end(a)
    if st.kind != "dps" or len(a) < 3:
        raise it._err(st, "pto.tscatter (collective) takes outs(the group's views) and ins(src, then the staging "
                      "tile or the ping and pong tiles)", "pto.interp.operand")
    n = len(a) - k - 1
    _call(it, st, lambda x, **kw: comm.tscatter(x[:n], x[n], *x[n + 1:], **kw), a, set(range(n)), **_root(st))


_COLLECTIVE = {"pto.tgather": _tgather, "pto.tscatter": _tscatter}


def collective(st):
    """The handler of a collective ``pto.tgather``/``pto.tscatter`` (one with a view operand), else None (the
    tile op of that name)."""
    fn = _COLLECTIVE.get(st.op)
    if fn is None or not any("tensor_view" in getattr(t, "name", "") for t in (*st.in_types, *st.out_types)):
        return None
    return fn


#: the interpreter's handler of each communication statement (the async forms stay in :mod:`.interp`)
COMM_SPECIAL = {"pto.tput": _tput, "pto.tget": _tput, "pto.tnotify": _tnotify, "pto.twait": _twait,
                "pto.ttest": _ttest, "pto.tbroadcast": _tbroadcast, "pto.treduce": _treduce}
