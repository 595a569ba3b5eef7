/* The stiff stepper: a linearly implicit Rosenbrock-W method with error control over a whole communication
 * step, for any right-hand side of y = [q; u; x] and its Jacobian (mbs_rhs, mbs_jac: stepping.c binds a tree's);
 * integration/rosenbrock.RosenbrockW is the specification: same coefficients, same step-size control, same
 * Jacobian policy. The stepping floor, under the models, above the LU (lu.c). See rosenbrock.h.
 *
 * y = [q; u; x] with q' = u (x: the bristle deflections of a task, or nothing). The Jacobian's q rows are
 * [0 I 0], so W = I - h gamma J is solved through its Schur complement on [u; x]: with s = h gamma and the
 * blocks A_q, A_u, A_x of the u' rows and X_q, X_u, X_x of the x' rows,
 *   [ I - s A_u - s^2 A_q    -s A_x     ] [k_u]   [r_u + s A_q r_q]
 *   [ -(s X_u + s^2 X_q)     I - s X_x  ] [k_x] = [r_x + s X_q r_q],   k_q = r_q + s k_u,
 * n + nx unknowns instead of 2 n + nx: about an eighth of the LU's work (lu.c), formed once per step size and
 * Jacobian and kept while both stay. */
#include "multibody.h"

/* The reduced matrix of W for s = h gamma into imp->lu, factorized; nonzero when singular. */
static int factor_iteration_matrix(const mbs_implicit *imp, int n, int size, double s, double *lu, int *piv) {
    const int nr = size - n; /* [u; x] */
    const double *J = imp->J;
    for (int i = 0; i < nr; i++) {
        const double *row = J + (long)(n + i) * size; /* d(u', x')_i / d[q, u, x] */
        double *out = lu + (long)i * nr;
        for (int j = 0; j < nr; j++) out[j] = (i == j ? 1.0 : 0.0) - s * row[n + j];
        for (int j = 0; j < n; j++) out[j] -= s * s * row[j];
    }
    return mbs_lu_factor(nr, lu, piv);
}

/* k = W^-1 r through the reduced system; scratch: n + nx doubles. */
static void solve_w(const mbs_implicit *imp, int n, int size, double s, const double *r, double *k, double *scratch) {
    const int nr = size - n;
    const double *J = imp->J;
    for (int i = 0; i < nr; i++) {
        const double *row = J + (long)(n + i) * size;
        double acc = 0.0;
        for (int j = 0; j < n; j++) acc += row[j] * r[j];
        scratch[i] = r[n + i] + s * acc;
    }
    mbs_lu_solve(nr, imp->lu, imp->piv, scratch);
    for (int i = 0; i < nr; i++) k[n + i] = scratch[i];
    for (int i = 0; i < n; i++) k[i] = r[i] + s * scratch[i];
}

/* out = J v: the q rows are v_u, the others their row of J. */
static void jacobian_times(const mbs_implicit *imp, int n, int size, const double *v, double *out) {
    for (int i = 0; i < n; i++) out[i] = v[n + i];
    for (int i = n; i < size; i++) {
        const double *row = imp->J + (long)i * size;
        double acc = 0.0;
        for (int j = 0; j < size; j++) acc += row[j] * v[j];
        out[i] = acc;
    }
}

static int refresh_jacobian(mbs_jac jac, const void *ctx, int size, mbs_stepper *st, mbs_implicit *imp, double t,
                            const double *y, const double *f0, double *rec, double *model_work, double *work) {
    const int code = jac(ctx, t, y, f0, imp->J, 0, size, rec, model_work, work);
    imp->next_column = 0;
    if (!code) {
        st->evaluations += size;
        imp->jacobian_evaluations += size;
        imp->jacobians++;
    }
    imp->have_J = !code;
    imp->J_age = 0;
    imp->lu_valid = 0;
    return code;
}

/* One trial step of length h from (t, y) with k1 = f(t, y) (RosenbrockW._step and the end evaluation): y_new
 * and, when the step is accepted by the error norm, f(t_new, y_new) into knew with its record in rec_end.
 * Returns the scaled RMS error (INFINITY when W is singular or an evaluation fails). */
static double trial_step(mbs_rhs f, const void *ctx, int n, int size, const mbs_wtableau *tab, mbs_stepper *st,
                         mbs_implicit *imp, double t, double h, double t_new, const double *y, const double *k1,
                         double *y_new, double *knew, double *rec_stage, double *rec_end, double *model_work,
                         double *work, int control) {
    const int S = tab->stages;
    double *K = work, *ys = K + (long)S * size, *g = ys + size, *r = g + size, *scratch = r + size;
    const double s = h * tab->gamma;
    if (!imp->lu_valid || fabs(h - imp->lu_h) > 1e-9 * h) {
        /* within rounding of the step it was formed for, W is kept: a W-method tolerates h' gamma J for h */
        imp->lu_valid = !factor_iteration_matrix(imp, n, size, s, imp->lu, imp->piv);
        imp->lu_h = h;
        if (!imp->lu_valid) return INFINITY;
    }
    const double sw = imp->lu_h * tab->gamma; /* the matrix is the one formed for lu_h */
    for (int i = 0; i < size; i++) r[i] = h * k1[i];
    solve_w(imp, n, size, sw, r, K, scratch);
    for (int st_i = 1; st_i < S; st_i++) {
        const double *a = tab->alpha + st_i * S, *gc = tab->g + st_i * S;
        for (int i = 0; i < size; i++) {
            double yi = y[i], gi = gc[0] * K[i];
            for (int j = 0; j < st_i; j++)
                if (a[j] != 0.0) yi += a[j] * K[(long)j * size + i];
            for (int j = 1; j < st_i; j++) gi += gc[j] * K[(long)j * size + i];
            ys[i] = yi;
            g[i] = gi;
        }
        double *fi = K + (long)st_i * size; /* f_i first, then k_i in its place */
        if (f(ctx, t + tab->c[st_i] * h, ys, fi, rec_stage, model_work)) return INFINITY;
        st->evaluations++;
        jacobian_times(imp, n, size, g, r);
        for (int i = 0; i < size; i++) r[i] = h * (fi[i] + r[i]);
        solve_w(imp, n, size, sw, r, fi, scratch);
    }
    double sum = 0.0;
    for (int i = 0; i < size; i++) {
        double yn = y[i], e = 0.0;
        for (int j = 0; j < S; j++) {
            yn += tab->b[j] * K[(long)j * size + i];
            e += tab->e[j] * K[(long)j * size + i];
        }
        y_new[i] = yn;
        e /= st->atol + st->rtol * fmax(fabs(y[i]), fabs(yn));
        sum += e * e;
    }
    const double err = sqrt(sum / size);
    if (control ? !(err <= 1.0) : !isfinite(err)) return control ? err : INFINITY;
    if (f(ctx, t_new, y_new, knew, rec_end, model_work)) return INFINITY;
    st->evaluations++;
    for (int i = 0; i < size; i++)
        if (!isfinite(knew[i])) return INFINITY;
    return err;
}

/* The fixed-step mode (imp->fixed_h > 0) of mbs_rosenbrock_rhs, as FixedStepRosenbrockW.advance: the interval in
 * equal steps no longer than fixed_h, each accepted (its error estimate not used), before each a slice of
 * fixed_columns columns of J at the step's start (the whole J on the first call). MBS_STEP_TOO_SMALL when a step
 * is not finite (the method's stability exceeded). */
static int fixed_steps(mbs_rhs f, mbs_jac jac, const void *ctx, int n, int size, const mbs_wtableau *tab,
                       mbs_stepper *st, mbs_implicit *imp, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_stride, int *final, double *model_work, double *work) {
    double *y_new = work, *knew = y_new + size, *trial = knew + size;
    double *jac_work = trial + (long)(tab->stages + 4) * size;
    int cur = -1, spare = 1;
    const double tol_end = mbs_time_rounding(t_end);
    if (t_end - t <= tol_end) { *final = -1; st->t = t; return MBS_DONE; }
    const double steps = fmax(1.0, ceil((t_end - t) / imp->fixed_h - 1e-9)), h = (t_end - t) / steps;
    for (int s = 0; s < (int)steps; s++) {
        if (mbs_cancelled(st, t)) { st->t = t; *final = cur; return MBS_CANCELLED; }
        if (!imp->have_J) {
            if (refresh_jacobian(jac, ctx, size, st, imp, t, y, k1, recs, model_work, jac_work)) {
                st->t = t; *final = cur; return MBS_NO_JACOBIAN;
            }
        } else if (imp->fixed_columns > 0) {
            const int count = imp->fixed_columns < size ? imp->fixed_columns : size;
            if (jac(ctx, t, y, k1, imp->J, imp->next_column, count, recs, model_work, jac_work)) {
                st->t = t; *final = cur; return MBS_NO_JACOBIAN;
            }
            imp->next_column = (imp->next_column + count) % size;
            st->evaluations += count;
            imp->jacobian_evaluations += count;
            imp->lu_valid = 0;
        }
        const double t_new = s == (int)steps - 1 ? t_end : t + h;
        double *rec_end = recs + (long)spare * rec_stride;
        const double err = trial_step(f, ctx, n, size, tab, st, imp, t, h, t_new, y, k1, y_new, knew, recs, rec_end,
                                      model_work, trial, 0);
        if (!isfinite(err)) { st->rejected++; st->t = t; *final = cur; return MBS_STEP_TOO_SMALL; }
        st->accepted++;
        t = t_new;
        memcpy(y, y_new, sizeof(double) * size);
        memcpy(k1, knew, sizeof(double) * size);
        cur = spare;
        spare = 3 - spare;
        imp->J_age++;
    }
    st->h = h;
    st->t = t;
    *final = cur;
    return MBS_DONE;
}

/* Integrate y' = f(t, y) from t to exactly t_end as RosenbrockW.advance does: the remaining interval in equal
 * steps no longer than the controller's (plain steps after a rejection), J refreshed on the first call, after
 * imp->max_age accepted steps, and after a rejection with a J not computed at that step's start (the second
 * in a row, or an evaluation that failed). y, k1 (= f(t, y)) are updated in place; recs: three records as for
 * mbs_integrate_rhs (*final: the one with the evaluation at t_end). work: (stages + 9) size doubles.
 * Returns MBS_DONE, MBS_STEP_TOO_SMALL, MBS_OUT_OF_STEPS, MBS_CANCELLED (st->cancel set before a trial step)
 * or MBS_NO_JACOBIAN (an evaluation for the Jacobian failed); on any of them y, k1 hold the values at st->t. */
int mbs_rosenbrock_rhs(mbs_rhs f, mbs_jac jac, const void *ctx, int n, int size, const mbs_wtableau *tab,
                       mbs_stepper *st, mbs_implicit *imp, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_stride, int *final, double *model_work, double *work) {
    if (imp->fixed_h > 0.0)
        return fixed_steps(f, jac, ctx, n, size, tab, st, imp, t, t_end, y, k1, recs, rec_stride, final, model_work,
                           work);
    double *y_new = work, *knew = y_new + size, *trial = knew + size;
    double *jac_work = trial + (long)(tab->stages + 4) * size;
    int cur = -1, spare = 1, rejections = 0, code = MBS_DONE;
    double h = st->h > 0.0 ? st->h : fmin(fmin(st->max_step, t_end - t), 1e-3);
    const double tol_end = mbs_time_rounding(t_end), grow = -1.0 / tab->order;
    while (t_end - t > tol_end) {
        if (st->accepted + st->rejected >= st->max_steps) { code = MBS_OUT_OF_STEPS; break; }
        if (mbs_cancelled(st, t)) { code = MBS_CANCELLED; break; }
        if (!imp->have_J && refresh_jacobian(jac, ctx, size, st, imp, t, y, k1, recs, model_work, jac_work)) {
            code = MBS_NO_JACOBIAN;
            break;
        }
        h = fmin(h, st->max_step);
        const double remaining = t_end - t;
        double h_try;
        int last;
        if (rejections == 0) {
            const double steps = fmax(1.0, ceil(remaining / h - 1e-9));
            h_try = remaining / steps;
            last = steps == 1.0;
        } else { /* plain steps after a rejection (see RosenbrockW.advance: a switch just past t_end) */
            last = mbs_reaches(t, h, t_end);
            h_try = last ? remaining : h;
        }
        const double t_new = last ? t_end : t + h_try;
        double *rec_end = recs + (long)spare * rec_stride;
        const double err = trial_step(f, ctx, n, size, tab, st, imp, t, h_try, t_new, y, k1, y_new, knew, recs,
                                      rec_end, model_work, trial, 1);
        if (err <= 1.0) {
            st->accepted++;
            t = t_new;
            memcpy(y, y_new, sizeof(double) * size);
            memcpy(k1, knew, sizeof(double) * size);
            cur = spare;
            spare = 3 - spare;
            rejections = 0;
            imp->J_age++;
            const double factor = err == 0.0 ? 5.0 : fmin(5.0, 0.9 * pow(err, grow));
            h = factor >= 1.0 && factor <= 1.2 ? h_try : h_try * factor; /* a small increase is not worth a new LU */
            if (imp->J_age >= imp->max_age) imp->have_J = 0;
        } else {
            st->rejected++;
            const double factor = !isfinite(err) ? 0.2 : fmax(0.2, 0.9 * pow(err, grow));
            h = h_try * factor;
            if (h < st->min_step) { code = MBS_STEP_TOO_SMALL; break; }
            rejections++;
            if (imp->J_age > 0 && (rejections >= 2 || !isfinite(err))
                && refresh_jacobian(jac, ctx, size, st, imp, t, y, k1, recs, model_work, jac_work)) {
                code = MBS_NO_JACOBIAN;
                break;
            }
        }
    }
    st->h = h;
    st->t = t;
    *final = cur;
    return code;
}
