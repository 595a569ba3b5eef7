"""WaveVessel.fmu (FMI 2.0 and 3.0, built with the tests' synthetic RAO table as ``crane-cosim build --rao-table``
builds it): regular waves at several headings against |RAO| a cos(ωt + φ) read from the table's own rows; rates and
accelerations against finite differences of the FMU's own outputs; the same sea to the bit across FMI versions,
processes, a restored state and the runtime's two step paths; another seed, another sea; the build's errors."""
from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.validation import validate_fmu

from crane_models.core.moving_base.ship import FLIP
from crane_models.core.screws import rot_x, rot_y, rot_z
from crane_models.fmi.instance import FmuInstance
from crane_models.integration.scenario import Scenario
from crane_models.models.wave_vessel.spec import DEFAULT_TABLE
from crane_models.simulation.runs import run_fmu
from fmu_helpers import needs_kernel, needs_runtime
from wave_vessel_helpers import wave_vessel_fmus

HERE = Path(__file__).resolve().parent
ANGLES, POSITION = ("roll", "pitch", "yaw"), tuple(f"base_position_{a}" for a in "xyz")
TRANSLATIONS = ("surge", "sway", "heave")


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    return wave_vessel_fmus(tmp_path_factory)


def outputs_of(path) -> list:
    return [v.name for v in read_model_description(str(path)).modelVariables if v.causality == "output"]


def record(path, start: dict, stop: float, step: float) -> np.ndarray:
    """Every output at every communication point (fmpy; FMI 2.0 or 3.0), one row per point from t = step."""
    result, _ = run_fmu(path, Scenario("wave", "WaveVessel", stop, [], lambda t: [], start), step)
    names = outputs_of(path)
    return np.column_stack([result["time"]] + [result[n] for n in names])[1:], names


def test_the_fmus_pass_fmpy_validation_and_have_no_inputs(fmus):
    for version in (2, 3):
        assert validate_fmu(str(fmus[version])) == []
        md = read_model_description(str(fmus[version]))
        assert not [v for v in md.modelVariables if v.causality == "input"]


def table_row(table: Path, omega: float, heading_deg: float) -> dict:
    """The RAOs of the table's row at ``omega`` and ``|heading|`` (the starboard side: the mirror of port, sway,
    roll and yaw of opposite sign), as {dof: (amplitude, phase)} -- the file read here, not by the reader."""
    side = -1.0 if heading_deg < 0 else 1.0
    with open(table) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    for r in rows:
        if float(r["omega"]) == omega and abs(math.degrees(float(r["heading"])) - abs(heading_deg)) < 1e-9:
            out = {}
            for d in ("surge", "sway", "heave", "roll", "pitch", "yaw"):
                amp, phase = float(r[f"{d}_amplitude"]), float(r[f"{d}_phase"])
                if side < 0 and d in ("sway", "roll", "yaw"):
                    phase += math.pi  # -|H| cos(x) = |H| cos(x + pi)
                out[d] = (amp, phase)
            return out
    raise AssertionError(f"no row for omega {omega} at heading {heading_deg}")


TP, HS, HEIGHT, H = 8.0, 3.0, 2.5, 1e-3  # one of the grid's periods; a = 1.5 m; O 2.5 m above the water


@pytest.fixture(scope="module")
def regular(fmus):
    """{heading in degrees: (t, {output: column})} of a regular wave over one period at 1 ms steps."""
    out = {}
    for deg in (0, 90, 180, -60):
        start = {"sea_spectrum": 0, "sea_hs": HS, "sea_tp": TP, "sea_heading": math.radians(deg),
                 "reference_height": HEIGHT}
        rows, names = record(fmus[2], start, TP, H)
        out[deg] = (rows[:, 0], dict(zip(names, rows[:, 1:].T)))
    return out


@pytest.mark.parametrize("deg", [0, 90, 180, -60])
def test_a_regular_wave_moves_each_dof_as_its_rao(fmus, regular, deg):
    """Attitude and position: |H| a cos(ωt + φ) to 1e-9 of their amplitude (the sea core's regular wave has its
    crest at O at t = 0: ε = 0), |H| and φ from the table's row at ω = 2π/Tp (a grid frequency)."""
    t, y = regular[deg]
    omega = 2.0 * math.pi / TP
    rao = table_row(fmus["table"], omega, deg)
    a = HS / 2
    got = {"surge": y["base_position_x"], "sway": y["base_position_y"], "heave": y["heave"],
           "roll": y["roll"], "pitch": y["pitch"], "yaw": y["yaw"]}
    assert np.array_equal(y["base_position_z"], HEIGHT + y["heave"])
    moving = 0
    for dof, (amp, phase) in rao.items():
        want = amp * a * np.cos(omega * t + phase)
        scale = max(amp * a, 1e-12)
        assert np.abs(got[dof] - want).max() <= 1e-9 * scale, dof
        moving += amp * a > 1e-6
    assert moving == {0: 3, 90: 3, 180: 3, -60: 6}[deg]  # the test sees motion, not zeros
    assert np.abs(y["wave_elevation"] - a * np.cos(omega * t)).max() <= 1e-12 * a


def derivative(y: np.ndarray, h: float) -> np.ndarray:
    """The fourth-order central difference (error ~ (ωh)⁴/30 of the amplitude), at the interior points."""
    return (y[:-4] - 8 * y[1:-3] + 8 * y[3:-1] - y[4:]) / (12 * h)


def rotations(y: dict) -> np.ndarray:
    return np.array([rot_z(c) @ rot_y(b) @ rot_x(a) for a, b, c in zip(y["roll"], y["pitch"], y["yaw"])])


def vectors(y: dict, name: str) -> np.ndarray:
    return np.column_stack([y[f"{name}_{a}"] for a in "xyz"])


@pytest.mark.parametrize("deg", [0, 90, 180, -60])
def test_rates_and_accelerations_are_the_time_derivatives(regular, deg):
    """ω from the attitude's rotation matrices (Rᵀ Ṙ = [ω]×, independent of the Euler-rate formula), ω̇ from ω,
    O's velocity Rᵀ ṗ from its position and acceleration Rᵀ d/dt(R v) from its velocity, all by finite differences
    of the FMU's own outputs, within 1e-6 of each output's amplitude."""
    t, y = regular[deg]
    R = rotations(y)
    Rdot = derivative(R, H)
    Rm = R[2:-2]
    skew = np.einsum("nji,njk->nik", Rm, Rdot)
    omega_fd = np.column_stack([skew[:, 2, 1], skew[:, 0, 2], skew[:, 1, 0]])
    v_sea = np.einsum("nij,nj->ni", R, vectors(y, "base_velocity"))
    checks = {"angular_velocity": omega_fd, "angular_acceleration": derivative(vectors(y, "angular_velocity"), H),
              "base_velocity": np.einsum("nji,nj->ni", Rm, derivative(vectors(y, "base_position"), H)),
              "base_acceleration": np.einsum("nji,nj->ni", Rm, derivative(v_sea, H))}
    for name, fd in checks.items():
        got = vectors(y, name)[2:-2]
        scale = max(np.abs(vectors(y, name)).max(), 1e-9)
        assert np.abs(got - fd).max() <= 1e-6 * scale, (name, np.abs(got - fd).max() / scale)


@pytest.mark.parametrize("deg", [0, 180])
def test_with_pitch_alone_the_rates_are_the_linear_derivatives(fmus, regular, deg):
    """Head and following seas move the synthetic hull in surge, heave and pitch only: ω_y = θ̇ and ω̇_y = θ̈ of
    θ = |H| a cos(ωt + φ), the other components zero; O's velocity is R_y(θ)ᵀ ṗ."""
    t, y = regular[deg]
    omega, a = 2.0 * math.pi / TP, HS / 2
    rao = table_row(fmus["table"], omega, deg)
    amp, phase = rao["pitch"]
    theta = omega * t + phase
    assert np.abs(y["angular_velocity_y"] + amp * a * omega * np.sin(theta)).max() <= 1e-9 * amp * a * omega
    assert np.abs(y["angular_acceleration_y"] + amp * a * omega ** 2 * np.cos(theta)).max() <= 1e-9 * amp * a * omega ** 2
    for name in ("angular_velocity_x", "angular_velocity_z", "angular_acceleration_x", "angular_acceleration_z"):
        assert np.abs(y[name]).max() <= 1e-12, name
    p_rate = np.column_stack([-rao[d][0] * a * omega * np.sin(omega * t + rao[d][1]) for d in TRANSLATIONS])
    want = np.einsum("nji,nj->ni", np.array([rot_y(q) for q in y["pitch"]]), p_rate)
    assert np.abs(vectors(y, "base_velocity") - want).max() <= 1e-9 * np.abs(want).max()


def test_z_down_gives_the_flip_of_the_z_up_outputs(fmus):
    start = {"sea_heading": 2.0, "sea_spreading": 4.0}
    up, names = record(fmus[2], start, 2.0, 0.01)
    down, _ = record(fmus[2], {**start, "z_down": True}, 2.0, 0.01)
    u, d = dict(zip(names, up[:, 1:].T)), dict(zip(names, down[:, 1:].T))
    assert np.array_equal(d["roll"], u["roll"]) and np.array_equal(d["pitch"], -u["pitch"])
    assert np.array_equal(d["yaw"], -u["yaw"]) and np.array_equal(d["heave"], -u["heave"])
    assert np.array_equal(d["wave_elevation"], u["wave_elevation"])
    for name in ("angular_velocity", "angular_acceleration", "base_acceleration", "base_velocity", "base_position"):
        assert np.array_equal(vectors(d, name), vectors(u, name) @ FLIP), name


IRREGULAR = {"sea_heading": 2.6, "sea_spreading": 6.0, "sea_seed": 11}  # JONSWAP Hs 2.5 m Tp 8 s, 200 components

# Another process: the FMU's outputs over a run, written as raw bytes (the environment's switches apply).
RUN = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from test_wave_vessel_fmu import record
rows, _ = record(sys.argv[2], json.loads(sys.argv[3]), float(sys.argv[4]), 0.01)
open(sys.argv[5], "wb").write(rows.tobytes())
"""


def in_process(path, start: dict, stop: float, out: Path, env: dict | None = None) -> np.ndarray:
    subprocess.run([sys.executable, "-c", RUN, str(HERE), str(path), json.dumps(start), repr(stop), str(out)],
                   check=True, env={**os.environ, **(env or {})}, cwd=str(HERE.parent), timeout=600)
    return np.frombuffer(out.read_bytes())


@needs_runtime
def test_the_same_seed_is_the_same_sea_to_the_bit(fmus, tmp_path):
    """FMI 2.0 and 3.0, this process and another, the runtime's step without Python and with it
    (CRANE_COSIM_NATIVE_STEP=0): the same bits."""
    rows2, _ = record(fmus[2], IRREGULAR, 5.0, 0.01)
    rows3, _ = record(fmus[3], IRREGULAR, 5.0, 0.01)
    assert rows2.tobytes() == rows3.tobytes()
    other = in_process(fmus[2], IRREGULAR, 5.0, tmp_path / "other.bin")
    python_steps = in_process(fmus[2], IRREGULAR, 5.0, tmp_path / "python.bin", {"CRANE_COSIM_NATIVE_STEP": "0"})
    assert other.tobytes() == rows2.tobytes() and python_steps.tobytes() == rows2.tobytes()
    assert np.abs(rows2[:, 1:]).max() > 0.1  # a sea, not still water


@needs_kernel
def test_the_numpy_path_agrees_with_the_kernel(fmus, tmp_path):
    rows, _ = record(fmus[2], IRREGULAR, 3.0, 0.01)
    numpy = in_process(fmus[2], IRREGULAR, 3.0, tmp_path / "numpy.bin", {"CRANE_COSIM_NATIVE": "0"}).reshape(rows.shape)
    scale = np.abs(rows).max(axis=0)
    assert (np.abs(numpy - rows) <= 1e-12 * np.maximum(scale, 1e-300)).all()


def test_a_different_seed_is_a_different_sea(fmus):
    a, names = record(fmus[2], IRREGULAR, 20.0, 0.1)
    b, _ = record(fmus[2], {**IRREGULAR, "sea_seed": 12}, 20.0, 0.1)
    heave = names.index("heave") + 1
    assert np.corrcoef(a[:, heave], b[:, heave])[0, 1] < 0.9
    assert 0.3 < np.std(a[:, heave]) / np.std(b[:, heave]) < 3.0  # the same sea state


@needs_runtime
def test_a_restored_state_replays_the_same_bits(fmus):
    """FMI 2.0 (fmpy's FMU2Slave): state got and serialized, 100 steps, deserialized and set, the same 100 steps."""
    for version in (2,):
        fmu = FmuInstance(fmus[version], "state")
        fmu.initialize(IRREGULAR)
        names = fmu.outputs
        for _ in range(150):
            fmu.step(0.01)
        blob = fmu.fmu.serializeFMUstate(fmu.fmu.getFMUstate())
        t0, at_t0 = fmu.t, fmu.get(names)
        first = []
        for _ in range(100):
            fmu.step(0.01)
            first.append(fmu.get(names))
        fmu.fmu.setFMUstate(fmu.fmu.deSerializeFMUstate(blob))
        fmu.t = t0
        assert fmu.get(names).tobytes() == at_t0.tobytes()  # the outputs after a restore: the state's own
        again = []
        for _ in range(100):
            fmu.step(0.01)
            again.append(fmu.get(names))
        fmu.close()
        assert np.array(first).tobytes() == np.array(again).tobytes()


def test_a_bad_table_stops_the_build_with_one_line(tmp_path, capsys):
    from crane_models.app.cli import main

    bad = tmp_path / "bad.csv"
    bad.write_text("omega,heading\n1,0\n")
    with pytest.raises(SystemExit) as info:
        main(["build", "--out", str(tmp_path / "out"), "--rao-table", str(bad)])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--rao-table: RAO table" in err and "missing columns" in err
    assert not (tmp_path / "out" / "WaveVessel.fmu").exists()


@pytest.mark.skipif(DEFAULT_TABLE.is_file(), reason="the package has its default RAO table")
def test_without_a_table_the_fmu_says_how_to_give_one(tmp_path):
    from crane_models.models.build import build_fmu

    path = build_fmu("WaveVessel", tmp_path)
    fmu = FmuInstance(path, "no_table", logger=lambda *a: None)
    with pytest.raises(Exception):
        fmu.initialize({})
    assert any("no RAO table" in m and "--rao-table" in m for m in fmu.messages), list(fmu.messages)
