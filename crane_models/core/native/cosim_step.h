/* One communication step of a tree model entirely in the kernel (cosim_step.c, issue 23): the inputs read from the
 * caller's value table, the same evaluation updated for them, the stepping, the state's check and every output
 * written back into the table -- no Python, no interpreter lock. The top floor of the kernel. See multibody.h. */
#ifndef CRANE_COSIM_STEP_H
#define CRANE_COSIM_STEP_H

#include <stdint.h>

#include "stepping.h"

/* How the outputs of a step are written: mbs_crane_outputs or mbs_cut_outputs (crane_outputs.h), mbs_point_outputs
 * (point_load.h). */
enum { MBS_COSIM_CRANE_OUTPUTS = 0, MBS_COSIM_CUT_OUTPUTS = 1, MBS_COSIM_POINT_OUTPUTS = 2 };

/* Why a step was declined (mbs_cosim_step's return value; nothing changed, the caller steps another way). */
enum { MBS_COSIM_DONE = 0, MBS_COSIM_TIME = 1, MBS_COSIM_INPUTS = 2, MBS_COSIM_UPDATE = 3, MBS_COSIM_STEPPER = 4,
       MBS_COSIM_STATE = 5, MBS_COSIM_OUTPUTS = 6, MBS_COSIM_EVENT = 7, MBS_COSIM_RANGE = 8 };

/* The record of one model instance's kernel steps (core/native/cosim_step.py fills it; integration/kernel_steps.py
 * says when a step may be taken here). CoSimulation.step with integration.cosimulation's rules is the
 * specification: a step here does exactly its kernel calls, in its order, on the same data. */
typedef struct {
    /* the tree, its law and the explicit stepper (mbs_integrate's arguments, the Python binding's own buffers) */
    const mbs_model *m;
    const mbs_effort_law *law;
    const mbs_tableau *tab;
    mbs_stepper *st;
    double *y, *k;                  /* (size) the stepping buffers */
    double *recs;                   /* three records of rec_stride doubles */
    int size, rec_size, rec_stride;
    int *final;
    double *model_work, *work;
    const mbs_lengths *len;
    long max_steps;                 /* the step budget of one communication step */
    /* the outputs: out[i] = values[index[i]] by the writer of outputs_kind, its record and scratch */
    int outputs_kind, n_out;
    const void *outputs;
    double *values, *out, *out_work;
    const int *index;
    /* the caller's value table: the inputs' slots (n_in), out[real_from[j]] into reals[real_vr[j]] and
     * out[int_from[j]] (truncated) into ints[int_vr[j]]; the time into reals[time_vr] (-1: none) */
    int n_in, n_real, n_int, time_vr;
    const int *input_vr, *real_vr, *real_from, *int_vr, *int_from;
    /* the admissible states: lo[i] < y[bound_at[i]] < hi[i] (and every entry finite) */
    int n_bounds;
    const int *bound_at;
    const double *lo, *hi;
    /* the point reached (x, its derivative xdot, the record of that evaluation, the inputs in force, the step size
     * the stepper carries): written by the caller when it hands the stepping over, by each step that completes */
    double t, h;
    double *x, *xdot, *rec, *inputs;
    double *rec_next, *inputs_next, *update_work; /* scratch: rec_size, n_in, n * n + 2 n */
    long steps, evaluations, accepted, rejected;  /* since the caller last took the point over */
    /* 1: new inputs are evaluated afresh (mbs_derivative at the point), for a model without an exact update, whose
     * CoSimulation.set_inputs drops the evaluation; 0: updated by mbs_update_inputs */
    int fresh_inputs;
    /* inputs with an expected range (fmi/input_ranges.py): a step whose input enters or leaves [lo, hi] against the
     * inputs in force is declined (MBS_COSIM_RANGE), so Python takes it and says so once per excursion */
    int n_ranges;
    const int *range_at;
    const double *range_lo, *range_hi;
} mbs_cosim;

/* Entry point: the communication step from t (within mbs_time_rounding of c->t) by h with the inputs in the table;
 * MBS_COSIM_DONE with the point and the table's outputs advanced, or the reason (enum above) with nothing changed:
 * a failing stepper, a state outside the bounds, an output not finite, an input not finite -- every case in which
 * the specification would report something or take a path this step does not take. */
int mbs_cosim_step(void *record, double t, double h, double *reals, int64_t *ints);

/* The parts of that step its variants share (cosim_payload.c, cosim_held.c): every entry finite; the opening (the
 * step's times as doStep checks them, the table's inputs into inputs_next and finite, *changed: 1 when they changed,
 * k at the point's derivative; MBS_COSIM_DONE or the reason); the state's bounds; the stepper set for a step from the
 * point; the point at t_end with the evaluation rec there (rec_size doubles) committed; the outputs c->out and the
 * time published into the table. */
int mbs_cosim_all_finite(const double *v, int n);
int mbs_cosim_begin(mbs_cosim *c, double t, double t_end, const double *reals, int *changed);
int mbs_cosim_admissible(const mbs_cosim *c, const double *y);
mbs_stepper *mbs_cosim_start_stepper(mbs_cosim *c);
void mbs_cosim_commit(mbs_cosim *c, double t_end, const double *rec);
void mbs_cosim_publish(const mbs_cosim *c, double t_end, double *reals, int64_t *ints);

#endif
