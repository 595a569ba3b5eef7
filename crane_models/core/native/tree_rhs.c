/* A tree's right-hand side as the steppers see it (mbs_rhs): y = [q; u] through mbs_derivative, or [q; u; z]
 * through mbs_task_derivative; its Jacobian is jacobian.c. Above the models, under the stepping entry points
 * (stepping.c). See tree_rhs.h. */
#include "multibody.h"

/* One evaluation of the compiled right-hand side into record rec (with its tail): mbs_derivative for
 * y = [q; u], or with a task mbs_task_derivative for y = [q; u; z]. Writes ydot. */
static int rhs_eval(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                    int rec_size, double t, const double *y, double *ydot, double *rec, double *work) {
    const int n = m->n;
    int code;
    if (task && task->n_reduced) { /* y = [q_r; u_r; z]: the record holds q = P q_r, u = P u_r (reduced.c) */
        const int nr = task->n_reduced, nj = task->n_joints;
        const int *rp = task->reduction_rows, *col = task->reduction_cols;
        const double *val = task->reduction_values;
        for (int k = 0; k < n; k++) {
            double a = 0.0, b = 0.0;
            for (int p = rp[k]; p < rp[k + 1]; p++) { a += val[p] * y[col[p]]; b += val[p] * y[nr + col[p]]; }
            rec[k] = a;
            rec[n + k] = b;
        }
        memcpy(rec + rec_size, y + 2 * nr, sizeof(double) * nj);
        code = mbs_task_derivative(m, law, inputs, task, t, rec + rec_size, rec, rec + rec_size + nj, work);
        if (!code) {
            memcpy(ydot, y + nr, sizeof(double) * nr);
            memcpy(ydot + nr, rec + rec_size + 4 * nj + 10, sizeof(double) * nr); /* u_r' after the result */
            memcpy(ydot + 2 * nr, rec + rec_size + nj, sizeof(double) * nj);
        }
        return code;
    }
    memcpy(rec, y, sizeof(double) * 2 * n);
    if (task) {
        const int nj = task->n_joints;
        memcpy(rec + rec_size, y + 2 * n, sizeof(double) * nj);
        code = mbs_task_derivative(m, law, inputs, task, t, rec + rec_size, rec, rec + rec_size + nj, work);
        if (!code) memcpy(ydot + 2 * n, rec + rec_size + nj, sizeof(double) * nj);
    } else {
        code = mbs_derivative(m, law, inputs, rec, work);
    }
    if (!code) memcpy(ydot, rec + n, sizeof(double) * 2 * n); /* [u; u'] */
    return code;
}

int mbs_tree_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work) {
    const tree_rhs *c = ctx;
    return rhs_eval(c->m, c->law, c->inputs, c->task, c->rec_size, t, y, ydot, rec, work);
}
