/* A load on one body of a tree given by inputs at a point of it (point_load.c): a wrench, and optionally the inertia
 * of what hangs there, W = W0 - A a (the vessel of the split ship co-simulation under its crane: Cibicik & Egeland,
 * moving base, eqs. (32), (46); core/moving_base/interface_inertia.py). Part of an effort law (dynamics.h), so that
 * mbs_derivative and everything stepped over it take it; its outputs are the point's motion. Above the kinematics,
 * under the dynamics. See multibody.h. */
#ifndef CRANE_POINT_LOAD_H
#define CRANE_POINT_LOAD_H

#include "kinematics.h"

/* A's upper triangle row by row (interface_inertia.INERTIA_NAMES): 21 inputs. */
enum { MBS_INERTIA_INPUTS = 21 };

typedef struct {
    int body;           /* the body it acts on (its projection rows are evaluated even when it has no mass) */
    int wrench_input;   /* inputs[wrench_input + 0..5]: [f; n] at the point, body coordinates */
    int inertia_input;  /* inputs[inertia_input + 0..20]: A (6 x 6, rows [f; n], columns [a_P; w']), or -1: none */
    int pivoted;        /* 1: the body turns about its frame's origin, fixed in Frame 0 (the vessel of (53)): the
                         * point's motion is w x P, w' x P + w x (w x P) exactly (the COG's terms cancel, up to
                         * rounding; a zero stays zero) */
    double point[3];    /* the point P in body coordinates */
} mbs_point_load;

/* a = [a_P; w'] = G u' + c from a record of the evaluation at (q, u): the acceleration of P relative to Frame 0 and
 * the body's angular acceleration, both in body coordinates (the body's twist rate (27) moved from its COG to P).
 * G: (6, n) row-major, c: (6). The same G carries the wrench: tau_W = G^T W. */
void mbs_point_motion(const mbs_model *m, const mbs_point_load *pl, const double *rec, double *G, double *c);

/* The load's part of M u' + C u = tau (43): rhs += G^T W (rhs = tau - C u on entry). Returns 0 when A is absent or
 * zero (the caller solves M u' = rhs), else solves (M + G^T A G) u' = rhs - G^T A c into udot (LU with partial
 * pivoting, as numpy's solve) and returns 1, or -1 when that matrix is singular. work: n n + 7 n + 6 doubles. */
int mbs_point_load_accelerations(const mbs_model *m, const mbs_point_load *pl, const double *inputs,
                                 const double *rec, double *rhs, double *udot, double *work);

/* The values of a point's motion, in this order (core/native/outputs.py mirrors it): x (2 n) | w (3) | w' (3) |
 * v_P (3) | a_P (3), body coordinates; then out[i] = values[index[i]] for the n_out outputs, as mbs_crane_outputs.
 * rec: the record of the evaluation at x (its u' is used). work: 6 n + 6 doubles. */
int mbs_point_values_size(const mbs_model *m);
int mbs_point_outputs(const mbs_model *m, const mbs_point_load *pl, const double *x, const double *rec,
                      double *values, const int *index, int n_out, double *out, double *work);

#endif
