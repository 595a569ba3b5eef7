"""Closed kinematic loop of a hydraulic cylinder (Cibicik & Egeland 2018, §3.1, Figs. 2-3).

Joint ``k`` turns Link ``k`` relative to Link ``k-1`` by ``α_k``; the barrel ``bk`` turns relative to
Link ``k-1`` by ``β_k``; the piston slides out of the barrel by ``q_k``. Geometry (Fig. 2, in the
y-z plane of Frame k-1): the barrel joint is at ``(a_bk, -e_bk)`` from Joint k; the piston is attached
to Link k at ``(a_pk, e_pk)`` in Frame k; the cylinder length is ``l_ck = l_bk + q_k``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CylinderGeometry", "CylinderAngleMap", "CylinderOutOfRange"]


class CylinderOutOfRange(ValueError):
    """The piston extension is outside the range in which the loop of Fig. 2 can close."""


@dataclass(frozen=True)
class CylinderGeometry:
    """Parameters of one cylinder loop, in SI units (Table 1 symbols)."""

    lb: float  # l_bk, barrel length [m]
    ab: float  # a_bk, Joint k -> barrel joint along y_{k-1} [m]
    eb: float  # e_bk, Joint k -> barrel joint along -z_{k-1} [m]
    ap: float  # a_pk, Joint k -> piston attachment along y_k [m]
    ep: float  # e_pk, Joint k -> piston attachment along z_k [m]
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        c = self._cache
        c["b1"] = math.hypot(self.ab, self.eb)
        c["b2"] = math.hypot(self.ap, self.ep)
        c["alpha0"] = math.atan(self.ab / self.eb) + math.atan(self.ap / self.ep) - math.pi
        c["beta0"] = -math.atan(self.eb / self.ab) + math.pi / 2
        c["range"] = (abs(c["b1"] - c["b2"]) - self.lb, c["b1"] + c["b2"] - self.lb)
        c["last"] = (None, None)

    @property
    def b1(self) -> float:
        return self._cache["b1"]

    @property
    def b2(self) -> float:
        return self._cache["b2"]

    def extension_range(self) -> tuple:
        """Open interval of ``q_k`` in which the triangle of Fig. 2 exists (arccos arguments in (-1, 1))."""
        return self._cache["range"]

    def check(self, q: float) -> None:
        lo, hi = self.extension_range()
        if not (lo < q < hi):
            raise CylinderOutOfRange(f"piston extension {q!r} m outside the closable range ({lo:.6g}, {hi:.6g}) m")

    def alpha(self, q: float) -> float:
        """``α_k(q_k)``, eq. (29)."""
        lc = self.lb + q
        b1, b2 = self.b1, self.b2
        return math.acos((lc * lc - b1 * b1 - b2 * b2) / (-2.0 * b1 * b2)) + self._cache["alpha0"]

    def beta(self, q: float) -> float:
        """``β_k(q_k)``, eq. (30)."""
        lc = self.lb + q
        b1, b2 = self.b1, self.b2
        return -math.acos((b2 * b2 - b1 * b1 - lc * lc) / (-2.0 * b1 * lc)) + self._cache["beta0"]

    def transmission(self, alpha: float, beta: float) -> float:
        """``a_pk cos(α−β) − e_pk sin(α−β)``: the denominator of (37); zero means a dead point."""
        return self.ap * math.cos(alpha - beta) - self.ep * math.sin(alpha - beta)

    def rates(self, q: float) -> tuple:
        """``(α, β, dα/dq, dβ/dq, d²α/dq², d²β/dq²)``.

        First derivatives are the screw results (37) and (40); the second derivatives (needed for
        ``Ṗ``) follow by differentiating those closed forms once more.
        """
        last_q, last = self._cache["last"]
        if q == last_q:  # α and β maps of one cylinder ask for the same q in turn
            return last
        self.check(q)
        a, b = self.alpha(q), self.beta(q)
        lc = self.lb + q
        c, s = math.cos(a - b), math.sin(a - b)
        den = self.ap * c - self.ep * s
        num = self.ep * c + self.ap * s
        da = 1.0 / den  # (37)
        db = num / (lc * den)  # (40)
        dphi = da - db  # d(α−β)/dq
        dden = -num * dphi
        dnum = den * dphi
        dda = -dden / (den * den)
        ddb = (dnum * lc * den - num * (den + lc * dden)) / (lc * den) ** 2
        out = (a, b, da, db, dda, ddb)
        self._cache["last"] = (q, out)
        return out

    @property
    def alpha_map(self) -> "CylinderAngleMap":
        """``q ↦ (α, dα/dq, d²α/dq²)``: the joint map of Link k (kane.JointMap)."""
        return CylinderAngleMap(self, "alpha")

    @property
    def beta_map(self) -> "CylinderAngleMap":
        """``q ↦ (β, dβ/dq, d²β/dq²)``: the joint map of the barrel."""
        return CylinderAngleMap(self, "beta")


@dataclass(frozen=True)
class CylinderAngleMap:
    """One angle of the loop as a function of the piston extension, for :class:`kane.Body`.

    ``native`` describes the same map to the compiled kernel (``core/native/*.c``,
    ``cylinder_angle``), which evaluates (29)-(30), (37), (40) itself instead of calling back into Python.
    """

    geometry: CylinderGeometry
    angle: str  # "alpha" (29) or "beta" (30)

    def __call__(self, q: float) -> tuple:
        a, b, da, db, dda, ddb = self.geometry.rates(q)
        return (a, da, dda) if self.angle == "alpha" else (b, db, ddb)

    @property
    def native(self) -> tuple:
        g = self.geometry
        c = g._cache
        lo, hi = c["range"]
        return ("cylinder_" + self.angle, (g.lb, g.b1, g.b2, c["alpha0"], c["beta0"], g.ap, g.ep, lo, hi))
