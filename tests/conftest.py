"""While the package has no default RAO table of its own (models/wave_vessel/data/default_rao.csv, computed
elsewhere), the WaveVessel's in-process spec reads the tests' synthetic table instead, the same one the every-FMU
builds carry (fmu_helpers.every_fmu_table): the tests that run every FMU run the WaveVessel too. With the default
table in the package this changes nothing."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def wave_vessel_table(tmp_path_factory):
    from crane_models.models.wave_vessel import spec

    if spec.DEFAULT_TABLE.is_file():
        yield spec.DEFAULT_TABLE
        return
    from wave_vessel_helpers import write_synthetic_table

    original = spec.DEFAULT_TABLE
    spec.DEFAULT_TABLE = write_synthetic_table(tmp_path_factory.mktemp("rao") / "synthetic_rao.csv")
    yield spec.DEFAULT_TABLE
    spec.DEFAULT_TABLE = original
