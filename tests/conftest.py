"""Shared test settings: Hypothesis profiles, chosen by ``TILESIM_HYPOTHESIS``.

- ``ci`` (the default): derandomized, with no example database, so every run of the README's
  test command draws the same examples on every machine and a failure reproduces as it is.
- ``random``: a new seed each run (``--hypothesis-seed N`` fixes one), the same number of
  examples; ``.ci/random`` runs the suite this way, by hand, as a separate job.
- ``thorough``: a new seed each run and 20 times the examples.

Tests that scale their own ``max_examples`` read ``settings.default.max_examples``; 150 is the
unit they scale from.
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("ci", max_examples=150, derandomize=True, database=None, **_COMMON)
settings.register_profile("random", max_examples=150, print_blob=True, **_COMMON)
settings.register_profile("thorough", max_examples=3000, print_blob=True, **_COMMON)
settings.load_profile(os.environ.get("TILESIM_HYPOTHESIS", "ci"))
