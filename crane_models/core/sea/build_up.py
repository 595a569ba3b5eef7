"""A sea built up from rest: the sea's ``sea_build_up`` (:mod:`.state`) multiplies the whole sea -- elevation, water
particle kinematics and a vessel's motion in it -- by ``e(t) = 10 s³ − 15 s⁴ + 6 s⁵``, ``s = t/T``, for
``0 <= t < T``: 0 before, 1 after. The quintic's rate and acceleration vanish at both ends, so a motion built up
with it has no step in velocity or acceleration at t = 0 nor at T. Rates and accelerations of the built-up sea
follow by the product rule: ``(e x, ė x + e ẋ, ë x + 2 ė ẋ + e ẍ)``.

A start, not physics (as OrcaFlex's build-up stage): the ramped field is not a solution of linear wave theory while
it grows; statistics of a run are to be taken after ``T``. Time is model time t (the sea is a function of t alone
in every FMU of a system, whatever its start time): an experiment that starts at t0 >= T starts in the full sea.
The kernel's harmonic.c (``build_up_envelope``) computes the same numbers with the same operations."""
from __future__ import annotations

__all__ = ["build_up_envelope", "built_up", "built_up_rate", "FULL"]

FULL = (1.0, 0.0, 0.0)  # (e, ė, ë) of the sea at full strength


def build_up_envelope(t: float, duration: float) -> tuple:
    """``(e, ė, ë)`` at model time ``t`` of a build-up over ``duration`` [s] (0: none, :data:`FULL` throughout).

    >>> build_up_envelope(5.0, 10.0)
    (0.5, 0.1875, 0.0)
    >>> build_up_envelope(-1.0, 10.0), build_up_envelope(10.0, 10.0)
    ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    """
    if not duration > 0.0 or t >= duration:
        return FULL
    if t <= 0.0:
        return 0.0, 0.0, 0.0
    s = t / duration
    return (s * s * s * (10.0 - 15.0 * s + 6.0 * s * s), 30.0 * s * s * (1.0 - s) * (1.0 - s) / duration,
            60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (duration * duration))


def built_up(envelope: tuple, x, rate, accel) -> tuple:
    """``(e x, ė x + e ẋ, ë x + 2 ė ẋ + e ẍ)`` of a quantity ``x`` of the steady sea, its rate and acceleration."""
    e, de, dde = envelope
    return e * x, de * x + e * rate, dde * x + 2.0 * de * rate + e * accel


def built_up_rate(envelope: tuple, x, rate) -> tuple:
    """``(e x, ė x + e ẋ)``: a quantity of the steady sea and its rate, built up (a surface and its rate, a water
    velocity and its acceleration)."""
    e, de, _ = envelope
    return e * x, de * x + e * rate
