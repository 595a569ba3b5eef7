"""``crane-cosim ecos NAME|FILE.fmu``: run an FMU in Ecos' native command-line host (shipped inside the
``ecospy`` wheel), and say when the FMU failed, which ecos itself does not.

An FMU with the project's runtime (every FMU this project builds: ``resources/crane_cosim_runtime.txt``) just
loads: the runtime finds its Python by itself (docs/fmi-runtime.md). ``crane-cosim ecos`` names this Python to
it (``CRANE_COSIM_PYTHON``, unless the user set one), so that an FMU built elsewhere runs with the interpreter
that runs the command. ecos exits 0 with a CSV of zeros when the FMU cannot be instantiated and shows the FMU's
messages only at debug level: the command reads that log and refuses such a result (:mod:`.ecos_log`).

Only an FMU that carries pythonfmu's own binary (a build without a C compiler) needs the old recipe,
:func:`native_host_environment`:

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
import shlex
import site
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from ..fmi.runtime import shared_libpython as libpython  # one definition of where libpython is
from .ecos_log import relay, verdict
from .fmus import CliError, MissingTool, resolve_fmu, writable_dir

__all__ = ["add_commands", "libpython", "native_host_environment", "ecospy_problem", "ecos_executable",
           "ecos_command", "TBB_LIBRARY", "TBB_PACKAGE"]

# ecospy's Linux library and its ecos host link against oneTBB, a system library no wheel carries.
TBB_LIBRARY = "libtbb.so.12"
TBB_PACKAGE = "libtbb12"  # Debian/Ubuntu package holding it


def add_commands(sub) -> None:
    p = sub.add_parser("ecos", help="run an FMU in Ecos' native command-line host (from ecospy)",
                       description="Run an FMU with `ecos simulate` (the native host inside the ecospy "
                                   "package) with this Python as the FMU's interpreter; the FMU's warnings and "
                                   "errors are shown, and a run in which the FMU reported an error ends with "
                                   "exit code 1 (ecos itself exits 0).")
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
        return 'ecospy is not installed: pip install "crane-cosim[ecos]" (Linux x86-64 and Windows x64)'
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
    from ..integration.scenario import check_step

    try:
        check_step(args.step, args.stop, "--step")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.stop / args.step < ECOS_MIN_STEPS - 1e-9:
        raise CliError(f"--stop {args.stop:g} s / --step {args.step:g} s is {args.stop / args.step:.3g} steps: "
                       f"ecos needs at least {ECOS_MIN_STEPS} (fewer crash its progress report)")
    exe = ecos_executable()  # before any FMU is built: a machine without ecospy or libtbb12 is told at once
    fmu = resolve_fmu(args.fmu, args.fmus).resolve()
    env = ecos_environment(fmu)
    cmd = [str(exe), "simulate", "--path", str(fmu), "--stopTime", repr(args.stop), "--stepSize", repr(args.step)]
    if args.print_env:
        print_recipe(fmu, env, cmd)
        return 0
    out = writable_dir(args.out, "--out")
    csv_path = out / f"{fmu.stem}.csv"  # ecos names its CSV after the FMU file
    csv_path.unlink(missing_ok=True)  # an earlier run's CSV must not pass for this run's
    status, failures = simulate_in_ecos(cmd, out, env)
    if status != 0:
        said = f"; the FMU reported: {failures[0]}" if failures else ""
        print(f"crane-cosim ecos: ecos exited with status {status}{said}", file=sys.stderr)
        return 1
    refusal = verdict(fmu, csv_path, output_names(fmu), failures)
    if refusal:
        print(f"crane-cosim ecos: {refusal}", file=sys.stderr)
        return 1
    return 0


def ecos_environment(fmu: Path) -> dict:
    """The environment of the ecos process: the user's, with this Python as the FMU's interpreter
    (``CRANE_COSIM_PYTHON``, unless the user set one: the FMU need not name a Python that exists on this machine,
    docs/fmi-runtime.md), plus the recipe of :func:`native_host_environment` for an FMU with pythonfmu's binary."""
    env = dict(os.environ) if carries_runtime(fmu) else native_host_environment()
    if not env.get("CRANE_COSIM_PYTHON"):  # the runtime treats an empty value as unset, so do we
        env["CRANE_COSIM_PYTHON"] = sys.executable
    return env


def print_recipe(fmu: Path, env: dict, cmd: list) -> None:
    """The shell commands that run ``fmu`` in ecos as ``crane-cosim ecos`` does (without its checks)."""
    recipe = [] if carries_runtime(fmu) else ["LD_PRELOAD", "PATH", "PYTHONPATH"]  # pythonfmu's binary
    for key in [*recipe, "CRANE_COSIM_PYTHON"]:
        print(f"export {key}={shlex.quote(env[key])}")
    print("# ecos shows the FMU's messages only with -l debug, and exits 0 when the FMU failed (docs/command-line.md)")
    print(shlex.join(cmd))


def simulate_in_ecos(cmd: list, out: Path, env: dict) -> tuple:
    """Run ``cmd`` (``ecos simulate ...``) in ``out`` at debug level, its log relayed by :func:`ecos_log.relay`;
    returns ecos' exit status and the FMU's error messages."""
    with subprocess.Popen([*cmd, "--logLevel", "debug"], cwd=out, env=env, stdout=subprocess.PIPE, text=True,
                          errors="replace") as proc:
        failures = relay(proc.stdout)
    return proc.returncode, failures


def output_names(fmu: Path) -> list:
    """The names of the FMU's outputs (modelDescription.xml, FMI 2.0 or 3.0)."""
    from fmpy import read_model_description

    return [v.name for v in read_model_description(str(fmu)).modelVariables if v.causality == "output"]
