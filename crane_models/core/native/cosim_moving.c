/* One communication step of a crane on a moving base (cosim_moving.h): what CoSimulation.step does for
 * KnuckleBoomOnMovingBaseModel -- set_inputs (new inputs drop the evaluation: their base inputs by
 * mbs_moving_base_inputs), the base imposed (impose_inputs: mbs_moving_impose) and the step integrals restarted
 * (restart_step_integrals), the evaluation anew where any of these changed the point (mbs_moving_derivative into a
 * record of zeros, as the model's derivative makes it), the stepping (mbs_moving_integrate), check_state (bounds)
 * and the outputs of output_writer (mbs_moving_outputs) -- with the same kernel calls on the same data, so the
 * results are the Python path's to the last bit. Anything unusual declines the step with nothing changed. The top
 * floor of the kernel. */
#include "multibody.h"

#include <string.h>

/* The outputs at the state y with the evaluation rec there, the base's acceleration [a_P; w'] from the inputs; 1
 * when all finite. */
static int moving_outputs(const mbs_cosim_moving *p, const double *y, const double *rec) {
    const mbs_cosim *c = &p->c;
    const double *m = c->inputs_next + p->motion_at;
    const double accel[6] = {m[9], m[10], m[11], m[6], m[7], m[8]};
    const double *integral = p->mb->load ? y + 2 * c->m->n : NULL;
    return !mbs_moving_outputs(c->m, p->outputs, y, rec, NULL, NULL, accel, integral, c->values, c->index, c->n_out,
                               c->out, c->out_work)
           && mbs_cosim_all_finite(c->out, c->n_out);
}

int mbs_cosim_moving_step(void *record, double t, double h, double *reals, int64_t *ints) {
    mbs_cosim_moving *p = record;
    mbs_cosim *c = &p->c;
    const double t_end = t + h;
    int changed, code = mbs_cosim_begin(c, t, t_end, reals, &changed);
    if (code) return code;
    const double *base = p->base_inputs, *rec = c->rec;
    if (changed) {
        mbs_moving_base_inputs(p->mb, c->inputs_next, c->inputs_next + p->motion_at, p->base_inputs_next);
        base = p->base_inputs_next;
    }
    mbs_stepper *st = mbs_cosim_start_stepper(c); /* y: the point's state, where the base is imposed */
    const int imposed = mbs_moving_impose(c->m, p->mb, base + p->mb->n_law, c->y);
    const int restarted = p->mb->load && mbs_step_restart(c->y + 2 * c->m->n); /* the step before's kept */
    if (restarted | imposed | changed) {
        memset(c->rec_next, 0, sizeof(double) * c->rec_size);
        if (mbs_moving_derivative(c->m, c->law, base, p->mb, c->y, c->k, c->rec_next, c->model_work)
            || !mbs_cosim_all_finite(c->k, c->size))
            return MBS_COSIM_UPDATE;
        rec = c->rec_next;
    }
    if (mbs_moving_integrate(c->m, c->law, base, p->mb, c->tab, st, t, t_end, c->y, c->k, c->recs, c->rec_size,
                             c->rec_stride, c->final, c->model_work, c->work, c->len))
        return MBS_COSIM_STEPPER;
    if (*c->final >= 0) rec = c->recs + (long)*c->final * c->rec_stride;
    if (!mbs_cosim_admissible(c, c->y)) return MBS_COSIM_STATE;
    if (!moving_outputs(p, c->y, rec)) return MBS_COSIM_OUTPUTS;
    if (changed) memcpy(p->base_inputs, p->base_inputs_next, sizeof(double) * (p->mb->n_law + 6));
    mbs_cosim_commit(c, t_end, rec);
    mbs_cosim_publish(c, t_end, reals, ints);
    return MBS_COSIM_DONE;
}
