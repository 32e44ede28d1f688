"""Each ISA's tracer, by program file suffix, and :func:`trace`: run any program and get its steps.

Each ISA plugs in through :data:`TRACERS`: a function that runs a program and returns ``Traced(outputs,
steps)``, a function that says why two runs' values differ at an op given the two runs' options and the
step's source dtypes (the decision or rule ids tilesim knows), the run option that a bare ``tilesim diff --against VALUE`` sets, and a function that gives that
option's value when a run does not set it.

>>> import numpy as np
>>> x = dict(np.load("examples/pto/layernorm_inputs.npz"))
>>> out, steps = trace("examples/pto/layernorm.pto", x, target="cpu")
>>> len(steps), steps[2].op, steps[2].writes[0].name
(13, 'pto.trowsum', '%mean')
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from ..errors import TilesimError
from .steps import Filter, Traced

__all__ = ["TRACERS", "trace", "tracer", "load_spec"]

#: file suffix -> (ISA, "module:trace_file", "module:explain", the option a bare --against value sets,
#: "module:function" giving that option's default for a program)
TRACERS: dict[str, tuple[str, str, str, str, str]] = {
    ".pto": ("PTO", "tilesim.pto.trace:trace_file", "tilesim.pto.trace:explain", "target",
             "tilesim.pto.trace:default_target"),
    ".tt": ("Tensix", "tilesim.tensix.trace:trace_file", "tilesim.tensix.trace:explain", "rounding_model",
            "tilesim.tensix.trace:default_rounding"),
    ".s": ("AME", "tilesim.ame.trace:trace_file", "tilesim.ame.trace:explain", "accumulation",
           "tilesim.ame.trace:default_accumulation"),
}


def load_spec(spec: str):
    """The function a ``"module:function"`` string names."""
    module, func = spec.split(":")
    return getattr(importlib.import_module(module), func)


def tracer(program, command: str = "tilesim.inspect.trace") -> tuple[str, str, str, str, str]:
    """The :data:`TRACERS` row of ``program``'s suffix (TilesimError ``cli.suffix`` for another)."""
    entry = TRACERS.get(Path(program).suffix)
    if entry is None:
        raise TilesimError(f"unknown program type {Path(program).suffix!r}; known: " + ", ".join(sorted(TRACERS)),
                           instruction=command, operand="program", rule="cli.suffix", value=str(program))
    return entry


def trace(program, inputs: dict | None = None, keep: Filter | None = None, **options) -> Traced:
    """Run ``program`` (its ISA by suffix) with ``tilesim run``'s options; return ``Traced(outputs, steps)``.

    Options that change no value (``macs_per_cycle``, AME's cost model) are accepted and left out.
    """
    fn = load_spec(tracer(program)[1])
    takes = set(inspect.signature(fn).parameters)
    return fn(program, inputs or {}, keep=keep, **{k: v for k, v in options.items() if k in takes and v is not None})
