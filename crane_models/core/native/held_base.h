/* A tree on a base held over each step (held_base.c): the base's coordinates at given q and u for the whole
 * communication step (zero-order hold), their accelerations prescribed through the effort law, the free coordinates
 * stepped by the explicit pairs; and the outputs of a crane on such a base (its load on the base, tip, efforts,
 * interface inertia). models/vessel_crane/split.py CraneOnMovingBaseModel is the specification. A model under the
 * stepper, the floor of payload.h. See multibody.h. */
#ifndef CRANE_HELD_BASE_H
#define CRANE_HELD_BASE_H

#include "crane_outputs.h"
#include "steppers.h"

/* The held base: the right-hand side's inputs are [the law's n_law inputs | q (n) | u (n)], q and u the whole tree's
 * with the free coordinates' entries ignored (the state y = [q_f; u_f] takes their place). */
struct mbs_held_outputs_model_s;
typedef struct {
    int nf, n_law;
    const int *free_;               /* (nf) the free coordinates, in the state's order */
    const int *angles;              /* (3) the coordinates of roll, pitch, yaw (53) */
    /* NULL, or the outputs whose load on the base the state integrates: y = [q_f; u_f; the step states (14:
     * moving_base.h MBS_STEP_STATES, the integral [f; n] (6) and the time (1) of the last step and of the step
     * before)], their derivative mbs_step_rates (a step-mean wrench's quadrature states) */
    const struct mbs_held_outputs_model_s *load;
} mbs_held_base;

/* The right-hand side's inputs for the motion inputs m = [roll, pitch, yaw, w (3), w' (3), a_P (3)] (base frame:
 * core/moving_base/interface.py MOTION) and the crane's own n_law - 6 inputs: the law's [q'' = E^-1 (w' - E' q')
 * (3) | the crane's | R^0_1 a_P (3)] (a law of held_base_law's form: the angles, the crane, the base point), then
 * q and u: the angles and the Euler rates q' = E^-1 w at hb->angles, zero elsewhere (the base point at the origin and
 * at rest: Galilean invariance). The base's motion of models/knuckle_boom/moving_base.py base_motion_of, which
 * core/moving_base/euler.py specifies; the same function for the Python path and a step in C (cosim_held.c). */
int mbs_held_base_inputs(const mbs_model *m, const mbs_held_base *hb, const double *crane_inputs,
                          const double *motion, double *inputs); /* returns 0 */

/* The state's size: 2 nf, and MBS_STEP_STATES more with the load's integrals. */
int mbs_held_size(const mbs_held_base *hb);
/* ydot = [u_f; u'_f] (and mbs_step_rates with hb->load) at y = [q_f; u_f] (and the integral): the record rec of
 * mbs_derivative (law with the base's coordinates prescribed) at the whole q, u. Returns as mbs_derivative. */
int mbs_held_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_held_base *hb,
                        const double *y, double *ydot, double *rec, double *work);
/* mbs_integrate (stepping.h) over mbs_held_derivative: the same arguments, hb in the place of the task. */
int mbs_held_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_held_base *hb,
                       const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                       const mbs_lengths *len);

/* What a crane on a held base outputs: the constraint wrench at the cut (mbs_cut_outputs' model, whose `frame` is the
 * base body) with the axial torque of the cut's joint, turned into the base frame and negated (the load on the
 * base); the tip from the base origin in the base frame; the free coordinates' efforts; with `inertia` the interface
 * inertia A (mbs_interface_inertia, E^-1 of (53) from the base's roll and pitch q[prescribed[0]], q[prescribed[1]])
 * and W0 = W + A a. */
typedef struct mbs_held_outputs_model_s {
    const mbs_cut_outputs_model *cut;
    int nf, axial, inertia;         /* axial: the coordinate whose effort is the torque about the cut's z axis */
    const int *free_, *prescribed;  /* (nf); (6) roll, pitch, yaw, x0, y0, z0 */
} mbs_held_outputs_model;

/* The values, in this order (core/native/held_base.py mirrors it): q_f (nf) | u_f (nf) | load on the base [f; n]
 * (6) | tip (3) | efforts of the free coordinates (nf) | A's upper triangle row by row (21) | W0 [f; n] (6) (A, W0
 * zero without `inertia`) | the load's mean over the step [f; n] (6: its integral over the elapsed time, the load
 * itself before any time elapsed) and that mean predicted over the coming step (6) (mbs_step_loads; zero without the
 * integrals). */
int mbs_held_values_size(const mbs_held_outputs_model *o);
/* The values from the record rec of an evaluation (mbs_held_derivative), the base's acceleration a = [a_P; w']
 * (base frame; read with `inertia` only) and the step states (MBS_STEP_STATES, or NULL); then
 * out[i] = values[index[i]] for the n_out outputs.
 * work: 3 n + 15 + 12 nb + 6 + nf nf + 12 nf + 1 doubles. Returns 0, or -1 when M_ff is not positive definite. */
int mbs_held_outputs(const mbs_model *m, const mbs_held_outputs_model *o, const double *rec, const double *accel,
                     const double *integral, double *values, const int *index, int n_out, double *out, double *work);

#endif
