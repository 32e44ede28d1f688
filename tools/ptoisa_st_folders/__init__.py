"""Adapters of tools/ptoisa_st.py for testcase folders whose kernel is not the plain one, one module per family
of kernel shapes; each module's ``ADAPTERS`` maps a folder to its runner ``(folder, st, verbose) -> Row``."""

from __future__ import annotations

from . import expand, fillpad, gather, generate, matmul, memory, misc, move, reduce, scalar, select, sort, ternary

ADAPTERS = {**scalar.ADAPTERS, **expand.ADAPTERS, **reduce.ADAPTERS, **generate.ADAPTERS, **move.ADAPTERS, **gather.ADAPTERS, **select.ADAPTERS, **matmul.ADAPTERS, **ternary.ADAPTERS, **misc.ADAPTERS, **sort.ADAPTERS, **memory.ADAPTERS, **fillpad.ADAPTERS}
