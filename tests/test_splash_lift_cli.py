"""crane-cosim splash-lift refuses sea states outside the sea parameters' ranges (models/at_sea.py) in one line, exit 2,
before any lift is run: a sweep value of Hs 40 m ran the lift in it before."""
from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("args, message", [
    (["--sweep-hs", "1,40", "--sweep-tp", "8"], "--sweep-hs: sea_hs = 40.0 m is outside the allowed range [0, 30] m"),
    (["--sweep-hs", "2", "--sweep-tp", "8,50"], "--sweep-tp: sea_tp = 50.0 s is outside the allowed range [1, 40] s"),
    (["--hs", "31"], "--hs: sea_hs = 31.0 m is outside the allowed range [0, 30] m"),
    (["--tp", "0.5"], "--tp: sea_tp = 0.5 s is outside the allowed range [1, 40] s"),
    (["--heading", "7"], "--heading: sea_heading = 7.0 rad is outside the allowed range [-6.28319, 6.28319] rad"),
    (["--sweep-seeds", "0"], "--sweep-seeds = 0: from 1 to 100"),
    (["--seed", "-1"], "--seed: sea_seed = -1 is outside the allowed range [0, 2147483647]"),
    (["--seed", "2147483647", "--sweep-seeds", "2"],
     "--seed: sea_seed = 2147483648 is outside the allowed range [0, 2147483647]"),
])
def test_sea_states_outside_the_ranges_are_refused_before_any_run(tmp_path, args, message):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "crane_models.app.cli", "splash-lift", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"crane-cosim splash-lift: error: {message}" and "Traceback" not in done.stderr
    assert not out.exists()  # refused before anything was written
