"""OSP system structures for libcosim's energy-conserving co-simulation algorithm (ECCO, Sadjina & Pedersen 2020,
"Energy conservation and coupling error reduction in non-iterative co-simulations").

ECCO is the fixed-step exchange (every simulator steps with the inputs held from the last exchange) with an
adaptive step: after each step it compares, at every *power bond*, the power each side computes from the values it
holds (its input times its output) and sets the next step from that energy residual by a PI controller. What the
files say, as libcosim 0.11 (libcosimpy 0.0.6) reads them:

* ``<Algorithm>ecco</Algorithm>`` and, after ``Connections``, an ``EccoConfiguration`` with the controller's ten
  parameters (:class:`EccoSettings`; every one required, in any order).
* A power bond is a pair of plain ``VariableConnection`` s that carry the same ``powerBond`` name: one the effort
  (a force from the side that computes it to the side that takes it), one the flow (the velocity back). Each
  ``Variable`` of a bond names its ``causality`` (``output`` for the source, ``input`` for the target); one bond is
  one scalar force and one scalar velocity, so a 3-D mechanical port is three bonds. (libcosim's unreleased
  rework of ECCO takes the causality from the model descriptions and drops the attribute from its schema.)
* The residual libcosim computes per bond and step: ``|u_a y_a - u_b y_b|`` h, each side's held input times its new
  output. The controller's error estimate is that residual over ``AbsoluteTolerance + RelativeTolerance x`` (the
  largest residual of the step), root mean square over the bonds; the step follows
  ``h SafetyFactor e^-(I+P) e_prev^P``, the factor clamped to ``[MinimumChangeRate, MaximumChangeRate]`` and the
  step to ``[MinimumStepSize, MaximumStepSize]``. ``RelativeTolerance`` is relative to the residual itself, not to
  the power carried: ``AbsoluteTolerance`` [J] is what sets the step.
* Every other connection of the pair is a plain ``VariableConnection`` without ``powerBond``.

The bonds of the vessel-crane interface come from the mechanical ports of :func:`.osp.interface_ports`
(:func:`port_bonds`: ``interface_linear_port_x`` … ``interface_angular_port_z``); which of them a file carries is
the caller's choice, and so are the connections (the project passes the wiring of its fixed-step system structures
and SSP packages, :func:`.osp.variable_connections`).
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, fields
from pathlib import Path

from .osp import SS_NAMESPACE, _text, interface_ports

__all__ = ["EccoSettings", "ECCO_ELEMENTS", "port_bonds", "ecco_connections", "ecco_system_structure",
           "ecco_file_name", "write_ecco_files"]


@dataclass(frozen=True)
class EccoSettings:
    """The ECCO controller's parameters (libcosim's ``ecco_algorithm_params``); steps in s, tolerances in J."""
    step_size: float = 0.01           # the first step
    min_step_size: float = 1e-4
    max_step_size: float = 0.01
    safety_factor: float = 0.8
    min_change_rate: float = 0.2      # bounds of the factor applied to the step at each adjustment
    max_change_rate: float = 1.5
    p_gain: float = 0.2               # the PI controller's gains on the error estimate
    i_gain: float = 0.15
    abs_tolerance: float = 1e-4       # energy residual per bond and step that the controller aims at [J]
    rel_tolerance: float = 1e-4


# EccoSettings field -> element of EccoConfiguration
ECCO_ELEMENTS = {"safety_factor": "SafetyFactor", "step_size": "StepSize", "min_step_size": "MinimumStepSize",
                 "max_step_size": "MaximumStepSize", "min_change_rate": "MinimumChangeRate",
                 "max_change_rate": "MaximumChangeRate", "p_gain": "ProportionalGain", "i_gain": "IntegralGain",
                 "rel_tolerance": "RelativeTolerance", "abs_tolerance": "AbsoluteTolerance"}


def port_bonds() -> dict:
    """Every scalar power bond of the interface's mechanical ports: ``{bond name: (effort variable, flow
    variable)}``, the port's effort and flow component by component (``interface_linear_port_x``:
    ``interface_force_x`` with ``base_velocity_x``)."""
    bonds = {}
    for group, (_, content) in interface_ports("point").items():  # the vessel's names: a bond finds its connection by
        (_, efforts), (_, flows) = content                         # either end, whichever wrench the crane hands over
        for effort, flow in zip(efforts, flows):
            bonds[f"{group}{effort[effort.rindex('_'):]}"] = (effort, flow)
    return bonds


def ecco_connections(connections: list, bonds: dict) -> list:
    """``(from simulator, variable, to simulator, variable, bond or None)`` for each of ``connections`` (as
    :func:`.osp.variable_connections` gives them): the connection that carries a bond's effort or flow variable (at
    either end) gets the bond's name. Each bond must find exactly its two connections."""
    owner = {var: name for name, pair in bonds.items() for var in pair}
    out, found = [], {name: [] for name in bonds}
    for a, va, b, vb in connections:
        names = {owner[v] for v in (va, vb) if v in owner}
        if len(names) > 1:
            raise ValueError(f"{a}.{va} -> {b}.{vb} carries variables of the bonds {sorted(names)}")
        name = names.pop() if names else None
        if name:
            found[name].append((a, va, b, vb))
        out.append((a, va, b, vb, name))
    for name, conns in found.items():
        if len(conns) != 2 or {c[0] for c in conns} != {c[2] for c in conns}:
            raise ValueError(f"power bond {name}: needs one connection each way between two simulators, has {conns}")
    return out


def ecco_system_structure(simulators: dict, connections: list, bonds: dict, settings: EccoSettings = EccoSettings(),
                          initial_values: dict | None = None) -> str:
    """A pair for ECCO: ``simulators`` ``{name: (FMU, initial values)}``, ``connections`` as
    :func:`.osp.variable_connections` gives them, ``bonds`` ``{name: (effort variable, flow variable)}``."""
    root = ET.Element("OspSystemStructure", xmlns=SS_NAMESPACE, version="0.1")
    ET.SubElement(root, "StartTime").text = "0.0"
    ET.SubElement(root, "BaseStepSize").text = repr(float(settings.step_size))
    ET.SubElement(root, "Algorithm").text = "ecco"
    sims = ET.SubElement(root, "Simulators")
    for name, (fmu, values) in simulators.items():
        sim = ET.SubElement(sims, "Simulator", name=name, source=f"{fmu}.fmu")
        values = {**values, **(initial_values or {}).get(name, {})}
        if values:
            init = ET.SubElement(sim, "InitialValues")
            for var, value in values.items():
                ET.SubElement(ET.SubElement(init, "InitialValue", variable=var), "Real", value=repr(float(value)))
    conns = ET.SubElement(root, "Connections")
    for a, va, b, vb, bond in ecco_connections(connections, bonds):
        c = ET.SubElement(conns, "VariableConnection", **({"powerBond": bond} if bond else {}))
        for sim, var, causality in ((a, va, "output"), (b, vb, "input")):
            ET.SubElement(c, "Variable", simulator=sim, name=var, **({"causality": causality} if bond else {}))
    config = ET.SubElement(root, "EccoConfiguration")
    for f in fields(settings):
        ET.SubElement(config, ECCO_ELEMENTS[f.name]).text = repr(float(getattr(settings, f.name)))
    return _text(root)


def ecco_file_name(fixed_step_file: str) -> str:
    """``OspSystemStructure.xml`` -> ``Ecco_OspSystemStructure.xml``; ``X_OspSystemStructure.xml`` ->
    ``X_Ecco_OspSystemStructure.xml``: the ECCO variant of a fixed-step system structure, beside it."""
    head, sep, tail = fixed_step_file.rpartition("OspSystemStructure.xml")
    if not sep or tail:
        raise ValueError(f"{fixed_step_file}: not a system structure's name")
    return f"{head}Ecco_OspSystemStructure.xml"


def write_ecco_files(out_dir: Path, pairs: dict, connections) -> list:
    """The ECCO variant of every pair of ``pairs`` (``{fixed-step file name: (simulators, bonds, EccoSettings)}``,
    ``simulators`` ``{name: (FMU, initial values)}``, ``bonds`` the power bonds the file carries as
    ``{name: (effort variable, flow variable)}``) into ``out_dir`` under :func:`ecco_file_name`; ``connections``
    gives a pair's connections from its simulators (as :func:`.osp.variable_connections` does)."""
    paths = []
    for file_name, (simulators, bonds, settings) in pairs.items():
        path = Path(out_dir) / ecco_file_name(file_name)
        path.write_text(ecco_system_structure(simulators, connections(simulators), bonds, settings))
        paths.append(path)
    return paths
