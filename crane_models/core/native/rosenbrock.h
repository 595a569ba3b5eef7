/* The stiff stepper (rosenbrock.c): a linearly implicit Rosenbrock-W method over any right-hand side of
 * y = [q; u; x] and its Jacobian. The stepping floor, above the LU (linalg.h), beside the explicit pairs
 * (steppers.h: the controller and the return codes it shares). See multibody.h. */
#ifndef CRANE_ROSENBROCK_H
#define CRANE_ROSENBROCK_H

#include "steppers.h"

/* A linearly implicit Rosenbrock-W method (integration/rosenbrock.py is the specification and gives the
 * coefficients; Hairer & Wanner IV.7 (7.4)):
 *   (I - h gamma J) k_i = h f(t + c_i h, y + sum_j alpha_ij k_j) + h J sum_j g_ij k_j,
 *   y_1 = y + sum_i b_i k_i,  error estimate sum_i e_i k_i. */
typedef struct {
    int stages, order;            /* order: of the error estimate's leading term (step-size controller) */
    double gamma;
    const double *alpha, *g;      /* (stages, stages), row-major, strictly lower */
    const double *b, *e, *c;      /* (stages) */
} mbs_wtableau;

/* What the stiff stepper keeps from one call to the next (rosenbrock.RosenbrockW's J, J_age, W^-1): the
 * Jacobian, its age in accepted steps, and the LU of the reduced iteration matrix with the step it is for. */
typedef struct {
    double *J;                    /* (size, size) */
    double *lu;                   /* (n + nx)^2, nx = size - 2 n */
    int *piv;                     /* (n + nx) */
    int have_J, J_age, max_age, lu_valid;
    double lu_h;
    long jacobians, jacobian_evaluations;
    /* fixed-step mode (fixed_h > 0, rosenbrock.FixedStepRosenbrockW): steps of fixed_h (the interval cut into equal
     * steps no longer), all accepted, and before each the fixed_columns columns of J from next_column on (cyclic)
     * recomputed at the step's start, so that every step costs the same */
    double fixed_h;
    int fixed_columns, next_column;
} mbs_implicit;

/* d ydot / d y of a right-hand side (f0 = ydot at (t, y)) into J: its columns first .. first + count - 1 (count =
 * size: all of J); nonzero when it cannot be evaluated. */
typedef int (*mbs_jac)(const void *ctx, double t, const double *y, const double *f0, double *J, int first, int count,
                       double *rec, double *model_work, double *work);
int mbs_rosenbrock_rhs(mbs_rhs f, mbs_jac jac, const void *ctx, int n, int size, const mbs_wtableau *tab,
                       mbs_stepper *st, mbs_implicit *imp, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_stride, int *final, double *model_work, double *work);

#endif
