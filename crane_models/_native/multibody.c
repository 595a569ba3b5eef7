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
    double *rotation, *origin, *cog, *P, *Pdot, *twist, *theta, *theta_dot, *G, *cogjac, *M, *C, *mgz, *Minv, *Cu,
        *pdu;
} mbs_out;

/* The outputs' layout (kane_native.NativeSystem mirrors it): rotation (nb, 3, 3), origin, cog (nb, 3), P, Pdot
 * (nb, 6, n), twist (nb, 6), theta, theta_dot (nb), G (nb, n), COG Jacobian (nb, 3, n), M, C (n, n), the
 * weight term (n), M^-1 (n, n), C u (n), Pdot u (nb, 6). */
static mbs_out layout_of(const mbs_model *m, double *out) {
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
    o.mgz = p; p += n;
    o.Minv = p; p += n * n;
    o.Cu = p; p += n;
    o.pdu = p; /* (nb, 6): Pdot_k u, the velocity-product part of the body accelerations (27) */
    return o;
}

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
 * are left as they are); EV_INVERSE -- M^-1 when m->invert; EV_SPATIAL -- for the articulated-body
 * recursions: positions, rotations, COGs, body twists, and per body its joint's screw times dtheta/dq, S_k,
 * in work[6k..] and the bias Sdot_k u, c_k, in work[nb 6 n + 6k..] (Frame 0 at its origin, [w; v]); no P,
 * COG Jacobians, G or M.
 * Returns 0, or k + 1 when the map of body k is outside its domain. */
enum { EV_CORIOLIS_MATRIX = 1, EV_ALL_BODIES = 2, EV_INVERSE = 4, EV_SPATIAL = 8 };

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
} mbs_effort_law;

/* The law's efforts (effort_laws.CoordinateEffortLaw.efforts); mgz: the weight term of (46), for gravity
 * compensation (NULL: the law must not compensate). */
static void law_efforts(const mbs_effort_law *law, int n, const double *q, const double *u, const double *inputs,
                        const double *mgz, double *eff) {
    for (int i = 0; i < n; i++) {
        double e = law->constant[i] + (law->linear[i] + law->cubic[i] * q[i] * q[i]) * q[i] + law->damping[i] * u[i];
        for (int j = 0; j < law->n_in; j++) e += law->input_gain[i * law->n_in + j] * inputs[j];
        if (law->stop_k) { /* end stop: pushes back beyond a stroke limit, never pulls (end_stop_efforts) */
            if (q[i] < law->stop_low[i]) e += fmax(law->stop_k[i] * (law->stop_low[i] - q[i]) - law->stop_c[i] * u[i], 0.0);
            else if (q[i] > law->stop_high[i]) e += fmin(law->stop_k[i] * (law->stop_high[i] - q[i]) - law->stop_c[i] * u[i], 0.0);
        }
        if (law->gravity_compensation && mgz) e += law->g * mgz[i];
        eff[i] = e;
    }
}

/* The state derivative of M udot + C u = tau (43) with tau = -g sum_k m_k dz_k/du (46) + e (the law's
 * efforts are generalized forces): mbs_evaluate, then e and udot, written to the record's udot and
 * efforts slots, so that rec[n : 3n] is xdot = [u; udot]. work as for mbs_evaluate.
 * Returns 0, k + 1 as mbs_evaluate, or -1 when M is not positive definite (udot is then not written). */
int mbs_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, double *rec,
                   double *work) {
    const int n = m->n;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n, *eff = rec + 3 * n, *out = rec + record_head(m);
    const int code = evaluate_tree(m, q, u, rec + 4 * n, out, work, EV_INVERSE, -1, -1);
    if (code) return code;
    const mbs_out o = layout_of(m, out);
    const double *M = o.M, *mgz = o.mgz, *Minv = o.Minv, *Cu = o.Cu;
    double *rhs = work, *L = work + n; /* the kinematic scratch is no longer needed */
    law_efforts(law, n, q, u, inputs, mgz, eff);
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

/* Read-only pointers into a record's outputs (layout_of). */
typedef struct {
    const double *rot, *org, *cog, *P, *twist, *cogjac, *M, *mgz, *Minv, *Cu, *pdu;
} record_view;

static record_view view_of(const mbs_model *m, const double *rec) {
    const mbs_out o = layout_of(m, (double *)(rec + record_head(m))); /* read only */
    const record_view v = {o.rotation, o.origin, o.cog, o.P, o.twist, o.cogjac, o.M, o.mgz, o.Minv, o.Cu, o.pdu};
    return v;
}

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
    quintic_rise(t, cp[2], cp[3], cp[4], za);
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
 * (3), Frame 0]. At most 8 friction joints.
 * work: 2 nb 6 n + 6 nb + 2 n n (mbs_evaluate's) + nb (50 + 9 (3 + n_joints)) + n (4 + n_joints) doubles.
 * Returns as mbs_derivative. */
int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work) {
    const int n = m->n, nb = m->nb, nj = task->n_joints, sz = 6 * n;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n, *eff = rec + 3 * n;
    const int code = evaluate_tree(m, q, u, rec + 4 * n, rec + record_head(m), work, EV_SPATIAL, -1, -1);
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
    if (articulated_inertias(m, S, IA, U, Dinv)) return -1;
    law_efforts(law, n, q, u, inputs, NULL, eff); /* (no weight term here: NativeTask refuses compensation) */
    const double up[6] = {0, 0, 0, 0, 0, law->g}, still[6] = {0, 0, 0, 0, 0, 0};
    articulated_solve(m, S, IA, U, Dinv, c, eff, up, pA, uu, QDD, A);
    /* the unit loads */
    double G[6] = {0, 0, 0, 0, 0, 0}, phi[2] = {0, 0}, target[2] = {0, 0};
    if (mc) ellipse_height_constraint(&v, task, t, V + 6 * task->point_body, G, phi, target);
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
