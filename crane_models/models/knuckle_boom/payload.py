"""The knuckle boom crane with a payload on its hoisting wire (:mod:`core.payload`), hanging from the crane tip
(the end of Body 3): state ``x = [q (3), u (3), p_load (3), v_load (3), L]``, inputs those of the crane plus
``winch_speed``. Not in the paper (it stops at the tip).

The wire force ``F`` on the tip enters the crane as ``J_tipᵀ F`` (46) -- added to the kernel's ``u̇`` as
``M⁻¹ J_tipᵀ F`` (exact: ``u̇`` is affine in ``τ``) -- and the reactions of every joint as an applied force on
Body 3 at the tip. The load is a point mass in Frame 0 under gravity and ``−F``. The controller's gravity
compensation covers the crane's own weight only: it does not know the hook load (a payload sags the booms by
its weight over the controller's stiffness). The taut/slack switch and the winch's length limits are state
events (:meth:`KnuckleBoomPayloadModel.event_indicators`), located by the steppers. With the compiled kernel the
whole right-hand side and the stepping run in C (``core/native/payload.c``), checking the indicators after each
step; :meth:`KnuckleBoomPayloadModel.reference_derivative` (numpy on the crane's kernel derivative) is its
specification and the fallback without the kernel.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ...core.parameters import param, validate, ParameterError
from ...core.payload import (Deck, Winch, Wire, contact_indicator, deck_force, payload_accelerations, point_jacobian, point_position, swing_angles_from_vertical,
                             taut_indicator, winch_rate, wire_strain_energy)
from ...core.native import NativeKinematics
from ...core.native.outputs import OutputWriters, kernel_writer
from ...core.native.cosim_payload import NativePayloadCosimStep
from ...core.native.payload import PAYLOAD_RESULT, NativePayload
from .crane import INPUTS, KnuckleBoomModel
from .splash_names import SPLASH_OUTPUT_NAMES

__all__ = ["PayloadParameters", "KnuckleBoomPayloadModel", "CraneWithoutPayload",
           "PAYLOAD_INPUTS",
           "PAYLOAD_OUTPUTS", "PAYLOAD_BOOLEAN_OUTPUTS"]

_POS = dict(low=0.0, low_open=True)


@dataclass
class PayloadParameters:
    """Payload, wire and winch (not in the paper; defaults: a 1 t load on a 30 mm steel wire rope)."""

    payload_mass: float = param(1000.0, "kg", "mass of the payload (a point mass)", **_POS)
    wire_ea: float = param(4.0e7, "N", "axial stiffness E·A of the hoisting wire (30 mm steel rope: "
                           "E ≈ 1.0e11 Pa on a metallic area ≈ 4e-4 m²)", **_POS)
    wire_damping: float = param(5.0e3, "N.s/m", "damping c of the wire, parallel to its spring; it never pulls "
                                "(≈ 8 % of critical for the default load on 10 m of wire)", 0.0)
    wire_length_0: float = param(10.0, "m", "initial unstretched wire length L (the load starts hanging at "
                                 "rest below the tip, the wire stretched by its weight)", **_POS)
    winch_speed_max: float = param(0.5, "m/s", "winch speed limit: |dL/dt| ≤ this", **_POS)
    wire_length_min: float = param(1.0, "m", "shortest wire the winch hauls in to", **_POS)
    wire_length_max: float = param(40.0, "m", "longest wire the winch pays out to", **_POS)
    deck_height: float = param(0.0, "m", "height of the deck surface (used with deck_enabled): above Frame 0's "
                               "origin on the fixed base; above the crane base point along the base's z on the "
                               "moving base, moving with it")
    deck_stiffness: float = param(1.0e7, "N/m", "contact stiffness of the deck under the load", **_POS)
    deck_damping: float = param(1.0e5, "N.s/m", "contact damping of the deck (it never pulls)", 0.0)

    def wire(self) -> Wire:
        return Wire(self.wire_ea, self.wire_damping)

    def winch(self) -> Winch:
        return Winch(self.winch_speed_max, self.wire_length_min, self.wire_length_max)

    def deck(self) -> Deck:
        return Deck(self.deck_stiffness, self.deck_damping)


PAYLOAD_INPUTS = (("winch_speed", "m/s", "winch speed command, positive pays wire out (clipped to ±winch_speed_max; "
                                         "used only with payload_enabled)"),)
PAYLOAD_OUTPUTS = (
    ("hook_load", "N", "wire tension at the hook (0 while slack)"),
    ("wire_length", "m", "unstretched wire length paid out by the winch"),
    ("payload_x", "m", "payload position x in Frame 0"), ("payload_y", "m", "payload position y in Frame 0"),
    ("payload_z", "m", "payload position z in Frame 0"),
    ("payload_vx", "m/s", "payload velocity x in Frame 0"), ("payload_vy", "m/s", "payload velocity y in Frame 0"),
    ("payload_vz", "m/s", "payload velocity z in Frame 0"),
    ("swing_radial", "rad", "swing of the wire from the vertical in the boom plane (positive away from the king)"),
    ("swing_tangential", "rad", "swing of the wire from the vertical across the boom plane (positive toward the "
                                "king's x axis; a positive slew moves the tip toward -x, so a load lagging "
                                "behind it swings positive)"),
    ("deck_contact_force", "N", "normal force of the deck on the payload (0 without deck_enabled or off the deck)"),
)
PAYLOAD_BOOLEAN_OUTPUTS = (("wire_slack", "", "true while the wire carries no tension"),)
# The payload's values in the order _payload_values computes them (and cosim_payload.h publishes them)
PAYLOAD_VALUE_NAMES = tuple(name for name, _, _ in PAYLOAD_OUTPUTS + PAYLOAD_BOOLEAN_OUTPUTS)


class KnuckleBoomPayloadModel:
    """:class:`KnuckleBoomModel` (crane, controller, end stops) plus the payload, wire and winch."""

    input_names = [name for name, _, _ in INPUTS] + [name for name, _, _ in PAYLOAD_INPUTS]
    state_size = 13

    def __init__(self, crane_model: KnuckleBoomModel, payload: PayloadParameters | None = None,
                 deck_enabled: bool = False):
        """``deck_enabled``: a compliant horizontal deck at ``deck_height`` under the load (Frame 0)."""
        self.base = crane_model
        self.deck: Deck | None = None
        self.crane = crane_model.crane
        self.payload = payload if payload is not None else PayloadParameters()
        validate(self.payload)
        p = self.payload
        if not p.wire_length_min <= p.wire_length_0 <= p.wire_length_max:
            raise ParameterError(f"wire_length_0 = {p.wire_length_0} m must lie in [wire_length_min, wire_length_max]"
                                 f" = [{p.wire_length_min}, {p.wire_length_max}] m")
        self.wire, self.winch, self.mass = p.wire(), p.winch(), float(p.payload_mass)
        if deck_enabled:
            self.deck = p.deck()
        self.g = self.crane.params.g
        self._tip_body, self._king = self.crane.system.index["boom3"], self.crane.system.index["king"]
        self._tip_r = np.array([0.0, 0.0, self.crane.params.l3])
        # Sign checks at least every quarter of the shortest taut phase (half the axial period at the shortest
        # wire), so that a bounce of the load on the wire is never stepped over.
        self._indicators = None  # (x, indicators) of the last derivative
        self._native = None  # (NativeSystem, NativePayload) once built
        self.event_check_interval = 0.25 * math.pi * math.sqrt(self.mass * p.wire_length_min / p.wire_ea)
        # The outputs named by the caller into its table (CoSimulation.write_outputs)
        self.write_outputs = OutputWriters(self.output_writer)

    # -- state ----------------------------------------------------------------------------------
    def initial_state(self, crane_x0: np.ndarray) -> np.ndarray:
        """The crane at ``crane_x0``, the load at rest straight below the tip on ``wire_length_0`` stretched by
        its weight (``m g L / EA``)."""
        kin = self.crane.system.kinematics(crane_x0[:3], crane_x0[3:6])
        tip = point_position(kin, self._tip_body, self._tip_r)
        length = self.payload.wire_length_0
        d = length * (1.0 + self.mass * self.g / self.payload.wire_ea)
        load = tip - [0.0, 0.0, d]
        if self.deck is not None:  # not through the deck: resting on it, pressed in by its weight
            load[2] = max(load[2], self.payload.deck_height - self.mass * self.g / self.deck.stiffness)
        return np.concatenate((crane_x0[:6], load, np.zeros(3), [length]))

    def _deck_force(self, x: np.ndarray) -> float:
        """The deck's normal force on the load (along z0), 0 without a deck."""
        if self.deck is None:
            return 0.0
        return deck_force(self.payload.deck_height - float(x[8]), -float(x[11]), self.deck)

    def _deck_indicator(self, x: np.ndarray) -> float:
        if self.deck is None:
            return 1.0
        return contact_indicator(self.payload.deck_height - float(x[8]), -float(x[11]), self.deck)

    # -- dynamics -------------------------------------------------------------------------------
    def _tip(self, kin) -> tuple:
        J = point_jacobian(kin, self._tip_body, self._tip_r)
        return point_position(kin, self._tip_body, self._tip_r), J @ kin.u, J

    def derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """``ẋ``: the crane's ``u̇`` (43) plus ``M⁻¹ J_tipᵀ F``; the load's ``v̇ = g − F/m``; ``L̇`` of the winch. In
        the kernel (``mbs_payload_derivative``) when it is loaded, else :meth:`reference_derivative`."""
        kernel = self._kernel()
        if kernel is None:
            return self.reference_derivative(t, x, inputs)
        xdot, record, tail = kernel.derivative(x, inputs)
        return xdot, self._kernel_aux(record, tail, x)

    def compiled(self, t: float, inputs: np.ndarray):
        """``(NativePayload, inputs)``: the whole right-hand side stepped in the kernel, which stops before a step
        that crosses a state event (:mod:`integration.cosimulation`); None without the kernel."""
        kernel = self._kernel()
        return None if kernel is None else (kernel, inputs)

    def _kernel(self):
        """The kernel's record of this crane, wire, winch and deck (built on first use), or None without it."""
        native = self.crane.system.native
        if native is None:
            return None
        if self._native is None or self._native[0] is not native:
            p = self.payload
            kernel = NativePayload(native, self.base._dynamics._law_record(native), self._tip_body, self._tip_r,
                                   self.mass, self.g, self.wire, self.winch, len(self.input_names) - 1,
                                   self.deck, p.deck_height, make_aux=self._kernel_aux)
            self._native = (native, kernel)
        return self._native[1]

    def _kernel_aux(self, record: np.ndarray, tail: np.ndarray, x: np.ndarray) -> tuple:
        """``aux`` of :meth:`reference_derivative` from a kernel evaluation at ``x`` (``tail``: ``[T, F, tip, tip
        velocity, N, indicators]``, see core/native/payload.py), remembering its indicators."""
        native = self._native[0]
        kin = NativeKinematics(record, native._derivative_layout, native.invert)
        self._indicators = (np.array(x, dtype=float), tail[11:15])
        return kin, kin.udot, tail[1:4], float(tail[0]), tail[4:7], float(tail[10])

    def update_inputs(self, x: np.ndarray, aux, old: np.ndarray, new: np.ndarray):
        """``(ẋ, aux)`` for new inputs at the same state from the last evaluation: the crane's ``u̇`` is affine in
        its inputs (:meth:`KnuckleBoomModel.update_inputs`; the wire force depends on the state alone), the
        winch rate is the new command's."""
        kin, udot, force, tension, tip, contact = aux
        n = len(self.base.input_names)
        if not np.array_equal(old[:n], new[:n]):
            # u̇ (with the wire's part) changes as the crane's alone; kin.udot is the crane's alone in the
            # reference's aux and the whole u̇ in the kernel's (there the aux's u̇ is the record's, kin.udot itself),
            # and with_new_inputs changes it the same way: the kernel's is then the new u̇ (mbs_update_inputs).
            updated = self.base._dynamics.with_new_inputs(kin, old[:n], new[:n])
            if udot is kin.udot and updated.record is not None:
                udot = updated.udot
            else:
                udot = udot + self.crane.system.solve_with(kin, self.base.law.input_gain @ (new[:n] - old[:n]))
            kin = updated
        xdot = np.concatenate((x[3:6], udot, x[9:12], self._load_acceleration(force, contact),
                               [winch_rate(float(x[12]), float(new[n]), self.winch)]))
        return xdot, (kin, udot, force, tension, tip, contact)

    def _load_acceleration(self, force: np.ndarray, contact: float) -> np.ndarray:
        """``v̇`` of the load: ``−F/m − g e_z + N/m e_z`` (as in :func:`core.payload.payload_accelerations`)."""
        acc = -force / self.mass
        acc[2] -= self.g
        acc[2] += contact / self.mass
        return acc

    def reference_derivative(self, t: float, x: np.ndarray, inputs: np.ndarray):
        """:meth:`derivative` by numpy on the crane's own derivative: the specification of the kernel's."""
        kin = self.base._dynamics(x[:6], inputs[:6])
        tip, tip_v, J = self._tip(kin)
        acc, force, tension, d = payload_accelerations(x[6:9], x[9:12], tip, tip_v, x[12], self.mass, self.g,
                                                       self.wire)
        contact = self._deck_force(x)
        acc[2] += contact / self.mass
        udot = kin.udot + self.crane.system.solve_with(kin, J.T @ force)
        length = float(x[12])
        l_dot = winch_rate(length, float(inputs[6]), self.winch)
        xdot = np.concatenate((x[3:6], udot, x[9:12], acc, [l_dot]))
        # The indicators at this state, for event_indicators at the stepper's last stage (which is this one).
        d_dot = float((x[6:9] - tip) @ (x[9:12] - tip_v)) / d
        self._indicators = (x.copy(), self._indicator_values(d, d_dot, length, x))
        return xdot, (kin, udot, force, tension, tip, contact)

    def _indicator_values(self, d: float, d_dot: float, length: float, x: np.ndarray) -> np.ndarray:
        return np.array([taut_indicator(d, d_dot, length, self.wire), length - self.winch.l_min,
                         self.winch.l_max - length, self._deck_indicator(x)])

    def event_indicators(self, t: float, x: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """Taut (> 0) or slack (< 0) wire (:func:`core.payload.taut_indicator`); the winch inside its length range.
        Functions of the state alone: the values of the last :meth:`derivative` when it was at this state (a
        cache, not state of the model), else computed from the kinematics."""
        cached = self._indicators
        if cached is not None and np.array_equal(cached[0], x):
            return cached[1]
        kin = self.crane.system.kinematics(x[:3], x[3:6])
        tip, tip_v, _ = self._tip(kin)
        rel = x[6:9] - tip
        d = math.sqrt(float(rel @ rel))
        return self._indicator_values(d, float(rel @ (x[9:12] - tip_v)) / d, float(x[12]), x)

    # -- outputs --------------------------------------------------------------------------------
    def output_writer(self, names: tuple):
        """``write(x, inputs, aux, out)``: the outputs ``names`` into ``out`` -- the crane's by ``mbs_crane_outputs``
        with the wire force on the tip as an applied wrench, the payload's computed here into the plan's slots --
        when ``aux`` is the kernel's; else from :meth:`outputs` (the specification)."""
        kernel = self.base._kernel_outputs()
        payload_names = PAYLOAD_VALUE_NAMES
        from_dict = kernel_writer(None, names, {}, lambda x, inputs, aux: self.outputs(0.0, x, inputs, aux), None)
        if kernel is None:
            return from_dict
        plan = kernel.plan(names, dict.fromkeys(payload_names + SPLASH_OUTPUT_NAMES, 0.0))
        wanted = [(i, plan.slot[name]) for i, name in enumerate(payload_names) if name in plan.slot]
        nb, body = self.crane.system.nb, self._tip_body

        def write(x, inputs, aux, out) -> None:
            kin, udot, force, tension, tip, contact = aux
            if kin.record is None:
                return from_dict(x, inputs, aux, out)
            extra = np.zeros((nb, 6))
            extra[body] = self.tip_wrench(kin, force, tip)
            values = self._payload_values(x, kin, tension, tip, contact)
            for i, at in wanted:
                plan.values[at] = values[i]
            kernel.write(plan, x, kin.record, out, udot, extra)

        return write

    def kernel_step_parts(self, names: tuple):
        """What the kernel's communication step (``mbs_cosim_payload_step``, fmi/kernel_steps.py) needs: the crane's
        outputs, the index map of ``names`` (the payload's values among its constants, as :meth:`output_writer`'s),
        the crane's bounds of ``check_state`` (the kernel checks every entry finite too) and the maker of the record
        with the payload's part; None without the kernel."""
        crane_parts = self.base.kernel_step_parts(names, dict.fromkeys(PAYLOAD_VALUE_NAMES + SPLASH_OUTPUT_NAMES, 0.0))
        if crane_parts is None or self._kernel() is None:
            return None
        outputs, plan, bounds = crane_parts
        at = [plan.slot.get(name, -1) for name in PAYLOAD_VALUE_NAMES]
        make = functools.partial(NativePayloadCosimStep, payload_at=at, n_law=len(self.base.input_names),
                                 nb=self.crane.system.nb, tip_body=self._tip_body, king=self._king,
                                 point_record=self.kernel_point_record)
        return outputs, plan, bounds, make

    def kernel_point_record(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> np.ndarray | None:
        """The kernel's record of the evaluation at ``(t, x)`` that ``aux`` holds, with its payload result
        ``[T, F, tip, tip velocity (not kept: NaN, unused), N, indicators]``: the indicators those
        :meth:`event_indicators` gives at ``x`` (the signs a step from there starts with). None for another aux."""
        kin, udot, force, tension, tip, contact = aux
        if getattr(kin, "record", None) is None or udot is not kin.udot:
            return None
        tail = np.full(PAYLOAD_RESULT, math.nan)
        tail[0], tail[1:4], tail[4:7], tail[10] = tension, force, tip, contact
        tail[11:] = self.event_indicators(t, x, inputs)
        return np.concatenate((kin.record, tail))

    def _payload_values(self, x: np.ndarray, kin, tension: float, tip: np.ndarray, contact: float) -> list:
        """The payload outputs in the order of ``PAYLOAD_OUTPUTS``, then ``wire_slack`` (1.0 or 0.0)."""
        # The booms lie in the king's y-z plane: its y axis is the radial direction.
        radial, tangential = swing_angles_from_vertical(x[6:9] - tip, kin.rotation[self._king][:, 1])
        return [float(v) for v in (tension, x[12], *x[6:12], radial, tangential, contact)] + [float(tension <= 0.0)]

    def tip_wrench(self, kin, force: np.ndarray, tip: np.ndarray) -> np.ndarray:
        """The wire force on the tip as a wrench ``[f; n]`` at Body 3's COG in its coordinates (the form of (46))."""
        # Rᵀ F and Rᵀ a as float sums row by row (np.cross costs ~10 µs; the kernel's step does the same sums)
        r0, r1, r2 = kin.rotation[self._tip_body].tolist()
        F, a = force.tolist(), (tip - kin.cog[self._tip_body]).tolist()
        f0, f1, f2 = (F[0] * r0[j] + F[1] * r1[j] + F[2] * r2[j] for j in range(3))
        a0, a1, a2 = (a[0] * r0[j] + a[1] * r1[j] + a[2] * r2[j] for j in range(3))
        return np.array([f0, f1, f2, a1 * f2 - a2 * f1, a2 * f0 - a0 * f2, a0 * f1 - a1 * f0])

    def outputs(self, t: float, x: np.ndarray, inputs: np.ndarray, aux) -> dict:
        kin, udot, force, tension, tip, contact = aux
        extra = np.zeros((self.crane.system.nb, 6))
        extra[self._tip_body] = self.tip_wrench(kin, force, tip)
        out = self.base.crane_outputs(kin, x[:6], udot, extra)
        values = self._payload_values(x, kin, tension, tip, contact)
        out.update(zip((n for n, _, _ in PAYLOAD_OUTPUTS), values))
        out["wire_slack"] = bool(values[-1])
        out.update(dict.fromkeys(SPLASH_OUTPUT_NAMES, 0.0))
        return out

    def energy(self, x: np.ndarray, inputs: np.ndarray) -> float:
        """Kinetic + gravitational + wire strain energy of crane and load, plus the potential of the conservative
        part of the controller (``½ K_P (q_ref − q)²`` and the compensated crane weight, for ``K_D = 0``):
        constant without damping, winch and inputs other than fixed set-points (tests)."""
        kin = self.crane.system.kinematics(x[:3], x[3:6])
        tip, _, _ = self._tip(kin)
        e_load = 0.5 * self.mass * float(x[9:12] @ x[9:12]) + self.mass * self.g * float(x[8])
        e_wire = wire_strain_energy(float(np.linalg.norm(x[6:9] - tip)), float(x[12]), self.wire)
        if self.deck is not None:  # the deck's spring
            e_wire += 0.5 * self.deck.stiffness * max(0.0, self.payload.deck_height - float(x[8])) ** 2
        e_crane = self.crane.system.kinetic_energy(kin)
        if self.base.controller_enabled:  # the compensation cancels the crane's weight; K_P is a spring
            e_crane += 0.5 * float(self.base.controller.kp @ (inputs[3:6] - x[:3]) ** 2)
        else:
            e_crane += self.crane.system.potential_energy(kin, self.g)
        return e_crane + e_load + e_wire

    def check_state(self, x: np.ndarray) -> None:
        self.base.check_state(x[:6])
        if not np.all(np.isfinite(x[6:])):
            raise ValueError(f"payload state became non-finite: {x[6:]}")


class CraneWithoutPayload:
    """A crane model (:class:`KnuckleBoomModel`, or the moving-base one) behind the payload FMU's inputs with the
    payload off: ``winch_speed`` (the last input) ignored, the payload outputs zero (and ``wire_slack`` false);
    everything else, kernel stepping included, unchanged. The optional hooks of :mod:`integration.cosimulation`
    exist exactly when the crane model has them; other attributes pass through."""

    def __init__(self, crane_model, extra_inputs: tuple = ()):
        """``extra_inputs``: names of further inputs after ``winch_speed``, ignored too (``base_position_*``)."""
        self.base = crane_model
        self.crane = crane_model.crane
        self.state_size = crane_model.state_size
        self.input_names = list(crane_model.input_names) + [n for n, _, _ in PAYLOAD_INPUTS] + list(extra_inputs)
        self._n = n = len(crane_model.input_names)
        self._zero = dict.fromkeys([name for name, _, _ in PAYLOAD_OUTPUTS] + list(SPLASH_OUTPUT_NAMES), 0.0)
        if hasattr(crane_model, "update_inputs"):
            self.update_inputs = lambda x, aux, old, new: crane_model.update_inputs(x, aux, old[:n], new[:n])
        if hasattr(crane_model, "compiled"):
            self.compiled = lambda t, inputs: crane_model.compiled(t, inputs[:n])
        if hasattr(crane_model, "impose_inputs"):
            self.impose_inputs = lambda x, inputs: crane_model.impose_inputs(x, inputs[:n])
        if hasattr(crane_model, "output_writer"):  # the payload outputs as constants: zero, wire_slack false
            constants = {**self._zero, "wire_slack": 0.0}
            self.write_outputs = OutputWriters(lambda names: crane_model.output_writer(names, constants))
            if hasattr(crane_model, "kernel_step_parts"):
                self.kernel_step_parts = lambda names: crane_model.kernel_step_parts(names, constants)

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "base":
            raise AttributeError(name)
        return getattr(self.base, name)

    def derivative(self, t, x, inputs):
        return self.base.derivative(t, x, inputs[:self._n])

    def outputs(self, t, x, inputs, aux) -> dict:
        out = self.base.outputs(t, x, inputs[:self._n], aux)
        out.update(self._zero)
        out["wire_slack"] = False
        return out

    def check_state(self, x) -> None:
        self.base.check_state(x)
