"""Old path of :mod:`crane_models.integration.cosimulation` and of the reference solver
(:mod:`crane_models.integration.reference`), kept for users' imports: the time integration is its own floor under the
models since issue 22 (docs/layout.md)."""
from ..integration.cosimulation import *  # noqa: F401,F403
from ..integration.cosimulation import __all__ as _cosimulation_all
from ..integration.reference import simulate_reference  # noqa: F401

__all__ = [*_cosimulation_all, "simulate_reference"]
