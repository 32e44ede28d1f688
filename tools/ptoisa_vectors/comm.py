"""The communication instructions on global memory (``pto::comm``; decisions PTO155, PTO156): TPUT (plain and
AtomicAdd), TGET, their async forms, TNOTIFY, TTEST, TWAIT (a condition that holds), TBROADCAST and TREDUCE.
The simulator runs them in one process, so "remote" buffers are the driver's other arrays."""

from __future__ import annotations

import numpy as np

from .common import CXX_TYPE, Case, Spec, conversion_pool, sentinel

#: element types of the data movers (the staging tile's dtype is the data's)
COMM_DTS = ("f32", "f16", "i32", "i16", "i8", "u8", "u16", "u32", "i64")
#: element types TREDUCE sums and compares (TADD/TMAX/TMIN's tile types on cpu)
REDUCE_DTS = ("f32", "f16", "i32", "i16")
_R, _C = 8, 64


def _gt(dt: str, rows: int, cols: int) -> str:
    return f"GlobalTensor<{CXX_TYPE[dt]}, Shape<1, 1, 1, {rows}, {cols}>, Stride<1, 1, 1, {cols}, 1>>"


def _gm(role: str, dt: str, rows: int = _R, cols: int = _C) -> Spec:
    return Spec(role, dt, rows, cols, loc="gm")


def comm_cases(rng) -> list[Case]:
    """TPUT/TGET and the async forms over every element size, TPUT's AtomicAdd in the data's arithmetic (NaNs,
    infinities, wrapping integers), TBROADCAST to three members, TREDUCE of three ranks (sum, max, min; roots 0
    and 2; chunks of 3 rows, the last one partial)."""
    cases = []
    for dt in COMM_DTS:
        src, old = (conversion_pool(rng, dt, _R * _C).reshape(_R, _C) for _ in range(2))
        cols = max(_C // 2, 32 // np.dtype(src.dtype).itemsize)
        stage = Spec("staging", dt, 2, cols)
        gt = _gt(dt, _R, _C)
        specs = (_gm("dst_gm", dt), _gm("src_gm", dt), stage)
        valid = {"dst_gm": (_R, _C), "src_gm": (_R, _C), "staging": (2, cols)}
        data = {"dst_gm": old, "src_gm": src, "staging": sentinel(dt, (2, cols))}
        for op, call, args in (
                ("tput", "comm::TPUT(d, s, staging);", {}),
                ("tput", "comm::TPUT<AtomicType::AtomicAdd>(d, s, staging);", {"atomic": "add"}),
                ("tget", "comm::TGET(d, s, staging);", {})):
            cases.append(Case(op, f"{gt} d(dst_gm.data()), s(src_gm.data()); {call}", specs, valid, data, (), args))
        for op in ("tput_async", "tget_async"):
            call = f"{gt} d(dst_gm.data()), s(src_gm.data()); comm::AsyncSession ses; comm::{op.upper()}(d, s, ses);"
            cases.append(Case(op, call, specs[:2], {k: valid[k] for k in ("dst_gm", "src_gm")},
                              {k: data[k] for k in ("dst_gm", "src_gm")}))
        members = 3
        bspecs = (*(_gm(f"dst_gm{k}", dt) for k in range(members)), _gm("src_gm", dt), stage)
        call = (f"using GT = {gt}; GT s(src_gm.data()); GT t[{members}] = {{"
                + ", ".join(f"GT(dst_gm{k}.data())" for k in range(members))
                + f"}}; comm::ParallelGroup<GT> g(t, {members}, 0); comm::TBROADCAST(g, s, staging);")
        cases.append(Case("tbroadcast", call, bspecs, {s.role: valid.get(s.role, (_R, _C)) for s in bspecs},
                          {**{f"dst_gm{k}": sentinel(dt, (_R, _C)) for k in range(members)}, "src_gm": src,
                           "staging": data["staging"]}))
    cases += reduce_cases(rng)
    cases += signal_cases(rng)
    return cases


def reduce_cases(rng) -> list[Case]:
    """TREDUCE: three ranks' arrays combined into dst at the root, through 3-row tiles (the last chunk has 2)."""
    cases = []
    for dt in REDUCE_DTS:
        ranks = [conversion_pool(rng, dt, _R * _C).reshape(_R, _C) for _ in range(3)]
        gt = _gt(dt, _R, _C)
        specs = (_gm("dst_gm", dt), *(_gm(f"src{k}_gm", dt) for k in range(3)), Spec("acc", dt, 3, _C),
                 Spec("recv", dt, 3, _C))
        for op, root in (("Sum", 0), ("Max", 2), ("Min", 1), ("Sum", 2)):
            call = (f"using GT = {gt}; GT d(dst_gm.data()); GT t[3] = {{GT(src0_gm.data()), GT(src1_gm.data()), "
                    f"GT(src2_gm.data())}}; comm::ParallelGroup<GT> g(t, 3, {root}); "
                    f"comm::TREDUCE(g, d, acc, recv, comm::ReduceOp::{op});")
            cases.append(Case("treduce", call, specs, {s.role: (3, _C) if s.loc == "vec" else (_R, _C) for s in specs},
                              {"dst_gm": sentinel(dt, (_R, _C)), **{f"src{k}_gm": ranks[k] for k in range(3)},
                               "acc": sentinel(dt, (3, _C)), "recv": sentinel(dt, (3, _C))}, (),
                              {"op": op.lower(), "root": root}))
    return cases


#: (signal values, value, NotifyOp) for TNOTIFY: wrapping adds at both ends of int32
NOTIFIES = ((7, 5, "Set"), (7, -9, "AtomicAdd"), (2 ** 31 - 1, 1, "AtomicAdd"), (-2 ** 31, -1, "AtomicAdd"),
            (-3, -2 ** 31, "Set"))
#: (signal elements, value, WaitCmp) for TTEST (every element compared) and, where it holds, TWAIT
TESTS = (([4, 4, 4, 4], 4, "EQ"), ([4, 4, 5, 4], 4, "EQ"), ([1, 2, 3, 4], 0, "NE"), ([1, 0, 3, 4], 0, "NE"),
         ([5, 6, 7, 8], 4, "GT"), ([5, 6, 4, 8], 4, "GT"), ([4, 6, 7, 8], 4, "GE"), ([-2 ** 31] * 4, 2 ** 31 - 1, "LT"),
         ([1, 2, 3, 4], 4, "LE"), ([1, 2, 3, 5], 4, "LE"))


def signal_cases(rng) -> list[Case]:
    """TNOTIFY on one int32 signal, TTEST (its bool stored in ``dst_gm``) and TWAIT on a 2x2 Signal2D."""
    cases = []
    for old, value, op in NOTIFIES:
        call = f"comm::Signal s(dst_gm.data()); comm::TNOTIFY(s, P[0], comm::NotifyOp::{op});"
        cases.append(Case("tnotify", call, (_gm("dst_gm", "i32", 1, 1),), {"dst_gm": (1, 1)},
                          {"dst_gm": np.array([[old]], np.int32).view(np.uint32)}, (value,),
                          {"value": value, "op": "atomic_add" if op == "AtomicAdd" else "set"}))
    for elems, value, cmp in TESTS:
        sig = np.array(elems, np.int64).astype(np.int32).reshape(2, 2).view(np.uint32)
        holds = "comm::Signal2D<2, 2> s(sig_gm.data()); dst_gm[0] = comm::TTEST(s, P[0], comm::WaitCmp::" + cmp + ");"
        specs = (_gm("dst_gm", "i32", 1, 1), _gm("sig_gm", "i32", 2, 2))
        cases.append(Case("ttest", holds, specs, {"dst_gm": (1, 1), "sig_gm": (2, 2)},
                          {"dst_gm": sentinel("i32", (1, 1)), "sig_gm": sig}, (value,),
                          {"value": value, "cmp": cmp.lower()}))
        ok = {"EQ": np.equal, "NE": np.not_equal, "GT": np.greater, "GE": np.greater_equal, "LT": np.less,
              "LE": np.less_equal}[cmp](np.array(elems, np.int64), value).all()
        if ok:                            # a TWAIT that returns at once; the signal is its output, unchanged
            call = f"comm::Signal2D<2, 2> s(dst_gm.data()); comm::TWAIT(s, P[0], comm::WaitCmp::{cmp});"
            cases.append(Case("twait", call, (_gm("dst_gm", "i32", 2, 2),), {"dst_gm": (2, 2)}, {"dst_gm": sig},
                              (value,), {"value": value, "cmp": cmp.lower()}))
    return cases


def collective_cases(rng) -> list[Case]:
    """The collective TGATHER/TSCATTER (bank ops ``comm_tgather``/``comm_tscatter``: three ranks of 3 x 64, the
    whole array 11 rows, so that the rows beyond 3 x 3 show they are left alone; one staging tile, or ping and
    pong) on every element size, and the ping-pong forms (PTO184, PTO185): TPUT (AtomicAdd too) and TGET with
    two staging tiles, TREDUCE of four ranks with acc, ping and pong (3-row chunks, the last one partial), and
    TPUT_ASYNC/TGET_ASYNC on the URMA engine (PTO186)."""
    cases = []
    h, n, extra = 3, 3, 2
    for dt in COMM_DTS:
        ranks = [conversion_pool(rng, dt, h * _C).reshape(h, _C) for _ in range(n)]
        cols = max(_C // 2, 32 // np.dtype(ranks[0].dtype).itemsize)
        per, whole = _gt(dt, h, _C), _gt(dt, n * h + extra, _C)
        for root, tiles in ((0, ("staging",)), (2, ("ping", "pong"))):
            tile_specs = tuple(Spec(t, dt, 2, cols) for t in tiles)
            tile_data = {t: sentinel(dt, (2, cols)) for t in tiles}
            for op, part, one in (("comm_tgather", "src{k}_gm", "dst_gm"), ("comm_tscatter", "dst_gm{k}", "src_gm")):
                names = [part.format(k=k) for k in range(n)]
                group = (f"using GT = {per}; GT t[{n}] = {{" + ", ".join(f"GT({m}.data())" for m in names)
                         + f"}}; comm::ParallelGroup<GT> g(t, {n}, {root}); {whole} w({one}.data()); ")
                specs = (_gm(one, dt, n * h + extra, _C), *(_gm(m, dt, h, _C) for m in names), *tile_specs)
                if op == "comm_tgather":
                    data = {one: sentinel(dt, (n * h + extra, _C)), **dict(zip(names, ranks))}
                else:
                    rest = conversion_pool(rng, dt, extra * _C).reshape(extra, _C)
                    data = {one: np.concatenate([*ranks, rest]), **{m: sentinel(dt, (h, _C)) for m in names}}
                call = f"comm::{op[5:].upper()}(g, w, {', '.join(tiles)});"
                cases.append(Case(op, group + call, specs, {s.role: (s.rows, s.cols) for s in specs},
                                  {**data, **tile_data}, (), {"root": root}))
        src, old = (conversion_pool(rng, dt, _R * _C).reshape(_R, _C) for _ in range(2))
        gt = _gt(dt, _R, _C)
        specs = (_gm("dst_gm", dt), _gm("src_gm", dt), Spec("staging", dt, 2, cols), Spec("pong", dt, 2, cols))
        valid = {"dst_gm": (_R, _C), "src_gm": (_R, _C), "staging": (2, cols), "pong": (2, cols)}
        data = {"dst_gm": old, "src_gm": src, "staging": sentinel(dt, (2, cols)), "pong": sentinel(dt, (2, cols))}
        for op, call, args in (("tput", "comm::TPUT(d, s, staging, pong);", {}),
                               ("tput", "comm::TPUT<AtomicType::AtomicAdd>(d, s, staging, pong);", {"atomic": "add"}),
                               ("tget", "comm::TGET(d, s, staging, pong);", {})):
            cases.append(Case(op, f"{gt} d(dst_gm.data()), s(src_gm.data()); {call}", specs, valid, data, (), args))
        for op in ("tput_async", "tget_async"):
            call = (f"{gt} d(dst_gm.data()), s(src_gm.data()); comm::AsyncSession ses; "
                    f"comm::{op.upper()}<comm::DmaEngine::URMA>(d, s, ses);")
            cases.append(Case(op, call, specs[:2], {k: valid[k] for k in ("dst_gm", "src_gm")},
                              {k: data[k] for k in ("dst_gm", "src_gm")}, (), {"engine": "urma"}))
    for dt in REDUCE_DTS:
        ranks = [conversion_pool(rng, dt, _R * _C).reshape(_R, _C) for _ in range(4)]
        gt = _gt(dt, _R, _C)
        specs = (_gm("dst_gm", dt), *(_gm(f"src{k}_gm", dt) for k in range(4)), Spec("acc", dt, 3, _C),
                 Spec("recv", dt, 3, _C), Spec("pong", dt, 3, _C))
        for op, root in (("Sum", 0), ("Max", 3), ("Min", 1), ("Sum", 2)):
            call = (f"using GT = {gt}; GT d(dst_gm.data()); GT t[4] = {{"
                    + ", ".join(f"GT(src{k}_gm.data())" for k in range(4))
                    + f"}}; comm::ParallelGroup<GT> g(t, 4, {root}); "
                    f"comm::TREDUCE(g, d, acc, recv, pong, comm::ReduceOp::{op});")
            cases.append(Case("treduce", call, specs, {s.role: (3, _C) if s.loc == "vec" else (_R, _C) for s in specs},
                              {"dst_gm": sentinel(dt, (_R, _C)), **{f"src{k}_gm": ranks[k] for k in range(4)},
                               **{t: sentinel(dt, (3, _C)) for t in ("acc", "recv", "pong")}}, (),
                              {"op": op.lower(), "root": root}))
    return cases
