"""Communication folders (TPUT, TGET and their async forms, TNOTIFY, TTEST, TBROADCAST, TREDUCE, TWAIT): the
kernels pass buffers of one process, so one block runs them through ``tilesim.pto.comm``; TWAIT's thread
scenarios run as blocks of a generated ``.pto`` kernel (PTO155)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import comm

from ptoisa_st import Row, _int, each_case, eps_of, refusals, score


def _form(n: int):
    """A case of ``<T, n - 1 more>``."""
    return lambda c: None if len(c.args) == n else "not the folder's form"


def run_copy(folder: Path, st: Path, verbose: bool) -> Row:
    """TPUT/TGET (``<T, GROWS, GCOLS, TROWS, TCOLS>``, a TROWS x TCOLS staging tile) and their async forms
    (``<T, GROWS, GCOLS, Peer>``, no tile): ``input.bin`` copied into a fresh array, compared with
    ``golden.bin``."""
    op = folder.name
    row = Row(op)
    is_async = op.endswith("_async")
    for case in each_case(folder, st, row, _form(4 if is_async else 5)):
        with refusals(row, case):
            dt = case.dtype
            gr, gc = _int(case.args[1]), _int(case.args[2])
            src = case.read("input.bin", dt, gr, gc)
            dst = np.zeros_like(src)
            staging = () if is_async else (pto.Tile("vec", dt, _int(case.args[3]), _int(case.args[4])),)
            getattr(comm, op)(dst, src, *staging, target="cpu")
            score(row, case, verbose, (dst, case.read("golden.bin", dt, gr, gc), dt))
    return row


def run_tnotify(folder: Path, st: Path, verbose: bool) -> Row:
    """TNOTIFY (``<op_type>``: 1 AtomicAdd, else Set): the signal ``sharedMemory.bin`` notified with the first
    element of ``signal.bin``; the kernel's ``out[0]`` (the signal after) compared with ``golden.bin``."""
    row = Row(folder.name)
    eps = eps_of((folder / "main.cpp").read_text(), "int32_t")
    form = lambda c: None if len(c.args) == 1 and c.dir is not None and eps is not None else "not the form"  # noqa
    for case in each_case(folder, st, row, form, exempt=lambda c: True):  # the kernel alone names int32_t
        case = dataclasses.replace(case, eps=eps, dtype="i32")
        with refusals(row, case):
            sig = np.fromfile(case.dir / "sharedMemory.bin", np.int32, 1)
            value = int(np.fromfile(case.dir / "signal.bin", np.int32, 1)[0])
            comm.tnotify(sig, value, op="atomic_add" if _int(case.args[0]) == 1 else "set", target="cpu")
            score(row, case, verbose, (sig.view(np.uint32), case.read("golden.bin", "i32", 1, 1).ravel(), "i32"))
    return row


def _cmp_word(arg: str) -> str:
    """``pto::comm::WaitCmp::LE`` -> ``le`` (also ReduceOp's words)."""
    return arg.rsplit("::", 1)[-1].lower()


def run_ttest(folder: Path, st: Path, verbose: bool) -> Row:
    """TTEST (``<int32_t, GROWS, GCOLS, TROWS, TCOLS, WaitCmp>``): the kernel's ``Signal`` over ``input.bin`` is
    its first element; tested against both values of ``cmp_file.bin``, the two results compared with the two
    bools of ``golden.bin`` (main.cpp's EXPECT_TRUE, no eps)."""
    row = Row(folder.name)
    form = lambda c: None if len(c.args) == 6 and c.dir is not None else "not the folder's form"  # noqa: E731
    for case in each_case(folder, st, row, form, exempt=lambda c: True):
        with refusals(row, case):
            sig = np.fromfile(case.dir / "input.bin", np.int32, 1)
            values = np.fromfile(case.dir / "cmp_file.bin", np.int32, 2)
            got = [comm.ttest(sig, int(v), cmp=_cmp_word(case.args[5]), target="cpu") for v in values]
            ok = got == np.fromfile(case.dir / "golden.bin", np.bool_, 2).tolist()
            row.tally(case.name, ok, ok, verbose)
    return row


def run_tbroadcast(folder: Path, st: Path, verbose: bool) -> Row:
    """TBROADCAST (``<T, D0, D1, D2, D3, D4, KN>``): ``input.bin`` (D0..D4) broadcast to KN consecutive copies
    of one output buffer (the kernel's group), with a D3 x D4 staging tile; compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _form(7)):
        with refusals(row, case):
            dt = case.dtype
            shape, kn = tuple(_int(a) for a in case.args[1:6]), _int(case.args[6])
            n = int(np.prod(shape))
            src = case.read("input.bin", dt, 1, n).reshape(shape)
            out = np.zeros(kn * n, src.dtype)
            comm.tbroadcast([out[k * n:(k + 1) * n].reshape(shape) for k in range(kn)], src,
                            pto.Tile("vec", dt, shape[3], shape[4]), target="cpu")
            score(row, case, verbose, (out, case.read("golden.bin", dt, 1, kn * n).ravel(), dt))
    return row


def run_treduce(folder: Path, st: Path, verbose: bool) -> Row:
    """TREDUCE (``<T, GROWS, GCOLS, TROWS, TCOLS, ReduceOp>``): the root (rank 0) reduces ``input0.bin`` and
    ``input1.bin`` through two TROWS x GCOLS tiles (the kernel's accTile, recvTile); compared with ``golden.bin``."""
    row = Row(folder.name)
    for case in each_case(folder, st, row, _form(6)):
        with refusals(row, case):
            dt = case.dtype
            d = pto.get_dtype(dt)
            gr, gc, tr = _int(case.args[1]), _int(case.args[2]), _int(case.args[3])
            group = [case.read(f"input{k}.bin", dt, gr, gc).view(d.np) for k in (0, 1)]
            dst = np.zeros((gr, gc), d.np)
            comm.treduce(group, dst, pto.Tile("vec", dt, tr, gc), pto.Tile("vec", dt, tr, gc),
                         op=_cmp_word(case.args[5]), root=0, target="cpu")
            score(row, case, verbose, (dst.view(d.lane), case.read("golden.bin", dt, gr, gc), dt))
    return row


_TWAIT_TEST = re.compile(r"TEST\(\s*TWait\s*,\s*(\w+)\s*\)\s*\{\s*ASSERT_TRUE\(\(?\s*(\w+)(?:<([^>]*)>)?\(([^)]*)\)")


@dataclass
class WaitRun:
    """One TWAIT scenario as blocks: block 0 waits on a ``sub`` region at ``at`` of a ``full`` int32 signal array
    (all ``init``) for each ``(value, cmp)`` of ``waits`` in turn; each of ``notifiers`` blocks applies ``steps``
    (``(value, op, times)``, TNOTIFY on every element of the region)."""

    waits: list
    steps: list
    notifiers: int = 1
    init: int = 0
    full: tuple = (1, 1)
    at: tuple = (0, 0)
    sub: tuple = (1, 1)


#: twait_kernel.cpp's scenarios (threads and sleeps there), by the function main.cpp's TEST calls
TWAIT_RUNS = {
    "RunTWaitBasic": lambda t, a: [WaitRun([(42, "EQ")], [(42, "Set", 1)])],
    "RunTWaitCompare": lambda t, a: [WaitRun([(th, cmp)], [(v, "Set", 1)], init=i) for i, v, th, cmp in (
        (0, 150, 100, "GE"), (0, 1, 0, "NE"), (0, 51, 50, "GT"), (100, 10, 20, "LE"), (100, 5, 10, "LT"))],
    "RunTWaitAtomic": lambda t, a: [WaitRun([(25 * a[0], "GE")], [(1, "AtomicAdd", 25)], notifiers=a[0])],
    "RunTWaitMatrix": lambda t, a: [WaitRun([(1, "EQ")], [(1, "Set", 1)], full=(t[0], t[1]), sub=(t[0], t[1]))],
    "RunTWaitMultiPhase": lambda t, a: [WaitRun([(1, "EQ"), (3, "GE"), (5, "EQ")],
                                                [(1, "Set", 1), (3, "Set", 1), (5, "Set", 1)])],
    "RunTWaitSubRegion": lambda t, a: [WaitRun([(1, "EQ")], [(1, "Set", 1)], full=(8, t[0]), at=(2, 5),
                                               sub=(t[1], t[2]))],
}
def twait_program(w: WaitRun) -> str:
    """The ``.pto`` kernel of one scenario: block 0 waits and copies the region into ``seen`` after each wait
    (TGET), every other block notifies each element of the region with scf.for loops."""
    (fr, fc), (r0, c0), (sr, sc) = w.full, w.at, w.sub
    full, sub = f"!pto.tensor_view<{fr}x{fc}xi32>", f"!pto.partition_tensor_view<{sr}x{sc}xi32>"
    seen_t = f"!pto.tensor_view<{len(w.waits) * sr}x{sc}xi32>"
    tile = "!pto.tile_buf<vec, 1x8xi32>"
    lines = [f"func.func @twait_case(%sig: !pto.ptr<i32>, %seen: !pto.ptr<i32>) {{",
             *[f"  %k{v} = arith.constant {v} : index" for v in sorted({0, 1, fr, fc, sr, sc, r0, c0,
                                                                      len(w.waits) * sr})],
             "  %bi = pto.get_block_idx", "  %b = arith.index_cast %bi : i64 to index",
             f"  %sv = pto.make_tensor_view %sig, shape = [%k{fr}, %k{fc}], strides = [%k{fc}, %k1] : {full}",
             f"  %region = pto.partition_view %sv, offsets = [%k{r0}, %k{c0}], sizes = [%k{sr}, %k{sc}] : {full} "
             f"-> {sub}",
             f"  %seenv = pto.make_tensor_view %seen, shape = [%k{len(w.waits) * sr}, %k{sc}], strides = [%k{sc}, "
             f"%k1] : {seen_t}",
             f"  %t = pto.alloc_tile : {tile}",
             "  %waiter = arith.cmpi eq, %b, %k0 : index", "  scf.if %waiter {"]
    for k, (value, cmp) in enumerate(w.waits):
        lines += [f"    %v{k} = arith.constant {value} : i32", f"    %r{k} = arith.constant {k * sr} : index",
                  f"    pto.twait ins(%region, %v{k} : {sub}, i32) {{cmp = #pto.cmp<{cmp}>}}",
                  f"    %s{k} = pto.partition_view %seenv, offsets = [%r{k}, %k0], sizes = [%k{sr}, %k{sc}] : "
                  f"{seen_t} -> {sub}",
                  f"    pto.tget ins(%region, %t : {sub}, {tile}) outs(%s{k} : {sub})"]
    lines.append("  } else {")
    for k, (value, op, times) in enumerate(w.steps):
        lines += [f"    %n{k} = arith.constant {value} : i32", f"    %m{k} = arith.constant {times} : index",
                  f"    scf.for %q{k} = %k0 to %m{k} step %k1 {{",
                  f"      scf.for %i{k} = %k0 to %k{sr} step %k1 {{",
                  f"        scf.for %j{k} = %k0 to %k{sc} step %k1 {{",
                  f"          %row{k} = arith.addi %i{k}, %k{r0} : index",
                  f"          %col{k} = arith.addi %j{k}, %k{c0} : index",
                  f"          %e{k} = pto.partition_view %sv, offsets = [%row{k}, %col{k}], sizes = [%k1, %k1] : "
                  f"{full} -> !pto.partition_tensor_view<1x1xi32>",
                  f"          pto.tnotify ins(%n{k} : i32) outs(%e{k} : !pto.partition_tensor_view<1x1xi32>) "
                  f"{{op = #pto.notify_op<{op}>}}",
                  "        }", "      }", "    }"]
    lines += ["  }", "  return", "}"]
    return "\n".join(lines) + "\n"


def run_twait(folder: Path, st: Path, verbose: bool) -> Row:
    """TWAIT: main.cpp's TESTs call twait_kernel.cpp's thread scenarios (a notifier thread stores after a sleep,
    the main thread waits). Each runs here as blocks of a ``.pto`` kernel (:func:`twait_program`, PTO155): block
    0 waits and records the signal after each wait, the notifier threads are blocks 1..N. A case passes when
    every recorded value satisfies its wait's condition (the scenario's own check) and the elements outside
    the waited region are untouched."""
    row = Row(folder.name)
    tests = _TWAIT_TEST.findall((folder / "main.cpp").read_text())
    row.cases = len(re.findall(r"\bTEST\(", (folder / "main.cpp").read_text()))
    row.not_mapped = row.cases - len(tests)
    for name, fn, targs, cargs in tests:
        if fn not in TWAIT_RUNS:
            row.not_mapped += 1
            row.reasons.append(f"{name}: no scenario for {fn}")
            continue
        ints = lambda text: [_int(v) for v in text.split(",") if v.strip()]          # noqa: E731
        ok = True
        try:
            for w in TWAIT_RUNS[fn](ints(targs or ""), ints(cargs)):
                sig = np.full(w.full, w.init, np.int32)
                out = pto.run_text(twait_program(w), {"sig": sig}, "cpu", blocks=1 + w.notifiers)
                seen = out["seen"].reshape(len(w.waits), *w.sub)
                ok &= all(pto.comm.compare(seen[k], v, cmp.lower()) for k, (v, cmp) in enumerate(w.waits))
                outside = np.ones(w.full, bool)
                outside[w.at[0]:w.at[0] + w.sub[0], w.at[1]:w.at[1] + w.sub[1]] = False
                ok &= bool((out["sig"].reshape(w.full)[outside] == w.init).all())
        except TilesimError as e:
            row.refused += 1
            row.reasons.append(f"{name}: refused: {e.rule}")
            continue
        row.tally(name, ok, ok, verbose)
    return row


ADAPTERS = {**{op: run_copy for op in ("tput", "tget", "tput_async", "tget_async")}, "tnotify": run_tnotify,
            "ttest": run_ttest, "tbroadcast": run_tbroadcast, "treduce": run_treduce, "twait": run_twait}
