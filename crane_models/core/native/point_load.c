/* A load on one body given by inputs at a point of it: the wrench W = [f; n] and the inertia A of W = W0 - A a
 * (point_load.h). The vessel of the split ship co-simulation (models/vessel_crane/split.py VesselModel) is the
 * specification: its external_wrenches, accelerations_with_crane_inertia and motion. Above the kinematics, under
 * the dynamics. See multibody.h. */
#include "multibody.h"

/* d = P - COG, body coordinates: the arm from the point the record's twist refers to; P itself for a pivoted body
 * (the arm from its fixed origin). */
static void arm(const mbs_model *m, const mbs_point_load *pl, double *d) {
    const double *com = m->com + 3 * pl->body;
    for (int i = 0; i < 3; i++) d[i] = pl->pivoted ? pl->point[i] : pl->point[i] - com[i];
}

/* The COG's acceleration relative to Frame 0 in body coordinates is tdot_v + w x v (the form of (47)), tdot = P u' +
 * Pdot u (27); at P add w' x d + w x (w x d). So a_P = (P_v + [P_w x d]) u' + pdu_v + w x v + pdu_w x d + w x (w x d)
 * and w' = P_w u' + pdu_w. A pivoted body's COG moves as w x COG, so with d = P these are a_P = [P_w x P] u' + pdu_w x P
 * + w x (w x P), the form of the vessel's numpy code (split.py). */
void mbs_point_motion(const mbs_model *m, const mbs_point_load *pl, const double *rec, double *G, double *c) {
    const int n = m->n, k = pl->body;
    const record_view v = view_of(m, rec);
    const double *P = v.P + 6 * n * k, *tw = v.twist + 6 * k, *pdu = v.pdu + 6 * k;
    double d[3], x[3], wd[3], wwd[3], wv[3];
    arm(m, pl, d);
    for (int j = 0; j < n; j++) {
        const double pw[3] = {P[j], P[n + j], P[2 * n + j]};
        cross3(pw, d, x);
        for (int i = 0; i < 3; i++) {
            G[i * n + j] = pl->pivoted ? x[i] : P[(3 + i) * n + j] + x[i];
            G[(3 + i) * n + j] = pw[i];
        }
    }
    cross3(tw, d, wd);
    cross3(tw, wd, wwd);
    cross3(tw, tw + 3, wv);
    cross3(pdu, d, x);
    for (int i = 0; i < 3; i++) {
        c[i] = pl->pivoted ? x[i] + wwd[i] : pdu[3 + i] + wv[i] + x[i] + wwd[i];
        c[3 + i] = pdu[i];
    }
}

/* A (6 x 6, symmetric) from its upper triangle row by row; 1 when an entry is not zero (NaN counts, as numpy's
 * any()). */
static int inertia_of(const double *upper, double *A) {
    int any = 0, e = 0;
    for (int i = 0; i < 6; i++)
        for (int j = i; j < 6; j++, e++) {
            A[6 * i + j] = A[6 * j + i] = upper[e];
            any |= upper[e] != 0.0;
        }
    return any;
}

int mbs_point_load_accelerations(const mbs_model *m, const mbs_point_load *pl, const double *inputs,
                                 const double *rec, double *rhs, double *udot, double *work) {
    const int n = m->n;
    double *G = work, *c = G + 6 * n, *K = c + 6, A[36];
    int *piv = (int *)(K + n * n); /* n ints in the room of n doubles */
    mbs_point_motion(m, pl, rec, G, c);
    const double *W = inputs + pl->wrench_input;
    for (int j = 0; j < n; j++) { /* tau_W = G^T W, the virtual power of W at P (46) */
        double s = 0.0;
        for (int i = 0; i < 6; i++) s += G[i * n + j] * W[i];
        rhs[j] += s;
    }
    if (pl->inertia_input < 0 || !inertia_of(inputs + pl->inertia_input, A)) return 0;
    /* W = W0 - A (G u' + c): the crane's inertia moves to the left-hand side */
    const double *M = view_of(m, rec).M;
    for (int i = 0; i < n; i++) {
        double ga[6]; /* row i of G^T A */
        for (int s = 0; s < 6; s++) {
            double t = 0.0;
            for (int r = 0; r < 6; r++) t += G[r * n + i] * A[6 * r + s];
            ga[s] = t;
        }
        double b = rhs[i];
        for (int s = 0; s < 6; s++) b -= ga[s] * c[s];
        udot[i] = b;
        for (int j = 0; j < n; j++) {
            double t = M[i * n + j];
            for (int s = 0; s < 6; s++) t += ga[s] * G[s * n + j];
            K[i * n + j] = t;
        }
    }
    if (mbs_lu_factor(n, K, piv)) return -1;
    mbs_lu_solve(n, K, piv, udot);
    return 1;
}

int mbs_point_values_size(const mbs_model *m) {
    return 2 * m->n + 12;
}

int mbs_point_outputs(const mbs_model *m, const mbs_point_load *pl, const double *x, const double *rec,
                      double *values, const int *index, int n_out, double *out, double *work) {
    const int n = m->n;
    const double *tw = view_of(m, rec).twist + 6 * pl->body, *udot = rec + 2 * n;
    double *G = work, *c = work + 6 * n, d[3], wd[3];
    double *w = values + 2 * n, *w_dot = w + 3, *vel = w + 6, *acc = w + 9;
    mbs_point_motion(m, pl, rec, G, c);
    memcpy(values, x, sizeof(double) * 2 * n);
    arm(m, pl, d);
    cross3(tw, d, wd);
    for (int i = 0; i < 3; i++) {
        w[i] = tw[i];
        vel[i] = pl->pivoted ? wd[i] : tw[3 + i] + wd[i]; /* v_P = v + w x d */
    }
    for (int i = 0; i < 6; i++) {
        double s = c[i];
        for (int j = 0; j < n; j++) s += G[i * n + j] * udot[j];
        if (i < 3) acc[i] = s;
        else w_dot[i - 3] = s;
    }
    for (int i = 0; i < n_out; i++) out[i] = values[index[i]];
    return 0;
}
