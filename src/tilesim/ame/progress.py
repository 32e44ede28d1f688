"""A rich progress bar that appears only once a long computation has run for a while."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator

__all__ = ["bar", "DELAY_S"]

DELAY_S = 1.0  # a computation shorter than this shows no bar


@contextmanager
def bar(macs: int, show: bool | None = None, forward: Callable[[int, int], None] | None = None,
        description: str = "GEMM", console=None) -> Iterator[Callable[[int, int], None] | None]:
    """A ``tick(done, total)`` callback that draws a bar on stderr after :data:`DELAY_S` seconds.

    ``show``: ``None`` draws it when stderr is a terminal; ``forward`` receives every tick too (a
    caller's own progress display: then no bar is drawn). ``console``: a rich Console (default: stderr).
    Yields ``None`` when there is nothing to do.
    """
    if show is None:
        show = forward is None and sys.stderr.isatty()
    if not show:
        yield forward
        return
    from rich.console import Console
    from rich.progress import Progress

    start = time.perf_counter()
    state: dict = {}

    def tick(done: int, total: int) -> None:
        if forward is not None:
            forward(done, total)
        if "bar" not in state:
            if time.perf_counter() - start < DELAY_S:
                return
            state["bar"] = Progress(console=console or Console(stderr=True), transient=True)
            state["bar"].start()
            state["task"] = state["bar"].add_task(f"{description} ({macs:,} MACs)", total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield tick
    finally:
        if "bar" in state:
            state["bar"].stop()
