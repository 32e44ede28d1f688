"""Issue 20's fuzz findings in the verify flow: a golden directory and a dump are data from disk; every bad
one is a TilesimError naming the file, the field and the rule, and nothing wrong is accepted."""

import json
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.errors import TilesimError
from tilesim.verify.check import check, load_golden
from tilesim.verify.commands import make_vectors

runner = CliRunner()


@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    d = tmp_path_factory.mktemp("gold")
    make_vectors("ame", "mmacc", n=5, m=2, k=2, sat=1, seed=2).write(d)
    return d


def _copy(gold, tmp_path, edit=None):
    """A copy of the golden directory with ``edit(manifest)`` applied to its manifest."""
    g = tmp_path / "g"
    shutil.copytree(gold, g)
    if edit is not None:
        m = json.loads((g / "manifest.json").read_text())
        text = edit(m)                    # an edit may return the whole text instead
        (g / "manifest.json").write_text(text if isinstance(text, str) else json.dumps(m))
    return g


def _set(path, value):
    def edit(m):
        d = m
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return edit


def _nest(depth):
    def edit(m):
        return json.dumps(m)[:-1] + ', "config": ' + "[" * depth + "]" * depth + "}"
    return edit


@pytest.mark.parametrize("edit,field", [
    (_set(("vectors", 0, "classes"), [None]), "vectors[0].classes"),          # a class name that is null
    (_set(("operands",), 3), "operands"),                                     # a number where a list is
    (_set(("operands", 0, "name"), {"a": 1}), "operands[0].name"),            # a dict where a string is
    (lambda m: m.pop("count"), "count"),
    (lambda m: m["operands"][1].pop("lane_bits"), "operands[1].lane_bits"),
    (_set(("count",), 5.5), "count"),                                         # was read as 5
    (_set(("count",), 10 ** 30), "count"),
    (_set(("count",), True), "count"),
    (_set(("operands", 0, "lane_bits"), 2 ** 70), "operands[0].lane_bits"),
    (_set(("operands", 0, "shape"), [2 ** 40, 2 ** 40]), "operands[0].shape"),
    (_set(("operands", 0, "shape"), "22"), "operands[0].shape"),
    (_set(("operands", 0, "fmt"), "fp9"), "operands[0].fmt"),
    (_set(("operands", 0, "role"), "inout"), "operands[0].role"),
    (_set(("vectors",), []), "vectors"),
    (_set(("outputs",), ["c.hex"]), "outputs"),
    (lambda m: [o.update(role="input") for o in m["operands"]], "operands"),  # passed any dump before
    (_nest(100_000), "(whole file)"),                                         # a RecursionError before
])
def test_a_bad_manifest_names_the_field(gold, tmp_path, edit, field):
    g = _copy(gold, tmp_path, edit)
    with pytest.raises(TilesimError) as e:
        check(g, gold)
    assert e.value.rule in ("verify.golden.manifest", "verify.golden.json", "verify.golden.limit")
    assert e.value.operand == f"{g / 'manifest.json'}: {field}"
    r = runner.invoke(app, ["check", str(g), str(gold)])
    assert r.exit_code == 2 and "Traceback" not in r.output and "bug" not in r.output


def test_manifest_that_is_not_an_object(gold, tmp_path):
    g = _copy(gold, tmp_path)
    (g / "manifest.json").write_text("[1, 2]")
    with pytest.raises(TilesimError) as e:
        load_golden(g)
    assert e.value.rule == "verify.golden.manifest"


def _resave(g, **arrays):
    z = dict(np.load(g / "vectors.npz"))
    z.update(arrays)
    np.savez(g / "vectors.npz", **z)


@pytest.mark.parametrize("change,rule", [
    (lambda c: c.reshape(c.shape[0] * c.shape[1], *c.shape[2:]), "verify.golden.shape"),  # reflowed before
    (lambda c: c.astype(np.float32), "verify.golden.dtype"),                              # compared by value
    (lambda c: c.astype(bool), "verify.golden.dtype"),
    (lambda c: c.astype(np.complex64), "verify.golden.dtype"),
    (lambda c: c.astype(np.int16), "verify.golden.dtype"),
    (lambda c: c.astype(np.uint32), "verify.golden.dtype"),
])
def test_golden_arrays_must_be_count_by_shape_lane_codes(gold, tmp_path, change, rule):
    g = _copy(gold, tmp_path)
    _resave(g, c=change(load_golden(gold).arrays["c"]))
    with pytest.raises(TilesimError) as e:
        check(g, gold)
    assert e.value.rule == rule and e.value.operand.endswith("vectors.npz: c")


def test_count_one_with_shapes_five_times_longer_is_refused(gold, tmp_path):
    def edit(m):
        m["count"] = 1
        m["vectors"] = m["vectors"][:1]
        for o in m["operands"]:
            o["shape"][0] *= 5
    g = _copy(gold, tmp_path, edit)
    with pytest.raises(TilesimError) as e:
        check(g, gold)
    assert e.value.rule == "verify.golden.shape"


def test_big_endian_golden_reads_as_numbers(gold, tmp_path):
    g = _copy(gold, tmp_path)
    c = load_golden(gold).arrays["c"]
    _resave(g, c=c.astype(">u2"))
    assert check(g, gold).ok


@pytest.mark.parametrize("damage", ["truncate", "not_zip", "pickle", "huge_header"])
def test_unreadable_golden_npz(gold, tmp_path, damage):
    g = _copy(gold, tmp_path)
    npz = g / "vectors.npz"
    if damage == "truncate":
        npz.write_bytes(npz.read_bytes()[:300])
    elif damage == "not_zip":
        npz.write_text("hello")
    elif damage == "pickle":
        _resave(g, c=np.array([{"a": 1}], dtype=object))
    else:
        np.savez(npz, **(dict(np.load(gold / "vectors.npz")) | {"c": np.zeros((5, 4096, 2, 2), np.uint16)}))
    with pytest.raises(TilesimError) as e:
        check(g, gold)
    assert e.value.rule in ("verify.golden.npz", "verify.golden.shape")
    assert str(npz) in e.value.operand


def test_int8_dump_sign_extends_into_a_wider_lane(gold, tmp_path):
    g = load_golden(gold)
    c = g.arrays["c"].copy()
    c.reshape(-1)[0] = 0xFFFF                        # -1 in the 16-bit C lane
    c.reshape(-1)[1] = 0x00FF
    gd = _copy(gold, tmp_path)
    _resave(gd, c=c)
    dump = c.astype(np.int64).astype(np.int16).astype(np.int64)
    dump.reshape(-1)[0] = -1
    np.savez(tmp_path / "d.npz", c=dump.astype(np.int32), mxstatus=g.arrays["mxstatus"])
    assert check(gd, tmp_path / "d.npz").ok
    small = np.zeros_like(c, dtype=np.int8)
    small.reshape(-1)[0] = -1                         # -1 read as 0x00ff before; it is 0xffff
    np.savez(tmp_path / "s.npz", c=small, mxstatus=g.arrays["mxstatus"])
    res = check(gd, tmp_path / "s.npz")
    first = [m for m in res.mismatches if m.index == (0, 0, 0) and m.vector == 0]
    assert first == []                                # equal to the golden's 0xffff
    assert any(m.index == (0, 0, 1) and m.vector == 0 and m.got == 0 for m in res.mismatches)


def test_big_endian_dump_with_the_golden_bits_passes(gold, tmp_path):
    g = load_golden(gold)
    np.savez(tmp_path / "d.npz", c=g.arrays["c"].astype(">u2"), mxstatus=g.arrays["mxstatus"].astype(">i4"))
    assert check(gold, tmp_path / "d.npz").ok
    np.savez(tmp_path / "e.npz", c=g.arrays["c"].astype(np.int16).astype(">i2"), mxstatus=g.arrays["mxstatus"])
    assert check(gold, tmp_path / "e.npz").ok


@pytest.mark.parametrize("args,rule", [
    (["--n", "1000000000"], "verify.opt.n"),
    (["--n", str(10 ** 30)], "verify.opt.n"),
    (["--min-per-class", "9223372036854775808"], "verify.opt.min_per_class"),
    (["--min-per-class", "90000"], "verify.opt.min_per_class"),    # classes x 90000 is over the limit
    (["--seed", "-1"], "verify.opt.seed"),
])
def test_vector_counts_are_bounded(args, rule, tmp_path):
    r = runner.invoke(app, ["vectors", "ame", "mmacc", *args, "-o", str(tmp_path / "v")])
    assert r.exit_code == 2 and rule in r.output, r.output
    assert not (tmp_path / "v").exists()


def test_pto_column_arg_reduce_of_f16():
    vs = make_vectors("pto", "tcolargmax", n=2, dtype="f16")
    assert vs.arrays["dst_out"].shape[0] == vs.count and "partial_valid" in vs.classes


# -- fuzz: random damage to a golden directory and a dump never reaches the user as a Python exception -----

_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | st.text(max_size=6),
                     lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
                     max_leaves=6)


def _paths(v, prefix=()):
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v[:3]):
            yield from _paths(x, prefix + (i,))


FUZZ = settings(max_examples=max(30, settings().max_examples // 2), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@FUZZ
@given(data=st.data())
def test_fuzz_manifest_fields(gold, tmp_path_factory, data):
    m = json.loads((gold / "manifest.json").read_text())
    where = data.draw(st.sampled_from([p for p in _paths(m) if p]))
    how = data.draw(st.sampled_from(["replace", "delete"]))
    d = m
    for k in where[:-1]:
        d = d[k]
    if how == "delete":
        del d[where[-1]]
    else:
        d[where[-1]] = data.draw(_JSON)
    g = tmp_path_factory.mktemp("fz")
    shutil.copytree(gold, g, dirs_exist_ok=True)
    (g / "manifest.json").write_text(json.dumps(m))
    try:
        res = check(g, gold)
    except TilesimError as e:
        assert e.rule and e.rule.startswith(("verify.golden.", "verify.dump.", "verify.hex."))
        return
    # accepted: then it checked every output it lists against a dump of exactly those bits
    assert res.ok and res.per_operand


@FUZZ
@given(data=st.data())
def test_fuzz_npz_bytes(gold, tmp_path_factory, data):
    raw = bytearray((gold / "vectors.npz").read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    g = tmp_path_factory.mktemp("fz")
    shutil.copytree(gold, g, dirs_exist_ok=True)
    (g / "vectors.npz").write_bytes(bytes(raw[:cut]))
    try:
        check(g, gold)
    except TilesimError as e:
        assert e.rule.startswith(("verify.golden.", "verify.dump."))


@FUZZ
@given(dtype=st.sampled_from(["u1", "i1", "u2", ">u2", "i2", ">i2", "u4", "i8", ">i8", "f4", "?", "c8", "U2"]),
       shape=st.lists(st.integers(0, 6), max_size=4), fill=st.integers(-2 ** 63, 2 ** 64 - 1))
def test_fuzz_dump_arrays(gold, tmp_path_factory, dtype, shape, fill):
    g = load_golden(gold)
    dt = np.dtype(dtype)
    try:
        c = np.full(shape, fill).astype(dt) if dt.kind in "uifc" else np.zeros(shape, dt)
    except OverflowError:
        c = np.zeros(shape, dt)
    d = tmp_path_factory.mktemp("fz")
    np.savez(d / "d.npz", c=c, mxstatus=g.arrays["mxstatus"])
    try:
        res = check(gold, d / "d.npz")
    except TilesimError as e:
        assert e.rule.startswith("verify.dump.")
        return
    assert dt.kind in "ui" and c.size == g.arrays["c"].size
    assert res.ok == np.array_equal(c.astype(np.int64).astype(np.uint16).reshape(g.arrays["c"].shape),
                                    g.arrays["c"])
