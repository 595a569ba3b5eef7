"""Demo scenarios of the WaveVessel: none of its own yet -- the lift at sea on the WaveVessel (a system of it and a
crane) is the demo's, with the package's default RAO table. The registries (``models.collect``) read this module of
every model folder."""
from __future__ import annotations

__all__ = ["SCENARIOS", "CROSS_CHECK"]

SCENARIOS: dict = {}
# The cross-check folder's scenario (simulation/cross_check.py): the FMU at its start values -- its sea moves it.
CROSS_CHECK: dict = {}
