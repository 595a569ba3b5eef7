"""One folder per crane model: its bodies and parameters, model, FMU spec (``spec.py`` with ``FMUS``) and demo
scenarios (``scenarios.py`` with ``SCENARIOS``). Adding a crane is adding a folder: the registries below find it."""
from __future__ import annotations

import importlib
import pkgutil

__all__ = ["model_packages", "collect"]


def model_packages() -> list:
    """The model packages in this folder, in the order of their ``ORDER`` (then by name)."""
    packages = [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)
                if info.ispkg]
    return sorted(packages, key=lambda p: (getattr(p, "ORDER", 100), p.__name__))


def collect(module: str, table: str) -> dict:
    """The dicts named ``table`` in module ``module`` of every model package, merged in package order."""
    out = {}
    for package in model_packages():
        out.update(getattr(importlib.import_module(f"{package.__name__}.{module}"), table))
    return out
