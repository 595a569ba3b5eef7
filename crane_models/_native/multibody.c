/* Compiled kernel of crane_models.kane.MultibodySystem: kinematics, projection matrices and the
 * equations of motion of a tree of rigid bodies (Cibicik & Egeland 2018, eqs. (16)-(28), (43)-(46)).
 *
 * It computes exactly what the numpy reference in kane.py computes, body by body instead of batched:
 * the numpy version is the specification, tests/test_native.py checks that both agree to rounding.
 * Entry points: mbs_evaluate (kinematics, M, C), mbs_solve_spd, mbs_derivative (state derivative under a
 * joint effort law), mbs_task_derivative (plus point springs, a programmed constraint and joint friction:
 * flexible_crane.py is its specification), mbs_integrate (the explicit pairs of integrators.py over either
 * derivative; test_compiled_stepping.py), mbs_inertial_wrenches, mbs_aux_speeds, mbs_reactions.
 * Plain C with no Python API, loaded with ctypes, so one binary serves every Python version that an
 * FMU host may embed. Arrays are row-major doubles; all sizes come from the model record.
 */
#include <math.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(__clang__)
#define restrict __restrict /* MSVC's C mode spells it so */
#endif

typedef struct {
    int nb, n;
    int invert;             /* 1: also store M^-1 after the weight term (small systems) */
    const int *parent;      /* index of the parent body, -1 for the root */
    const int *coord;       /* generalized coordinate driving the joint, -1 for a fixed joint */
    const int *jtype;       /* 0 fixed, 1 revolute, 2 prismatic */
    const int *custom_map;  /* 0 identity, 1 supplied by the caller in maps, 2/3 cylinder alpha/beta */
    const double *map_par;  /* (nb, 9) parameters of the kernel's own maps (see cylinder_angle) */
    const double *axis;     /* (nb, 3) joint axis, body coordinates, unit length */
    const double *offset;   /* (nb, 3) joint origin in parent coordinates */
    const double *rotation0;/* (nb, 3, 3) fixed rotation before the joint motion */
    const double *mass;     /* (nb) */
    const double *inertia;  /* (nb, 3, 3) about the COG, body coordinates */
    const double *com;      /* (nb, 3) COG in body coordinates */
    const int *col_ptr;     /* (nb + 1) CSR: coordinates on the path of each body */
    const int *col_idx;
} mbs_model;

/* A record (kane_native.NativeSystem) is [q | u | udot | efforts | maps (nb, 3) | outputs], in doubles; the
 * outputs start after this head and are laid out as in mbs_out, mirrored by kane_native.py. */
static int record_head(const mbs_model *m) { return 4 * m->n + 3 * m->nb; }


typedef struct {
    double *rotation, *origin, *cog, *P, *Pdot, *twist, *theta, *theta_dot, *G, *cogjac, *M, *C, *mgz, *Cu, *pdu;
} mbs_out;

static void cross3(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static void matvec3(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; i++) out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static void mattvec3(const double *R, const double *v, double *out) { /* R^T v */
    for (int i = 0; i < 3; i++) out[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}

/* Rodrigues: rotation by theta about the unit axis a. */
static void axis_rotation(const double *a, double theta, double *R) {
    double s = sin(theta), c = cos(theta), v = 1.0 - c;
    R[0] = c + a[0] * a[0] * v;        R[1] = a[0] * a[1] * v - a[2] * s; R[2] = a[0] * a[2] * v + a[1] * s;
    R[3] = a[1] * a[0] * v + a[2] * s; R[4] = c + a[1] * a[1] * v;        R[5] = a[1] * a[2] * v - a[0] * s;
    R[6] = a[2] * a[0] * v - a[1] * s; R[7] = a[2] * a[1] * v + a[0] * s; R[8] = c + a[2] * a[2] * v;
}

static void matmul3(const double *A, const double *B, double *C) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

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

int mbs_solve_spd(int n, int nrhs, double *M, const double *b, double *x);

/* Kinematics (eqs. (16), (25), (28)), M and C (44) and the weight term sum_k m_k dz_k/du of (46); with
 * m->invert also M^-1 (NaN in its first entry when M is not positive definite).
 * maps: (nb, 3) theta, dtheta/dq, d2theta/dq2, read for joints with custom_map set.
 * work: 2 * nb * 6 * n + nb * 6 + 2 * n * n doubles (joint Jacobians in Frame 0 and their rates, body
 * twists, room for the inversion).
 * mode: EV_CORIOLIS_MATRIX -- C itself (C u always); EV_ALL_BODIES -- P, Pdot, the COG Jacobian and the twist
 * of every body (else only of bodies with mass or inertia and of keep1, keep2: a state derivative needs no
 * more, and the massless frames of Euler-angle chains are half the bodies of some models; the others' rows
 * are left as they are); EV_INVERSE -- M^-1 when m->invert.
 * Returns 0, or k + 1 when the map of body k is outside its domain. */
enum { EV_CORIOLIS_MATRIX = 1, EV_ALL_BODIES = 2, EV_INVERSE = 4 };

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

/* a . b with four partial sums (the dot products of the Cholesky factorization: vectorizable). */
static double dot(const double *a, const double *b, int len) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < len; k++) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

static int massless(const mbs_model *m, int k) {
    const double *I = m->inertia + 9 * k;
    return m->mass[k] == 0.0 && I[0] == 0.0 && I[4] == 0.0 && I[8] == 0.0;
}

static int evaluate_tree(const mbs_model *m, const double *q, const double *u, const double *maps, double *out,
                         double *work, int mode, int keep1, int keep2) {
    const int coriolis_matrix = mode & EV_CORIOLIS_MATRIX;
    const int nb = m->nb, n = m->n, sz = 6 * n;
    mbs_out o;
    double *p = out;
    o.rotation = p; p += 9 * nb;
    o.origin = p; p += 3 * nb;
    o.cog = p; p += 3 * nb;
    o.P = p; p += nb * sz;
    o.Pdot = p; p += nb * sz;
    o.twist = p; p += 6 * nb;
    o.theta = p; p += nb;
    o.theta_dot = p; p += nb;
    o.G = p; p += nb * n;
    o.cogjac = p; p += 3 * nb * n;
    o.M = p; p += n * n;
    o.C = p; p += n * n;
    o.mgz = p; p += n + n * n; /* then M^-1 */
    o.Cu = p; p += n;
    o.pdu = p; /* (nb, 6): Pdot_k u, the velocity-product part of the body accelerations (27) */
    const int full = mode & EV_ALL_BODIES;
    double *Jw = work, *Jdw = work + nb * sz, *V = work + 2 * nb * sz;
    memset(o.G, 0, sizeof(double) * nb * n);
    memset(o.M, 0, sizeof(double) * 2 * n * n + sizeof(double) * n);
    memset(o.Cu, 0, sizeof(double) * n);

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
            o.G[k * n + c] = d1;
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
    for (int r_ = 0; r_ < n; r_++)
        for (int j = 0; j < r_; j++) o.M[r_ * n + j] = o.M[j * n + r_];
    if (m->invert && (mode & EV_INVERSE)) {
        double *L = work + 2 * nb * sz + 6 * nb, *I = L + n * n, *Minv = o.mgz + n;
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
    return evaluate_tree(m, q, u, maps, out, work, EV_CORIOLIS_MATRIX | EV_ALL_BODIES | EV_INVERSE, -1, -1);
}

/* Solve M X = B for a symmetric positive definite M (n x n, overwritten by its Cholesky factor L, with 1/L_jj
 * on the diagonal) and
 * nrhs right-hand sides (B, X: n x nrhs, row-major). Returns 0, or k + 1 when the k-th pivot is not
 * positive. */
int mbs_solve_spd(int n, int nrhs, double *M, const double *b, double *x) {
    for (int j = 0; j < n; j++) {
        const double d = M[j * n + j] - dot(M + j * n, M + j * n, j);
        if (!(d > 0.0)) return j + 1;
        const double inv = 1.0 / sqrt(d);
        M[j * n + j] = inv; /* the reciprocal pivot: multiplications instead of divisions below */
        for (int i = j + 1; i < n; i++) M[i * n + j] = (M[i * n + j] - dot(M + i * n, M + j * n, j)) * inv;
    }
    /* L y = b, then L^T x = y, all right-hand sides together (rows of x are contiguous) */
    for (int i = 0; i < n; i++) {
        double *xi = x + i * nrhs;
        for (int r = 0; r < nrhs; r++) xi[r] = b[i * nrhs + r];
        for (int k = 0; k < i; k++) {
            const double l = M[i * n + k], *xk = x + k * nrhs;
            for (int r = 0; r < nrhs; r++) xi[r] -= l * xk[r];
        }
        for (int r = 0; r < nrhs; r++) xi[r] *= M[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double *xi = x + i * nrhs;
        for (int k = i + 1; k < n; k++) {
            const double l = M[k * n + i], *xk = x + k * nrhs;
            for (int r = 0; r < nrhs; r++) xi[r] -= l * xk[r];
        }
        for (int r = 0; r < nrhs; r++) xi[r] *= M[i * n + i];
    }
    return 0;
}

/* Joint efforts given per generalized coordinate (crane_models/effort_laws.py, the specification):
 * e_i = c_i + sum_j B_ij w_j + k1_i q_i + k3_i q_i^3 + d_i u_i with the inputs w -- springs (linear and the
 * cubic vessel springs of the moving-base paper, III-D), PD control to set-points in w (63), input efforts. */
typedef struct {
    int n_in;
    double g;                   /* gravity, for the weight term of (46) */
    const double *constant;     /* (n) */
    const double *input_gain;   /* (n, n_in) */
    const double *linear;       /* (n) */
    const double *cubic;        /* (n) */
    const double *damping;      /* (n) */
} mbs_effort_law;

/* The law's efforts e = c + B w + k1 q + k3 q^3 + d u (effort_laws.CoordinateEffortLaw.efforts). */
static void law_efforts(const mbs_effort_law *law, int n, const double *q, const double *u, const double *inputs,
                        double *eff) {
    for (int i = 0; i < n; i++) {
        double e = law->constant[i] + (law->linear[i] + law->cubic[i] * q[i] * q[i]) * q[i] + law->damping[i] * u[i];
        for (int j = 0; j < law->n_in; j++) e += law->input_gain[i * law->n_in + j] * inputs[j];
        eff[i] = e;
    }
}

/* The state derivative of M udot + C u = tau (43) with tau = -g sum_k m_k dz_k/du (46) + e (the law's
 * efforts are generalized forces): mbs_evaluate, then e and udot, written to the record's udot and
 * efforts slots, so that rec[n : 3n] is xdot = [u; udot]. work as for mbs_evaluate.
 * Returns 0, k + 1 as mbs_evaluate, or -1 when M is not positive definite (udot is then not written). */
int mbs_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, double *rec,
                   double *work) {
    const int n = m->n, nb = m->nb;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n, *eff = rec + 3 * n, *out = rec + record_head(m);
    const int code = evaluate_tree(m, q, u, rec + 4 * n, out, work, EV_INVERSE, -1, -1);
    if (code) return code;
    const double *M = out + 15 * nb + 2 * nb * 6 * n + 6 * nb + 2 * nb + 4 * nb * n;
    const double *mgz = M + 2 * n * n, *Minv = mgz + n, *Cu = Minv + n * n;
    double *rhs = work, *L = work + n; /* the kinematic scratch is no longer needed */
    law_efforts(law, n, q, u, inputs, eff);
    for (int i = 0; i < n; i++) rhs[i] = eff[i] - law->g * mgz[i] - Cu[i];
    if (m->invert && Minv[0] == Minv[0]) {
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += Minv[i * n + j] * rhs[j];
            udot[i] = s;
        }
        return 0;
    }
    memcpy(L, M, sizeof(double) * n * n);
    return mbs_solve_spd(n, 1, L, rhs, udot) ? -1 : 0;
}

/* What a tree carries besides joint efforts, for mbs_task_derivative (crane_models/flexible_crane.py is the
 * specification): point springs on one body, a programmed constraint on a point, friction in chosen joints. */
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

/* z_E,a(t) of (22) and its first two derivatives (programmed_motion.quintic_rise). */
static void quintic_rise(double t, double z0, double dz, double tc, double *out) {
    if (t <= 0.0) { out[0] = z0; out[1] = out[2] = 0.0; return; }
    if (t >= tc) { out[0] = z0 + dz; out[1] = out[2] = 0.0; return; }
    const double s = t / tc;
    out[0] = z0 + dz * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
    out[1] = dz / tc * 30.0 * s * s * (1.0 - s) * (1.0 - s);
    out[2] = dz / (tc * tc) * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s);
}

static double sign(double x) { return (x > 0.0) - (x < 0.0); }

/* Pointers into a record's outputs (layout of mbs_out). */
typedef struct {
    const double *rot, *org, *cog, *P, *twist, *cogjac, *M, *mgz, *Cu, *pdu;
} record_view;

static record_view view_of(const mbs_model *m, const double *rec) {
    const int nb = m->nb, n = m->n;
    record_view v;
    v.rot = rec + record_head(m);
    v.org = v.rot + 9 * nb;
    v.cog = v.org + 3 * nb;
    v.P = v.cog + 3 * nb;
    v.twist = v.P + 12 * nb * n;
    v.cogjac = v.twist + 8 * nb + nb * n;
    v.M = v.cogjac + 3 * nb * n;
    v.mgz = v.M + 2 * n * n;
    v.Cu = v.mgz + n + n * n;
    v.pdu = v.Cu + n;
    return v;
}

/* Generalized forces (46) of linear springs/dampers (20) from points of one body to their rest points:
 * the resultant force F at the COG and moment N give tau += J_cog^T F + (R P_w)^T N. */
static void add_point_spring_forces(const mbs_model *m, const record_view *v, const mbs_task *task, double *tau,
                                    int stride) {
    const int n = m->n, b = task->spring_body;
    const double *R = v->rot + 9 * b, *o = v->org + 3 * b, *cg = v->cog + 3 * b, *tw = v->twist + 6 * b;
    double w[3], vc[3], F[3] = {0, 0, 0}, N[3] = {0, 0, 0}, Nb[3];
    matvec3(R, tw, w);
    matvec3(R, tw + 3, vc);
    for (int s = 0; s < task->n_springs; s++) {
        const double *r = task->spring_points + 3 * s, *k = task->spring_k + 3 * s, *c = task->spring_c + 3 * s;
        double p[3], arm[3], x[3], f[3];
        matvec3(R, r, p);
        for (int i = 0; i < 3; i++) { p[i] += o[i]; arm[i] = p[i] - cg[i]; }
        cross3(w, arm, x);
        for (int i = 0; i < 3; i++) f[i] = -k[i] * (p[i] - r[i]) - c[i] * (vc[i] + x[i]);
        cross3(arm, f, x);
        for (int i = 0; i < 3; i++) { F[i] += f[i]; N[i] += x[i]; }
    }
    mattvec3(R, N, Nb);
    const double *cj = v->cogjac + 3 * b * n, *P = v->P + b * 6 * n;
    for (int j = 0; j < n; j++)
        tau[j * stride] += cj[j] * F[0] + cj[n + j] * F[1] + cj[2 * n + j] * F[2]
                         + P[j] * Nb[0] + P[n + j] * Nb[1] + P[2 * n + j] * Nb[2];
}

/* COG acceleration bias of body k in Frame 0, R (Pdot_v u + w x v): its acceleration at u' = 0. */
static void cog_acceleration_bias(const record_view *v, int k, double *bias) {
    const double *tw = v->twist + 6 * k, *pdu = v->pdu + 6 * k;
    double a[3], x[3];
    cross3(tw, tw + 3, x);
    for (int i = 0; i < 3; i++) a[i] = pdu[3 + i] + x[i];
    matvec3(v->rot + 9 * k, a, bias);
}

/* The programmed constraint (17.1)-(17.2) on the COG p of the point body, with (22) and Baumgarte (18.3)-(18.4)
 * (programmed_motion.EllipseHeightConstraint): gradient G = dPhi/dp (2, 3), Phi, and the target of
 * Phi_q u' = G J u' = -h - beta Phidot - alpha Phi - G (J' u). Phi_q's rows go to columns 1, 2 of B. */
static void ellipse_height_constraint(const mbs_model *m, const record_view *v, const mbs_task *task, double t,
                                      double *G, double *phi, double *target, double *B, int stride) {
    const int n = m->n, e = task->point_body;
    const double *cp = task->cpar, *p = v->cog + 3 * e, *J = v->cogjac + 3 * e * n;
    double vel[3], za[3], jb[3];
    matvec3(v->rot + 9 * e, v->twist + 6 * e + 3, vel);
    cog_acceleration_bias(v, e, jb);
    quintic_rise(t, cp[2], cp[3], cp[4], za);
    G[0] = 2.0 * p[0] / (cp[0] * cp[0]);
    G[1] = 2.0 * p[1] / (cp[1] * cp[1]);
    G[2] = G[3] = G[4] = 0.0;
    G[5] = 1.0;
    phi[0] = (p[0] / cp[0]) * (p[0] / cp[0]) + (p[1] / cp[1]) * (p[1] / cp[1]) - 1.0;
    phi[1] = p[2] - za[0];
    const double phid[2] = {G[0] * vel[0] + G[1] * vel[1], vel[2] - za[1]};
    const double h[2] = {2.0 * (vel[0] * vel[0] / (cp[0] * cp[0]) + vel[1] * vel[1] / (cp[1] * cp[1])), -za[2]};
    for (int r = 0; r < 2; r++) {
        target[r] = -h[r] - cp[6] * phid[r] - cp[5] * phi[r] - (G[3 * r] * jb[0] + G[3 * r + 1] * jb[1] + G[3 * r + 2] * jb[2]);
        for (int j = 0; j < n; j++)
            B[j * stride + 1 + r] = G[3 * r] * J[j] + G[3 * r + 1] * J[n + j] + G[3 * r + 2] * J[2 * n + j];
    }
}

/* X = M^-1 [rhs | Phi_q^T | E] (n, 1 + 2 + nj) given; with the multipliers of M u' = rhs + Phi_q^T lambda + E t,
 * Phi_q u' = target, by the Schur complement S = Phi_q M^-1 Phi_q^T (programmed_motion.constrained_accelerations):
 * lambda = l0 + Lm t, and X's columns become u' = a0 + A t (column 0: a0, columns 3..: A). Phi_q^T is in B.
 * Returns 0, or -1 when S is singular. */
static int eliminate_multipliers(int n, int nj, const double *B, double *X, const double *target, double *l0,
                                 double *Lm) {
    const int ncol = 3 + nj;
    double Sm[4], Y[2 * 9];
    for (int r = 0; r < 2; r++) {
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (int j = 0; j < n; j++) {
            const double pq = B[j * ncol + 1 + r];
            s0 += pq * X[j * ncol];
            s1 += pq * X[j * ncol + 1];
            s2 += pq * X[j * ncol + 2];
        }
        Sm[2 * r] = s1;
        Sm[2 * r + 1] = s2;
        Y[r * (1 + nj)] = target[r] - s0;
        for (int c = 0; c < nj; c++) {
            double sc = 0.0;
            for (int j = 0; j < n; j++) sc += B[j * ncol + 1 + r] * X[j * ncol + 3 + c];
            Y[r * (1 + nj) + 1 + c] = -sc;
        }
    }
    const double det = Sm[0] * Sm[3] - Sm[1] * Sm[2];
    if (!(fabs(det) > 0.0)) return -1;
    for (int c = 0; c <= nj; c++) {
        const double y0 = Y[c], y1 = Y[(1 + nj) + c];
        const double x0 = (Sm[3] * y0 - Sm[1] * y1) / det, x1 = (-Sm[2] * y0 + Sm[0] * y1) / det;
        if (c == 0) { l0[0] = x0; l0[1] = x1; } else { Lm[c - 1] = x0; Lm[nj + c - 1] = x1; }
    }
    for (int i = 0; i < n; i++) {
        X[i * ncol] += X[i * ncol + 1] * l0[0] + X[i * ncol + 2] * l0[1];
        for (int c = 0; c < nj; c++) X[i * ncol + 3 + c] += X[i * ncol + 1] * Lm[c] + X[i * ncol + 2] * Lm[nj + c];
    }
    return 0;
}

/* Force of the inboard on the outboard body of friction joint jn, in the joint's frame, as f0 + F1 t_f
 * (FlexibleCrane.joint_force_maps, joint_forces): f = S u' + c - G^T lambda with S = sum_b W_b J_cog,b and
 * c = sum_b W_b (bias_b + g e_z), W the masses outboard of the joint (Newton-Euler, force half). */
static void joint_force_map(const mbs_model *m, const record_view *v, const mbs_task *task, double g, int jn,
                            const double *X, int ncol, int mc, const double *G, const double *l0, const double *Lm,
                            double *S, double *f0, double *F1) {
    const int n = m->n, nb = m->nb, nj = task->n_joints;
    const double *W = task->subtree_mass + jn * nb;
    double c[3] = {0, 0, 0}, bias[3];
    memset(S, 0, sizeof(double) * 3 * n);
    for (int b = 0; b < nb; b++) {
        if (W[b] == 0.0) continue;
        const double *J = v->cogjac + 3 * b * n;
        for (int i = 0; i < 3 * n; i++) S[i] += W[b] * J[i];
        cog_acceleration_bias(v, b, bias);
        for (int i = 0; i < 3; i++) c[i] += W[b] * bias[i];
        c[2] += W[b] * g;
    }
    const double *R = v->rot + 9 * task->joint_body[jn];
    for (int col = 0; col <= nj; col++) { /* 0: the affine part; 1 + k: per unit friction torque k */
        const int xc = col == 0 ? 0 : 1 + mc + col - 1;
        const double lm0 = col == 0 ? l0[0] : Lm[col - 1], lm1 = col == 0 ? l0[1] : Lm[nj + col - 1];
        double f[3], fl[3];
        for (int i = 0; i < 3; i++) {
            double s = col == 0 ? c[i] : 0.0;
            for (int j = 0; j < n; j++) s += S[i * n + j] * X[j * ncol + xc];
            f[i] = s - (mc ? G[i] * lm0 + G[3 + i] * lm1 : 0.0);
        }
        mattvec3(R, f, fl);
        for (int i = 0; i < 3; i++) {
            if (col == 0) f0[3 * jn + i] = fl[i];
            else F1[(3 * jn + i) * nj + col - 1] = fl[i];
        }
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
 * fixed-point passes as in FlexibleCrane.evaluate (u' and lambda are affine in t_f: one solve).
 * z: bristle deflections (n_joints). rec as for mbs_derivative; result (3 n_joints + 10 doubles):
 * [z' | lambda (2) | t_f | f_n | Phi (2) | constraint force on the point (3), Frame 0].
 * At most 8 friction joints. work: n n + 2 n (3 + n_joints) + 3 n_joints n + 3 nb doubles.
 * Returns as mbs_derivative. */
int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work) {
    const int n = m->n, nj = task->n_joints;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n;
    const int code = evaluate_tree(m, q, u, rec + 4 * n, rec + record_head(m), work, 0,
                                   task->n_springs ? task->spring_body : -1,
                                   task->constraint_kind ? task->point_body : -1);
    if (code) return code;
    const record_view v = view_of(m, rec);
    const int mc = task->constraint_kind ? 2 : 0, ncol = 1 + mc + nj;
    double *L = work, *B = L + n * n, *X = B + n * ncol, *S = X + n * ncol;
    /* B = [tau - C u | Phi_q^T | E]: (43), (46), the law, springs (20), constraint rows, friction directions */
    double *eff = rec + 3 * n;
    law_efforts(law, n, q, u, inputs, eff);
    for (int i = 0; i < n; i++) B[i * ncol] = eff[i] - law->g * v.mgz[i] - v.Cu[i];
    if (task->n_springs) add_point_spring_forces(m, &v, task, B, ncol);
    double G[6] = {0, 0, 0, 0, 0, 0}, target[2] = {0, 0}, phi[2] = {0, 0};
    if (mc) ellipse_height_constraint(m, &v, task, t, G, phi, target, B, ncol);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < nj; c++) B[i * ncol + 1 + mc + c] = (task->joint_coord[c] == i);
    memcpy(L, v.M, sizeof(double) * n * n);
    if (mbs_solve_spd(n, ncol, L, B, X)) return -1;
    double l0[2] = {0, 0}, Lm[2 * 8] = {0}, lam[2] = {0, 0};
    if (mc && eliminate_multipliers(n, nj, B, X, target, l0, Lm)) return -1;
    double f0[3 * 8], F1[3 * 8 * 8], fn[8], mu[8], zd[8], tf[8];
    for (int jn = 0; jn < nj; jn++) {
        joint_force_map(m, &v, task, law->g, jn, X, ncol, mc, G, l0, Lm, S + 3 * jn * n, f0, F1);
        bristle(task, jn, u[task->joint_coord[jn]], z[jn], zd + jn, mu + jn);
    }
    friction_fixed_point(task, f0, F1, mu, tf, fn);
    for (int i = 0; i < n; i++) {
        double s = X[i * ncol];
        for (int c = 0; c < nj; c++) s += X[i * ncol + 1 + mc + c] * tf[c];
        udot[i] = s;
    }
    for (int r = 0; r < mc; r++) {
        double s = l0[r];
        for (int c = 0; c < nj; c++) s += Lm[r * nj + c] * tf[c];
        lam[r] = s;
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
    return 0;
}

/* An embedded explicit Runge-Kutta pair with FSAL (crane_models/integrators.py is the specification: the
 * tableau comes from there): stage s at t + c_s h from y + h sum_{j<s} a_sj K_j, the last stage's input is
 * the new solution, and h sum_s e_s K_s estimates the error of order `order`. */
typedef struct {
    int stages, order;
    const double *a;  /* (stages, stages), row-major, strictly lower */
    const double *c;  /* (stages) */
    const double *e;  /* (stages) */
} mbs_tableau;

/* Step-size control of integrators._ExplicitPair; h carries over between calls, the counters accumulate. */
typedef struct {
    double rtol, atol, max_step, min_step, h, t;
    long evaluations, accepted, rejected;
} mbs_stepper;

/* One evaluation of the compiled right-hand side into record rec (with its tail): mbs_derivative for
 * y = [q; u], or with a task mbs_task_derivative for y = [q; u; z]. Writes ydot. */
static int rhs_eval(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                    int rec_size, double t, const double *y, double *ydot, double *rec, double *work) {
    const int n = m->n;
    memcpy(rec, y, sizeof(double) * 2 * n);
    int code;
    if (task) {
        const int nj = task->n_joints;
        memcpy(rec + rec_size, y + 2 * n, sizeof(double) * nj);
        code = mbs_task_derivative(m, law, inputs, task, t, rec + rec_size, rec, rec + rec_size + nj, work);
        if (!code) memcpy(ydot + 2 * n, rec + rec_size + nj, sizeof(double) * nj);
    } else {
        code = mbs_derivative(m, law, inputs, rec, work);
    }
    if (!code) memcpy(ydot, rec + n, sizeof(double) * 2 * n); /* [u; u'] */
    return code;
}

/* Integrate from t to exactly t_end as _ExplicitPair.advance does (same controller, same tableau); y and k1
 * (the derivative at t) are updated in place to the values at t_end. recs: three records of rec_size + tail
 * doubles; *final is the one that holds the evaluation at t_end (-1 when no step was needed). work: stages
 * x size + size doubles. Returns 0, or 1 when the step size fell below min_step (st->t: where). */
int mbs_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                  const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                  double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work) {
    const int size = 2 * m->n + (task ? task->n_joints : 0), S = tab->stages;
    double *K = work, *ys = K + S * size;
    int cur = -1, spare = 1; /* recs[0]: intermediate stages; recs[1], recs[2]: the last stage, alternating */
    double h = st->h > 0.0 ? st->h : fmin(st->max_step, t_end - t);
    const double tol_end = 1e-12 * fmax(1.0, fabs(t_end)), grow = -1.0 / tab->order;
    *final = -1;
    while (t_end - t > tol_end) {
        h = fmin(h, st->max_step);
        const int last = t + h >= t_end - tol_end;
        const double h_try = last ? t_end - t : h;
        memcpy(K, k1, sizeof(double) * size);
        double err = 0.0;
        for (int s = 1; s < S; s++) {
            for (int i = 0; i < size; i++) {
                double acc = 0.0;
                for (int j = 0; j < s; j++) acc += tab->a[s * S + j] * K[j * size + i];
                ys[i] = y[i] + h_try * acc;
            }
            double *rec = recs + (long)(s == S - 1 ? spare : 0) * rec_stride;
            if (rhs_eval(m, law, inputs, task, rec_size, t + tab->c[s] * h_try, ys, K + s * size, rec, model_work)) {
                err = INFINITY;
                break;
            }
            st->evaluations++;
        }
        if (err == 0.0) {
            double sum = 0.0;
            for (int i = 0; i < size; i++) {
                double e = 0.0;
                for (int s = 0; s < S; s++) e += tab->e[s] * K[s * size + i];
                e = h_try * e / (st->atol + st->rtol * fmax(fabs(y[i]), fabs(ys[i])));
                sum += e * e;
            }
            err = sqrt(sum / size);
        }
        if (err <= 1.0) {
            st->accepted++;
            t = last ? t_end : t + h_try;
            memcpy(y, ys, sizeof(double) * size);
            memcpy(k1, K + (S - 1) * size, sizeof(double) * size);
            cur = spare;
            spare = 3 - spare;
            const double factor = err == 0.0 ? 5.0 : fmin(5.0, 0.9 * pow(err, grow));
            if (!last) h = h_try * factor;
            else h = h_try >= h ? fmax(h, h_try * factor) : h;
        } else {
            st->rejected++;
            const double factor = !isfinite(err) ? 0.2 : fmax(0.2, 0.9 * pow(err, grow));
            h = h_try * factor;
            if (h < st->min_step) { st->t = t; st->h = h; *final = cur; return 1; }
        }
    }
    st->h = h;
    st->t = t;
    *final = cur;
    return 0;
}

/* Inertial wrenches W_in = [m (v' + w x v); I w' + w x I w] of eqs. (47)-(48) at each COG, body
 * coordinates, with t' = P u' + Pdot u (27); rec is the record filled by mbs_evaluate. out: (nb, 6). */
int mbs_inertial_wrenches(const mbs_model *m, const double *rec, const double *udot, double *out) {
    const int nb = m->nb, n = m->n, sz = 6 * n;
    const record_view v = view_of(m, rec);
    const double *P = v.P, *twist = v.twist, *pdu = v.pdu;
    for (int k = 0; k < nb; k++) {
        if (massless(m, k)) { /* no inertial wrench; a state derivative's record has no P for it */
            memset(out + 6 * k, 0, 6 * sizeof(double));
            continue;
        }
        const double *Pk = P + k * sz, *tw = twist + 6 * k, *I = m->inertia + 9 * k;
        double td[6], Iw[3], Itd[3], g[3], h[3];
        for (int i = 0; i < 6; i++) {
            double s = pdu[6 * k + i];
            for (int j = 0; j < n; j++) s += Pk[i * n + j] * udot[j];
            td[i] = s;
        }
        matvec3(I, tw, Iw);
        matvec3(I, td, Itd);
        cross3(tw, Iw, g);
        cross3(tw, tw + 3, h);
        const double mk = m->mass[k];
        for (int i = 0; i < 3; i++) {
            out[6 * k + i] = mk * (td[3 + i] + h[i]);
            out[6 * k + 3 + i] = Itd[i] + g[i];
        }
    }
    return 0;
}

/* Constraint-force magnitudes by auxiliary generalized speeds (Cibicik & Egeland, moving base, eqs. (42),
 * (47)-(50)): the cut body k moves with the auxiliary twists S (6 x nj, columns [w; v] in its frame at its
 * origin), carried rigidly to every outboard body b: P~_b = [R_b^T w_s; R_b^T (v_s + (o_k - c_b) x w_s)]
 * with w_s = R_k S_w, v_s = R_k S_v. rho = A^-1 sum_b P~_b^T Pi (W_in,b - W_e,b) with A^-1 given (constant).
 * external: (nb, 6) [f; n] at the COGs, body coordinates. work: 6 * nb doubles. out: rho (nj). */
int mbs_aux_speeds(const mbs_model *m, const double *rec, const double *udot, const double *external,
                   int cut, int n_ob, const int *outboard, int nj, const double *S, const double *Ainv,
                   double *rho, double *work) {
    const int nb = m->nb;
    const double *rot = rec + record_head(m), *org = rot + 9 * nb, *cog = org + 3 * nb;
    const double *Rk = rot + 9 * cut, *ok = org + 3 * cut;
    double rhs[6] = {0, 0, 0, 0, 0, 0};
    mbs_inertial_wrenches(m, rec, udot, work);
    for (int c = 0; c < nj && c < 6; c++) {
        double sw[3] = {S[c], S[nj + c], S[2 * nj + c]}, sv[3] = {S[3 * nj + c], S[4 * nj + c], S[5 * nj + c]};
        double ws[3], vs[3];
        matvec3(Rk, sw, ws);
        matvec3(Rk, sv, vs);
        for (int i = 0; i < n_ob; i++) {
            const int b = outboard[i];
            const double *Rb = rot + 9 * b;
            double p[3] = {ok[0] - cog[3 * b], ok[1] - cog[3 * b + 1], ok[2] - cog[3 * b + 2]}, x[3], vel[3];
            cross3(p, ws, x);
            for (int r = 0; r < 3; r++) vel[r] = vs[r] + x[r];
            double pw[3], pv[3];
            mattvec3(Rb, ws, pw);
            mattvec3(Rb, vel, pv);
            const double *win = work + 6 * b, *we = external + 6 * b;
            for (int r = 0; r < 3; r++)  /* Pi flips [f; n] to [n; f]: P~_w pairs with moments */
                rhs[c] += pw[r] * (win[3 + r] - we[3 + r]) + pv[r] * (win[r] - we[r]);
        }
    }
    for (int r = 0; r < nj; r++) {
        double s = 0.0;
        for (int c = 0; c < nj; c++) s += Ainv[r * nj + c] * rhs[c];
        rho[r] = s;
    }
    return 0;
}

typedef struct {
    int n_items, n_struct, ncyl;
    const int *item_body;   /* (n_items) body of each contribution: structural bodies, then barrel, piston */
    const int *structural;  /* (n_struct) */
    const double *mask;     /* (nb, n_items) 1 when contribution j is outboard of joint k */
    const int *cyl;         /* (ncyl, 2) barrel and piston body */
    const double *a0;       /* (ncyl, 12, 12) support maps S(l_c) = a0 + a1 / l_c of (54)-(55) */
    const double *a1;
} mbs_reaction_model;

/* Reaction wrenches (section 4 of Cibicik & Egeland 2018), [f; n] throughout:
 * total wrenches W_t = W_e - W_in (47)-(49) at each COG in body coordinates -> total (nb, 6);
 * equivalent cylinder support wrenches (53) in the barrel frame -> supports (ncyl, 12);
 * joint reactions (56) at the origin of Frame k in Frame k -> joints (nb, 6), zero rows for cylinder bodies.
 * rec is the record filled by mbs_evaluate, udot the accelerations, external the applied wrenches.
 * work: 6 * n_items + 6 * nb doubles. */
int mbs_reactions(const mbs_model *m, const mbs_reaction_model *r, const double *rec, const double *udot,
                  const double *external, double *total, double *supports, double *joints, double *work) {
    const int nb = m->nb;
    const double *rot = rec + record_head(m), *org = rot + 9 * nb, *cog = org + 3 * nb;
    mbs_inertial_wrenches(m, rec, udot, total);
    for (int i = 0; i < 6 * nb; i++) total[i] = external[i] - total[i];
    for (int c = 0; c < r->ncyl; c++) {
        const int b = r->cyl[2 * c], p = r->cyl[2 * c + 1];
        double d[3] = {org[3 * p] - org[3 * b], org[3 * p + 1] - org[3 * b + 1], org[3 * p + 2] - org[3 * b + 2]};
        const double lc = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double w[12];
        memcpy(w, total + 6 * b, 6 * sizeof(double));
        memcpy(w + 6, total + 6 * p, 6 * sizeof(double));
        const double *A0 = r->a0 + 144 * c, *A1 = r->a1 + 144 * c;
        for (int i = 0; i < 12; i++) {
            double s0 = 0.0, s1 = 0.0;
            for (int j = 0; j < 12; j++) { s0 += A0[12 * i + j] * w[j]; s1 += A1[12 * i + j] * w[j]; }
            supports[12 * c + i] = s0 + s1 / lc;
        }
    }
    /* Every contribution as a wrench in Frame 0 about the origin of Frame 0, then summed outboard (56). */
    double *fw = work, *nw = work + 3 * r->n_items;
    for (int j = 0; j < r->n_items; j++) {
        const int b = r->item_body[j];
        const double *R = rot + 9 * b, *src, *pt;
        if (j < r->n_struct) {
            src = total + 6 * b;
            pt = cog + 3 * b;
        } else {
            const int c = (j - r->n_struct) / 2, half = (j - r->n_struct) % 2;
            src = supports + 12 * c + 6 * half;
            pt = org + 3 * b;
        }
        double f[3] = {-src[0], -src[1], -src[2]}, nn[3] = {-src[3], -src[4], -src[5]}, x[3];
        matvec3(R, f, fw + 3 * j);
        matvec3(R, nn, nw + 3 * j);
        cross3(pt, fw + 3 * j, x);
        for (int i = 0; i < 3; i++) nw[3 * j + i] += x[i];
    }
    memset(joints, 0, sizeof(double) * 6 * nb);
    for (int k = 0; k < nb; k++) {
        double F[3] = {0, 0, 0}, N[3] = {0, 0, 0}, x[3];
        const double *mk = r->mask + k * r->n_items;
        int any = 0;
        for (int j = 0; j < r->n_items; j++) {
            if (mk[j] == 0.0) continue;
            any = 1;
            for (int i = 0; i < 3; i++) { F[i] += mk[j] * fw[3 * j + i]; N[i] += mk[j] * nw[3 * j + i]; }
        }
        if (!any) continue;
        cross3(org + 3 * k, F, x);
        for (int i = 0; i < 3; i++) N[i] -= x[i];
        mattvec3(rot + 9 * k, F, joints + 6 * k);
        mattvec3(rot + 9 * k, N, joints + 6 * k + 3);
    }
    for (int c = 0; c < r->ncyl; c++) {
        memset(joints + 6 * r->cyl[2 * c], 0, 6 * sizeof(double));
        memset(joints + 6 * r->cyl[2 * c + 1], 0, 6 * sizeof(double));
    }
    return 0;
}

/* setuptools builds this file as an extension module and, on Windows, exports the init symbol of one;
 * the kernel is loaded with ctypes and never imported, so the symbol only has to exist. */
void *PyInit_multibody(void) { return 0; }
