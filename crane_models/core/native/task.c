/* The state derivative of a tree with point springs, a programmed constraint and joint friction, by the
 * articulated-body algorithm (Jarzebowska, Urbas & Augustynek 2019; Featherstone). See multibody.h. */
#include "multibody.h"

void mbs_quintic_rise(double t, double z0, double dz, double tc, double *out) {
    if (t <= 0.0) { out[0] = z0; out[1] = out[2] = 0.0; return; }
    if (t >= tc) { out[0] = z0 + dz; out[1] = out[2] = 0.0; return; }
    const double s = t / tc;
    out[0] = z0 + dz * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
    out[1] = dz / tc * 30.0 * s * s * (1.0 - s) * (1.0 - s);
    out[2] = dz / (tc * tc) * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s);
}

static double sign(double x) { return (x > 0.0) - (x < 0.0); }


/* Spatial algebra in Frame 0 about its origin: motion vectors [w; v_O], force vectors [n_O; f]. */

/* v x* f = [w x n + v x f; w x f], the force cross product (Featherstone). */
static void cross_force(const double *v, const double *f, double *out) {
    double a[3], b[3];
    cross3(v, f, a);
    cross3(v + 3, f + 3, b);
    for (int i = 0; i < 3; i++) out[i] = a[i] + b[i];
    cross3(v, f + 3, out + 3);
}

/* Spatial inertia of a body in Frame 0 about its origin: [[I_c - m C C, m C], [-m C, m 1]], C = [c]x,
 * I_c = R I R^T the inertia about the COG c. Row-major 6 x 6. */
static void spatial_inertia(const double *R, const double *Ib, double mk, const double *c, double *I6) {
    double RI[9], Ic[9];
    matmul3(R, Ib, RI);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Ic[3 * i + j] = RI[3 * i] * R[3 * j] + RI[3 * i + 1] * R[3 * j + 1] + RI[3 * i + 2] * R[3 * j + 2];
    const double C[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double cc = 0.0;
            for (int k = 0; k < 3; k++) cc += C[3 * i + k] * C[3 * k + j];
            I6[6 * i + j] = Ic[3 * i + j] - mk * cc;
            I6[6 * i + 3 + j] = mk * C[3 * i + j];
            I6[6 * (3 + i) + j] = -mk * C[3 * i + j];
            I6[6 * (3 + i) + 3 + j] = i == j ? mk : 0.0;
        }
}

static void mat6vec(const double *A, const double *x, double *y) {
    for (int i = 0; i < 6; i++)
        y[i] = A[6 * i] * x[0] + A[6 * i + 1] * x[1] + A[6 * i + 2] * x[2] + A[6 * i + 3] * x[3]
             + A[6 * i + 4] * x[4] + A[6 * i + 5] * x[5];
}

static double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Classical acceleration of a point p of a body from its spatial acceleration A and spatial velocity V
 * (V = 0 for the velocity-free columns): a = A_v + alpha x p + w x (v_O + w x p). */
static void point_acceleration(const double *A, const double *V, const double *p, double *a) {
    double x[3];
    cross3(A, p, x);
    for (int i = 0; i < 3; i++) a[i] = A[3 + i] + x[i];
    if (V) {
        double vp[3], y[3];
        cross3(V, p, y);
        for (int i = 0; i < 3; i++) vp[i] = V[3 + i] + y[i];
        cross3(V, vp, y);
        for (int i = 0; i < 3; i++) a[i] += y[i];
    }
}

/* The wrench about the origin of Frame 0 of linear springs/dampers (20) from points of one body to their
 * rest points, [n_O; f]. V: the body's spatial velocity. */
static void point_spring_wrench(const record_view *v, const mbs_task *task, const double *V, double *w) {
    const int b = task->spring_body;
    const double *R = v->rot + 9 * b, *o = v->org + 3 * b;
    for (int i = 0; i < 6; i++) w[i] = 0.0;
    for (int s = 0; s < task->n_springs; s++) {
        const double *r = task->spring_points + 3 * s, *k = task->spring_k + 3 * s, *c = task->spring_c + 3 * s;
        double p[3], x[3], f[3];
        matvec3(R, r, p);
        for (int i = 0; i < 3; i++) p[i] += o[i];
        cross3(V, p, x);
        for (int i = 0; i < 3; i++) f[i] = -k[i] * (p[i] - r[i]) - c[i] * (V[3 + i] + x[i]);
        cross3(p, f, x);
        for (int i = 0; i < 3; i++) { w[i] += x[i]; w[3 + i] += f[i]; }
    }
}

/* The programmed constraint (17.1)-(17.2) on the COG p of the point body with (22) and Baumgarte
 * (18.3)-(18.4) (programmed_motion.EllipseHeightConstraint): G = dPhi/dp (2, 3), Phi, and the required
 * G a_p = -h - beta Phidot - alpha Phi for the point's acceleration a_p. */
static void ellipse_height_constraint(const record_view *v, const mbs_task *task, double t, const double *V,
                                      double *G, double *phi, double *target) {
    const int e = task->point_body;
    const double *cp = task->cpar, *p = v->cog + 3 * e;
    double vel[3], za[3], x[3];
    cross3(V, p, x);
    for (int i = 0; i < 3; i++) vel[i] = V[3 + i] + x[i];
    mbs_quintic_rise(t, cp[2], cp[3], cp[4], za);
    G[0] = 2.0 * p[0] / (cp[0] * cp[0]);
    G[1] = 2.0 * p[1] / (cp[1] * cp[1]);
    G[2] = G[3] = G[4] = 0.0;
    G[5] = 1.0;
    phi[0] = (p[0] / cp[0]) * (p[0] / cp[0]) + (p[1] / cp[1]) * (p[1] / cp[1]) - 1.0;
    phi[1] = p[2] - za[0];
    const double phid[2] = {G[0] * vel[0] + G[1] * vel[1], vel[2] - za[1]};
    const double h[2] = {2.0 * (vel[0] * vel[0] / (cp[0] * cp[0]) + vel[1] * vel[1] / (cp[1] * cp[1])), -za[2]};
    for (int r = 0; r < 2; r++) target[r] = -h[r] - cp[6] * phid[r] - cp[5] * phi[r];
}

/* Articulated-body inertias (Featherstone's ABA, pass 2, inertia part) of a tree in Frame 0: IA_k starts as
 * the body's spatial inertia; U_k = IA_k S_k, D_k = S_k^T U_k (kept as 1/D_k); the parent receives
 * IA_k - U U^T / D. Returns -1 when a D_k is not positive (M singular: a massless end of a chain). */
static int articulated_inertias(const mbs_model *m, const double *S, double *IA, double *U, double *Dinv) {
    for (int k = m->nb - 1; k >= 0; k--) {
        double *Ik = IA + 36 * k, *Uk = U + 6 * k;
        const int par = m->parent[k];
        if (m->coord[k] >= 0) {
            mat6vec(Ik, S + 6 * k, Uk);
            const double d = dot6(S + 6 * k, Uk);
            if (!(d > 0.0)) return -1;
            Dinv[k] = 1.0 / d;
        }
        if (par < 0) continue;
        double *Ip = IA + 36 * par;
        if (m->coord[k] >= 0) {
            for (int i = 0; i < 6; i++) {
                const double ui = Uk[i] * Dinv[k];
                for (int j = 0; j < 6; j++) Ip[6 * i + j] += Ik[6 * i + j] - ui * Uk[j];
            }
        } else {
            for (int i = 0; i < 36; i++) Ip[i] += Ik[i];
        }
    }
    return 0;
}

/* ABA passes 2 (bias forces) and 3 (accelerations) for one load case: bias forces pA (nb, 6; overwritten),
 * joint forces tau (n; NULL: none), joint bias accelerations c (nb, 6; NULL: none), root acceleration A0.
 * Writes the accelerations qdd (n) and the spatial accelerations A (nb, 6). */
static void articulated_solve(const mbs_model *m, const double *S, const double *IA, const double *U,
                              const double *Dinv, const double *c, const double *tau, const double *A0, double *pA,
                              double *uu, double *qdd, double *A) {
    const int nb = m->nb;
    for (int k = nb - 1; k >= 0; k--) {
        double *pk = pA + 6 * k;
        const int ck = m->coord[k], par = m->parent[k];
        double pa[6];
        for (int i = 0; i < 6; i++) pa[i] = pk[i];
        if (c) { /* + I^a c with I^a = IA - U U^T / D */
            double Ic[6];
            mat6vec(IA + 36 * k, c + 6 * k, Ic);
            const double uc = ck >= 0 ? dot6(U + 6 * k, c + 6 * k) * Dinv[k] : 0.0;
            for (int i = 0; i < 6; i++) pa[i] += Ic[i] - (ck >= 0 ? U[6 * k + i] * uc : 0.0);
        }
        if (ck >= 0) {
            uu[k] = (tau ? tau[ck] : 0.0) - dot6(S + 6 * k, pk);
            const double ud = uu[k] * Dinv[k];
            for (int i = 0; i < 6; i++) pa[i] += U[6 * k + i] * ud;
        }
        if (par >= 0)
            for (int i = 0; i < 6; i++) pA[6 * par + i] += pa[i];
    }
    for (int k = 0; k < nb; k++) {
        const int ck = m->coord[k], par = m->parent[k];
        double *Ak = A + 6 * k;
        for (int i = 0; i < 6; i++) Ak[i] = (par < 0 ? A0[i] : A[6 * par + i]) + (c ? c[6 * k + i] : 0.0);
        if (ck >= 0) {
            qdd[ck] = (uu[k] - dot6(U + 6 * k, Ak)) * Dinv[k];
            for (int i = 0; i < 6; i++) Ak[i] += S[6 * k + i] * qdd[ck];
        }
    }
}

/* Force of the inboard on the outboard body of friction joint jn in Frame 0, the Newton-Euler force half
 * of everything outboard (FlexibleCrane.joint_force_maps): sum_b W_b a_cog,b over one load case's COG
 * accelerations acog (nb, 3). */
static void outboard_force(const mbs_model *m, const mbs_task *task, int jn, const double *acog, double *f) {
    const double *W = task->subtree_mass + jn * m->nb;
    f[0] = f[1] = f[2] = 0.0;
    for (int b = 0; b < m->nb; b++) {
        if (W[b] == 0.0) continue;
        for (int i = 0; i < 3; i++) f[i] += W[b] * acog[3 * b + i];
    }
}

/* Bristle rate (14) and friction coefficient (15) of joint jn: Dahl (kind 1) or LuGre (kind 2). */
static void bristle(const mbs_task *task, int jn, double v, double z, double *zdot, double *mu) {
    if (task->friction_kind == 1) {
        const double x = 1.0 - task->sigma0[jn] * z * sign(v) / task->mu_s[jn];
        *zdot = v * sign(x) * pow(fabs(x), task->gamma[jn]);
        *mu = task->sigma0[jn] * z;
    } else if (task->friction_kind == 2) {
        const double r = v / task->v_s[jn];
        const double g = task->mu_k[jn] + (task->mu_s[jn] - task->mu_k[jn]) * exp(-r * r);
        *zdot = v - task->sigma0[jn] * fabs(v) * z / g;
        *mu = task->sigma0[jn] * z + task->sigma1[jn] * *zdot + task->sigma2[jn] * v;
    } else {
        *zdot = *mu = 0.0;
    }
}

/* d z'/d v and d z'/d z of bristle() (the stiff stepper's Jacobian; friction.bristle_rate_derivatives is the
 * specification): LuGre z' = v - sigma0 |v| z / g(v), Dahl z' = v sgn(x) |x|^gamma, x = 1 - sigma0 z sgn(v) / mu_s
 * (piecewise in sgn v; at v = 0 the derivatives of the v > 0 branch's limit as sgn 0 = 0 gives). */
void mbs_bristle_jacobian(const mbs_task *task, int jn, double v, double z, double *dzdot_dv, double *dzdot_dz) {
    const double s0 = task->sigma0[jn];
    if (task->friction_kind == 1) {
        const double x = 1.0 - s0 * z * sign(v) / task->mu_s[jn], gam = task->gamma[jn];
        *dzdot_dv = sign(x) * pow(fabs(x), gam);
        *dzdot_dz = -gam * s0 * fabs(v) * pow(fabs(x), gam - 1.0) / task->mu_s[jn];
    } else if (task->friction_kind == 2) {
        const double vs = task->v_s[jn], r = v / vs, ex = exp(-r * r);
        const double g = task->mu_k[jn] + (task->mu_s[jn] - task->mu_k[jn]) * ex;
        const double dg = (task->mu_s[jn] - task->mu_k[jn]) * ex * (-2.0 * r / vs);
        *dzdot_dv = 1.0 - s0 * z * (sign(v) * g - fabs(v) * dg) / (g * g);
        *dzdot_dz = -s0 * fabs(v) / g;
    } else {
        *dzdot_dv = *dzdot_dz = 0.0;
    }
}

/* Friction torques t_f = -mu f_n d / 2 (13) with f_n = |f_xy| of f = f0 + F1 t_f: `iterations` fixed-point
 * passes from t_f = 0 (FlexibleCrane.evaluate), then f_n at the final torques. */
static void friction_fixed_point(const mbs_task *task, const double *f0, const double *F1, const double *mu,
                                 double *tf, double *fn) {
    const int nj = task->n_joints, passes = task->friction_kind ? task->iterations + 1 : 1;
    for (int jn = 0; jn < nj; jn++) tf[jn] = 0.0;
    for (int it = 0; it < passes; it++) {
        for (int jn = 0; jn < nj; jn++) {
            double f[3];
            for (int i = 0; i < 3; i++) {
                double s = f0[3 * jn + i];
                for (int c = 0; c < nj; c++) s += F1[(3 * jn + i) * nj + c] * tf[c];
                f[i] = s;
            }
            fn[jn] = hypot(f[0], f[1]);
        }
        if (it < passes - 1)
            for (int jn = 0; jn < nj; jn++) tf[jn] = -mu[jn] * fn[jn] * 0.5 * task->pin_diameter[jn];
    }
}

/* The state derivative of a tree with the efforts of law, point springs, friction joints and a programmed
 * constraint enforced by a Lagrange multiplier (flexible-crane paper, (13)-(20)):
 *   M u' = tau - C u + Phi_q^T lambda + E t_f,   Phi_q u' = target (Baumgarte),
 * t_f = -mu f_n d / 2 with f_n from the Newton-Euler force of everything outboard of each joint, solved by
 * fixed-point passes as in FlexibleCrane.evaluate (u' and lambda are affine in t_f).
 * By the articulated-body algorithm in Frame 0 (O(bodies) per load case, no M): load case 0 is the motion
 * under the efforts, springs, gravity (a root acceleration g e_z, so the computed accelerations carry +g e_z,
 * as the joint forces need) and velocities; cases 1-2 a unit force G_r^T on the point; cases 3.. a unit
 * torque in each friction joint. Then the multipliers by the Schur complement of the point's accelerations
 * (programmed_motion.constrained_accelerations) and the friction fixed point.
 * z: bristle deflections (n_joints). rec as for mbs_derivative (P, G, M, C u, Pdot u are not computed);
 * result (3 n_joints + 10 doubles): [z' | lambda (2) | t_f | f_n | Phi (2) | constraint force on the point
 * (3), Frame 0], then for a reduced tree (task->n_reduced) its accelerations u_r' (reduced.c). At most 8 friction
 * joints.
 * work: 2 nb 6 n + 6 nb + 2 n n (mbs_evaluate's) + nb (50 + 9 (3 + n_joints)) + n (4 + n_joints) doubles.
 * Returns as mbs_derivative. */
int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work) {
    const int n = m->n, nb = m->nb, nj = task->n_joints, sz = 6 * n;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n, *eff = rec + 3 * n;
    const int code = mbs_evaluate_tree(m, q, u, rec + 4 * n, rec + record_head(m), work, EV_SPATIAL, -1, -1);
    if (code) return code;
    const record_view v = view_of(m, rec);
    const double *S = work, *c = work + nb * sz, *V = work + 2 * nb * sz;
    const int mc = task->constraint_kind ? 2 : 0, ncase = 1 + mc + nj;
    double *IA = work + 2 * nb * sz + 6 * nb + 2 * n * n, *U = IA + 36 * nb, *Dinv = U + 6 * nb, *pA = Dinv + nb;
    double *uu = pA + 6 * nb, *A = uu + nb, *QDD = A + 6 * nb * ncase, *ACOG = QDD + n * (ncase + 1);
    /* body inertias, bias forces V x* I V - f_ext (springs on their body), the articulated inertias */
    double fs[6] = {0, 0, 0, 0, 0, 0};
    if (task->n_springs) point_spring_wrench(&v, task, V + 6 * task->spring_body, fs);
    for (int k = 0; k < nb; k++) {
        double *Ik = IA + 36 * k, h[6];
        if (massless(m, k)) {
            memset(Ik, 0, 36 * sizeof(double));
            memset(pA + 6 * k, 0, 6 * sizeof(double));
            continue;
        }
        spatial_inertia(v.rot + 9 * k, m->inertia + 9 * k, m->mass[k], v.cog + 3 * k, Ik);
        mat6vec(Ik, V + 6 * k, h);
        cross_force(V + 6 * k, h, pA + 6 * k);
    }
    if (task->n_springs)
        for (int i = 0; i < 6; i++) pA[6 * task->spring_body + i] -= fs[i];
    mbs_law_efforts(law, n, q, u, inputs, NULL, eff); /* (no weight term here: NativeTask refuses compensation) */
    const double up[6] = {0, 0, 0, 0, 0, law->g}, still[6] = {0, 0, 0, 0, 0, 0};
    double G[6] = {0, 0, 0, 0, 0, 0}, phi[2] = {0, 0}, target[2] = {0, 0};
    if (mc) ellipse_height_constraint(&v, task, t, V + 6 * task->point_body, G, phi, target);
    if (task->n_reduced) { /* the reduced tree's load cases (reduced.c) */
        double wrench[12];
        for (int r = 0; r < mc; r++) { /* a unit force G_r^T at the point, about the origin */
            const double *F = G + 3 * r, *p = v.cog + 3 * task->point_body;
            cross3(p, F, wrench + 6 * r);
            for (int i = 0; i < 3; i++) wrench[6 * r + 3 + i] = F[i];
        }
        if (mbs_reduced_cases(m, task, S, c, IA, pA, eff, u, up, wrench, mc, ncase, QDD, A)) return -1;
    } else {
    if (articulated_inertias(m, S, IA, U, Dinv)) return -1;
    articulated_solve(m, S, IA, U, Dinv, c, eff, up, pA, uu, QDD, A);
    /* the unit loads */
    for (int cs = 1; cs < ncase; cs++) {
        double *qc = QDD + n * cs, *Ac = A + 6 * nb * cs, *tau = NULL, *unit = QDD + n * ncase;
        memset(pA, 0, sizeof(double) * 6 * nb);
        if (cs <= mc) { /* a unit force G_r^T at the point: bias force -[p x F; F] */
            const double *F = G + 3 * (cs - 1), *p = v.cog + 3 * task->point_body;
            double *pk = pA + 6 * task->point_body, x[3];
            cross3(p, F, x);
            for (int i = 0; i < 3; i++) { pk[i] = -x[i]; pk[3 + i] = -F[i]; }
        } else {
            memset(unit, 0, sizeof(double) * n);
            unit[task->joint_coord[cs - 1 - mc]] = 1.0;
            tau = unit;
        }
        articulated_solve(m, S, IA, U, Dinv, NULL, tau, still, pA, uu, qc, Ac);
    }
    }
    /* multipliers: G a_p(case 0 + l0 + Lm t_f) = target, a_p without the fictitious g e_z of case 0 */
    double l0[2] = {0, 0}, Lm[2 * 8] = {0}, lam[2] = {0, 0};
    if (mc) {
        const int e = task->point_body;
        double ap[11][3];
        for (int cs = 0; cs < ncase; cs++)
            point_acceleration(A + 6 * nb * cs + 6 * e, cs == 0 ? V + 6 * e : NULL, v.cog + 3 * e, ap[cs]);
        ap[0][2] -= law->g;
        double Sm[4], Y[2 * 9];
        for (int r = 0; r < 2; r++) {
            const double *g = G + 3 * r;
            Sm[2 * r] = g[0] * ap[1][0] + g[1] * ap[1][1] + g[2] * ap[1][2];
            Sm[2 * r + 1] = g[0] * ap[2][0] + g[1] * ap[2][1] + g[2] * ap[2][2];
            Y[r * (1 + nj)] = target[r] - (g[0] * ap[0][0] + g[1] * ap[0][1] + g[2] * ap[0][2]);
            for (int k = 0; k < nj; k++)
                Y[r * (1 + nj) + 1 + k] = -(g[0] * ap[3 + k][0] + g[1] * ap[3 + k][1] + g[2] * ap[3 + k][2]);
        }
        const double det = Sm[0] * Sm[3] - Sm[1] * Sm[2];
        if (!(fabs(det) > 0.0)) return -1;
        for (int k = 0; k <= nj; k++) {
            const double y0 = Y[k], y1 = Y[(1 + nj) + k];
            const double x0 = (Sm[3] * y0 - Sm[1] * y1) / det, x1 = (-Sm[2] * y0 + Sm[0] * y1) / det;
            if (k == 0) { l0[0] = x0; l0[1] = x1; } else { Lm[k - 1] = x0; Lm[nj + k - 1] = x1; }
        }
    }
    /* joint forces f0 + F1 t_f in the joint frames; u' = a0 + A t_f */
    double f0[3 * 8], F1[3 * 8 * 8], fn[8], mu[8], zd[8], tf[8];
    for (int cs = 0; cs < ncase; cs++) /* COG accelerations of the bodies with mass, per load case */
        for (int b = 0; b < nb; b++)
            if (m->mass[b] != 0.0)
                point_acceleration(A + 6 * nb * cs + 6 * b, cs == 0 ? V + 6 * b : NULL, v.cog + 3 * b, ACOG + 3 * nb * cs + 3 * b);
    for (int jn = 0; jn < nj; jn++) {
        double fc[11][3], fl[3];
        for (int cs = 0; cs < ncase; cs++) outboard_force(m, task, jn, ACOG + 3 * nb * cs, fc[cs]);
        const double *R = v.rot + 9 * task->joint_body[jn];
        for (int col = 0; col <= nj; col++) { /* 0: the affine part; 1 + k: per unit friction torque k */
            const double la0 = col == 0 ? l0[0] : Lm[col - 1], la1 = col == 0 ? l0[1] : Lm[nj + col - 1];
            const double *base = fc[col == 0 ? 0 : mc + col];
            double f[3];
            for (int i = 0; i < 3; i++)
                f[i] = base[i] + (mc ? la0 * (fc[1][i] - G[i]) + la1 * (fc[2][i] - G[3 + i]) : 0.0);
            mattvec3(R, f, fl);
            for (int i = 0; i < 3; i++) {
                if (col == 0) f0[3 * jn + i] = fl[i];
                else F1[(3 * jn + i) * nj + col - 1] = fl[i];
            }
        }
        bristle(task, jn, u[task->joint_coord[jn]], z[jn], zd + jn, mu + jn);
    }
    friction_fixed_point(task, f0, F1, mu, tf, fn);
    for (int r = 0; r < mc; r++) {
        double s_ = l0[r];
        for (int k = 0; k < nj; k++) s_ += Lm[r * nj + k] * tf[k];
        lam[r] = s_;
    }
    for (int i = 0; i < n; i++) {
        double s_ = QDD[i];
        for (int r = 0; r < mc; r++) s_ += QDD[n * (1 + r) + i] * lam[r];
        for (int k = 0; k < nj; k++) s_ += QDD[n * (1 + mc + k) + i] * tf[k];
        udot[i] = s_;
    }
    double *res = result;
    for (int jn = 0; jn < nj; jn++) res[jn] = zd[jn];
    res += nj;
    res[0] = lam[0]; res[1] = lam[1];
    res += 2;
    for (int jn = 0; jn < nj; jn++) { res[jn] = tf[jn]; res[nj + jn] = fn[jn]; }
    res += 2 * nj;
    res[0] = phi[0]; res[1] = phi[1];
    for (int i = 0; i < 3; i++) res[2 + i] = G[i] * lam[0] + G[3 + i] * lam[1];
    if (task->n_reduced) mbs_reduced_accelerations(task, ncase, mc, lam, tf, m, result + 3 * nj + 10);
    return 0;
}

