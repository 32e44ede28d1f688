"""tt-llk's Wormhole B0 math kernels, transcribed into examples/tensix/llk_*.tt, against numpy.

Inputs are multiples of 1/4 (or 0/1 for sums) small enough that every result and partial sum is
exact in the formats involved, so the kernels must reproduce numpy's float64 results bit for bit,
in both rounding models, on the example data and on random data given as inputs.
"""

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim.cli import app
from tilesim.tensix.cli import face_of, parse_program, run_program, tile_of

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tensix"


def run(name: str, inputs: dict, model: str):
    path = EXAMPLES / name
    statements = parse_program(path.read_text(), str(path))
    arrays = {s.args[0]: s.args[1] for s in statements if s.kind == "array"}
    arrays.update(inputs)
    return arrays, run_program(statements, inputs, model, str(path))[1]


def quarters(rng, limit: int):
    return rng.integers(-limit, limit + 1, (32, 32)) / 4


@pytest.mark.parametrize("model", ["hardware", "doc"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_eltwise_binary_kernel(model, seed):
    rng = np.random.default_rng(seed)
    inputs = {} if seed is None else {"a": quarters(rng, 15), "b": quarters(rng, 15)}
    arrays, out = run("llk_eltwise_binary.tt", inputs, model)
    a, b = arrays["a"], arrays["b"]
    assert np.array_equal(out["sum"], a + b)
    assert np.array_equal(out["difference"], a - b)
    assert np.array_equal(out["product"], a * b)


@pytest.mark.parametrize("model", ["hardware", "doc"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_reduce_kernel(model, seed):
    rng = np.random.default_rng(seed)
    inputs = {} if seed is None else {"x": quarters(rng, 60), "y": (rng.random((32, 32)) < 0.2).astype(float)}
    arrays, out = run("llk_reduce.tt", inputs, model)
    assert out["max"][0, 0] == arrays["x"].max()
    assert out["sum"][0, 0] == arrays["y"].sum()


@pytest.mark.parametrize("model", ["hardware", "doc"])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_matmul_kernel(model, seed):
    rng = np.random.default_rng(seed)
    inputs = {} if seed is None else {"a": quarters(rng, 15), "b": quarters(rng, 15)}
    arrays, out = run("llk_matmul.tt", inputs, model)
    assert np.array_equal(out["c"], arrays["a"] @ arrays["b"])


def test_kernels_use_tt_llk_spelling():
    text = "".join((EXAMPLES / f"llk_{k}.tt").read_text() for k in ("eltwise_binary", "reduce", "matmul"))
    for name in ("p_setrwc::CLR_AB", "ADDR_MOD_0", "p_gpool::DIM_16X16", "p_movb2a::MOV_4_ROWS", "TTI_GATESRCRST(0b1, 0b1)",
                 "TT_OP_ELWMUL", "TTI_MVMUL"):
        assert name in text


@pytest.mark.parametrize("name", ["llk_eltwise_binary.tt", "llk_reduce.tt", "llk_matmul.tt"])
def test_kernels_run_in_tilesim_run(name, tmp_path):
    res = CliRunner().invoke(app, ["run", str(EXAMPLES / name), "-o", str(tmp_path / "o.npz")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "o.npz").stat().st_size > 0


def test_faces_and_tiles_round_trip():
    x = np.arange(1024.0).reshape(32, 32)
    rows = np.concatenate([face_of(x, f, "x") for f in range(4)])
    assert np.array_equal(tile_of(rows), x)
    assert np.array_equal(face_of(x, 1, "x"), x[:16, 16:])
