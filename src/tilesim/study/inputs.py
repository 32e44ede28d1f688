"""The inputs of a study: generated distributions, or the user's own tensors.

- ``normal``: A and B with standard normal entries.
- ``outliers``: activations as LLMs have them: heavy-tailed entries
  (Student's t with 4 degrees of freedom, scaled to unit variance) and a few
  outlier channels (0.5% of the K columns of A, at least one, scaled by 20;
  LLM.int8(), Dettmers et al. 2022, https://arxiv.org/abs/2208.07339, finds
  such feature dimensions of magnitude up to 20 in every layer of large
  models). B, the weights, stays standard normal.
- ``tensors``: A from ``activations`` (M x K, leading dimensions folded into
  M) and B from ``weights``, stored as ``torch.nn.Linear`` keeps them (N x K,
  out x in features) in a ``.npy`` or ``.safetensors`` file. A side without a
  file is drawn from ``normal``.

Generated inputs are float32 (what LLM tensors are at most), drawn from
``numpy.random.default_rng([seed, M, N, K])``, so every point of one shape
and seed sees the same A and B. The reference of a study is the float64
product of exactly these values.

>>> a, b = generate(Shape(2, 3, 4), "normal", seed=0)
>>> a.shape, b.shape, a.dtype
((2, 4), (4, 3), dtype('float32'))
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import formats
from ..errors import TilesimError
from .presets import Shape

__all__ = ["DISTRIBUTIONS", "OUTLIER_SHARE", "OUTLIER_GAIN", "Tensors", "generate", "read_tensor", "tensors"]

DISTRIBUTIONS: tuple[str, ...] = ("normal", "outliers", "tensors")
OUTLIER_SHARE = 0.005  # share of A's K channels that are outliers
OUTLIER_GAIN = 20.0  # their scale against the other channels
_T_DOF = 4  # Student's t degrees of freedom: heavy tails, finite variance (dof / (dof - 2) = 2)

# safetensors dtype -> numpy dtype, or the tilesim format its codes are in (numpy has no bf16 or fp8)
_SAFETENSORS_DTYPES: dict[str, "np.dtype | str"] = {
    "F64": np.dtype("<f8"), "F32": np.dtype("<f4"), "F16": np.dtype("<f2"), "BF16": "bf16",
    "F8_E4M3": "fp8_e4m3", "F8_E5M2": "fp8_e5m2", "I64": np.dtype("<i8"), "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"), "I8": np.dtype("i1"), "U8": np.dtype("u1"),
}
# bytes per element of the safetensors dtypes tilesim does not read (offsets are still checked against them)
_SAFETENSORS_OTHER_SIZES = {"BOOL": 1, "U16": 2, "U32": 4, "U64": 8, "F8_E8M0": 1}


def _error(detail: str, spec, rule: str = "study.tensor", operand: str = "tensor") -> TilesimError:
    return TilesimError(detail, instruction="study", operand=operand, rule=rule, value=spec)


def _nonneg_ints(x, count: int | None = None) -> bool:
    return (isinstance(x, list) and (count is None or len(x) == count) and
            all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x))


def _safetensors_header(raw: bytes, spec: str) -> tuple[int, dict]:
    """(first data byte, {name: (numpy dtype or None, format or None, shape, start, end, dtype name)}) of a
    ``.safetensors`` file: an 8-byte little-endian header length, a JSON object (name -> dtype, shape, data_offsets into the bytes
    after the header; an optional ``__metadata__``), then the data. Every entry is checked, as the
    safetensors library checks them: dtypes safetensors knows, offsets inside the data that hold the shape,
    no two tensors sharing bytes. A dtype tilesim does not read is refused by :func:`_read_safetensors`
    only for the tensor asked for.

    Raises:
        TilesimError: the first problem, naming the tensor (rule ``study.tensor.header``).
    """
    def bad(detail: str, name: str | None = None) -> TilesimError:
        return _error(("" if name is None else f"tensor {name!r}: ") + detail, spec, "study.tensor.header")

    if len(raw) < 8:
        raise bad(f"not a safetensors file: {len(raw)} bytes, fewer than the 8 of its header length")
    (size,) = struct.unpack("<Q", raw[:8])
    if size > len(raw) - 8:
        raise bad(f"not a safetensors file: its header length {size:,} runs past the file's {len(raw) - 8:,} bytes")
    try:
        header = json.loads(raw[8:8 + size])
    except ValueError as e:  # bad JSON or UTF-8
        raise bad(f"not a safetensors file: the header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise bad(f"the header is a JSON {type(header).__name__}; safetensors headers are a JSON object of tensors")
    base, data = 8 + size, len(raw) - 8 - size
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(entry, dict) or not {"dtype", "shape", "data_offsets"} <= set(entry):
            raise bad("an entry is an object with dtype, shape and data_offsets, not " + repr(entry)[:60], name)
        dt = entry["dtype"]
        kind = _SAFETENSORS_DTYPES.get(dt) if isinstance(dt, str) else None
        if kind is None and not (isinstance(dt, str) and dt in _SAFETENSORS_OTHER_SIZES):
            raise bad(f"dtype {dt!r} is not a safetensors dtype; tilesim reads " + ", ".join(_SAFETENSORS_DTYPES),
                      name)
        shape, offsets = entry["shape"], entry["data_offsets"]
        if not _nonneg_ints(shape):
            raise bad(f"shape {shape!r} is not a list of non-negative integers", name)
        if not _nonneg_ints(offsets, 2) or offsets[0] > offsets[1] or offsets[1] > data:
            raise bad(f"data_offsets {offsets!r} are not [begin, end] with 0 <= begin <= end <= {data:,} (the bytes "
                      "after the header)", name)
        fmt = formats.get(kind) if isinstance(kind, str) else None
        dtype = fmt.dtype if fmt is not None else kind
        need = math.prod(shape) * (_SAFETENSORS_OTHER_SIZES[dt] if dtype is None else dtype.itemsize)
        if offsets[1] - offsets[0] != need:
            raise bad(f"data_offsets {offsets} hold {offsets[1] - offsets[0]:,} bytes; shape {tuple(shape)} of {dt} "
                      f"takes {need:,}", name)
        out[name] = (dtype, fmt, tuple(shape), base + offsets[0], base + offsets[1], dt)
    spans = sorted((v[3], v[4], n) for n, v in out.items() if v[4] > v[3])
    for (_, end0, n0), (start1, _, n1) in zip(spans, spans[1:]):
        if start1 < end0:
            raise bad(f"its data overlaps tensor {n0!r}'s", n1)
    return base, out


def _read_safetensors(path: Path, name: str | None, spec: str) -> np.ndarray:
    """One tensor of a ``.safetensors`` file (see :func:`_safetensors_header`)."""
    raw = path.read_bytes()
    _, header = _safetensors_header(raw, spec)
    if name is None:
        if len(header) != 1:
            raise _error("the file holds " + (", ".join(sorted(header)) or "no tensors") +
                         "; name one as FILE.safetensors:NAME", spec)
        name = next(iter(header))
    if name not in header:
        raise _error(f"no tensor {name!r}; the file holds " + ", ".join(sorted(header)), spec)
    dtype, fmt, shape, start, end, dt = header[name]
    if dtype is None:
        raise _error(f"tensor {name!r} has dtype {dt!r}; tilesim reads " + ", ".join(_SAFETENSORS_DTYPES), spec,
                     "study.tensor.header")
    data = np.frombuffer(raw[start:end], dtype).reshape(shape)
    return formats.decode(data, fmt) if fmt is not None else data.astype(np.float64)


def read_tensor(spec: str) -> np.ndarray:
    """A tensor as float64 values: ``FILE.npy``, ``FILE.safetensors`` (its only tensor) or
    ``FILE.safetensors:NAME``.

    Raises:
        TilesimError: a missing or unreadable file, an unknown tensor name, or values that are not finite
            (rule ``study.tensor``); a malformed ``.safetensors`` header (``study.tensor.header``).
    """
    path, _, name = spec.partition(".safetensors:")
    path = Path(path + ".safetensors" if name else spec)
    if not path.is_file():
        raise _error(f"no such file {str(path)!r}", spec)
    if path.suffix == ".npy":
        try:
            x = np.load(path, allow_pickle=False)
        except ValueError as e:
            raise _error(f"not a numpy array file ({e})", spec) from None
        if x.dtype.kind not in "iuf":
            raise _error(f"the array has dtype {x.dtype}; numbers are needed", spec)
        x = x.astype(np.float64)
    elif path.suffix == ".safetensors":
        x = _read_safetensors(path, name or None, spec)
    else:
        raise _error("tensors are .npy or .safetensors files", spec)
    if not np.isfinite(x).all():
        raise _error("the tensor holds Inf or NaN; the study measures against its float64 product", spec)
    return x


@dataclass(frozen=True)
class Tensors:
    """The user's tensors: activations (M x K) and weights (N x K, ``nn.Linear`` layout); either may be absent."""

    activations: np.ndarray | None = None
    weights: np.ndarray | None = None

    def shape(self, tokens: int | None = None) -> Shape | None:
        """The GEMM shape the tensors fix, or ``None`` when a side is missing and no token count is given."""
        if self.activations is not None and self.weights is not None:
            return Shape(self.activations.shape[0], self.weights.shape[0], self.activations.shape[1])
        if self.weights is not None and tokens is not None:
            return Shape(tokens, self.weights.shape[0], self.weights.shape[1])
        return None

    def check(self, shape: Shape) -> None:
        """Raise unless the tensors fit ``shape`` (rule ``study.tensor.shape``)."""
        for side, x, want in (("--activations", self.activations, (shape.m, shape.k)),
                              ("--weights", self.weights, (shape.n, shape.k))):
            if x is not None and x.shape != want:
                what = "M x K" if side == "--activations" else "N x K (out x in features)"
                raise _error(f"{side} is {x.shape[0]} x {x.shape[1]}; the GEMM {shape.label} needs {what} = "
                             f"{want[0]} x {want[1]}", x.shape, "study.tensor.shape", side)


def tensors(activations: str | None = None, weights: str | None = None) -> Tensors:
    """Read the user's tensors (see :func:`read_tensor`); activations fold leading dimensions into M.

    Raises:
        TilesimError: unreadable files (``study.tensor``), or weights that are not 2-D, activations below
            2-D, or the two disagreeing on K (``study.tensor.shape``).
    """
    a = read_tensor(activations) if activations else None
    w = read_tensor(weights) if weights else None
    for side, x in (("--activations", a), ("--weights", w)):
        if x is not None and x.size == 0:
            raise _error(f"{side} has shape {x.shape}: no elements", x.shape, "study.tensor.shape", side)
    if a is not None:
        if a.ndim < 2:
            raise _error(f"--activations has shape {a.shape}; it needs M x K (or more leading dimensions)", a.shape,
                         "study.tensor.shape", "--activations")
        a = a.reshape(-1, a.shape[-1])
    if w is not None and w.ndim != 2:
        raise _error(f"--weights has shape {w.shape}; it needs N x K (out x in features)", w.shape,
                     "study.tensor.shape", "--weights")
    if a is not None and w is not None and a.shape[1] != w.shape[1]:
        raise _error(f"--activations has K = {a.shape[1]} and --weights K = {w.shape[1]}", (a.shape, w.shape),
                     "study.tensor.shape", "--weights")
    return Tensors(a, w)


def generate(shape: Shape, dist: str, seed: int = 0, user: Tensors | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A (M x K) and B (K x N) of ``shape`` drawn from ``dist``; see the module docstring.

    Raises:
        TilesimError: an unknown distribution (``study.dist``), ``tensors`` without files, tensors that do
            not fit the shape (``study.tensor.shape``), dimensions below 1 (``study.shape``), a seed that is not
            a non-negative integer (``study.option``).
    """
    dims = (shape.m, shape.n, shape.k)
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 for v in dims):
        raise TilesimError(f"shape {dims} is not M, N, K of positive integers", instruction="study", operand="shape",
                           rule="study.shape", value=dims)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TilesimError(f"seed {seed!r} is not a non-negative integer", instruction="study", operand="--seed",
                           rule="study.option", value=seed)
    if dist not in DISTRIBUTIONS:
        raise TilesimError(f"unknown distribution {dist!r}; valid: " + ", ".join(DISTRIBUTIONS), instruction="study",
                           operand="--dist", rule="study.dist", value=dist)
    m, n, k = shape.m, shape.n, shape.k
    rng = np.random.default_rng([seed, m, n, k])
    if dist == "outliers":
        a = rng.standard_t(_T_DOF, (m, k)) / math.sqrt(_T_DOF / (_T_DOF - 2))
        a[:, rng.choice(k, max(1, round(k * OUTLIER_SHARE)), replace=False)] *= OUTLIER_GAIN
        return a.astype(np.float32), rng.standard_normal((k, n), np.float32)
    if dist == "tensors":
        if user is None or (user.activations is None and user.weights is None):
            raise TilesimError("distribution 'tensors' needs --activations and/or --weights", instruction="study",
                               operand="--dist", rule="study.dist", value=dist)
        user.check(shape)
        a = user.activations if user.activations is not None else rng.standard_normal((m, k), np.float32)
        b = user.weights.T if user.weights is not None else rng.standard_normal((k, n), np.float32)
        return a, b
    return rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
