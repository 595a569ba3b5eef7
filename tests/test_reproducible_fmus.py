"""The same commit gives byte-identical FMUs from any folder (docs/platforms.md, "Reproducible FMUs").

Two copies of the project in two folders, each with its own package path (``PYTHONPATH``), its own kernel compiled
in place the way ``pip install`` compiles it (setuptools' ``build_ext --inplace`` with the interpreter's flags:
``-g`` writes the folder into it, a pyenv Python's link line its library folder) and its own cache of the
libraries the build compiles (``XDG_CACHE_HOME``: the FMU runtimes and this machine's kernel, build.default_binaries),
build every FMU, FMI 2.0 and 3.0. Every FMU has the same sha256 in both, and no member of any FMU contains either
folder, the virtual environment's prefix or its base, the home folder or a temporary build folder.

``--platforms all`` (zig; the kernels and runtimes of five platforms, each copy with its own zig cache: several
minutes) runs when ``CRANE_COSIM_REPRODUCE_PLATFORMS=1`` is set.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from crane_models.models.registry import SPECS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "native_host"))
from c_host import NO_CC, c_compiler  # noqa: E402

pytestmark = pytest.mark.skipif(c_compiler() is None, reason=NO_CC)

# Compiles the kernel in place as pip does: setup.py's own extension (setuptools.setup captured, not run), built
# by setuptools' build_ext with the interpreter's compiler and flags. (Without setuptools -- a Python 3.12+ venv
# has none -- the copy goes without: the FMUs do not carry it.)
BUILD_KERNEL = """
import sys
try:
    import setuptools
except ImportError:
    sys.exit(0)
from setuptools import Distribution
captured = {}
setuptools.setup = lambda **kw: captured.update(kw)
exec(compile(open("setup.py").read(), "setup.py", "exec"), {"__name__": "__main__"})
dist = Distribution({"name": "kernel", "ext_modules": captured["ext_modules"], "packages": captured["packages"],
                     "package_dir": captured["package_dir"]})
command = dist.get_command_obj("build_ext")
command.inplace = 1
dist.run_command("build_ext")
"""

# Builds every FMU with the copy's own package (checked) into OUT/fmi2 and OUT/fmi3.
BUILD_FMUS = """
import sys
from pathlib import Path
import crane_models
from crane_models.models.build import build_all
assert Path(crane_models.__file__).resolve().is_relative_to(Path.cwd().resolve()), crane_models.__file__
platforms = sys.argv[2] if len(sys.argv) > 2 else None
build_all(Path(sys.argv[1]) / "fmi2", fmi_version=2, platforms=platforms)
build_all(Path(sys.argv[1]) / "fmi3", fmi_version=3, platforms=platforms)
"""


def project_files() -> list[Path]:
    """The project's files as a clone has them (tracked and new, not ignored); without git, the folders that
    matter, without caches and compiled files."""
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                          capture_output=True)
    if done.returncode == 0 and done.stdout:
        return [Path(name) for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file()]
    skip = ("__pycache__", ".so", ".pyd", ".pyc")
    return [p.relative_to(ROOT) for top in ("crane_models", "fmu_src", "build_scripts") for p in (ROOT / top).rglob("*")
            if p.is_file() and not any(s in p.as_posix() for s in skip)] + [Path("setup.py"), Path("pyproject.toml")]


def copy_project(destination: Path) -> Path:
    for name in project_files():
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, destination / name)
    return destination


def build_in(copy: Path, out: Path, platforms: str | None = None) -> None:
    env = {**os.environ, "PYTHONPATH": str(copy), "XDG_CACHE_HOME": str(copy / ".cache")}
    env.pop("ZIG_GLOBAL_CACHE_DIR", None)
    env.pop("ZIG_LOCAL_CACHE_DIR", None)
    for script, args in ((BUILD_KERNEL, []), (BUILD_FMUS, [str(out), *([platforms] if platforms else [])])):
        done = subprocess.run([sys.executable, "-c", script, *args], cwd=copy, env=env, capture_output=True,
                              text=True, timeout=3600)
        assert done.returncode == 0, done.stderr[-3000:]


def sha256_of_fmus(out: Path) -> dict:
    return {f"{fmu.parent.name}/{fmu.name}": hashlib.sha256(fmu.read_bytes()).hexdigest()
            for fmu in sorted(out.glob("fmi*/*.fmu"))}


def machine_strings(*folders: Path) -> list[bytes]:
    """What no FMU may contain: the build folders, the virtual environment's prefix and its base, the home folder
    and the temporary folders the build works in."""
    strings = {str(f) for f in folders} | {sys.prefix, sys.base_prefix, str(Path.home()),
                                            os.path.join(tempfile.gettempdir(), "crane_cosim_")}
    return sorted({s.encode() for s in strings if len(s) > 4})


def members_containing(fmus: list[Path], needles: list[bytes]) -> list[str]:
    found = []
    for fmu in fmus:
        with zipfile.ZipFile(fmu) as z:
            for member in z.namelist():
                data = z.read(member)
                found += [f"{fmu.name}:{member}: {n.decode()}" for n in needles if n in data]
    return found


def reproduce(tmp_path: Path, platforms: str | None = None) -> None:
    """Two copies, two builds; equal sha256, no machine strings."""
    copies = [copy_project(tmp_path / name / "crane-cosim") for name in ("first", "second-copy")]  # one moment
    outs = [copy.parent / "out" for copy in copies]
    for copy, out in zip(copies, outs):
        build_in(copy, out, platforms)
    first, second = (sha256_of_fmus(out) for out in outs)
    assert len(first) == 2 * len(SPECS) and set(first) == set(second)  # every FMU, FMI 2.0 and 3.0
    assert first == second, json.dumps({k: (first[k], second[k]) for k in first if first[k] != second[k]}, indent=1)
    fmus = sorted(outs[0].glob("fmi*/*.fmu")) + sorted(outs[1].glob("fmi*/*.fmu"))
    assert not members_containing(fmus, machine_strings(tmp_path, ROOT))


def test_two_copies_in_two_folders_build_the_same_fmus(tmp_path):
    reproduce(tmp_path)


@pytest.mark.skipif(os.environ.get("CRANE_COSIM_REPRODUCE_PLATFORMS") != "1",
                    reason="several minutes (zig, five platforms, two copies): set CRANE_COSIM_REPRODUCE_PLATFORMS=1")
def test_two_copies_build_the_same_fmus_for_every_platform(tmp_path):
    pytest.importorskip("ziglang", reason="needs zig: pip install ziglang")
    reproduce(tmp_path, platforms="all")


def test_the_scan_finds_a_machine_string(tmp_path):
    """The scan itself: a member holding the build folder is found."""
    fmu = tmp_path / "x.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("resources/a.txt", b"nothing")
        z.writestr("resources/record.txt", f"path={tmp_path}/lib\n".encode())
    assert members_containing([fmu], machine_strings(tmp_path)) == [f"x.fmu:resources/record.txt: {tmp_path}"]
