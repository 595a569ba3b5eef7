"""Independent reference for the vessel-crane tests (a plain module, like physics_reference.py).

Forward kinematics of section III written out from the paper's rotations (53)-(56), Table I and the
frame choices documented in ``crane_models/models/vessel_crane/crane.py`` (origins at [0,0,l1], [0,0,l2], [l3,0,0];
COGs at [0,0,-d1], [0,0,d2], [d3,0,0], [d4,0,0]; tip at [l4,0,0]), inertias (73), and Newton-Euler sums
of the crane bodies -- without importing ``crane_models``.
"""
from __future__ import annotations

import math

import numpy as np

from physics_reference import Rx, Rz, vee

G = 9.81
TABLE_I = dict(l1=5.0, l2=2.0, l3=2.0, d1=2.5, d2=1.0, d3=1.0, d4=1.0, m1=1200.0, m2=30.0, m3=30.0, m4=30.0)
L4 = 2.0  # not in the paper: l4 = l3
K_SPRING = 8.0e7  # §III-D
CRANE = ("king", "boom", "outer_boom")
MASS = {"vessel": 1200.0, "king": 30.0, "boom": 30.0, "outer_boom": 30.0}


def Ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def inertia(p=TABLE_I):
    """Eq. (73), with l4 = l3."""
    m1, m2, m3, m4 = p["m1"], p["m2"], p["m3"], p["m4"]
    return {"vessel": np.diag([1, 1, 1]) * m1 * p["l1"] ** 2 / 12,
            "king": np.diag([1, 1, 0.1]) * m2 * p["l2"] ** 2 / 12,
            "boom": np.diag([0, 1, 1]) * m3 * p["l3"] ** 2 / 12,
            "outer_boom": np.diag([0, 1, 1]) * m4 * L4 ** 2 / 12}


def fk(q, p=TABLE_I):
    """``{body: (R^0_body, origin, cog)}`` and the tip, from (53)-(56)."""
    q1, q2, q3, q4, q5, q6 = q
    ez, ex = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    R1 = Rz(q3) @ Ry(q2) @ Rx(q1)
    o1 = np.zeros(3)
    R2 = R1 @ Rz(q4)
    o2 = o1 + R1 @ (p["l1"] * ez)
    R3 = R2 @ Rz(math.pi / 2) @ Rx(math.pi / 2) @ Rz(q5)
    o3 = o2 + R2 @ (p["l2"] * ez)
    R4 = R3 @ Rz(q6)
    o4 = o3 + R3 @ (p["l3"] * ex)
    out = {"vessel": (R1, o1, o1 - R1 @ (p["d1"] * ez)),
           "king": (R2, o2, o2 + R2 @ (p["d2"] * ez)),
           "boom": (R3, o3, o3 + R3 @ (p["d3"] * ex)),
           "outer_boom": (R4, o4, o4 + R4 @ (p["d4"] * ex))}
    return out, o4 + R4 @ (L4 * ex)


def potential(q, k=K_SPRING, p=TABLE_I):
    """Gravity plus the cubic springs' energy ``k q⁴ / 4`` (T = −k q³ = −∂/∂q)."""
    frames, _ = fk(q, p)
    return G * sum(MASS[b] * frames[b][2][2] for b in frames) + k * np.sum(np.asarray(q[:3]) ** 4) / 4.0


def gradient(fun, q, h=1e-4):
    """Five-point central differences of a scalar function: truncation ~h⁴, round-off ~1e-16 |f| / h."""
    q = np.asarray(q, dtype=float)
    out = np.zeros(len(q))
    for i, e in enumerate(np.eye(len(q))):
        out[i] = (8 * (fun(q + h * e) - fun(q - h * e)) - fun(q + 2 * h * e) + fun(q - 2 * h * e)) / (12 * h)
    return out


def gravity_moment_about_origin(q, p=TABLE_I):
    """``Σ c_i × m_i g`` of all four bodies about the rotation centre, Frame 0."""
    frames, _ = fk(q, p)
    return sum(np.cross(frames[b][2], MASS[b] * np.array([0.0, 0.0, -G])) for b in frames)


def euler_axes(q):
    """Axes of the roll, pitch and yaw rotations of (53) in Frame 0: x1, R_z(q3) y, z0."""
    R1 = Rz(q[2]) @ Ry(q[1]) @ Rx(q[0])
    return R1[:, 0], Rz(q[2])[:, 1], np.array([0.0, 0.0, 1.0])


def crane_newton_euler(q_of_t, t, h=1e-3, h_inner=1e-5):
    """Net force and moment about the crane base (origin of Frame 2) that the vessel must supply to the
    crane along a trajectory: ``F = Σ m(a − g)``, ``N = Σ (c − o2) × m(a − g) + Ḣ_c`` (Frame 0).

    ``a`` by central second differences of the COG positions, ``Ḣ_c = d/dt (R I Rᵀ ω)`` by central
    differences, ``ω = vee(Ṙ Rᵀ)`` by a finer central difference.
    """
    g = np.array([0.0, 0.0, -G])
    inert = inertia()

    def frames(s):
        return fk(q_of_t(s))[0]

    def momentum(s):
        f0, fp, fm = frames(s), frames(s + h_inner), frames(s - h_inner)
        out = {}
        for b in CRANE:
            R = f0[b][0]
            w = vee((fp[b][0] - fm[b][0]) / (2 * h_inner) @ R.T)
            out[b] = R @ inert[b] @ R.T @ w
        return out

    f0, fp, fm = frames(t), frames(t + h), frames(t - h)
    hp, hm = momentum(t + h), momentum(t - h)
    o2 = f0["king"][1]
    force, moment = np.zeros(3), np.zeros(3)
    for b in CRANE:
        a = (fp[b][2] - 2 * f0[b][2] + fm[b][2]) / h ** 2
        fb = MASS[b] * (a - g)
        force += fb
        moment += np.cross(f0[b][2] - o2, fb) + (hp[b] - hm[b]) / (2 * h)
    return force, moment, f0["king"][0], f0["vessel"][0]


def crane_inertia(t: float) -> np.ndarray:
    """A crane's interface inertia A at time t, as a vessel FMU takes it (rows [f; n], columns [a_P; w'], W = W0 - A a):
    the crane lumped into its 90 kg (Table I) at an offset s(t) from the crane base, with a rotational inertia J(t) of
    the booms' order (m l^2 / 12 ~ 10 kg m^2 each, here 40-60 kg m^2 with the king): the load a body needs to follow
    a = [a_P; w'] at rest is F = m (a_P - [s]x w'), N = s x F + J w', so A = [[m I, -m [s]x], [m [s]x, J - m [s]x [s]x]]
    (symmetric, positive semi-definite). s and J move with t, so A changes at every communication point."""
    m = sum(MASS[b] for b in CRANE)
    s = np.array([1.5 + 0.5 * math.sin(0.7 * t), 0.3 * math.cos(t), 2.0 + 0.2 * math.sin(1.3 * t)])
    sx = np.array([[0.0, -s[2], s[1]], [s[2], 0.0, -s[0]], [-s[1], s[0], 0.0]])
    J = np.diag([50.0, 60.0, 40.0]) * (1.0 + 0.1 * math.sin(t))
    return np.block([[m * np.eye(3), -m * sx], [m * sx, J - m * sx @ sx]])


def inertia_inputs(A: np.ndarray) -> list:
    """A's upper triangle row by row: the order of the vessel's 21 inertia inputs (interface_inertia_fxfx, ...)."""
    return [float(A[i, j]) for i in range(6) for j in range(i, 6)]
