/* Joint effort laws, the state derivative of M udot + C u = tau (43) and the inertial wrenches (47)-(48)
 * (dynamics.c): above the kinematics. See multibody.h. */
#ifndef CRANE_DYNAMICS_H
#define CRANE_DYNAMICS_H

#include "point_load.h"

/* Joint efforts given per generalized coordinate (crane_models/effort_laws.py, the specification):
 * e_i = c_i + sum_j B_ij w_j + k1_i q_i + k3_i q_i^3 + d_i u_i [+ end stop_i] [- tau_g,i] with the inputs w --
 * springs (linear and the cubic vessel springs of the moving-base paper, III-D), PD control to set-points
 * in w (63), input efforts, one-sided end stops, gravity compensation. */
typedef struct {
    int n_in;
    double g;                   /* gravity, for the weight term of (46) */
    const double *constant;     /* (n) */
    const double *input_gain;   /* (n, n_in) */
    const double *linear;       /* (n) */
    const double *cubic;        /* (n) */
    const double *damping;      /* (n) */
    const double *stop_low, *stop_high, *stop_k, *stop_c; /* (n) each, or NULL: no end stops */
    int gravity_compensation;   /* 1: e -= tau_g = -g mgz */
    const int *prescribed;      /* (n) or NULL: 1 where the coordinate follows a given motion (a moving base):
                                 * the law's value there is its acceleration u'_i, not an effort */
    const mbs_point_load *load; /* NULL, or a wrench (and an inertia) from the inputs at a point of one body
                                 * (point_load.h): not with prescribed coordinates; no exact input update */
} mbs_effort_law;

/* The law's efforts (effort_laws.CoordinateEffortLaw.efforts); mgz: the weight term of (46), for gravity
 * compensation (NULL: the law must not compensate). */
/* The end stop of coordinate i of a law with stops (effort_laws.end_stop_efforts), 0 inside the limits. */
double mbs_end_stop(const mbs_effort_law *law, int i, double q, double u);
void mbs_law_efforts(const mbs_effort_law *law, int n, const double *q, const double *u, const double *inputs,
                     const double *mgz, double *eff);
int mbs_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, double *rec, double *work);

/* mbs_update_inputs returns -2 (the caller evaluates anew) for a law with prescribed coordinates or a load. */
int mbs_update_inputs(const mbs_model *m, const mbs_effort_law *law, const double *old_inputs,
                      const double *new_inputs, double *rec, double *work);

int mbs_inertial_wrenches(const mbs_model *m, const double *rec, const double *udot, double *out);

#endif
