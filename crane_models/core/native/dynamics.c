/* Joint effort laws, the state derivative of M udot + C u = tau (43) and the inertial wrenches (47)-(48): the
 * dynamics, above the kinematics (kinematics.c) and the linear algebra (cholesky.c). See multibody.h. */
#include "multibody.h"

/* The end stop of coordinate i (law->stop_k set): pushes back beyond a stroke limit, never pulls
 * (effort_laws.end_stop_efforts); 0 inside the limits. */
double mbs_end_stop(const mbs_effort_law *law, int i, double q, double u) {
    if (q < law->stop_low[i]) return fmax(law->stop_k[i] * (law->stop_low[i] - q) - law->stop_c[i] * u, 0.0);
    if (q > law->stop_high[i]) return fmin(law->stop_k[i] * (law->stop_high[i] - q) - law->stop_c[i] * u, 0.0);
    return 0.0;
}

/* The law's efforts (effort_laws.CoordinateEffortLaw.efforts); mgz: the weight term of (46), for gravity
 * compensation (NULL: the law must not compensate). */
void mbs_law_efforts(const mbs_effort_law *law, int n, const double *q, const double *u, const double *inputs,
                        const double *mgz, double *eff) {
    for (int i = 0; i < n; i++) {
        double e = law->constant[i] + (law->linear[i] + law->cubic[i] * q[i] * q[i]) * q[i] + law->damping[i] * u[i];
        for (int j = 0; j < law->n_in; j++) e += law->input_gain[i * law->n_in + j] * inputs[j];
        if (law->stop_k) e += mbs_end_stop(law, i, q[i], u[i]);
        if (law->gravity_compensation && mgz && !(law->prescribed && law->prescribed[i])) e += law->g * mgz[i];
        eff[i] = e;
    }
}

/* M udot = rhs when the coordinates flagged in pres follow the accelerations acc (kane.MultibodySystem.
 * accelerations_with_prescribed is the specification): M_ff udot_f = rhs_f - M_fp acc_p, udot_p = acc_p.
 * work: n * n + 2 * n doubles. Returns 0, or -1 when M_ff is not positive definite. */
static int solve_prescribed(int n, const int *pres, const double *M, const double *rhs, const double *acc,
                            double *udot, double *work) {
    int nf = 0;
    for (int i = 0; i < n; i++) nf += !pres[i];
    double *L = work, *r = work + n * n, *x = r + n;
    int a = 0;
    for (int i = 0; i < n; i++) {
        if (pres[i]) { udot[i] = acc[i]; continue; }
        double s = rhs[i];
        int b = 0;
        for (int j = 0; j < n; j++) {
            if (pres[j]) s -= M[i * n + j] * acc[j];
            else L[a * nf + b++] = M[i * n + j];
        }
        r[a++] = s;
    }
    if (nf && mbs_solve_spd(nf, 1, L, r, x)) return -1;
    a = 0;
    for (int i = 0; i < n; i++) if (!pres[i]) udot[i] = x[a++];
    return 0;
}

/* The state derivative of M udot + C u = tau (43) with tau = -g sum_k m_k dz_k/du (46) + e (the law's
 * efforts are generalized forces): mbs_evaluate, then e and udot, written to the record's udot and
 * efforts slots, so that rec[n : 3n] is xdot = [u; udot]; a law's load (point_load.h) adds its wrench and inertia.
 * work as for mbs_evaluate. Returns 0, k + 1 as mbs_evaluate, or -1 when M (with a load's inertia: M + G^T A G) is
 * not positive definite (not regular) (udot is then not written). */
int mbs_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, double *rec,
                   double *work) {
    const int n = m->n;
    const double *q = rec, *u = rec + n;
    double *udot = rec + 2 * n, *eff = rec + 3 * n, *out = rec + record_head(m);
    /* A moving base solves its own partition of M (solve_prescribed): M^-1 would go unused. */
    const int code = mbs_evaluate_tree(m, q, u, rec + 4 * n, out, work, law->prescribed ? 0 : EV_INVERSE,
                                       law->load ? law->load->body : -1, -1);
    if (code) return code;
    const mbs_out o = layout_of(m, out);
    if (law->prescribed && m->invert) o.Minv[0] = NAN; /* not computed: the record says so (Minv reads None) */
    const double *M = o.M, *mgz = o.mgz, *Minv = o.Minv, *Cu = o.Cu;
    double *rhs = work, *L = work + n; /* the kinematic scratch is no longer needed */
    mbs_law_efforts(law, n, q, u, inputs, mgz, eff);
    for (int i = 0; i < n; i++) rhs[i] = eff[i] - law->g * mgz[i] - Cu[i];
    if (law->load) { /* its wrench into rhs; with an inertia it solves its own system (its n n + 7 n + 6 doubles of
                      * scratch fit in L: mbs_evaluate's work less rhs, with nb >= 1, is n n + 4 n more) */
        const int solved = mbs_point_load_accelerations(m, law->load, inputs, rec, rhs, udot, L);
        if (solved) return solved < 0 ? -1 : 0;
    }
    if (law->prescribed) { /* a moving base: eff_p becomes the generalized force that realises its motion */
        if (solve_prescribed(n, law->prescribed, M, rhs, eff, udot, L)) return -1;
        for (int i = 0; i < n; i++) {
            if (!law->prescribed[i]) continue;
            double s = Cu[i] + law->g * mgz[i];
            for (int j = 0; j < n; j++) s += M[i * n + j] * udot[j];
            eff[i] = s;
        }
        return 0;
    }
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

/* New inputs at the same evaluation (state_derivative.StateDerivative.with_new_inputs is the specification): the
 * efforts are affine in the inputs, so efforts += B (new - old) and udot += M^-1 B (new - old) are exact; the
 * record rec of mbs_derivative is changed in place (the caller copies it first when the old one must stay).
 * work: n * n + 2 * n doubles. Returns 0, -1 when M is not positive definite (rec unchanged) or -2 for a law
 * with prescribed coordinates (their udot is an input, not a solve: the caller evaluates anew) or with a load (its
 * inertia makes udot non-affine in the inputs). */
int mbs_update_inputs(const mbs_model *m, const mbs_effort_law *law, const double *old_inputs,
                      const double *new_inputs, double *rec, double *work) {
    const int n = m->n, n_in = law->n_in;
    if (law->prescribed || law->load) return -2;
    const mbs_out o = layout_of(m, rec + record_head(m));
    double *d_eff = work, *d_udot = work + n, *L = work + 2 * n;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n_in; j++) s += law->input_gain[i * n_in + j] * (new_inputs[j] - old_inputs[j]);
        d_eff[i] = s;
    }
    if (m->invert && o.Minv[0] == o.Minv[0]) {
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++) s += o.Minv[i * n + j] * d_eff[j];
            d_udot[i] = s;
        }
    } else {
        memcpy(L, o.M, sizeof(double) * n * n);
        if (mbs_solve_spd(n, 1, L, d_eff, d_udot)) return -1;
    }
    for (int i = 0; i < n; i++) {
        rec[2 * n + i] += d_udot[i];
        rec[3 * n + i] += d_eff[i];
    }
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

