"""The examples in the tensix package's docstrings run (pytest collects doctests under tests/ only)."""

import doctest
import importlib
import pkgutil

import pytest

import tilesim.tensix

MODULES = ["tilesim.tensix"] + [f"tilesim.tensix.{m.name}" for m in pkgutil.walk_packages(tilesim.tensix.__path__)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
