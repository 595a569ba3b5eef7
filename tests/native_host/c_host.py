"""The plain C hosts (``fmi2_host.c``, ``fmi3_host.c``, ``threads_host.c``, ``careless_host.c``) for tests and
benchmarks: compile it, write call scripts for it, run it on an extracted FMU in a clean environment (``env -i``: no
LD_PRELOAD, PYTHONPATH or PATH)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
# The package named as in tests/fmu_helpers.py (C_COMPILER_PACKAGE).
NO_CC = ("no C compiler (cc, gcc, clang or $CC; Debian/Ubuntu package gcc): the native-host tests compile their "
         "host")


def c_compiler() -> Optional[str]:
    """The C compiler the FMU build uses for the runtime (``find_c_compiler``), or None."""
    from crane_models.fmi.runtime import find_c_compiler

    return find_c_compiler()


def compile_host(out_dir: Path, fmi_version: int = 2) -> Path:
    """``fmi2_host.c`` (or, with ``fmi_version=3``, ``fmi3_host.c``) compiled into ``out_dir``."""
    name = f"fmi{fmi_version}_host"
    exe = Path(out_dir) / name
    if not exe.exists():
        subprocess.run([c_compiler(), "-std=c99", "-O2", "-Wall", "-o", str(exe), str(HERE / f"{name}.c"),
                        "-ldl", "-lpthread"], check=True, capture_output=True, text=True)
    return exe


def compile_threads_host(out_dir: Path) -> Path:
    """``threads_host.c`` (several FMUs on threads at once; fmi2CancelStep from a second thread) in ``out_dir``."""
    exe = Path(out_dir) / "threads_host"
    if not exe.exists():
        subprocess.run([c_compiler(), "-std=c99", "-O2", "-Wall", "-o", str(exe), str(HERE / "threads_host.c"),
                        "-ldl", "-lpthread"], check=True, capture_output=True, text=True)
    return exe


def compile_careless_host(out_dir: Path) -> Path:
    """``careless_host.c`` (calls while a step runs, an unreachable step, a huge directional seed) in ``out_dir``."""
    exe = Path(out_dir) / "careless_host"
    if not exe.exists():
        subprocess.run([c_compiler(), "-std=c99", "-O2", "-Wall", "-o", str(exe), str(HERE / "careless_host.c"),
                        "-ldl", "-lpthread", "-lm"], check=True, capture_output=True, text=True)
    return exe


def extract(fmu: Path, out_dir: Path) -> Path:
    dest = Path(out_dir) / fmu.stem
    if not dest.exists():
        with zipfile.ZipFile(fmu) as z:
            z.extractall(dest)
    return dest


def this_python() -> dict:
    """The environment that points an FMU's runtime at the Python running the tests (this virtual environment,
    with numpy): an FMU says which Python it needs, not where one is, and ``CRANE_COSIM_PYTHON`` is the
    documented way to choose one (docs/fmi-runtime.md)."""
    return {"CRANE_COSIM_PYTHON": sys.executable}


def run_host(exe: Path, unzipped: Path, identifier: str, script: str, env: Optional[dict] = None,
             timeout: float = 300) -> subprocess.CompletedProcess:
    """The host in a clean environment with ``script`` on stdin: only :func:`this_python` and ``env`` (which may
    override it; an empty value unsets it)."""
    return subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in {**this_python(), **(env or {})}.items()),
                           str(exe), str(unzipped), identifier], input=script, capture_output=True, text=True,
                          timeout=timeout)


def results(stdout: str, command: str) -> list:
    """The result lines of one command: [(status, [values...]), ...]."""
    out = []
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == command:
            status = int(parts[1]) if parts[1].lstrip("-").isdigit() else parts[1]
            out.append((status, [float(x) for x in parts[2:]]))
    return out
