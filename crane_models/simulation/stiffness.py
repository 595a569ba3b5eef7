"""Old path of :mod:`crane_models.integration.stiffness`, kept for users' imports: the time integration is its own floor
under the models since issue 22 (docs/layout.md)."""
from ..integration.stiffness import *  # noqa: F401,F403
from ..integration.stiffness import __all__  # noqa: F401
