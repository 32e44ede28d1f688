"""HiFloat8 tiles (PTO182, PTO183): the CPU simulator's reading of the codes, held against the clang bank and
the paper; TCVT on ``cpu`` by an independent element loop; the NPUs' forms and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import formats, pto
from tilesim.errors import DtypeError
from tilesim.pto import Tile

from . import ptoisa_golden as pg
from .helpers import seed

EVERY = np.arange(256, dtype=np.uint8).reshape(8, 32)


def _bank(src: str, dst: str, sat: bool = False) -> list[pg.Case]:
    _, cases = pg.load(pg.GOLDEN / "tcvt.npz")
    return [c for c in cases if [t["dtype"] for t in c.tiles] == [dst, src] and bool(c.args.get("sat")) == sat]


def test_the_simulator_reads_two_dot_modes_otherwise_than_the_paper():
    """The bank's hif8 -> f32 case holds the simulator's double of every code. It is the paper's value except
    for dots 0001 (1 + M/32) and 001 (2 * (1 + b/16) over the 4 bits after the prefix): 48 codes."""
    (case,) = [c for c in _bank("hif8", "f32") if c.args["rmode"] == "RINT"]
    assert (case.inputs["src"] == EVERY.ravel()).all()
    sim = case.outputs["dst"].view(np.float32).astype(np.float64)
    paper = formats.decode(EVERY.ravel(), "hif8")
    same = (sim == paper) | (np.isnan(sim) & np.isnan(paper))
    differ = [c for c in range(256) if not same[c]]
    dots = [c for c in range(256) if (c & 0x7F) >> 3 == 0b0001 or (c & 0x7F) >> 4 == 0b001]
    assert differ == [c for c in dots if c & 0x7F not in (0x08, 0x10)]  # 1.0 and 2.0 read alike
    for c in dots:
        b = c & 0x7F
        v = 1 + (b & 7) / 32 if b >> 3 == 1 else 2 * (1 + (b & 0xF) / 16)
        assert sim[c] == (-v if c & 0x80 else v), hex(c)


def _lower_bound_encode(x: float, table: np.ndarray) -> int:
    """hifloat8_t(double) as its constructor reads: a loop over the codes sorted by the simulator's value."""
    order = sorted((c for c in range(256) if table[c] == table[c]), key=lambda c: table[c])
    if x != x:
        return order[0]
    i = next((k for k, c in enumerate(order) if not table[c] < x), len(order))
    if i == len(order):
        return order[-1]
    if i == 0:
        return order[0]
    cur, prev = abs(table[order[i]] - x), abs(table[order[i - 1]] - x)
    return order[i] if cur < prev else order[i - 1]


@pytest.mark.parametrize("src", ["f32", "f16", "i32", "u64"])
def test_cpu_tcvt_to_hif8_is_the_simulators_nearest_search(src):
    """TCVT x -> hif8 on cpu against a scalar search over the simulator's table as the bank gives it."""
    (case,) = [c for c in _bank("hif8", "f32") if c.args["rmode"] == "RINT"]
    table = case.outputs["dst"].view(np.float32).astype(np.float64)
    rng = np.random.default_rng(seed("hif8-cvt", src))
    dt = pto.get_dtype(src)
    if dt.is_float:
        x = np.concatenate([np.sort(np.unique(table[np.isfinite(table)])) * s for s in (1, -1)])
        x = np.concatenate([x, (x[:-1] + x[1:]) / 2, [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e9, 40960.0]])
        with np.errstate(over="ignore"):                   # f16: 1e9 and the widest draws are Inf
            x = np.resize(x, 8 * 64).astype(dt.np)
            x[-64:] = (rng.standard_normal(64) * 2.0 ** rng.integers(-25, 18, 64)).astype(dt.np)
    else:
        x = np.resize(np.array([0, 1, 3, 7, 9, 17, 2 ** 15, 40960, 2 ** 40 + 3]), 8 * 64).astype(dt.np)
        x[-64:] = rng.integers(0, 100000, 64).astype(dt.np)
    s = Tile("vec", src, 8, 64)
    s.bits[...] = x.reshape(8, 64).view(dt.lane)
    d = pto.tcvt(Tile("vec", "hif8", 8, 64), s, "FLOOR", target="cpu")
    want = [_lower_bound_encode(float(v), table) for v in x]
    assert d.bits.ravel().tolist() == want
    assert (pto.tcvt(Tile("vec", "hif8", 8, 64), s, sat=True, target="cpu").bits == 0).all()  # both limits 0


def test_hif8_ops_on_each_target():
    """cpu: TTRANS, TLOAD, TSTORE, TMOV copy codes and TCVT converts (not to bf16); A5: TLOAD, TSTORE, TMOV, and TCVT
    f32/f16 -> hif8 (ties away, overflow to Inf) and hif8 -> f32 (the paper's values); A2A3: none."""
    src = Tile("vec", "hif8", 8, 32)
    src.bits[...] = EVERY
    t = pto.ttrans(Tile("vec", "hif8", 32, 32, valid=(32, 8)), src, Tile("vec", "hif8", 32, 32), target="cpu")
    assert (t.bits[:, :8] == EVERY.T).all()
    with pytest.raises(DtypeError):
        pto.ttrans(Tile("vec", "hif8", 32, 32, valid=(32, 8)), src, Tile("vec", "hif8", 32, 32), target="a5")
    for target in ("cpu", "a5"):
        loaded = pto.tload(Tile("vec", "hif8", 8, 32), EVERY.copy(), target=target)
        assert (pto.tstore(np.zeros((8, 32), np.uint8), loaded, target=target) == EVERY).all()
        assert (pto.tmov(Tile("vec", "hif8", 8, 32), loaded, target=target).bits == EVERY).all()
    for call in (lambda: pto.tload(Tile("vec", "hif8", 8, 32), EVERY.copy(), target="a2a3"),
                 lambda: pto.tmov(Tile("vec", "hif8", 8, 32), src, target="a2a3"),
                 lambda: pto.tcvt(Tile("vec", "hif8", 8, 32), Tile("vec", "f16", 8, 32), target="a2a3"),
                 lambda: pto.tcvt(Tile("vec", "hif8", 8, 32), Tile("vec", "i8", 8, 32), target="a5"),
                 lambda: pto.tcvt(Tile("vec", "bf16", 8, 32), src, target="cpu")):   # g++ has no such cast
        with pytest.raises(DtypeError) as e:
            call()
        assert e.value.rule == "pto.op.dtype"
    f = Tile("vec", "f32", 8, 32)
    f.bits[...] = np.resize(np.array([2.0625, -2.0625, 0.3, 40960.0, 40959.0, np.nan, 1e-7, 3.0], np.float32),
                            (8, 32)).view(np.uint32)
    h = pto.tcvt(Tile("vec", "hif8", 8, 32), f, "RINT", target="a5")
    assert h.bits[0, :8].tolist() == formats.encode(f.bits[0, :8].view(np.float32), "hif8", rounding="rmm").tolist()
    assert h.bits[0, :8].tolist() == [0x10, 0x90, 0x32, 0x6F, 0x6E, 0x80, 0x00, 0x14]
    back = pto.tcvt(Tile("vec", "f32", 8, 32), src, target="a5")
    assert np.array_equal(back.bits.view(np.float32).astype(np.float64), formats.decode(EVERY, "hif8"),
                          equal_nan=True)
