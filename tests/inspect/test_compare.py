"""The ISA-free layer: ULP distances against an independent rank oracle, and how two step lists part."""

import ml_dtypes
import numpy as np
import pytest

from tilesim.inspect import Filter, Step, Write, differences, load, save, ulp_distance


def _ranks(codes: np.ndarray, dtype) -> np.ndarray:
    """Oracle: a code's index among the format's distinct non-NaN values, read by ml_dtypes (-0 == +0)."""
    with np.errstate(invalid="ignore"):
        vals = codes.view(dtype).astype(np.float64)
    return np.searchsorted(np.unique(vals[~np.isnan(vals)]), vals)


@pytest.mark.parametrize("fmt, dtype", [("fp8_e4m3", ml_dtypes.float8_e4m3fn), ("fp8_e5m2", ml_dtypes.float8_e5m2)])
def test_ulp_distance_of_every_8_bit_code_against_anchors(fmt, dtype):
    codes = np.arange(256, dtype=np.uint8)
    rank = _ranks(codes, dtype)
    nan = np.isnan(codes.view(dtype).astype(np.float64))
    for anchor in (0x00, 0x80, 0x38, 0xB9):
        for c in codes:
            want = None if nan[c] or nan[anchor] else abs(int(rank[c]) - int(rank[anchor]))
            assert ulp_distance(int(c), anchor, fmt) == want


def test_ulp_distance_of_bf16_pairs():
    codes = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    rank = _ranks(codes, ml_dtypes.bfloat16)
    rng = np.random.default_rng(1)
    for a, b in rng.integers(0, 65536, (1500, 2)):
        va, vb = (float(codes[x:x + 1].view(ml_dtypes.bfloat16)[0]) for x in (a, b))
        want = None if np.isnan(va) or np.isnan(vb) else abs(int(rank[a]) - int(rank[b]))
        assert ulp_distance(int(a), int(b), "bf16") == want


def test_ulp_distance_of_integers_is_their_difference():
    assert ulp_distance(0x80, 0x7F, "int8") == 255 and ulp_distance(5, 250, "uint8") == 245
    assert ulp_distance(0xFFFFFFFF, 1, "int32") == 2


def _step(i, line, bits, name="t", fmt="fp32", iters=()):
    return Step(i, "p", line, "op", iters, 0, [Write(name, np.array(bits, np.uint32), fmt)])


def test_control_and_write_differences():
    a = [_step(0, 1, [[1]]), _step(1, 2, [[2]])]
    assert differences(a, a[:1])[0].kind == "control" and differences(a, a[:1])[0].b is None
    moved = [_step(0, 1, [[1]]), _step(1, 3, [[2]])]
    d = differences(a, moved, all=True)
    assert [x.kind for x in d] == ["control"] and d[0].a.line == 2 and d[0].b.line == 3
    renamed = [_step(0, 1, [[1]]), _step(1, 2, [[2]], name="u")]
    assert differences(a, renamed)[0].kind == "writes" and differences(a, renamed)[0].write == "t, u"
    wider = [_step(0, 1, [[1]]), _step(1, 2, [[2, 3]])]
    assert differences(a, wider)[0].kind == "writes"
    other_iteration = [_step(0, 1, [[1]]), _step(1, 2, [[2]], iters=(1,))]
    assert differences(a, other_iteration)[0].kind == "control"


def test_all_lists_each_differing_step_and_origins_shift_indices():
    a = [Step(0, "p", 1, "op", (), 0, [Write("g", np.array([[1, 2], [3, 4]], np.uint32), "", (4, 8))]),
         _step(1, 2, [[5]])]
    b = [Step(0, "p", 1, "op", (), 0, [Write("g", np.array([[1, 2], [3, 9]], np.uint32), "", (4, 8))]),
         _step(1, 2, [[6]])]
    d = differences(a, b, all=True)
    assert [x.step.line for x in d] == [1, 2]
    assert d[0].elements[0].index == (5, 9) and d[0].elements[0].ulp is None and d[0].elements[0].values is None
    assert d[1].elements[0].values == (pytest.approx(7e-45), pytest.approx(8.4e-45))


def test_limit_caps_the_elements_shown():
    a = [_step(0, 1, [list(range(10))])]
    b = [_step(0, 1, [list(range(1, 11))])]
    d = differences(a, b, limit=3)[0]
    assert d.count == 10 and d.total == 10 and len(d.elements) == 3


def test_save_and_load_keep_every_field(tmp_path):
    steps = [Step(3, "k.pto", 7, "pto.tadd", (0, 2), 1, [Write("%t", np.arange(6, dtype=np.uint16).reshape(2, 3),
                                                               "bf16", (1, 2))])]
    save(tmp_path / "t.npz", steps, {"program": "k.pto"})
    back, meta = load(tmp_path / "t.npz")
    assert meta == {"program": "k.pto"}
    s, w = back[0], back[0].writes[0]
    assert (s.index, s.source, s.line, s.op, s.iters, s.block) == (3, "k.pto", 7, "pto.tadd", (0, 2), 1)
    assert (w.name, w.fmt, w.origin, w.bits.dtype, w.bits.tolist()) == ("%t", "bf16", (1, 2), np.uint16,
                                                                         [[0, 1, 2], [3, 4, 5]])


def test_filter_parse_and_keep():
    f = Filter.parse("3,7-9", "tadd,pto.tmatmul.acc", "1:3")
    assert f.lines == frozenset({3, 7, 8, 9}) and f.ops == frozenset({"tadd", "tmatmul_acc"})
    keep = lambda line, op, iters: f.keeps(Step(0, "p", line, op, iters))  # noqa: E731
    assert keep(8, "pto.tadd", (1, 2)) and keep(3, "pto.tmatmul_acc", ())
    assert not keep(4, "pto.tadd", ()) and not keep(3, "pto.tsub", ()) and not keep(3, "tadd", (0,))
    assert Filter.parse().keeps(Step(0, "p", 1, "x"))
