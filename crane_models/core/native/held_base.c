/* A tree on a base held over each step: the right-hand side of its free coordinates under the explicit pairs, and
 * the outputs of a crane on such a base (models/vessel_crane/split.py CraneOnMovingBaseModel is the specification;
 * tests/test_split_crane_kernel.py compares). The base's angles and rates are the inputs' at the step's start and
 * stay there through the step (the zero-order hold of an FMU's inputs: the module docstring of split.py says why);
 * its accelerations u'_p are prescribed through the effort law, so mbs_derivative solves
 * M_ff u'_f = tau_f - (C u)_f - M_fp u'_p, eq. (43) partitioned. A model under the stepper, beside payload.c.
 * See held_base.h. */
#include "multibody.h"

static void load_on_base(const mbs_model *m, const mbs_held_outputs_model *o, const double *rec, double *wrench,
                         double *tip, double *work);

int mbs_held_size(const mbs_held_base *hb) {
    return 2 * hb->nf + (hb->load ? MBS_STEP_STATES : 0);
}

int mbs_held_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_held_base *hb,
                        const double *y, double *ydot, double *rec, double *work) {
    const int n = m->n, nf = hb->nf;
    const int *f = hb->free_;
    memcpy(rec, inputs + hb->n_law, sizeof(double) * 2 * n); /* the held q, u (free entries overwritten next) */
    for (int i = 0; i < nf; i++) {
        rec[f[i]] = y[i];
        rec[n + f[i]] = y[nf + i];
    }
    const int code = mbs_derivative(m, law, inputs, rec, work);
    if (code) return code;
    for (int i = 0; i < nf; i++) {
        ydot[i] = rec[n + f[i]];
        ydot[nf + i] = rec[2 * n + f[i]];
    }
    if (hb->load) { /* the quadrature of the load on the base (mbs_derivative's scratch is free again) */
        double tip[3];
        load_on_base(m, hb->load, rec, ydot + 2 * nf, tip, work);
        mbs_step_rates(ydot + 2 * nf);
    }
    return 0;
}

int mbs_held_base_inputs(const mbs_model *m, const mbs_held_base *hb, const double *crane_inputs,
                          const double *motion, double *inputs) {
    const int n = m->n, nc = hb->n_law - 6;
    double *q = inputs + hb->n_law, *u = q + n, rates[3];
    mbs_base_motion(motion, rates, inputs, inputs + 3 + nc);
    memcpy(inputs + 3, crane_inputs, sizeof(double) * nc);
    memset(q, 0, sizeof(double) * 2 * n);
    for (int i = 0; i < 3; i++) {
        q[hb->angles[i]] = motion[i];
        u[hb->angles[i]] = rates[i];
    }
    return 0;
}

typedef struct {
    const mbs_model *m;
    const mbs_effort_law *law;
    const double *inputs;
    const mbs_held_base *hb;
} held_rhs;

static int held_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work) {
    const held_rhs *c = ctx;
    (void)t;
    return mbs_held_derivative(c->m, c->law, c->inputs, c->hb, y, ydot, rec, work);
}

int mbs_held_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_held_base *hb,
                       const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                       const mbs_lengths *len) {
    const held_rhs ctx = {m, law, inputs, hb};
    const int size = mbs_held_size(hb);
    *final = -1;
    if (mbs_check_lengths(len, size, rec_size, 0, rec_stride, (long)(tab->stages + 1) * size))
        return MBS_BAD_BUFFERS;
    return mbs_integrate_rhs(held_eval, &ctx, size, NULL, 0, tab, st, t, t_end, y, k1, recs, rec_stride, final,
                             model_work, work);
}

int mbs_held_values_size(const mbs_held_outputs_model *o) {
    return 3 * o->nf + 6 + 3 + 21 + 6 + 12;
}

/* The load on the base [f; n] (base frame) and the tip from the base origin (base frame) of the evaluation rec: the
 * cut's constraint wrench S rho [n; f] (mbs_cut_outputs, after the 2 n of the state) with the axial torque, turned
 * into the base frame and negated. work: 3 n + 15 + 12 nb + 6 doubles. */
static void load_on_base(const mbs_model *m, const mbs_held_outputs_model *o, const double *rec, double *wrench,
                         double *tip, double *work) {
    const int n = m->n, base = o->cut->frame, cut = o->cut->cut;
    const record_view v = view_of(m, rec);
    double *cut_values = work, *cut_work = cut_values + 3 * n + 15, w[6];
    const int none = 0;
    mbs_cut_outputs(m, o->cut, rec, rec, NULL, cut_values, &none, 0, NULL, cut_work);
    memcpy(w, cut_values + 2 * n, sizeof w);
    w[2] += rec[3 * n + o->axial]; /* the slewing torque's reaction about the cut's z axis */
    for (int h = 0; h < 2; h++) { /* R_base^T R_cut, force then moment, negated: the load on the base */
        double a[3], b[3];
        matvec3(v.rot + 9 * cut, w + 3 * (1 - h), a);
        mattvec3(v.rot + 9 * base, a, b);
        for (int c = 0; c < 3; c++) wrench[3 * h + c] = -b[c];
    }
    const double *tip0 = cut_values + 2 * n + 12;
    const double d[3] = {tip0[0] - v.org[3 * base], tip0[1] - v.org[3 * base + 1], tip0[2] - v.org[3 * base + 2]};
    mattvec3(v.rot + 9 * base, d, tip);
}

int mbs_held_outputs(const mbs_model *m, const mbs_held_outputs_model *o, const double *rec, const double *accel,
                     const double *integral, double *values, const int *index, int n_out, double *out, double *work) {
    const int n = m->n, nf = o->nf;
    double *val = values, *wrench = values + 2 * nf, *tip = wrench + 6, *eff = tip + 3, *inertia = eff + nf,
           *mean = inertia + 27;
    load_on_base(m, o, rec, wrench, tip, work);
    for (int i = 0; i < nf; i++) {
        val[i] = rec[o->free_[i]];
        val[nf + i] = rec[n + o->free_[i]];
        eff[i] = rec[3 * n + o->free_[i]];
    }
    if (o->inertia) {
        if (mbs_inertia_values(m, rec, o->prescribed, o->free_, o->nf, o->cut->frame, wrench, accel, inertia,
                               work + 3 * n + 15 + 12 * m->nb + 6))
            return -1;
    } else {
        memset(inertia, 0, sizeof(double) * 27);
    }
    mbs_step_loads(integral, wrench, mean); /* CraneOnMovingBaseModel.mean_wrench */
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}
