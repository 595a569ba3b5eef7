"""Open Simulation Platform files for the split vessel crane, generated from the FMU specs.

* ``<FMU>_OspModelDescription.xml`` (OSP interface specification, OSP-IS 1.0): the interface variables of
  ``Vessel`` and ``CraneOnMovingBase`` as typed variable groups -- an angular mechanical port (torque,
  angular velocity) and a linear mechanical port (force, linear velocity) at the crane base, and the
  kinematic quantities the crane needs besides (orientation, angular acceleration, base-point
  acceleration) as generic groups, since OSP-IS has no acceleration types. libcosim finds the file
  next to the FMU by this name.
* ``OspSystemStructure.xml``: both simulators and the connections vessel motion → crane, crane wrench →
  vessel, as plain variable connections (what every OSP tool reads), fixed-step algorithm.

``crane-cosim build`` writes them beside the FMUs (``build_scripts/build_fmus.py``).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from ..models.vessel_crane.split import BASE_VELOCITY, MOTION, WRENCH

__all__ = ["variable_groups", "osp_model_description", "osp_system_structure", "write_osp_files", "CONNECTIONS",
           "SIMULATORS"]

MD_NAMESPACE = "https://open-simulation-platform.com/OspModelDescription/1.0.0"
SS_NAMESPACE = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"

SIMULATORS = {"vessel": "Vessel", "crane": "CraneOnMovingBase"}


def _names(table, prefix: str) -> list:
    return [n for n, _, _ in table if n.startswith(prefix)]


def variable_groups() -> list:
    """``(kind, name, [(sub-kind, sub-name, variables)] or variables)`` -- the same for both FMUs, whose
    interface variables carry the same names (outputs on one side, inputs on the other)."""
    return [
        ("AngularMechanicalPort", "interface_angular_port",
         [("Torque", "interface_moment", _names(WRENCH, "interface_moment")),
          ("AngularVelocity", "angular_velocity", _names(MOTION, "angular_velocity"))]),
        ("LinearMechanicalPort", "interface_linear_port",
         [("Force", "interface_force", _names(WRENCH, "interface_force")),
          ("LinearVelocity", "base_velocity", _names(BASE_VELOCITY, "base_velocity"))]),
        ("Generic", "orientation", ["roll", "pitch", "yaw"]),
        ("Generic", "angular_acceleration", _names(MOTION, "angular_acceleration")),
        ("Generic", "base_acceleration", _names(MOTION, "base_acceleration")),
    ]


def _add_variables(parent: ET.Element, names: list) -> None:
    for n in names:
        ET.SubElement(parent, "Variable", ref=n)


def osp_model_description() -> str:
    root = ET.Element("OspModelDescription", xmlns=MD_NAMESPACE, version="1.0")
    groups = ET.SubElement(root, "VariableGroups")
    for kind, name, content in variable_groups():
        group = ET.SubElement(groups, kind, name=name)
        if kind == "Generic":
            _add_variables(group, content)
            continue
        for sub_kind, sub_name, names in content:
            _add_variables(ET.SubElement(group, sub_kind, name=sub_name), names)
    return _text(root)


def _text(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# (from simulator, to simulator, variable): output → input of the same name.
CONNECTIONS = ([("vessel", "crane", n) for n, _, _ in tuple(MOTION) + tuple(BASE_VELOCITY)]
               + [("crane", "vessel", n) for n, _, _ in WRENCH])


def osp_system_structure(step: float = 0.01, initial_values: dict | None = None) -> str:
    """The coupled pair; ``initial_values`` is ``{simulator: {variable: value}}``."""
    root = ET.Element("OspSystemStructure", xmlns=SS_NAMESPACE, version="0.1")
    ET.SubElement(root, "StartTime").text = "0.0"
    ET.SubElement(root, "BaseStepSize").text = repr(float(step))
    ET.SubElement(root, "Algorithm").text = "fixedStep"
    sims = ET.SubElement(root, "Simulators")
    for name, fmu in SIMULATORS.items():
        sim = ET.SubElement(sims, "Simulator", name=name, source=f"{fmu}.fmu", stepSize=repr(float(step)))
        values = (initial_values or {}).get(name)
        if values:
            init = ET.SubElement(sim, "InitialValues")
            for var, value in values.items():
                ET.SubElement(ET.SubElement(init, "InitialValue", variable=var), "Real", value=repr(float(value)))
    conns = ET.SubElement(root, "Connections")
    for src, dst, var in CONNECTIONS:
        c = ET.SubElement(conns, "VariableConnection")
        ET.SubElement(c, "Variable", simulator=src, name=var)
        ET.SubElement(c, "Variable", simulator=dst, name=var)
    return _text(root)


def write_osp_files(out_dir: Path, step: float = 0.01) -> list:
    """Write both model descriptions and the system structure into ``out_dir`` (next to the FMUs)."""
    out_dir = Path(out_dir)
    paths = [out_dir / f"{fmu}_OspModelDescription.xml" for fmu in SIMULATORS.values()]
    for p in paths:
        p.write_text(osp_model_description())
    structure = out_dir / "OspSystemStructure.xml"
    structure.write_text(osp_system_structure(step))
    return paths + [structure]
