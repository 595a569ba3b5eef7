"""Drive KnuckleBoomCraneOnMovingBase from your own vessel FMU in libcosim (OSP).

Your ship simulator knows its hull frame and its motion at its own reference point; the crane FMU accepts exactly
that (docs/ship-cosimulation.md): set ``z_down`` (NED-style axes), ``mount_x/y/z`` (where the crane base sits,
from your reference point, in your hull frame) and ``mount_heading``; connect your attitude (roll, pitch, yaw
with R = Rz Ry Rx), angular velocity and acceleration (hull axes) and the acceleration (and velocity) of your
reference point (hull axes, gravity *not* included) to the crane's inputs; apply the crane's
``interface_force_predicted_*`` / ``interface_moment_predicted_*`` to your hull at ``point_of_attack_*`` -- the
crane's wrench averaged over its last step and extrapolated to the coming one, what an engine that holds a value over
a step should hand your hull (the end-of-step ``interface_force_*`` held so is the wrong impulse: docs/ship-
cosimulation.md, "What a ship engineer gets"); ``interface_*_mean_*`` if your simulator extrapolates its inputs itself.

This script writes an OspSystemStructure.xml with plain variable connections from a name map -- edit ``VESSEL``
and ``NAMES`` for your FMU. As it stands it uses our own Vessel.fmu as the stand-in "user FMU" (identity map),
runs 5 s in libcosim and prints the vessel roll and the heave load.

    crane-cosim build --out fmus && python examples/replace_vessel_fmu.py fmus
"""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

VESSEL = "Vessel"  # your FMU's file name without .fmu
VESSEL_PARAMETERS = {"l1": 17.0, "d1": 1.0, "m1": 3.0e6, "k1": 0.0, "k2": 0.0, "k3": 1.3e9}  # start values of yours
CRANE_PARAMETERS = {"z_down": False, "mount_x": 0.0, "mount_y": 0.0, "mount_z": 0.0, "mount_heading": 0.0}
# names of your vessel's variables -> the crane's: its motion outputs -> the crane's inputs, its wrench inputs <- the crane's outputs
MOTION = ["roll", "pitch", "yaw"] + [f"{q}_{a}" for q in ("angular_velocity", "angular_acceleration",
                                                         "base_acceleration", "base_velocity") for a in "xyz"]
LOAD = [f"interface_{k}_{a}" for k in ("force", "moment") for a in "xyz"]  # your vessel's wrench inputs
# your vessel's input -> the crane's output: the predicted step mean (mean_wrench_outputs, on by default, computes it)
NAMES = {"motion": {name: name for name in MOTION},
         "load": {name: name.replace("force_", "force_predicted_").replace("moment_", "moment_predicted_")
                  for name in LOAD}}


def system_structure(step: float = 0.01) -> str:
    ns = "http://opensimulationplatform.com/MSMI/OSPSystemStructure"
    root = ET.Element("OspSystemStructure", xmlns=ns, version="0.1")
    ET.SubElement(root, "StartTime").text = "0.0"
    ET.SubElement(root, "BaseStepSize").text = repr(step)
    ET.SubElement(root, "Algorithm").text = "fixedStep"
    sims = ET.SubElement(root, "Simulators")
    for name, fmu, values in (("vessel", VESSEL, VESSEL_PARAMETERS), ("crane", "KnuckleBoomCraneOnMovingBase",
                                                                        CRANE_PARAMETERS)):
        sim = ET.SubElement(sims, "Simulator", name=name, source=f"{fmu}.fmu", stepSize=repr(step))
        init = ET.SubElement(sim, "InitialValues")
        for var, value in values.items():
            kind = "Boolean" if isinstance(value, bool) else "Real"
            text = str(value).lower() if isinstance(value, bool) else repr(float(value))
            ET.SubElement(ET.SubElement(init, "InitialValue", variable=var), kind, value=text)
    conns = ET.SubElement(root, "Connections")
    for (src, dst, mapping) in (("vessel", "crane", NAMES["motion"]), ("crane", "vessel", NAMES["load"])):
        for out_name, in_name in mapping.items():
            c = ET.SubElement(conns, "VariableConnection")
            ET.SubElement(c, "Variable", simulator=src, name=out_name if src == "vessel" else in_name)
            ET.SubElement(c, "Variable", simulator=dst, name=in_name if src == "vessel" else out_name)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def main(fmu_dir: Path) -> None:
    from fmpy import read_model_description
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    log_output_level(CosimLogLevel.ERROR)
    path = fmu_dir / "MyVessel_OspSystemStructure.xml"
    path.write_text(system_structure())
    execution = CosimExecution.from_osp_config_file(str(path))
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer)
    vessel, crane = (execution.slave_index_from_instance_name(n) for n in ("vessel", "crane"))
    vr = {v.name: v.valueReference for v in read_model_description(str(fmu_dir / f"{VESSEL}.fmu")).modelVariables}
    vr_crane = {v.name: v.valueReference
                for v in read_model_description(str(fmu_dir / "KnuckleBoomCraneOnMovingBase.fmu")).modelVariables}
    for k in range(1, 501):
        execution.step(1)
        if k % 100 == 0:
            roll = observer.last_real_values(vessel, [vr["roll"]])[0]
            heave = observer.last_real_values(crane, [vr_crane["interface_force_z"]])[0]
            print(f"t = {k * 0.01:4.1f} s  roll = {roll:+.4f} rad  load on the vessel f_z = {heave:.4g} N")
    execution.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("fmus"))
