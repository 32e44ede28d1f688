"""docs/verification.md lists every class, op and option the code has."""

import re
from pathlib import Path

from tilesim.verify.commands import OPTION_FLAGS
from tilesim.verify.coverage import CLASS_DOCS
from tilesim.verify.stimulus import generator, tensix
from tilesim.verify.stimulus.pto import FAMILY
from tilesim.pto.ops import OPS as PTO_OPS

DOC = (Path(__file__).resolve().parents[2] / "docs" / "verification.md").read_text()


def test_every_class_is_documented():
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+?) \|$", DOC, re.M))
    assert set(CLASS_DOCS) <= set(rows)


def test_every_pto_op_has_a_generator_and_tensix_ops_are_listed():
    assert set(FAMILY) == set(PTO_OPS)
    assert f"{len(PTO_OPS)} ops" in DOC
    for op in tensix.OPS:
        assert f"`{op}`" in DOC


def test_every_option_is_documented():
    for isa in ("tensix", "pto", "ame", "formats"):
        for opt in generator(isa).OPTIONS:
            flags = OPTION_FLAGS[opt].split("/")
            assert any(f"`{f}" in DOC for f in flags), opt
