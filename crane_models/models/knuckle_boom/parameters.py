"""Parameters of the knuckle boom crane (Cibicik & Egeland 2018, Tables 1-2), its controller and initial state: one
source of truth, the paper's symbol next to each value; values the paper does not give say where they come from."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.cylinders import CylinderGeometry
from ...core.parameters import param

__all__ = ["KnuckleBoomParameters", "KnuckleBoomController", "KnuckleBoomInitialState"]

_POS = dict(low=0.0, low_open=True)


@dataclass
class KnuckleBoomParameters:
    """Geometry (Table 1), masses (Table 2, in kg), gravity, stroke limits and end stops."""

    l1: float = param(6.0, "m", "l_1, length of Body 1 (king), Table 1", **_POS)
    l2: float = param(7.5, "m", "l_2, length of Body 2 (inner boom), Table 1", **_POS)
    l3: float = param(5.0, "m", "l_3, length of Body 3 (outer boom), Table 1", **_POS)
    lb2: float = param(2.3, "m", "l_b2, barrel length of cylinder 2, Table 1", **_POS)
    lp2: float = param(2.0, "m", "l_p2, piston length of cylinder 2, Table 1", **_POS)
    lb3: float = param(2.3, "m", "l_b3, barrel length of cylinder 3, Table 1", **_POS)
    lp3: float = param(2.0, "m", "l_p3, piston length of cylinder 3, Table 1", **_POS)
    d1: float = param(3.0, "m", "d_1, COG distance of Body 1 from Joint 1, Table 1", 0.0)
    d2: float = param(3.7, "m", "d_2, COG distance of Body 2 from Joint 2, Table 1", 0.0)
    d3: float = param(2.5, "m", "d_3, COG distance of Body 3 from Joint 3, Table 1", 0.0)
    db2: float = param(1.2, "m", "d_b2, barrel 2 COG distance from the barrel joint, Table 1", 0.0)
    dp2: float = param(1.2, "m", "d_p2, piston 2 COG distance from its attachment point P2, Table 1", 0.0)
    db3: float = param(1.2, "m", "d_b3, barrel 3 COG distance from the barrel joint, Table 1", 0.0)
    dp3: float = param(1.2, "m", "d_p3, piston 3 COG distance from its attachment point P3, Table 1", 0.0)
    eb2: float = param(2.5, "m", "e_b2, Joint 2 to barrel joint 2 along -z1, Table 1", **_POS)
    ep2: float = param(2.5, "m", "e_p2, Joint 2 to piston attachment P2 along z2, Table 1", **_POS)
    eb3: float = param(2.5, "m", "e_b3, Joint 3 to barrel joint 3 along -z2, Table 1", **_POS)
    ep3: float = param(2.0, "m", "e_p3, Joint 3 to piston attachment P3 along z3, Table 1", **_POS)
    ab2: float = param(1.0, "m", "a_b2, Joint 2 to barrel joint 2 along y1, Table 1", **_POS)
    ap2: float = param(0.5, "m", "a_p2, Joint 2 to piston attachment P2 along y2, Table 1", **_POS)
    ab3: float = param(0.4, "m", "a_b3, Joint 3 to barrel joint 3 along y2, Table 1", **_POS)
    ap3: float = param(0.4, "m", "a_p3, Joint 3 to piston attachment P3 along y3, Table 1", **_POS)
    m1: float = param(10000.0, "kg", "m_1, mass of Body 1 (king), Table 2: 10.0 t", **_POS)
    m2: float = param(10000.0, "kg", "m_2, mass of Body 2 (inner boom), Table 2: 10.0 t", **_POS)
    m3: float = param(10000.0, "kg", "m_3, mass of Body 3 (outer boom), Table 2: 10.0 t", **_POS)
    mb2: float = param(2000.0, "kg", "m_b2, mass of barrel 2, Table 2: 2.0 t", **_POS)
    mp2: float = param(1000.0, "kg", "m_p2, mass of piston 2, Table 2: 1.0 t", **_POS)
    mb3: float = param(2000.0, "kg", "m_b3, mass of barrel 3, Table 2: 2.0 t", **_POS)
    mp3: float = param(1000.0, "kg", "m_p3, mass of piston 3, Table 2: 1.0 t", **_POS)
    g: float = param(9.81, "m/s2", "acceleration of gravity (section 5)", 0.0, 100.0)
    # Not in the paper: stroke range of both cylinders (see module docstring) and a stiff end stop.
    q2_min: float = param(0.0, "m", "lower stroke limit of cylinder 2 (not in the paper)")
    q2_max: float = param(1.7, "m", "upper stroke limit of cylinder 2 (not in the paper)")
    q3_min: float = param(0.0, "m", "lower stroke limit of cylinder 3 (not in the paper)")
    q3_max: float = param(1.7, "m", "upper stroke limit of cylinder 3 (not in the paper)")
    end_stop_stiffness: float = param(
        1.0e8, "N/m", "end-stop spring stiffness beyond a stroke limit (not in the paper)", **_POS)
    end_stop_damping: float = param(
        2.0e6, "N.s/m", "end-stop damping beyond a stroke limit (not in the paper)", 0.0)

    def cylinder(self, k: int) -> CylinderGeometry:
        p = self
        if k == 2:
            return CylinderGeometry(p.lb2, p.ab2, p.eb2, p.ap2, p.ep2)
        return CylinderGeometry(p.lb3, p.ab3, p.eb3, p.ap3, p.ep3)

    def stroke(self, k: int) -> tuple:
        return (self.q2_min, self.q2_max) if k == 2 else (self.q3_min, self.q3_max)


@dataclass
class KnuckleBoomController:
    """PD gains with gravity compensation. Not in the paper: chosen as ``Kp = ω² M_ii``,
    ``Kd = 2ζω M_ii`` with ``ω = 2 rad/s``, ``ζ = 1`` and the diagonal of ``M`` at a mid-stroke pose
    (q2 ≈ q3 ≈ 1 m: M_ii ≈ 1.0e6 kg·m², 2.7e5 kg, 4e4 kg) -- well damped, and far from saturating
    any actuator in the demo."""

    kp1: float = param(4.0e6, "N.m/rad", "proportional gain of the king slew controller", 0.0)
    kd1: float = param(4.0e6, "N.m.s/rad", "derivative gain of the king slew controller", 0.0)
    kp2: float = param(1.1e6, "N/m", "proportional gain of the cylinder 2 controller", 0.0)
    kd2: float = param(1.1e6, "N.s/m", "derivative gain of the cylinder 2 controller", 0.0)
    kp3: float = param(1.6e5, "N/m", "proportional gain of the cylinder 3 controller", 0.0)
    kd3: float = param(1.6e5, "N.s/m", "derivative gain of the cylinder 3 controller", 0.0)

    @property
    def kp(self) -> np.ndarray:
        return np.array([self.kp1, self.kp2, self.kp3])

    @property
    def kd(self) -> np.ndarray:
        return np.array([self.kd1, self.kd2, self.kd3])


@dataclass
class KnuckleBoomInitialState:
    q1_0: float = param(0.0, "rad", "initial king slew angle q1")
    q2_0: float = param(0.6, "m", "initial piston extension q2 of cylinder 2")
    q3_0: float = param(0.6, "m", "initial piston extension q3 of cylinder 3")
    u1_0: float = param(0.0, "rad/s", "initial slew rate u1")
    u2_0: float = param(0.0, "m/s", "initial piston speed u2")
    u3_0: float = param(0.0, "m/s", "initial piston speed u3")

    def state(self) -> np.ndarray:
        return np.array([self.q1_0, self.q2_0, self.q3_0, self.u1_0, self.u2_0, self.u3_0])
