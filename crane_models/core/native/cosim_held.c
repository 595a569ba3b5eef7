/* One communication step of a crane on a base held over the step (cosim_held.h): what CoSimulation.step does for
 * CraneOnMovingBaseModel -- for new inputs the evaluation anew at the point (update_inputs: the kernel inputs of
 * mbs_held_base_inputs, mbs_held_derivative into a fresh record), with the step-mean load its step integrals
 * restarted (restart_step_integrals; evaluated anew when they were not zero), the stepping (mbs_held_integrate),
 * check_state (every entry finite) and the outputs of output_writer (mbs_held_outputs) -- with the same kernel
 * calls on the same data, so the results are the Python path's to the last bit. Anything unusual declines the step
 * with nothing changed. The top floor of the kernel. */
#include "multibody.h"

#include <string.h>

/* update_inputs (or, with the step-mean load, the evaluation dropped by set_inputs or by restart_step_integrals):
 * the evaluation anew at the state y for the kernel inputs `inputs` into c->rec_next (zeroed first, as the binding's
 * fresh record) and c->k; 0 when it cannot be evaluated. */
static int evaluated_anew(const mbs_cosim_held *p, const double *inputs, const double *y) {
    const mbs_cosim *c = &p->c;
    memset(c->rec_next, 0, sizeof(double) * c->rec_size);
    return !mbs_held_derivative(c->m, c->law, inputs, p->hb, y, c->k, c->rec_next, c->model_work)
           && mbs_cosim_all_finite(c->k, c->size);
}

/* The outputs at the state y with the evaluation rec there, the base's acceleration [a_P; w'] from the inputs; 1
 * when all finite. */
static int held_outputs(const mbs_cosim_held *p, const double *y, const double *rec) {
    const mbs_cosim *c = &p->c;
    const double *m = c->inputs_next + p->motion_at;
    const double accel[6] = {m[9], m[10], m[11], m[6], m[7], m[8]};
    const double *integral = p->hb->load ? y + 2 * p->hb->nf : NULL;
    return !mbs_held_outputs(c->m, p->outputs, rec, accel, integral, c->values, c->index, c->n_out, c->out,
                             c->out_work)
           && mbs_cosim_all_finite(c->out, c->n_out);
}

int mbs_cosim_held_step(void *record, double t, double h, double *reals, int64_t *ints) {
    mbs_cosim_held *p = record;
    mbs_cosim *c = &p->c;
    const double t_end = t + h;
    int changed, code = mbs_cosim_begin(c, t, t_end, reals, &changed);
    if (code) return code;
    const double *rec = c->rec, *inputs = p->kernel_inputs;
    if (changed) {
        mbs_held_base_inputs(c->m, p->hb, c->inputs_next, c->inputs_next + p->motion_at, p->kernel_inputs_next);
        inputs = p->kernel_inputs_next;
    }
    mbs_stepper *st = mbs_cosim_start_stepper(c); /* y: the point's state, where the step integrals restart */
    const int restarted = p->hb->load && mbs_step_restart(c->y + 2 * p->hb->nf); /* the step before's kept */
    if (changed | restarted) {
        if (!evaluated_anew(p, inputs, c->y)) return MBS_COSIM_UPDATE;
        rec = c->rec_next;
    }
    if (mbs_held_integrate(c->m, c->law, inputs, p->hb, c->tab, st, t, t_end, c->y, c->k, c->recs, c->rec_size,
                           c->rec_stride, c->final, c->model_work, c->work, c->len))
        return MBS_COSIM_STEPPER;
    if (*c->final >= 0) rec = c->recs + (long)*c->final * c->rec_stride;
    if (!mbs_cosim_admissible(c, c->y)) return MBS_COSIM_STATE;
    if (!held_outputs(p, c->y, rec)) return MBS_COSIM_OUTPUTS;
    if (changed) memcpy(p->kernel_inputs, p->kernel_inputs_next, sizeof(double) * (p->hb->n_law + 2 * c->m->n));
    mbs_cosim_commit(c, t_end, rec);
    mbs_cosim_publish(c, t_end, reals, ints);
    return MBS_COSIM_DONE;
}
