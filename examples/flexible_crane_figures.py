"""Figs. 6-8 of Jarzębowska, Urbaś & Augustynek (2019) with the FlexibleCrane model (standalone stepper:
the FMU's own default, the automatic choice -- DOP853 for these undamped cranes -- at rtol 1e-7, atol 1e-9, in
the compiled kernel):

* Fig. 6: rigid links, no friction vs Dahl vs LuGre -- joint coordinates, z_E and the E trajectory;
* Fig. 7: flexible link (4 elements), the same three friction cases;
* Fig. 8: rigid links, LuGre, support stiffness s_z = 1e7, 1e6, 1e5 N/m -- joint coordinates and base motion.

    python examples/flexible_crane_figures.py [OUT_DIR] [--stop 10] [--flexible-stop 2]

The flexible cases are the slow ones (explicit integration of element modes at ~4.8e3 rad/s): by default
they cover 2 s; --flexible-stop 10 gives the paper's full run (about a minute: 64 s in the measurement of issue 13).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def run(values: dict, stop: float, step: float = 0.01) -> dict:
    from crane_models.models.flexible_crane.spec import build_model
    from crane_models.simulation.cosimulation import CoSimulation

    model, x0, opts = build_model(values)
    sim = CoSimulation(model, x0, **opts)
    rows = [sim.outputs()]
    for _ in range(int(round(stop / step))):
        sim.step(step)
        rows.append(sim.outputs())
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    out["time"] = np.arange(len(rows)) * step
    return out


def plot(cases: dict, title: str, path: Path, base: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [("q_c1", "ψ(c,1) [rad]"), ("q_c2", "ψ(c,2,0) [rad]"), ("q_c3", "ψ(c,3) [rad]")]
    keys += [("z_b", "z(b) [m]"), ("theta_b", "θ(b) [rad]"), ("phi_b", "φ(b) [rad]")] if base else [("tip_z", "z_E [m]")]
    fig, axes = plt.subplots(2, 3 if base else 3, figsize=(12, 6))
    axes = axes.ravel()
    for ax, (k, label) in zip(axes, keys):
        for name, out in cases.items():
            ax.plot(out["time"], out[k], label=name)
        ax.set_xlabel("t [s]")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    if not base:
        ax = axes[len(keys)]
        for name, out in cases.items():
            ax.plot(out["tip_x"], out["tip_y"], label=name)
        th = np.linspace(0, 2 * np.pi, 200)
        ax.plot(3 * np.cos(th), 2 * np.sin(th), "k:", label="ellipse (17.1)")
        ax.set_xlabel("x_E [m]")
        ax.set_ylabel("y_E [m]")
        ax.set_aspect("equal")
        for a in axes[len(keys) + 1:]:
            a.axis("off")
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default="crane-cosim-out/flexible_crane_figures")
    ap.add_argument("--stop", type=float, default=10.0)
    ap.add_argument("--flexible-stop", type=float, default=2.0)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    friction = {"no friction": 0, "Dahl": 1, "LuGre": 2}
    fig6 = {k: run({"n_rfe": 1, "friction_model": v}, args.stop) for k, v in friction.items()}
    plot(fig6, "Fig. 6: rigid links", out / "fig6_rigid_friction.png")
    fig7 = {k: run({"n_rfe": 4, "friction_model": v}, args.flexible_stop) for k, v in friction.items()}
    plot(fig7, "Fig. 7: flexible link (4 elements)", out / "fig7_flexible_friction.png")
    fig8 = {f"s_z = {s:g} N/m": run({"n_rfe": 1, "friction_model": 2, "s_z": s}, args.stop) for s in (1e7, 1e6, 1e5)}
    plot(fig8, "Fig. 8: rigid links, LuGre, support stiffness", out / "fig8_support_stiffness.png", base=True)
    print(f"figures in {out.resolve()}")


if __name__ == "__main__":
    main()
