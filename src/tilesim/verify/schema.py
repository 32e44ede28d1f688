"""The schema of a golden directory: ``manifest.json`` and ``vectors.npz`` are checked before use.

A golden set is data from disk, so nothing in it is trusted: every field of the manifest has a
type and a range (the tables below), the operands must agree with the ``outputs`` list and the
``vectors`` list with ``count``, and every array of ``vectors.npz`` must be exactly
``(count, *shape)`` unsigned integers of the lane's width holding codes that fit the lane
(decision V15). A failure is a :class:`~tilesim.errors.TilesimError` naming the file, the field
and the rule; no Python exception from a malformed file reaches the caller.
"""

from __future__ import annotations

import json
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..errors import TilesimError

__all__ = ["MAX_VECTORS", "MAX_ELEMENTS", "read_manifest", "check_manifest", "read_arrays"]

#: The most vectors a set may hold (``tilesim vectors --n``, ``--min-per-class`` and a golden's ``count``).
MAX_VECTORS = 100_000
#: The most elements one operand may hold over all vectors (count x size).
MAX_ELEMENTS = 1 << 28

_CMD = "tilesim check"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _list_of(kind):
    return lambda v: isinstance(v, list) and all(kind(x) for x in v)


#: top-level key -> (required, test, what is accepted)
TOP = {
    "isa": (True, lambda v: isinstance(v, str), "a string"),
    "op": (True, lambda v: isinstance(v, str), "a string"),
    "count": (True, lambda v: _int(v) and 1 <= v <= MAX_VECTORS, f"an integer in 1..{MAX_VECTORS:,}"),
    "operands": (True, lambda v: isinstance(v, list) and v and all(isinstance(d, dict) for d in v),
                 "a non-empty list of operand objects"),
    "vectors": (True, lambda v: isinstance(v, list) and all(isinstance(d, dict) for d in v),
                "a list of objects, one per vector"),
    "outputs": (True, _list_of(lambda x: isinstance(x, str)), "a list of file names"),
    "inputs": (False, _list_of(lambda x: isinstance(x, str)), "a list of file names"),
    "config": (False, lambda v: isinstance(v, dict), "an object"),
    "seed": (False, lambda v: _int(v) and v >= 0, "a non-negative integer"),
    "min_per_class": (False, lambda v: _int(v) and v >= 0, "a non-negative integer"),
    "classes": (False, _list_of(lambda x: isinstance(x, str)), "a list of class names"),
    "notes": (False, _list_of(lambda x: isinstance(x, str)), "a list of strings"),
    "manifest_version": (False, lambda v: v == 1, "1"),
    "tilesim_version": (False, lambda v: isinstance(v, str), "a string"),
}

#: operand key -> (required, test, what is accepted)
OPERAND = {
    "name": (True, lambda v: isinstance(v, str) and bool(_NAME.fullmatch(v)), "an identifier of at most 64 characters"),
    "role": (True, lambda v: v in ("input", "output"), "'input' or 'output'"),
    "shape": (True, lambda v: isinstance(v, list) and len(v) <= 8 and all(_int(x) and 1 <= x <= MAX_ELEMENTS
                                                                           for x in v),
              "a list of at most 8 integers, each at least 1"),
    "lane_bits": (True, lambda v: _int(v) and 1 <= v <= 64, "an integer in 1..64"),
    "fmt": (False, lambda v: isinstance(v, str), "a lane kind (a format name, tt.*, bits)"),
    "nan_any": (False, lambda v: isinstance(v, bool), "true or false"),
    "doc": (False, lambda v: isinstance(v, str), "a string"),
    "file": (False, lambda v: isinstance(v, str), "a file name"),
    "flags": (False, lambda v: isinstance(v, list) and len(v) <= 64 and all(isinstance(x, str) for x in v),
              "a list of at most 64 bit names"),
}


def _err(file, field: str, detail: str, rule: str, value=None) -> TilesimError:
    return TilesimError(detail, instruction=_CMD, operand=f"{file}: {field}", rule=rule, value=value)


def _short(v) -> str:
    text = json.dumps(v) if not isinstance(v, (bytes, bytearray)) else repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _fields(d: dict, table: dict, file, prefix: str) -> None:
    for key, (required, test, accepted) in table.items():
        if key not in d:
            if required:
                raise _err(file, prefix + key, f"missing; it must be {accepted}", "verify.golden.manifest")
            continue
        if not test(d[key]):
            raise _err(file, prefix + key, f"{_short(d[key])} is not {accepted}", "verify.golden.manifest",
                       _short(d[key]))


def read_manifest(path: Path) -> dict:
    """``manifest.json`` parsed and checked against the schema (:func:`check_manifest`)."""
    try:
        manifest = json.loads(Path(path).read_bytes())
    except json.JSONDecodeError as e:
        raise TilesimError(f"manifest.json is not JSON: {e.msg}", instruction=_CMD, rule="verify.golden.json",
                           source=str(path), line=e.lineno, column=e.colno) from None
    except (UnicodeDecodeError, RecursionError, ValueError) as e:
        detail = "nested too deeply" if isinstance(e, RecursionError) else str(e)[:80]
        raise _err(path, "(whole file)", f"manifest.json is not JSON: {detail}", "verify.golden.json") from None
    check_manifest(manifest, path)
    return manifest


def check_manifest(manifest, file) -> None:
    """Raise TilesimError (rules ``verify.golden.*``) unless ``manifest`` follows the schema."""
    from . import lanes
    if not isinstance(manifest, dict):
        raise _err(file, "(top level)", f"{type(manifest).__name__} is not an object", "verify.golden.manifest")
    _fields(manifest, TOP, file, "")
    count = manifest["count"]
    names = set()
    for i, d in enumerate(manifest["operands"]):
        where = f"operands[{i}]."
        _fields(d, OPERAND, file, where)
        name = d["name"]
        if name in names:
            raise _err(file, where + "name", f"{name!r} names two operands", "verify.golden.manifest", name)
        names.add(name)
        if "file" in d and d["file"] != f"{name}.hex":
            raise _err(file, where + "file", f"{d['file']!r} is not {name}.hex", "verify.golden.manifest", d["file"])
        size = int(np.prod(d["shape"], dtype=object))
        if size * count > MAX_ELEMENTS:
            raise _err(file, where + "shape", f"{count} vectors x {size} elements is more than {MAX_ELEMENTS:,}",
                       "verify.golden.limit", size * count)
        try:
            lanes.check_kind(d.get("fmt", "bits"))
        except TilesimError as e:
            raise _err(file, where + "fmt", f"{d['fmt']!r} is not a lane kind ({e.detail})",
                       "verify.golden.manifest", d["fmt"]) from None
    outputs = [f"{d['name']}.hex" for d in manifest["operands"] if d["role"] == "output"]
    if not outputs:
        raise _err(file, "operands", "no operand has role 'output': there is nothing to check",
                   "verify.golden.manifest")
    if manifest["outputs"] != outputs:
        raise _err(file, "outputs", f"{_short(manifest['outputs'])} does not list the output operands' files "
                   f"{_short(outputs)}", "verify.golden.manifest", _short(manifest["outputs"]))
    inputs = [f"{d['name']}.hex" for d in manifest["operands"] if d["role"] == "input"]
    if "inputs" in manifest and manifest["inputs"] != inputs:
        raise _err(file, "inputs", f"{_short(manifest['inputs'])} does not list the input operands' files "
                   f"{_short(inputs)}", "verify.golden.manifest", _short(manifest["inputs"]))
    if len(manifest["vectors"]) != count:
        raise _err(file, "vectors", f"{len(manifest['vectors'])} entries for count {count}",
                   "verify.golden.manifest", len(manifest["vectors"]))
    for i, v in enumerate(manifest["vectors"]):
        tags = v.get("classes")
        if not (isinstance(tags, list) and all(isinstance(t, str) for t in tags)):
            raise _err(file, f"vectors[{i}].classes", f"{_short(tags)} is not a list of class names",
                       "verify.golden.manifest", _short(tags))


def _lane_dtype(lane_bits: int) -> np.dtype:
    from .vectorset import lane_dtype
    return lane_dtype(lane_bits)


def read_arrays(npz: Path, operands, count: int) -> dict[str, np.ndarray]:
    """Every operand's array from ``vectors.npz``: exactly ``(count, *shape)``, unsigned, of the lane's width.

    Raises:
        TilesimError: an unreadable file or missing array (``verify.golden.npz``), another dtype
            (``verify.golden.dtype``), shape (``verify.golden.shape``), or a code wider than its lane
            (``verify.golden.width``).
    """
    out = {}
    try:
        with np.load(npz, allow_pickle=False) as z:
            for o in operands:
                dt = _lane_dtype(o.lane_bits)
                if o.name not in z.files:
                    raise _err(npz, o.name, f"no such array (it has {', '.join(z.files) or 'none'})",
                               "verify.golden.npz", o.name)
                expected = count * o.size * dt.itemsize
                stored = z.zip.getinfo(f"{o.name}.npy").file_size
                if stored > expected + 4096:            # a header that declares more data than the set has
                    raise _err(npz, o.name, f"{stored:,} bytes, more than {count} x {list(o.shape)} {dt} can hold",
                               "verify.golden.shape", stored)
                out[o.name] = z[o.name]
    except TilesimError:
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, KeyError) as e:
        raise _err(npz, "(whole file)", f"not a readable .npz: {str(e)[:80] or type(e).__name__}",
                   "verify.golden.npz") from None
    for o in operands:
        a = out[o.name]
        dt = _lane_dtype(o.lane_bits)
        if a.dtype.kind != "u" or a.dtype.itemsize != dt.itemsize:
            raise _err(npz, o.name, f"holds {a.dtype}; golden arrays are {dt} bit patterns", "verify.golden.dtype",
                       str(a.dtype))
        if a.shape != (count, *o.shape):
            raise _err(npz, o.name, f"has shape {list(a.shape)}, not (count, *shape) = {[count, *o.shape]}",
                       "verify.golden.shape", list(a.shape))
        a = a.astype(dt)                                # native byte order
        if o.lane_bits < 8 * dt.itemsize and (a >> dt.type(o.lane_bits)).any():
            raise _err(npz, o.name, f"holds a code wider than its {o.lane_bits}-bit lane", "verify.golden.width")
        out[o.name] = a
    return out
