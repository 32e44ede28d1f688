"""Shared test settings: hypothesis profiles (CI runs the default one)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("TILESIM_HYPOTHESIS", "default"))
