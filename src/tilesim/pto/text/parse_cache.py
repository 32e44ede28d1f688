"""Parsed programs kept by their text, so that a ``.pto`` file run again is not parsed again (decision PTO117).

After the import, parsing is most of what ``tilesim run`` spends on a small kernel: a 161-line Qwen3 decode kernel
takes about 150 ms to parse, and its parsed :class:`~.parser.Program`, pickled, loads in about 1 ms.
:func:`parse_cached` keys a program by a hash of its text, its source name, the code of this package (its
modules and grammar) and tilesim's version, and keeps it pickled in memory and in a cache directory
(:func:`cache_dir`). Each call returns a new Program, so no caller sees another's changes to one. A cache file
that cannot be read, written or loaded is passed over (the text is parsed); text that does not parse raises as
:func:`~.parser.parse` does, and nothing is kept for it.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from ... import __version__
from .parser import Program, parse

__all__ = ["ENV", "cache_dir", "parse_cached"]

#: the cache directory's environment variable (``off``, ``0`` or empty: keep nothing on disk)
ENV = "TILESIM_CACHE_DIR"
#: programs kept in memory (pickled), by key; the oldest goes first past :data:`_IN_MEMORY`
_MEMORY: dict[str, bytes] = {}
_IN_MEMORY = 64
_CODE: list = []


def cache_dir() -> Path | None:
    """``$TILESIM_CACHE_DIR/pto``, else ``$XDG_CACHE_HOME/tilesim/pto``, else ``~/.cache/tilesim/pto``; None when
    ``TILESIM_CACHE_DIR`` is ``off``, ``0`` or empty."""
    v = os.environ.get(ENV)
    if v is not None:
        return None if v.strip().lower() in ("", "0", "off") else Path(v) / "pto"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tilesim" / "pto"


def _code() -> str:
    """A hash of tilesim's version and of this package's modules and grammar: a program is kept for the code
    that parsed it."""
    if not _CODE:
        h = hashlib.sha256(__version__.encode())
        here = Path(__file__).parent
        for f in sorted([*here.glob("*.py"), *here.glob("*.lark")]):
            h.update(f.name.encode() + b"\0" + f.read_bytes())
        _CODE.append(h.hexdigest())
    return _CODE[0]


def parse_cached(text: str, source: str | None = None) -> Program:
    """:func:`~.parser.parse`, or the program kept for the same text, source name and code.

    Raises:
        ParseError: as :func:`~.parser.parse`.
    """
    if not isinstance(text, str):
        return parse(text, source)
    key = hashlib.sha256(f"{_code()}\0{source}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    folder = cache_dir()
    path = folder / f"{key}.pickle" if folder is not None else None
    blob = _MEMORY.get(key)
    if blob is None and path is not None:
        try:
            blob = path.read_bytes()
        except OSError:
            blob = None
    if blob is not None:
        try:
            program = pickle.loads(blob)
        except Exception:  # noqa: BLE001 - a damaged or foreign file: parse again
            program = None
        if isinstance(program, Program):
            _keep(key, blob)
            return program
    program = parse(text, source)
    blob = pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)
    _keep(key, blob)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_name(f"{path.name}.{os.getpid()}.part")
            part.write_bytes(blob)
            os.replace(part, path)
        except OSError:
            pass
    return program


def _keep(key: str, blob: bytes) -> None:
    _MEMORY.pop(key, None)
    _MEMORY[key] = blob
    while len(_MEMORY) > _IN_MEMORY:
        del _MEMORY[next(iter(_MEMORY))]
