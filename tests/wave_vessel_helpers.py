"""A synthetic RAO table for the WaveVessel tests (the package's default table is another one's work: the tests
that need it skip until it is there), the WaveVessel FMUs built with it once per test process, and readers."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from crane_models.models.wave_vessel.rao import write_rao_table

# Wave periods of the grid [s]: omega = 2 pi / T exactly as the sea core makes a regular wave's (bit for bit), so a
# regular wave of one of these periods meets a tabulated frequency and the test reads the expected RAO from its row.
PERIODS = (30.0, 20.0, 16.0, 13.0, 11.0, 10.0, 9.0, 8.0, 7.0, 6.0, 5.5, 5.0, 4.5, 4.0, 3.5, 3.0, 2.5)
HEADINGS_DEG = tuple(range(0, 181, 15))  # one side: the reader mirrors it (a hull symmetric about its centre plane)


def synthetic_raos(omega: np.ndarray, heading: np.ndarray) -> np.ndarray:
    """Smooth complex RAOs (6, headings, frequencies) of a made-up hull, every DOF with its own amplitude and phase
    (surge ~ cos beta, sway and roll ~ sin beta, heave a resonance near 0.8 rad/s, pitch ~ cos beta, yaw ~ sin 2 beta)
    -- physics does not matter here, distinct non-zero values do."""
    w = omega[None, :]
    b = heading[:, None]
    resonance = 1.0 / (1.0 - (w / 0.8) ** 2 + 0.3j * w / 0.8)
    k = w * w / 9.81
    return np.array([0.6 * np.cos(b) * np.exp(-w) * np.exp(0.5j),
                     0.5 * np.sin(b) * np.exp(-0.8 * w) * np.exp(-0.7j),
                     resonance * np.exp(-0.3 * w * w) + 0 * b,
                     0.08 * np.sin(b) * resonance * np.exp(1.1j),
                     0.6 * k * np.cos(b) * np.exp(-0.5 * w) * np.exp(-2.0j),
                     0.03 * np.sin(2 * b) * np.exp(-w) * np.exp(2.5j)])


def write_synthetic_table(path: Path) -> Path:
    omega = np.array([2.0 * math.pi / T for T in PERIODS])
    order = np.argsort(omega)
    heading = np.array([math.radians(d) for d in HEADINGS_DEG])
    write_rao_table(path, omega[order], heading, synthetic_raos(omega[order], heading),
                    comment="synthetic RAOs of a made-up hull, for the tests")
    return path


_BUILT: dict = {}


def wave_vessel_fmus(tmp_path_factory) -> dict:
    """{2: WaveVessel.fmu (FMI 2.0), 3: its FMI 3.0 folder's FMU, "table": the synthetic table}, built once per test
    process with the synthetic table, as ``crane-cosim build --rao-table`` builds it."""
    if not _BUILT:
        from crane_models.models.build import build_fmu

        out = tmp_path_factory.mktemp("wave_vessel")
        table = write_synthetic_table(out / "synthetic_rao.csv")
        _BUILT[2] = build_fmu("WaveVessel", out / "fmi2", 2, rao_table=table)
        _BUILT[3] = build_fmu("WaveVessel", out / "fmi3", 3, rao_table=table)
        _BUILT["table"] = table
    return _BUILT


def build_sea_system(out_dir: Path, system: str) -> Path:
    """The FMUs of a system of ``SEA_SYSTEMS`` (the package's RAO table) and every system file, into ``out_dir``."""
    from crane_models.models.build import build_fmu, write_system_files
    from crane_models.models.sea_systems import SEA_SYSTEMS

    for fmu in sorted({fmu for fmu, _ in SEA_SYSTEMS[system].values()}):
        build_fmu(fmu, out_dir)
    write_system_files(out_dir)
    return out_dir
