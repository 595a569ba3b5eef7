"""FMI 3.0's cancel (issue 21, item 9, the FMI 3.0 half): FMI 3.0 has no fmi3CancelStep; an importer that instantiates
with ``earlyReturnAllowed`` and an ``intermediateUpdate`` callback is called back between internal steps and may ask
doStep to return early. The runtime calls it before every internal step of any stepper (Python or kernel, explicit or
Rosenbrock); doStep then returns fmi3OK with ``earlyReturn`` and ``lastSuccessfulTime`` = the step's start, the state
as it was there (the steppers keep no partial step). Each case runs fmpy in a child process
(tests/early_return_host.py): a crash there is a signal in its exit status, not the end of pytest."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fmu_helpers import build_fmi3_fmus, needs_runtime

HOST = Path(__file__).resolve().parent / "early_return_host.py"
FMUS = ["KnuckleBoomCrane", "KnuckleBoomCraneOnMovingBase", "VesselCrane", "CraneOnMovingBase", "Vessel",
        "FlexibleCrane"]
# Restoring the step's start is exact (the same state, the cached derivative evaluated afresh from it): the step
# after the early return must equal a fresh instance's first step as the kernel equals its specification, 1e-12.
SAME = 1e-12

pytestmark = needs_runtime  # intermediate updates are the project's runtime's (pythonfmu3's binary has none)


def run(fmu: Path, step: float, request_at: int, allow: bool, start: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, str(HOST), str(fmu), repr(step), str(request_at), "1" if allow else "0",
                           json.dumps(start or {})], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    assert proc.returncode == 0, f"exit status {proc.returncode} (a signal is negative): {proc.stderr[-3000:]}"
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def relative_deviation(a: list, b: list) -> float:
    return max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(a, b))


@pytest.mark.parametrize("name", FMUS)
def test_an_importer_asking_for_an_early_return_gets_it_at_the_next_internal_step(name, tmp_path_factory):
    """A 1 s step whose callback asks from its third call on: exactly three calls (the stepper stops before the next
    internal step), at non-decreasing times in [0, 1) s, none offering variables, each allowing an early return,
    intermediateStepFinished exactly after an internal step ended; doStep returns early at 0 s; a plain 10 ms step from there is OK and its
    outputs equal a fresh instance's first step."""
    r = run(build_fmi3_fmus(tmp_path_factory) / f"{name}.fmu", 1.0, 3, True)
    assert r["n_calls"] == 3 and (r["early"], r["last"]) == (True, 0.0), r
    times = [c["t"] for c in r["calls"]]
    assert times == sorted(times) and 0.0 == times[0] and times[-1] < 1.0, times
    assert all((c["set"], c["get"], c["can_return_early"]) == (False, False, True) for c in r["calls"])
    # "finished": an internal step ended since the step's start (a rejected trial step repeats its start time)
    assert [c["finished"] for c in r["calls"]] == [c["t"] > 0.0 for c in r["calls"]] and not r["calls"][0]["finished"]
    assert r["plain"] == [0.0, 0.0, 0.0, 0.01], r["plain"]  # no event, no terminate, no early return, at 0.01 s
    assert relative_deviation(r["after"], r["reference"]) <= SAME


def test_without_early_return_allowed_the_callback_is_never_called(tmp_path_factory):
    """earlyReturnAllowed false (the callback given all the same): no call, the step runs to its end."""
    r = run(build_fmi3_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu", 1.0, 1, False)
    assert (r["n_calls"], r["early"], r["last"]) == (0, False, 1.0), r


def test_a_long_stiff_step_returns_early_within_a_second(tmp_path_factory):
    """FlexibleCrane with 16 elements (the kernel's Rosenbrock-W stepper): a 10 s step -- minutes of work -- asked to
    return at the callback's 20th call returns within 1 s (each internal step is far below that), at 0 s."""
    r = run(build_fmi3_fmus(tmp_path_factory) / "FlexibleCrane.fmu", 10.0, 20, True,
            {"n_rfe": 16, "max_internal_steps": 2 ** 31 - 1})  # the default budget does not reach 10 s: refused
    assert (r["n_calls"], r["early"], r["last"]) == (20, True, 0.0), r
    assert r["seconds"] < 1.0, r["seconds"]


def test_the_model_description_offers_the_early_return(tmp_path_factory):
    """The capability flags an importer reads before it asks (FMI 3.0, CoSimulation element)."""
    with zipfile.ZipFile(build_fmi3_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu") as z:
        text = z.read("modelDescription.xml").decode()
    for flag in ("providesIntermediateUpdate", "mightReturnEarlyFromDoStep", "canReturnEarlyAfterIntermediateUpdate"):
        assert f'{flag}="true"' in text, flag
