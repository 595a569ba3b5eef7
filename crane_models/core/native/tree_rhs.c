/* A tree's right-hand side as the steppers see it (mbs_rhs): y = [q; u] through mbs_derivative, or [q; u; z]
 * through mbs_task_derivative; its Jacobian is jacobian.c. Above the models, under the stepping entry points
 * (stepping.c). See tree_rhs.h. */
#include "multibody.h"

/* One evaluation of the compiled right-hand side into record rec (with its tail): mbs_derivative for
 * y = [q; u], or with a task mbs_task_derivative for y = [q; u; z]. Writes ydot. */
static int rhs_eval(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                    int rec_size, double t, const double *y, double *ydot, double *rec, double *work) {
    const int n = m->n;
    memcpy(rec, y, sizeof(double) * 2 * n);
    int code;
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
