"""Every supported way of running the FMUs leaves the host process with exit status 0.

Each sequence runs in a fresh subprocess (an abort at exit would otherwise take pytest down); the test
checks the status and that the script reached its end. The native-host case is the one that used to fail:
``ecos`` (the Ecos command-line host shipped in ecospy) with libpython preloaded ended in SIGSEGV at exit
because pythonfmu finalizes its embedded interpreter from a C++ static destructor while the process exits,
after scipy._lib._uarray (imported by scipy.integrate) had run its own static destructors, which released
Python objects that the interpreter's final garbage collection then freed again. The FMU code no longer
imports scipy.integrate (``crane_models.simulation.cosimulation`` imports it lazily, for the reference solver only).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fmu_helpers import build_fmus  # noqa: E402
from engine_runs import NO_TBB, tbb_missing  # noqa: E402
from test_engines import libpython  # noqa: E402

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


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_python_host_exits_cleanly(kb_fmu, tmp_path, name):
    if "ecos" in name and tbb_missing():
        pytest.skip(NO_TBB)
    script = tmp_path / f"{name}.py"
    script.write_text(PRELUDE + textwrap.dedent(SEQUENCES[name]) + "\nprint('REACHED END', flush=True)\n")
    proc = run([sys.executable, str(script), str(kb_fmu)], cwd=tmp_path)
    assert "REACHED END" in proc.stdout, proc.stderr[-3000:]
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-3000:]}"


def _ecos_cli() -> Path:
    import ecospy

    exe = Path(ecospy.__file__).parent / "binaries" / "ecos"
    exe.chmod(exe.stat().st_mode | 0o111)  # wheels do not keep the executable bit
    return exe


def native_env() -> dict:
    """The recipe of the README for native hosts: libpython preloaded, this Python first on PATH and its
    site-packages visible to the embedded interpreter."""
    import site

    env = dict(os.environ)
    env["LD_PRELOAD"] = libpython()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(site.getsitepackages() + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


@pytest.mark.skipif(tbb_missing(), reason=NO_TBB)
@pytest.mark.skipif(libpython() is None, reason="this Python has no shared libpython to preload")
def test_native_host_ecos_cli_exits_cleanly(kb_fmu, tmp_path):
    """A native (C++) host that embeds Python through the FMU: simulates and exits with status 0."""
    proc = run([str(_ecos_cli()), "simulate", "--path", str(kb_fmu), "--stopTime", "0.5", "--stepSize", "0.01",
                "-l", "warn"], cwd=tmp_path, env=native_env())
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stdout[-1500:]} {proc.stderr[-1500:]}"
    lines = (tmp_path / "KnuckleBoomCrane.csv").read_text().splitlines()
    assert len(lines) >= 50 and "joint1_force_z" in lines[0]  # it really simulated
