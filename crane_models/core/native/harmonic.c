/* A rigid body moved by sums of harmonic series: the sums, the Euler kinematics of (53) and a communication step over
 * a value table (harmonic.h). models/wave_vessel/motion.py is the specification in numpy; the kernel computes the
 * outputs on every path that has it (initialization, a step in Python or here), so they are the same to the bit
 * whichever path computed them. See multibody.h. */
#include "multibody.h"

#include <math.h>
#include <string.h>

int mbs_harmonic_values_size(const mbs_harmonic *b) { return 21 + (b->series - 6); }

void mbs_harmonic_sums(int n, int series, const double *omega, const double *phase, const double *c,
                       const double *s, double t, double *x, double *rate, double *accel) {
    for (int j = 0; j < series; j++) x[j] = rate[j] = accel[j] = 0.0;
    for (int i = 0; i < n; i++) {
        const double w = omega[i], th = w * t + phase[i], ct = cos(th), st = sin(th);
        for (int j = 0; j < series; j++) {
            const double cj = c[(long)j * n + i], sj = s[(long)j * n + i];
            const double value = cj * ct - sj * st; /* its rate: -w (cj st + sj ct); its acceleration: -w^2 value */
            x[j] += value;
            rate[j] -= w * (cj * st + sj * ct);
            accel[j] -= w * w * value;
        }
    }
}

void mbs_euler_body_rates(const double *angles, const double *rates, const double *accels, double *w, double *dw) {
    const double sf = sin(angles[0]), cf = cos(angles[0]), sq = sin(angles[1]), cq = cos(angles[1]);
    const double df = rates[0], dq = rates[1], dp = rates[2], ddf = accels[0], ddq = accels[1], ddp = accels[2];
    w[0] = df - sq * dp;
    w[1] = cf * dq + sf * cq * dp;
    w[2] = -sf * dq + cf * cq * dp;
    dw[0] = ddf - sq * ddp - cq * dq * dp;
    dw[1] = cf * ddq - sf * df * dq + sf * cq * ddp + (cf * cq * df - sf * sq * dq) * dp;
    dw[2] = -sf * ddq - cf * df * dq + cf * cq * ddp - (sf * cq * df + cf * sq * dq) * dp;
}

/* R = R_z(yaw) R_y(pitch) R_x(roll), row-major (core/screws.py rot_x, rot_y, rot_z). */
static void euler_rotation(const double *a, double *R) {
    const double sf = sin(a[0]), cf = cos(a[0]), sq = sin(a[1]), cq = cos(a[1]), sp = sin(a[2]), cp = cos(a[2]);
    R[0] = cp * cq; R[1] = cp * sq * sf - sp * cf; R[2] = cp * sq * cf + sp * sf;
    R[3] = sp * cq; R[4] = sp * sq * sf + cp * cf; R[5] = sp * sq * cf - cp * sf;
    R[6] = -sq;     R[7] = cq * sf;                R[8] = cq * cf;
}

static void flip(double *v) { v[1] = -v[1]; v[2] = -v[2]; }

void mbs_build_up_envelope(double t, double duration, double *envelope) {
    if (!(duration > 0.0) || t >= duration) {
        envelope[0] = 1.0; envelope[1] = envelope[2] = 0.0;
    } else if (t <= 0.0) {
        envelope[0] = envelope[1] = envelope[2] = 0.0;
    } else {
        const double s = t / duration;
        envelope[0] = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
        envelope[1] = 30.0 * s * s * (1.0 - s) * (1.0 - s) / duration;
        envelope[2] = 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (duration * duration);
    }
}

/* Every series scaled by the build-up's envelope (e x, de x + e rate, dde x + 2 de rate + e accel): untouched when
 * it is (1, 0, 0), so a body without a build-up keeps its bits. */
static void build_up(const mbs_harmonic *b, double t, double *x, double *rate, double *accel) {
    double env[3];
    mbs_build_up_envelope(t, b->build_up, env);
    if (env[0] == 1.0 && env[1] == 0.0 && env[2] == 0.0) return;
    for (int j = 0; j < b->series; j++) {
        const double xj = x[j], rj = rate[j], aj = accel[j];
        x[j] = env[0] * xj;
        rate[j] = env[1] * xj + env[0] * rj;
        accel[j] = env[2] * xj + 2.0 * env[1] * rj + env[0] * aj;
    }
}

int mbs_harmonic_values(mbs_harmonic *b, double t) {
    double x[64], rate[64], accel[64]; /* series <= 64 (harmonic.py checks) */
    double R[9], *v = b->values;
    mbs_harmonic_sums(b->n, b->series, b->omega, b->phase, b->c, b->s, t, x, rate, accel);
    build_up(b, t, x, rate, accel);
    euler_rotation(x + 3, R);
    memcpy(v, x + 3, 3 * sizeof(double));
    mbs_euler_body_rates(x + 3, rate + 3, accel + 3, v + 3, v + 6);
    mattvec3(R, accel, v + 9);  /* R^T a: the point's acceleration in the body frame */
    mattvec3(R, rate, v + 12);  /* R^T v */
    for (int k = 0; k < 3; k++) v[15 + k] = b->origin[k] + x[k];
    memcpy(v + 18, x, 3 * sizeof(double));
    for (int j = 6; j < b->series; j++) v[21 + j - 6] = x[j];
    if (b->z_down) { /* F R F: the same roll, pitch and yaw of opposite sign; vectors F v */
        v[1] = -v[1];
        v[2] = -v[2];
        for (int k = 3; k < 21; k += 3) flip(v + k);
    }
    return mbs_cosim_all_finite(v, mbs_harmonic_values_size(b)) ? 0 : 1;
}

int mbs_harmonic_step(void *record, double t, double h, double *reals, int64_t *ints) {
    mbs_harmonic *b = record;
    const double t_end = t + h;
    /* the step's times as the adapter's doStep checks them (cosim_step.c's times_accepted) */
    if (!(fabs(t - b->t) <= mbs_time_rounding(b->t) && isfinite(t_end) && t_end - t > mbs_time_rounding(t_end)))
        return MBS_HARMONIC_TIME;
    if (mbs_harmonic_values(b, t_end)) return MBS_HARMONIC_VALUES;
    for (int j = 0; j < b->n_real; j++) reals[b->real_vr[j]] = b->values[b->real_from[j]];
    for (int j = 0; j < b->n_int; j++) ints[b->int_vr[j]] = (int64_t)b->values[b->int_from[j]];
    if (b->time_vr >= 0) reals[b->time_vr] = t_end;
    b->t = t_end;
    b->steps += 1;
    return MBS_HARMONIC_DONE;
}
