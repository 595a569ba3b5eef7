"""Platforms the FMUs carry binaries for, and cross-compilation of the project's C libraries for them.

One Linux machine builds every platform with ``zig cc`` (PyPI ``ziglang``: one package holding clang, lld and
the C runtimes of glibc, musl, mingw-w64 and macOS for every target). A C library is a record
(:class:`CLibrary`: name, sources, flags, exported entry points, where it goes in an FMU); adding the FMU
runtime is one more record in :func:`libraries`. A platform is named by its FMI 3.0 tuple
(``x86_64-linux``); :attr:`Platform.fmi2_folder` is the FMI 2.0 folder name where the standard has one.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ..core.native import entry_points
from ..core.native.kernel_files import host_platform  # noqa: F401  (re-exported: the loader names platforms)

PACKAGE = Path(__file__).resolve().parents[1]  # crane_models
NATIVE = PACKAGE / "core" / "native"


@dataclass(frozen=True)
class Platform:
    """A target the FMUs carry binaries for."""

    name: str         # FMI 3.0 platform tuple, also the suffix of the kernel's file name
    fmi2_folder: str  # binaries/<folder> in an FMI 2.0 FMU (the standard names linux64, win64, darwin64)
    zig_target: str   # zig cc -target; the Linux ones pin glibc 2.17 (2012) so that old hosts load them
    extension: str    # shared-library suffix


PLATFORMS = {p.name: p for p in (
    Platform("x86_64-linux", "linux64", "x86_64-linux-gnu.2.17", ".so"),
    Platform("aarch64-linux", "aarch64-linux", "aarch64-linux-gnu.2.17", ".so"),
    Platform("x86_64-windows", "win64", "x86_64-windows-gnu", ".dll"),
    Platform("x86_64-darwin", "darwin64", "x86_64-macos.10.13", ".dylib"),  # python.org 3.12+ needs 10.13
    Platform("aarch64-darwin", "aarch64-darwin", "aarch64-macos.11.0", ".dylib"),  # the first arm64 macOS
)}
GLIBC_BASELINE = (2, 17)  # the newest GLIBC_x.y symbol version a Linux binary may require


@dataclass(frozen=True)
class CLibrary:
    """A C library of the project, compiled for every platform an FMU carries."""

    name: str                  # file stem: <name>-<platform><extension>
    sources: tuple[Path, ...]
    flags: tuple[str, ...]
    exports: tuple[str, ...]   # entry points the binary must export (checked in every build)
    in_package: bool           # True: beside its sources inside the bundled package; False: binaries/<platform>/
    only: Optional[tuple[str, ...]] = None  # the platforms it is built for (None: all)
    link: tuple[str, ...] = ()              # extra libraries on ELF platforms (glibc 2.17 keeps dl and pthread apart)
    link_windows: tuple[str, ...] = ()      # extra libraries on Windows (beyond kernel32 and the C runtime)
    # A macro its header expands after declaring the exports: defined as their default-visibility redeclarations
    # and compiled with -fvisibility=hidden, so that an ELF or Mach-O binary exports exactly ``exports`` (None:
    # the sources mark their exports themselves). Windows DLLs export by a module-definition file in any case.
    export_macro: Optional[str] = None

    def builds_for(self, platform: "Platform") -> bool:
        return self.only is None or platform.name in self.only

    def file_name(self, platform: Platform) -> str:
        return f"{self.name}-{platform.name}{platform.extension}"


# -O3 and -fno-math-errno as in setup.py; -ffp-contract=off: no fused multiply-adds, so that aarch64 (where
# clang fuses by default) computes the same doubles as x86-64 -- the platforms' results are compared to 1e-12.
# -g0 and no build id: nothing in the binary depends on the build machine or time (reproducible FMUs).
# The exports are the binding's table of entry points (core/native/entry_points.py), as in setup.py.
KERNEL = CLibrary(
    name="multibody",
    sources=tuple(NATIVE / name for name in entry_points.SOURCES),
    flags=("-std=c99", "-O3", "-fno-math-errno", "-ffp-contract=off", "-g0"),
    exports=entry_points.EXPORTS,
    in_package=True,
    export_macro=entry_points.EXPORT_MACRO,
)

# The FMI 2.0 functions an FMU binary must export (FMI 2.0.4, section 2.1 and 4.2).
FMI2_FUNCTIONS = (
    "fmi2GetTypesPlatform", "fmi2GetVersion", "fmi2SetDebugLogging", "fmi2Instantiate", "fmi2FreeInstance",
    "fmi2SetupExperiment", "fmi2EnterInitializationMode", "fmi2ExitInitializationMode", "fmi2Terminate",
    "fmi2Reset", "fmi2GetReal", "fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString", "fmi2SetReal",
    "fmi2SetInteger", "fmi2SetBoolean", "fmi2SetString", "fmi2GetFMUstate", "fmi2SetFMUstate",
    "fmi2FreeFMUstate", "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate", "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative", "fmi2SetRealInputDerivatives", "fmi2GetRealOutputDerivatives",
    "fmi2DoStep", "fmi2CancelStep", "fmi2GetStatus", "fmi2GetRealStatus", "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus", "fmi2GetStringStatus")

# The FMI 3.0 functions an FMU binary must export (FMI 3.0, the standard's function list: all 75).
FMI3_FUNCTIONS = tuple("fmi3" + name for name in """GetVersion SetDebugLogging InstantiateModelExchange
InstantiateCoSimulation InstantiateScheduledExecution FreeInstance EnterInitializationMode ExitInitializationMode
EnterEventMode Terminate Reset GetFloat32 GetFloat64 GetInt8 GetUInt8 GetInt16 GetUInt16 GetInt32 GetUInt32
GetInt64 GetUInt64 GetBoolean GetString GetBinary GetClock SetFloat32 SetFloat64 SetInt8 SetUInt8 SetInt16
SetUInt16 SetInt32 SetUInt32 SetInt64 SetUInt64 SetBoolean SetString SetBinary SetClock
GetNumberOfVariableDependencies GetVariableDependencies GetFMUState SetFMUState FreeFMUState
SerializedFMUStateSize SerializeFMUState DeserializeFMUState GetDirectionalDerivative GetAdjointDerivative
EnterConfigurationMode ExitConfigurationMode GetIntervalDecimal GetIntervalFraction GetShiftDecimal
GetShiftFraction SetIntervalDecimal SetIntervalFraction SetShiftDecimal SetShiftFraction EvaluateDiscreteStates
UpdateDiscreteStates EnterContinuousTimeMode CompletedIntegratorStep SetTime SetContinuousStates
GetContinuousStateDerivatives GetEventIndicators GetContinuousStates GetNominalsOfContinuousStates
GetNumberOfEventIndicators GetNumberOfContinuousStates EnterStepMode GetOutputDerivatives DoStep
ActivateModelPartition""".split())

RUNTIME_DIR = PACKAGE / "fmi" / "runtime"
# Which runtime library goes under the model identifier into an FMU of each FMI version.
RUNTIME_FOR_VERSION = {2: "runtime", 3: "runtime3"}


def runtime_library() -> Optional[CLibrary]:
    """The project's FMI 2.0 runtime (``fmi/runtime/*.c``) when its sources are present, else None.

    It goes into ``binaries/<platform>/`` of every FMI 2.0 FMU under the model identifier (``fmu_binaries.py``), for
    every platform, replacing pythonfmu's binary: ``platform_posix.c`` (dlopen, pthreads) serves Linux and
    macOS, ``platform_windows.c`` (LoadLibraryExW, fiber-local storage, the registry: advapi32) Windows."""
    from .runtime import SOURCES  # the FMI 2.0 runtime's files (the FMI 3.0 ones share the folder)

    return _runtime("runtime", SOURCES, FMI2_FUNCTIONS)


def runtime3_library() -> Optional[CLibrary]:
    """The project's FMI 3.0 runtime (``fmi/runtime/fmi3_*.c`` with the same loader and platform layer): into
    ``binaries/<platform>/`` of every FMI 3.0 FMU, replacing pythonfmu3's binary."""
    from .runtime import FMI3_SOURCES

    return _runtime("runtime3", FMI3_SOURCES, FMI3_FUNCTIONS)


def _runtime(name: str, files: Sequence[str], exports: tuple) -> Optional[CLibrary]:
    sources = tuple(RUNTIME_DIR / f for f in files if (RUNTIME_DIR / f).is_file())
    if len(sources) < len(files):
        return None
    return CLibrary(name=name, sources=sources,
                    flags=("-std=c99", "-O2", "-g0", "-fPIC", "-fvisibility=hidden", f"-I{RUNTIME_DIR}"),
                    exports=exports, in_package=False, link=("-ldl", "-lpthread"), link_windows=("-ladvapi32",))


def libraries() -> list[CLibrary]:
    """Every C library an FMU carries, compiled for each platform."""
    return [lib for lib in (KERNEL, runtime_library(), runtime3_library()) if lib is not None]


def resolve_platforms(names: Sequence[str] | str | None) -> list[Platform]:
    """``["x86_64-linux", "win64", ...]``, ``"all"`` or a comma-separated string -> platforms; FMI 2.0 folder
    names are accepted too. Raises ValueError naming the unknown platform and the allowed ones."""
    if names is None:
        return []
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
    if list(names) == ["all"]:
        return list(PLATFORMS.values())
    by_folder = {p.fmi2_folder: p for p in PLATFORMS.values()}
    chosen = []
    for name in names:
        p = PLATFORMS.get(name) or by_folder.get(name)
        if p is None:
            raise ValueError(f"platforms: unknown platform {name!r}; allowed: 'all' or any of "
                             f"{', '.join(PLATFORMS)} (FMI 2.0 folders {', '.join(by_folder)})")
        if p not in chosen:
            chosen.append(p)
    return chosen


def zig_command() -> Optional[list[str]]:
    """How to run zig: the PyPI ``ziglang`` package of this Python, else ``zig`` on PATH, else None."""
    if importlib.util.find_spec("ziglang") is not None:
        return [sys.executable, "-m", "ziglang"]
    zig = shutil.which("zig")
    return [zig] if zig else None


class ToolchainMissing(RuntimeError):
    """No cross compiler (``pip install ziglang``) or no reader of the binaries it makes (``pip install lief``)."""


def require_toolchain() -> None:
    """ToolchainMissing naming what to install when zig or LIEF is missing: checked before anything is built."""
    from .binary_exports import LiefMissing, require_lief

    if zig_command() is None:
        raise ToolchainMissing("cross-compiling needs zig: pip install ziglang (or put zig on PATH)")
    try:
        require_lief()
    except LiefMissing as exc:
        raise ToolchainMissing(str(exc)) from None


def _zig_environment() -> dict:
    """zig's caches in one user folder (the default is beside the sources, i.e. inside the checkout)."""
    env = dict(os.environ)
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "crane-cosim-zig"
    env.setdefault("ZIG_GLOBAL_CACHE_DIR", str(cache))
    env.setdefault("ZIG_LOCAL_CACHE_DIR", str(cache))
    return env


def module_definition(library: CLibrary) -> str:
    """A Windows module-definition file exporting exactly the library's entry points (a DLL built from C
    without ``__declspec(dllexport)`` exports nothing)."""
    return "\n".join([f"LIBRARY {library.name}", "EXPORTS", *library.exports, ""])


def export_flags(library: CLibrary, platform: Platform) -> list[str]:
    """Compiler flags that make an ELF or Mach-O binary export exactly the library's entry points: every symbol
    hidden but those its export macro redeclares (a linker export list is no option: zig's Mach-O linker ignores
    ``-exported_symbols_list``). No flags for Windows (:func:`module_definition`) or a library without the macro."""
    if library.export_macro is None or platform.extension == ".dll":
        return []
    return ["-fvisibility=hidden", f"-D{library.export_macro}={entry_points.export_macro_value(library.exports)}"]


def compile_command(library: CLibrary, platform: Platform, output: Path, scratch: Path) -> list[str]:
    """The ``zig cc`` command line that builds ``library`` for ``platform`` into ``output`` (``scratch``: a
    folder for the Windows module-definition file)."""
    zig = zig_command()
    if zig is None:
        raise ToolchainMissing("cross-compiling needs zig: pip install ziglang (or put zig on PATH)")
    extra = []
    if platform.extension == ".so":
        extra = ["-Wl,--build-id=none", "-lm", *library.link]
    elif platform.extension == ".dll":
        definition = Path(scratch) / f"{library.name}.def"
        definition.write_text(module_definition(library))
        extra = [str(definition), *library.link_windows]
    else:  # Mach-O records its install name, by default the output path: name it by the file alone
        extra = [f"-Wl,-install_name,@loader_path/{output.name}"]
    # Relative source paths: the compiler sees no path of the build machine (no __FILE__ is used, -g0).
    return [*zig, "cc", "-target", platform.zig_target, *library.flags, *export_flags(library, platform), "-shared",
            "-s", "-o", str(output), *[os.path.relpath(s, PACKAGE.parent) for s in library.sources], *extra]


def compile_library(library: CLibrary, platform: Platform, output: Path) -> Path:
    """Build ``library`` for ``platform`` at ``output``; raises RuntimeError with the compiler's message."""
    output = Path(output).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crane_cosim_cc_") as scratch:
        cmd = compile_command(library, platform, output, Path(scratch))
        done = subprocess.run(cmd, cwd=PACKAGE.parent, env=_zig_environment(), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building {library.name} for {platform.name} failed:\n{done.stderr}")
    # The Windows import library zig leaves beside the DLL (named after the output or the first source).
    for extra in (output.with_suffix(".lib"), output.parent / (library.sources[0].stem + ".lib"),
                  output.with_suffix(".pdb")):
        extra.unlink(missing_ok=True)
    return output


def build_binaries(platforms: Sequence[Platform], out_dir: Path) -> dict[tuple[str, str], Path]:
    """Every library for every platform into ``out_dir``: {(library name, platform name): path}. Each binary is
    checked (:mod:`.binary_exports`): a missing entry point or a glibc newer than the baseline raises
    RuntimeError."""
    from .binary_exports import read_binary

    require_toolchain()
    built = {}
    for platform in platforms:
        for library in (lib for lib in libraries() if lib.builds_for(platform)):
            path = compile_library(library, platform, Path(out_dir) / platform.name / library.file_name(platform))
            info = read_binary(path)
            missing = sorted(set(library.exports) - info.exports)
            if missing:
                raise RuntimeError(f"{path.name} does not export {', '.join(missing)}")
            if info.glibc_versions and max(info.glibc_versions) > GLIBC_BASELINE:
                raise RuntimeError(f"{path.name} needs GLIBC_{'.'.join(map(str, max(info.glibc_versions)))}, "
                                   f"newer than the baseline {'.'.join(map(str, GLIBC_BASELINE))}")
            built[(library.name, platform.name)] = path
    return built
