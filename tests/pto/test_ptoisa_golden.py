"""Every golden vector from pto-isa's CPU simulator, replayed on target ``cpu``, bit for bit.

The vectors (``tests/pto/golden/*.npz``) are made by ``tools/ptoisa_vectors``
from a pto-isa checkout; ``ptoisa_golden`` reads them and runs each case.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, SpecGapError
from tilesim.pto import Tile

from . import ptoisa_golden as g

FILES = g.files()


def test_the_golden_vectors_are_there():
    ops = {g.op_of(p) for p in FILES}
    assert {"tcvt", "trowmax", "tcolargmax", "trowexpand", "tadd", "tcolsum", "tdiv", "texp", "tadds", "tdivs",
            "trowexpanddiv", "tcolexpandexpdif", "tcmps", "tsel", "trem", "taxpy", "tgather", "tfillpad",
            "tsort32", "tmatmul", "tload", "tstore", "tci", "ttri", "tdequant", "tmrgsort"} <= ops
    assert ops <= set(pto.OPS) | set(pto.comm.COMM_OPS) | {"tpush"}  # one file per tilesim op; tpush: pipes
    for p in FILES:
        meta, cases = g.load(p)
        bf16 = p.name.endswith(".bf16.npz")
        assert len(meta["pto_isa_commit"]) == 40 and ("g++" if bf16 else "clang") in meta["compiler"]
        assert bf16 == any(t["dtype"] == "bf16" for t in cases[0].tiles)  # bf16 cases only from g++ (PTO88)
    assert {"tcvt", "trowsum", "tadd", "texp", "tmatmul"} <= {g.op_of(p) for p in FILES if ".bf16." in p.name}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:-4])
def test_replay(path):
    """Bit for bit, NaN payloads and signs included (PTO91, PTO70)."""
    _, cases = g.load(path)
    failed = []
    for case in cases:
        ok, why = g.replay(case, undefined_may_differ=g.op_of(path) in VECTOR_CASTS)
        if not ok:
            failed.append(f"{case.label}: {why}")
    assert not failed, f"{len(failed)} of {len(cases)} cases differ:\n" + "\n".join(failed[:10])


#: ops whose vectorised ND loops cast float -> integer with other instructions than the scalar cast (saturating
#: packs), so C++-undefined lanes may differ from tilesim's x86-64 scalar values; they are marked (PTO67)
VECTOR_CASTS = ("trowmax", "trowmin")


def test_undefined_lanes_are_marked_in_the_tcvt_vectors():
    """Non-saturating float -> int cases of NaN/Inf/out-of-range inputs exist, and tilesim marks them."""
    _, cases = g.load(g.GOLDEN / "tcvt.npz")
    marked = 0
    for case in cases:
        if case.args.get("sat"):
            continue
        tiles = g.run(case)
        if tiles["dst"].undefined is not None:
            marked += int(np.count_nonzero(tiles["dst"].undefined))
    assert marked > 1000


def test_case_format_round_trips(tmp_path):
    """The loader rejects a file whose byte blobs do not match its case list."""
    src = g.GOLDEN / "tadd.npz"
    with np.load(src) as z:
        data = {k: z[k] for k in z.files}
    data["outputs"] = data["outputs"][:-1]
    bad = tmp_path / "tadd.npz"
    np.savez(bad, **data)
    with pytest.raises(ValueError):
        g.load(bad)
    assert json.loads(str(data["meta"]))["pto_isa_commit"]


def test_tquant_nan_lanes_are_marked_and_strict_refuses_them():
    """INT8_SYM of a NaN is an undefined cast in the simulator (PTO69): cpu gives x86's 0x80, marks the lane,
    and a strict cpu raises."""
    _, cases = g.load(g.GOLDEN / "tquant.npz")
    case = next(c for c in cases if c.args["quant_type"] == "INT8_SYM")
    tiles = g.run(case)
    assert tiles["dst"].undefined is not None and tiles["dst"].undefined.sum() == 1
    with pytest.raises(SpecGapError) as e:
        g.run(case, target=pto.get_target("cpu").with_(strict=True))
    assert e.value.rule == "pto.tcvt.undefined"


def test_bf16_refusals_match_the_simulator():
    """What the g++ C++23 build's static_asserts refuse for bf16 (the harness drops those kernels), cpu refuses
    too (PTO79): the 14 expand-binary ops, TRSQRT, TCMP with a u8 mask. What it compiles, the bf16 files replay."""
    def t(rows=16, cols=32, bl="row_major", dt="bf16"):
        return Tile("vec", dt, rows, cols, blayout=bl)

    calls = [lambda: pto.trsqrt(t(), t(), target="cpu"), lambda: pto.tcmp(t(dt="u8"), t(), t(), "eq", target="cpu")]
    for kind in ("add", "sub", "mul", "div", "max", "min", "expdif"):
        calls += [lambda k=kind: getattr(pto, f"trowexpand{k}")(t(), t(), t(16, 1, "col_major"), target="cpu"),
                  lambda k=kind: getattr(pto, f"tcolexpand{k}")(t(), t(), t(1, 32), target="cpu")]
    for call in calls:
        with pytest.raises(DtypeError) as e:
            call()
        assert e.value.rule == "pto.op.dtype"
    assert pto.tcmps(t(dt="u8"), t(), 1.0, "eq", target="cpu") is not None  # TCMPS with a u8 mask compiles


def test_fp_and_mx_vectors_cover_their_modes():
    """TEXTRACT_FP/TINSERT_FP: every vector-quant pair and plain pairs, with and without ReLU, NaN lanes that
    reach the integer cast marked undefined; TMATMUL_MX: every fp8 pair and every fp4 pair (E2M1, E1M2) in
    each of its three overloads (PTO74-PTO76, PTO48)."""
    marked, pairs = 0, set()
    for op in ("textract_fp", "tinsert_fp"):
        _, cases = g.load(g.GOLDEN / f"{op}.npz")
        for case in cases:
            dts = {t["role"]: t["dtype"] for t in case.tiles}
            pairs.add((dts["src"], dts["dst"], case.args["relu_pre_mode"]))
            undefined = g.run(case)["dst"].undefined
            marked += 0 if undefined is None else int(np.count_nonzero(undefined))
    assert {(s, d) for s, d, _ in pairs} >= {("f32", "i8"), ("f32", "u8"), ("i32", "i8"), ("i32", "u8"),
                                             ("i32", "f16"), ("i32", "i16"), ("f32", "f16"), ("f32", "f32"),
                                             ("f32", "i32"), ("i32", "f32")}
    assert {r for *_, r in pairs} == {False, True} and marked > 0
    for op in ("tmatmul_mx", "tmatmul_mx_acc", "tmatmul_mx_bias"):
        _, cases = g.load(g.GOLDEN / f"{op}.npz")
        kinds = {(d["a"], d["b"]) for d in ({t["role"]: t["dtype"] for t in c.tiles} for c in cases)}
        fp4 = {(x, y) for x in ("f4e2m1", "f4e1m2") for y in ("f4e2m1", "f4e1m2")}  # every fp4 pair (PTO48)
        assert kinds == {(x, y) for x in ("f8e4m3", "f8e5m2") for y in ("f8e4m3", "f8e5m2")} | fp4


def test_scalar_quant_vectors_cover_their_forms():
    """TMOV (its scalar ignored on cpu), TEXTRACT and TINSERT with a pre-quant scalar: every scalar-quant pair
    but bf16 and plain pairs, with and without ReLU; NaN lanes reaching the integer cast marked (PTO47)."""
    modes = {("f32", "i8"), ("f32", "u8"), ("f32", "f16"), ("i32", "i8"), ("i32", "u8"), ("i32", "f16"),
             ("i32", "i16"), ("f32", "f32"), ("i32", "f32"), ("f32", "i32")}
    for op in ("tmov", "textract", "tinsert"):
        _, cases = g.load(g.GOLDEN / f"{op}.npz")
        seen, marked = set(), 0
        for case in cases:
            if "pre_quant_scalar" not in case.args:
                continue
            dts = {t["role"]: t["dtype"] for t in case.tiles}
            seen.add((dts["src"], dts["dst"], case.args["relu_pre_mode"]))
            undefined = g.run(case)["dst"].undefined
            marked += 0 if undefined is None else int(np.count_nonzero(undefined))
        assert {(s, d) for s, d, _ in seen} >= modes and {r for *_, r in seen} == {False, True}, op
        assert marked > 0, op
