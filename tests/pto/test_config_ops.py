"""SET_QUANT_SCALAR / SET_QUANT_VECTOR words (PTO141), SYNCALL and TPREFETCH_ASYNC checks, and TPREFETCH from a
tile on cpu (PTO142)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import DtypeError, GeometryError, TilesimError
from tilesim.pto import BlockConfig, Tile


def _word(x: float, target: str, out: str) -> int:
    """The pre-quant word from the implementations' text: f32 bits through int32_t (NPUs) or uint32_t (cpu)
    into 64 bits, then bit 46 = (out is int8_t) for one-byte outputs."""
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    (i,) = struct.unpack("<i", struct.pack("<f", x))
    w = u if target == "cpu" else i % (1 << 64)
    if out in ("i8", "u8"):
        w = w & ~(1 << 46) | (out == "i8") << 46
    return w


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("out", ["i8", "u8", "f16", "i16", "bf16"])
@pytest.mark.parametrize("x", [0.5, -0.5, 0.0, -0.0, 3.0e38, -1.0e-45, 1.0 / 3.0])
def test_quant_scalar_word(target, out, x):
    cfg = BlockConfig()
    assert pto.set_quant_scalar(x, out_dtype=out, config=cfg, target=target) == _word(np.float32(x), target, out)
    assert cfg.quant_scalar == _word(np.float32(x), target, out)


def test_quant_scalar_rounds_once_and_checks():
    cfg = BlockConfig()
    assert pto.set_quant_scalar(1 + 2 ** -30, out_dtype="f16", config=cfg, target="cpu") == 0x3F800000
    with pytest.raises(TilesimError, match="pto.op.operand"):
        pto.set_quant_scalar("0.5", out_dtype="i8", config=cfg, target="cpu")
    with pytest.raises(DtypeError, match="pto.dtype.name"):
        pto.set_quant_scalar(0.5, out_dtype="int3", config=cfg, target="cpu")
    with pytest.raises(TilesimError, match="pto.op.operand"):
        pto.set_quant_scalar(0.5, out_dtype="i8", config={}, target="cpu")


def test_quant_vector_takes_a_scaling_tile():
    cfg = BlockConfig()
    fp = Tile("scaling", "u64", 1, 16)
    assert pto.set_quant_vector(fp, config=cfg, target="a5") is fp and cfg.quant_vector is fp
    with pytest.raises(GeometryError, match="pto.op.loc"):
        pto.set_quant_vector(Tile("vec", "u64", 1, 16), config=cfg, target="cpu")
    fp.addr = 0x40
    with pytest.raises(GeometryError, match="pto.set_quant_vector.align"):
        pto.set_quant_vector(fp, config=BlockConfig(), target="a2a3")
    assert pto.set_quant_vector(fp, config=cfg, target="cpu") is fp    # the simulator keeps any pointer


def test_syncall_checks_and_changes_nothing():
    ws = np.zeros(8, np.int32)
    for target in ("cpu", "a2a3", "a5"):
        assert pto.syncall(target=target) is None
        pto.syncall(ws, 4, mode="soft", core_type="mix", target=target)
        assert (ws == 0).all()
    for kw, rule, cls in ((dict(mode="firm"), "pto.syncall.mode", TilesimError),
                          (dict(core_type="aiv"), "pto.syncall.mode", TilesimError),
                          (dict(used_cores=-1), "pto.syncall.cores", TilesimError),
                          (dict(mode="soft"), "pto.syncall.workspace", TilesimError),
                          (dict(mode="soft", workspace=np.zeros(2, np.int64)), "pto.syncall.workspace", DtypeError)):
        with pytest.raises(cls, match=rule):
            pto.syncall(**kw, target="cpu")


def test_tprefetch_async_checks_and_changes_nothing():
    src = np.arange(64, dtype=np.float16)
    ev = pto.tprefetch_async(src, np.zeros(256, np.uint8), target="a5")
    assert ev.wait() and ev.test() and ev.nbytes == 128 and (src == np.arange(64)).all()
    with pytest.raises(TilesimError, match="pto.op.operand"):
        pto.tprefetch_async(Tile("vec", "f32", 8, 8), target="cpu")
    with pytest.raises(GeometryError, match="pto.prefetch.contiguous"):
        pto.tprefetch_async(np.zeros((8, 8), np.float32)[:, ::2], target="cpu")
    with pytest.raises(TilesimError, match="pto.prefetch.workspace"):
        pto.tprefetch_async(src, np.zeros(4, np.int32), target="cpu")


def test_tprefetch_from_a_tile_copies_on_cpu_only():
    """The simulator's TPREFETCH(dstTile, srcTile) copies src's storage with dst's row length (pto-isa's
    tprefetch testcase); the NPUs take global memory only."""
    src = Tile("vec", "i16", 4, 32)
    src.bits[...] = np.arange(128).reshape(4, 32)
    dst = Tile("vec", "i16", 4, 16, valid=(3, 16))
    pto.tprefetch(dst, src, target="cpu")
    assert (dst.bits[:3] == np.arange(48).reshape(3, 16)).all() and (dst.bits[3] == 0).all()
    with pytest.raises(TilesimError, match="pto.op.operand"):
        pto.tprefetch(dst, src, target="a5")
