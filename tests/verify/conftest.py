"""Golden vector sets shared by the verify tests: one per ISA, written once per session."""

import pytest

from tilesim.verify.commands import make_vectors

#: (id, isa, op, options): small sets that cover every ISA and several lane widths
SETS = [
    ("formats-encode", "formats", "encode", {"format": "fp8_e4m3", "saturate": True}),
    ("formats-decode", "formats", "decode", {"format": "bf16"}),
    ("ame-int8-sat", "ame", "mmacc", {"ft": "int8", "sat": 1, "m": 4, "k": 8}),
    ("ame-fp16", "ame", "mmacc", {"ft": "fp16", "rnd": "rtz", "m": 4, "k": 4, "tiling": "1x4"}),
    ("pto-trowargmax", "pto", "trowargmax", {"target": "a2a3"}),
    ("pto-tadd", "pto", "tadd", {"dtype": "f16", "target": "cpu"}),
    ("tensix-gmpool", "tensix", "gmpool", {"srca": "BF16"}),
    ("tensix-elwmul", "tensix", "elwmul", {"srca": "FP16", "dst32": False}),
]


@pytest.fixture(scope="session", params=SETS, ids=[s[0] for s in SETS])
def golden(request, tmp_path_factory):
    name, isa, op, opts = request.param
    out = tmp_path_factory.mktemp(name)
    make_vectors(isa, op, n=12, seed=3, **opts).write(out)
    return out
