"""Drive the KnuckleBoomCrane FMU from your own FMI 2.0 master loop (fmpy's FMU2Slave) and plot Figs. 7-15
of Cibicik & Egeland (2018).

    python examples/knuckle_boom_cosimulation.py [OUT_DIR]

Everything a co-simulation master does is below, in order: read the model description, instantiate,
set start values in initialization mode, then per communication step set the inputs, ``doStep``, read
the outputs; terminate and free. The crane is luffed, slewed and stretched through the set-point inputs
of its PD controller. Writes ``knuckle_boom_fmu.csv`` (headers with units) and one PNG per paper figure
to OUT_DIR (default ``crane-cosim-out/example``).
"""
import sys
import tempfile
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from crane_models.app.plots import plot_scenario
from crane_models.app.results import write_csv
from crane_models.fmi.build import build_fmu
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting

STEP = 0.01  # communication step [s]


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    fmu_path = build_fmu("KnuckleBoomCrane", out / "fmus")  # as `crane-cosim build` does
    scenario = knuckle_boom_hoisting()  # stop time, input signals (set-points), start values, figures

    # 1. The model description: value references and units by name.
    md = read_model_description(str(fmu_path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    units = {v.name: v.unit or "" for v in md.modelVariables}
    outputs = [v.name for v in md.modelVariables if v.causality == "output" and v.type == "Real"]
    inputs = scenario.input_names  # king_torque, cylinder2_force, cylinder3_force, q1_ref, q2_ref, q3_ref

    # 2. Unpack the FMU (removed at the end: fmpy's extract() alone leaves ~2 MB in $TMPDIR per run), instantiate
    #    and initialize: start values (parameters, initial state) and the inputs at t = 0.
    unpacked = tempfile.TemporaryDirectory(prefix="crane-cosim-example-")
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu_path), unpacked.name),
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="crane")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.setReal([vr[n] for n in scenario.start_values], list(scenario.start_values.values()))
    fmu.setReal([vr[n] for n in inputs], list(scenario.inputs_at(0.0)))
    fmu.exitInitializationMode()

    # 3. The master loop: inputs of t held over [t, t + h], one doStep, outputs at t + h.
    times = np.arange(int(round(scenario.stop_time / STEP)) + 1) * STEP
    rows = [fmu.getReal([vr[n] for n in outputs])]
    for t in times[:-1]:
        fmu.setReal([vr[n] for n in inputs], list(scenario.inputs_at(t)))
        fmu.doStep(currentCommunicationPoint=t, communicationStepSize=STEP)  # raises on Discard/Error
        rows.append(fmu.getReal([vr[n] for n in outputs]))

    # 4. Done: terminate and free the instance, then remove the unpacked FMU.
    fmu.terminate()
    fmu.freeInstance()
    unpacked.cleanup()

    data = np.array(rows)
    result = {"time": times, **{n: data[:, i] for i, n in enumerate(outputs)}}
    print(write_csv(out / "knuckle_boom_fmu.csv", result, ["time"] + outputs, units))
    for path in plot_scenario(scenario, result, None, out, units):
        print(path)
    print(f"joint 1 vertical reaction at the end: {result['joint1_force_z'][-1] / 1e3:.1f} kN")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("crane-cosim-out/example"))
