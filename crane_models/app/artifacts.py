"""The release artifacts of CI (``.github/workflows/fmus.yml``, ``.ci/cross-build``): every FMU of both FMI versions
with every platform's kernel, validated, with reference results in the FMI cross-check layout, and their checks on
the machine that runs them (``.ci/native-check``).

Layout of ``out_dir`` (docs/platforms.md)::

    manifest.json                 project version, kernels, every FMU: name, FMI version, file, sha256
    fmi2/<Model>.fmu              FMI 2.0, with the OSP files and build_all's own manifest.json
    fmi3/<Model>.fmu              FMI 3.0, with build_all's own manifest.json
    cross-check/2.0/cs/linux64/crane-cosim/<version>/<Model>/          (simulation/cross_check.py)
    cross-check/3.0/cs/x86_64-linux/crane-cosim/<version>/<Model>/
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .. import __version__
from ..simulation.cross_check import check_folder, copy_reference_results, cross_check_folder, write_reference_results

FMI_VERSIONS = (2, 3)


def dist_folder(fmi_version: int) -> str:
    """The folder of one FMI version's FMUs in the dist: ``fmi2``, ``fmi3``."""
    return f"fmi{fmi_version}"


def build_artifacts(out_dir: Path, platforms="all", references: bool = True) -> list:
    """Every FMU of both FMI versions with the kernels of ``platforms`` into ``out_dir``, each validated by fmpy
    (ValueError listing the problems), with ``references`` the cross-check folders, and the dist's
    ``manifest.json``. Returns the FMU paths."""
    from fmpy.validation import validate_fmu

    from ..models.build import build_all

    out_dir = Path(out_dir)
    built = {v: build_all(out_dir / dist_folder(v), v, platforms=platforms) for v in FMI_VERSIONS}
    paths = [p for v in FMI_VERSIONS for p in built[v]]
    problems = {f"{p.parent.name}/{p.name}": validate_fmu(str(p)) for p in paths}
    problems = {k: v for k, v in problems.items() if v}
    if problems:
        raise ValueError(f"FMUs failing fmpy validation: {problems}")
    if references:
        for fmu2, fmu3 in zip(built[2], built[3]):
            folder = write_reference_results(fmu2.stem, fmu2, cross_check_folder(out_dir, fmu2.stem, 2))
            copy_reference_results(folder, fmu3, cross_check_folder(out_dir, fmu3.stem, 3))
    write_manifest(out_dir)
    return paths


def write_manifest(out_dir: Path) -> Path:
    """``manifest.json`` of the dist from the FMI versions' own manifests: every FMU with its FMI version, file
    (relative to the dist), sha256 and cross-check folder."""
    fmus, kernels = [], {}
    for version in FMI_VERSIONS:
        own = json.loads((out_dir / dist_folder(version) / "manifest.json").read_text())
        kernels = kernels or own["kernels"]
        for entry in own["fmus"]:
            folder = cross_check_folder(out_dir, entry["name"], version)
            fmus.append({"name": entry["name"], "fmi_version": f"{version}.0",
                         "file": f"{dist_folder(version)}/{entry['file']}", "sha256": entry["sha256"],
                         "cross_check": folder.relative_to(out_dir).as_posix() if folder.is_dir() else None})
    path = out_dir / "manifest.json"
    path.write_text(json.dumps({"project_version": __version__, "kernels": kernels, "fmus": fmus}, indent=2) + "\n")
    return path


def loaded_kernel(fmu_path: Path, scratch: Path) -> str:
    """File name of the kernel that the FMU's own package loads on this machine ("None": numpy only)."""
    with zipfile.ZipFile(fmu_path) as z:
        z.extractall(scratch)
    bundle = next((Path(scratch) / "resources").glob("*_crane_models"))
    code = (f"import sys; sys.path.insert(0, {str(bundle.parent)!r}); from {bundle.name}.core import native; "
            "lib = native.library(); print(lib._name if lib else None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{fmu_path.name}: importing its package failed:\n{done.stderr[-2000:]}")
    return Path(done.stdout.strip()).name


def fmi_binary_folder(fmi_version: str, platform: str) -> str:
    """``binaries/`` subfolder of ``platform`` in an FMU of ``fmi_version`` (FMI 2.0 names, FMI 3.0 tuples)."""
    from ..fmi.platforms import PLATFORMS

    return PLATFORMS[platform].fmi2_folder if fmi_version.startswith("2") else platform


def check_artifacts(out_dir: Path) -> tuple:
    """Checks on the machine that runs them; returns ``(problems, cannot_check)``. Problems: an FMU whose sha256
    is not the manifest's, that loads another kernel than this platform's, or -- where it has an FMI binary for
    this platform -- whose cross-check folder fmpy does not reproduce from the folder alone
    (:func:`cross_check.check_folder`). ``cannot_check``: what could not be checked here, and why."""
    from ..core.native.kernel_files import host_platform
    from ..fmi.platforms import PLATFORMS

    out_dir = Path(out_dir)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    host, problems, cannot = host_platform(), [], []
    if host not in PLATFORMS:
        return [], [f"{sys.platform}/{host}: not a platform the FMUs carry binaries for; nothing checked"]
    expected = manifest.get("kernels", {}).get(host)
    for entry in manifest["fmus"]:
        path, label = out_dir / entry["file"], f"{entry['file']} (FMI {entry['fmi_version']})"
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != entry["sha256"]:
            problems.append(f"{label}: missing, or sha256 differs from the manifest's")
            continue  # not the FMU the manifest names: nothing else about it means anything
        with tempfile.TemporaryDirectory() as scratch:
            kernel = loaded_kernel(path, Path(scratch))
        if expected and kernel != expected:
            problems.append(f"{label}: loads {kernel} on {host}, not {expected}")
        with zipfile.ZipFile(path) as z:
            prefix = f"binaries/{fmi_binary_folder(entry['fmi_version'], host)}/"
            runs_here = any(n.startswith(prefix) for n in z.namelist())
        if not runs_here:
            cannot.append(f"{label}: no FMI binary for {host} ({prefix}), not simulated here")
        elif not entry.get("cross_check"):
            cannot.append(f"{label}: no cross-check folder in the dist, not compared with a reference")
        else:
            problems += [f"{label}: {p}" for p in check_folder(out_dir / entry["cross_check"])]
    return problems, cannot
