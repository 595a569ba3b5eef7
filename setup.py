"""Build configuration beyond pyproject.toml: the compiled kernel of the dynamics core.

``crane_models/core/native/*.c`` is plain C (no Python API) that ``crane_models.core.native`` loads with
ctypes. It is built as an *optional* extension: without a C compiler the install still succeeds and the
numpy implementation runs instead (slower, same results).
"""
from pathlib import Path

from setuptools import Extension, find_packages, setup

NATIVE = Path("crane_models") / "core" / "native"
SOURCES = [str(NATIVE / f"{name}.c") for name in ("kinematics", "dynamics", "task", "steppers", "reactions", "payload",
                                                      "lu", "jacobian", "rosenbrock")]

# Every folder of crane_models is a package (a new crane model is a new folder, found here); the FMU slave
# scripts and the build scripts install under names of their own.
PACKAGES = find_packages(include=["crane_models", "crane_models.*"]) + ["crane_cosim_fmu_src", "crane_cosim_build"]
PACKAGE_DIR = {"crane_cosim_fmu_src": "fmu_src", "crane_cosim_build": "build_scripts"}

# -O3: the kernel's small dense loops gain ~15 % over -O2 (benchmarks/bench_flexible_crane.py); no -march, so
# the library inside an FMU runs on any x86-64; -fno-math-errno lets sqrt inline (errno is never read).
# C sources ship with the package: the FMU build compiles the FMI runtime from them (fmi/build.py) and the
# cross-builds compile runtime and kernel for other platforms (fmi/platforms.py).
PACKAGE_DATA = {"crane_models.fmi.runtime": ["*.c", "*.h"], "crane_models.core.native": ["*.c", "*.h"]}

setup(packages=PACKAGES, package_dir=PACKAGE_DIR, package_data=PACKAGE_DATA,
      ext_modules=[Extension("crane_models.core.native.multibody", SOURCES, depends=[str(NATIVE / "multibody.h")],
                             extra_compile_args=["-O3", "-fno-math-errno"], optional=True)])
