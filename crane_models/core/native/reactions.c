/* Constraint forces by auxiliary generalized speeds and joint reaction wrenches; the load of a crane on a moving
 * base, its interface inertia and its output loads (mbs_interface_wrench, mbs_interface_inertia, mbs_base_loads).
 * See multibody.h. */
#include "multibody.h"

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

/* The load a crane puts on the body it stands on (models/knuckle_boom/moving_base.py, interface_wrench, is the
 * specification): the constraint wrench of the cut (rho of mbs_aux_speeds, [n; f] = S rho on the cut body at its
 * origin, its frame) plus the actuator torque about the cut body's z axis (the slewing torque, which the cut
 * (67) has no direction for), negated and turned into the frame of body `base`: out = [f; n] (6). All other
 * arguments as mbs_aux_speeds. */
int mbs_interface_wrench(const mbs_model *m, const double *rec, const double *udot, const double *external,
                         int cut, int n_ob, const int *outboard, int nj, const double *S, const double *Ainv,
                         int base, double axial_torque, double *out, double *work) {
    if (nj > 6) return -1;
    double rho[6], w[6];
    mbs_aux_speeds(m, rec, udot, external, cut, n_ob, outboard, nj, S, Ainv, rho, work);
    for (int r = 0; r < 6; r++) {
        double s = 0.0;
        for (int c = 0; c < nj; c++) s += S[r * nj + c] * rho[c];
        w[r] = s;
    }
    w[2] += axial_torque;
    /* R^base_cut = R_base^T R_cut: rows of R_base^T are the columns of R_base */
    const double *rot = rec + record_head(m), *Rb = rot + 9 * base, *Rc = rot + 9 * cut;
    double f0[3], n0[3]; /* in Frame 0 first, then into the base frame */
    matvec3(Rc, w + 3, f0);
    matvec3(Rc, w, n0);
    double f[3], n[3];
    mattvec3(Rb, f0, f);
    mattvec3(Rb, n0, n);
    for (int i = 0; i < 3; i++) { out[i] = -f[i]; out[3 + i] = -n[i]; }
    return 0;
}

/* The interface inertia A of W = W0 - A a (core/moving_base/interface_inertia.py, interface_inertia, is the
 * specification): A = J^-T (M_pp - M_pf M_ff^-1 M_fp) J^-1, the Schur complement of the free coordinates in M
 * (n x n, row-major; moving-base paper, eq. (43) partitioned) taken from the prescribed base coordinates
 * prescribed[0..5] = [roll, pitch, yaw, x0, y0, z0] to a = [a_P; w'] in the base frame by
 * u'_p = J^-1 a = [E^-1 w'; R a_P] (E of (53), R = R^0_1), symmetrized. A: 36 doubles, rows [f; n].
 * work: nf * nf + 12 * nf doubles. Returns 0, or -1 when M_ff is not positive definite. */
int mbs_interface_inertia(int n, const double *M, const int *prescribed, const int *free_, int nf,
                          const double *euler_inverse, const double *R, double *A, double *work) {
    double *L = work, *Mfp = L + nf * nf, *X = Mfp + 6 * nf;
    for (int i = 0; i < nf; i++) {
        for (int j = 0; j < nf; j++) L[i * nf + j] = M[free_[i] * n + free_[j]];
        for (int j = 0; j < 6; j++) Mfp[i * 6 + j] = M[free_[i] * n + prescribed[j]];
    }
    if (nf && mbs_solve_spd(nf, 6, L, Mfp, X)) return -1;
    double schur[36], Jinv[36], SJ[36];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = M[prescribed[i] * n + prescribed[j]];
            for (int k = 0; k < nf; k++) s -= Mfp[k * 6 + i] * X[k * 6 + j]; /* M_pf = M_fp^T */
            schur[6 * i + j] = s;
        }
    memset(Jinv, 0, sizeof Jinv); /* rows: Euler rates, then translation rates; columns: a_P, then w' */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            Jinv[6 * i + 3 + j] = euler_inverse[3 * i + j];
            Jinv[6 * (3 + i) + j] = R[3 * i + j];
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += schur[6 * i + k] * Jinv[6 * k + j];
            SJ[6 * i + j] = s;
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double s = 0.0;
            for (int k = 0; k < 6; k++) s += Jinv[6 * k + i] * SJ[6 * k + j];
            A[6 * i + j] = s;
        }
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++) A[6 * i + j] = A[6 * j + i] = 0.5 * (A[6 * i + j] + A[6 * j + i]);
    return 0;
}

/* What the outputs of a crane on a moving base need from one evaluation, in one call (models/knuckle_boom/
 * moving_base.py, KnuckleBoomOnMovingBaseModel.loads_reference, is the specification):
 * applied wrenches W_e = weights -g z0 (first terms of (67)-(68)) + actuator efforts, each value added at one entry
 * of the (nb, 6) array, + extra (NULL: none); the interface wrench of mbs_interface_wrench (axial torque: the first
 * actuator value); the joint reactions (56) of mbs_reactions of bodies rows[i], each turned from its own frame into
 * that of body row_frame[i]; the point tip (coordinates in body tip_body) from the base origin, base frame.
 * out: applied (nb * 6) | wrench [f; n] (6) | reactions (n_rows * 6) | tip (3).
 * work: 6 * n_items + 6 * nb + 12 * nb + 12 * ncyl doubles (reactions' scratch, total and support wrenches, joints). */
/* Its first part alone, the applied wrenches W_e and the load on the base (out's first 6 nb + 6 doubles, as
 * `applied` and `wrench`; work: 6 nb doubles), without the joint reactions: the integrand of a step-mean load. */
int mbs_base_load(const mbs_model *m, const mbs_base_loads_model *L, const double *rec, const double *udot,
                  const double *act_values, const double *extra, double *applied, double *wrench, double *work) {
    const int nb = m->nb;
    const double *rot = rec + record_head(m);
    for (int k = 0; k < nb; k++) {
        const double w = -L->g * m->mass[k]; /* as numpy: (-g m) R^k_0 z0, the third row of R_k */
        for (int c = 0; c < 3; c++) applied[6 * k + c] = w * rot[9 * k + 6 + c];
        for (int c = 3; c < 6; c++) applied[6 * k + c] = 0.0;
    }
    for (int j = 0; j < L->n_act; j++) applied[L->act_entry[j]] += act_values[j];
    if (extra)
        for (int i = 0; i < 6 * nb; i++) applied[i] += extra[i];
    return mbs_interface_wrench(m, rec, udot, applied, L->cut, L->n_ob, L->outboard, L->nj, L->S, L->Ainv, L->base,
                                act_values[0], wrench, work);
}

int mbs_base_loads(const mbs_model *m, const mbs_base_loads_model *L, const double *rec, const double *udot,
                   const double *act_values, const double *extra, double *out, double *work) {
    const int nb = m->nb;
    const double *rot = rec + record_head(m), *org = rot + 9 * nb;
    double *applied = out, *wrench = out + 6 * nb, *rows = wrench + 6, *tip = rows + 6 * L->n_rows;
    const int code = mbs_base_load(m, L, rec, udot, act_values, extra, applied, wrench, work);
    if (code) return code;
    const int ncyl = L->reactions->ncyl;
    double *total = work + 6 * L->reactions->n_items + 6 * nb, *supports = total + 6 * nb,
           *joints = supports + 12 * ncyl;
    mbs_reactions(m, L->reactions, rec, udot, applied, total, supports, joints, work);
    for (int i = 0; i < L->n_rows; i++) {
        const int b = L->rows[i], f = L->row_frame[i];
        const double *r = joints + 6 * b;
        double *o = rows + 6 * i;
        if (f == b) { for (int c = 0; c < 6; c++) o[c] = r[c]; continue; }
        double v[3]; /* R_f^T R_b r, force then moment */
        matvec3(rot + 9 * b, r, v);
        mattvec3(rot + 9 * f, v, o);
        matvec3(rot + 9 * b, r + 3, v);
        mattvec3(rot + 9 * f, v, o + 3);
    }
    const int t = L->tip_body, b = L->base;
    double p[3], d[3];
    matvec3(rot + 9 * t, L->tip, p);
    for (int c = 0; c < 3; c++) d[c] = org[3 * t + c] + p[c] - org[3 * b + c];
    mattvec3(rot + 9 * b, d, tip);
    return 0;
}
