"""The kernel's entry points: every C function of ``multibody.h`` that Python calls, with its ctypes prototype.

This table is the one list of them. From it come
  * the prototypes the binding calls with: ``system.library()`` returns a :class:`system.Kernel`, whose
    attribute ``lib.mbs_evaluate`` is the C function with the ``restype`` and ``argtypes`` given here (a name
    missing here raises AttributeError, so nothing can call the kernel with guessed argument types);
  * what every build of the kernel exports, and nothing else: ``setup.py`` (the in-place build of
    ``pip install``: ``-fvisibility=hidden`` with :func:`export_macro_value` under gcc/clang,
    ``export_symbols`` -- ``/EXPORT:`` or a ``.def`` -- under MSVC and MinGW) and ``fmi/platforms.py`` (the zig
    cross-builds: the same declarations on ELF and Mach-O, a module-definition file on Windows). A function
    that is not listed stays hidden, so the binding fails here, on Linux, as it would on any other platform.

Adding an entry point (a new C function Python calls):
  1. define it in one of the ``.c`` files and declare it in that file's header (``multibody.h`` includes them
     all; the export declarations refer to that declaration: a name no header declares does not compile);
  2. add one line below: its name, the C return type and the C parameter types as ctypes types (any pointer
     is ``c_void_p``; tests/test_kernel_entry_points.py compares every line with the C definition);
  3. call it as ``library().<name>(...)`` (``core/native/*.py``).
Every platform's kernel then exports it; tests/test_platforms.py reads each one with LIEF.

This module imports only ctypes: ``setup.py`` loads it by its file path before the package's dependencies exist.
"""
from ctypes import c_double, c_int, c_void_p

__all__ = ["SOURCES", "PROTOTYPES", "EXPORTS", "EXPORT_MACRO", "export_macro_value"]

# The kernel's C files (in this folder), the one list of them: setup.py compiles them for this machine,
# fmi/platforms.py for every FMU platform. A new .c file is added here, in its floor: the list runs bottom-up
# (linear algebra, the steppers, the models, a model under a stepper), and each file calls only files listed
# before it (tests/test_c_layout.py; the floors are described in multibody.h).
SOURCES = ("cholesky.c", "lu.c", "steppers.c", "rosenbrock.c", "kinematics.c", "point_load.c", "dynamics.c", "reduced.c", "task.c",
           "reactions.c", "crane_outputs.c", "tree_rhs.c", "jacobian.c", "payload.c", "stepping.c",
           "cosim_step.c", "cosim_payload.c", "moving_base.c", "held_base.c", "cosim_held.c", "cosim_moving.c",
           "task_outputs.c", "harmonic.c")

_P = c_void_p  # any pointer: a record (mbs_model, mbs_task, ...) or an array the caller owns

# name: (C return type, C parameter types), grouped by the .c file that defines them
PROTOTYPES = {
    # kinematics.c
    "mbs_evaluate": (c_int, (_P,) * 6),
    # cholesky.c
    "mbs_solve_spd": (c_int, (c_int, c_int, _P, _P, _P)),
    # dynamics.c
    "mbs_derivative": (c_int, (_P,) * 5),
    "mbs_inertial_wrenches": (c_int, (_P,) * 4),
    "mbs_update_inputs": (c_int, (_P,) * 6),
    # task.c
    "mbs_task_derivative": (c_int, (_P,) * 4 + (c_double,) + (_P,) * 4),
    # stepping.c
    "mbs_integrate": (c_int, (_P,) * 6 + (c_double,) * 2 + (_P,) * 3 + (c_int,) * 2 + (_P,) * 4),
    # reactions.c
    "mbs_aux_speeds": (c_int, (_P,) * 4 + (c_int, c_int, _P, c_int) + (_P,) * 4),
    "mbs_reactions": (c_int, (_P,) * 9),
    "mbs_interface_wrench": (c_int, (_P,) * 4 + (c_int, c_int, _P, c_int, _P, _P, c_int, c_double, _P, _P)),
    "mbs_interface_inertia": (c_int, (c_int, _P, _P, _P, c_int) + (_P,) * 4),
    "mbs_base_loads": (c_int, (_P,) * 8),
    # crane_outputs.c
    "mbs_crane_values_size": (c_int, (_P,) * 2),
    "mbs_crane_outputs": (c_int, (_P,) * 8 + (c_int, _P, _P)),
    "mbs_cut_values_size": (c_int, (_P,)),
    "mbs_cut_outputs": (c_int, (_P,) * 7 + (c_int, _P, _P)),
    # payload.c
    "mbs_payload_derivative": (c_int, (_P,) * 9),
    "mbs_payload_integrate": (c_int, (_P,) * 6 + (c_double,) * 2 + (_P,) * 2 + (c_int, _P, c_int, c_int)
                              + (_P,) * 4),
    # jacobian.c
    "mbs_task_jacobian": (c_int, (_P,) * 4 + (c_int, c_double) + (_P,) * 3 + (c_int,) + (_P,) * 3),
    # stepping.c
    "mbs_rosenbrock_integrate": (c_int, (_P,) * 7 + (c_double,) * 2 + (_P,) * 3 + (c_int,) * 2 + (_P,) * 4),
    # cosim_step.c
    "mbs_cosim_step": (c_int, (_P, c_double, c_double, _P, _P)),
    # cosim_payload.c
    "mbs_cosim_payload_step": (c_int, (_P, c_double, c_double, _P, _P)),
    # held_base.c
    "mbs_held_derivative": (c_int, (_P,) * 8),
    "mbs_held_integrate": (c_int, (_P,) * 6 + (c_double,) * 2 + (_P,) * 3 + (c_int,) * 2 + (_P,) * 4),
    "mbs_held_values_size": (c_int, (_P,)),
    "mbs_held_size": (c_int, (_P,)),
    "mbs_held_outputs": (c_int, (_P,) * 7 + (c_int,) + (_P,) * 2),
    "mbs_held_base_inputs": (c_int, (_P,) * 5),
    # cosim_held.c
    "mbs_cosim_held_step": (c_int, (_P, c_double, c_double, _P, _P)),
    # moving_base.c
    "mbs_moving_base_inputs": (c_int, (_P,) * 4),
    "mbs_moving_size": (c_int, (_P,) * 2),
    "mbs_moving_derivative": (c_int, (_P,) * 8),
    "mbs_moving_integrate": (c_int, (_P,) * 6 + (c_double,) * 2 + (_P,) * 3 + (c_int,) * 2 + (_P,) * 4),
    "mbs_moving_values_size": (c_int, (_P,) * 2),
    "mbs_moving_outputs": (c_int, (_P,) * 10 + (c_int, _P, _P)),
    # cosim_moving.c
    "mbs_cosim_moving_step": (c_int, (_P, c_double, c_double, _P, _P)),
    # point_load.c
    "mbs_point_values_size": (c_int, (_P,)),
    "mbs_point_outputs": (c_int, (_P,) * 6 + (c_int, _P, _P)),
    # task_outputs.c
    "mbs_task_values_size": (c_int, (_P,)),
    "mbs_task_outputs": (c_int, (_P, _P, c_double) + (_P,) * 5 + (c_int, _P)),
    # harmonic.c
    "mbs_harmonic_values_size": (c_int, (_P,)),
    "mbs_harmonic_values": (c_int, (_P, c_double)),
    "mbs_harmonic_step": (c_int, (_P, c_double, c_double, _P, _P)),
}

EXPORTS = tuple(PROTOTYPES)  # what every build of the kernel exports, in the table's order

# The macro multibody.h expands after declaring the entry points: a build defines it as export_macro_value() and
# compiles with -fvisibility=hidden (ELF, Mach-O).
EXPORT_MACRO = "MBS_EXPORTS"


def export_macro_value(names: tuple = EXPORTS) -> str:
    """``MBS_EXPORT(name)`` for each of ``names``, the value of ``-D MBS_EXPORTS=...`` (gcc and clang, ELF and
    Mach-O, with ``-fvisibility=hidden``): multibody.h turns each into a redeclaration of that function with default
    visibility, so only the table decides what is exported. Visibility rather than a linker export list, because
    zig's Mach-O linker ignores ``-exported_symbols_list`` (zig 0.17.1)."""
    return " ".join(f"MBS_EXPORT({name})" for name in names)
