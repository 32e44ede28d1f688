"""Adapters of tools/ptoisa_st.py for testcase folders whose kernel is not the plain one, one module per family
of kernel shapes; each module's ``ADAPTERS`` maps a folder to its runner ``(folder, st, verbose) -> Row``, and
``notes.NOT_MAPPED`` says why the folders no adapter can serve are not mapped."""

from __future__ import annotations

from . import (collective, comm, conv, expand, fillpad, fixpipe, fused, gather, generate, hashfind, indexed, matmul,
               memory, misc, move, pipes, quant, reduce, scalar, select, selfcheck, sort, ternary, text, tisa_coverage,
               flashattn, tassign)

ADAPTERS = {folder: run for module in (comm, conv, expand, fillpad, fixpipe, fused, gather, generate, indexed, matmul,
                                       memory, misc, move, pipes, reduce, scalar, select, selfcheck, sort, ternary,
                                       text, collective, quant, hashfind, tisa_coverage, flashattn, tassign)
            for folder, run in module.ADAPTERS.items()}
