/* Compiled kernel of crane_models.core.kane.MultibodySystem: kinematics, projection matrices and the
 * equations of motion of a tree of rigid bodies (Cibicik & Egeland 2018, eqs. (16)-(28), (43)-(46)).
 *
 * It computes exactly what the numpy reference in core/kane.py computes, body by body instead of batched:
 * the numpy version is the specification, tests/test_native.py checks that both agree to rounding.
 * One header per concept, one floor above the other (each .c file calls only the floors below it, and
 * entry_points.SOURCES lists them bottom-up: tests/test_c_layout.py):
 *   vec3.h        3-vectors and 3 x 3 matrices (inline);
 *   linalg.h      cholesky.c mbs_solve_spd, lu.c the LU of the stiff stepper;
 *   steppers.h    steppers.c mbs_integrate_rhs, an explicit pair over any right-hand side, and what every
 *                 stepper shares (controller, return codes);
 *   rosenbrock.h  rosenbrock.c mbs_rosenbrock_rhs, the Rosenbrock-W method over any right-hand side;
 *   kinematics.h  kinematics.c mbs_evaluate (kinematics, M, C) and the tree walk every entry point starts with;
 *   point_load.h  point_load.c a wrench and an inertia from the inputs at a point of one body (an effort law's
 *                 load: the vessel under its crane), and that point's motion as outputs;
 *   dynamics.h    dynamics.c the joint effort law, mbs_derivative (state derivative), mbs_update_inputs (the same
 *                 evaluation for new inputs), mbs_inertial_wrenches;
 *   task.h        task.c mbs_task_derivative (point springs, a programmed constraint and joint friction by the
 *                 articulated-body algorithm: models/flexible_crane is its specification);
 *   reactions.h   reactions.c mbs_aux_speeds (constraint forces by auxiliary speeds), mbs_reactions (joint
 *                 reactions), mbs_interface_wrench, mbs_interface_inertia, mbs_base_loads (a crane on a moving base);
 *   crane_outputs.h  crane_outputs.c mbs_crane_outputs: every output of a crane from one evaluation, written into
 *                 the caller's output table by an index map;
 *   tree_rhs.h    tree_rhs.c a tree's right-hand side as the steppers see it, jacobian.c its Jacobian;
 *   payload.h     payload.c mbs_payload_derivative, mbs_payload_integrate (a load on a hoisting wire from a body
 *                 point);
 *   stepping.h    stepping.c mbs_integrate, mbs_rosenbrock_integrate (a tree under either stepper);
 *   cosim_step.h  cosim_step.c mbs_cosim_step: a communication step of a tree model from a value table's inputs to
 *                 its outputs (what an FMU's doStep does when nothing in it needs Python);
 *   cosim_payload.h  cosim_payload.c mbs_cosim_payload_step: the same with a payload on the wire, declined at a
 *                 state event (the caller locates it);
 *   moving_base.h  moving_base.c mbs_base_motion (the base's motion of the motion inputs, (53)), mbs_moving_derivative,
 *                 mbs_moving_integrate, mbs_moving_outputs (a crane on a base moving with the inputs' accelerations, its
 *                 load on the base integrated over each step with the step-mean wrench): a model under the stepper;
 *   held_base.h   held_base.c mbs_held_derivative, mbs_held_integrate, mbs_held_outputs (a crane on a base held over
 *                 each step: a model under the stepper, the floor of payload.c, with its outputs);
 *   cosim_held.h  cosim_held.c mbs_cosim_held_step: mbs_cosim_step's step for a crane on a held base;
 *   cosim_moving.h  cosim_moving.c mbs_cosim_moving_step: the same for a crane on a moving base (its base imposed
 *                 and its step integrals restarted at each step);
 *   task_outputs.h  task_outputs.c mbs_task_outputs: every output of a tree with a task (the flexible crane) from one
 *                 evaluation, written into the caller's output table by an index map;
 *   harmonic.h    harmonic.c mbs_harmonic_values, mbs_harmonic_step: a rigid body moved by sums of harmonic series
 *                 (position and Euler angles (53)), its body-frame rates by the Euler kinematics, and its
 *                 communication step over a value table (outputs of time alone: a wave-driven vessel).
 * The steppers know no model: a model's right-hand side is handed to them from above (stepping.c, payload.c),
 * as integration/integrators.py steps the Python models.
 * Plain C with no Python API, loaded with ctypes, so one binary serves every Python version that an
 * FMU host may embed. Arrays are row-major doubles; all sizes come from the model record.
 * The entry points -- the functions Python calls -- are declared in those headers and listed, with their ctypes
 * prototypes, in entry_points.py: a build exports exactly that list (see MBS_EXPORTS at the end); the other
 * functions declared there are shared between the .c files and stay hidden. Every .c file includes this header,
 * so that the export declarations reach the file defining each entry point.
 */
#ifndef CRANE_MULTIBODY_H
#define CRANE_MULTIBODY_H

#include "vec3.h"
#include "linalg.h"
#include "steppers.h"
#include "rosenbrock.h"
#include "kinematics.h"
#include "point_load.h"
#include "dynamics.h"
#include "task.h"
#include "reactions.h"
#include "crane_outputs.h"
#include "tree_rhs.h"
#include "payload.h"
#include "stepping.h"
#include "cosim_step.h"
#include "cosim_payload.h"
#include "moving_base.h"
#include "held_base.h"
#include "cosim_held.h"
#include "cosim_moving.h"
#include "task_outputs.h"
#include "harmonic.h"

/* What a kernel exports. entry_points.py lists the entry points once; a build on ELF or Mach-O compiles with
 * -fvisibility=hidden and defines MBS_EXPORTS as MBS_EXPORT(name) for each of them (setup.py, fmi/platforms.py):
 * a redeclaration with default visibility, so exactly those names are exported (a name not declared above does
 * not compile). Windows builds give the linker the same list (/EXPORT, a .def file) and leave it undefined. */
#ifdef MBS_EXPORTS
#define MBS_EXPORT(f) __attribute__((visibility("default"))) __typeof__(f) f;
MBS_EXPORTS
#endif

#endif
