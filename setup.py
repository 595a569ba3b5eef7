"""Build configuration beyond pyproject.toml: the compiled kernel of the dynamics core.

``crane_models/core/native/*.c`` is plain C (no Python API) that ``crane_models.core.native`` loads with
ctypes. It is built as an *optional* extension: without a C compiler the install still succeeds and the
numpy implementation runs instead (slower, same results).
"""
import importlib.util
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

NATIVE = Path("crane_models") / "core" / "native"


def _entry_points():
    """``core/native/entry_points.py`` (the kernel's entry points) loaded by its path: it imports only ctypes,
    while importing the package would need numpy in the build environment."""
    spec = importlib.util.spec_from_file_location("crane_kernel_entry_points", NATIVE / "entry_points.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ENTRY_POINTS = _entry_points()
SOURCES = [str(NATIVE / name) for name in ENTRY_POINTS.SOURCES]
# Compilers that export by a list given to the linker (setuptools passes export_symbols: /EXPORT:<name> for
# MSVC and clang-cl, a generated .def file for MinGW); the others (gcc, clang) by symbol visibility.
LINKER_LIST_COMPILERS = ("msvc", "mingw32", "cygwin")


class build_kernel(build_ext):
    """build_ext whose kernel exports exactly the entry points of ``entry_points.EXPORTS``, as every cross-built
    kernel does (crane_models/fmi/platforms.py): a function Python calls but the table forgets is then missing
    here too, and the binding fails on this machine, not only on another platform."""

    def get_export_symbols(self, ext):
        # The table, without the PyInit_<name> that setuptools adds for a Python extension (the kernel is no
        # module: ctypes loads it). Unix compilers ignore this list.
        return list(ENTRY_POINTS.EXPORTS)

    def build_extension(self, ext):
        if self.compiler.compiler_type not in LINKER_LIST_COMPILERS:
            ext.extra_compile_args = [*ext.extra_compile_args, "-fvisibility=hidden"]
            ext.define_macros = [*ext.define_macros,
                                 (ENTRY_POINTS.EXPORT_MACRO, ENTRY_POINTS.export_macro_value())]
        super().build_extension(ext)


# Every folder of crane_models is a package (a new crane model is a new folder, found here); the FMU slave
# scripts and the build scripts install under names of their own.
PACKAGES = find_packages(include=["crane_models", "crane_models.*"]) + ["crane_cosim_fmu_src", "crane_cosim_build"]
PACKAGE_DIR = {"crane_cosim_fmu_src": "fmu_src", "crane_cosim_build": "build_scripts"}

# -O3: the kernel's small dense loops gain ~15 % over -O2 (benchmarks/bench_flexible_crane.py); no -march, so
# the library inside an FMU runs on any x86-64; -fno-math-errno lets sqrt inline (errno is never read).
# C sources ship with the package: the FMU build compiles the FMI runtime from them (fmi/fmu_binaries.py) and the
# cross-builds compile runtime and kernel for other platforms (fmi/platforms.py).
# The WaveVessel's default RAO table (models/wave_vessel/data/default_rao.csv, docs/sea.md) ships with the package too.
PACKAGE_DATA = {"crane_models.fmi.runtime": ["*.c", "*.h"], "crane_models.core.native": ["*.c", "*.h"],
                "crane_models.models.wave_vessel": ["data/*.csv"]}

KERNEL = Extension("crane_models.core.native.multibody", SOURCES,
                   depends=[*map(str, sorted(NATIVE.glob("*.h"))), str(NATIVE / "entry_points.py")],
                   extra_compile_args=["-O3", "-fno-math-errno"], optional=True)

setup(packages=PACKAGES, package_dir=PACKAGE_DIR, package_data=PACKAGE_DATA, ext_modules=[KERNEL],
      cmdclass={"build_ext": build_kernel})
