/* The Jacobian d ydot / d y of a tree's right-hand side, y = [q; u] or [q; u; z] (mbs_tree_eval), for the stiff
 * stepper (rosenbrock.c). See multibody.h.
 *
 * Block by block, as the structure gives them:
 *   q' = u                 rows [0 I 0], exact;
 *   z' (bristles, (14))    analytic: nonzero only in the column of the joint's rate and of z itself
 *                          (mbs_bristle_jacobian);
 *   u' (the dynamics)      forward differences, one evaluation per column of y (central: two).
 * The u' rows have no cheap closed form: the element stiffness (8) and the support springs (20) reach the
 * accelerations through M^-1 under the programmed constraint and the friction fixed point, and the columns of
 * that constrained inverse cost one articulated-body solve each, about what an evaluation costs; the
 * geometric terms (gravity, velocity products, the moving spring points) would need the derivatives of the
 * whole kinematics. So the stepper computes this matrix rarely: it is a W-method, whose order holds for any
 * matrix, and keeps J while its steps are accepted (rosenbrock.RosenbrockW). */
#include "multibody.h"

/* Increments. Forward differences (the stepper's) as rosenbrock.forward_difference_jacobian: sqrt(eps) max(|y_j|, 1).
 * Central differences (tests, the stiffness estimate) eps^(1/3) max(|y_j|, s) with s = 1e-2 for coordinates and 1 for
 * rates and bristles: the joint normal forces |f_xy| of (13) turn on the scale of the elastic deflections (an
 * element coordinate of 1e-4 rad changes a joint force by thousands of N), so a coordinate's increment must stay
 * far below 1e-4; the rate columns are smooth but weak (accelerations change by ~1 per rad/s against spring
 * forces of ~1e5 inside them), so their increment must be large for the rounding to stay small. Forward
 * differences then carry up to ~1e-5 of relative error per block (~1e-3 in the weakest column), central ones
 * ~1e-8 (tests/test_stiff_kernel.py); a W-method needs neither. */
static const double SQRT_EPS = 1.4901161193847656e-08, CBRT_EPS = 6.0554544523933395e-06, COORDINATE_SCALE = 1e-2;

static void bristle_rows(const tree_rhs *c, int n, int size, const double *y, double *J) {
    const int nx = c->task ? c->task->n_joints : 0;
    for (int jn = 0; jn < nx; jn++) {
        const int v = n + mbs_state_joint(c->task, jn);
        double *row = J + (long)(2 * n + jn) * size;
        mbs_bristle_jacobian(c->task, jn, y[v], y[2 * n + jn], row + v, row + 2 * n + jn);
    }
}

int mbs_tree_jacobian_columns(const tree_rhs *c, double t, const double *y, const double *f0, double *J, int first,
                              int count, double *rec, double *model_work, double *work) {
    const int n = mbs_state_n(c->m, c->task), nx = c->task ? c->task->n_joints : 0, size = 2 * n + nx;
    double *yh = work, *fh = work + size;
    memcpy(yh, y, sizeof(double) * size);
    for (int s = 0; s < count; s++) {
        const int j = (first + s) % size;
        yh[j] = y[j] + SQRT_EPS * fmax(fabs(y[j]), 1.0);
        const double d = yh[j] - y[j];
        const int code = mbs_tree_eval(c, t, yh, fh, rec, model_work);
        yh[j] = y[j];
        if (code) return code;
        for (int i = n; i < 2 * n; i++) J[(long)i * size + j] = (fh[i] - f0[i]) / d;
    }
    bristle_rows(c, n, size, y, J);
    return 0;
}

int mbs_tree_jacobian(const tree_rhs *c, double t, const double *y, const double *f0, double *J, int central,
                      double *rec, double *model_work, double *work) {
    const int n = mbs_state_n(c->m, c->task), nx = c->task ? c->task->n_joints : 0, size = 2 * n + nx;
    double *yh = work, *fh = work + size, *fl = work + 2 * size;
    memset(J, 0, sizeof(double) * (size_t)size * size);
    for (int i = 0; i < n; i++) J[(long)i * size + n + i] = 1.0;
    memcpy(yh, y, sizeof(double) * size);
    for (int j = 0; j < size; j++) {
        const double scale = central ? CBRT_EPS * fmax(fabs(y[j]), j < n ? COORDINATE_SCALE : 1.0)
                                     : SQRT_EPS * fmax(fabs(y[j]), 1.0);
        yh[j] = y[j] + scale;
        double d = yh[j] - y[j]; /* the increment actually representable */
        int code = mbs_tree_eval(c, t, yh, fh, rec, model_work);
        const double *low = f0;
        if (!code && central) {
            yh[j] = y[j] - scale;
            d += y[j] - yh[j];
            code = mbs_tree_eval(c, t, yh, fl, rec, model_work);
            low = fl;
        }
        yh[j] = y[j];
        if (code) return code;
        for (int i = n; i < 2 * n; i++) J[(long)i * size + j] = (fh[i] - low[i]) / d;
    }
    bristle_rows(c, n, size, y, J);
    return 0;
}

/* mbs_tree_jacobian of mbs_task_derivative's (task NULL: mbs_derivative's) right-hand side: J (size x size) by
 * forward (central 0) or central differences, rec one record of rec_size doubles and its tail, work 3 size
 * doubles. Returns 0 or the failing evaluation's code. */
int mbs_task_jacobian(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                      int rec_size, double t, const double *y, const double *f0, double *J, int central, double *rec,
                      double *model_work, double *work) {
    const tree_rhs ctx = {m, law, inputs, task, rec_size};
    return mbs_tree_jacobian(&ctx, t, y, f0, J, central, rec, model_work, work);
}
