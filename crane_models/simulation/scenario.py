"""Old path of :mod:`crane_models.integration.scenario`, kept for users' imports: the time integration is its own floor
under the models since issue 22 (docs/layout.md)."""
from ..integration.scenario import *  # noqa: F401,F403
from ..integration.scenario import __all__  # noqa: F401
