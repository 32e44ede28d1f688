"""Golden vectors from pto-isa's CPU simulator: the stored format and their replay through tilesim.

``tools/ptoisa_vectors`` writes one ``<op>.npz`` per op under ``tests/pto/golden/`` (clang, C++20), and
one ``<op>.bf16.npz`` per op for the cases with a bf16 tile (g++ >= 14, C++23, whose ``std::bfloat16_t``
is a real bfloat16; PTO88); an op's ConvTile forms are in ``<op>.conv.npz`` and ``<op>.conv.bf16.npz``
(``args["conv"]``: the ConvTiles over the tiles' storage, PTO172-PTO174):

* ``cases``: a JSON list, one object per case: ``tiles`` (role, dtype, rows, cols,
  blayout, slayout, valid) in the order the driver declared them, and ``args``
  (the op's modes: ``rmode``, ``sat``, ``is_binary``).
* ``inputs``: every tile's lane codes before the op, in storage order, cases one
  after another (uint8 bytes); ``outputs``: the same for the tiles whose role
  starts with ``dst`` after the op, as the reference left them.
* ``meta``: JSON: the pto-isa commit, the compiler and its flags.

:func:`replay` rebuilds the tiles in tilesim, runs the op on target ``cpu`` and
compares every output tile's storage with the reference's, bit for bit,
including the elements the op must leave alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto import Tile, comm

GOLDEN = Path(__file__).parent / "golden"

#: op name -> (positional roles, keyword roles) of the tilesim call. ``@scalar`` stands for the scalar
#: whose lane code is ``args["scalar"]`` (in the dtype of the case's ``src`` tile, else ``dst``'s).
_CALLS = {
    "tcvt": (("dst", "src"), ()),
    "trowsum": (("dst", "src", "tmp"), ()), "trowmax": (("dst", "src", "tmp"), ()),
    "trowmin": (("dst", "src", "tmp"), ()), "trowprod": (("dst", "src", "tmp"), ()),
    "tcolsum": (("dst", "src", "tmp"), ()), "tcolmax": (("dst", "src"), ()),
    "tcolmin": (("dst", "src"), ()), "tcolprod": (("dst", "src"), ()),
    "trowexpand": (("dst", "src"), ()), "tcolexpand": (("dst", "src"), ()),
    "tcmps": (("dst", "src", "@scalar"), ()), "texpands": (("dst", "@scalar"), ()),
    "tsel": (("dst", "mask", "src0", "src1", "tmp"), ()), "tsels": (("dst", "mask", "src", "@scalar", "tmp"), ()),
    "trem": (("dst", "src0", "src1", "tmp"), ()), "trems": (("dst", "src", "@scalar", "tmp"), ()),
    "taxpy": (("dst", "src", "@scalar"), ()), "taddc": (("dst", "src0", "src1", "src2"), ()),
    "tsubc": (("dst", "src0", "src1", "src2"), ()), "taddsc": (("dst", "src0", "@scalar", "src1"), ()),
    "tsubsc": (("dst", "src0", "@scalar", "src1"), ()), "tlrelu": (("dst", "src", "@scalar"), ()),
    "tprelu": (("dst", "src0", "src1", "tmp"), ()), "ttrans": (("dst", "src", "tmp"), ()),
    "tpairreducesum": (("dst", "src"), ()), "tinterleave": (("dst0", "dst1", "src0", "src1"), ()), "tdeinterleave": (("dst0", "dst1", "src0", "src1"), ()),
    "tgather": (("dst", "src", "indices", "tmp"), ()),
    "tconcat": (("dst", "src0", "src1"), ("src0_idx", "src1_idx", "dst_idx")),
    "tsort32": (("dst", "src", "idx"), ()),
    "tmov": (("dst", "src"), ()), "textract": (("dst", "src"), ()), "tinsert": (("dst", "src"), ()),
    "trandom": (("dst",), ()), "thistogram": (("dst", "src", "idx"), ()),
    "tload": (("dst", "gm"), ()), "tprefetch": (("dst", "gm"), ()), "tquant": (("dst", "src", "fp", "offset"), ()), "tstore": (("dst_gm", "src"), ()),
    "tstore_fp": (("dst_gm", "src", "fp"), ()), "tmov_fp": (("dst", "src", "fp"), ()),
    "tmatmul": (("dst", "a", "b"), ()), "tmatmul_acc": (("dst", "c_in", "a", "b"), ()),
    "tmatmul_bias": (("dst", "a", "b", "bias"), ()),
    "tfillpad": (("dst", "src"), ()), "tfillpad_expand": (("dst", "src"), ()), "tfillpad_inplace": (("dst", "src"), ()),
    "textract_fp": (("dst", "src", "fp"), ()), "tinsert_fp": (("dst", "src", "fp"), ()),
    "tmatmul_mx": (("dst", "a", "a_scale", "b", "b_scale"), ()),
    "tmatmul_mx_acc": (("dst", "c_in", "a", "a_scale", "b", "b_scale"), ()),
    "tmatmul_mx_bias": (("dst", "a", "a_scale", "b", "b_scale", "bias"), ()),
}
_CALLS.update({"tci": (("dst", "@scalar"), ()), "ttri": (("dst",), ()),
               "tdequant": (("dst", "src", "scale", "offset"), ())})
for _op in ("trowargmax", "trowargmin", "tcolargmax", "tcolargmin"):
    _CALLS[_op] = (("dst_idx", "src", "tmp"), ("dst_val",))
for _op in ("texp", "tlog", "tsqrt", "trsqrt", "trecip", "tabs", "tneg", "trelu"):
    _CALLS[_op] = (("dst", "src"), ())
for _op in ("tadds", "tsubs", "tmuls", "tdivs", "tmaxs", "tmins", "tands", "tors", "tshls", "tshrs", "tfmods"):
    _CALLS[_op] = (("dst", "src", "@scalar"), ())
_CALLS.update({"tnot": (("dst", "src"), ()), "txor": (("dst", "src0", "src1", "tmp"), ()),
               "txors": (("dst", "src", "@scalar", "tmp"), ())})
_CALLS["treshape"] = (("dst", "src"), ())
_CALLS["tgatherb"] = (("dst", "src", "offset"), ())
_CALLS["tadddeqrelu"] = (("dst", "src0", "src1"), ("tmp",))   # deq_scale: the case's args
_CALLS.update({"tpow": (("dst", "src0", "src1", "tmp"), ()), "tpows": (("dst", "src", "@scalar", "tmp"), ())})
_CALLS["tscatter"] = (("dst", "src", "indexes"), ())  # the mask form: mask_pattern, axis from the args
_CALLS.update({"mgather": (("dst", "gm", "indexes"), ()), "mscatter": (("dst_gm", "src", "indexes"), ())})
_CALLS.update({k.replace("tmatmul", "tgemv"): v for k, v in _CALLS.items() if k.startswith("tmatmul")})
_CALLS["tsubview"] = (("dst", "src"), ())   # row_idx, col_idx: the case's args
for _op in ("tpartargmax", "tpartargmin"):
    _CALLS[_op] = (("dst_val", "dst_idx", "src0_val", "src1_val", "src0_idx", "src1_idx"), ())
_BINARY_ROLES = (("dst", "src0", "src1"), ())


@dataclass
class Case:
    """One stored case: tile specs, op arguments, input lanes per role, reference output lanes per role."""

    op: str
    index: int
    tiles: list[dict]
    args: dict
    inputs: dict[str, np.ndarray]
    outputs: dict[str, np.ndarray]

    @property
    def label(self) -> str:
        sig = "/".join(f"{t['role']}:{t['dtype']}{'' if t['blayout'] == 'row_major' else '(DN)'}" for t in self.tiles)
        return f"{self.op}#{self.index} {sig} {self.args}"


def _lanes(dtype: str) -> np.dtype:
    return pto.get_dtype(dtype).lane


def load(path: Path) -> tuple[dict, list[Case]]:
    """The meta object and the cases of one ``.npz`` file."""
    with np.load(path) as z:
        meta = json.loads(str(z["meta"]))
        specs = json.loads(str(z["cases"]))
        inb, outb = z["inputs"], z["outputs"]
    op = op_of(path)
    cases, ip, oq = [], 0, 0
    for k, spec in enumerate(specs):
        ins, outs = {}, {}
        for t in spec["tiles"]:
            ln = _lanes(t["dtype"])
            nbytes = t["rows"] * t["cols"] * ln.itemsize
            ins[t["role"]] = inb[ip: ip + nbytes].view(ln)
            ip += nbytes
            if t["role"].startswith("dst"):
                outs[t["role"]] = outb[oq: oq + nbytes].view(ln)
                oq += nbytes
        cases.append(Case(op, k, spec["tiles"], spec.get("args", {}), ins, outs))
    if ip != inb.size or oq != outb.size:
        raise ValueError(f"{path}: the byte blobs do not match the case list")
    return meta, cases


def build_tiles(case: Case) -> dict[str, Tile]:
    """tilesim tiles with the case's types, valid regions and input lanes."""
    tiles = {}
    for t in case.tiles:
        if t.get("loc") == "gm":  # global memory: a 2-D array of the dtype (TLOAD/TSTORE)
            dt = pto.get_dtype(t["dtype"])
            tiles[t["role"]] = case.inputs[t["role"]].reshape(t["rows"], t["cols"]).view(dt.np).copy()
            continue
        tile = Tile(t.get("loc", "vec"), t["dtype"], t["rows"], t["cols"], valid=tuple(t["valid"]),
                    blayout=t["blayout"], slayout=t["slayout"], fractal=t.get("fractal", 512), pad=t.get("pad", "null"))
        tile.load_storage(case.inputs[t["role"]])
        tiles[t["role"]] = tile
    return tiles


def run(case: Case, target="cpu") -> dict[str, Tile]:
    """Run the case's op in tilesim; returns the tiles (raises what tilesim raises)."""
    tiles = build_tiles(case)
    if case.op == "tmrgsort":
        return _run_mrgsort(case, tiles, target)
    if case.op == "timg2col":
        return _run_img2col(case, tiles, target)
    if "conv" in case.args:
        return _run_conv(case, tiles, target)
    if case.op == "tquant_mx":                    # exp, max, scaling (and the ZZ exponents) are outputs too
        pto.tquant_mx(tiles["dst"], tiles["src"], tiles["dst_exp"], tiles["dst_max"], tiles["dst_scaling"],
                      exp_zz=tiles.get("dst_zz"), **case.args, target=target)
        return tiles
    if case.op in comm.COMM_OPS:
        return _run_comm(case, tiles, target)
    if case.op == "tpush":
        return _run_pipe(case, tiles, target)
    pos, kw = _CALLS.get(case.op, _BINARY_ROLES)
    if case.op == "tdeinterleave" and "src" in tiles:  # its one-source form
        pos = ("dst0", "dst1", "src")
    fn = getattr(pto, case.op)
    a = dict(case.args)
    if "scalar" in a:  # the scalar as a numpy number of its dtype: its bits reach tilesim unchanged
        dt = pto.get_dtype(tiles.get("src", tiles["dst"]).dtype)
        scalar = np.array(a.pop("scalar"), np.uint64).astype(dt.lane).view(dt.np)[()]
        if a.pop("scalar_first", False):  # TDIVS's scalar / src form
            pos = ("dst", "@scalar", "src")
    args = [scalar if r == "@scalar" else tiles.get(r) for r in pos]
    kwargs = {r: tiles[r] for r in kw if r in tiles}
    if case.op == "tcvt":
        args += [a.pop("rmode"), a.pop("sat", None)]
    fn(*args, **kwargs, **a, target=target)
    return tiles


def _run_mrgsort(case: Case, tiles: dict[str, Tile], target) -> dict[str, Tile]:
    """TMRGSORT's two forms: ``(dst, src, block_len)``, or the list form whose four executed counts the driver
    stored in the first lanes of the u16 tile ``dst_ex``."""
    a = dict(case.args)
    if "block_len" in a:
        pto.tmrgsort(tiles["dst"], tiles["src"], a["block_len"], target=target)
        return tiles
    executed = np.zeros(4, np.uint16)
    srcs = [tiles[r] for r in ("src0", "src1", "src2", "src3") if r in tiles]
    pto.tmrgsort(tiles["dst"], executed, *srcs, tiles["tmp"], exhausted=a["exhausted"], target=target)
    tiles["dst_ex"].bits[0, :4] = executed
    return tiles


def _run_img2col(case: Case, tiles: dict[str, Tile], target) -> dict[str, Tile]:
    """TIMG2COL over a ConvTile with the case's shape and settings, its feature map the ``src`` tile's lanes,
    after the three SET_* ops in the case's mode (PTO140)."""
    a = case.args
    dt = tiles["src"].dtype
    pad = np.array(a["pad_bits"], np.uint64).astype(dt.lane).view(dt.np)[()]
    conv = pto.ConvTile(dt, tuple(a["shape"]), a["layout"], pad_list=tuple(a["pad_list"]), pad_value=pad,
                        **a["settings"])
    conv.bits[...] = tiles["src"].bits.reshape(conv.shape)
    cfg = pto.BlockConfig()
    manual = a["mode"].replace("auto", "manual")
    for op in (pto.setfmatrix, pto.set_img2col_padding, pto.set_img2col_rpt):
        op(conv, mode=a["mode"] if a["mode"].endswith("auto") else manual, config=cfg, target=target)
    pto.timg2col(tiles["dst"], conv, a["pos_m"], a["pos_k"], mode=a["mode"], config=cfg, target=target)
    return tiles


def _run_conv(case: Case, tiles: dict, target) -> dict:
    """A ConvTile form (PTO172-PTO174): each ``args["conv"]`` role is a ConvTile of that layout and shape over
    the first lanes of the role's tile; a global tensor is the ``gm`` array in ``args["global"]``'s shape."""
    a, convs = dict(case.args), {}
    for role, (layout, shape) in a.pop("conv").items():
        t, n = tiles[role], int(np.prod(shape))
        convs[role] = pto.ConvTile(t.dtype, tuple(shape), layout, loc=t.loc)
        convs[role].bits[...] = t.bits.reshape(-1)[:n].reshape(shape)
    g = tuple(a.pop("global", ()))
    if case.op == "tload":
        pto.tload(convs["dst"], tiles["gm"].reshape(g), target=target)
    elif case.op == "tstore":
        pto.tstore(tiles["dst_gm"].reshape(g), convs["src"], target=target)
    elif case.op == "textract":
        pto.textract(tiles["dst"], convs["src"], a["index_row"], a["index_col"], target=target)
    else:
        pto.ttrans(convs["dst"], convs["src"], tiles["src"], target=target)
    if "dst" in convs:
        tiles["dst"].bits.reshape(-1)[: convs["dst"].bits.size] = convs["dst"].bits.ravel()
    return tiles


def _run_comm(case: Case, tiles: dict, target) -> dict:
    """The communication ops (:mod:`tilesim.pto.comm`) on the case's global arrays: a group is the arrays
    ``dst_gm0..`` (TBROADCAST, the collective TSCATTER) or ``src0_gm..`` (TREDUCE, the collective TGATHER); a
    ``pong`` tile makes the ping-pong form; TTEST's bool is the driver's ``dst_gm[0]``."""
    a, fn, t = dict(case.args), comm.COMM_OPS[case.op], tiles
    pong = (t["pong"],) if "pong" in t else ()
    if case.op in ("tput", "tget"):
        fn(t["dst_gm"], t["src_gm"], t["staging"], *pong, **a, target=target)
    elif case.op in ("tput_async", "tget_async"):
        fn(t["dst_gm"], t["src_gm"], **a, target=target)
    elif case.op == "tbroadcast":
        fn([t[f"dst_gm{k}"] for k in range(sum(r.startswith("dst_gm") for r in t))], t["src_gm"], t["staging"],
           target=target)
    elif case.op == "treduce":
        group = [t[f"src{k}_gm"] for k in range(sum(r.endswith("_gm") and r.startswith("src") for r in t))]
        fn(group, t["dst_gm"], t["acc"], t["recv"], *pong, **a, target=target)
    elif case.op == "comm_tgather":
        group = [t[f"src{k}_gm"] for k in range(sum(r.endswith("_gm") and r.startswith("src") for r in t))]
        fn(group, t["dst_gm"], *(t[k] for k in ("staging", "ping", "pong") if k in t), **a, target=target)
    elif case.op == "comm_tscatter":
        group = [t[f"dst_gm{k}"] for k in range(sum(r.startswith("dst_gm") for r in t))]
        fn(group, t["src_gm"], *(t[k] for k in ("staging", "ping", "pong") if k in t), **a, target=target)
    elif case.op == "ttest":
        t["dst_gm"][...] = fn(t["sig_gm"], a.pop("value"), **a, target=target)
    else:                                                   # tnotify, twait: the signal is dst_gm
        fn(t["dst_gm"], a.pop("value"), **a, target=target)
    return tiles


def _run_pipe(case: Case, tiles: dict, target) -> dict:
    """TPUSH/TPOP through a TPipe (PTO178, PTO179): a quantising push of ``src`` popped into ``dst``, or a
    push and pops of the case's direction and split over two vector subblocks (``src``/``dst0``,``dst1`` on
    c2v; ``src0``,``src1``/``dst`` on v2c), subblock 1 first where the driver runs it first."""
    a, t = dict(case.args), tiles
    if "quant" in a:
        cfg = pto.BlockConfig()
        cfg.quant_scalar = a.get("quant_scalar")
        cfg.quant_vector = t.get("fp")
        pipe = pto.TPipe(1, depth=2)
        pto.tpush(pipe, t["src"], quant=a["quant"], config=cfg, target=target)
        pto.tpop(pipe, t["dst"])
        return tiles
    d, split = a["direction"], a["split"]
    pipe = pto.TPipe(1 if d == "c2v" else 2, depth=2, subblocks=2, no_split=a.get("no_split", False))
    if d == "c2v":
        pto.tpush(pipe, t["src"], split)
        for k in ((0, 1) if split else (1, 0)):
            pto.tpop(pipe, t[f"dst{k}"], split, subblock=k)
            pto.tfree(pipe, split=split, subblock=k)
    else:
        for k in ((0, 1) if split else (1, 0)):
            pto.tpush(pipe, t[f"src{k}"], split, subblock=k)
        pto.tpop(pipe, t["dst"], split)
        pto.tfree(pipe, split=split)
    return tiles


def replay(case: Case, target="cpu", undefined_may_differ: bool = False) -> tuple[bool, str]:
    """(agrees, detail): every output tile's storage equals the reference's, bit for bit, NaN payloads too;
    ``undefined_may_differ``: except lanes tilesim marks undefined, counted in the detail."""
    loose = 0
    try:
        tiles = run(case, target)
    except TilesimError as e:
        return False, f"refused: {e}"
    for role, want in case.outputs.items():
        got = tiles[role]
        got = got.view(want.dtype).ravel() if isinstance(got, np.ndarray) else got.storage()
        differs = got != want
        if undefined_may_differ and getattr(tiles[role], "undefined", None) is not None:  # C++-undefined lanes
            marked = tiles[role].offsets()[tiles[role].undefined]
            loose += int(np.count_nonzero(differs[marked]))
            differs[marked] = False
        bad = np.flatnonzero(differs)
        if bad.size:
            i = int(bad[0])
            return False, (f"{role}: {bad.size} of {want.size} lanes differ; first at storage offset {i}: "
                           f"tilesim {int(got[i]):#x}, reference {int(want[i]):#x}")
    return True, f"{loose} lanes marked undefined differ" if loose else ""


def files() -> list[Path]:
    return sorted(GOLDEN.glob("*.npz"))


def op_of(path: Path) -> str:
    """The op a bank file holds: ``tcvt`` for ``tcvt.npz`` and ``tcvt.bf16.npz``."""
    return path.name.split(".")[0]
