"""Malformed ``.safetensors`` files are TilesimErrors that name the tensor and the rule (issue 20's fuzz
findings); well-formed ones, written by the safetensors library, read back exactly."""

import json
import re
import struct

import numpy as np
import pytest

from tilesim.errors import TilesimError
from tilesim.study import Shape, generate, read_tensor, tensors


def _file(tmp_path, header, data: bytes = b"", raw_header: bytes | None = None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return str(path)


_W = {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}


@pytest.mark.parametrize("header, data, words", [
    ([1, 2], b"", "the header is a JSON list"),
    ("w", b"", "the header is a JSON str"),
    ({"w": [1]}, b"", "tensor 'w': an entry is an object"),
    ({"w": {"dtype": "F32", "shape": [2, 2]}}, bytes(16), "tensor 'w': an entry is an object"),
    ({"w": {**_W, "dtype": "F31"}}, bytes(16), "tensor 'w': dtype 'F31' is not a safetensors dtype"),
    ({"w": {**_W, "dtype": ["F32"]}}, bytes(16), "dtype ['F32']"),
    ({"w": {**_W, "dtype": None}}, bytes(16), "dtype None"),
    ({"w": {**_W, "shape": [2, -2]}}, bytes(16), "shape [2, -2] is not a list of non-negative integers"),
    ({"w": {**_W, "shape": "2x2"}}, bytes(16), "shape '2x2'"),
    ({"w": {**_W, "shape": [2.0, 2]}}, bytes(16), "shape [2.0, 2]"),
    ({"w": {**_W, "data_offsets": [0, 32]}}, bytes(16), "data_offsets [0, 32] are not [begin, end]"),
    ({"w": {**_W, "data_offsets": [-8, 8]}}, bytes(16), "data_offsets [-8, 8]"),  # into the header
    ({"w": {**_W, "data_offsets": [16, 0]}}, bytes(16), "data_offsets [16, 0]"),
    ({"w": {**_W, "data_offsets": [0]}}, bytes(16), "data_offsets [0]"),
    ({"w": {**_W, "data_offsets": "0:16"}}, bytes(16), "data_offsets '0:16'"),
    ({"w": {**_W, "data_offsets": [0, 12]}}, bytes(16), "hold 12 bytes; shape (2, 2) of F32 takes 16"),
    ({"w": _W, "v": {**_W, "data_offsets": [8, 24]}}, bytes(24), "tensor 'v': its data overlaps tensor 'w'"),
])
def test_malformed_headers(tmp_path, header, data, words):
    spec = _file(tmp_path, header, data) + ":w"
    with pytest.raises(TilesimError, match=re.escape(words)) as e:
        read_tensor(spec)
    assert e.value.rule == "study.tensor.header" and e.value.value == spec


@pytest.mark.parametrize("raw, words", [
    (b"\x01\x02", "fewer than the 8"),
    (struct.pack("<Q", 10**12) + b"{}", "runs past the file"),
    (struct.pack("<Q", 4) + b"{no}", "the header is not JSON"),
    (struct.pack("<Q", 2) + b"\xff\xfe", "the header is not JSON"),
])
def test_not_safetensors(tmp_path, raw, words):
    path = tmp_path / "x.safetensors"
    path.write_bytes(raw)
    with pytest.raises(TilesimError, match=re.escape(words)) as e:
        tensors(weights=str(path))
    assert e.value.rule == "study.tensor.header"


def test_library_files_read_back(tmp_path):
    """Files of the safetensors library pass the checks: several tensors, metadata, an empty tensor."""
    from safetensors.numpy import save_file

    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    i8 = np.arange(-4, 4, dtype=np.int8).reshape(2, 4)
    save_file({"w": w, "i8": i8, "empty": np.zeros((0, 4), np.float16)}, str(tmp_path / "m.safetensors"),
              metadata={"format": "np"})
    assert np.array_equal(read_tensor(str(tmp_path / "m.safetensors:w")), w)
    assert np.array_equal(read_tensor(str(tmp_path / "m.safetensors:i8")), i8)
    assert read_tensor(str(tmp_path / "m.safetensors:empty")).shape == (0, 4)
    save_file({"w": w, "u": np.zeros(3, np.uint16)}, str(tmp_path / "u.safetensors"))
    assert np.array_equal(read_tensor(str(tmp_path / "u.safetensors:w")), w)  # a sibling tilesim does not read
    with pytest.raises(TilesimError, match="tensor 'u' has dtype 'U16'; tilesim reads F64"):
        read_tensor(str(tmp_path / "u.safetensors:u"))


@pytest.mark.parametrize("shape, seed, rule", [
    (Shape(0, 3, 4), 0, "study.shape"), (Shape(-1, 3, 4), 0, "study.shape"), (Shape(2, 3.0, 4), 0, "study.shape"),
    (Shape(2, 3, 4), 1.5, "study.option"), (Shape(2, 3, 4), -1, "study.option"), (Shape(2, 3, 4), True, "study.option"),
])
def test_generate_refuses_bad_shapes_and_seeds(shape, seed, rule):
    with pytest.raises(TilesimError) as e:
        generate(shape, "outliers", seed)
    assert e.value.rule == rule


def test_empty_tensors(tmp_path):
    np.save(tmp_path / "a.npy", np.ones((2, 3, 0)))
    np.save(tmp_path / "w.npy", np.ones((0, 3)))
    for options in ({"activations": str(tmp_path / "a.npy")}, {"weights": str(tmp_path / "w.npy")}):
        with pytest.raises(TilesimError, match="no elements") as e:
            tensors(**options)
        assert e.value.rule == "study.tensor.shape"
