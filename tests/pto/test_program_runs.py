"""Runs of one parsed program. Global memory and the caller's arrays: by default a run copies each pointer
input and leaves the caller's arrays alone; ``copy_inputs=False`` (``tilesim run``, the Qwen3 benchmark) runs on
them in place. The outputs are the run's own buffers, which a later run does not touch. A program is planned
and verified once per target rule set (``interp.derived``); a later run on another target is verified again."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim import pto
from tilesim.errors import TilesimError
from tilesim.pto.text.interp import Interpreter, derived

_PROGRAM = """\
module {
  func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>) attributes {pto.entry} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %xv = pto.make_tensor_view %x, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %yv = pto.make_tensor_view %y, shape = [%c8, %c8], strides = [%c8, %c1] : !pto.tensor_view<?x?xf32>
    %xp = pto.partition_view %xv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %yp = pto.partition_view %yv, offsets = [%c0, %c0], sizes = [%c8, %c8] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<8x8xf32>
    %a = pto.alloc_tile : !pto.tile_buf<vec, 8x8xf32>
    pto.tload ins(%xp : !pto.partition_tensor_view<8x8xf32>) outs(%a : !pto.tile_buf<vec, 8x8xf32>)
    pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xf32>) outs(%a : !pto.tile_buf<vec, 8x8xf32>)
    pto.tstore ins(%a : !pto.tile_buf<vec, 8x8xf32>) outs(%yp : !pto.partition_tensor_view<8x8xf32>)
    return
  }
}
"""
X = np.arange(64, dtype=np.float32)


def _run(copy_inputs=True, y=None):
    inputs = {"x": X.copy(), "y": np.zeros(64, np.float32) if y is None else y}
    it = Interpreter(pto.parse(_PROGRAM), inputs, "cpu", copy_inputs=copy_inputs)
    return it, inputs, it.run()


def test_by_default_the_callers_arrays_are_not_written():
    it, inputs, out = _run()
    assert (out["y"] == 2 * X).all() and (inputs["y"] == 0).all() and not np.shares_memory(out["y"], inputs["y"])


def test_in_place_the_run_writes_the_given_array():
    _, inputs, out = _run(copy_inputs=False)
    assert (inputs["y"] == 2 * X).all() and np.shares_memory(out["y"], inputs["y"])


def test_a_read_only_input_is_copied_even_in_place():
    y = np.zeros(64, np.float32)
    y.flags.writeable = False
    _, _, out = _run(copy_inputs=False, y=y)
    assert (out["y"] == 2 * X).all() and (y == 0).all()


def test_a_later_run_leaves_the_earlier_outputs_alone():
    it, inputs, first = _run()
    it.inputs["x"] = X + 1
    second = it.run()
    assert (first["y"] == 2 * X).all() and (second["y"] == 2 * (X + 1)).all()


def test_copy_inputs_must_be_a_bool():
    with pytest.raises(TilesimError) as e:
        Interpreter(pto.parse(_PROGRAM), {}, "cpu", copy_inputs="no")
    assert e.value.rule == "pto.interp.copy_inputs"


def test_a_program_verified_on_one_target_is_verified_again_on_another():
    text = _PROGRAM.replace("pto.tadd ins(%a, %a : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xf32>) "
                            "outs(%a : !pto.tile_buf<vec, 8x8xf32>)",
                            "pto.thistogram ins(%a, %a : !pto.tile_buf<vec, 8x8xf32>, !pto.tile_buf<vec, 8x8xf32>) "
                            "outs(%a : !pto.tile_buf<vec, 8x8xf32>)")
    program = pto.parse(text)
    for _ in range(2):
        with pytest.raises(TilesimError) as e:
            Interpreter(program, {"x": X.copy(), "y": np.zeros(64, np.float32)}, "a2a3").run()
        assert e.value.rule == "pto.op.target"


def test_runs_of_one_program_share_its_plans_and_agree():
    program = pto.parse(_PROGRAM)
    outs = [Interpreter(program, {"x": X.copy(), "y": np.zeros(64, np.float32)}, t).run()["y"]
            for t in ("cpu", "a5", "cpu")]
    assert all((o == 2 * X).all() for o in outs)
    assert derived(program)["plans"] and derived(program)["verified"]


def test_what_runs_derive_goes_with_the_program_and_is_not_pickled():
    import gc
    import pickle

    from tilesim.pto.text import interp

    program = pto.parse(_PROGRAM)
    Interpreter(program, {"x": X.copy(), "y": np.zeros(64, np.float32)}, "cpu").run()
    assert "_derived" not in vars(pickle.loads(pickle.dumps(program)))
    key = id(program)
    assert key in interp._DERIVED
    del program
    gc.collect()
    assert key not in interp._DERIVED
