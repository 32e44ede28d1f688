"""Progress of a long command where no bar can be drawn: one line on stderr at intervals (decision E15).

Every ``tilesim`` command runs inside :func:`reporting`. When stderr is a file
or a pipe (a CI log), a thread prints the command's latest state every
``TILESIM_PROGRESS_S`` seconds (default 10; ``0`` turns it off), the first
after one interval, so a short run prints nothing::

    tilesim study: 12/40 points (30%), 20 s

Commands report their state with :func:`update`; one that does not still gets
``running`` and the time. On a terminal the commands draw rich bars instead.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

__all__ = ["Ticker", "reporting", "update", "INTERVAL_ENV", "DEFAULT_S"]

INTERVAL_ENV = "TILESIM_PROGRESS_S"
DEFAULT_S = 10.0


class Ticker:
    """The state of one command and the thread that prints it every ``interval`` seconds."""

    def __init__(self, command: str, stream: TextIO, interval: float) -> None:
        self.command, self.stream, self.interval = command, stream, interval
        self.what, self.done, self.total = "running", None, None
        self.start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tilesim-progress", daemon=True)

    def update(self, what: str, done: int | None = None, total: int | None = None) -> None:
        self.what, self.done, self.total = what, done, total

    def line(self) -> str:
        """``tilesim gemm: int8: K-slice 3/16 (19%), 20 s``."""
        count = ""
        if self.done is not None:
            count = f" {self.done:,}" + (f"/{self.total:,} ({100 * self.done // max(self.total, 1)}%)"
                                         if self.total else "")
        return f"{self.command}: {self.what}{count}, {time.monotonic() - self.start:.0f} s"

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            print(self.line(), file=self.stream, flush=True)

    def __enter__(self) -> "Ticker":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


_current: list[Ticker] = []


def update(what: str, done: int | None = None, total: int | None = None) -> None:
    """Report the running command's state (what it does, and how far): shown at the next interval."""
    if _current:
        _current[-1].update(what, done, total)


def _interval() -> float:
    text = os.environ.get(INTERVAL_ENV, "")
    try:
        return float(text) if text else DEFAULT_S
    except ValueError:
        return DEFAULT_S


def _a_log(stream) -> bool:
    """A real file or pipe that is not a terminal (a test runner's captured stream has no file descriptor)."""
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return not stream.isatty()


@contextmanager
def reporting(command: str, stream: TextIO | None = None, interval: float | None = None) -> Iterator[None]:
    """Print ``command``'s progress to ``stream`` (default stderr) every ``interval`` seconds while the block runs,
    when the stream is a log, not a terminal."""
    stream = sys.stderr if stream is None else stream
    interval = _interval() if interval is None else interval
    if interval <= 0 or not _a_log(stream):
        yield
        return
    with Ticker(command, stream, interval) as ticker:
        _current.append(ticker)
        try:
            yield
        finally:
            _current.remove(ticker)
