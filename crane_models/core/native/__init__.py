"""The compiled kernel of :class:`core.kane.MultibodySystem` (``multibody.h``, ``*.c``), loaded with ctypes.

Why C: an FMU's ``doStep`` at a 1 ms communication step has about 150 µs for the model; the batched numpy
evaluation costs ~60 array operations of ~1 µs each. The kernel does the same arithmetic body by body in
one call: kinematics (16)-(28) with the cylinder maps (29)-(30), (37), (40), ``M``, ``C`` (44), the weight
term of (46), ``M⁻¹`` or a Cholesky solve, inertial wrenches (47)-(48), reactions (53)-(56), and the
constraint forces by auxiliary generalized speeds of the moving-base paper, and -- for efforts given by a
:class:`effort_laws.CoordinateEffortLaw` -- the whole state derivative ``[u; u̇]`` (``mbs_derivative``).
The numpy code in :mod:`core.kane` stays the specification and the fallback: it runs whenever the kernel is missing (a platform
without a compiled library in the FMU, a machine without a C compiler at install time) or disabled with
the environment variable ``CRANE_COSIM_NATIVE=0``; tests/test_native.py checks that both agree.

The library is plain C without the Python API, so one binary works in every Python that an FMU host
embeds. It is built by ``pip install`` (setup.py, optional extension) and copied into each FMU with the
package.
"""
from .stepping import FRICTION_KINDS, MAX_FRICTION_JOINTS, NativeIntegration, NativeTableau, NativeTask
from .system import NativeEffortLaw, NativeKinematics, NativeSystem, library, native_enabled
from .wrenches import NativeAuxiliarySpeeds, NativeReactions

__all__ = ["library", "native_enabled", "NativeSystem", "NativeKinematics", "NativeEffortLaw", "NativeTask",
           "NativeTableau", "NativeIntegration", "NativeReactions", "NativeAuxiliarySpeeds", "FRICTION_KINDS",
           "MAX_FRICTION_JOINTS"]
