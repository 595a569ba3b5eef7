"""One SSP parameter set for a whole system (crane_models/fmi/ssp.py ``system_parameters``, models/sea_systems.py
``system_set_values``, app/run_ssp.py): issue 36's "an SSP parameter set carrying them once for a whole system".

Each engine read here applies one set per component, so a system-wide set is bound to every component and holds
names some component lacks; what each component gets is what it has, and a name no component has is refused."""
from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest

from crane_models.app.cli import main
from crane_models.fmi.ssp import SspComponent, system_parameters, write_ssp
from wave_vessel_helpers import build_sea_system
from crane_models.models.registry import SPECS
from crane_models.models.at_sea import SEA_PARAMETER_NAMES
from crane_models.models.sea_systems import DEMO_SEA, KNUCKLE_BOOM_MOUNT, SEA_SYSTEMS, system_set_values

SYSTEM = "KnuckleBoomOnWaveVessel"
SPEC = {c: SPECS[fmu]() for c, (fmu, _) in SEA_SYSTEMS[SYSTEM].items()}


def test_the_system_set_is_the_sea_once_at_the_systems_values_and_the_mount():
    values = system_set_values(SYSTEM, SEA_SYSTEMS[SYSTEM], SPECS)
    start = {p.name: p.start for p in SPEC["vessel"].parameters}
    sea = [n for n in values if n.startswith("sea_") or n == "water_depth"]
    assert len(sea) == len(SEA_PARAMETER_NAMES) and set(sea) == set(SEA_PARAMETER_NAMES)
    assert {n: values[n] for n in sea} == {**{n: start[n] for n in sea}, **DEMO_SEA}
    assert {n: values[n] for n in KNUCKLE_BOOM_MOUNT} == KNUCKLE_BOOM_MOUNT


def test_a_name_two_components_set_differently_cannot_be_in_one_set():
    members = {"vessel": ("WaveVessel", {"sea_hs": 2.5}), "crane": ("KnuckleBoomCraneOnMovingBase", {"sea_hs": 3.0})}
    with pytest.raises(ValueError, match="sea_hs is 2.5 on vessel and 3.0 on crane"):
        system_set_values("S", members, SPECS)


def test_system_parameters_are_typed_by_the_components_that_have_them():
    params = {p.name: p for p in system_parameters(SYSTEM, SPEC, {"sea_seed": 7, "mount_x": -40.0, "sea_hs": 2.0})}
    assert (params["sea_seed"].type, params["mount_x"].type, params["mount_x"].unit) == ("Integer", "Real", "m")
    with pytest.raises(ValueError, match="system parameter sea_hz is a variable of no component"):
        system_parameters(SYSTEM, SPEC, {"sea_hz": 2.0})


def test_a_package_takes_a_system_set_or_own_sets_not_both(tmp_path):
    fmu = tmp_path / "a.fmu"
    fmu.write_bytes(b"")
    own = SspComponent("a", fmu, [], system_parameters(SYSTEM, SPEC, {"sea_hs": 1.0}))
    with pytest.raises(ValueError, match="a system-wide parameter set and a component's own set"):
        write_ssp(tmp_path / "x.ssp", "x", [own], [], {}, 0.0, 1.0, 0.01, system_parameters(SYSTEM, SPEC, {}))


@pytest.fixture(scope="module")
def fmu_dir(tmp_path_factory) -> Path:
    return build_sea_system(tmp_path_factory.mktemp("system_set"), SYSTEM)


def test_crane_cosim_run_gives_each_component_the_names_it_has(fmu_dir, tmp_path):
    pytest.importorskip("libcosimpy.CosimExecution", reason="needs libcosimpy (the libcosim extra)")
    out = tmp_path / "sea.csv"
    assert main(["run", str(fmu_dir / f"{SYSTEM}.ssp"), "--stop", "0.05", "--out", str(out), "--quiet"]) == 0
    parameters = {c: v["parameters"] for c, v in json.loads(out.with_suffix(".csv.json").read_text())["components"].items()}
    assert parameters["crane"]["mount_x"] == KNUCKLE_BOOM_MOUNT["mount_x"] and "mount_x" not in parameters["vessel"]
    assert parameters["vessel"]["sea_heading"] == parameters["crane"]["sea_heading"] == DEMO_SEA["sea_heading"]
    assert math.isclose(parameters["vessel"]["sea_hs"], DEMO_SEA["sea_hs"])


def test_crane_cosim_run_refuses_a_set_name_of_no_component(fmu_dir, tmp_path, capsys):
    """A typo in the shared set (sea_hz for sea_hs) would otherwise be skipped by every component: one line."""
    package = tmp_path / "typo.ssp"
    with zipfile.ZipFile(fmu_dir / f"{SYSTEM}.ssp") as src, zipfile.ZipFile(package, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith(".ssv"):
                data = data.replace(b'name="sea_hs"', b'name="sea_hz"')
            dst.writestr(item, data)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(package), "--stop", "0.05", "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the command's usage line, as every CLI error
    assert exit_info.value.code == 2 and "sea_hz" in err and "no component" in err and "typo.ssp" in err, err
    assert not (tmp_path / "x.csv").exists()
