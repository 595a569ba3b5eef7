"""Every FMU the project builds, found in the model folders: each ``models/<crane>/spec.py`` declares ``FMUS``
(FMU name -> function returning its :class:`fmi.spec.FmuSpec`). Adding a crane adds a folder; nothing here
changes. The variable names of the specs are a public contract: co-simulation configurations refer to them."""
from __future__ import annotations

from ..models import collect

__all__ = ["SPECS"]

SPECS = collect("spec", "FMUS")
