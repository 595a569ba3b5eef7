/* Kinematics of a tree (16)-(28), M and C (44), the weight term of (46): the walk every entry point
 * starts with. See multibody.h. */
#include "multibody.h"

/* Angle of a hydraulic cylinder's loop and its first two derivatives (crane_models/cylinders.py):
 * alpha (29) with (37), or beta (30) with (40). par = lb, b1, b2, alpha0, beta0, ap, ep, q_lo, q_hi.
 * Returns 0, or 1 when q is outside the open range in which the loop closes. */
static int cylinder_angle(int beta, const double *par, double q, double *out) {
    const double lb = par[0], b1 = par[1], b2 = par[2], ap = par[5], ep = par[6];
    if (!(par[7] < q && q < par[8])) return 1;
    const double lc = lb + q;
    const double a = acos((lc * lc - b1 * b1 - b2 * b2) / (-2.0 * b1 * b2)) + par[3];
    const double b = -acos((b2 * b2 - b1 * b1 - lc * lc) / (-2.0 * b1 * lc)) + par[4];
    const double c = cos(a - b), s = sin(a - b);
    const double den = ap * c - ep * s, num = ep * c + ap * s;
    const double da = 1.0 / den, db = num / (lc * den);
    const double dphi = da - db, dden = -num * dphi, dnum = den * dphi;
    if (beta) {
        out[0] = b;
        out[1] = db;
        out[2] = (dnum * lc * den - num * (den + lc * dden)) / ((lc * den) * (lc * den));
    } else {
        out[0] = a;
        out[1] = da;
        out[2] = -dden / (den * den);
    }
    return 0;
}


/* M += P^T D P (44) for one body, upper triangle, over the coordinates cols on its path. When they are
 * consecutive (a chain numbered from the root, as in every model here) each row of the update is one pass
 * over contiguous memory, which the compiler vectorizes (~20 % of an evaluation with 16 elements); otherwise
 * entry by entry. */
#define MAX_PACKED 64
static void add_mass_matrix_of_body(int n, const int *cols, int ncol, const double *P, const double *I, double mk,
                                    double *M) {
    if (ncol == 0) return; /* a body fixed to the ground */
    if (ncol <= MAX_PACKED && cols[ncol - 1] - cols[0] == ncol - 1) {
        const int c0 = cols[0];
        double DP[6 * MAX_PACKED]; /* D P on the path: [I P_w; m P_v], row-major (6, ncol) */
        for (int c = 0; c < ncol; c++) {
            const double *pc = P + c0 + c;
            for (int i = 0; i < 3; i++) {
                DP[i * ncol + c] = I[3 * i] * pc[0] + I[3 * i + 1] * pc[n] + I[3 * i + 2] * pc[2 * n];
                DP[(3 + i) * ncol + c] = mk * pc[(3 + i) * n];
            }
        }
        for (int r = 0; r < ncol; r++) {
            double *restrict Mr = M + (c0 + r) * n + c0;
            const double a0 = P[c0 + r], a1 = P[n + c0 + r], a2 = P[2 * n + c0 + r], a3 = P[3 * n + c0 + r],
                         a4 = P[4 * n + c0 + r], a5 = P[5 * n + c0 + r];
            const double *restrict d0 = DP, *restrict d1 = DP + ncol, *restrict d2 = DP + 2 * ncol,
                         *restrict d3 = DP + 3 * ncol, *restrict d4 = DP + 4 * ncol, *restrict d5 = DP + 5 * ncol;
            for (int c = r; c < ncol; c++)
                Mr[c] += a0 * d0[c] + a1 * d1[c] + a2 * d2[c] + a3 * d3[c] + a4 * d4[c] + a5 * d5[c];
        }
        return;
    }
    for (int jj = 0; jj < ncol; jj++) {
        const int j = cols[jj];
        double pa[3] = {P[j], P[n + j], P[2 * n + j]}, pl[3] = {P[3 * n + j], P[4 * n + j], P[5 * n + j]};
        double A[3];
        matvec3(I, pa, A);
        for (int ii = 0; ii <= jj; ii++) {
            const int r_ = cols[ii];
            M[r_ * n + j] += P[r_] * A[0] + P[n + r_] * A[1] + P[2 * n + r_] * A[2]
                           + mk * (P[3 * n + r_] * pl[0] + P[4 * n + r_] * pl[1] + P[5 * n + r_] * pl[2]);
        }
    }
}


int mbs_evaluate_tree(const mbs_model *m, const double *q, const double *u, const double *maps, double *out,
                         double *work, int mode, int keep1, int keep2) {
    const int coriolis_matrix = mode & EV_CORIOLIS_MATRIX;
    const int nb = m->nb, n = m->n, sz = 6 * n;
    const mbs_out o = layout_of(m, out);
    const int full = mode & EV_ALL_BODIES;
    double *Jw = work, *Jdw = work + nb * sz, *V = work + 2 * nb * sz;
    if (!(mode & EV_SPATIAL)) {
        memset(o.G, 0, sizeof(double) * nb * n);
        memset(o.M, 0, sizeof(double) * 2 * n * n + sizeof(double) * n);
        memset(o.Cu, 0, sizeof(double) * n);
    }

    for (int k = 0; k < nb; k++) {
        const int par = m->parent[k], c = m->coord[k], jt = c >= 0 ? m->jtype[k] : 0;
        const double *ax = m->axis + 3 * k, *r0 = m->rotation0 + 9 * k;
        double th = 0.0, d1 = 0.0, d2 = 0.0;
        if (c >= 0) {
            const int kind = m->custom_map[k];
            if (kind == 0) {
                th = q[c]; d1 = 1.0;
            } else if (kind == 1) {
                th = maps[3 * k]; d1 = maps[3 * k + 1]; d2 = maps[3 * k + 2];
            } else {
                double v[3];
                if (cylinder_angle(kind == 3, m->map_par + 9 * k, q[c], v)) return k + 1;
                th = v[0]; d1 = v[1]; d2 = v[2];
            }
            if (!(mode & EV_SPATIAL)) o.G[k * n + c] = d1;
        }
        o.theta[k] = th;
        const double thd = c >= 0 ? d1 * u[c] : 0.0;
        o.theta_dot[k] = thd;
        /* Relative transform: rotation0 then the joint motion; absolute = parent * relative. */
        double Rrel[9], prel[3], tmp[3];
        if (jt == 1) {
            double Rj[9];
            axis_rotation(ax, th, Rj);
            matmul3(r0, Rj, Rrel);
        } else {
            memcpy(Rrel, r0, sizeof Rrel);
        }
        memcpy(prel, m->offset + 3 * k, sizeof prel);
        if (jt == 2) {
            matvec3(r0, ax, tmp);
            for (int i = 0; i < 3; i++) prel[i] += th * tmp[i];
        }
        double *R0 = o.rotation + 9 * k, *org = o.origin + 3 * k;
        if (par < 0) {
            memcpy(R0, Rrel, sizeof Rrel);
            memcpy(org, prel, sizeof prel);
        } else {
            const double *Rp = o.rotation + 9 * par;
            matmul3(Rp, Rrel, R0);
            matvec3(Rp, prel, tmp);
            for (int i = 0; i < 3; i++) org[i] = o.origin[3 * par + i] + tmp[i];
        }
        /* Joint screw in Frame 0 about its origin: line (3) or line at infinity (15). */
        double aw[3], s0[3] = {0, 0, 0}, s1[3] = {0, 0, 0};
        matvec3(R0, ax, aw);
        if (jt == 1) {
            memcpy(s0, aw, sizeof s0);
            cross3(org, s0, s1);
        } else if (jt == 2) {
            memcpy(s1, aw, sizeof s1);
        }
        /* Twist: parent's plus the joint's (16), (25). */
        double *Vk = V + 6 * k;
        for (int i = 0; i < 6; i++) Vk[i] = par < 0 ? 0.0 : V[6 * par + i];
        for (int i = 0; i < 3; i++) { Vk[i] += s0[i] * thd; Vk[3 + i] += s1[i] * thd; }
        /* The joint screw is fixed in its body: sdot = [w x s0; v x s0 + w x s1]. */
        double sd0[3], sd1[3], t2[3];
        cross3(Vk, s0, sd0);
        cross3(Vk + 3, s0, sd1);
        cross3(Vk, s1, t2);
        for (int i = 0; i < 3; i++) sd1[i] += t2[i];
        if (mode & EV_SPATIAL) {
            double *Sk = Jw + 6 * k, *ck = Jdw + 6 * k, *cg = o.cog + 3 * k, vcog[3], x[3];
            const double gd = c >= 0 ? d2 * u[c] : 0.0, uc = c >= 0 ? u[c] : 0.0;
            for (int i = 0; i < 3; i++) {
                Sk[i] = s0[i] * d1;
                Sk[3 + i] = s1[i] * d1;
                ck[i] = (sd0[i] * d1 + s0[i] * gd) * uc;
                ck[3 + i] = (sd1[i] * d1 + s1[i] * gd) * uc;
            }
            matvec3(R0, m->com + 3 * k, tmp);
            for (int i = 0; i < 3; i++) cg[i] = org[i] + tmp[i];
            cross3(Vk, cg, x);
            for (int i = 0; i < 3; i++) vcog[i] = Vk[3 + i] + x[i];
            mattvec3(R0, Vk, o.twist + 6 * k);
            mattvec3(R0, vcog, o.twist + 6 * k + 3);
            continue;
        }
        /* J_k = J_parent + s G_k,  Jdot_k = Jdot_parent + sdot G_k + s Gdot_k. A state derivative needs
         * only Jdot_k u = Jdot_parent u + sdot thetadot + s d2 u_c^2: a 6-vector per body (acc). */
        double *J = Jw + k * sz, *Jd = Jdw + k * sz, *acc = Jdw + 6 * k;
        if (par < 0) {
            memset(J, 0, sizeof(double) * sz);
            if (full) memset(Jd, 0, sizeof(double) * sz);
            else memset(acc, 0, 6 * sizeof(double));
        } else {
            memcpy(J, Jw + par * sz, sizeof(double) * sz);
            if (full) memcpy(Jd, Jdw + par * sz, sizeof(double) * sz);
            else memcpy(acc, Jdw + 6 * par, 6 * sizeof(double));
        }
        if (c >= 0) {
            const double gd = d2 * u[c];
            for (int i = 0; i < 3; i++) {
                J[i * n + c] += s0[i] * d1;
                J[(3 + i) * n + c] += s1[i] * d1;
                if (full) {
                    Jd[i * n + c] += sd0[i] * d1 + s0[i] * gd;
                    Jd[(3 + i) * n + c] += sd1[i] * d1 + s1[i] * gd;
                } else {
                    acc[i] += (sd0[i] * d1 + s0[i] * gd) * u[c];
                    acc[3 + i] += (sd1[i] * d1 + s1[i] * gd) * u[c];
                }
            }
        }
        /* COG reference (8): v_m = v_0 + w x r_cog, and its rate. */
        double *cg = o.cog + 3 * k;
        matvec3(R0, m->com + 3 * k, tmp);
        for (int i = 0; i < 3; i++) cg[i] = org[i] + tmp[i];
        const int *cols = m->col_idx + m->col_ptr[k];
        const int ncol = m->col_ptr[k + 1] - m->col_ptr[k];
        const double mk = m->mass[k];
        const double *I = m->inertia + 9 * k;
        const int no_mass = massless(m, k);
        if (no_mass && !(mode & EV_ALL_BODIES) && k != keep1 && k != keep2) continue;
        double *P = o.P + k * sz, *Pd = o.Pdot + k * sz, *cj = o.cogjac + 3 * k * n;
        memset(P, 0, sizeof(double) * sz);
        if (full) memset(Pd, 0, sizeof(double) * sz);
        memset(cj, 0, sizeof(double) * 3 * n);
        double cogdot[3] = {0, 0, 0};
        for (int jj = 0; jj < ncol; jj++) {
            const int j = cols[jj];
            double ja[3] = {J[j], J[n + j], J[2 * n + j]}, jl[3], wc[3];
            cross3(ja, cg, wc); /* w x r = -(r x w) */
            for (int i = 0; i < 3; i++) {
                jl[i] = J[(3 + i) * n + j] + wc[i];
                cj[i * n + j] = jl[i];
                cogdot[i] += jl[i] * u[j];
            }
        }
        for (int jj = 0; jj < ncol; jj++) {
            const int j = cols[jj];
            double ja[3] = {J[j], J[n + j], J[2 * n + j]};
            double jl[3] = {cj[j], cj[n + j], cj[2 * n + j]};
            double r[3];
            /* Body coordinates: P = R^T J_c, Pdot = R^T Jdot_c (the w^k x P term follows). */
            mattvec3(R0, ja, r);
            for (int i = 0; i < 3; i++) P[i * n + j] = r[i];
            mattvec3(R0, jl, r);
            for (int i = 0; i < 3; i++) P[(3 + i) * n + j] = r[i];
            if (!full) continue;
            double jda[3] = {Jd[j], Jd[n + j], Jd[2 * n + j]};
            double jdl[3], a1[3], a2[3];
            cross3(jda, cg, a1);
            cross3(ja, cogdot, a2);
            for (int i = 0; i < 3; i++) jdl[i] = Jd[(3 + i) * n + j] + a1[i] + a2[i];
            mattvec3(R0, jda, r);
            for (int i = 0; i < 3; i++) Pd[i * n + j] = r[i];
            mattvec3(R0, jdl, r);
            for (int i = 0; i < 3; i++) Pd[(3 + i) * n + j] = r[i];
        }
        /* Body twist P u (28): the Frame 0 angular velocity and COG velocity turned into body coordinates. */
        double *tw = o.twist + 6 * k;
        mattvec3(R0, Vk, tw);
        mattvec3(R0, cogdot, tw + 3);
        double *pdu = o.pdu + 6 * k;
        if (full) {
            for (int jj = 0; jj < ncol; jj++) {
                const int j = cols[jj];
                double pa[3] = {P[j], P[n + j], P[2 * n + j]}, pl[3] = {P[3 * n + j], P[4 * n + j], P[5 * n + j]};
                double ra[3], rl[3];
                cross3(tw, pa, ra);
                cross3(tw, pl, rl);
                for (int i = 0; i < 3; i++) { Pd[i * n + j] -= ra[i]; Pd[(3 + i) * n + j] -= rl[i]; }
            }
            for (int i = 0; i < 6; i++) {
                double s_ = 0.0;
                for (int jj = 0; jj < ncol; jj++) s_ += Pd[i * n + cols[jj]] * u[cols[jj]];
                pdu[i] = s_;
            }
        } else {
            /* The same sum without Pdot: R^T [a_w; a_v + a_w x r_cog + w x v_cog] - [0; w_b x v_b]. */
            double x1[3], x2[3], lin[3];
            cross3(acc, cg, x1);
            cross3(Vk, cogdot, x2);
            for (int i = 0; i < 3; i++) lin[i] = acc[3 + i] + x1[i] + x2[i];
            mattvec3(R0, acc, pdu);
            mattvec3(R0, lin, pdu + 3);
            cross3(tw, tw + 3, x1);
            for (int i = 0; i < 3; i++) pdu[3 + i] -= x1[i];
        }
        /* M += P^T D P, C += P^T (D Pdot + G P) with the skew G of kane.mass_and_coriolis (44). */
        if (no_mass) continue;
        double Iw[3];
        matvec3(I, tw, Iw);
        /* M is symmetric: its upper triangle here (cols ascending), mirrored below. */
        add_mass_matrix_of_body(n, cols, ncol, P, I, mk, o.M);
        for (int jj = 0; jj < ncol; jj++) {
            const int j = cols[jj];
            o.mgz[j] += mk * cj[2 * n + j];
            if (!coriolis_matrix) continue;
            double pa[3] = {P[j], P[n + j], P[2 * n + j]}, pl[3] = {P[3 * n + j], P[4 * n + j], P[5 * n + j]};
            double pda[3] = {Pd[j], Pd[n + j], Pd[2 * n + j]}, pdl[3] = {Pd[3 * n + j], Pd[4 * n + j], Pd[5 * n + j]};
            double B[3], Bv[3], x1[3], x2[3];
            matvec3(I, pda, B);
            cross3(Iw, pa, x1);
            cross3(tw, pl, x2);
            for (int i = 0; i < 3; i++) { B[i] -= x1[i]; Bv[i] = mk * (pdl[i] + x2[i]); }
            for (int ii = 0; ii < ncol; ii++) {
                const int r_ = cols[ii];
                o.C[r_ * n + j] += P[r_] * B[0] + P[n + r_] * B[1] + P[2 * n + r_] * B[2]
                                 + P[3 * n + r_] * Bv[0] + P[4 * n + r_] * Bv[1] + P[5 * n + r_] * Bv[2];
            }
        }
        /* C u = sum P^T (D Pdot u + G t) (44) without the matrix: [I (Pdot_w u) + w x I w; m (Pdot_v u + w x v)]. */
        double a[6], x1[3], x2[3];
        matvec3(I, pdu, a);
        cross3(tw, Iw, x1);
        cross3(tw, tw + 3, x2);
        for (int i = 0; i < 3; i++) { a[i] += x1[i]; a[3 + i] = mk * (pdu[3 + i] + x2[i]); }
        for (int jj = 0; jj < ncol; jj++) {
            const int j = cols[jj];
            double s_ = 0.0;
            for (int i = 0; i < 6; i++) s_ += P[i * n + j] * a[i];
            o.Cu[j] += s_;
        }
    }
    if (mode & EV_SPATIAL) return 0;
    for (int r_ = 0; r_ < n; r_++)
        for (int j = 0; j < r_; j++) o.M[r_ * n + j] = o.M[j * n + r_];
    if (m->invert && (mode & EV_INVERSE)) {
        double *L = work + 2 * nb * sz + 6 * nb, *I = L + n * n, *Minv = o.Minv;
        memcpy(L, o.M, sizeof(double) * n * n);
        memset(I, 0, sizeof(double) * n * n);
        for (int i = 0; i < n; i++) I[i * n + i] = 1.0;
        if (mbs_solve_spd(n, n, L, I, Minv)) Minv[0] = NAN;
    }
    return 0;
}

/* Kinematics, M, C, C u, the weight term and (small systems) M^-1 in the record's outputs; see evaluate_tree. */
int mbs_evaluate(const mbs_model *m, const double *q, const double *u, const double *maps, double *out,
                 double *work) {
    return mbs_evaluate_tree(m, q, u, maps, out, work, EV_CORIOLIS_MATRIX | EV_ALL_BODIES | EV_INVERSE, -1, -1);
}
