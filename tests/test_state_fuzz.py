"""Issue 21: a hypothesis-driven state-content fuzzer. Genuine saved states of every FMU (FMI 2.0 and 3.0) are
decoded, changed in content at one to three places (array shapes and dtypes, values NaN/inf/1e308/5e-324, the
parameters, the time, the stepper's data, missing and extra keys and items, wrong types), re-encoded with a correct
checksum, then deserialized, set and stepped three times (tests/state_host.py case_fuzz). Required: no signal, no
example over 10 s, every call OK/Discard/Error, finite outputs after every call -- an accepted state steps, a
refused one leaves the instance as it was.

The default run is short: CRANE_COSIM_STATE_FUZZ_EXAMPLES examples per FMU and FMI version (default 25: 300 in
all); a long campaign sets it higher, and CRANE_COSIM_STATE_FUZZ_SEED another seed (default 21)."""
from __future__ import annotations

import os

import pytest

from fmu_helpers import needs_runtime
from test_state_validation import FMUS, fmu_dirs, host  # noqa: F401 -- fmu_dirs is a fixture

EXAMPLES = int(os.environ.get("CRANE_COSIM_STATE_FUZZ_EXAMPLES", "25"))
SEED = int(os.environ.get("CRANE_COSIM_STATE_FUZZ_SEED", "21"))


@needs_runtime
@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("name", FMUS)
def test_changed_state_contents_are_refused_or_step(fmu_dirs, name, version):  # noqa: F811
    r = host("fuzz", fmu_dirs[version] / f"{name}.fmu", version, EXAMPLES, SEED, timeout=60 + 12 * EXAMPLES)
    assert r["examples"] >= EXAMPLES // 2, r  # most examples are encodable states
    assert r["accepted"] + r["refused"] == r["examples"]
    assert r["refused"] > 0, "some changed states are refused"
    print(f"{name} FMI {version}: {r['examples']} examples, {r['refused']} refused, {r['accepted']} accepted "
          f"({r['steps_ok']} OK, {r['steps_discard']} Discard, {r['steps_error']} Error steps after them)")
