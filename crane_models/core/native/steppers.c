/* Embedded explicit Runge-Kutta pairs over any right-hand side (mbs_rhs): the stepping floor, under the models
 * it steps (stepping.c binds a tree's right-hand side to it, payload.c its own). See steppers.h. */
#include "multibody.h"

double mbs_time_rounding(double t) {
    const double a = fabs(t);
    return MBS_TIME_ULPS * (nextafter(a, INFINITY) - a);
}

int mbs_reaches(double t, double h, double t_end) {
    return t + h >= t_end - fmax(mbs_time_rounding(t_end), MBS_STEP_SLACK * h);
}

int mbs_check_lengths(const mbs_lengths *len, int size, int rec_size, int tail, int rec_stride, long work) {
    if (!len || len->y != size || len->k1 != size || rec_stride < rec_size + tail || len->recs < 3L * rec_stride
        || len->work < work)
        return MBS_BAD_BUFFERS;
    return MBS_DONE;
}

/* DOP853's error from the mean squares of its two scaled estimates: r^2 / sqrt(r^2 + 0.01 r_low^2), 0 when both
 * are (integrators.combined_error). */
static double combined_error(double r2, double r2_low) {
    const double denominator = sqrt(r2 + 0.01 * r2_low);
    return denominator > 0.0 ? r2 / denominator : 0.0;
}

/* The loop of mbs_integrate over any right-hand side f of size doubles; with `events` (NULL: none) an
 * accepted step whose end has other indicator signs than `signs` is taken back and the call returns 3
 * (y, k1 at st->t, the step's start; st->h the step that crossed). See mbs_payload_integrate. */
int mbs_integrate_rhs(mbs_rhs f, const void *ctx, int size, mbs_event_signs events, int signs,
                      const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                      double *recs, int rec_stride, int *final, double *model_work, double *work) {
    const int S = tab->stages;
    double *K = work, *ys = K + S * size;
    int cur = -1, spare = 1; /* recs[0]: intermediate stages; recs[1], recs[2]: the last stage, alternating */
    double h = st->h > 0.0 ? st->h : fmin(st->max_step, t_end - t);
    const double tol_end = mbs_time_rounding(t_end), grow = -1.0 / tab->order;
    *final = -1;
    while (t_end - t > tol_end) {
        if (st->accepted + st->rejected >= st->max_steps) { st->t = t; st->h = h; *final = cur; return 2; }
        if (mbs_cancelled(st, t)) { st->t = t; st->h = h; *final = cur; return MBS_CANCELLED; }
        h = fmin(h, st->max_step);
        const int last = mbs_reaches(t, h, t_end);
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
            if (f(ctx, t + tab->c[s] * h_try, ys, K + s * size, rec, model_work)) {
                err = INFINITY;
                break;
            }
            st->evaluations++;
        }
        if (err == 0.0) {
            const int nc = st->controlled > 0 && st->controlled < size ? st->controlled : size;
            double sum = 0.0, sum_low = 0.0;
            for (int i = 0; i < nc; i++) {
                double e = 0.0, el = 0.0;
                for (int s = 0; s < S; s++) e += tab->e[s] * K[s * size + i];
                if (tab->e_low)
                    for (int s = 0; s < S; s++) el += tab->e_low[s] * K[s * size + i];
                const double scale = st->atol + st->rtol * fmax(fabs(y[i]), fabs(ys[i]));
                e = h_try * e / scale;
                el = h_try * el / scale;
                sum += e * e;
                sum_low += el * el;
            }
            err = tab->e_low ? combined_error(sum / nc, sum_low / nc) : sqrt(sum / nc);
        }
        if (err <= 1.0 && events && events(ctx, recs + (long)spare * rec_stride) != signs) {
            st->accepted++; /* a good step, taken back: the caller locates the crossing inside it */
            st->t = t;
            st->h = h_try;
            *final = cur;
            return 3;
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

