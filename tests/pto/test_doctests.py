"""The examples in the PTO docstrings run (pytest collects doctests under tests/ only)."""

import doctest
import importlib

import pytest

MODULES = ["tilesim.pto", "tilesim.pto.dtypes", "tilesim.pto.targets", "tilesim.pto.tile", "tilesim.pto.memory",
           "tilesim.pto.ops.reduce", "tilesim.pto.ops.convert", "tilesim.pto.ops.memory", "tilesim.pto.text.parser", "tilesim.pto.conformance",
           "tilesim.pto.conv", "tilesim.pto.ops.img2col", "tilesim.pto.ops.config", "tilesim.pto.ops.addrelu",
           "tilesim.pto.ops.quant_mx"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert res.failed == 0 and (res.attempted > 0 or name == "tilesim.pto.ops.memory")
