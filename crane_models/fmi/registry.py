"""Old path of the registry of FMUs, kept for users' imports (benchmarks): it lives with the models since issue 22
(:mod:`models.registry`), so that the FMI layer knows no model. Nothing in the package imports this module
(tests/test_architecture.py)."""
from ..models.registry import SPECS

__all__ = ["SPECS"]
