"""tpush_a3 and tpush_a5: PTOAS-generated cube/vector kernels of a block's three threads (the cube and two vector
subblocks) around one DIR_BOTH pipe, run here as a small program of tilesim ops in the sequential model.

For each of 8 column blocks j of B (64 x 512) and C (32 x 512): each vector subblock TLOADs its half of A (32 x 64;
columns for TILE_LEFT_RIGHT, rows for TILE_UP_DOWN), adds 1 (TADDS; tpush_a5 then TMOVs it into an Nz vec tile)
and pushes it to the cube (v2c, split); the cube TLOADs B's block into an Nz mat tile, pops the joined A + 1,
TMOVs both to Left and Right, TMATMULs into an Acc tile and pushes it back (c2v, same split); each subblock pops
its half, adds it to its half of C's block (TLOAD, TADD) and TSTOREs it there. The threads' interleaving changes
no data (each payload is one slot's, PTO178), so the program runs subblock 0, subblock 1, then the cube, for
each block. The result is compared with ``golden.bin`` (C + (A + 1) @ B, numpy) by ResultCmp at 0.001."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tilesim import pto

from ptoisa_st import Row, each_case, refusals, score

from .common import tile

UD, LR = 1, 2
_LAUNCH = re.compile(r"key == (\d+)\)\s*\{\s*(LaunchTPut_\w+)\(")
#: a launcher's name -> the split its kernels use
_SPLITS = {"LaunchTPut_BI_LEFTRIGHT": LR, "LaunchTPut_BI_TOPDOWN": UD}
_CALLED = re.compile(r"TEST_F\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{\s*\w+(?:<(\d+)>)?\(")
M, K, N, BLOCK, BLOCKS = 32, 64, 512, 64, 8


def _halves(split: int):
    """The slices of A (M x K) and of a C block (M x BLOCK) that subblock 0 and 1 own."""
    if split == LR:
        return [(slice(None), slice(s * K // 2, (s + 1) * K // 2)) for s in (0, 1)]
    return [(slice(s * M // 2, (s + 1) * M // 2), slice(None)) for s in (0, 1)]


def program(a: np.ndarray, b: np.ndarray, c: np.ndarray, split: int, nz_push: bool) -> np.ndarray:
    """C after the kernel: tilesim's ops in the kernel's order, per block and thread."""
    c = c.copy()
    pipe = pto.TPipe(3, depth=4, subblocks=2)
    halves = _halves(split)
    a_half = []
    for rs, cs in halves:
        part = a[rs, cs]
        a_half.append(pto.tload(tile("f32", part.shape), np.ascontiguousarray(part), target="cpu"))
    nz = dict(blayout="col_major", slayout="row_major")
    for j in range(BLOCKS):
        block = (slice(None), slice(j * BLOCK, (j + 1) * BLOCK))
        for s in (0, 1):
            plus = pto.tadds(tile("f32", a_half[s].valid), a_half[s], 1.0, target="cpu")
            if nz_push:
                plus = pto.tmov(tile("f32", plus.valid, **nz), plus, target="cpu")
            pto.tpush(pipe, plus, split, direction="v2c", subblock=s)
        b_mat = pto.tload(tile("f32", (K, BLOCK), loc="mat", **nz), np.ascontiguousarray(b[block]), target="cpu")
        a_mat = pto.tpop(pipe, tile("f32", (M, K), loc="mat", **nz), split, direction="v2c")
        left = pto.tmov(tile("f32", (M, K), loc="left", blayout="row_major", slayout="row_major"), a_mat,
                        target="cpu")
        pto.tfree(pipe, split=split)
        right = pto.tmov(tile("f32", (K, BLOCK), loc="right", blayout="row_major", slayout="col_major"), b_mat,
                         target="cpu")
        acc = pto.tmatmul(tile("f32", (M, BLOCK), loc="acc", fractal=1024, **nz), left, right, target="cpu")
        pto.tpush(pipe, acc, split, direction="c2v")
        for s, (rs, cs) in enumerate(halves):           # a C block is as wide as A (BLOCK == K)
            c_blk = c[block][rs, cs]
            mine = pto.tload(tile("f32", c_blk.shape), np.ascontiguousarray(c_blk), target="cpu")
            got = pto.tpop(pipe, tile("f32", c_blk.shape), split, direction="c2v", subblock=s)
            out = pto.tadd(tile("f32", c_blk.shape), mine, got, target="cpu")
            pto.tfree(pipe, split=split, subblock=s)
            c[block][rs, cs] = pto.tstore(np.zeros(c_blk.shape, np.float32), out, target="cpu")
    return c


def run_push_kernel(folder: Path, st: Path, verbose: bool) -> Row:
    """The folder's gtests: tpush_a3's one kernel (TILE_LEFT_RIGHT through a GM FIFO buffer), tpush_a5's
    ``test_tpush<key>`` launchers (BI_LEFTRIGHT, BI_TOPDOWN; Nz vec tiles pushed)."""
    row = Row(folder.name)
    main = (folder / "main.cpp").read_text()
    launch = dict(_LAUNCH.findall(main))
    keys = {name: key for name, key in _CALLED.findall(main)}
    a5 = bool(launch)

    def split_of(case) -> int | None:
        if not a5:
            return LR if set(re.findall(r"TileSplitAxis::(TILE_\w+)", main)) == {"TILE_LEFT_RIGHT"} else None
        return _SPLITS.get(launch.get(keys.get(case.name, ""), ""))

    form = (lambda c: "gen_data.py made no data" if c.dir is None else
            None if split_of(c) else "not a BI_LEFTRIGHT or BI_TOPDOWN kernel")
    for case in each_case(folder, st, row, form, exempt=lambda c: True, plain=True):
        with refusals(row, case):
            a, b, c = (case.read(f, "f32", r, n).view(np.float32) for f, r, n in
                       (("a.bin", M, K), ("b.bin", K, N), ("c.bin", M, N)))
            got = program(a, b, c, split_of(case), a5)
            case.eps = case.eps if case.eps is not None else 0.001
            score(row, case, verbose, (got.view(np.uint32), case.read("golden.bin", "f32", M, N), "f32"))
    return row


ADAPTERS = {"tpush_a3": run_push_kernel, "tpush_a5": run_push_kernel}
