from __future__ import annotations

from dataclasses import replace

from .common import Case
from .matmul import MX_PAIRS, _mx_overload_cases, matmul_cases


def _as_gemv(case: Case) -> Case:
    """A TMATMUL-family case as its TGEMV twin (the simulator's TGEMV_IMPL calls TMATMUL_IMPL)."""
    return replace(case, op=case.op.replace("tmatmul", "tgemv"), call=case.call.replace("TMATMUL", "TGEMV"))


def gemv_cases(rng) -> list[Case]:
    """TGEMV, TGEMV_ACC, TGEMV_BIAS and TGEMV_MX's three overloads: TMATMUL's cases under the TGEMV entry points
    (valid M of 1, and more, which the simulator takes), MX with an fp8 pair and fp4 E2M1."""
    return [_as_gemv(c) for c in matmul_cases(rng) + _mx_overload_cases(rng, (MX_PAIRS[1], MX_PAIRS[4]))]
