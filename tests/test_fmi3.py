"""Issue 5, item 7: the same fmu_src slaves exported as FMI 3.0 co-simulation FMUs (pythonfmu3 slaves on the
project's FMI 3.0 runtime, fmi/runtime/fmi3_*.c) run in fmpy and give the FMI 2.0 results (the FMI 2.0
runtime's). Both run the same Python code on the same inputs, so they must agree
to round-off (1e-9 of each output's range)."""
import pytest

pytest.importorskip("pythonfmu3")

from fmpy import read_model_description  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

from crane_models.simulation.runs import max_relative_deviation, output_units, run_fmu  # noqa: E402
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting  # noqa: E402
from crane_models.integration.scenario import Scenario  # noqa: E402
from fmu_helpers import build_fmus  # noqa: E402


@pytest.fixture(scope="module")
def fmi3_fmu(tmp_path_factory):
    from crane_models.models.build import build_fmu

    return build_fmu("KnuckleBoomCrane", tmp_path_factory.mktemp("fmi3"), fmi_version=3)


def test_fmi3_model_description_is_valid(fmi3_fmu):
    assert validate_fmu(str(fmi3_fmu)) == []
    md = read_model_description(str(fmi3_fmu))
    assert md.fmiVersion == "3.0"
    by_name = {v.name: v for v in md.modelVariables}
    assert by_name["joint1_force_z"].unit == "N" and by_name["king_torque"].causality == "input"


def test_fmi3_matches_fmi2(fmi3_fmu, tmp_path_factory):
    fmi2_fmu = build_fmus(tmp_path_factory) / "KnuckleBoomCrane.fmu"
    sc = knuckle_boom_hoisting()
    short = Scenario("short", sc.fmu, 4.0, sc.input_names, sc.signals, sc.start_values)
    r2, _ = run_fmu(fmi2_fmu, short, 0.01)
    r3, _ = run_fmu(fmi3_fmu, short, 0.01)
    names = [n for n in r2.dtype.names if n != "time"]
    dev = max_relative_deviation(r3, r2, names, output_units("KnuckleBoomCrane"))
    worst = max(dev, key=dev.get)
    assert dev[worst] < 1e-9, (worst, dev[worst])
