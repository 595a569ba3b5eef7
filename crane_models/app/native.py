"""``crane-cosim ecos NAME|FILE.fmu``: run an FMU in Ecos' native command-line host (shipped inside the
``ecospy`` wheel).

An FMU with the project's runtime (every FMI 2.0 FMU this project builds: ``resources/crane_cosim_runtime.txt``)
just loads: the runtime finds its Python by itself (docs/fmi-runtime.md), so the host runs with the user's
environment as it is. Only an FMU that carries pythonfmu's own binary (FMI 3.0 FMUs, or a build without a C
compiler) needs the old recipe, :func:`native_host_environment`:

* the shared libpython preloaded (pythonfmu's binary embeds Python but does not link libpython:
  without it ``undefined symbol: _Py_NoneStruct``),
* this Python's ``bin`` first on ``PATH`` and its site-packages on ``PYTHONPATH`` (the embedded
  interpreter starts from the base installation, not from a virtual environment).
"""
from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import site
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from ..fmi.runtime import shared_libpython as libpython  # one definition of where libpython is
from .fmus import CliError, MissingTool, resolve_fmu, writable_dir

__all__ = ["add_commands", "libpython", "native_host_environment", "ecospy_problem", "ecos_executable",
           "ecos_command", "TBB_LIBRARY", "TBB_PACKAGE"]

# ecospy's Linux library and its ecos host link against oneTBB, a system library no wheel carries.
TBB_LIBRARY = "libtbb.so.12"
TBB_PACKAGE = "libtbb12"  # Debian/Ubuntu package holding it


def add_commands(sub) -> None:
    p = sub.add_parser("ecos", help="run an FMU in Ecos' native command-line host (from ecospy)",
                       description="Run an FMU with `ecos simulate` (the native host inside the ecospy "
                                   "package), libpython preloaded and this Python's packages visible.")
    p.add_argument("fmu", metavar="NAME|FILE.fmu")
    p.add_argument("--stop", type=float, default=20.0, help="stop time [s] (default: %(default)s)")
    p.add_argument("--step", type=float, default=0.01, help="communication step [s] (default: %(default)s)")
    p.add_argument("--out", type=Path, default=Path("."), help="folder for ecos' CSV (default: current folder)")
    p.add_argument("--fmus", type=Path, help="folder of built FMUs for NAME (default: crane-cosim-out/fmus)")
    p.add_argument("--print-env", action="store_true", help="print the shell commands of the recipe and exit")
    p.set_defaults(func=ecos_command)


def native_host_environment(base: dict | None = None) -> dict:
    """``os.environ`` plus ``LD_PRELOAD``, ``PATH`` and ``PYTHONPATH`` for a native host of pythonfmu FMUs."""
    lib = libpython()
    if lib is None:
        raise CliError(f"{sys.executable} has no shared libpython: a native host cannot load pythonfmu FMUs "
                       "built with it (use a Python built with --enable-shared)")
    env = dict(os.environ if base is None else base)
    env["LD_PRELOAD"] = lib
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(site.getsitepackages() + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def carries_runtime(fmu: Path) -> bool:
    """True when the FMU's binary is the project's runtime (it then needs no environment tweaks)."""
    from ..fmi.runtime import RECORD_NAME

    try:
        with zipfile.ZipFile(fmu) as z:
            return f"resources/{RECORD_NAME}" in z.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _ecospy_binaries() -> Path | None:
    """ecospy's ``binaries`` folder, found without importing ecospy (its import loads the native library)."""
    spec = importlib.util.find_spec("ecospy")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "binaries"


def ecospy_problem() -> str | None:
    """Why ecospy (its in-process library and its ``ecos`` host) cannot run on this machine, in one line, or None
    when it can. The one check the ``ecos`` command and the tests share: ecospy may be missing (it is not a core
    dependency), have no binaries for this platform, or lack its system library (Linux: oneTBB)."""
    binaries = _ecospy_binaries()
    if binaries is None:
        return "ecospy is not installed: pip install ecospy"
    library = binaries / ("libecosc.dll" if os.name == "nt" else "libecosc.so")
    if not library.is_file():
        return f"ecospy has no native library for this platform ({library} missing)"
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(TBB_LIBRARY)
        except OSError as exc:
            return (f"ecospy needs the system library {TBB_LIBRARY} (oneTBB), which pip cannot install: "
                    f"apt-get install {TBB_PACKAGE} (Debian/Ubuntu package {TBB_PACKAGE}; the loader says: {exc})")
    return None


def ecos_executable() -> Path:
    """ecospy's ``ecos`` binary, made executable (wheels do not keep the run bit); :class:`MissingTool` (one
    line, exit 2) when ecospy cannot run here."""
    problem = ecospy_problem()
    if problem:
        raise MissingTool(problem)
    exe = _ecospy_binaries() / ("ecos.exe" if os.name == "nt" else "ecos")
    if not exe.is_file():
        raise MissingTool(f"ecospy has no native ecos host for this platform ({exe} missing)")
    if not os.access(exe, os.X_OK):
        try:
            exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError as exc:
            raise MissingTool(f"{exe} is not executable and cannot be made so ({exc.strerror}); chmod +x it") from None
    return exe


# ecos 0.7 reports progress every (steps / 10) steps, an integer division: with fewer than 10 steps it
# divides by zero and dies with SIGFPE (measured: --stop 0.2 --step 0.05 -> exit -8).
ECOS_MIN_STEPS = 10


def ecos_command(args: argparse.Namespace) -> int:
    from ..simulation.scenario import check_step

    try:
        check_step(args.step, args.stop, "--step")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.stop / args.step < ECOS_MIN_STEPS - 1e-9:
        raise CliError(f"--stop {args.stop:g} s / --step {args.step:g} s is {args.stop / args.step:.3g} steps: "
                       f"ecos needs at least {ECOS_MIN_STEPS} (fewer crash its progress report)")
    exe = ecos_executable()  # before any FMU is built: a machine without ecospy or libtbb12 is told at once
    fmu = resolve_fmu(args.fmu, args.fmus).resolve()
    tweaks = not carries_runtime(fmu)
    env = native_host_environment() if tweaks else dict(os.environ)
    cmd = [str(exe), "simulate", "--path", str(fmu), "--stopTime", repr(args.stop), "--stepSize", repr(args.step)]
    if args.print_env:
        if tweaks:  # pythonfmu's binary: the recipe
            for key in ("LD_PRELOAD", "PATH", "PYTHONPATH"):
                print(f"export {key}={env[key]}")
        else:
            print("# the FMU carries the crane-cosim runtime: no environment needed "
                  "(CRANE_COSIM_PYTHON=... to use another Python)")
        print(" ".join(cmd))
        return 0
    out = writable_dir(args.out, "--out")
    return subprocess.run(cmd, cwd=out, env=env).returncode
