/* A crane on a moving base: the base's motion of the motion inputs (53), the whole tree's right-hand side with the
 * base's accelerations prescribed, M_ff u'_f = tau_f - (C u)_f - M_fp u'_p (43) partitioned, and the load on the base
 * integrated over each step (the step-mean wrench's quadrature states), and the outputs with the interface inertia.
 * models/knuckle_boom/moving_base.py KnuckleBoomOnMovingBaseModel is the specification
 * (tests/test_moving_base_kernel.py compares). See moving_base.h. */
#include "multibody.h"

/* E^-1 v for c1, s1 = cos, sin roll, c2 = cos pitch, t = tan pitch (euler.py euler_rate_matrix_inverse). */
static void euler_inverse_times(double c1, double s1, double c2, double t, const double *v, double *out) {
    out[0] = v[0] + s1 * t * v[1] + c1 * t * v[2];
    out[1] = c1 * v[1] - s1 * v[2];
    out[2] = (s1 * v[1] + c1 * v[2]) / c2;
}

void mbs_base_motion(const double *motion, double *rates, double *euler, double *acc) {
    const double r = motion[0], p = motion[1], y = motion[2], *a = motion + 9;
    const double c1 = cos(r), s1 = sin(r), c2 = cos(p), s2 = sin(p), c3 = cos(y), s3 = sin(y), t = s2 / c2;
    const double *d = rates;
    double e[3];
    euler_inverse_times(c1, s1, c2, t, motion + 3, rates);
    /* w' - E' q' */
    e[0] = motion[6] - -c2 * d[1] * d[2];
    e[1] = motion[7] - (-s1 * d[0] * d[1] + (c1 * c2 * d[0] - s1 * s2 * d[1]) * d[2]);
    e[2] = motion[8] - (-c1 * d[0] * d[1] - (s1 * c2 * d[0] + c1 * s2 * d[1]) * d[2]);
    euler_inverse_times(c1, s1, c2, t, e, euler);
    /* R_z(y) R_y(p) R_x(r) a_P */
    const double v1[3] = {a[0], c1 * a[1] - s1 * a[2], s1 * a[1] + c1 * a[2]};
    const double v2[3] = {c2 * v1[0] + s2 * v1[2], v1[1], -s2 * v1[0] + c2 * v1[2]};
    acc[0] = c3 * v2[0] - s3 * v2[1];
    acc[1] = s3 * v2[0] + c3 * v2[1];
    acc[2] = v2[2];
}

void mbs_step_loads(const double *integrals, const double *load, double *mean_predicted) {
    double *mean = mean_predicted, *predicted = mean_predicted + 6;
    if (!integrals) {
        memset(mean_predicted, 0, sizeof(double) * 12);
        return;
    }
    /* the line through the two step means at their steps' middles, averaged over a coming step as long as the last
     * (interface.py step_wrenches): 2 mean - mean before for equal steps */
    const double *before = integrals + 7, h = integrals[6];
    const int extrapolate = h > 0.0 && before[6] > 0.0;
    const double gain = extrapolate ? 2.0 * h / (h + before[6]) : 0.0;
    for (int i = 0; i < 6; i++) {
        mean[i] = h > 0.0 ? integrals[i] / h : load[i];
        predicted[i] = extrapolate ? mean[i] + (mean[i] - before[i] / before[6]) * gain : mean[i];
    }
}

int mbs_step_restart(double *integrals) {
    int nonzero = 0;
    for (int i = 0; i < 7; i++) nonzero |= integrals[i] != 0.0;
    if (nonzero) {
        memcpy(integrals + 7, integrals, sizeof(double) * 7);
        memset(integrals, 0, sizeof(double) * 7);
    }
    return nonzero;
}

void mbs_step_rates(double *rates) {
    rates[6] = 1.0;
    memset(rates + 7, 0, sizeof(double) * 7);
}

int mbs_moving_base_inputs(const mbs_moving_base *mb, const double *crane_inputs, const double *motion,
                           double *inputs) {
    const int nc = mb->n_law - 6;
    memcpy(inputs, crane_inputs, sizeof(double) * nc);
    mbs_base_motion(motion, inputs + mb->n_law + 3, inputs + nc, inputs + nc + 3);
    memcpy(inputs + mb->n_law, motion, sizeof(double) * 3);
    return 0;
}

int mbs_moving_impose(const mbs_model *m, const mbs_moving_base *mb, const double *base_inputs, double *y) {
    const int n = m->n;
    int changed = 0;
    for (int i = 0; i < 3; i++) {
        const int a = mb->angles[i], p = mb->translation[i];
        const double values[4] = {base_inputs[i], base_inputs[3 + i], 0.0, 0.0};
        const int at[4] = {a, n + a, p, n + p};
        for (int j = 0; j < 4; j++) changed |= y[at[j]] != values[j];
    }
    if (!changed) return 0; /* equal values stay as they are (CoSimulation keeps its state then) */
    for (int i = 0; i < 3; i++) {
        y[mb->angles[i]] = base_inputs[i];
        y[n + mb->angles[i]] = base_inputs[3 + i];
        y[mb->translation[i]] = y[n + mb->translation[i]] = 0.0;
    }
    return 1;
}

int mbs_moving_size(const mbs_model *m, const mbs_moving_base *mb) {
    return 2 * m->n + (mb->load ? MBS_STEP_STATES : 0);
}

int mbs_moving_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                          const mbs_moving_base *mb, const double *y, double *ydot, double *rec, double *work) {
    const int n = m->n;
    memcpy(rec, y, sizeof(double) * 2 * n);
    const int code = mbs_derivative(m, law, inputs, rec, work);
    if (code) return code;
    memcpy(ydot, rec + n, sizeof(double) * 2 * n); /* [u; u'] */
    if (!mb->load) return 0;
    mbs_step_rates(ydot + 2 * n); /* the quadrature of the load (mbs_derivative's scratch is free again) */
    return mbs_crane_base_load(m, mb->load, rec, NULL, ydot + 2 * n, work);
}

typedef struct {
    const mbs_model *m;
    const mbs_effort_law *law;
    const double *inputs;
    const mbs_moving_base *mb;
} moving_rhs;

static int moving_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work) {
    const moving_rhs *c = ctx;
    (void)t;
    return mbs_moving_derivative(c->m, c->law, c->inputs, c->mb, y, ydot, rec, work);
}

int mbs_moving_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_moving_base *mb,
                         const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                         double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                         const mbs_lengths *len) {
    const moving_rhs ctx = {m, law, inputs, mb};
    const int size = mbs_moving_size(m, mb);
    *final = -1;
    if (mbs_check_lengths(len, size, rec_size, 0, rec_stride, (long)(tab->stages + 1) * size))
        return MBS_BAD_BUFFERS;
    return mbs_integrate_rhs(moving_eval, &ctx, size, NULL, 0, tab, st, t, t_end, y, k1, recs, rec_stride, final,
                             model_work, work);
}

int mbs_moving_values_size(const mbs_model *m, const mbs_moving_outputs_model *o) {
    return mbs_crane_values_size(m, o->crane) + 21 + 6 + 12;
}

int mbs_inertia_values(const mbs_model *m, const double *rec, const int *prescribed, const int *free_, int nf,
                       int base_body, const double *wrench, const double *accel, double *inertia, double *work) {
    const int n = m->n;
    const record_view v = view_of(m, rec);
    const double r = rec[prescribed[0]], p = rec[prescribed[1]];
    const double c1 = cos(r), s1 = sin(r), c2 = cos(p), t = sin(p) / c2;
    const double E[9] = {1.0, s1 * t, c1 * t, 0.0, c1, -s1, 0.0, s1 / c2, c1 / c2}; /* E^-1 of (53) */
    double A[36];
    if (mbs_interface_inertia(n, v.M, prescribed, free_, nf, E, v.rot + 9 * base_body, A, work)) return -1;
    double *upper = inertia;
    for (int i = 0; i < 6; i++)
        for (int j = i; j < 6; j++) *upper++ = A[6 * i + j];
    for (int i = 0; i < 6; i++) {
        double s = wrench[i];
        for (int j = 0; j < 6; j++) s += A[6 * i + j] * accel[j];
        upper[i] = s;
    }
    return 0;
}

int mbs_moving_outputs(const mbs_model *m, const mbs_moving_outputs_model *o, const double *x, const double *rec,
                       const double *udot, const double *extra, const double *accel, const double *integral,
                       double *values, const int *index, int n_out, double *out, double *work) {
    const mbs_crane_outputs_model *c = o->crane;
    const int crane = mbs_crane_values_size(m, c);
    const int code = mbs_crane_outputs(m, c, x, rec, udot, extra, values, index, 0, out, work);
    if (code) return code;
    const double *wrench = values + c->n_x + c->n_angles + 3; /* after the state entries, angles and tip */
    double *inertia = values + crane, *mean = inertia + 27;
    if (o->inertia) {
        if (mbs_inertia_values(m, rec, o->prescribed, o->free_, o->nf, o->base_body, wrench, accel, inertia, work))
            return -1;
    } else {
        memset(inertia, 0, sizeof(double) * 27);
    }
    mbs_step_loads(integral, wrench, mean);
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}
