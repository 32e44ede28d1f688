"""Parsed programs kept by their text (``pto/text/parse_cache.py``, decision PTO117)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesim.errors import ParseError
from tilesim.pto import run_file
from tilesim.pto.text import parse_cache as pc
from tilesim.pto.text.interp import parse_file
from tilesim.pto.text.parser import parse

T = "!pto.tile_buf<vec, 16x16xf32>"
TEXT = f"""module {{
  func.func @k(%a: {T}, %b: {T}) attributes {{pto.entry}} {{
    pto.tadd ins(%a, %b : {T}, {T}) outs(%a : {T})
    return
  }}
}}
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache directory, nothing in memory, and a count of the texts really parsed."""
    monkeypatch.setenv(pc.ENV, str(tmp_path))
    monkeypatch.setattr(pc, "_MEMORY", {})
    parsed = []
    monkeypatch.setattr(pc, "parse", lambda text, source=None: (parsed.append(source), parse(text, source))[1])
    return tmp_path, parsed


def test_a_file_parsed_again_is_read_from_the_cache(cache, tmp_path):
    folder, parsed = cache
    f = tmp_path / "k.pto"
    f.write_text(TEXT)
    first, again = parse_file(f), parse_file(f)
    assert parsed == [str(f)] and again is not first and again == first == parse(TEXT, str(f))
    pc._MEMORY.clear()                                 # a new process: from the file
    assert parse_file(f) == first and parsed == [str(f)] and len(list((folder / "pto").iterdir())) == 1
    a, b = np.arange(256, dtype=np.float32).reshape(16, 16), np.ones((16, 16), np.float32)
    assert np.array_equal(run_file(f, {"a": a, "b": b}, "cpu")["a"], a + b)


def test_another_text_source_or_code_is_parsed(cache, tmp_path, monkeypatch):
    folder, parsed = cache
    pc.parse_cached(TEXT, "k.pto")
    pc.parse_cached(TEXT.replace("tadd", "tsub"), "k.pto")
    pc.parse_cached(TEXT, "other.pto")                 # errors name their file: the source is in the key
    monkeypatch.setattr(pc, "_CODE", ["another parser"])
    pc.parse_cached(TEXT, "k.pto")
    assert parsed == ["k.pto", "k.pto", "other.pto", "k.pto"]


def test_a_damaged_cache_file_is_parsed_again(cache):
    folder, parsed = cache
    pc.parse_cached(TEXT, "k.pto")
    (kept,) = (folder / "pto").iterdir()
    kept.write_bytes(b"not a pickle")
    pc._MEMORY.clear()
    assert pc.parse_cached(TEXT, "k.pto") == parse(TEXT, "k.pto") and len(parsed) == 2
    assert kept.read_bytes() != b"not a pickle"


def test_text_that_does_not_parse_raises_every_time(cache):
    folder, parsed = cache
    for _ in range(2):
        with pytest.raises(ParseError) as e:
            pc.parse_cached(TEXT.replace("return", "return )"), "bad.pto")
        assert e.value.rule == "pto.parse.syntax" and e.value.source == "bad.pto"
    assert len(parsed) == 2 and not (folder / "pto").exists()


@pytest.mark.parametrize("off", ["off", "0", ""])
def test_the_disk_cache_can_be_turned_off(cache, monkeypatch, off):
    folder, parsed = cache
    monkeypatch.setenv(pc.ENV, off)
    assert pc.cache_dir() is None
    pc.parse_cached(TEXT, "k.pto")
    assert not list(folder.iterdir())


def test_the_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv(pc.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pc.cache_dir() == tmp_path / "tilesim" / "pto"
