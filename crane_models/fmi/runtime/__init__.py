"""The project's FMI 2.0 and FMI 3.0 co-simulation runtimes: C sources, how to compile them, and the record the
FMU carries to say which Python it needs (docs/fmi-runtime.md).

The C sources and compiler flags live here once; :func:`compile_runtime` builds them with any C compiler
(the system's by default, a cross compiler through ``cc``), cached by a hash of sources, flags and
compiler so that repeated builds do not recompile.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Optional, Sequence


HERE = Path(__file__).resolve().parent
# The C files, each list bottom-up: a file calls only files listed before it (tests/test_c_layout.py). The platform
# layer (platform_posix.c serves Linux and macOS, platform_windows.c Windows; each compiles to nothing on the other
# family), the search for a Python (pure logic over file-system hooks: tests/test_runtime_search.py compiles it
# alone), the loader that starts and enters Python.
PLATFORM_SOURCES = ("platform_posix.c", "platform_windows.c", "platform_common.c")
SEARCH_SOURCES = ("pypaths.c", "pyneeds.c", "pysetup.c", "pyplaces.c", "pysearch.c")
LOADER_SOURCES = PLATFORM_SOURCES + SEARCH_SOURCES + ("pyapi.c",)
LOADER_HEADERS = ("platform.h", "pysearch.h", "pypaths.h", "pyneeds.h", "pysetup.h", "pyplaces.h", "pyapi.h")
# The generic FMI core both runtimes share (core.h: the instance, its state machine, the variable table, messages,
# saved states, the Python calls), then each standard's facade over it, its lifecycle on top.
CORE_SOURCES = ("core_log.c", "core_table.c", "core_values.c", "core_states.c", "core_instance.c")
SOURCES = LOADER_SOURCES + CORE_SOURCES + ("fmi2_log.c", "fmi2_values.c", "fmi2_step.c", "fmi2_states.c",
                                           "fmi2_runtime.c")
HEADERS = LOADER_HEADERS + ("core.h", "fmi2_abi.h", "runtime.h")
FMI3_SOURCES = LOADER_SOURCES + CORE_SOURCES + ("fmi3_log.c", "fmi3_values.c", "fmi3_step.c", "fmi3_states.c",
                                                "fmi3_runtime.c")
FMI3_HEADERS = LOADER_HEADERS + ("core.h", "fmi3_abi.h", "fmi3_runtime.h")
# Plain C99; hidden visibility so only the fmi2* functions are exported; no libpython at link time.
CFLAGS = ("-std=c99", "-pedantic", "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra",
          "-Wno-format-truncation")
LIBS = ("-ldl", "-lpthread", "-lm")
RECORD_NAME = "crane_cosim_runtime.txt"


class RuntimeBuildError(RuntimeError):
    """The C compiler failed on the runtime's sources."""


def find_c_compiler() -> Optional[str]:
    """The system C compiler (``$CC``, then cc, gcc, clang), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _files(fmi_version: int) -> tuple:
    return FMI3_SOURCES + FMI3_HEADERS if fmi_version == 3 else SOURCES + HEADERS


def source_hash(cc: str, flags: Sequence[str] = CFLAGS, fmi_version: int = 2) -> str:
    """Hash of everything that determines the binary: sources, headers, flags and the compiler's path."""
    h = hashlib.sha256()
    for name in _files(fmi_version):
        h.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    h.update("\0".join((cc, *flags, *LIBS)).encode())
    return h.hexdigest()[:16]


def compile_runtime(cache_dir: Path, cc: Optional[str] = None, flags: Sequence[str] = CFLAGS,
                    suffix: str = ".so", fmi_version: int = 2) -> Path:
    """Compile the runtime into ``cache_dir/crane_fmi<fmi_version>_<hash><suffix>`` unless that file exists
    already (``fmi_version`` 2: the FMI 2.0 runtime, 3: the FMI 3.0 one).

    Raises :class:`RuntimeBuildError` with the compiler's message when compilation fails, and
    FileNotFoundError when there is no compiler."""
    cc = cc or find_c_compiler()
    if cc is None:
        raise FileNotFoundError("no C compiler found (tried $CC, cc, gcc, clang)")
    out = Path(cache_dir) / f"crane_fmi{fmi_version}_{source_hash(cc, flags, fmi_version)}{suffix}"
    sources = FMI3_SOURCES if fmi_version == 3 else SOURCES
    return compile_once(out, [cc, *flags, *(str(HERE / s) for s in sources), *LIBS])


def compile_once(out: Path, command: Sequence[str], cwd: Optional[Path] = None) -> Path:
    """``command -o out`` (a C compiler's command line without its output) unless ``out`` exists already: a cache
    keyed by the name. Raises :class:`RuntimeBuildError` with the compiler's message when it fails."""
    out = Path(out)
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    cmd = [*command, "-o", str(tmp)]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeBuildError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    tmp.replace(out)  # atomic: parallel builds never see a half-written library
    return out


def shared_libpython() -> Optional[str]:
    """This interpreter's shared libpython (None for a statically linked Python)."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return None
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    for name in (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY")):
        if name and (Path(libdir) / name).exists():
            return str(Path(libdir) / name)
    return None


# The kind of CPython the runtime can load, for the record's reader (the runtime checks the version and the packages).
PYTHON_KIND = ("CPython 3, 64-bit, with its shared library (libpython3.X.so, libpython3.X.dylib or a framework's "
               "Python, python3X.dll); not a free-threaded build")


def runtime_record(module: str, class_name: str) -> str:
    """The FMU's ``resources/crane_cosim_runtime.txt``: which slave to construct and which Python the FMU wants --
    not where one was: the oldest version (``requires_python``), the kind (``python``) and the packages
    (``requires``, one a line) of :mod:`..bundle`. Nothing of the build machine, so the FMU is the same wherever it
    is built and the runtime looks for a Python where it is loaded. (The runtime reads the GUID from the FMU's
    modelDescription.xml, so the record does not change when a reproducible build derives the GUID.)"""
    from ..bundle import MIN_PYTHON, RUNTIME_REQUIREMENTS

    lines = [f"module={module}", f"class={class_name}", "requires_python={}.{}".format(*MIN_PYTHON),
             f"python={PYTHON_KIND}", *(f"requires={r}" for r in RUNTIME_REQUIREMENTS)]
    return "\n".join(lines) + "\n"
