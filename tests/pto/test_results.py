"""No lost results (issue 20): every documented statement form returns its destination, and a pointer input
longer than the program's views draws a warning that names it and both counts (decisions PTO102, PTO103)."""

import warnings

import numpy as np
import pytest

from tilesim import pto
from tilesim.pto.text.interp import InputSizeWarning

T = "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, blayout=row_major, " \
    "slayout=none_box, fractal=512, pad=0>"
# every form docs/pto.md lists for a tile op, each computing %c = %a + %b
FORMS = {
    "dps": f"pto.tadd ins(%a, %b : {T}, {T}) outs(%c : {T})",
    "generic": f'"pto.tadd"(%a, %b, %c) : ({T}, {T}, {T}) -> ()',
    "ssa": f"%c = pto.tadd %a, %b : ({T}, {T}) -> {T}",
    "assembly": "%c = tadd %a, %b : !pto.tile<f32, 16, 16> -> !pto.tile<f32, 16, 16>",
    "assembly, shape type": "%c = tadd %a, %b : !pto.tile<16x16xf32>",
    "assembly, placeholder": "%c = tadd %a, %b : !pto.tile<...>",
    "explicit destination": "tadd %c, %a, %b : !pto.tile<f32, 16, 16>",
    "explicit destination, shape type": "tadd %c, %a, %b : !pto.tile<16x16xf32>",
}
A = np.arange(256, dtype=np.float32).reshape(16, 16)
B = np.full((16, 16), 0.5, np.float32)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("given", [False, True], ids=["new", "given"])
def test_every_form_returns_its_result(form, given):
    inputs = {"a": A, "b": B} | ({"c": np.zeros((16, 16), np.float32)} if given else {})
    out = pto.run_text(FORMS[form] + "\n", inputs, "a5")
    assert set(out) == {"c"} and out["c"].dtype == np.float32
    assert (out["c"] == A + B).all()                       # f32 + 0.5 is exact for these values
    if given:
        assert (inputs["c"] == 0).all()                     # the caller's array is not written in place


def test_explicit_destination_chains_into_the_next_statement():
    text = "tadd %c, %a, %b : !pto.tile<f32, 16, 16>\ntmul %d, %c, %b : !pto.tile<f32, 16, 16>\n"
    out = pto.run_text(text, {"a": A, "b": B}, "a5")
    assert (out["d"] == (A + B) * B).all() and (out["c"] == A + B).all()


def test_an_input_longer_than_the_views_is_named_with_both_counts():
    with pytest.warns(InputSizeWarning, match=r"input 'x' has 1,024 elements; the program's views reach only "
                                              r"the first 512, so the other 512 are ignored"):
        pto.run_file("examples/pto/row_softmax.pto", {"x": np.ones((2, 8, 64), np.float32)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", InputSizeWarning)       # the exact size draws no warning
        pto.run_file("examples/pto/row_softmax.pto", {"x": np.ones((8, 64), np.float32)})


def test_the_cli_prints_the_size_warning_as_one_line(tmp_path):
    from typer.testing import CliRunner

    from tilesim.cli import app
    np.save(tmp_path / "x.npy", np.ones((2, 8, 64), np.float32))
    res = CliRunner().invoke(app, ["run", "examples/pto/row_softmax.pto", "-i", f"x={tmp_path / 'x.npy'}"])
    assert res.exit_code == 0
    assert "warning: input 'x' has 1,024 elements; the program's views reach only the first 512" in res.output
