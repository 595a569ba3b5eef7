"""The binaries a build puts into an FMU: the project's FMI runtime (compiled once per source hash, its record
in ``resources/``), the dynamics kernel of each platform beside its sources in the bundled package, and the
runtime of each platform under ``binaries/<platform>/``."""
from __future__ import annotations

import os
import shutil
import sys
import warnings
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Optional

from .reproducible import make_reproducible

__all__ = ["runtime_cache_dir", "default_binaries", "runtime_binary", "fmi2_runtime_binary", "fmi3_runtime_binary",
           "runtime_entries", "install_runtime", "bundle_binaries", "model_binaries", "compiled_kernel"]


def runtime_cache_dir() -> Path:
    """Where compiled runtimes are kept between builds (keyed by a hash of their sources)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "crane-cosim" / "runtime"


def default_binaries() -> dict:
    """{(library, platform): path} of a build without ``--platforms``: the kernel compiled here for this machine
    (:mod:`.host_kernel`, independent of the folder and the Python that installed the package); {} where there is
    none (not Linux, no C compiler), and the FMU carries the extension ``pip install`` compiled in place."""
    from .host_kernel import host_kernel
    from .platforms import KERNEL, host_platform

    kernel = host_kernel(runtime_cache_dir().parent / "kernel")
    return {(KERNEL.name, host_platform()): kernel} if kernel else {}


def runtime_binary(fmi_version: int = 2) -> Optional[Path]:
    """The project's FMI 2.0 or FMI 3.0 runtime (fmi/runtime) for this machine,
    compiled once per source hash, or None with a warning when there is no C compiler: the FMUs then keep
    pythonfmu's (pythonfmu3's) binary."""
    from .runtime import compile_runtime, find_c_compiler

    if find_c_compiler() is None:
        warnings.warn("no C compiler found: the FMUs keep pythonfmu's binary, which native hosts cannot load "
                      "without LD_PRELOAD of libpython (docs/fmi-runtime.md)", stacklevel=3)
        return None
    return compile_runtime(runtime_cache_dir(), fmi_version=fmi_version)


def fmi2_runtime_binary() -> Optional[Path]:
    """The project's FMI 2.0 runtime for this machine (see :func:`runtime_binary`)."""
    return runtime_binary(2)


def fmi3_runtime_binary() -> Optional[Path]:
    """The project's FMI 3.0 runtime for this machine (see :func:`runtime_binary`)."""
    return runtime_binary(3)


def runtime_entries(model_identifier: str, slave_module: str, placed: dict, fmi_version: int = 2) -> dict:
    """{entry: file or bytes} that put the project's runtime into an FMU: its record in ``resources/`` and,
    unless ``placed`` already holds a cross-built one, this machine's runtime as the Linux binary
    (``binaries/linux64`` for FMI 2.0, ``binaries/x86_64-linux`` for FMI 3.0), replacing pythonfmu's."""
    from .runtime import RECORD_NAME, runtime_record

    folder = "linux64" if fmi_version == 2 else "x86_64-linux"
    binary = f"binaries/{folder}/{model_identifier}.so"
    entries = {f"resources/{RECORD_NAME}": runtime_record(slave_module, model_identifier).encode()}
    if binary not in placed and sys.platform.startswith("linux"):
        runtime = runtime_binary(fmi_version)
        if runtime is None:
            return {}
        entries[binary] = runtime
    return entries


def install_runtime(fmu_path: Path, runtime: Path) -> None:
    """Put the project's runtime into any pythonfmu FMI 2 FMU (replacing its linux64 binary) with its record."""
    from .runtime import RECORD_NAME, runtime_record

    fmu_path = Path(fmu_path)
    with zipfile.ZipFile(fmu_path) as z:
        module = z.read("resources/slavemodule.txt").decode().strip()
        identifier = ET.fromstring(z.read("modelDescription.xml")).find("CoSimulation").get("modelIdentifier")
    make_reproducible(fmu_path, None, {f"binaries/linux64/{identifier}.so": Path(runtime),
                                       f"resources/{RECORD_NAME}": runtime_record(module, identifier).encode()})


def bundle_binaries(package: Path, binaries: dict) -> None:
    """Put every platform's kernel beside its sources in the bundled ``package`` (core/native/
    ``multibody-<platform>.<ext>``, which core/native/system.py loads on that platform) in place of the
    extension compiled on this machine, which depends on the build machine's compiler."""
    from .platforms import libraries

    native = package / "core" / "native"
    for local in native.glob("multibody*"):
        if local.suffix in (".so", ".pyd", ".dylib", ".dll"):
            local.unlink()
    for library in (lib for lib in libraries() if lib.in_package):
        folder = package / library.sources[0].parent.relative_to(Path(__file__).resolve().parents[1])
        for (name, _), path in binaries.items():
            if name == library.name:
                shutil.copyfile(path, folder / path.name)


def model_binaries(binaries: dict, model_identifier: str, fmi_version: int) -> dict:
    """{name in the FMU: file} of the library that goes to ``binaries/<platform>/`` under the model identifier:
    the FMU runtime of the FMU's FMI version (``platforms.RUNTIME_FOR_VERSION``), replacing pythonfmu's or
    pythonfmu3's binary there."""
    from .platforms import PLATFORMS, RUNTIME_FOR_VERSION

    placed = {}
    for (name, platform_name), path in binaries.items():
        if name == RUNTIME_FOR_VERSION[fmi_version]:
            platform = PLATFORMS[platform_name]
            folder = platform.fmi2_folder if fmi_version == 2 else platform.name
            placed[f"binaries/{folder}/{model_identifier}{platform.extension}"] = Path(path)
    return placed


def compiled_kernel() -> str | None:
    """File name of the compiled kernel that the FMUs will carry, or None when it is not built."""
    from ..core.native import library

    lib = library()
    return Path(lib._name).name if lib is not None else None
