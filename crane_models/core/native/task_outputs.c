/* The outputs of a tree with a task from one evaluation, written straight into the caller's output table: the
 * kernel's form of FlexibleCraneModel.outputs (models/flexible_crane/model.py, the specification;
 * tests/test_flexible_outputs.py compares them). Above the task's derivative (task.c). See task_outputs.h. */
#include "multibody.h"

int mbs_task_values_size(const mbs_task_outputs_model *o) {
    return o->n_x + 3 + 1 + 2 + 3 + 2 + 2 * o->task->n_joints + 6 + 3 + 1;
}

/* Resultant force and moment about the body frame's origin of the task's springs (20), Frame 0
 * (springs.PointSprings.resultant, whose plain sums this repeats in the same order, bit for bit): p = o + R r,
 * v = R v_cog + (R w) x (p - cog), f = -k (p - r) - c v. */
static void spring_resultant(const record_view *v, const mbs_task *task, double *force, double *moment) {
    const int b = task->spring_body;
    const double *R = v->rot + 9 * b, *o = v->org + 3 * b, *cg = v->cog + 3 * b, *tw = v->twist + 6 * b;
    double w[3], vc[3];
    matvec3(R, tw, w);
    matvec3(R, tw + 3, vc);
    for (int i = 0; i < 3; i++) force[i] = moment[i] = 0.0;
    for (int s = 0; s < task->n_springs; s++) {
        const double *r = task->spring_points + 3 * s, *k = task->spring_k + 3 * s, *c = task->spring_c + 3 * s;
        double p[3], arm[3], x[3], f[3];
        matvec3(R, r, p);
        for (int i = 0; i < 3; i++) { p[i] += o[i]; arm[i] = p[i] - cg[i]; }
        cross3(w, arm, x);
        for (int i = 0; i < 3; i++) f[i] = -k[i] * (p[i] - r[i]) - c[i] * (vc[i] + x[i]);
        for (int i = 0; i < 3; i++) arm[i] = p[i] - o[i];
        cross3(arm, f, x);
        for (int i = 0; i < 3; i++) { force[i] += f[i]; moment[i] += x[i]; }
    }
}

/* The end of a chain (the origin of end_body) from the origin of its first body, in that body's frame (y, z), and
 * the twist of the last body about the x axis relative to the first: atan2 of (R_0^T R_last)[2, 1], [2, 2]
 * (statics.link_deflection, the same sums in the same order). */
static void chain_deflection(const record_view *v, const mbs_task_outputs_model *o, double *out) {
    const double *R0 = v->rot + 9 * o->root_body, *Rl = v->rot + 9 * o->last_body;
    const double *o0 = v->org + 3 * o->root_body, *e = v->org + 3 * o->end_body;
    const double d[3] = {e[0] - o0[0], e[1] - o0[1], e[2] - o0[2]};
    out[0] = R0[1] * d[0] + R0[4] * d[1] + R0[7] * d[2];
    out[1] = R0[2] * d[0] + R0[5] * d[1] + R0[8] * d[2];
    out[2] = atan2(R0[2] * Rl[1] + R0[5] * Rl[4] + R0[8] * Rl[7], R0[2] * Rl[2] + R0[5] * Rl[5] + R0[8] * Rl[8]);
}

int mbs_task_outputs(const mbs_model *m, const mbs_task_outputs_model *o, double t, const double *x,
                     const double *rec, const double *result, double *values, const int *index, int n_out,
                     double *out) {
    const mbs_task *task = o->task;
    const int nj = task->n_joints;
    const record_view v = view_of(m, rec);
    const double *lam = result + nj, *tf = lam + 2, *fn = tf + nj, *phi = fn + nj, *force = phi + 2;
    double *val = values;
    for (int i = 0; i < o->n_x; i++) *val++ = x[o->x_at[i]];
    const double *tip = v.org + 3 * o->tip_body;
    for (int i = 0; i < 3; i++) *val++ = tip[i];
    if (task->constraint_kind) {
        double za[3];
        mbs_quintic_rise(t, task->cpar[2], task->cpar[3], task->cpar[4], za);
        *val++ = za[0];
    } else {
        *val++ = tip[2];
    }
    for (int i = 0; i < 2; i++) *val++ = phi[i];
    for (int i = 0; i < 3; i++) *val++ = force[i];
    for (int i = 0; i < 2; i++) *val++ = lam[i];
    for (int j = 0; j < nj; j++) *val++ = tf[j];
    for (int j = 0; j < nj; j++) *val++ = fn[j];
    spring_resultant(&v, task, val, val + 3);
    val += 6;
    chain_deflection(&v, o, val);
    val += 3;
    *val = rec[3 * m->n + o->drive_coord]; /* the record's efforts: the drive enters its coordinate alone */
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}
