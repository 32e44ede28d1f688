"""Static facts about a function body that the interpreter needs before running it.

* Liveness: the statement after which each tile is dead, so auto placement
  may reuse its bytes (what PTOAS's PlanMemory does). A value's last use is
  the last statement that names it, or the outermost loop that encloses that
  statement but not the value's definition; values that view the same bytes
  or state (``treshape``, ``subset``, ``tassign``'s result, views of a
  pointer, ``iter_args``/``yield``/``scf.if`` results) share one lifetime.
* Which names the program reads (an argument that is only written may be
  left out of the inputs; one that is read may not).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .forms import op_key
from .parser import Operand, Stmt

__all__ = ["Plan", "plan"]

#: ops whose result views its first operand's bytes or state
_VIEW_OPS = {"pto.treshape", "pto.bitcast", "pto.bind_tile", "pto.addptr", "memref.subview", "memref.cast"}
_VIEW_KINDS = {"tassign", "set_valid", "subset", "make_view", "part_view", "reinterpret"}
_LOOPS = ("for", "while")


def _names(ops) -> list[str]:
    out = []
    for o in ops:
        if isinstance(o, Operand) and o.kind in ("value", "indexed"):
            out.append(o.name)
            out += [v for k, v in o.indices if k == "value"]
        elif isinstance(o, tuple) and len(o) == 2 and o[0] == "value":
            out.append(o[1])
    return out


def uses(st: Stmt) -> list[str]:
    """Every name a statement reads (operands, bounds, shapes, offsets, addresses, loop inits)."""
    names = _names(st.ins) + _names(st.outs)
    for key in ("bounds", "shape", "strides", "offsets", "sizes", "valid", "offset"):
        v = st.extra.get(key)
        if isinstance(v, list):
            names += _names(v)
    if "addr" in st.extra:
        names += _names([st.extra["addr"]])
    names += _names(st.extra.get("kw", {}).values())
    names += _names([o for _, o in st.extra.get("iter_args", [])] + [o for _, o in st.extra.get("inits", [])])
    names += _names(st.extra.get("kw_operands", []))
    return names


@dataclass
class Plan:
    """``free_after[id(stmt)]``: names whose tiles are dead once ``stmt`` finishes."""

    free_after: dict = field(default_factory=dict)
    reads: set = field(default_factory=set)
    root: dict = field(default_factory=dict)

    def is_read(self, name: str) -> bool:
        """Whether ``name``, or a view of it, is read."""
        r = self.root.get(name, name)
        return any(self.root.get(n, n) == r for n in self.reads)


class _UF:
    def __init__(self) -> None:
        self.p: dict = {}

    def find(self, x):
        self.p.setdefault(x, x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[rb] = ra


def plan(body: list, args: list | None = None, callee_reads=None) -> Plan:
    """Liveness and reads of a function body (``args``: the argument names, defined before it).

    ``callee_reads(name, k)``: whether function ``name`` reads its ``k``-th argument (default: every
    argument passed to a call counts as read)."""
    uf = _UF()
    order: dict[int, int] = {}                 # id(stmt) -> order of its completion
    defined: dict[str, tuple] = {n: () for n in (args or [])}
    def_stmt: dict[str, Stmt] = {}
    seen: list[tuple[str, Stmt, tuple]] = []
    out = Plan()
    counter = [0]

    def walk(stmts: list, loops: tuple) -> None:
        for st in stmts:
            counter[0] += 1
            for name in uses(st):
                seen.append((name, st, loops))
            if st.kind == "generic" and not st.results:         # assembly form: one operand is written
                out.reads.update(_names(st.ins[:1] if op_key(st.op) == "tstore" else st.ins[1:]))
            elif st.kind == "call" and callee_reads is not None:
                out.reads.update(n for k, n in enumerate(_names(st.ins)) if callee_reads(st.extra["callee"], k))
            elif st.kind == "dps" or st.kind in ("generic", "quoted", "call", "yield", "return", "condition", "if"):
                out.reads.update(_names(st.ins))
            if st.kind == "dps" and str(st.attrs.get("atomic", st.attrs.get("atomicType", "none"))) not in (
                    "none", "#pto<atomic_type none>"):
                out.reads.update(_names(st.outs))
            if st.op in _VIEW_OPS or st.kind in _VIEW_KINDS:
                for r in st.results:
                    for n in _names(st.ins[:1]):
                        uf.union(r, n)
            iters = st.extra.get("iter_args", []) + st.extra.get("inits", [])
            for k, (acc, init) in enumerate(iters):
                defined[acc] = loops + (id(st),)
                for n in _names([init]):
                    uf.union(acc, n)
                if k < len(st.results):
                    uf.union(acc, st.results[k])
            inner = loops + ((id(st),) if st.kind in _LOOPS else ())
            for region in st.regions:
                for s in region:
                    if s.kind == "label":
                        for n, _ in s.extra["args"]:
                            defined[n] = inner
                walk(region, inner)
                last = region[-1] if region else None
                if last is not None and last.kind in ("yield", "condition"):
                    vals = _names(last.ins[1:] if last.kind == "condition" else last.ins)
                    for k, n in enumerate(vals):
                        if k < len(st.results):
                            uf.union(st.results[k], n)
                        if k < len(iters):
                            uf.union(iters[k][0], n)
            if st.kind == "for":
                defined[st.extra["var"]] = inner
            for r in st.results:
                defined[r] = loops
                def_stmt[r] = st
            counter[0] += 1
            order[id(st)] = counter[0]

    walk(body, ())
    last: dict = {}
    for name, st, loops in seen:
        own = defined.get(name, ())
        outer = [lp for lp in loops if lp not in own]
        trigger = outer[0] if outer else id(st)
        root = uf.find(name)
        if order[trigger] > last.get(root, (0, None))[0]:
            last[root] = (order[trigger], trigger)
    for name, st in def_stmt.items():
        at = last.get(uf.find(name))
        trigger = at[1] if at is not None else id(st)
        out.free_after.setdefault(trigger, set()).add(name)
    out.root = {n: uf.find(n) for n in list(uf.p)}
    return out
