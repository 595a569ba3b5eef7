"""Issues 16 and 20: ``.ci/build-artifacts`` does on this machine what the workflow's cross-build job does -- every
FMU of FMI 2.0 and 3.0 with the five platforms' kernels, validated, with cross-check folders that fmpy reproduces
from the folder alone, checked here.

It builds twelve FMUs, computes six full-length references and replays twelve folders (~5 minutes on two quiet
cores, FlexibleCrane's 10 s of four elements the longest), so it runs only when CRANE_COSIM_ARTIFACTS=1 is set;
tests/test_cross_check.py (the folders over 2 s), tests/test_workflow.py (merge, release, native check) and
tests/test_platforms.py cover its parts in every run.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crane_models.fmi import platforms
from crane_models.simulation.cross_check import FILE_LIMIT, cross_check_folder, read_csv, read_options
from crane_models.models.registry import SPECS

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.environ.get("CRANE_COSIM_ARTIFACTS") != "1",
                                reason="runs .ci/build-artifacts (~5 min): set CRANE_COSIM_ARTIFACTS=1")


def test_build_artifacts_script_makes_checked_fmus_with_references(tmp_path):
    if platforms.zig_command() is None:
        pytest.skip("cross-compiling needs zig: pip install ziglang")
    env = dict(os.environ, VIRTUAL_ENV=sys.prefix, CRANE_COSIM_SKIP_TESTS="1",
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    dist, kernels = tmp_path / "dist", tmp_path / "kernels"
    done = subprocess.run([str(ROOT / ".ci" / "build-artifacts"), str(dist), str(kernels)], capture_output=True,
                          text=True, env=env, timeout=3600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every FMU checked" in done.stdout and "::error" not in done.stdout
    manifest = json.loads((dist / "manifest.json").read_text())
    assert sorted((e["name"], e["fmi_version"]) for e in manifest["fmus"]) == sorted(
        (name, version) for name in SPECS for version in ("2.0", "3.0"))
    assert set(manifest["kernels"]) == set(platforms.PLATFORMS)
    assert {p.parent.name for p in kernels.rglob("multibody-*")} == set(platforms.PLATFORMS)
    for entry in manifest["fmus"]:
        fmu = dist / entry["file"]
        digest = hashlib.sha256(fmu.read_bytes()).hexdigest()
        assert entry["sha256"] == digest and f"{digest}  {entry['file']}" in done.stdout
        version = int(entry["fmi_version"][0])
        folder = cross_check_folder(dist, entry["name"], version)
        assert entry["cross_check"] == folder.relative_to(dist).as_posix()
        spec = SPECS[entry["name"]]()
        reference = read_csv(folder / f"{entry['name']}_ref.csv")
        # Full length, a column per real output that moves (in the FMU's order), every file within 1 MB.
        real = [v.name for v in spec.outputs if v.kind == "real"]
        assert list(reference)[0] == "time" and list(reference)[1:] == [n for n in real if n in reference]
        assert reference["time"][-1] == read_options(folder)["StopTime"] >= 10.0
        assert all(p.stat().st_size <= FILE_LIMIT for p in folder.glob("*.csv"))
        assert list(read_csv(folder / f"{entry['name']}_in.csv")) == ["time"] + [v.name for v in spec.inputs]
