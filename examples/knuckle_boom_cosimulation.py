"""Drive the KnuckleBoomCrane FMU from your own FMI master loop and plot the paper's Figs. 7-15.

    python examples/knuckle_boom_cosimulation.py [OUT_DIR]

Builds the FMU (as ``crane-cosim build`` does), runs the hoisting scenario with ``fmpy.fmi2.FMU2Slave``
(set inputs -> doStep -> get outputs, 10 ms communication step), and writes one PNG per paper figure
plus a CSV to OUT_DIR (default ``crane-cosim-out/example``).
"""
import sys
from pathlib import Path

from crane_cosim_build.build_fmus import build_fmu
from crane_models.simulation.runs import run_fmu_manual, run_standalone
from crane_models.app.demo import plot_scenario, write_csv
from crane_models.models.knuckle_boom.scenarios import knuckle_boom_hoisting


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    fmu = build_fmu("KnuckleBoomCrane", out / "fmus")
    scenario = knuckle_boom_hoisting()
    result = run_fmu_manual(fmu, scenario, step=0.01)
    reference = run_standalone(scenario, step=0.01)
    write_csv(out / "knuckle_boom_fmu.csv", result, list(result))
    for path in plot_scenario(scenario, result, reference, out):
        print(path)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("crane-cosim-out/example"))
