"""Prepared statements: a DPS tile op whose operands are plain tiles, resolved once and then run directly.

The first run of a statement goes the interpreter's general way (operand forms, views and windows, scalar
arguments, the DPS call rules of :mod:`.dispatch`). When every operand turned out to be a tile, named by an
SSA value, with no window, the statement gets a :class:`Step`: its operand names, its op function and how
:func:`~.dispatch.arrange` passes the operands and attributes. Later runs (a loop body) look the names up,
check that each is still a tile, and call the op; anything else (a name now bound to a view or a scalar)
takes the general way again for that run. The op's own checks run on every call, so a prepared statement
refuses what the general way refuses (decision PTO106). A loop body made only of prepared statements binds
them once (:meth:`Step.bind`) and runs its iterations as plain calls (decision PTO166).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tile import Tile
from .dispatch import TMP_SLOT, arrange
from .parser import Operand, Stmt

__all__ = ["Step", "prepare"]


@dataclass(frozen=True)
class Step:
    """One prepared DPS statement: ``names`` are its outs then its ins."""

    names: tuple[str, ...]
    n_outs: int
    fn: object
    order: tuple[int, ...]
    kw_slots: tuple[tuple[str, int], ...]
    kw: dict
    line: int
    op: str

    def run(self, env, prof, undefined: list) -> list | None:
        """Run with the tiles ``env`` binds now and return the out tiles; None (nothing done) when a name is
        not bound to a tile."""
        try:
            vals = [env[n] for n in self.names]
        except KeyError:
            return None
        for v in vals:
            if not isinstance(v, Tile):
                return None
        for v in vals:
            v.pull()
        marks = [(t, t.undefined) for t in vals[: self.n_outs]]
        self.fn(*[vals[i] for i in self.order], **self.kw, **{p: vals[i] for p, i in self.kw_slots}, target=prof)
        for t, before in marks:
            t.push()
            if t.undefined is not before and t.undefined is not None and t.undefined.any():
                undefined.append((self.line, self.op, int(np.count_nonzero(t.undefined))))
        return vals[: self.n_outs]

    def bind(self, env, prof, undefined: list):
        """The step as a call with the tiles ``env`` binds now, for a loop body whose names cannot be rebound
        between iterations (PTO166): ``call()`` does what :meth:`run` does, without looking anything up; None
        when a name is not bound to a tile."""
        try:
            vals = [env[n] for n in self.names]
        except KeyError:
            return None
        if not all(isinstance(v, Tile) for v in vals):
            return None
        fn, args, outs, line, op = self.fn, [vals[i] for i in self.order], vals[: self.n_outs], self.line, self.op
        kw = {**self.kw, **{p: vals[i] for p, i in self.kw_slots}, "target": prof}
        boxed = [v for v in vals if v.is_boxed]
        boxed_outs = [t for t in outs if t.is_boxed]
        if not boxed and len(outs) == 1:  # the common case, without the loops
            out = outs[0]

            def call_one() -> None:
                before = out.undefined
                fn(*args, **kw)
                u = out.undefined
                if u is not before and u is not None and u.any():
                    undefined.append((line, op, int(np.count_nonzero(u))))
            return call_one

        def call() -> None:
            for v in boxed:
                v.pull()
            before = [t.undefined for t in outs]
            fn(*args, **kw)
            for t in boxed_outs:
                t.push()
            for t, b in zip(outs, before):
                if t.undefined is not b and t.undefined is not None and t.undefined.any():
                    undefined.append((line, op, int(np.count_nonzero(t.undefined))))
        return call


def prepare(st: Stmt, key: str, fn, outs: list, ins: list) -> Step | None:
    """The :class:`Step` of a DPS statement that just ran with ``outs`` and ``ins`` (the values its operands
    resolved to), or None when it does not qualify (results, operands that are not plain tile values)."""
    if st.kind != "dps" or st.results:
        return None
    operands = [*st.outs, *st.ins]
    if not all(isinstance(o, Operand) and o.kind == "value" for o in operands):
        return None
    if not all(isinstance(v, Tile) for v in [*outs, *ins]):
        return None
    slot = TMP_SLOT.get(key)
    order, kw_slots, kw = arrange(key, fn, len(outs), len(ins), slot is not None and slot < len(ins),
                                  dict(st.attrs))
    return Step(tuple(o.name for o in operands), len(outs), fn, tuple(order), tuple(kw_slots), kw, st.line, st.op)
