/* A point-mass payload on an elastic hoisting wire with a winch, hanging from a point of one body of the tree,
 * and a compliant horizontal deck under it: the right-hand side of y = [q; u; p_load (3); v_load (3); L] and its
 * state-event indicators. crane_models/core/payload.py and models/knuckle_boom/payload.py are the
 * specification (tests/test_payload_kernel.py compares both on random states). See multibody.h. */
#include "multibody.h"

/* T = max(0, EA/L (d - L) + c d') for d > L, else 0 (core.payload.wire_tension). */
static double wire_tension(const mbs_payload *pl, double d, double d_dot, double length) {
    if (d <= length) return 0.0;
    return fmax(0.0, pl->ea / length * (d - length) + pl->damping * d_dot);
}

/* min(d - L, d - L + c d' L/EA): zero where the tension law switches (core.payload.taut_indicator). */
static double taut_indicator(const mbs_payload *pl, double d, double d_dot, double length) {
    const double stretch = d - length;
    return fmin(stretch, stretch + pl->damping * d_dot * length / pl->ea);
}

/* L' of the winch: the command clipped to +-v_max, zero at a length limit when driving beyond it
 * (core.payload.winch_rate). */
double mbs_payload_winch_rate(const mbs_payload *pl, double length, double speed) {
    if (speed != speed) return speed; /* NaN stays NaN (fmin/fmax would turn it into a limit), as in Python */
    const double v = fmin(fmax(speed, -pl->v_max), pl->v_max);
    if ((v < 0.0 && length <= pl->l_min) || (v > 0.0 && length >= pl->l_max)) return 0.0;
    return v;
}

/* Position, velocity and J^T F of the suspension point r (body coordinates) of body k, from a record of
 * mbs_derivative: J = J_c - [r_p - r_m]x R P_w (core.payload.point_jacobian), so (J^T F)_j = J_c,j . F -
 * (R P_w,j) . (F x a) with a = r_p - r_m; the velocity is J u. F: the force on the point, Frame 0. */
static void suspension_point(const mbs_model *m, const record_view *v, int k, const double *r, const double *u,
                             double *pos, double *vel, double *a) {
    const int n = m->n;
    const double *R = v->rot + 9 * k, *Jc = v->cogjac + 3 * n * k, *P = v->P + 6 * n * k;
    matvec3(R, r, pos);
    for (int i = 0; i < 3; i++) {
        pos[i] += v->org[3 * k + i];
        a[i] = pos[i] - v->cog[3 * k + i];
        vel[i] = 0.0;
    }
    for (int j = 0; j < n; j++) {
        const double pw[3] = {P[j], P[n + j], P[2 * n + j]};
        double w[3], x[3];
        matvec3(R, pw, w);
        cross3(w, a, x); /* the column's rotation part: w_j x a = -[a]x w_j */
        for (int i = 0; i < 3; i++) vel[i] += (Jc[i * n + j] + x[i]) * u[j];
    }
}

static void generalized_tip_force(const mbs_model *m, const record_view *v, int k, const double *a,
                                  const double *F, double *tau) {
    const int n = m->n;
    const double *R = v->rot + 9 * k, *Jc = v->cogjac + 3 * n * k, *P = v->P + 6 * n * k;
    double Fxa[3];
    cross3(F, a, Fxa);
    for (int j = 0; j < n; j++) {
        const double pw[3] = {P[j], P[n + j], P[2 * n + j]};
        double w[3];
        matvec3(R, pw, w);
        tau[j] = Jc[j] * F[0] + Jc[n + j] * F[1] + Jc[2 * n + j] * F[2]
                 - (w[0] * Fxa[0] + w[1] * Fxa[1] + w[2] * Fxa[2]);
    }
}

/* The crane's derivative by mbs_derivative plus the payload: u' += M^-1 J^T F (u' is affine in tau: exact),
 * the load's v' = -F/m - g e_z + N/m e_z (deck force N), p' = v, L' of the winch at inputs[pl->winch_input].
 * y: [q; u; p; v; L], rec: a record of mbs_derivative (its udot is the crane's with the wire), result
 * (MBS_PAYLOAD_RESULT doubles): [T, F (3), tip (3), tip velocity (3), N, indicators (4)], the indicators
 * taut (> 0), L - L_min, L_max - L, in deck contact (> 0; 1 without a deck). work: mbs_derivative's (its room
 * for 2 n + n n doubles is reused after it).
 * Returns as mbs_derivative, or -2 when the load sits at the suspension point (no wire direction). */
int mbs_payload_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                           const mbs_payload *pl, const double *y, double *ydot, double *rec, double *result,
                           double *work) {
    const int n = m->n;
    memcpy(rec, y, sizeof(double) * 2 * n);
    int code = mbs_derivative(m, law, inputs, rec, work);
    if (code) return code;
    const record_view v = view_of(m, rec);
    const double *p = y + 2 * n, *pv = y + 2 * n + 3, length = y[2 * n + 6];
    double *T = result, *F = result + 1, *tip = result + 4, *tip_v = result + 7, *ind = result + 11, a[3];
    suspension_point(m, &v, pl->body, pl->point, rec + n, tip, tip_v, a);
    double rel[3], w[3];
    for (int i = 0; i < 3; i++) { rel[i] = p[i] - tip[i]; w[i] = pv[i] - tip_v[i]; }
    const double d = sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]);
    if (!(d > 0.0)) return -2;
    const double d_dot = (rel[0] * w[0] + rel[1] * w[1] + rel[2] * w[2]) / d;
    *T = wire_tension(pl, d, d_dot, length);
    const double s = *T / d;
    for (int i = 0; i < 3; i++) F[i] = s * rel[i];
    double *tau = work, *du = work + n; /* mbs_derivative's scratch is free again */
    generalized_tip_force(m, &v, pl->body, a, F, tau);
    if (m->invert && v.Minv[0] == v.Minv[0]) {
        for (int i = 0; i < n; i++) {
            double acc = 0.0;
            for (int j = 0; j < n; j++) acc += v.Minv[i * n + j] * tau[j];
            du[i] = acc;
        }
    } else {
        double *L = work + 2 * n;
        memcpy(L, v.M, sizeof(double) * n * n);
        if (mbs_solve_spd(n, 1, L, tau, du)) return -1;
    }
    double *udot = rec + 2 * n;
    for (int i = 0; i < n; i++) udot[i] += du[i];
    /* the deck: a push-only spring-damper along z0 at penetration deck_height - z (core.payload.deck_force) */
    double N = 0.0;
    ind[3] = 1.0;
    if (pl->deck) {
        const double pen = pl->deck_height - p[2], rate = -pv[2];
        N = pen > 0.0 ? fmax(0.0, pl->deck_k * pen + pl->deck_c * rate) : 0.0;
        ind[3] = fmin(pen, pen + pl->deck_c * rate / pl->deck_k);
    }
    result[10] = N;
    ind[0] = taut_indicator(pl, d, d_dot, length);
    ind[1] = length - pl->l_min;
    ind[2] = pl->l_max - length;
    memcpy(ydot, rec + n, sizeof(double) * 2 * n); /* [u; u'] */
    for (int i = 0; i < 3; i++) {
        ydot[2 * n + i] = pv[i];
        ydot[2 * n + 3 + i] = -s * rel[i] / pl->mass;
    }
    ydot[2 * n + 5] = ydot[2 * n + 5] - pl->g + N / pl->mass;
    ydot[2 * n + 6] = mbs_payload_winch_rate(pl, length, inputs[pl->winch_input]);
    return 0;
}

/* The indicators' signs as bits (bit i set: indicator i > 0), from a result of mbs_payload_derivative. */
static int indicator_signs(const double *result) {
    int bits = 0;
    for (int i = 0; i < MBS_PAYLOAD_INDICATORS; i++)
        if (result[11 + i] > 0.0) bits |= 1 << i;
    return bits;
}

typedef struct {
    const mbs_model *m;
    const mbs_effort_law *law;
    const double *inputs;
    const mbs_payload *pl;
    int rec_size;
} payload_rhs;

/* rhs of mbs_integrate_rhs: the record's tail (after rec_size doubles) takes the result. */
static int payload_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work) {
    const payload_rhs *c = ctx;
    (void)t;
    return mbs_payload_derivative(c->m, c->law, c->inputs, c->pl, y, ydot, rec, rec + c->rec_size, work);
}

static int payload_signs(const void *ctx, const double *rec) {
    const payload_rhs *c = ctx;
    return indicator_signs(rec + c->rec_size);
}

/* Integrate y = [q; u; p; v; L] from t towards t_end as mbs_integrate does, but never across a state event:
 * after each accepted step the indicators of its end (from the last stage's evaluation, which is there: FSAL)
 * are compared with `signs` (those at t, bits as indicator_signs); on a change the step is taken back and the
 * call returns 3 with y, k1 at st->t (the step's start, where the signs are still `signs`) and st->h the
 * length of the step that crossed, so that the caller locates the crossing inside [st->t, st->t + st->h].
 * signs < 0: no checks (within a step already known to hold one crossing, while it is located).
 * Steps are at most pl->check_interval long (a quarter of the shortest taut phase at the current wire length,
 * set by the caller), so that a short bounce is not stepped over between two checks. Other returns as
 * mbs_integrate (MBS_BAD_BUFFERS too); recs: records of rec_size + MBS_PAYLOAD_RESULT doubles. */
int mbs_payload_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                          const mbs_payload *pl, const mbs_tableau *tab, mbs_stepper *st, double t, double t_end,
                          double *y, double *k1, int signs, double *recs, int rec_size, int rec_stride, int *final,
                          double *model_work, double *work, const mbs_lengths *len) {
    const payload_rhs ctx = {m, law, inputs, pl, rec_size};
    *final = -1;
    if (mbs_check_lengths(len, 2 * m->n + 7, rec_size, MBS_PAYLOAD_RESULT, rec_stride,
                          (long)(tab->stages + 1) * (2 * m->n + 7)))
        return MBS_BAD_BUFFERS;
    const double max_step = st->max_step;
    st->max_step = fmin(max_step, pl->check_interval);
    const int code = mbs_integrate_rhs(payload_eval, &ctx, 2 * m->n + 7, signs >= 0 ? payload_signs : NULL, signs,
                                       tab, st, t, t_end, y, k1, recs, rec_stride, final, model_work, work);
    st->max_step = max_step;
    return code;
}
