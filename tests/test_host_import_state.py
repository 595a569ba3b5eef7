"""The host's Python as the host left it (issue 21, item 8): loading an FMU must not change the host's module search.

Before, every fmi2Instantiate and fmi2Reset put the FMU's resources folder in front of the host's ``sys.path`` for
good, and the FMU's copy of pythonfmu, imported as ``pythonfmu``, answered the host's own ``import pythonfmu``
afterwards. In a fresh fmpy process (FMI 2.0 and 3.0, the project's runtime inside), each FMU is instantiated,
stepped, reset, instantiated a second time, and freed: ``sys.path`` must equal what it was before (the same entries
in the same order), no module the FMU brought may have a name that is not its build's (every module loaded from the
FMU's folder starts with the build's prefix), and ``import pythonfmu`` / ``import pythonfmu3`` afterwards must give
the host's installed copy, not the FMU's.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fmu_helpers import build_fmi3_fmus, build_fmus, needs_runtime  # noqa: E402

PROBE = r"""
import json, sys
from pathlib import Path
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave

path, identifier = sys.argv[1], sys.argv[2]
md = read_model_description(path)
unzipped = Path(extract(path)).resolve()
before = list(sys.path)
modules_before = set(sys.modules)
instances = []
for name in ("a", "b"):
    if md.fmiVersion == "2.0":
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=str(unzipped), modelIdentifier=identifier, instanceName=name)
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
    else:
        fmu = FMU3Slave(guid=md.instantiationToken, unzipDirectory=str(unzipped), modelIdentifier=identifier,
                        instanceName=name)
        fmu.instantiate()
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.doStep(0.0, 0.01)
    fmu.reset()
    instances.append(fmu)
after_use = list(sys.path)
for fmu in instances:
    fmu.freeInstance()
new = [n for n in set(sys.modules) - modules_before
       if Path(getattr(sys.modules[n], "__file__", None) or "/").resolve().is_relative_to(unzipped)]
import pythonfmu, pythonfmu3
print("RESULT " + json.dumps({
    "path_unchanged": before == after_use == list(sys.path),
    "extra_path": [p for p in sys.path if p not in before],
    "fmu_modules": len(new),
    "foreign_names": sorted({n.split(".")[0] for n in new if not n.startswith(identifier.lower() + "_fmi")}),
    "pythonfmu": [str(Path(m.__file__).resolve()) for m in (pythonfmu, pythonfmu3)
                  if Path(m.__file__).resolve().is_relative_to(unzipped)],
}))
"""


@needs_runtime
@pytest.mark.parametrize("fmi_version", [2, 3])
def test_loading_an_fmu_leaves_the_hosts_import_state(fmi_version, tmp_path_factory):
    fmus = build_fmus(tmp_path_factory) if fmi_version == 2 else build_fmi3_fmus(tmp_path_factory)
    for name in ("KnuckleBoomCrane", "Vessel"):
        run = subprocess.run([sys.executable, "-c", PROBE, str(fmus / f"{name}.fmu"), name], capture_output=True,
                             text=True, timeout=600, cwd=tmp_path_factory.mktemp("host"))
        assert run.returncode == 0, run.stderr[-3000:]
        out = json.loads(next(line[7:] for line in run.stdout.splitlines() if line.startswith("RESULT ")))
        assert out["path_unchanged"], (name, out["extra_path"])
        assert out["fmu_modules"] > 20, name  # the probe saw the FMU's modules (it would pass vacuously otherwise)
        assert out["foreign_names"] == [], (name, out)
        assert out["pythonfmu"] == [], (name, out)
