"""Issue 5, item 4: no memory leak of our own across FMU life cycles (run in a fresh subprocess).

RSS is read after ``gc.collect()`` once the allocator has warmed up. Bounds: reset-and-reuse of one
instance must stay flat (< 0.5 kB per cycle, i.e. < 250 kB over 500 cycles, where a leak of one
Kinematics object per cycle would already add ~5 kB); instantiate/free may cost what pythonfmu itself
costs for a do-nothing FMU with the same interface, plus < 4 kB per cycle.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fmu_helpers import build_fmus

SCRIPT = r'''
import gc, json, resource, sys
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1024

def run(path, n, reuse, steps):
    md = read_model_description(path)
    unzip = extract(path)
    s, samples = None, []
    for i in range(n):
        if s is None or not reuse:
            s = FMU2Slave(guid=md.guid, unzipDirectory=unzip, modelIdentifier=md.coSimulation.modelIdentifier,
                          instanceName="m%d" % i)
            s.instantiate()
        else:
            s.reset()
        s.setupExperiment(startTime=0.0)
        s.enterInitializationMode()
        s.exitInitializationMode()
        for k in range(steps):
            s.doStep(currentCommunicationPoint=k * 0.01, communicationStepSize=0.01)
        if not reuse:
            s.terminate()
            s.freeInstance()
        if i in (n // 2, n - 1):
            gc.collect()
            samples.append(rss())
    return (samples[1] - samples[0]) / (n - 1 - n // 2)

mode, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
print(json.dumps(run(path, n, mode == "reuse", 5)))
'''


def growth(mode: str, fmu: Path, n: int) -> float:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode, str(fmu), str(n)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    from pythonfmu.builder import FmuBuilder

    crane = build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"
    null_dir = tmp_path_factory.mktemp("null")
    null = Path(FmuBuilder.build_FMU(Path(__file__).resolve().parents[1] / "benchmarks" / "null_slave.py",
                                     dest=null_dir))
    return crane, null


def test_reset_and_reuse_stays_flat(fmus):
    crane, _ = fmus
    assert growth("reuse", crane, 1000) < 0.5


def test_instantiate_free_adds_no_leak_of_its_own(fmus):
    crane, null = fmus
    assert growth("new", crane, 400) < growth("new", null, 400) + 4.0
