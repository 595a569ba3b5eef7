"""Old path of :mod:`crane_models.integration.cosimulation`, kept for users' imports: the time integration is its own floor
under the models since issue 22 (README, Layout)."""
from ..integration.cosimulation import *  # noqa: F401,F403
from ..integration.cosimulation import __all__  # noqa: F401
