"""Ctrl-C (SIGINT) during a run, as a user presses it: the command ends as interrupted -- exit code 130, one line
``crane-cosim CMD: interrupted`` -- and not as an FMU failure (the FMU's doStep, in this process, caught the
KeyboardInterrupt as its own error: ``FMU [Error] fmi2DoStep: KeyboardInterrupt``, exit 1); the demo leaves no
empty scenario folder behind. The signal is sent once the run's progress bar shows that the FMU is stepping."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fmu_helpers import build_fmus

PROGRESS_WAIT = 120  # s until the progress bar appears (it is drawn after 2 s of a run)


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory):
    return build_fmus(tmp_path_factory)


def interrupted(args: list, cwd: Path, progress: str) -> tuple:
    """``crane-cosim ARGS`` in a process of its own, sent SIGINT once ``progress`` is on its stderr; ``(exit code,
    stdout, stderr)``."""
    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    proc = subprocess.Popen([sys.executable, "-m", "crane_models.app.cli", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = bytearray()
    reader = threading.Thread(target=lambda: [err.extend(chunk) for chunk in iter(lambda: proc.stderr.read1(4096), b"")],
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + PROGRESS_WAIT
    try:
        while progress.encode() not in err:
            assert proc.poll() is None, f"ended before it was interrupted: {err.decode(errors='replace')}"
            assert time.monotonic() < deadline, f"no progress after {PROGRESS_WAIT} s: {err.decode(errors='replace')}"
            time.sleep(0.05)
        time.sleep(0.5)  # well inside the stepping
        proc.send_signal(signal.SIGINT)
        out = proc.stdout.read()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    reader.join(timeout=10)
    text = err.decode(errors="replace")
    return proc.returncode, out.decode(), text


def final_lines(stderr: str) -> list:
    """The lines of stderr without the progress bar's redraws (carriage returns) and blank lines."""
    return [line.split("\r")[-1].strip() for line in stderr.splitlines() if line.split("\r")[-1].strip()]


def test_ctrl_c_during_a_flexible_crane_run_exits_130_in_one_line(fmu_dir, tmp_path):
    code, _, err = interrupted(["run", "FlexibleCrane", "--fmus", fmu_dir, "--out", tmp_path / "f.csv"], tmp_path,
                               "s simulated")
    assert code == 130, err
    assert final_lines(err)[-1] == "crane-cosim run: interrupted", err
    assert "KeyboardInterrupt" not in err and "[Error]" not in err and "Traceback" not in err, err
    assert not (tmp_path / "f.csv").exists()


def test_ctrl_c_during_a_demo_scenario_exits_130_and_leaves_no_empty_folder(fmu_dir, tmp_path):
    out = tmp_path / "demo"
    code, _, err = interrupted(["demo", "--scenario", "flexible_crane_flexible4_lugre", "--fmus", fmu_dir,
                                "--out", out], tmp_path, "flexible_crane_flexible4_lugre FMU")
    assert code == 130, err
    assert final_lines(err)[-1] == "crane-cosim demo: interrupted", err
    assert "KeyboardInterrupt" not in err and "[Error]" not in err and "Traceback" not in err, err
    assert not (out / "flexible_crane_flexible4_lugre").exists()
