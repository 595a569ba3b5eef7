"""Every supported way of running the FMUs leaves the host process with exit status 0.

Each sequence runs in a fresh subprocess (an abort at exit would otherwise take pytest down); the test
checks the status and that the script reached its end. The native-host case is the one that used to fail:
``ecos`` (the Ecos command-line host shipped in ecospy) needed libpython preloaded and ended in SIGSEGV at
exit because pythonfmu's binary finalizes its embedded interpreter from a C++ static destructor. The FMUs
now carry the project's own runtime (crane_models/fmi/runtime, docs/fmi-runtime.md), which finds Python by
itself and never finalizes it: ``ecos`` runs every FMU in a clean environment (``env -i``), and fmpy
processes loading every FMU exit with status 0 run after run.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fmu_helpers import build_fmus, needs_runtime  # noqa: E402
from engine_runs import ECOSPY_MARKS, NO_LIBCOSIM, libcosim_missing, needs_ecospy  # noqa: E402
from crane_models.app.native import ecos_executable  # noqa: E402
from crane_models.models.registry import SPECS  # noqa: E402

PRELUDE = f"""
import dataclasses, sys
sys.path.insert(0, {str(HERE)!r})
from fmpy import extract, read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave
from crane_models.simulation.runs import run_fmu, run_fmu_manual
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting
FMU = sys.argv[1]
SC = dataclasses.replace(knuckle_boom_hoisting(), stop_time=0.3)
MD = read_model_description(FMU)

def slave(name, unzip=None):
    s = FMU2Slave(guid=MD.guid, unzipDirectory=unzip or extract(FMU),
                  modelIdentifier=MD.coSimulation.modelIdentifier, instanceName=name)
    s.instantiate(); s.setupExperiment(startTime=0.0); s.enterInitializationMode(); s.exitInitializationMode()
    s.doStep(0.0, 0.01)
    return s
"""

SEQUENCES = {
    "simulate_fmu_then_FMU2Slave": """
        run_fmu(FMU, SC, 0.01)
        run_fmu_manual(FMU, SC, 0.01)
    """,
    "FMU2Slave_left_alive_at_exit": """
        simulate_fmu(FMU, stop_time=0.1, validate=False)
        s = slave("never_freed")
    """,
    "two_FMU2Slave_instances": """
        a = slave("a"); b = slave("b")
        a.doStep(0.01, 0.01); b.doStep(0.01, 0.01)
        a.terminate(); a.freeInstance(); b.terminate(); b.freeInstance()
    """,
    "instantiate_free_repeatedly": """
        unzip = extract(FMU)
        for i in range(15):
            s = slave(f"r{i}", unzip); s.terminate(); s.freeInstance()
    """,
    "saved_states_and_discarded_step": """
        s = slave("st")
        vr = {v.name: v.valueReference for v in MD.modelVariables}
        state = s.getFMUState(); s.doStep(0.01, 0.01); s.setFMUState(state)
        data = s.serializeFMUstate(state); s.freeFMUState(state)
        s.setFMUState(s.deSerializeFMUstate(data))
        s.setReal([vr["q1_ref"]], [float("nan")])
        try:
            s.doStep(0.01, 0.01)
        except Exception:
            pass
        s.terminate(); s.freeInstance()
    """,
    "libcosimpy_then_fmpy": """
        from engine_runs import run_libcosim
        run_libcosim(FMU, SC, 0.01)
        run_fmu(FMU, SC, 0.01)
    """,
    "ecospy_then_libcosimpy": """
        from engine_runs import run_ecos, run_libcosim
        run_ecos(FMU, SC, 0.01)
        run_libcosim(FMU, SC, 0.01)
    """,
}


@pytest.fixture(scope="module")
def kb_fmu(tmp_path_factory):
    return build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.mark.parametrize("name", [pytest.param(n, marks=ECOSPY_MARKS) if "ecos" in n else n
                                  for n in sorted(SEQUENCES)])
def test_python_host_exits_cleanly(kb_fmu, tmp_path, name):
    if "libcosim" in name and libcosim_missing():
        pytest.skip(NO_LIBCOSIM)
    script = tmp_path / f"{name}.py"
    script.write_text(PRELUDE + textwrap.dedent(SEQUENCES[name]) + "\nprint('REACHED END', flush=True)\n")
    proc = run([sys.executable, str(script), str(kb_fmu)], cwd=tmp_path)
    assert "REACHED END" in proc.stdout, proc.stderr[-3000:]
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"


@pytest.fixture(scope="module")
def all_fmus(tmp_path_factory):
    return build_fmus(tmp_path_factory)


@needs_runtime
@needs_ecospy
@pytest.mark.parametrize("name", list(SPECS))
def test_native_host_ecos_cli_exits_cleanly(all_fmus, tmp_path, name):
    """A native (C++) host with a clean environment (no LD_PRELOAD, PATH or PYTHONPATH; CRANE_COSIM_PYTHON names
    this Python): simulates every FMU and exits with status 0."""
    fmu = all_fmus / f"{name}.fmu"
    proc = run(["env", "-i", f"CRANE_COSIM_PYTHON={sys.executable}", str(ecos_executable()), "simulate", "--path",
                str(fmu), "--stopTime", "0.5", "--stepSize", "0.01", "-l", "warn"], cwd=tmp_path)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stdout[-1500:]} {proc.stderr[-1500:]}"
    lines = (tmp_path / f"{name}.csv").read_text().splitlines()
    assert len(lines) >= 50  # it really simulated: one row per communication point


FMPY_EVERY_FMU = """
import sys
from fmpy import simulate_fmu
for path in sys.argv[1:]:
    simulate_fmu(path, stop_time=0.05, output_interval=0.01, validate=False)
print('REACHED END', flush=True)
"""


def test_fmpy_processes_loading_every_fmu_exit_cleanly(all_fmus, tmp_path):
    """20 fmpy processes, each loading every FMU (five runtimes and Python packages in one process)."""
    script = tmp_path / "every_fmu.py"
    script.write_text(FMPY_EVERY_FMU)
    fmus = [str(all_fmus / f"{name}.fmu") for name in SPECS]
    for i in range(20):
        proc = run([sys.executable, str(script), *fmus], cwd=tmp_path)
        assert proc.returncode == 0 and "REACHED END" in proc.stdout, \
            f"run {i}: exit status {proc.returncode}: {proc.stderr[-2000:]}"
