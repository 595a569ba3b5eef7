"""Ship co-simulation (issue 12): real-time factor of KnuckleBoomCraneOnMovingBase against KnuckleBoomCrane in the
same run, and where the time of a step goes.

Both FMUs run the 20 s hoisting sequence under ``fmpy.simulate_fmu`` at 10 ms (the moving-base one on the
at-sea base motion of ``knuckle_boom_at_sea``), alternately ``ROUNDS`` times after an untimed warm-up; the ratio
is taken per round (the machine is shared: a ratio from one round is the figure, the median over rounds the
summary). Target: ratio >= 0.8.

    python benchmarks/bench_ship.py
"""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib import per_call, print_table  # noqa: E402

ROUNDS = 5


def evaluation_costs() -> list:
    """Cost of one state derivative and of the outputs, called from Python, for both models."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomModel
    from crane_models.models.knuckle_boom.moving_base import KnuckleBoomOnMovingBaseModel
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea

    fixed, moving = KnuckleBoomModel(), KnuckleBoomOnMovingBaseModel()
    w_fixed = np.array([0.0, 0.0, 0.0, 0.1, 0.7, 0.6])
    w_moving = knuckle_boom_at_sea().inputs_at(1.3)
    x_fixed = np.array([0.1, 0.7, 0.6, 0.1, 0.05, -0.02])
    x_moving = moving.impose_inputs(np.concatenate((x_fixed[:3], np.zeros(6), x_fixed[3:], np.zeros(6))), w_moving)
    rows = []
    for name, model, x, w in (("KnuckleBoomCrane", fixed, x_fixed, w_fixed),
                              ("KnuckleBoomCraneOnMovingBase", moving, x_moving, w_moving)):
        _, aux = model.derivative(0.0, x, w)
        rows.append((f"{name}: one evaluation from Python", "-", f"{per_call(lambda: model.derivative(0.0, x, w)) * 1e6:.1f} us"))
        rows.append((f"{name}: outputs", "-", f"{per_call(lambda: model.outputs(0.0, x, w, aux), 500) * 1e6:.1f} us"))
    return rows


def main() -> int:
    from crane_models.fmi.build import build_fmu
    from crane_models.models.knuckle_boom.scenarios import knuckle_boom_at_sea, knuckle_boom_hoisting
    from crane_models.simulation.runs import run_fmu

    fixed_sc, moving_sc = knuckle_boom_hoisting(), knuckle_boom_at_sea()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fixed = build_fmu("KnuckleBoomCrane", tmp)
        moving = build_fmu("KnuckleBoomCraneOnMovingBase", tmp)
        run_fmu(fixed, fixed_sc, 0.01, warm_up=True)
        run_fmu(moving, moving_sc, 0.01, warm_up=True)
        ratios, rows = [], []
        for r in range(ROUNDS):
            _, wall_fixed = run_fmu(fixed, fixed_sc, 0.01)
            _, wall_moving = run_fmu(moving, moving_sc, 0.01)
            rtf_fixed, rtf_moving = fixed_sc.stop_time / wall_fixed, moving_sc.stop_time / wall_moving
            ratios.append(rtf_moving / rtf_fixed)
            rows.append((f"round {r + 1}: RTF KnuckleBoomCrane / OnMovingBase / ratio", "10 ms",
                         f"{rtf_fixed:.1f} / {rtf_moving:.1f} / {ratios[-1]:.2f}"))
        rows.append(("median ratio OnMovingBase / KnuckleBoomCrane (target >= 0.8)", "10 ms",
                     f"{statistics.median(ratios):.2f}"))
    rows += evaluation_costs()
    print_table(rows, width=66)
    return 0


if __name__ == "__main__":
    sys.exit(main())
