/* One communication step of a tree model in the kernel, from the caller's value table back into it (issue 23): what
 * CoSimulation.step and the FMI adapter's doStep do for a model whose step needs nothing but the kernel -- new
 * inputs (set_inputs: the evaluation updated, mbs_update_inputs, or made afresh, mbs_derivative), the explicit stepper
 * (mbs_integrate), the state's check and the outputs (mbs_crane_outputs / mbs_cut_outputs / mbs_point_outputs) --
 * with the same calls on the same data, so the results are the Python path's to the last bit. Anything else (a
 * failure to report, an input or output not finite) declines the step with nothing changed, and the caller takes its
 * Python path, which reports it. The top floor of the kernel. See cosim_step.h. */
#include "multibody.h"

#include <math.h>
#include <string.h>

int mbs_cosim_all_finite(const double *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* The step's times as the adapter's doStep checks them: t the point reached (within rounding: the host's clock is
 * the time), t + h finite and a time after t. */
static int times_accepted(const mbs_cosim *c, double t, double t_end) {
    return fabs(t - c->t) <= mbs_time_rounding(c->t) && isfinite(t_end) && t_end - t > mbs_time_rounding(t_end);
}

/* The inputs from their slots into inputs_next; 1 when they changed (exactly: set_inputs compares the values). Equal
 * ones are the inputs in force, as set_inputs keeps them (-0.0 equals 0.0 there too). */
static int read_inputs(const mbs_cosim *c, const double *reals) {
    int changed = 0;
    for (int i = 0; i < c->n_in; i++) {
        const double v = reals[c->input_vr[i]];
        c->inputs_next[i] = v;
        changed |= v != c->inputs[i];
    }
    if (!changed) memcpy(c->inputs_next, c->inputs, sizeof(double) * c->n_in);
    return changed;
}

/* Whether an input with an expected range is inside it in one of the inputs in force and outside in the new ones, or
 * the other way round. */
static int range_crossed(const mbs_cosim *c) {
    for (int i = 0; i < c->n_ranges; i++) {
        const int at = c->range_at[i];
        const double lo = c->range_lo[i], hi = c->range_hi[i], was = c->inputs[at], now = c->inputs_next[at];
        if ((lo <= was && was <= hi) != (lo <= now && now <= hi)) return 1;
    }
    return 0;
}

/* The opening every step variant shares: the times accepted (else MBS_COSIM_TIME), the inputs read into inputs_next
 * (*changed: whether they changed) and finite (else MBS_COSIM_INPUTS), none across its expected range (else
 * MBS_COSIM_RANGE), and k set to the derivative at the point (the
 * caller replaces it for new inputs). MBS_COSIM_DONE when the step may go on. */
int mbs_cosim_begin(mbs_cosim *c, double t, double t_end, const double *reals, int *changed) {
    if (!times_accepted(c, t, t_end)) return MBS_COSIM_TIME;
    *changed = read_inputs(c, reals);
    if (!mbs_cosim_all_finite(c->inputs_next, c->n_in)) return MBS_COSIM_INPUTS;
    if (*changed && range_crossed(c)) return MBS_COSIM_RANGE;
    memcpy(c->k, c->xdot, sizeof(double) * c->size);
    return MBS_COSIM_DONE;
}

/* The model's check_state as bounds: every entry finite and each bounded one strictly inside. */
int mbs_cosim_admissible(const mbs_cosim *c, const double *y) {
    if (!mbs_cosim_all_finite(y, c->size)) return 0;
    for (int i = 0; i < c->n_bounds; i++) {
        const double v = y[c->bound_at[i]];
        if (!(c->lo[i] < v && v < c->hi[i])) return 0;
    }
    return 1;
}

/* The stepper set for one communication step from the point reached: the stepping buffer y at the point's state, the
 * step size it carried, the step budget, its counters at zero (CoSimulation.step hands the same to its stepper). */
mbs_stepper *mbs_cosim_start_stepper(mbs_cosim *c) {
    mbs_stepper *st = c->st;
    memcpy(c->y, c->x, sizeof(double) * c->size);
    st->h = c->h;
    st->max_steps = c->max_steps;
    st->evaluations = st->accepted = st->rejected = 0;
    return st;
}

/* The evaluation at the point updated for the new inputs into c->rec_next (mbs_update_inputs on a copy); 0, or its
 * code. */
static int updated_evaluation(const mbs_cosim *c) {
    memcpy(c->rec_next, c->rec, sizeof(double) * c->rec_size);
    return mbs_update_inputs(c->m, c->law, c->inputs, c->inputs_next, c->rec_next, c->update_work);
}

/* The evaluation at the point for the new inputs into c->rec_next, as the model's derivative makes it
 * (NativeSystem.derivative: a record of zeros with q and u -- rows a state derivative leaves alone stay zero --, then
 * mbs_derivative); 0, or mbs_derivative's code. */
static int fresh_evaluation(const mbs_cosim *c) {
    memset(c->rec_next, 0, sizeof(double) * c->rec_size);
    memcpy(c->rec_next, c->x, sizeof(double) * 2 * c->m->n);
    return mbs_derivative(c->m, c->law, c->inputs_next, c->rec_next, c->model_work);
}

/* The outputs at the state y with the evaluation rec there into c->out; 1 when written and all finite. */
static int outputs_at(const mbs_cosim *c, const double *y, const double *rec) {
    const int code = c->outputs_kind == MBS_COSIM_CUT_OUTPUTS
        ? mbs_cut_outputs(c->m, c->outputs, y, rec, NULL, c->values, c->index, c->n_out, c->out, c->out_work)
        : c->outputs_kind == MBS_COSIM_POINT_OUTPUTS
        ? mbs_point_outputs(c->m, c->outputs, y, rec, c->values, c->index, c->n_out, c->out, c->out_work)
        : mbs_crane_outputs(c->m, c->outputs, y, rec, NULL, NULL, c->values, c->index, c->n_out, c->out,
                            c->out_work);
    return code == 0 && mbs_cosim_all_finite(c->out, c->n_out);
}

void mbs_cosim_publish(const mbs_cosim *c, double t_end, double *reals, int64_t *ints) {
    for (int j = 0; j < c->n_real; j++) reals[c->real_vr[j]] = c->out[c->real_from[j]];
    for (int j = 0; j < c->n_int; j++) ints[c->int_vr[j]] = (int64_t)c->out[c->int_from[j]]; /* numpy's cast */
    if (c->time_vr >= 0) reals[c->time_vr] = t_end;
}

/* The point reached at t_end: the stepping buffers, the evaluation rec there, the inputs in force. */
void mbs_cosim_commit(mbs_cosim *c, double t_end, const double *rec) {
    memcpy(c->x, c->y, sizeof(double) * c->size);
    memcpy(c->xdot, c->k, sizeof(double) * c->size);
    if (rec != c->rec) memcpy(c->rec, rec, sizeof(double) * c->rec_size);
    memcpy(c->inputs, c->inputs_next, sizeof(double) * c->n_in);
    c->t = t_end;
    c->h = c->st->h;
    c->steps += 1;
    c->evaluations += c->st->evaluations;
    c->accepted += c->st->accepted;
    c->rejected += c->st->rejected;
}

int mbs_cosim_step(void *record, double t, double h, double *reals, int64_t *ints) {
    mbs_cosim *c = record;
    const int n = c->m->n;
    const double t_end = t + h;
    int changed, code = mbs_cosim_begin(c, t, t_end, reals, &changed);
    if (code) return code;
    /* set_inputs: the evaluation reached, for new inputs updated in a copy (k = [u; u'] of the updated record) */
    const double *rec = c->rec;
    if (changed) {
        if (c->fresh_inputs ? fresh_evaluation(c) : updated_evaluation(c)) return MBS_COSIM_UPDATE;
        memcpy(c->k, c->rec_next + n, sizeof(double) * 2 * n);
        rec = c->rec_next;
        if (!mbs_cosim_all_finite(c->k, c->size)) return MBS_COSIM_UPDATE;
    }
    /* step: the stepper from the host's t to t_end with the budget of a communication step */
    mbs_stepper *st = mbs_cosim_start_stepper(c);
    if (mbs_integrate(c->m, c->law, c->inputs_next, NULL, c->tab, st, t, t_end, c->y, c->k, c->recs, c->rec_size,
                      c->rec_stride, c->final, c->model_work, c->work, c->len))
        return MBS_COSIM_STEPPER;
    if (*c->final >= 0) rec = c->recs + (long)*c->final * c->rec_stride;
    if (!mbs_cosim_admissible(c, c->y)) return MBS_COSIM_STATE;
    if (!outputs_at(c, c->y, rec)) return MBS_COSIM_OUTPUTS;
    mbs_cosim_commit(c, t_end, rec);
    mbs_cosim_publish(c, t_end, reals, ints);
    return MBS_COSIM_DONE;
}
