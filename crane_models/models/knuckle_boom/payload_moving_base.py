"""The payload of :mod:`.payload` on the knuckle boom crane on a moving base (:mod:`.moving_base`): state
``x = [q (9), u (9), p_load (3), v_load (3), L]``, inputs the moving base's plus ``winch_speed``.

The load lives in Frame 0 (inertial, gravity ``−g z0``). At each communication point the moving-base model puts
the base point back at the origin and at rest (Galilean invariance, :meth:`KnuckleBoomOnMovingBaseModel.
impose_inputs`); the load is shifted with it by the same position and velocity, so that its motion relative to the
vessel is kept. The wire force ``F`` on the tip enters the free (crane) coordinates as ``M_ff⁻¹ (J_tipᵀ F)_f`` --
the base's accelerations are prescribed -- and the reactions and the interface wrench as an applied wrench on
Body 3: the vessel feels the hook load. The interface inertia outputs (``A``, ``W₀``) are the crane's alone: the
hanging load is a separate dynamic body, not rigidly attached.
"""
from __future__ import annotations

import math

import numpy as np

from ...core.parameters import ParameterError, validate
from ...core.payload import (contact_indicator, deck_force, payload_accelerations, point_jacobian, point_position, swing_angles_from_vertical,
                             taut_indicator, winch_rate)
from ...core.moving_base.euler import euler_rate_matrix
from ...core.moving_base.interface import STEP_INTEGRALS, restarted, step_rates
from .moving_base import N_COORDINATES, KnuckleBoomOnMovingBaseModel
from .payload import PAYLOAD_INPUTS, PAYLOAD_OUTPUTS, PayloadParameters
from .splash_names import POSITION_INPUTS, SPLASH_OUTPUT_NAMES

__all__ = ["KnuckleBoomOnMovingBasePayloadModel"]

_N = N_COORDINATES
_LOAD = slice(2 * _N, 2 * _N + 3)
_LOAD_V = slice(2 * _N + 3, 2 * _N + 6)
_L = 2 * _N + 6


class KnuckleBoomOnMovingBasePayloadModel:
    """:class:`KnuckleBoomOnMovingBaseModel` plus the payload, wire and winch of :mod:`.payload`; with the crane's
    ``mean_wrench_outputs`` the step integrals of its load on the base -- the payload's pull through the crane
    included -- over the last step and the step before after ``L``."""

    input_names = KnuckleBoomOnMovingBaseModel.input_names + [n for n, _, _ in PAYLOAD_INPUTS]

    def __init__(self, crane_model: KnuckleBoomOnMovingBaseModel, payload: PayloadParameters | None = None,
                 deck_enabled: bool = False):
        """``deck_enabled``: a compliant deck plane ``deck_height`` above the crane base point along the base's z,
        moving with the base."""
        self.base = crane_model
        self.crane = crane_model.crane
        self._mean = crane_model.mean_wrench_outputs
        self.state_size = 2 * _N + 7 + (STEP_INTEGRALS if self._mean else 0)
        if self._mean:  # as the crane's: the integrals restart each step, outside the step-size control
            self.controlled_states = 2 * _N + 7
            self.restart_step_integrals = lambda x: restarted(x, 2 * _N + 7)
        self.payload = p = payload if payload is not None else PayloadParameters()
        validate(p)
        if not p.wire_length_min <= p.wire_length_0 <= p.wire_length_max:
            raise ParameterError(f"wire_length_0 = {p.wire_length_0} m must lie in [wire_length_min, wire_length_max]"
                                 f" = [{p.wire_length_min}, {p.wire_length_max}] m")
        self.wire, self.winch, self.mass, self.g = p.wire(), p.winch(), float(p.payload_mass), self.crane.params.g
        ix = self.crane.system.index
        self._tip_body, self._king = ix["boom3"], ix["king"]
        self._tip_r = np.array([0.0, 0.0, self.crane.params.l3])
        self._winch_at = len(KnuckleBoomOnMovingBaseModel.input_names)
        # base_position_* (issue 37) after winch_speed: where the vessel is in the sea, used by the water's forces
        self.input_names = self.input_names + [name for name, _, _ in POSITION_INPUTS]
        self.position_at = self._winch_at + 1
        self._free = np.arange(3)
        self._indicators = None
        self._place_load = False
        self.deck = p.deck() if deck_enabled else None
        self.event_check_interval = 0.25 * math.pi * math.sqrt(self.mass * p.wire_length_min / p.wire_ea)

    def initial_state(self, crane_x0: np.ndarray, inputs: np.ndarray | None = None) -> np.ndarray:
        """The crane state ``crane_x0`` (18) with the base imposed by ``inputs``; the load at rest straight below
        the tip (true vertical) on ``wire_length_0`` stretched by its weight. Without ``inputs`` (an FMU's build,
        which has no inputs yet) the load is placed so by the first :meth:`impose_inputs`, the co-simulation's
        start with its first inputs."""
        integrals = np.zeros(STEP_INTEGRALS if self._mean else 0)
        if inputs is None:
            self._place_load = True
            return np.concatenate((crane_x0[:2 * _N], np.zeros(6), [self.payload.wire_length_0], integrals))
        x = self.base.impose_inputs(crane_x0[:2 * _N], inputs[:self._winch_at])
        return np.concatenate((x, self._hanging_load(x), np.zeros(3), [self.payload.wire_length_0], integrals))

    def _hanging_load(self, x: np.ndarray) -> np.ndarray:
        kin = self.crane.system.kinematics(x[:_N], x[_N:2 * _N])
        tip = point_position(kin, self._tip_body, self._tip_r)
        length = self.payload.wire_length_0
        drop = length * (1.0 + self.mass * self.g / self.payload.wire_ea)
        if self.deck is not None:  # not through the deck: resting on it, pressed in by its weight
            n, o = kin.rotation[self.base._base][:, 2], kin.origin[self.base._base]
            squeeze = self.mass * self.g / self.deck.stiffness
            drop = min(drop, (float(n @ (tip - o)) - self.payload.deck_height + squeeze) / n[2])
        return tip - [0.0, 0.0, drop]

    def _deck_state(self, kin, x: np.ndarray) -> tuple:
        """``(penetration, its rate, normal)`` of the load in the moving deck plane."""
        b = self.base._base
        n, o = kin.rotation[b][:, 2], kin.origin[b]
        # Velocity of the deck point under the load: v_base + ω × r, from the base's rates (the kernel leaves the
        # Jacobians of the massless base bodies zero, so not by point_jacobian).
        omega = kin.rotation[b] @ (euler_rate_matrix(float(x[3]), float(x[4])) @ x[_N + 3:_N + 6])
        deck_v = x[_N + 6:_N + 9] + np.cross(omega, x[_LOAD] - o)
        return (self.payload.deck_height - float(n @ (x[_LOAD] - o)), -float(n @ (x[_LOAD_V] - deck_v)), n)

    def impose_inputs(self, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """The base as :meth:`KnuckleBoomOnMovingBaseModel.impose_inputs`; the load shifted with the base point
        (or, the first time after :meth:`initial_state` without inputs, hung below the tip)."""
        crane = self.base.impose_inputs(x[:2 * _N], inputs[:self._winch_at])
        if self._place_load:
            self._place_load = False
            return np.concatenate((crane, self._hanging_load(crane), np.zeros(3), x[_L:]))
        shift, shift_v = x[6:9] - crane[6:9], x[_N + 6:_N + 9] - crane[_N + 6:_N + 9]
        out = np.concatenate((crane, x[2 * _N:]))
        out[_LOAD] -= shift
        out[_LOAD_V] -= shift_v
        return out

    def _tip(self, kin) -> tuple:
        J = point_jacobian(kin, self._tip_body, self._tip_r)
        return point_position(kin, self._tip_body, self._tip_r), J @ kin.u, J

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        kin = self.base._dynamics(x[:2 * _N], self.base.kernel_inputs(inputs[:self._winch_at]))
        tip, tip_v, J = self._tip(kin)
        acc, force, tension, d = payload_accelerations(x[_LOAD], x[_LOAD_V], tip, tip_v, x[_L], self.mass, self.g,
                                                       self.wire)
        contact = 0.0
        if self.deck is not None:
            pen, rate, normal = self._deck_state(kin, x)
            contact = deck_force(pen, rate, self.deck)
            acc = acc + (contact / self.mass) * normal
        M = kin.M if kin.M is not None else self.crane.system.mass_matrix(kin)
        udot = np.array(kin.udot, dtype=float)
        udot[:3] += self.crane.system.solve(M[:3, :3], (J.T @ force)[:3])  # base accelerations are prescribed
        length = float(x[_L])
        l_dot = winch_rate(length, float(inputs[self._winch_at]), self.winch)
        xdot = np.concatenate((x[_N:2 * _N], udot, x[_LOAD_V], acc, [l_dot]))
        if self._mean:  # the load on the base with the wire's pull on the tip (the outputs' interface wrench)
            load = self.base.point_wrench(kin, udot, self._wire_wrench(kin, force, tip))
            xdot = np.concatenate((xdot, step_rates(load)))
        d_dot = float((x[_LOAD] - tip) @ (x[_LOAD_V] - tip_v)) / d
        self._indicators = (x.copy(), self._indicator_values(d, d_dot, length, kin, x))
        # Python floats, as a state read back from its bytes has them (CoSimulation.state_problem compares the types)
        return xdot, (kin, udot, force, float(tension), tip, float(contact))

    def _indicator_values(self, d: float, d_dot: float, length: float, kin, x: np.ndarray) -> np.ndarray:
        deck = 1.0 if self.deck is None else contact_indicator(*self._deck_state(kin, x)[:2], self.deck)
        return np.array([taut_indicator(d, d_dot, length, self.wire), length - self.winch.l_min,
                         self.winch.l_max - length, deck])

    def event_indicators(self, t: float, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """As :meth:`.payload.KnuckleBoomPayloadModel.event_indicators` (functions of the state alone)."""
        cached = self._indicators
        if cached is not None and np.array_equal(cached[0], x):
            return cached[1]
        kin = self.crane.system.kinematics(x[:_N], x[_N:2 * _N])
        tip, tip_v, _ = self._tip(kin)
        rel = x[_LOAD] - tip
        d = math.sqrt(float(rel @ rel))
        return self._indicator_values(d, float(rel @ (x[_LOAD_V] - tip_v)) / d, float(x[_L]), kin, x)

    def _wire_wrench(self, kin, force: np.ndarray, tip: np.ndarray) -> np.ndarray:
        """The wire force ``F`` on the tip as applied wrenches ``[f; n]`` at each COG (nb, 6): on Body 3 alone."""
        R = kin.rotation[self._tip_body]
        f = R.T @ force
        extra = np.zeros((self.crane.system.nb, 6))
        extra[self._tip_body] = np.concatenate((f, np.cross(R.T @ (tip - kin.cog[self._tip_body]), f)))
        return extra

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        kin, udot, force, tension, tip, contact = aux
        extra = self._wire_wrench(kin, force, tip)
        integral = x[_L + 1:_L + 1 + STEP_INTEGRALS] if self._mean else None
        out = self.base.outputs_with(kin, x[:2 * _N], inputs[:self._winch_at], udot, extra, integral)
        rb = kin.rotation[self.base._base]
        origin = kin.origin[self.base._base]
        # Load relative to the crane base point and its velocity relative to the base frame's origin, base frame.
        base_v = x[_N + 6:_N + 9]  # the base translation rates are velocities along Frame 0
        rel_p = rb.T @ (x[_LOAD] - origin)
        rel_v = rb.T @ (x[_LOAD_V] - base_v)
        radial, tangential = swing_angles_from_vertical(x[_LOAD] - tip, kin.rotation[self._king][:, 1])
        values = [tension, x[_L], *rel_p, *rel_v, radial, tangential, contact]
        out.update(zip((n for n, _, _ in PAYLOAD_OUTPUTS), (float(v) for v in values)))
        out["wire_slack"] = bool(tension <= 0.0)
        out.update(dict.fromkeys(SPLASH_OUTPUT_NAMES, 0.0))
        return out

    def check_state(self, x: np.ndarray) -> None:
        self.base.check_state(x[:2 * _N])  # the payload's entries and the step integrals: finite
        if not np.all(np.isfinite(x[2 * _N:])):
            raise ValueError(f"payload state became non-finite: {x[2 * _N:]}")
