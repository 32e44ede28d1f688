"""Sync ops under tilesim's sequential model: checked, recorded, and matched.

Every op runs to completion before the next starts, so synchronisation
changes no data. The sync ops are still read and checked (pipe names, event
ids, op types, buffer ids) and appended to an ordering trace
(:attr:`SyncState.trace`); a ``wait_flag``/``wait_event`` with no earlier
unmatched ``set_flag``/``record_event`` of the same (source, destination,
event), and a ``get_buf`` never released, are reported in
:attr:`SyncState.issues` (hardware would hang there; tilesim runs on).
Facts: PTOAS ``PTOAttrs.td`` (pipes, event ids 0..7, op types).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...errors import TilesimError
from .values import Opaque, Scalar

__all__ = ["PIPES", "EVENTS", "OP_TYPES", "SYNC_OPS", "SyncState"]

PIPES = ("PIPE_S", "PIPE_V", "PIPE_M", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_ALL", "PIPE_MTE4", "PIPE_MTE5",
         "PIPE_V2", "PIPE_FIX")
EVENTS = tuple(f"EVENT_ID{i}" for i in range(8))
OP_TYPES = ("TLOAD", "TSTORE_ACC", "TSTORE_VEC", "TMOV_M2L", "TMOV_M2S", "TMOV_M2B", "TMOV_M2V", "TMOV_V2M",
            "TMATMUL", "TVEC", "TVECWAIT_EVENT")

#: op -> operand kinds, in order ("pipe", "event" (EVENT_IDn or an index value), "optype", "int", "any")
SYNC_OPS = {
    "pto.set_flag": ("pipe", "pipe", "event"), "pto.wait_flag": ("pipe", "pipe", "event"),
    "pto.set_flag_dyn": ("pipe", "pipe", "event"), "pto.wait_flag_dyn": ("pipe", "pipe", "event"),
    "pto.record_event": ("optype", "optype", "event"), "pto.wait_event": ("optype", "optype", "event"),
    "pto.barrier": ("pipe",), "pto.pipe_barrier": ("pipe",), "pto.barrier_sync": ("optype",),
    "pto.get_buf": ("optype", "int", "*"), "pto.rls_buf": ("optype", "int", "*"),
    "pto.sync.set": ("pipe", "int", "*"), "pto.sync.wait": ("pipe", "int", "*"),
    "pto.sync_all": (), "pto.syncall": (), "pto.tsync": ("*",), "pto.set_ffts": ("any",),
}
_SETS = {"pto.set_flag": "flag", "pto.set_flag_dyn": "flag", "pto.record_event": "event", "pto.sync.set": "cross"}
_WAITS = {"pto.wait_flag": "flag", "pto.wait_flag_dyn": "flag", "pto.wait_event": "event", "pto.sync.wait": "cross"}
_KINDS = {"pipe": PIPES, "event": EVENTS, "optype": OP_TYPES}


@dataclass
class SyncState:
    """The ordering trace of one core, the outstanding flags, held buffers, and what did not match."""

    trace: list = field(default_factory=list)
    issues: list = field(default_factory=list)
    pending: Counter = field(default_factory=Counter)
    held: Counter = field(default_factory=Counter)

    def run(self, op: str, args: list, line: int) -> None:
        """Check ``args`` (enum words, ints or scalars) against ``op``'s operand kinds; record and match."""
        kinds = SYNC_OPS[op]
        if kinds and kinds[-1] != "*" and len(args) != len(kinds):
            raise TilesimError(f"takes {len(kinds)} operands ({', '.join(kinds)}), got {len(args)}", instruction=op,
                               operand="operands", rule="pto.sync.operands", value=len(args))
        vals = []
        for k, (kind, a) in enumerate(zip(kinds, args)):
            vals.append(self._check(op, kind, a, k))
        vals += [self._plain(a) for a in args[len(vals):]]
        key = tuple(vals)
        self.trace.append((line, op, key))
        if op in _SETS:
            self.pending[(_SETS[op], key)] += 1
        elif op in _WAITS:
            if self.pending[(_WAITS[op], key)] > 0:
                self.pending[(_WAITS[op], key)] -= 1
            else:
                self.issues.append(f"line {line}: {op}[{', '.join(map(str, key))}] has no earlier matching "
                                   f"{'set' if _WAITS[op] != 'event' else 'record'}")
        elif op == "pto.get_buf":
            self.held[key[:2]] += 1
        elif op == "pto.rls_buf":
            if self.held[key[:2]] <= 0:
                self.issues.append(f"line {line}: pto.rls_buf[{', '.join(map(str, key))}] releases a buffer "
                                   "no get_buf holds")
            else:
                self.held[key[:2]] -= 1

    def finish(self) -> None:
        for (kind, key), n in self.pending.items():
            if n > 0 and kind != "cross":
                self.issues.append(f"{n} {kind} signal(s) {list(key)} set but never waited for")
        for key, n in self.held.items():
            if n > 0:
                self.issues.append(f"get_buf{list(key)} never released")

    @staticmethod
    def _plain(a):
        return a.value if isinstance(a, Scalar) else a

    def _check(self, op: str, kind: str, a, k: int):
        if kind in ("*", "any"):
            return self._plain(a)
        if kind == "int" or (kind == "event" and isinstance(a, Scalar)):
            v = self._plain(a)
            if isinstance(a, Opaque) or not isinstance(v, int) or isinstance(v, bool):
                raise TilesimError(f"operand {k} must be an integer", instruction=op, operand=str(k),
                                   rule="pto.sync.operands", value=v)
            if kind == "event" and not 0 <= v < len(EVENTS):
                raise TilesimError(f"event id {v} is outside 0..{len(EVENTS) - 1}", instruction=op, operand=str(k),
                                   rule="pto.sync.event", value=v)
            return EVENTS[v] if kind == "event" else v
        allowed = _KINDS[kind]
        if a not in allowed:
            raise TilesimError(f"operand {k} must be a {kind}: one of {', '.join(allowed)}", instruction=op,
                               operand=str(k), rule=f"pto.sync.{kind}", value=a)
        return a
