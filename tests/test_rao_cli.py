"""``crane-cosim rao`` (issue 36, item 2): bad input is one line naming the option and what is allowed, exit code 2,
nothing written, before Capytaine is even imported; without Capytaine one line says what to install. Run in a
child process whose ``import capytaine`` fails (sys.modules entry None), so these hold with or without it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOX = ["--box", "120,25,7", "--kg", "8", "--radii", "9.5,30,31"]
NO_CAPYTAINE = ("import sys; sys.modules['capytaine'] = None; from crane_models.app.cli import main; "
                "sys.exit(main(sys.argv[1:]))")


def rao_without_capytaine(args: list, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", NO_CAPYTAINE, "rao", *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_without_capytaine_one_line_says_what_to_install(tmp_path):
    done = rao_without_capytaine([*BOX, "--out", "rao.csv"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "crane-cosim rao: error: computing RAOs needs Capytaine: pip install 'crane-cosim[bem]'"]
    assert not (tmp_path / "rao.csv").exists()


@pytest.mark.parametrize("args, message", [
    (["--box", "120,25", "--kg", "8", "--radii", "9.5,30,31"], "--box '120,25': 3 finite comma-separated numbers"),
    (["--box", "120,25,7", "--kg", "12", "--radii", "9.5,30,31"], "hull kg = 12.0 m: must lie in (0, KM = KB + BM"),
    (["--box", "120,25,-7", "--kg", "8", "--radii", "9.5,30,31"], "hull draught = -7.0: must be a finite number > 0"),
    ([*BOX[:4], "--radii", "9.5,0,31"], "radius of gyration kyy = 0.0: must be a finite number > 0"),
    ([*BOX, "--roll-damping", "1.5"], "roll damping = 1.5: a fraction of critical in [0, 1)"),
    ([*BOX, "--omegas", "0.5:0.1:10"], "--omegas '0.5:0.1:10': 0 < MIN < MAX and N >= 2"),
    ([*BOX, "--omegas", "0.5,0.2"], "omegas: at least 2 finite wave frequencies > 0 rad/s in increasing order"),
    ([*BOX, "--heading-step", "0"], "--heading-step 0.0: must be in (0, 360] degrees"),
    ([*BOX, "--cog", "0,0,1"], "--box needs --kg"),
    (["--mesh", "hull.stl", "--cog", "0,0,1", "--radii", "9.5,30,31"], "mesh file hull.stl: not found"),
])
def test_bad_input_is_one_line_before_any_work(tmp_path, args, message):
    """Checked before Capytaine's import: the message is the input's, not the missing extra's."""
    done = rao_without_capytaine([*args, "--out", "rao.csv"], tmp_path)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]  # argparse prints the usage first
    assert last.startswith("crane-cosim rao: error: ") and message in last, last
    assert "Traceback" not in done.stderr and not (tmp_path / "rao.csv").exists()
