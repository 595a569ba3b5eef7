"""Issue 16: ``.ci/build-artifacts`` does on this machine what the workflow's Linux job does -- every FMU with
the five platforms' kernels, validated, with cross-check reference results, checked here.

It builds five FMUs and simulates each twice (standalone reference and FMU, ~1 minute on one core), so it
runs only when CRANE_COSIM_ARTIFACTS=1 is set; tests/test_platforms.py covers its parts in every run.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crane_models.fmi import platforms
from crane_models.fmi.artifacts import cross_check_folder
from crane_models.fmi.registry import SPECS

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.environ.get("CRANE_COSIM_ARTIFACTS") != "1",
                                reason="runs .ci/build-artifacts (~1 min): set CRANE_COSIM_ARTIFACTS=1")


def test_build_artifacts_script_makes_checked_fmus_with_references(tmp_path):
    if platforms.zig_command() is None:
        pytest.skip("cross-compiling needs zig: pip install ziglang")
    env = dict(os.environ, VIRTUAL_ENV=sys.prefix, CRANE_COSIM_SKIP_TESTS="1",
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run([str(ROOT / ".ci" / "build-artifacts"), str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert {f["name"] for f in manifest["fmus"]} == set(SPECS)
    assert set(manifest["kernels"]) == set(platforms.PLATFORMS)
    for entry in manifest["fmus"]:
        fmu = tmp_path / entry["file"]
        digest = hashlib.sha256(fmu.read_bytes()).hexdigest()
        assert entry["sha256"] == digest and f"{digest}  ./{fmu.name}" in done.stdout
        folder = cross_check_folder(tmp_path, entry["name"])
        spec = SPECS[entry["name"]]()
        with open(folder / f"{entry['name']}_ref.csv", newline="") as f:
            rows = list(csv.reader(f))
        # One row per communication point of the default experiment, one column per real output.
        assert rows[0] == ["time"] + [v.name for v in spec.outputs if v.kind == "real"]
        assert len(rows) - 1 == round(spec.stop_time / spec.step_size) + 1
        with open(folder / f"{entry['name']}_in.csv", newline="") as f:
            assert next(csv.reader(f)) == ["time"] + [v.name for v in spec.inputs]
        assert (folder / f"{entry['name']}_ref.opt").read_text().startswith("StartTime,")
