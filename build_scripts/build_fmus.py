"""Build every FMU of the project into one folder: ``python -m crane_cosim_build.build_fmus [OUT_DIR]``
(the same as ``crane-cosim build --out OUT_DIR``). The build itself is :mod:`crane_models.models.build`."""
from __future__ import annotations

import sys
from pathlib import Path

from crane_models.models.build import build_all, build_fmu

__all__ = ["build_all", "build_fmu"]

if __name__ == "__main__":
    for path in build_all(Path(sys.argv[1] if len(sys.argv) > 1 else "crane-cosim-out/fmus")):
        print(path)
