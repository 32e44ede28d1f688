"""The package tools/ptoisa_vectors without a pto-isa checkout: its families draw from generators of their
own (unique names), and narrowing a table for the bf16 families touches every module that holds it and puts
it back."""

from __future__ import annotations

import subprocess
import sys
import zlib
from pathlib import Path

import pytest

_TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(_TOOLS))

from ptoisa_vectors import common, convert, families  # noqa: E402


def test_every_family_has_its_own_generator():
    names = [f.__name__ for f in families.FAMILIES + families.MORE_FAMILIES]
    assert len(set(names)) == len(names)
    assert len({zlib.crc32(n.encode()) for n in names}) == len(names)
    assert "tcvt_bf16_cases" in names and "reduce_bf16_mixed_cases" in names


def test_narrowed_sets_a_table_in_every_module_and_restores_it():
    before = (common.FLOATS, convert.FLOATS, common.DTS, convert.DTS)
    with common.narrowed(FLOATS=("bf16",), DTS=("bf16",)):
        assert common.FLOATS == convert.FLOATS == ("bf16",) and convert.DTS == ("bf16",)
    assert (common.FLOATS, convert.FLOATS, common.DTS, convert.DTS) == before
    with pytest.raises(NameError, match="NO_SUCH_TABLE"):
        with common.narrowed(NO_SUCH_TABLE=()):
            pass


def test_a_bf16_family_keeps_only_bf16_cases():
    import numpy as np
    fam = families.BF16_FAMILIES[0]  # tcvt with bf16 beside clang's dtypes
    cases = fam(np.random.default_rng(1))
    assert cases and all(c.stem == "tcvt.bf16" for c in cases)
    assert common.FLOATS == ("f32", "f16")


def test_the_folder_runs_as_a_script():
    r = subprocess.run([sys.executable, str(_TOOLS / "ptoisa_vectors"), "--help"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "usage: ptoisa_vectors" in r.stdout
