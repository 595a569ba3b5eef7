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
} mbs_task;

int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work);

/* z_E,a(t) of (22) and its first two derivatives (programmed_motion.quintic_rise): out[0..2]. */
void mbs_quintic_rise(double t, double z0, double dz, double tc, double *out);

/* Bristle rate (14) of joint jn of a task and its derivatives by the joint rate v and the deflection z (task.c). */
void mbs_bristle_jacobian(const mbs_task *task, int jn, double v, double z, double *dzdot_dv, double *dzdot_dz);

#endif
