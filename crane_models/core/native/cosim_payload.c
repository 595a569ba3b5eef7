/* One communication step of a tree model with its payload (cosim_payload.h): what CoSimulation.step does for
 * KnuckleBoomPayloadModel when no event indicator changes sign -- the input update of update_inputs, one call of
 * mbs_payload_integrate as NativePayload.advance_to_event makes it (the signs at the start, the check interval),
 * check_state, and the outputs of output_writer -- with the same kernel calls and the same floating-point operations
 * in the same order, so the results are the Python path's to the last bit. A step in which an indicator changes sign
 * (the kernel's stepper stops before it) or anything unusual is declined with nothing changed: the caller's Python
 * path locates the event. The top floor of the kernel. */
#include "multibody.h"

#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846; /* math.pi */

/* The signs of the event indicators of an evaluation's payload result as bits (payload.c's indicator_signs, the
 * booleans `indicator > 0` that advance_to_event packs). */
static int indicator_signs(const double *result) {
    int bits = 0;
    for (int i = 0; i < MBS_PAYLOAD_INDICATORS; i++)
        if (result[11 + i] > 0.0) bits |= 1 << i;
    return bits;
}

/* NativePayload.check_interval: a quarter of the shortest taut phase over the next `duration` seconds, at the
 * shortest length the winch reaches in it (Python's max(l_min, reach) keeps l_min unless reach is larger). */
static double check_interval(const mbs_cosim_payload *p, double length, double duration) {
    const double reach = length - p->pl->v_max * duration;
    const double shortest = reach > p->pl->l_min ? reach : p->pl->l_min;
    return 0.25 * PI * sqrt(p->mass_over_ea * shortest);
}

/* KnuckleBoomPayloadModel.update_inputs into c->rec_next and c->k: the crane's evaluation updated by
 * mbs_update_inputs when its inputs changed (the wire's part depends on the state alone), then
 * k = [u; u'; v_load; -F/m - g e_z + N/m e_z; L' of the new winch command]. 0 when the kernel cannot update. */
static int updated_derivative(const mbs_cosim_payload *p) {
    const mbs_cosim *c = &p->c;
    const int n = c->m->n;
    int crane_changed = 0;
    for (int i = 0; i < p->n_law; i++) crane_changed |= c->inputs_next[i] != c->inputs[i];
    memcpy(c->rec_next, c->rec, sizeof(double) * c->rec_size);
    if (crane_changed && mbs_update_inputs(c->m, c->law, c->inputs, c->inputs_next, c->rec_next, c->update_work))
        return 0;
    const double *x = c->x, *tail = c->rec_next + p->crane_rec_size;
    double *k = c->k;
    memcpy(k, x + n, sizeof(double) * n);
    memcpy(k + n, c->rec_next + 2 * n, sizeof(double) * n);
    for (int i = 0; i < 3; i++) {
        k[2 * n + i] = x[2 * n + 3 + i];
        k[2 * n + 3 + i] = -tail[1 + i] / p->pl->mass;
    }
    k[2 * n + 5] -= p->pl->g;
    k[2 * n + 5] += tail[10] / p->pl->mass;
    k[2 * n + 6] = mbs_payload_winch_rate(p->pl, x[2 * n + 6], c->inputs_next[p->pl->winch_input]);
    return 1;
}

/* R^T v for a row-major rotation R, summed over the rows in order (the tip wrench's sums in payload.py). */
static void transposed_times(const double *R, const double *v, double *out) {
    for (int j = 0; j < 3; j++) out[j] = v[0] * R[j] + v[1] * R[3 + j] + v[2] * R[6 + j];
}

/* KnuckleBoomPayloadModel.tip_wrench into p->extra: the wire force F on the tip as [R^T F; a x R^T F] at the tip
 * body's COG, a = R^T (tip - cog), the form of (46). */
static void tip_wrench(const mbs_cosim_payload *p, const record_view *v, const double *force, const double *tip) {
    const int k = p->tip_body;
    const double *R = v->rot + 9 * k, *cog = v->cog + 3 * k;
    const double d[3] = {tip[0] - cog[0], tip[1] - cog[1], tip[2] - cog[2]};
    double f[3], a[3];
    transposed_times(R, force, f);
    transposed_times(R, d, a);
    double *w = p->extra + 6 * k;
    memcpy(w, f, sizeof f);
    w[3] = a[1] * f[2] - a[2] * f[1];
    w[4] = a[2] * f[0] - a[0] * f[2];
    w[5] = a[0] * f[1] - a[1] * f[0];
}

/* core.payload.swing_angles_from_vertical of rel (load minus tip, Frame 0) in the plane of the king's y axis;
 * 0 when that axis is vertical (no swing plane: Python raises). */
static int swing_angles(const double *rel, const double *R_king, double *radial, double *tangential) {
    const double hx = R_king[1], hy = R_king[4];
    const double norm = sqrt(hx * hx + hy * hy);
    if (norm == 0.0) return 0;
    const double yx = hx / norm, yy = hy / norm;
    const double across = rel[0] * yy - rel[1] * yx, along = rel[0] * yx + rel[1] * yy;
    *radial = atan2(along, -rel[2]);
    *tangential = atan2(across, -rel[2]);
    return 1;
}

/* output_writer's outputs at the state y with the evaluation rec there (and its payload result): the payload's
 * values into their slots of c->values, then the crane's by mbs_crane_outputs with the wire's wrench; 1 when
 * written and all finite. */
static int payload_outputs(const mbs_cosim_payload *p, const double *y, const double *rec) {
    const mbs_cosim *c = &p->c;
    const int n = c->m->n;
    const record_view v = view_of(c->m, rec);
    const double *tail = rec + p->crane_rec_size, *tip = tail + 4;
    const double rel[3] = {y[2 * n] - tip[0], y[2 * n + 1] - tip[1], y[2 * n + 2] - tip[2]};
    double values[MBS_COSIM_PAYLOAD_VALUES];
    values[0] = tail[0];
    values[1] = y[2 * n + 6];
    for (int i = 0; i < 6; i++) values[2 + i] = y[2 * n + i];
    if (!swing_angles(rel, v.rot + 9 * p->king, values + 8, values + 9)) return 0;
    values[10] = tail[10];
    values[11] = tail[0] <= 0.0 ? 1.0 : 0.0;
    for (int i = 0; i < MBS_COSIM_PAYLOAD_VALUES; i++)
        if (p->payload_at[i] >= 0) c->values[p->payload_at[i]] = values[i];
    tip_wrench(p, &v, tail + 1, tip);
    const int code = mbs_crane_outputs(c->m, c->outputs, y, rec, NULL, p->extra, c->values, c->index, c->n_out,
                                       c->out, c->out_work);
    return code == 0 && mbs_cosim_all_finite(c->out, c->n_out);
}

int mbs_cosim_payload_step(void *record, double t, double h, double *reals, int64_t *ints) {
    mbs_cosim_payload *p = record;
    mbs_cosim *c = &p->c;
    const double t_end = t + h;
    int changed, begun = mbs_cosim_begin(c, t, t_end, reals, &changed);
    if (begun) return begun;
    /* set_inputs: the derivative at the point, for new inputs updated (a copy of the record) */
    if (changed && !(updated_derivative(p) && mbs_cosim_all_finite(c->k, c->size))) return MBS_COSIM_UPDATE;
    /* _advance_to_events: the signs at the point (event_indicators' cache: the indicators of the evaluation at
     * c->x, which c->rec is), then advance_to_event's one call, its check interval set and put back */
    const int signs = indicator_signs(c->rec + p->crane_rec_size);
    mbs_stepper *st = mbs_cosim_start_stepper(c);
    p->pl->check_interval = check_interval(p, c->x[c->size - 1], t_end - t);
    const int code = mbs_payload_integrate(c->m, c->law, c->inputs_next, p->pl, c->tab, st, t, t_end, c->y, c->k,
                                           signs, c->recs, p->crane_rec_size, c->rec_stride, c->final,
                                           c->model_work, c->work, c->len);
    p->pl->check_interval = INFINITY;
    if (code == MBS_EVENT) return MBS_COSIM_EVENT;
    if (code || *c->final < 0) return MBS_COSIM_STEPPER;
    const double *rec = c->recs + (long)*c->final * c->rec_stride;
    if (!mbs_cosim_admissible(c, c->y)) return MBS_COSIM_STATE;
    if (!payload_outputs(p, c->y, rec)) return MBS_COSIM_OUTPUTS;
    mbs_cosim_commit(c, t_end, rec);
    mbs_cosim_publish(c, t_end, reals, ints);
    return MBS_COSIM_DONE;
}
