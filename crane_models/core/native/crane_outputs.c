/* A crane's outputs from one evaluation, written straight into the caller's output table: the kernel's form of
 * KnuckleBoomModel.crane_outputs and KnuckleBoomOnMovingBaseModel.outputs_with (models/knuckle_boom/, the
 * specification; tests/test_kernel_outputs.py compares them). Above the reactions (reactions.c). See
 * crane_outputs.h. */
#include "multibody.h"

int mbs_crane_values_size(const mbs_model *m, const mbs_crane_outputs_model *o) {
    (void)m;
    return o->n_x + o->n_angles + 3 + 6 + 6 * o->n_rows + 6 * o->reactions->ncyl + 2 * o->n_act + 1;
}

/* The end-stop forces of the first n_act coordinates (mbs_end_stop) into stop; returns 1 when one coordinate is
 * beyond its stop. */
static int end_stops(const mbs_effort_law *law, int n_act, const double *q, const double *u, double *stop) {
    int active = 0;
    for (int i = 0; i < n_act; i++) {
        const int beyond = law->stop_k && (q[i] < law->stop_low[i] || q[i] > law->stop_high[i]);
        stop[i] = beyond ? mbs_end_stop(law, i, q[i], u[i]) : 0.0;
        active |= beyond;
    }
    return active;
}

/* The efforts of the actuated coordinates without their end stops (effort, n_act), the stops' forces (stop, n_act)
 * and each entry's value (67)-(68) with the stops, as the numpy sums (act_values, n_entries) of the evaluation rec;
 * returns 1 when a coordinate is beyond its stop. The actuators' coordinates are the first n_act of the law's. */
static int actuator_values(const mbs_model *m, const mbs_crane_outputs_model *o, const double *rec, double *effort,
                           double *stop, double *act_values) {
    const int n = m->n, active = end_stops(o->law, o->n_act, rec, rec + n, stop);
    for (int i = 0; i < o->n_act; i++) effort[i] = rec[3 * n + i] - stop[i];
    for (int j = 0; j < o->n_entries; j++) {
        const int i = o->act_coord[j];
        act_values[j] = o->act_sign[j] * (effort[i] + stop[i]);
    }
    return active;
}

/* Fixed base: the weight of every body (first term of (67)-(68): (-g m_k) R^k_0 z0 at its COG, body coordinates),
 * the actuator values at their entries and extra (NULL: none); the reactions, rows and tip as crane_outputs.h says. */
static void fixed_base_loads(const mbs_model *m, const mbs_crane_outputs_model *o, const double *rec,
                             const double *udot, const double *act_values, const double *extra, double *tip,
                             double *rows, double *supports, double *work) {
    const int nb = m->nb;
    const record_view v = view_of(m, rec);
    double *applied = work, *total = applied + 6 * nb, *joints = total + 6 * nb, *scratch = joints + 6 * nb;
    for (int k = 0; k < nb; k++) {
        const double w = -o->law->g * m->mass[k];
        for (int c = 0; c < 3; c++) applied[6 * k + c] = w * v.rot[9 * k + 6 + c];
        for (int c = 3; c < 6; c++) applied[6 * k + c] = 0.0;
    }
    for (int j = 0; j < o->n_entries; j++) applied[o->act_entry[j]] += act_values[j];
    if (extra)
        for (int i = 0; i < 6 * nb; i++) applied[i] += extra[i];
    mbs_reactions(m, o->reactions, rec, udot, applied, total, supports, joints, scratch);
    for (int r = 0; r < o->n_rows; r++) {
        const int b = o->row_body[r];
        if (o->row_in_frame0[r]) {
            matvec3(v.rot + 9 * b, joints + 6 * b, rows + 6 * r);
            matvec3(v.rot + 9 * b, joints + 6 * b + 3, rows + 6 * r + 3);
        } else {
            memcpy(rows + 6 * r, joints + 6 * b, 6 * sizeof(double));
        }
    }
    const double *R = v.rot + 9 * o->tip_body, *org = v.org + 3 * o->tip_body;
    double p[3];
    matvec3(R, o->tip, p);
    for (int i = 0; i < 3; i++) tip[i] = org[i] + p[i];
}

int mbs_crane_outputs(const mbs_model *m, const mbs_crane_outputs_model *o, const double *x, const double *rec,
                      const double *udot, const double *extra, double *values, const int *index, int n_out,
                      double *out, double *work) {
    const int n = m->n, nb = m->nb, ncyl = o->reactions->ncyl;
    const double *theta = layout_of(m, (double *)(rec + record_head(m))).theta; /* read only */
    if (!udot) udot = rec + 2 * n;
    double *val = values;
    for (int i = 0; i < o->n_x; i++) *val++ = x[o->x_at[i]];
    for (int i = 0; i < o->n_angles; i++) *val++ = theta[o->angle_body[i]];
    double *tip = val, *wrench = tip + 3, *rows = wrench + 6, *sup = rows + 6 * o->n_rows, *effort = sup + 6 * ncyl,
           *stop = effort + o->n_act;
    double *act_values = work, *supports = act_values + o->n_entries, *scratch = supports + 12 * ncyl;
    stop[o->n_act] = actuator_values(m, o, rec, effort, stop, act_values);
    if (o->loads) {
        double *loads_out = scratch, *loads_work = loads_out + 6 * nb + 6 + 6 * o->n_rows + 3;
        const int code = mbs_base_loads(m, o->loads, rec, udot, act_values, extra, loads_out, loads_work);
        if (code) return code;
        memcpy(wrench, loads_out + 6 * nb, 6 * sizeof(double));
        memcpy(rows, loads_out + 6 * nb + 6, 6 * o->n_rows * sizeof(double));
        memcpy(tip, loads_out + 6 * nb + 6 + 6 * o->n_rows, 3 * sizeof(double));
        /* mbs_base_loads' support wrenches: after its reactions' scratch and total wrenches */
        memcpy(supports, loads_work + 6 * o->reactions->n_items + 12 * nb, 12 * ncyl * sizeof(double));
    } else {
        memset(wrench, 0, 6 * sizeof(double));
        fixed_base_loads(m, o, rec, udot, act_values, extra, tip, rows, supports, scratch);
    }
    for (int c = 0; c < 2 * ncyl; c++) /* the support acts on the cylinder with minus the wrench of (53) */
        for (int i = 0; i < 3; i++) sup[3 * c + i] = -supports[6 * c + i];
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}

int mbs_crane_base_load(const mbs_model *m, const mbs_crane_outputs_model *o, const double *rec, const double *extra,
                        double *wrench, double *work) {
    double effort[MBS_CRANE_MAX_ACT], stop[MBS_CRANE_MAX_ACT], *act_values = work, *applied = work + o->n_entries;
    if (!o->loads || o->n_act > MBS_CRANE_MAX_ACT) return -1;
    actuator_values(m, o, rec, effort, stop, act_values);
    return mbs_base_load(m, o->loads, rec, rec + 2 * m->n, act_values, extra, applied, wrench,
                         applied + 6 * m->nb);
}

int mbs_cut_values_size(const mbs_model *m) {
    return 2 * m->n + 6 + 6 + 3 + m->n;
}

/* W_e of a cut's outputs: the weights (-g m_k) R^k_0 z0 and the efforts of the law's coordinates acting between the
 * body each drives and its parent (constraint_forces.joint_effort_wrenches: a torque about a revolute joint's axis, a
 * force along a prismatic one, with its moments about both COGs), [f; n] at each COG, body coordinates. */
static void efforts_as_wrenches(const mbs_model *m, const mbs_cut_outputs_model *o, const double *rec,
                                double *applied, double *world) {
    const int nb = m->nb, n = m->n;
    const record_view v = view_of(m, rec);
    memset(world, 0, sizeof(double) * 6 * nb);
    for (int i = 0; i < n; i++) {
        const int k = o->joint_of[i], p = m->parent[k], type = m->jtype[k];
        double a[3], e[3];
        matvec3(v.rot + 9 * k, m->axis + 3 * k, a);
        for (int c = 0; c < 3; c++) e[c] = rec[3 * n + i] * a[c];
        if (type == 1) {
            for (int c = 0; c < 3; c++) world[6 * k + 3 + c] += e[c];
            if (p >= 0)
                for (int c = 0; c < 3; c++) world[6 * p + 3 + c] -= e[c];
        } else if (type == 2) {
            double r[3], x[3];
            for (int c = 0; c < 3; c++) { world[6 * k + c] += e[c]; r[c] = v.org[3 * k + c] - v.cog[3 * k + c]; }
            cross3(r, e, x);
            for (int c = 0; c < 3; c++) world[6 * k + 3 + c] += x[c];
            if (p >= 0) {
                for (int c = 0; c < 3; c++) { world[6 * p + c] -= e[c]; r[c] = v.org[3 * k + c] - v.cog[3 * p + c]; }
                cross3(r, e, x);
                for (int c = 0; c < 3; c++) world[6 * p + 3 + c] -= x[c];
            }
        }
    }
    for (int k = 0; k < nb; k++) {
        const double w = -o->law->g * m->mass[k];
        double f[3], t[3];
        mattvec3(v.rot + 9 * k, world + 6 * k, f);
        mattvec3(v.rot + 9 * k, world + 6 * k + 3, t);
        for (int c = 0; c < 3; c++) {
            applied[6 * k + c] = w * v.rot[9 * k + 6 + c] + f[c];
            applied[6 * k + 3 + c] = t[c];
        }
    }
}

int mbs_cut_outputs(const mbs_model *m, const mbs_cut_outputs_model *o, const double *x, const double *rec,
                    const double *udot, double *values, const int *index, int n_out, double *out, double *work) {
    const int n = m->n, nb = m->nb, nj = o->nj;
    const record_view v = view_of(m, rec);
    double *applied = work, *scratch = applied + 6 * nb, *rho = scratch + 6 * nb;
    efforts_as_wrenches(m, o, rec, applied, scratch);
    mbs_aux_speeds(m, rec, udot ? udot : rec + 2 * n, applied, o->cut, o->n_ob, o->outboard, nj, o->S, o->Ainv, rho,
                   scratch);
    double *val = values, *w = values + 2 * n, *w1 = w + 6, *tip = w1 + 6;
    memcpy(val, x, sizeof(double) * 2 * n);
    for (int r = 0; r < 6; r++) {
        double s = 0.0;
        for (int c = 0; c < nj; c++) s += o->S[r * nj + c] * rho[c];
        w[r] = s;
    }
    for (int h = 0; h < 2; h++) { /* R_frame^T R_cut, moment then force */
        double a[3];
        matvec3(v.rot + 9 * o->cut, w + 3 * h, a);
        mattvec3(v.rot + 9 * o->frame, a, w1 + 3 * h);
    }
    double p[3];
    matvec3(v.rot + 9 * o->tip_body, o->tip, p);
    for (int c = 0; c < 3; c++) tip[c] = v.org[3 * o->tip_body + c] + p[c];
    memcpy(tip + 3, rec + 3 * n, sizeof(double) * n);
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}
