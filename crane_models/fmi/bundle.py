"""What an FMU carries of ``crane_models`` and what it needs from the Python of the machine it runs on, in one
place (docs/fmi-runtime.md, "What an FMU carries").

An FMU runs its slave, which is the package's floors up to the models: the time integration (``integration/``: the
steppers and the stepping co-simulation around them), the core (screws, Kane's equations, reactions, the moving
base, the compiled kernel and its ctypes binding), the FMU-side modules of ``fmi/`` (the adapter, saved states) and
the models with their FMU specs. It does not run the command line (``app/``), the sweeps and reports
(``analysis/``), the demo scenarios, the masters and runners of ``simulation/``, the build machinery of ``fmi/``
(packaging, platforms, OSP and SSP files), the models' registry and build, or C sources (the kernel is carried compiled; the FMI runtime goes to ``binaries/``). ``tests/test_fmu_bundle.py``
checks by import analysis that every bundled module imports only bundled modules, the standard library and the
:data:`RUNTIME_REQUIREMENTS`, and loads every FMU from its own files.
"""
from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

# Files of the package an FMU carries, as '/'-separated patterns relative to crane_models/ ('*' within one
# component). The kernel binaries: the extension pip compiled in place, or the cross-built ones
# (``multibody-<platform>.<ext>``, put there by fmu_binaries.bundle_binaries).
BUNDLED_FILES = (
    "__init__.py",
    "integration/*.py",
    "core/*.py",
    "core/moving_base/*.py",
    "core/sea/*.py",
    "core/native/*.py",
    "core/native/multibody*.so", "core/native/multibody*.pyd", "core/native/multibody*.dll",
    "core/native/multibody*.dylib",
    "models/__init__.py", "models/on_ship.py", "models/at_sea.py",
    "models/*/*.py",
    "models/wave_vessel/data/default_rao.csv",  # the WaveVessel's default RAO table (a user's: its build's files)
    "fmi/__init__.py", "fmi/adapter.py", "fmi/builder_api.py", "fmi/derivatives.py", "fmi/initialization.py",
    "fmi/input_ranges.py",
    "fmi/saved_states.py",
    "fmi/spec.py", "fmi/state_format.py", "fmi/value_table.py", "fmi/kernel_steps.py",
)
# Matches of BUNDLED_FILES an FMU does not carry: the demo scenarios of each model, the run description and the sea
# motion they are made of (the command line's, run with scipy), and the static equilibrium the system files' starts
# are checked against (scipy's root finder).
LEFT_OUT = ("models/*/scenarios.py", "integration/scenario.py", "core/moving_base/sea_motion.py",
            "integration/equilibrium.py")

# What the bundled code needs from the target's Python besides the standard library; the FMU's runtime record
# (fmi/runtime: runtime_record) carries it and the runtime checks it. The same bounds as pyproject.toml
# (requires-python, numpy's lower bound; tests/test_fmu_bundle.py). pythonfmu and pythonfmu3 are not needed
# there: their builders copy them into every FMU's resources/.
MIN_PYTHON = (3, 10)
RUNTIME_REQUIREMENTS = ("numpy>=1.24",)
# Imports inside functions that an FMU never calls, by bundled module: {module: {imported: why}}.
NOT_ON_THE_FMU_PATH = {
    "integration.reference": {"scipy": "simulate_reference, the standalone reference solver of the demo and the "
                                       "tests (the package's __init__ names it); an FMU steps with CoSimulation"},
}


def is_bundled(relative: str) -> bool:
    """True when the file at ``relative`` (a '/'-separated path inside crane_models/) goes into an FMU."""
    parts = relative.split("/")

    def matches(pattern: str) -> bool:
        pattern_parts = pattern.split("/")
        return len(pattern_parts) == len(parts) and all(
            fnmatch.fnmatchcase(part, p) for part, p in zip(parts, pattern_parts))

    return any(matches(p) for p in BUNDLED_FILES) and not any(matches(p) for p in LEFT_OUT)


def bundled_files(package: Path) -> list[Path]:
    """The files of ``package`` (a crane_models folder) an FMU carries, sorted."""
    package = Path(package)
    return sorted(path for path in package.rglob("*") if path.is_file() and "__pycache__" not in path.parts
                  and is_bundled(path.relative_to(package).as_posix()))


def copy_bundle(package: Path, destination: Path) -> None:
    """Copy the bundled files of ``package`` to ``destination`` (created), keeping their folders."""
    for path in bundled_files(package):
        target = Path(destination) / path.relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
