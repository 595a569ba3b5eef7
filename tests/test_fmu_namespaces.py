"""Two builds of one FMU in one process (issue 21, item 4). A master comparing an FMU before and after a change loads
both: their bundled modules must not share names, or the second FMU runs the first one's code and variable table.

The second build is made from a copy of this checkout whose KnuckleBoomCrane has one more parameter in front of the
others, so every value reference of the second build is the first build's plus one. Both FMUs are instantiated in
one fmpy process (a subprocess: the test's own process must not import them); for each FMU every Real parameter read
by its own value reference must equal the start value its own modelDescription.xml gives for that name (with the
first build's code behind the second FMU, `l1` reads l2, ...), a value set by name reads back under that name only,
one step runs, and a state of each is refused by the other (fmi2Error): the state's identity carries the build.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fmu_helpers import build_fmus, needs_runtime  # noqa: E402

ROOT = HERE.parent
EXTRA = "extra_test_parameter"
SPEC = Path("crane_models/models/knuckle_boom/spec.py")
ANCHOR = "    params = parameters_from_dataclasses(KnuckleBoomParameters(), KnuckleBoomController(), init)\n"


def _build_with_extra_parameter(tmp: Path) -> Path:
    """KnuckleBoomCrane built from a copy of the checkout whose spec has EXTRA as its first parameter."""
    copy = tmp / "checkout"
    shutil.copytree(ROOT / "crane_models", copy / "crane_models",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "fmu_src", copy / "fmu_src", ignore=shutil.ignore_patterns("__pycache__"))
    spec = (copy / SPEC).read_text()
    assert ANCHOR in spec
    (copy / SPEC).write_text(spec.replace(ANCHOR, ANCHOR + f"    params.insert(0, FmuVariable({EXTRA!r}, 'm', "
                                                            "'a parameter the first build lacks', 1.25))\n"))
    out = tmp / "second"
    code = ("import sys, crane_models; assert crane_models.__file__.startswith(sys.argv[1]), crane_models.__file__; "
            "from crane_models.fmi.build import build_fmu; build_fmu('KnuckleBoomCrane', sys.argv[2])")
    env = {**os.environ, "PYTHONPATH": str(copy)}
    subprocess.run([sys.executable, "-c", code, str(copy), str(out)], cwd=copy, env=env, check=True, timeout=600)
    return out / "KnuckleBoomCrane.fmu"


PROBE = r"""
import json, sys
from fmpy import extract, read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import FMU2Slave

def load(path, name):
    md = read_model_description(path)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(path), modelIdentifier="KnuckleBoomCrane", instanceName=name)
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    return md, fmu

out = {}
loaded = [load(p, n) for p, n in ((sys.argv[1], "first"), (sys.argv[2], "second"))]
for (md, fmu), name in zip(loaded, ("first", "second")):
    vr = {v.name: v.valueReference for v in md.modelVariables}
    params = [v for v in md.modelVariables if v.causality == "parameter" and v.type == "Real"]
    out[name] = {"names": [v.name for v in params],
                 "read": {v.name: fmu.getReal([v.valueReference])[0] for v in params},
                 "start": {v.name: float(v.start) for v in params}}
    fmu.setReal([vr["l1"]], [6.5])
    out[name]["l1_l2_after_set"] = fmu.getReal([vr["l1"], vr["l2"]])
    fmu.exitInitializationMode()
    out[name]["step"] = fmu.doStep(0.0, 0.01)
states = [fmu.serializeFMUstate(fmu.getFMUstate()) for _, fmu in loaded]
for (md, fmu), name, foreign in zip(loaded, ("first", "second"), reversed(states)):
    try:
        fmu.setFMUstate(fmu.deSerializeFMUstate(foreign))
        out[name]["foreign_state"] = "accepted"
    except FMICallException as exc:
        out[name]["foreign_state"] = "refused"
    fmu.setFMUstate(fmu.deSerializeFMUstate(states[0 if name == "first" else 1]))
    out[name]["own_state"] = "accepted"
for _, fmu in loaded:
    fmu.terminate()
    fmu.freeInstance()
print("RESULT " + json.dumps(out))
"""


@needs_runtime
def test_two_builds_of_one_fmu_run_their_own_code_in_one_process(tmp_path_factory):
    first = build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"
    second = _build_with_extra_parameter(tmp_path_factory.mktemp("namespaces"))
    run = subprocess.run([sys.executable, "-c", PROBE, str(first), str(second)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(next(line[7:] for line in run.stdout.splitlines() if line.startswith("RESULT ")))
    assert EXTRA not in out["first"]["names"] and out["second"]["names"][0] == EXTRA
    for name in ("first", "second"):
        got = out[name]
        assert got["read"] == got["start"], f"{name}: parameters read by value reference are not its own"
        assert got["l1_l2_after_set"] == [6.5, got["start"]["l2"]], name
        assert got["step"] == 0 or got["step"] is None, name
        assert got["foreign_state"] == "refused", f"{name} accepted the other build's state"
        assert got["own_state"] == "accepted", name
