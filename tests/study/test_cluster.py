"""Dask: a real LocalCluster of two worker processes gives, bit for bit, what the sweep and the GEMM give in
this process, whatever the block and worker counts; inputs are scattered once per (shape, distribution)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from tilesim.ame.gemm import gemm
from tilesim.cli import app
from tilesim.errors import GeometryError, TilesimError
from tilesim.study import Shape, Sweep, blocked_gemm, connect, run
from tilesim.study.inputs import generate


@pytest.fixture(scope="module")
def client():
    with connect(workers=2) as c:
        assert len(c.scheduler_info()["workers"]) == 2
        yield c


class _CountingClient:
    """The client, counting the objects it scatters."""

    def __init__(self, client):
        self.client, self.scattered = client, 0

    def scatter(self, data, **kw):
        self.scattered += len(data)
        return self.client.scatter(data, **kw)

    def __getattr__(self, name):
        return getattr(self.client, name)


def _same(x, y):
    """Records equal, floats compared by their bits (NaN equal to NaN)."""
    assert x.keys() == y.keys()
    for key in x:
        if isinstance(x[key], float):
            assert np.float64(x[key]).tobytes() == np.float64(y[key]).tobytes(), key
        else:
            assert x[key] == y[key], key


def test_sweep_on_the_cluster_equals_in_process(client):
    sweep = Sweep(shapes=(Shape(20, 40, 96),), fts=("int8", "bf16"), sats=(0, 1), dists=("normal", "outliers"),
                  seed=3)
    here = run(sweep)
    counting = _CountingClient(client)
    done = []
    there = run(sweep, client=counting, on_point=done.append)
    assert len(here.records) == len(there.records) == 2 * 2 * 2 == len(done)
    for x, y in zip(here.records, there.records):
        _same(x, y)
    assert here.histograms == there.histograms
    assert counting.scattered == 2 * 2  # A and B once per (shape, distribution), not once per point


@pytest.mark.parametrize("ft, extra", [("bf16", {}), ("bf16", {"rnd": "rtz", "accumulation": "sequential"}),
                                       ("int8", {"sat": 1})])
def test_blocked_gemm_is_bit_identical(client, ft, extra):
    a, b = generate(Shape(40, 50, 70), "outliers", seed=1)
    c = None if ft == "int8" else np.random.default_rng(2).standard_normal((40, 50))
    x = a / np.abs(a).max() * 100 if ft == "int8" else a
    want = gemm(x, b, c, ft=ft, quantize=True, **extra)
    runs = [(None, None), (None, (16, 16)), (None, (1000, 1000)), (client, None), (client, (16, 24)),
            (client, (7, 100))]  # 7 rows: blocks that split 16-row tiles
    for cl, block in runs:
        got = blocked_gemm(x, b, c, client=cl, block=block, ft=ft, quantize=True, **extra)
        assert np.array_equal(got.codes, want.codes) and got.codes.dtype == want.codes.dtype, (block, cl)
        assert got.status == want.status and got.plan.tiling == want.plan.tiling


def test_blocked_gemm_errors():
    a = np.ones((8, 8))
    with pytest.raises(GeometryError, match="not M x K and K x N"):
        blocked_gemm(a, np.ones((7, 8)))
    with pytest.raises(GeometryError, match="block"):
        blocked_gemm(a, a, block=(0, 4))
    with pytest.raises(TilesimError, match="unknown format"):
        blocked_gemm(a, a, ft="fp7")


def test_connect_errors():
    with pytest.raises(TilesimError) as e:
        with connect(workers=0):
            pass
    assert e.value.rule == "study.workers"
    with pytest.raises(TilesimError) as e:
        with connect(workers=1, scheduler="tcp://127.0.0.1:1"):
            pass
    assert e.value.rule == "study.workers" and "not both" in str(e.value)
    with pytest.raises(TilesimError) as e:
        with connect(scheduler="tcp://127.0.0.1:1", timeout=1):
            pass
    assert e.value.rule == "study.scheduler" and "tcp://127.0.0.1:1" in str(e.value)


def test_cli_on_a_scheduler(client, tmp_path):
    """``--scheduler`` runs on an existing cluster: the same CSV as in process; an unreachable one is an error."""
    runner = CliRunner()
    args = ["study", "-s", "16x32x64", "-f", "int8", "-f", "bf16", "--output-format", "csv"]
    here = runner.invoke(app, args)
    there = runner.invoke(app, [*args, "--scheduler", client.scheduler.address])
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    assert here.output == there.output and len(here.output.splitlines()) == 3
    gemm_args = ["gemm", "48", "40", "64", "-f", "bf16", "--output-format", "csv", "--block", "16x16"]
    here = runner.invoke(app, gemm_args)
    there = runner.invoke(app, [*gemm_args, "--scheduler", client.scheduler.address])
    assert here.exit_code == 0 and there.exit_code == 0, there.output
    assert here.output == there.output
    res = runner.invoke(app, [*args, "--scheduler", "tcp://127.0.0.1:1", "--timeout", "1"])
    assert res.exit_code == 2 and "no Dask scheduler answered" in res.output and "Traceback" not in res.output
