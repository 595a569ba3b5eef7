/* The kernel's stepping entry points (stepping.c): a tree's right-hand side (tree_rhs.h) under the explicit
 * pairs (steppers.h) or the Rosenbrock-W method (rosenbrock.h). The top floor of the kernel. See multibody.h. */
#ifndef CRANE_STEPPING_H
#define CRANE_STEPPING_H

#include "rosenbrock.h"
#include "tree_rhs.h"

/* Entry point: mbs_integrate_rhs over mbs_derivative, or mbs_task_derivative when task is not NULL. */
int mbs_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                  const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                  double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                  const mbs_lengths *len);
/* Entry point: mbs_rosenbrock_rhs over the same right-hand sides, their Jacobian by mbs_tree_jacobian. */
int mbs_rosenbrock_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                             const mbs_task *task, const mbs_wtableau *tab, mbs_stepper *st, mbs_implicit *imp,
                             double t, double t_end, double *y, double *k1, double *recs, int rec_size,
                             int rec_stride, int *final, double *model_work, double *work, const mbs_lengths *len);

#endif
