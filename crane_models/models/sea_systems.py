"""Systems of a crane on the ``WaveVessel`` in a sea, for ship co-simulation engines: one source for every system file
written of them (OSP system structure, SSP package). A module of the models floor, beside the model packages, since
a system joins two of them (none imports another).

The coupling is one way: the WaveVessel's motion outputs carry the moving-base crane's motion inputs by name (and
``base_position_*`` where the crane takes them: its payload's place against the water); the RAO vessel does not feel
the crane (docs/sea.md, its limits). There is no algebraic loop and no wrench to average: the engine's zero-order
hold of the vessel's motion over a step is the only coupling error (first order in the step).

:data:`KNUCKLE_BOOM_MOUNT` (not from the papers): the 36 t knuckle boom crane on the deck of the default RAO table's
vessel (a 120 m x 25 m construction vessel, reference point O midship on the centreline at the mean waterline):
aft on the starboard side, 40 m aft of midship and 9 m to starboard, its base on a 7 m pedestal on the deck, which is
3 m above the waterline (the crane base 10 m above O; the demo lift's deck, ``deck_height`` -7 m, is then the vessel's
deck), its zero slew pointing **forward** along the deck (the knuckle boom lies along its base's y at zero slew, which
the heading -π/2 turns to the bow; a slew of -π/2 puts it over the starboard side, as the splash-zone lift does,
analysis/splash_lift.py). Without its payload: the crane (gravity
compensated) then starts at rest at its set-points, so in still water the system stays at rest from its first step (a
payload on the wire would sag the booms by its weight, which the compensation leaves out); a lift with the payload
in the sea is the splash-zone demo's."""
from __future__ import annotations

import math

from .at_sea import SEA_PARAMETER_NAMES

__all__ = ["SEA_SYSTEMS", "KNUCKLE_BOOM_MOUNT", "DEMO_SEA", "sea_connections", "sea_osp_file", "with_sea",
           "system_set_values"]

KNUCKLE_BOOM_MOUNT = {"mount_x": -40.0, "mount_y": -9.0, "mount_z": 10.0, "mount_heading": -math.pi / 2}
# The sea of the shipped systems (its parameters on every component that has them): Hs 2.5 m, Tp 8 s JONSWAP,
# waves from 30 degrees off the starboard bow (travelling towards 150 degrees: heading 5π/6 -- roll and pitch both),
# long-crested, built up from rest over the first 10 s (sea_build_up: without it the vessel starts in mid-wave and the
# crane's interface_force_z swings as much in the first 2 s as in the waves after; 10 s is 1.25 Tp, so the
# envelope's rate ė <= 1.875/T = 0.19 1/s stays a quarter of the peak frequency: the sea grows over whole waves);
# the rest at SeaState's defaults. Statistics of a run in it are to be taken after 10 s.
DEMO_SEA = {"sea_spectrum": 1, "sea_hs": 2.5, "sea_tp": 8.0, "sea_heading": 5.0 * math.pi / 6.0, "sea_build_up": 10.0}

# system -> {component: (FMU, parameter values beyond the FMU's start values)}
SEA_SYSTEMS = {
    "KnuckleBoomOnWaveVessel": {
        "vessel": ("WaveVessel", dict(DEMO_SEA)),
        "crane": ("KnuckleBoomCraneOnMovingBase", dict(KNUCKLE_BOOM_MOUNT)),
    },
}


def sea_osp_file(system: str) -> str:
    """The OSP system structure file of a system of :data:`SEA_SYSTEMS`."""
    return f"{system}_OspSystemStructure.xml"


def sea_connections(members: dict, specs: dict) -> list:
    """``(from component, variable, to component, variable)``: every output of one component that is an input of
    another of the same name (``members``: ``{component: (FMU, values)}``; ``specs``: ``{FMU: spec factory}``)."""
    spec = {name: specs[fmu]() for name, (fmu, _) in members.items()}
    outputs = {name: [v.name for v in sp.outputs] for name, sp in spec.items()}
    inputs = {name: {v.name for v in sp.inputs} for name, sp in spec.items()}
    return [(a, var, b, var) for a in spec for b in spec if a != b for var in outputs[a] if var in inputs[b]]


def with_sea(members: dict, specs: dict) -> dict:
    """``members`` with the system's sea on every component that has the sea's parameters: the values of the
    component that sets them (one sea for the system; :data:`SEA_SYSTEMS` gives it once, on the vessel)."""
    sea = {}
    for _, values in members.values():
        sea.update({k: v for k, v in values.items() if k in SEA_PARAMETER_NAMES})
    out = {}
    for name, (fmu, values) in members.items():
        own = {p.name for p in specs[fmu]().parameters}
        out[name] = (fmu, {**values, **{k: v for k, v in sea.items() if k in own}})
    return out


def system_set_values(system: str, members: dict, specs: dict) -> dict:
    """The values of a system's one SSP parameter set, bound to every component: the sea once -- all its
    parameters, so that a user finds Hs, Tp and heading in one place, at the system's values or the FMUs' start
    values -- then each component's own values (the crane's mount). A name two components set to different values
    cannot be in one set: ValueError."""
    starts: dict = {}
    for fmu, _ in members.values():
        starts.update({p.name: p.start for p in specs[fmu]().parameters if p.name in SEA_PARAMETER_NAMES})
    out = {n: starts[n] for n in SEA_PARAMETER_NAMES if n in starts}  # every FMU declares the sea alike (at_sea)
    given: dict = {}
    for component, (_, values) in members.items():
        for name, value in values.items():
            if name in given and given[name][1] != value:
                raise ValueError(f"{system}: {name} is {given[name][1]!r} on {given[name][0]} and {value!r} on "
                                 f"{component}; one system-wide set holds one value")
            given[name] = (component, value)
            out[name] = value
    return out
