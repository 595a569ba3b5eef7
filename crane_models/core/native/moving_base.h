/* A crane on a base moving with the accelerations the inputs hold over each step (moving_base.c): the base's motion
 * from the motion inputs, the right-hand side of the whole tree with an optional step-mean load (the load on the base
 * integrated as quadrature states), and the outputs of such a crane with its interface inertia and that mean.
 * models/knuckle_boom/moving_base.py (KnuckleBoomOnMovingBaseModel) is the specification. A model under the stepper,
 * beside payload.c. See multibody.h. */
#ifndef CRANE_MOVING_BASE_H
#define CRANE_MOVING_BASE_H

#include "crane_outputs.h"
#include "steppers.h"

/* The base's motion of the motion inputs m = [roll, pitch, yaw, w (3), w' (3), a_P (3)] (base frame:
 * core/moving_base/interface.py MOTION): the Euler rates q' = E^-1 w (rates), the Euler accelerations
 * q'' = E^-1 (w' - E' q') of (53) (euler) and R^0_1 a_P (acc). core/moving_base/euler.py is the specification; one
 * function for every moving-base crane, on the Python path and in a step in C. */
void mbs_base_motion(const double *motion, double *rates, double *euler, double *acc);

/* The step states of a step-mean load (core/moving_base/interface.py STEP_INTEGRALS): [int W dt (6), t] over the last
 * communication step (integrated: their derivative [W; 1]), then the same of the step before (their derivative 0). */
#define MBS_STEP_STATES 14

/* [mean; predicted] (12) of a load on the base W (core/moving_base/interface.py step_wrenches): the mean over the last
 * step, its integral over the elapsed time (the load W itself before any time elapsed: the FMU's outputs before the
 * first step), and the mean predicted over the coming step, 2 mean - (the step before's integral over its time), the
 * mean itself when the last or the step before had no time; zero for integrals NULL (no step-mean load). */
void mbs_step_loads(const double *integrals, const double *load, double *mean_predicted);
/* A step's start (the models' restart_step_integrals: core/moving_base/interface.py restarted): the last step's
 * integrals (7) moved to the step before's place and back at zero; returns 1 when one was not zero (then all 14 are
 * set, -0.0 too), else 0 (left as they are). */
int mbs_step_restart(double *integrals);
/* The step states' derivative (14) but the load W (its first 6 entries, written before or after): [W; 1; 0 (7)]. */
void mbs_step_rates(double *rates);

/* The interface inertia A (mbs_interface_inertia; E^-1 of (53) from the record's roll and pitch q[prescribed[0]],
 * q[prescribed[1]], R^0_1 that of body base_body) of the base coordinates prescribed = [roll, pitch, yaw, x0, y0, z0]
 * and the free ones, its upper triangle row by row (21), then W0 = W + A a [f; n] (6) for the load W and the base's
 * acceleration a = [a_P; w'] (base frame) into `inertia`. work: nf nf + 12 nf doubles. Returns 0, or -1 when M_ff is
 * not positive definite. */
int mbs_inertia_values(const mbs_model *m, const double *rec, const int *prescribed, const int *free_, int nf,
                       int base_body, const double *wrench, const double *accel, double *inertia, double *work);

/* The tree of a crane on a moving base: the law's inputs are the crane's n_law - 6, then the base's prescribed
 * accelerations [q'' (3) | R^0_1 a_P (3)] (a law of KnuckleBoomOnMovingBaseModel's form); the base's coordinates
 * angles (roll, pitch, yaw) and translation (x0, y0, z0). With `load` (the crane's outputs on a moving base) the state
 * also integrates the load on the base and the time and keeps the step before's: y = [q; u; the step states (14)],
 * y' = [u; u'; mbs_step_rates]. */
typedef struct {
    int n_law;
    const int *angles, *translation; /* (3) each */
    const mbs_crane_outputs_model *load;
} mbs_moving_base;

/* The law's inputs (n_law) and the base's angles and Euler rates (3 + 3, for the state: imposed at each step) of the
 * crane's inputs and the motion inputs: [crane | q'' | R^0_1 a_P | angles | rates]. Returns 0. */
int mbs_moving_base_inputs(const mbs_moving_base *mb, const double *crane_inputs, const double *motion,
                           double *inputs);
/* y with the base at the angles and rates of such inputs (base_inputs: their last 6), the base point at the origin
 * and at rest (Galilean invariance); returns 1 when an entry changed (its value, not only its sign: -0.0 stays). */
int mbs_moving_impose(const mbs_model *m, const mbs_moving_base *mb, const double *base_inputs, double *y);

/* The state's size: 2 n, and MBS_STEP_STATES more with the load's integrals. */
int mbs_moving_size(const mbs_model *m, const mbs_moving_base *mb);
/* y' at y into the record rec (q and u copied from y, then mbs_derivative; with `load` also mbs_step_rates). Returns as
 * mbs_derivative, or the load's error. work: mbs_derivative's, and n_entries + 12 nb doubles for the load. */
int mbs_moving_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                          const mbs_moving_base *mb, const double *y, double *ydot, double *rec, double *work);
/* mbs_integrate (stepping.h) over mbs_moving_derivative: the same arguments, mb in the place of the task. */
int mbs_moving_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_moving_base *mb,
                         const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                         double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                         const mbs_lengths *len);

/* What a crane on a moving base outputs: mbs_crane_outputs' values (crane->loads set), then with `inertia` the
 * interface inertia A of the prescribed base coordinates [roll, pitch, yaw, x0, y0, z0] (mbs_interface_inertia with
 * E^-1 of (53) from the record's roll and pitch) and W0 = W + A a, then the step-mean load and its prediction. */
typedef struct {
    const mbs_crane_outputs_model *crane;
    int inertia, nf, base_body;
    const int *prescribed, *free_; /* (6), (nf) */
} mbs_moving_outputs_model;

/* The values: the crane's (mbs_crane_values_size) | A's upper triangle row by row (21) | W0 [f; n] (6) (A, W0 zero
 * without `inertia`) | the load's step-mean [f; n] (6) and its prediction (6) (mbs_step_loads; zero without the
 * integrals). */
int mbs_moving_values_size(const mbs_model *m, const mbs_moving_outputs_model *o);
/* The values at the state x with the evaluation rec there (udot: its accelerations, NULL: the record's; extra:
 * further applied wrenches, or NULL), the base acceleration accel = [a_P; w'] (base frame; read with `inertia`) and
 * the step states (MBS_STEP_STATES, or NULL); then out[i] = values[index[i]] for the n_out outputs.
 * work: mbs_crane_outputs' and n n + 12 n + 1 doubles more. Returns 0, mbs_crane_outputs' error, or -1 when M_ff is
 * not positive definite. */
int mbs_moving_outputs(const mbs_model *m, const mbs_moving_outputs_model *o, const double *x, const double *rec,
                       const double *udot, const double *extra, const double *accel, const double *integral,
                       double *values, const int *index, int n_out, double *out, double *work);

#endif
