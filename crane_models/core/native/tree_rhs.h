/* A tree's right-hand side as the steppers see it (tree_rhs.c) and its Jacobian (jacobian.c): the models
 * (dynamics.h, task.h) under the steppers' signature (steppers.h). See multibody.h. */
#ifndef CRANE_TREE_RHS_H
#define CRANE_TREE_RHS_H

#include "steppers.h"
#include "task.h"

/* A tree's right-hand side for the steppers: mbs_derivative (task NULL, y = [q; u]) or mbs_task_derivative
 * (y = [q; u; z]); rec_size: doubles of the record before its tail. */
typedef struct {
    const mbs_model *m;
    const mbs_effort_law *law;
    const double *inputs;
    const mbs_task *task;
    int rec_size;
} tree_rhs;
/* An mbs_rhs over a tree_rhs (ctx). */
int mbs_tree_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work);

/* d ydot / d y (size x size, row-major) of a tree's right-hand side at (t, y), ydot = f0 there, by forward or
 * (central = 1) central differences where it has no closed form (jacobian.c). */
int mbs_tree_jacobian(const tree_rhs *c, double t, const double *y, const double *f0, double *J, int central,
                      double *rec, double *model_work, double *work);
/* Columns first .. first + count - 1 (cyclic) of mbs_tree_jacobian's u' rows by forward differences, and its bristle
 * rows, in place in J (the rest of J kept): the fixed-step stiff stepper's slices of J. */
int mbs_tree_jacobian_columns(const tree_rhs *c, double t, const double *y, const double *f0, double *J, int first,
                              int count, double *rec, double *model_work, double *work);
/* Entry point: mbs_tree_jacobian of a tree's right-hand side (task NULL: mbs_derivative's). */
int mbs_task_jacobian(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                      int rec_size, double t, const double *y, const double *f0, double *J, int central, double *rec,
                      double *model_work, double *work);

#endif
