/* The kernel's stepping entry points: a tree's right-hand side (tree_rhs.c) and its Jacobian (jacobian.c) under
 * the explicit pairs (steppers.c) or the Rosenbrock-W method (rosenbrock.c). The top floor of the kernel with
 * payload.c. See stepping.h. */
#include "multibody.h"

/* z (n_joints), then mbs_task_derivative's result: 3 n_joints + 10 doubles (and u_r' of a reduced tree) (core/native/stepping.py
 * NativeTask.result_size): the doubles after rec_size in a record of a task's evaluation (0 without a task). */
static int task_tail(const mbs_task *task) {
    return task ? 4 * task->n_joints + 10 + task->n_reduced : 0;
}

/* Integrate from t to exactly t_end as _ExplicitPair.advance does (same controller, same tableau); y and k1
 * (the derivative at t) are updated in place to the values at t_end. recs: three records of rec_size + tail
 * doubles; *final is the one that holds the evaluation at t_end (-1 when no step was needed). work: stages
 * x size + size doubles. Returns 0, 1 when the step size fell below min_step, or 2 when max_steps trial steps
 * did not reach t_end (st->t: where, y and k1 at st->t), or 4 (MBS_CANCELLED) when st->cancel was set before a
 * trial step (y and k1 at st->t, the last accepted point). */
int mbs_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                  const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                  double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                  const mbs_lengths *len) {
    const tree_rhs ctx = {m, law, inputs, task, rec_size};
    const int size = 2 * mbs_state_n(m, task) + (task ? task->n_joints : 0);
    *final = -1;
    if (mbs_check_lengths(len, size, rec_size, task_tail(task), rec_stride, (long)(tab->stages + 1) * size))
        return MBS_BAD_BUFFERS;
    return mbs_integrate_rhs(mbs_tree_eval, &ctx, size, NULL, 0, tab, st, t, t_end, y, k1, recs, rec_stride, final,
                             model_work, work);
}

static int tree_jac(const void *ctx, double t, const double *y, const double *f0, double *J, int first, int count,
                    double *rec, double *model_work, double *work) {
    const tree_rhs *c = ctx; /* forward differences: a W-method needs no more */
    const int size = 2 * mbs_state_n(c->m, c->task) + (c->task ? c->task->n_joints : 0);
    if (count >= size) return mbs_tree_jacobian(c, t, y, f0, J, 0, rec, model_work, work);
    return mbs_tree_jacobian_columns(c, t, y, f0, J, first, count, rec, model_work, work);
}

/* mbs_rosenbrock_rhs over mbs_derivative (task NULL, y = [q; u]) or mbs_task_derivative (y = [q; u; z]), the
 * Jacobian by mbs_tree_jacobian; arguments (and MBS_BAD_BUFFERS) as mbs_integrate's, imp the carried Jacobian
 * and LU. */
int mbs_rosenbrock_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                             const mbs_task *task, const mbs_wtableau *tab, mbs_stepper *st, mbs_implicit *imp,
                             double t, double t_end, double *y, double *k1, double *recs, int rec_size,
                             int rec_stride, int *final, double *model_work, double *work, const mbs_lengths *len) {
    const tree_rhs ctx = {m, law, inputs, task, rec_size};
    const int size = 2 * mbs_state_n(m, task) + (task ? task->n_joints : 0);
    *final = -1;
    if (mbs_check_lengths(len, size, rec_size, task_tail(task), rec_stride, (long)(tab->stages + 9) * size))
        return MBS_BAD_BUFFERS;
    return mbs_rosenbrock_rhs(mbs_tree_eval, tree_jac, &ctx, mbs_state_n(m, task), size, tab, st, imp, t, t_end, y, k1, recs,
                              rec_stride, final, model_work, work);
}
