"""Cube and vector functions that talk through TPUSH/TPOP pipes, run as coroutines (decision PTO29); the
blocks of a run that waits on signals (TWAIT, TTEST; PTO155) run the same way.

A call of a function that pushes or pops does not run at once: it is queued,
and when the calling function ends the queued calls run in turns. Exactly
one runs at a time (each in its own thread, handing a baton on), in call
order, until it finishes or pops from an empty FIFO; then the next one that
can make progress runs. When every unfinished call waits on an empty FIFO,
the first of them raises ``pto.pipe.empty`` (hardware would hang). The order
is deterministic, and since only one call runs at a time the interpreter's
state needs no locks.
"""

from __future__ import annotations

import threading
from typing import Callable

from ...errors import StateError

__all__ = ["Peers"]

_MAIN = "main"


class _Worker:
    def __init__(self, k: int, run: Callable[[], None]) -> None:
        self.k = k
        self.run = run
        self.state = "ready"          # ready / waiting / done
        self.wants: Callable[[], bool] | None = None
        self.exc: BaseException | None = None
        self.stuck = False


class Peers:
    """Queued pipe-using calls of one function, and the baton that decides which one runs."""

    def __init__(self) -> None:
        self.cv = threading.Condition()
        self.workers: list[_Worker] = []
        self.turn: object = _MAIN
        self.local = threading.local()

    def queue(self, run: Callable[[], None]) -> None:
        self.workers.append(_Worker(len(self.workers), run))

    def current(self) -> _Worker | None:
        return getattr(self.local, "worker", None)

    def run_all(self) -> None:
        """Run the queued calls to the end; raise the first error one of them raised."""
        if not self.workers:
            return
        threads = [threading.Thread(target=self._body, args=(w,), daemon=True) for w in self.workers]
        for t in threads:
            t.start()
        with self.cv:
            self.turn = self.workers[0]
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn is _MAIN)
        for t in threads:
            t.join()
        errors = [w.exc for w in self.workers if w.exc is not None]
        self.workers = []
        if errors:     # a peer left waiting on an empty pipe is a consequence; raise the cause first
            raise sorted(errors, key=lambda e: getattr(e, "rule", "") in ("pto.pipe.empty", "pto.comm.wait"))[0]

    def wait_for(self, ready: Callable[[], bool], direction: str, op: str,
                 stuck: Callable[[], BaseException] | None = None) -> None:
        """Called by a pop that finds its FIFO empty (or a TWAIT whose condition is false): let the other calls
        run until ``ready()``; when none can, raise ``stuck()`` (default ``pto.pipe.empty``)."""
        me = self.current()
        if me is None:
            return
        stuck = stuck or (lambda: _empty(direction, op))
        with self.cv:
            me.state, me.wants = "waiting", ready
            nxt = self._next(me)
            if nxt is None:
                me.state = "ready"
                raise stuck()
            self.turn = nxt
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn is me)
            me.state, me.wants = "ready", None
            if me.stuck:
                raise stuck()

    def pass_turn(self) -> bool:
        """Let the next call that can make progress run (a TTEST that found its signal false); False if none can."""
        me = self.current()
        if me is None:
            return False
        with self.cv:
            nxt = self._next(me)
            if nxt is None:
                return False
            self.turn = nxt
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn is me)
            return True

    def wake(self) -> bool:
        """Hand the turn to the first waiting call (round robin from this one) whose condition now holds, and
        come back when the turn returns (a TNOTIFY that satisfied a TWAIT); False if none waits for it."""
        me = self.current()
        if me is None:
            return False
        with self.cv:
            n = len(self.workers)
            ready = [w for w in (self.workers[(me.k + i) % n] for i in range(1, n)) if w.state == "waiting"
                     and w.wants is not None and w.wants()]
            if not ready:
                return False
            self.turn = ready[0]
            self.cv.notify_all()
            self.cv.wait_for(lambda: self.turn is me)
            return True

    def _body(self, w: _Worker) -> None:
        self.local.worker = w
        with self.cv:
            self.cv.wait_for(lambda: self.turn is w)
        try:
            w.run()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            w.exc = e
        with self.cv:
            w.state = "done"
            nxt = self._next(w)
            if nxt is None:
                waiting = [x for x in self.workers if x.state == "waiting"]
                if waiting:                      # every other call waits on an empty FIFO: deadlock
                    nxt = waiting[0]
                    nxt.stuck = True
            self.turn = nxt if nxt is not None else _MAIN
            self.cv.notify_all()

    def _next(self, me: _Worker) -> _Worker | None:
        n = len(self.workers)
        for i in range(1, n + 1):
            w = self.workers[(me.k + i) % n]
            if w is me:
                continue
            if w.state == "ready" or (w.state == "waiting" and w.wants is not None and w.wants()):
                return w
        return None


def _empty(direction: str, op: str) -> StateError:
    return StateError(f"the {direction} pipe is empty and every other cube/vector function is waiting or done "
                      "(on hardware this pop would wait for ever)", instruction=op, operand="pipe",
                      rule="pto.pipe.empty", value=direction)
