"""pto-isa's second st tree, ``tests/cpu/comm/st/testcase`` (rows ``comm/<folder>``): TGATHER and TSCATTER's
collective forms (plain, chunked and ping-pong) and TPUT_ASYNC/TGET_ASYNC on the URMA engine. Each gtest calls
one host runner (``RunGather<T, count>(nranks, ...)``, ``RunScatterPingPong_Int32_128x32_tile16(...)``) whose
ranks fill their windows with ``i + rank * K``, the root runs the instruction, and each rank checks its buffer.
Here the ranks are tilesim's (PTO155: every rank's window is part of one global memory that the root
addresses); each rank's window is filled as the runner fills it, the instruction runs through
``tilesim.pto.comm``, and every rank's check must hold (PTO184, PTO186)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.pto import comm

from ptoisa_st import CXX_DTYPES, Case, Row, count_tests, refusals

_TEST = re.compile(r"^TEST\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{(.*?)^\}", re.S | re.M)
_CALL = re.compile(r"ASSERT_TRUE\(\(?\s*(\w+?)(?:<([^>]*)>)?\(([^()]*)\)\s*\)?\s*\)\s*;")
_NAMED = re.compile(r"_(Int32|Float)_(\d+)x(\d+)_tile(\d+)$")
_NAMED_T = {"Int32": "i32", "Float": "f32"}


@dataclass
class Run:
    """One runner call: dtype, per-rank rows x cols, ranks, root, staging tile rows, ping-pong, fill step K."""
    dt: str
    rows: int
    cols: int
    ranks: int
    root: int = 0
    tile_rows: int = 1
    pingpong: bool = False
    step: int = 10000


def _run(fn: str, targs: str, cargs: str) -> Run | None:
    """The runner call's scenario: ``Run<Op>[WithRoot|Empty]<T, count>(n, n, 0, 0[, root])`` (one row of
    ``count``, a 1 x count tile; Empty: 0 rows) or ``Run<Op>{LargeShape,PingPong}_<T>_<R>x<C>_tile<TR>(n, ...)``
    (R x C per rank, a TR x C tile, values ``i + rank * 100``)."""
    if not re.fullmatch(r"\s*\d+(?:\s*,\s*\d+)*\s*", cargs):
        return None
    args = [int(a) for a in cargs.split(",")]
    named = _NAMED.search(fn)
    if named:
        t, r, c, tr = named.groups()
        return Run(_NAMED_T[t], int(r), int(c), args[0], 0, int(tr), "PingPong" in fn, 100)
    t = [a.strip() for a in targs.split(",")] if targs else []
    if len(t) != 2 or t[0] not in CXX_DTYPES:
        return None
    count = int(t[1])
    root = args[4] if len(args) > 4 else 0
    return Run(CXX_DTYPES[t[0]], 0 if fn.endswith("Empty") else 1, count, args[0], root, 1)


def _fill(n: int, start: int, dt: str) -> np.ndarray:
    """``static_cast<T>(i + start)`` for i < n: integers wrap to the type's width, f32 is exact here."""
    np_t = pto.get_dtype(dt).np
    return (np.arange(n, dtype=np.int64) + start).astype(np_t)


def _collective(folder: Path, name: str, run: Run) -> bool:
    """TGATHER / TSCATTER: rank r's data ``i + r * K`` (per-rank rows x cols), the other side's buffers all -1
    (one row each where the tensors have 0 rows); after the root's instruction every rank's check holds: the
    gathered rows at the root, each rank's scattered rows (with 0 rows: every buffer still -1)."""
    n, dt, h, w = run.ranks, run.dt, run.rows, run.cols
    per = [_fill(max(h, 1) * w, r * run.step, dt).reshape(max(h, 1), w) for r in range(n)]
    tiles = [pto.Tile("vec", dt, run.tile_rows, w) for _ in range(1 + run.pingpong)]
    blank = lambda rows: np.full((rows, w), -1, np.int64).astype(pto.get_dtype(dt).np)   # noqa: E731
    if folder.name == "tgather":
        dst = blank(n * max(h, 1))
        comm.tgather([p[:h] for p in per], dst[:n * h], *tiles, root=run.root, target="cpu")
        return bool(np.array_equal(dst, np.concatenate(per) if h else blank(n)))
    ranks = [blank(max(h, 1)) for _ in range(n)]
    comm.tscatter([b[:h] for b in ranks], np.concatenate(per)[:n * h], *tiles, root=run.root, target="cpu")
    return all(np.array_equal(ranks[r], per[r] if h else blank(1)) for r in range(n))


_PREFIX = 64                              # the runners' 64 int32 sync words before the data


def _urma(folder: Path, name: str, run: Run) -> bool:
    """TPUT_ASYNC/TGET_ASYNC<URMA> between the ranks' windows (``[64 int32][send: count][recv]``, send
    ``i + rank * 10000``, recv -1): the root (rank 0) puts its send buffer into each other rank's recv buffer
    (each checks it holds the root's data), or gets each other rank's send buffer into its own recv buffer at
    ``peer * count`` (it checks each peer's slot)."""
    n, dt, count = run.ranks, run.dt, run.cols
    np_t = pto.get_dtype(dt).np
    put = folder.name == "tput_async_urma"
    lead = _PREFIX * 4 // np.dtype(np_t).itemsize
    windows = []
    for r in range(n):
        win = np.full(lead + count * (2 if put else n + 1), -1, np.int64 if count < 1 << 22 else np_t).astype(np_t)
        win[lead:lead + count] = _fill(count, r * 10000, dt)
        windows.append(win)
    send = lambda r: windows[r][lead:lead + count].reshape(1, count)                       # noqa: E731
    recv = lambda r, k=0: windows[r][lead + count * (1 + k):lead + count * (2 + k)].reshape(1, count)  # noqa: E731
    for peer in range(1, n):
        if put:
            comm.tput_async(recv(peer), send(0), engine="urma", target="cpu")
        else:
            comm.tget_async(recv(0, peer), send(peer), engine="urma", target="cpu")
    want = lambda r: _fill(count, r * 10000, dt).reshape(1, count)                        # noqa: E731
    return all(np.array_equal(recv(p), want(0)) if put else np.array_equal(recv(0, p), want(p)) for p in range(1, n))


def run_comm_st(folder: Path, st: Path, verbose: bool) -> Row:
    """Each ``TEST`` of the folder whose one ``ASSERT_TRUE`` calls a runner :func:`_run` reads; others are not
    mapped. A case passes when every rank's check holds."""
    main = (folder / "main.cpp").read_text()
    row = Row(f"comm/{folder.name}", cases=count_tests(main))
    check = _urma if folder.name.endswith("_urma") else _collective
    for _suite, name, body in _TEST.findall(main):
        calls = _CALL.findall(body)
        run = _run(*calls[0]) if len(calls) == 1 else None
        if run is None:
            row.not_mapped += 1
            row.reasons.append(f"{name}: not one runner call the adapter reads")
            continue
        with refusals(row, Case(name, [], folder, 0.0, run.dt)):
            ok = check(folder, name, run)
            row.tally(name, ok, ok, verbose)
    return row


ADAPTERS = {f"comm/{f}": run_comm_st for f in ("tgather", "tscatter", "tput_async_urma", "tget_async_urma")}
