"""Independent reference computations for the physics tests (a plain module, not a conftest, so that it
cannot clash with fixtures other test files need).

Everything here is written from the paper (Cibicik & Egeland 2018) and from textbook mechanics, without
importing ``crane_models``: forward kinematics of the knuckle boom crane with the angles of eqs. (29)-(30)
re-implemented from the paper text, rotation matrices, inertia tensors of eq. (66), finite-difference
helpers. The tests compare the package against these.
"""
from __future__ import annotations

import math

import numpy as np

G_DEFAULT = 9.81
BODY_ORDER = ("king", "boom2", "barrel2", "piston2", "boom3", "barrel3", "piston3")


# -- elementary rotations and skew matrices, written out by hand ---------------------------------------
def hat(v):
    x, y, z = v
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def vee(m):
    """Inverse of ``hat`` for the skew-symmetric part of ``m``."""
    a = 0.5 * (m - m.T)
    return np.array([a[2, 1], a[0, 2], a[1, 0]])


def Rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def Rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


# -- eqs. (29) and (30) re-implemented from the paper --------------------------------------------------
def paper_alpha(q, lb, ab, eb, ap, ep):
    b1sq, b2sq = ab * ab + eb * eb, ap * ap + ep * ep
    lc = lb + q
    return (math.acos((lc * lc - b1sq - b2sq) / (-2.0 * math.sqrt(b1sq * b2sq)))
            + math.atan(ab / eb) + math.atan(ap / ep) - math.pi)


def paper_beta(q, lb, ab, eb, ap, ep):
    b1sq, b2sq = ab * ab + eb * eb, ap * ap + ep * ep
    lc = lb + q
    return (-math.acos((b2sq - b1sq - lc * lc) / (-2.0 * math.sqrt(b1sq) * lc))
            - math.atan(eb / ab) + math.pi / 2)


# Table 1 / Table 2 of the paper (SI units); used to check the parameter defaults and as the reference data.
TABLE = dict(l1=6.0, l2=7.5, l3=5.0, lb2=2.3, lp2=2.0, lb3=2.3, lp3=2.0,
             d1=3.0, d2=3.7, d3=2.5, db2=1.2, dp2=1.2, db3=1.2, dp3=1.2,
             eb2=2.5, ep2=2.5, eb3=2.5, ep3=2.0, ab2=1.0, ap2=0.5, ab3=0.4, ap3=0.4,
             m1=10000.0, m2=10000.0, m3=10000.0, mb2=2000.0, mp2=1000.0, mb3=2000.0, mp3=1000.0)


def cyl_args(p, k):
    """``(lb, ab, eb, ap, ep)`` of cylinder k from a dict of Table 1 values."""
    return tuple(p[f"{n}{k}"] for n in ("lb", "ab", "eb", "ap", "ep"))


def crane_fk(q, p=TABLE):
    """Forward kinematics of Section 5 / Fig. 4 / eq. (70): ``{body: (R^0_body, origin, cog)}``.

    Frame 1 = Rz(q1); Frame 2 at [0,0,l1] of Frame 1, Rx(alpha2); Frame 3 at [0,0,l2] of Frame 2, Rx(alpha3);
    barrel frame bk at [0, a_bk, l_{k-1} - e_bk] of Frame k-1, Rx(beta_k); piston frame pk = barrel frame
    moved by l_bk + q_k along z_bk (the point P_k). COGs: [0,0,d_k], [0,0,d_bk], [0,0,-d_pk].
    """
    q1, q2, q3 = q
    a2, b2 = paper_alpha(q2, *cyl_args(p, 2)), paper_beta(q2, *cyl_args(p, 2))
    a3, b3 = paper_alpha(q3, *cyl_args(p, 3)), paper_beta(q3, *cyl_args(p, 3))
    ez = np.array([0.0, 0.0, 1.0])
    out = {}
    R1, o1 = Rz(q1), np.zeros(3)
    out["king"] = (R1, o1, o1 + R1 @ (p["d1"] * ez))
    R2, o2 = R1 @ Rx(a2), o1 + R1 @ (p["l1"] * ez)
    out["boom2"] = (R2, o2, o2 + R2 @ (p["d2"] * ez))
    Rb2, ob2 = R1 @ Rx(b2), o1 + R1 @ np.array([0.0, p["ab2"], p["l1"] - p["eb2"]])
    out["barrel2"] = (Rb2, ob2, ob2 + Rb2 @ (p["db2"] * ez))
    op2 = ob2 + Rb2 @ ((p["lb2"] + q2) * ez)
    out["piston2"] = (Rb2, op2, op2 - Rb2 @ (p["dp2"] * ez))
    R3, o3 = R2 @ Rx(a3), o2 + R2 @ (p["l2"] * ez)
    out["boom3"] = (R3, o3, o3 + R3 @ (p["d3"] * ez))
    Rb3, ob3 = R2 @ Rx(b3), o2 + R2 @ np.array([0.0, p["ab3"], p["l2"] - p["eb3"]])
    out["barrel3"] = (Rb3, ob3, ob3 + Rb3 @ (p["db3"] * ez))
    op3 = ob3 + Rb3 @ ((p["lb3"] + q3) * ez)
    out["piston3"] = (Rb3, op3, op3 - Rb3 @ (p["dp3"] * ez))
    return out


def crane_masses(p=TABLE):
    return np.array([p["m1"], p["m2"], p["mb2"], p["mp2"], p["m3"], p["mb3"], p["mp3"]])


def crane_inertias(p=TABLE):
    """Inertia tensors of eq. (66), in BODY_ORDER."""
    def slender(m, l, axial=0.0):
        return np.diag([m * l * l / 12.0, m * l * l / 12.0, axial * m * l * l / 12.0])
    return [slender(p["m1"], p["l1"], 0.1), slender(p["m2"], p["l2"]), slender(p["mb2"], p["lb2"]),
            slender(p["mp2"], p["lp2"]), slender(p["m3"], p["l3"]), slender(p["mb3"], p["lb3"]),
            slender(p["mp3"], p["lp3"])]


def cog_array(q, p=TABLE):
    fk = crane_fk(q, p)
    return np.array([fk[b][2] for b in BODY_ORDER])


# -- random states inside the stroke range ---------------------------------------------------------------
def random_states(seed, n):
    """``n`` states ``(q, u)`` with q1 any angle, q2, q3 in [0.05, 1.65] m, moderate speeds."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        q = np.array([rng.uniform(-math.pi, math.pi), rng.uniform(0.05, 1.65), rng.uniform(0.05, 1.65)])
        u = np.array([rng.uniform(-0.3, 0.3), rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1)])
        out.append((q, u))
    return out


STATES = random_states(20240601, 4)


def make_crane():
    """The code under test, built once per test module by the ``crane`` fixtures."""
    from crane_models.models.knuckle_boom.crane import KnuckleBoomCrane
    return KnuckleBoomCrane()
