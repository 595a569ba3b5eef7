"""Loading the compiled kernel (``multibody.h`` and its ``.c`` files beside this module) with ctypes, the model
record of a :class:`core.kane.MultibodySystem` and its evaluations (``mbs_evaluate``, ``mbs_derivative``)."""
from __future__ import annotations

import ctypes
import os
import threading
import warnings
from pathlib import Path
from typing import Optional, Protocol

import numpy as np

from .entry_points import PROTOTYPES
from .kernel_files import kernel_candidates

__all__ = ["library", "native_enabled", "Kernel", "NativeSystem", "NativeKinematics", "NativeEffortLaw"]

_lib = None
_loaded = False
# Loading releases the GIL (dlopen, the file system): without the lock a second thread that asked meanwhile -- two FMU
# instances made at once on a host's threads -- found "loaded" and no kernel, and its model ran on numpy, 10x slower.
_loading = threading.Lock()


class TaskRecord(Protocol):
    """What :meth:`NativeSystem.task_derivative` reads of a task (``stepping.NativeTask``, which builds on this
    module: named here by what it offers, so that the two modules import in one direction)."""

    n_joints: int
    result_size: int
    pointer: int
    work_pointer: int


# Joint maps that the kernel evaluates (a map object's ``native = (kind, parameters)``).
MAP_KINDS = {"cylinder_alpha": 2, "cylinder_beta": 3}
INVERT_UP_TO = 12  # systems with at most this many coordinates get M⁻¹ with every evaluation


class _Model(ctypes.Structure):
    _fields_ = [("nb", ctypes.c_int), ("n", ctypes.c_int), ("invert", ctypes.c_int)] + [
        (name, ctypes.c_void_p) for name in ("parent", "coord", "jtype", "custom_map", "map_par", "axis", "offset",
                                             "rotation0", "mass", "inertia", "com", "col_ptr", "col_idx")]


def _address(a: np.ndarray) -> int:
    """Address of the data of a writable contiguous float array: a third of ``a.ctypes.data``'s cost,
    which matters a few times per model evaluation."""
    return ctypes.addressof(ctypes.c_double.from_buffer(a))


def _plain(a: np.ndarray) -> np.ndarray:
    """``a`` when :func:`_address` takes it (contiguous, writable, float64), else such a copy (kept by the caller)."""
    return a if a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable else np.array(a, dtype=float)


def native_enabled() -> bool:
    return os.environ.get("CRANE_COSIM_NATIVE", "1") != "0"


class Kernel(ctypes.CDLL):
    """A loaded kernel whose functions are reached only through the table of entry points: ``lib.mbs_evaluate``
    is the C function with the prototype of :data:`entry_points.PROTOTYPES`; a name the table does not list
    raises AttributeError, even when the library defines it (it would be hidden in every other build)."""

    def __getitem__(self, name):  # ctypes.CDLL.__getattr__ comes here once per name, then caches the function
        try:
            restype, argtypes = PROTOTYPES[name]
        except (KeyError, TypeError):
            raise AttributeError(f"{name!r} is not an entry point of the kernel: crane_models/core/native/"
                                 "entry_points.py lists them (and what every platform's kernel exports)") from None
        function = super().__getitem__(name)
        function.restype, function.argtypes = restype, argtypes
        return function

    def missing_entry_points(self) -> list:
        """The table's names this library does not export (a kernel built from older sources)."""
        missing = []
        for name in PROTOTYPES:
            try:
                ctypes.CDLL.__getitem__(self, name)  # looked up, not cached: the prototype is set on first use
            except AttributeError:
                missing.append(name)
        return missing


def library() -> Optional[Kernel]:
    """The loaded kernel (the first of :func:`kernel_candidates` that loads and exports every entry point, or the
    file named by the environment variable ``CRANE_COSIM_KERNEL``), or None when none is built for this platform
    (or the kernel is disabled by ``CRANE_COSIM_NATIVE=0``). A kernel without every entry point of the table is
    passed over with a warning naming them (an error for ``CRANE_COSIM_KERNEL``): it was built from older sources."""
    global _lib, _loaded
    if not native_enabled():
        return None
    if not _loaded:
        with _loading:
            if not _loaded:
                _lib = _first_loadable_kernel()
                _loaded = True  # after the search: a thread that finds it set finds the kernel set too
    return _lib


def _first_loadable_kernel() -> Optional[Kernel]:
    """The first of the candidates (or ``CRANE_COSIM_KERNEL``) that loads and exports every entry point."""
    chosen = os.environ.get("CRANE_COSIM_KERNEL")  # one kernel file to test (e.g. a cross-built one)
    for path in [Path(chosen)] if chosen else kernel_candidates():
        try:
            lib = Kernel(str(path))
        except OSError as exc:  # e.g. a local build for another Python's platform
            if chosen:
                raise RuntimeError(f"CRANE_COSIM_KERNEL={chosen}: cannot load this kernel ({exc})") from exc
            continue
        missing = lib.missing_entry_points()
        if missing:
            message = f"{path} does not export {', '.join(missing)} (built from older sources? pip install -e .)"
            if chosen:
                raise RuntimeError(f"CRANE_COSIM_KERNEL={chosen}: {message}")
            warnings.warn(f"{message}; not used", RuntimeWarning, stacklevel=4)
            continue
        return lib
    return None


class NativeKinematics:
    """The :class:`kane.Kinematics` of one kernel evaluation: the same attributes, each a view into the
    record that is made on first access (a model's derivative reads a few of the fifteen arrays; making
    all views every time cost a third of an evaluation). ``Minv`` is None when the kernel did not invert
    ``M`` (large systems) or found it not positive definite. The record of a state derivative also has
    ``udot``, ``efforts``, ``xdot``, ``Cu`` and ``Pdot_u`` but not ``C`` and ``Pdot`` (not computed), and
    zeros for ``P``, ``twist`` and ``cog_jacobian`` of massless bodies."""

    PP = None  # the numpy path's [P | Ṗ]; the kernel computes M and C itself

    def __init__(self, record: np.ndarray, layout: dict, inverted: bool, eager: tuple = ()) -> None:
        self.record = record
        self._layout = layout
        self._inverted = inverted
        for name in eager:  # what the caller reads anyway: cheaper made here than through __getattr__
            a, b, shape = layout[name]
            setattr(self, name, record[a:b].reshape(shape))

    def __getattr__(self, name: str):
        if name.startswith("__"):  # copy/pickle probe special methods before __setstate__ ran
            raise AttributeError(name)
        try:
            a, b, shape = self._layout[name]
        except KeyError:
            raise AttributeError(name) from None
        view = self.record[a:b].reshape(shape)
        if name == "Minv" and not (self._inverted and view[0, 0] == view[0, 0]):  # NaN: not positive definite
            view = None
        setattr(self, name, view)
        return view

    def copy(self) -> "NativeKinematics":
        """The same evaluation in a record of its own."""
        return NativeKinematics(self.record.copy(), self._layout, self._inverted)

    def __getstate__(self) -> dict:  # pickled with a saved FMU state: the record and its layout suffice
        return {"record": self.record, "_layout": self._layout, "_inverted": self._inverted}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


class NativeSystem:
    """Constant model record of one :class:`kane.MultibodySystem` and its evaluation with the kernel."""

    def __init__(self, lib: ctypes.CDLL, system) -> None:
        nb, n = system.nb, system.n
        self.nb, self.n = nb, n
        self._evaluate = lib.mbs_evaluate
        self._solve = lib.mbs_solve_spd
        self._inertial = lib.mbs_inertial_wrenches
        self._derivative = lib.mbs_derivative
        self._update_inputs = lib.mbs_update_inputs
        self._task_derivative = lib.mbs_task_derivative
        self._inputs, self._inputs_ptr = None, 0
        coord = np.array([b.coordinate if b.coordinate is not None else -1 for b in system.bodies], dtype=np.intc)
        jtype = np.array([1 if r else 2 if p else 0 for r, p in zip(system.revolute, system.prismatic)], dtype=np.intc)
        # Joint maps the kernel evaluates itself; the others are called in Python before each evaluation.
        custom = np.zeros(nb, dtype=np.intc)
        map_par = np.zeros((nb, 9))
        self.python_maps = []
        for k, fmap in system._maps:
            kind, par = getattr(fmap, "native", (None, ()))
            if kind in MAP_KINDS:
                custom[k] = MAP_KINDS[kind]
                map_par[k, :len(par)] = par
            else:
                custom[k] = 1
                self.python_maps.append((k, fmap))
        self._all_maps = list(system._maps)
        self._coord = coord
        cols, ptr = [], [0]
        for k in range(nb):
            on_path = sorted({int(coord[j]) for j in np.flatnonzero(system.path[k]) if coord[j] >= 0})
            cols += on_path
            ptr.append(len(cols))
        # Kept as attributes: the record holds raw pointers into them.
        self._arrays = [np.ascontiguousarray(a, dtype=dt) for a, dt in (
            (system.parent, np.intc), (coord, np.intc), (jtype, np.intc), (custom, np.intc), (map_par, float),
            (system.axis, float), (system.offset, float), (system.rotation0, float), (system.mass, float),
            (system.inertia, float), (system.com, float), (ptr, np.intc), (cols if cols else [0], np.intc))]
        # Small systems also get M⁻¹ from each evaluation (n³ flops in C): a solve then is one product.
        self.invert = n <= INVERT_UP_TO
        self._model = _Model(nb, n, int(self.invert), *(a.ctypes.data for a in self._arrays))
        self._model_ptr = ctypes.addressof(self._model)
        self.work_size = 2 * nb * 6 * n + 6 * nb + 2 * n * n  # see mbs_evaluate
        self._work = np.empty(self.work_size)
        self._work_ptr = self._work.ctypes.data
        sizes = [("rotation", 9 * nb), ("origin", 3 * nb), ("cog", 3 * nb), ("P", 6 * nb * n),
                 ("Pdot", 6 * nb * n), ("twist", 6 * nb), ("theta", nb), ("theta_dot", nb), ("G", nb * n),
                 ("cog_jacobian", 3 * nb * n), ("M", n * n), ("C", n * n), ("mgz", n), ("Minv", n * n), ("Cu", n), ("Pdot_u", 6 * nb)]
        # Record: [q | u | u̇ | efforts | maps (nb, 3) | outputs...], one allocation per evaluation
        # (record_head in the kernel); [u | u̇] is the state derivative of mbs_derivative.
        self._maps_at = 4 * n
        offs, pos = {}, 4 * n + 3 * nb
        for name, size in sizes:
            offs[name] = (pos, pos + size)
            pos += size
        self.size = pos
        shapes = {"rotation": (nb, 3, 3), "origin": (nb, 3), "cog": (nb, 3), "P": (nb, 6, n), "Pdot": (nb, 6, n),
                  "twist": (nb, 6), "theta": (nb,), "theta_dot": (nb,), "G": (nb, n), "cog_jacobian": (nb, 3, n),
                  "M": (n, n), "C": (n, n), "mgz": (n,), "Minv": (n, n), "Cu": (n,), "Pdot_u": (nb, 6)}
        self._layout = {name: (a, b, shapes[name]) for name, (a, b) in offs.items()}
        self._layout.update(q=(0, n, (n,)), u=(n, 2 * n, (n,)), udot=(2 * n, 3 * n, (n,)),
                            efforts=(3 * n, 4 * n, (n,)), xdot=(n, 3 * n, (2 * n,)))
        # A state derivative's record has C u and Ṗ u but not the matrices C and Ṗ (the kernel skips them: a third
        # of its work), nor P, the twist and the COG Jacobian of massless bodies (zeros there).
        self._derivative_layout = {k: v for k, v in self._layout.items() if k not in ("C", "Pdot")}
        # mbs_task_derivative works on the bodies' spatial quantities: no projection matrices, G or M.
        self._task_layout = {k: v for k, v in self._layout.items() if k not in (
            "C", "Pdot", "P", "G", "cog_jacobian", "M", "mgz", "Minv", "Cu", "Pdot_u")}

    def _new_record(self, q: np.ndarray, u: np.ndarray, tail: int = 0, zeros: bool = True) -> tuple:
        """A fresh record with ``q``, ``u`` and the joint maps the kernel does not evaluate itself, and
        ``tail`` more doubles after it. Zeros where a state derivative leaves the P, twist and COG-Jacobian
        rows of massless bodies untouched."""
        n, nb = self.n, self.nb
        rec = np.zeros(self.size + tail) if zeros else np.empty(self.size + tail)
        rec[:n] = q
        rec[n:2 * n] = u
        base = _address(rec)
        if self.python_maps:
            m = rec[self._maps_at:self._maps_at + 3 * nb].reshape(nb, 3)
            for k, fmap in self.python_maps:
                m[k] = fmap(float(rec[self._coord[k]]))
        return rec, base

    def _map_domain_error(self, rec: np.ndarray, code: int) -> None:
        """A map outside its domain: its Python version raises the model's own error."""
        k = code - 1
        dict(self._all_maps)[k](float(rec[self._coord[k]]))
        raise ValueError(f"joint map of body {k} is outside its domain at q = {rec[self._coord[k]]!r}")

    def evaluate(self, q: np.ndarray, u: np.ndarray) -> "NativeKinematics":
        """All kinematic quantities and ``M``, ``C`` at ``(q, u)`` in one fresh record."""
        rec, base = self._new_record(q, u, zeros=False)  # mbs_evaluate writes every row
        n = self.n
        code = self._evaluate(self._model_ptr, base, base + 8 * n, base + 8 * self._maps_at,
                              base + 8 * (self._maps_at + 3 * self.nb), self._work_ptr)
        if code:
            self._map_domain_error(rec, code)
        # A model that asks for the kinematics (not a state derivative) solves (43) itself: q, u, M, C, mgz.
        return NativeKinematics(rec, self._layout, self.invert, ("q", "u", "M", "C", "mgz"))

    def derivative(self, x: np.ndarray, law: "NativeEffortLaw", inputs: np.ndarray) -> "NativeKinematics":
        """The kinematics at ``x = [q; u]`` with ``u̇`` of (43) under gravity and the efforts of ``law``
        (``kin.udot``, ``kin.efforts``, ``kin.xdot = [u; u̇]``) -- mbs_derivative."""
        rec, base = self._new_record(x[:self.n], x[self.n:])
        code = self._derivative(self._model_ptr, law.pointer, self._inputs_address(inputs), base, self._work_ptr)
        return self._finish(rec, code, law)

    def task_derivative(self, q: np.ndarray, u: np.ndarray, z: np.ndarray, law: "NativeEffortLaw",
                        inputs: np.ndarray, task: TaskRecord, t: float) -> tuple:
        """:meth:`derivative` with point springs, a programmed constraint and joint friction
        (``mbs_task_derivative``); ``z`` the bristle deflections. Returns the kinematics and the view
        ``[ż | λ (2) | t_f | f_n | Φ (2) | constraint force (3)]`` of the record's tail."""
        nj = task.n_joints
        rec, base = self._new_record(q, u, nj + task.result_size)
        rec[self.size:self.size + nj] = z
        zp = base + 8 * self.size
        code = self._task_derivative(self._model_ptr, law.pointer, self._inputs_address(inputs), task.pointer, t,
                                     zp, base, zp + 8 * nj, task.work_pointer)
        return self._finish(rec, code, law, task), rec[self.size + nj:]

    def update_inputs(self, kin: "NativeKinematics", law: "NativeEffortLaw", old: np.ndarray,
                      new: np.ndarray) -> Optional["NativeKinematics"]:
        """The evaluation ``kin`` of :meth:`derivative` for the inputs ``new`` instead of ``old``, in a copy
        (``mbs_update_inputs``: ``u̇ += M⁻¹ B Δw``, ``e += B Δw``); None when the kernel cannot (a law with prescribed
        coordinates, ``M`` not positive definite): the caller evaluates anew or solves in numpy."""
        if old.size != law.n_inputs or new.size != law.n_inputs:
            raise ValueError(f"the law takes {law.n_inputs} inputs, got {old.size} and {new.size}")
        rec, old, new = kin.record.copy(), _plain(old), _plain(new)
        if self._update_inputs(self._model_ptr, law.pointer, _address(old), _address(new), _address(rec),
                               self._work_ptr):
            return None
        return NativeKinematics(rec, kin._layout, kin._inverted, ("xdot",))

    def _inputs_address(self, inputs: np.ndarray) -> int:
        if inputs is not self._inputs:  # the same array through all stages of a step: its address once
            arr = np.ascontiguousarray(inputs, dtype=float)
            # Only the caller's own array may be remembered: the kernel then reads its current values.
            self._inputs = inputs if arr is inputs else None
            self._inputs_keep, self._inputs_ptr = arr, (arr.ctypes.data if arr.size else 0)
        return self._inputs_ptr

    def _finish(self, rec: np.ndarray, code: int, law: "NativeEffortLaw", task=None) -> "NativeKinematics":
        if code > 0:
            self._map_domain_error(rec, code)
        kin = NativeKinematics(rec, self._task_layout if task is not None else self._derivative_layout, self.invert)
        if code < 0:
            if task is not None or law.prescribed or law.load is not None:
                raise np.linalg.LinAlgError("mass matrix, constraint Schur complement or M + Gᵀ A G is singular")
            # M not positive definite: numpy's general solve decides (as MultibodySystem.solve)
            kin.udot[:] = np.linalg.solve(kin.M, kin.efforts - law.g * kin.mgz - kin.Cu)
        return kin

    def effort_law(self, law, g: float, load=None) -> "NativeEffortLaw":
        """The kernel's record of an :class:`effort_laws.CoordinateEffortLaw` with gravity ``g`` (and a ``load``)."""
        if law.n != self.n:
            raise ValueError(f"effort law has {law.n} coordinates, the system {self.n}")
        return NativeEffortLaw(law, g, load)

    def projections_record(self, kin: "NativeKinematics") -> np.ndarray:
        """A record with what the wrench functions read (P, Ṗ u, twists of the bodies with mass): the
        kinematics' own, or -- for mbs_task_derivative's, which has none -- a full evaluation at the same
        state (outputs only: not on the stepping path)."""
        if "P" in kin._layout:
            return kin.record
        return self.evaluate(kin.q, kin.u).record

    def inertial_wrenches(self, record: np.ndarray, udot: np.ndarray) -> np.ndarray:
        """``W_in`` of (47)-(48), ``[f; n]`` at each COG in body coordinates, (nb, 6)."""
        buf = np.empty(self.n + 6 * self.nb)
        buf[:self.n] = udot
        base = _address(buf)
        self._inertial(self._model_ptr, _address(record), base, base + 8 * self.n)
        return buf[self.n:].reshape(self.nb, 6)

    def solve_spd(self, M: np.ndarray, b: np.ndarray) -> Optional[np.ndarray]:
        """``M⁻¹ b`` by Cholesky for a square ``M`` (the mass matrix or a block of it) and ``b`` of shape (m,)
        or (m, k) (M is copied, not changed); None when ``M`` is not positive definite."""
        n = M.shape[0]
        k = 1 if b.ndim == 1 else b.shape[1]
        work = np.empty(n * n + 2 * n * k)
        work[:n * n] = M.reshape(-1)
        work[n * n:n * n + n * k] = b.reshape(-1)
        base = _address(work)
        if self._solve(n, k, base, base + 8 * n * n, base + 8 * (n * n + n * k)):
            return None
        x = work[n * n + n * k:]
        return x if b.ndim == 1 else x.reshape(n, k)


class _EffortLaw(ctypes.Structure):
    _fields_ = [("n_in", ctypes.c_int), ("g", ctypes.c_double)] + [
        (name, ctypes.c_void_p) for name in ("constant", "input_gain", "linear", "cubic", "damping", "stop_low",
                                             "stop_high", "stop_k", "stop_c")] + [("gravity_compensation", ctypes.c_int),
                                                                                   ("prescribed", ctypes.c_void_p),
                                                                                   ("load", ctypes.c_void_p)]


class NativeEffortLaw:
    """Constant record of a :class:`effort_laws.CoordinateEffortLaw` and gravity, for ``mbs_derivative``; ``load``: a
    :class:`point_load.NativePointLoad` acting with it (its inputs after the law's: ``n_inputs`` counts them)."""

    def __init__(self, law, g: float, load=None) -> None:
        self.g = float(g)
        self.n_inputs = law.n_inputs if load is None else max(law.n_inputs, load.inputs_end)
        self.load = load  # kept: the record holds its address
        self.gravity_compensation = bool(law.gravity_compensation)
        # Kept as attributes: the record holds raw pointers into them.
        self._arrays = [np.ascontiguousarray(a, dtype=float) for a in (
            law.constant, law.input_gain if law.n_inputs else np.zeros((law.n, 1)), law.linear, law.cubic,
            law.damping, law.stop_low, law.stop_high, law.stop_stiffness, law.stop_damping)]
        ptrs = [a.ctypes.data for a in self._arrays]
        if not law.has_stops:
            ptrs[5:] = [None] * 4
        self.prescribed = law.prescribed is not None
        self._prescribed = np.ascontiguousarray(law.prescribed if self.prescribed else np.zeros(0), dtype=np.intc)
        self._struct = _EffortLaw(law.n_inputs, self.g, *ptrs, int(law.gravity_compensation),
                                  self._prescribed.ctypes.data if self.prescribed else None)
        if load is not None:
            if self.prescribed:
                raise ValueError("a law with prescribed coordinates takes no load (mbs_derivative)")
            self._struct.load = load.pointer
        self.pointer = ctypes.addressof(self._struct)
