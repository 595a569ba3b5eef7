/* What a tree carries besides joint efforts, and its state derivative by the articulated-body algorithm (task.c;
 * crane_models/models/flexible_crane/ is the specification): above the dynamics (the effort law). See
 * multibody.h. */
#ifndef CRANE_TASK_H
#define CRANE_TASK_H

#include "dynamics.h"

/* Point springs on one body, a programmed constraint on a point, friction in chosen joints. */
typedef struct {
    /* linear springs/dampers from points of spring_body to their rest points, along the Frame 0 axes (20) */
    int spring_body, n_springs;
    const double *spring_points, *spring_k, *spring_c;  /* (n_springs, 3) each, body coordinates / per axis */
    /* programmed constraint on the COG of point_body (a point mass: the end effector): 0 none, 1 ellipse (17.1) + quintic height (17.2), (22);
     * cpar = a, b, z_start, z_inc, t_c, alpha (x Phi), beta (x Phi'), Baumgarte (18.3)-(18.4) */
    int constraint_kind, point_body;
    double cpar[7];
    /* friction (13)-(15) in n_joints joints: 0 none, 1 Dahl, 2 LuGre, on the joints' coordinates */
    int friction_kind, n_joints, iterations;
    const int *joint_body, *joint_coord;
    const double *subtree_mass;  /* (n_joints, nb): m_b when body b is outboard of the joint */
    const double *pin_diameter, *mu_s, *mu_k, *sigma0, *sigma1, *sigma2, *gamma, *v_s;  /* (n_joints) */
    /* a reduced tree (reduced.c): n_reduced > 0 coordinates q_r with q = P q_r, the state [q_r; u_r; z]; 0: q itself.
     * P sparse by rows (reduction_rows (n + 1), reduction_cols and reduction_values) and by columns (below); reduced_damping (n_reduced, n)
     * or NULL: the reduced damping force -D u; state_joint_coord: the friction joints' coordinates in q_r;
     * reduced_work: mbs_reduced_work_size doubles */
    int n_reduced;
    const int *reduction_rows, *reduction_cols, *state_joint_coord;
    const double *reduction_values, *reduced_damping;
    double *reduced_work;
    /* P again, sparse by columns: column_starts (n_reduced + 1), column_rows and column_values */
    const int *column_starts, *column_rows;
    const double *column_values;
} mbs_task;

/* The state's coordinates: n_reduced of a reduced tree, else the tree's n. */
static inline int mbs_state_n(const mbs_model *m, const mbs_task *task) {
    return task && task->n_reduced ? task->n_reduced : m->n;
}

/* The friction joint jn's coordinate in the state. */
static inline int mbs_state_joint(const mbs_task *task, int jn) {
    return task->n_reduced ? task->state_joint_coord[jn] : task->joint_coord[jn];
}

/* reduced.c: the scratch doubles of a reduced tree's solve; the load cases' u' (n, ncase) and spatial accelerations
 * (ncase, nb, 6) as task.c's articulated solve gives them, from the bodies' spatial inertias I6, bias forces pA
 * (V x* I V - f_ext), the law's efforts, u, the root acceleration A0 of case 0, and the point's unit wrenches (mc, 6);
 * then the reduced accelerations out (n_reduced) at the multipliers lam and friction torques tf. */
int mbs_reduced_work_size(const mbs_model *m, const mbs_task *task);
int mbs_reduced_cases(const mbs_model *m, const mbs_task *task, const double *S, const double *c, const double *I6,
                      const double *pA, const double *eff, const double *u, const double *A0, const double *wrench,
                      int mc, int ncase, double *QDD, double *A);
void mbs_reduced_accelerations(const mbs_task *task, int ncase, int mc, const double *lam, const double *tf,
                               const mbs_model *m, double *out);

int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work);

/* z_E,a(t) of (22) and its first two derivatives (programmed_motion.quintic_rise): out[0..2]. */
void mbs_quintic_rise(double t, double z0, double dz, double tc, double *out);

/* Bristle rate (14) of joint jn of a task and its derivatives by the joint rate v and the deflection z (task.c). */
void mbs_bristle_jacobian(const mbs_task *task, int jn, double v, double z, double *dzdot_dv, double *dzdot_dz);

#endif
