"""What ``crane-cosim view`` draws: the crane of a result file in 3-D, from the model's own body tree.

The bodies, their joints and their poses come from the model's :class:`core.kane.MultibodySystem` (the same
data and kinematics, eqs. (16)-(28), the FMU integrates), evaluated at the joint coordinates a result file
records (``q1 … q3`` of the knuckle boom, ``q4 … q6`` of the vessel crane). Each body is drawn as straight
members from its joint to the joints of the bodies it carries (king column and bracket, booms, barrels); a body
that carries nothing ends at the point the model names (the tip of the outer boom, a piston's far end
``l_p`` behind its attachment point). The tip is the model's own ``tip_position``.

Frames: a crane on a fixed base is drawn in Frame 0; a crane on a moving base (``…OnMovingBase``) in the ship's
frame, through the FMU's own mounting parameters (mount point, heading, z up or down; :mod:`core.moving_base.ship`),
on a deck through the crane base point: the frame its ``tip_*`` outputs use. The payload (``payload_*``) hangs on
the wire from the tip. The vessel crane (``VesselCrane``) is drawn on its vessel with the vessel's angles at zero,
i.e. in the vessel's frame.

Choices the papers leave open: the deck is a rectangle through the crane base, 1.5 × 0.8 times the crane's
horizontal reach (the models have no hull dimensions); its length runs along the x axis of the drawing frame. The
page and the GIF are fitted to the crane, and show the part of the deck within that fit.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["CraneScene", "crane_scene", "DRAWN_MODELS", "Pose"]

KNUCKLE_BOOM_MODELS = ("KnuckleBoomCrane", "KnuckleBoomCraneOnMovingBase")
VESSEL_CRANE_MODELS = ("VesselCrane", "CraneOnMovingBase")
DRAWN_MODELS = KNUCKLE_BOOM_MODELS + VESSEL_CRANE_MODELS


@dataclass
class Pose:
    """The crane at one instant, in the drawing frame: ``members`` ``{style: [(start, end), …]}``, the tip, and the
    payload (None without one)."""

    members: dict
    tip: np.ndarray
    payload: np.ndarray | None


@dataclass
class CraneScene:
    """A model's geometry: ``pose(row)`` for a row of result columns ``{name: value}``; ``deck`` the corners of
    the deck (or ground) in the drawing frame; ``frame`` what the drawing frame is."""

    model: str
    frame: str
    coordinates: tuple
    pose_at: Callable[[np.ndarray, dict], Pose]
    deck: np.ndarray
    reach: float
    payload: bool = False
    z_down: bool = False  # the drawing frame's z points down (NED-style ship axes): shown with z and y reversed

    def pose(self, row: dict) -> Pose:
        missing = [c for c in self.coordinates if c not in row]
        if missing:
            raise KeyError(f"the result has no column {', '.join(missing)} (the joint coordinates of {self.model})")
        return self.pose_at(np.array([row[c] for c in self.coordinates], dtype=float), row)


def _members(system, kin, style_of: dict, leaf_ends: dict) -> dict:
    """Straight members of every body: from its joint to each child's joint, or to its named end point."""
    children = {}
    for b in system.bodies:
        children.setdefault(b.parent, []).append(b)
    members = {}
    for k, body in enumerate(system.bodies):
        style = style_of.get(body.name)
        if style is None:
            continue
        ends = [np.asarray(c.offset, dtype=float) for c in children.get(body.name, [])]
        if body.name in leaf_ends:
            ends.append(np.asarray(leaf_ends[body.name], dtype=float))
        for end in ends:
            members.setdefault(style, []).append((kin.origin[k].copy(), kin.origin[k] + kin.rotation[k] @ end))
    return members


def _deck(reach: float, z: float, transform) -> np.ndarray:
    x, y = 0.75 * reach, 0.4 * reach
    corners = np.array([[-x, -y, z], [x, -y, z], [x, y, z], [-x, y, z]])
    return np.array([transform(c) for c in corners])


def _spec_values(model: str, parameters: dict) -> dict:
    """Every parameter of the model: the FMU's start values, then those of the result file (its start values of
    inputs, which a run may also list, do not shape the crane)."""
    from ..models.registry import SPECS

    spec = SPECS[model]()
    values = {p.name: p.start for p in spec.parameters}
    known = set(values) | {v.name for v in spec.inputs}
    unknown = set(parameters) - known
    if unknown:
        raise ValueError(f"{model} has no parameter(s) {', '.join(sorted(unknown))}")
    values.update({k: v for k, v in parameters.items() if k in values})
    return values


def _knuckle_boom(model: str, values: dict) -> CraneScene:
    from ..fmi.spec import split_values
    from ..models.knuckle_boom.crane import KnuckleBoomCrane, KnuckleBoomParameters
    from ..models.on_ship import mounting_from
    from ..core.moving_base.ship import FLIP

    p = split_values(values, KnuckleBoomParameters)
    crane = KnuckleBoomCrane(p)
    style = {"king": "boom", "boom2": "boom", "boom3": "boom", "barrel2": "barrel", "barrel3": "barrel",
             "piston2": "piston", "piston3": "piston"}
    leaves = {"piston2": (0.0, 0.0, -p.lp2), "piston3": (0.0, 0.0, -p.lp3)}  # boom3 ends at the tip, below
    if model == "KnuckleBoomCrane":
        frame, to_frame = "Frame 0 (crane foundation)", lambda v: np.asarray(v, dtype=float)
    else:  # base frame B -> ship frame S, as the FMU's tip output (ShipMountedModel)
        mounting = mounting_from(values)
        r, heading = mounting.internal_mount()
        flip = FLIP if mounting.z_down else np.eye(3)
        frame = "ship frame (" + ("x forward, y starboard, z down" if mounting.z_down else
                                  "x forward, y to port, z up") + ", from its reference point)"

        def to_frame(v):
            return flip @ (r + heading @ np.asarray(v, dtype=float))
    reach = p.l2 + p.l3  # horizontal: the booms
    deck_z = float(values.get("deck_height", 0.0)) if values.get("deck_enabled") else 0.0  # the payload's deck

    def pose_at(q: np.ndarray, row: dict) -> Pose:
        kin = crane.system.kinematics(q, np.zeros(3))
        tip = crane.tip_position(kin)
        members = _members(crane.system, kin, style, leaves)
        k = crane.system.index["boom3"]
        members["boom"].append((kin.origin[k].copy(), tip))
        members = {s: [(to_frame(a), to_frame(b)) for a, b in segs] for s, segs in members.items()}
        payload = None
        if values.get("payload_enabled") and all(f"payload_{a}" in row for a in "xyz"):
            payload = to_frame([row[f"payload_{a}"] for a in "xyz"])
        return Pose(members, to_frame(tip), payload)

    return CraneScene(model, frame, ("q1", "q2", "q3"), pose_at, _deck(reach, deck_z, to_frame), reach,
                      bool(values.get("payload_enabled")), bool(values.get("z_down")))


def _vessel_crane(model: str, values: dict) -> CraneScene:
    from ..core.kane import MultibodySystem
    from ..models.vessel_crane.crane import VesselCraneParameters, crane_bodies

    fields = {f.name for f in dataclasses.fields(VesselCraneParameters)}
    p = dataclasses.replace(VesselCraneParameters(), **{k: float(v) for k, v in values.items() if k in fields})
    if model == "CraneOnMovingBase":  # its base point is the crane base: the outputs are relative to it
        p = dataclasses.replace(p, l1=0.0)
    system = MultibodySystem(crane_bodies(p, None, 0), 3)
    style = {"king": "boom", "boom": "boom", "outer_boom": "boom"}
    tip_local = np.array([p.l4, 0.0, 0.0])
    frame = "the crane base's frame (Frame 1)" if model == "CraneOnMovingBase" else "the vessel's frame (Frame 1)"
    reach = p.l3 + p.l4
    coordinates = ("q4", "q5", "q6")

    def pose_at(q: np.ndarray, row: dict) -> Pose:
        kin = system.kinematics(q, np.zeros(3))
        k = system.index["outer_boom"]
        tip = kin.origin[k] + kin.rotation[k] @ tip_local
        members = _members(system, kin, style, {"outer_boom": tip_local})
        return Pose(members, tip, None)

    return CraneScene(model, frame, coordinates, pose_at, _deck(reach, p.l1, lambda v: np.asarray(v, float)), reach)


def crane_scene(model: str, parameters: dict | None = None) -> CraneScene:
    """The scene of FMU ``model`` with ``parameters`` (the result file's; the rest at the FMU's start values)."""
    if model not in DRAWN_MODELS:
        raise ValueError(f"crane-cosim view draws {', '.join(DRAWN_MODELS)}; not {model!r}")
    values = _spec_values(model, parameters or {})
    if model in KNUCKLE_BOOM_MODELS:
        return _knuckle_boom(model, values)
    return _vessel_crane(model, values)

