/* A rigid body whose motion is prescribed by sums of harmonic series (harmonic.c): each of its six coordinates --
 * the position of a point of it in a fixed frame and the Euler angles of (53), R = R_z(yaw) R_y(pitch) R_x(roll) --
 * and any further scalar is x(t) = sum_i (c_i cos th_i - s_i sin th_i), th_i = w_i t + e_i, with its first and
 * second time derivatives; from them the body's angular velocity and acceleration in its own frame by the exact
 * kinematics of the Euler angles, the point's velocity and acceleration turned into the body's frame, in z-up
 * axes or z-down ones (the half turn F = diag(1, -1, -1) about x). It knows no vessel and no wave: a wave-driven
 * vessel (models/wave_vessel) is one user. Outputs of time alone, so its communication step over a value table
 * (mbs_harmonic_step) needs no state and no stepper. With a build-up T > 0 every series is the sum times the quintic
 * e(t) = 10 s^3 - 15 s^4 + 6 s^5, s = t/T, for 0 <= t < T (0 before), rates and accelerations by the product rule
 * (core/sea/build_up.py, a sea built up from rest). The top floor of the kernel. See multibody.h. */
#ifndef CRANE_HARMONIC_H
#define CRANE_HARMONIC_H

#include <stdint.h>

/* The series of one body and the value table its steps write into (core/native/harmonic.py fills it). */
typedef struct {
    int n;                      /* harmonic components */
    int series;                 /* series, >= 6: x, y, z of the point (fixed frame), roll, pitch, yaw, then scalars */
    const double *omega;        /* (n) w_i [rad/s] */
    const double *phase;        /* (n) e_i [rad] */
    const double *c, *s;        /* (series x n) the cosine and sine coefficients of each series */
    double origin[3];           /* the point's mean position in the fixed frame (z up), added to its displacement */
    int z_down;                 /* 1: every vector and the angles given in z-down axes (F v; roll, -pitch, -yaw) */
    double build_up;            /* [s] the motion built up from rest over time 0..build_up (0: none; harmonic.c) */
    double *values;             /* (mbs_harmonic_values_size) the values at the last time evaluated */
    /* the caller's value table: values[real_from[j]] into reals[real_vr[j]], (int64_t) values[int_from[j]] into
     * ints[int_vr[j]], the time into reals[time_vr] (-1: none) */
    int n_real, n_int, time_vr;
    const int *real_vr, *real_from, *int_vr, *int_from;
    double t;                   /* the point reached: written by the caller when it hands the stepping over */
    long steps;                 /* steps taken since the caller last took the point over */
} mbs_harmonic;

/* Why a step was declined (mbs_harmonic_step's return value; nothing changed): the step's times, a value not
 * finite. The same codes as mbs_cosim_step's (cosim_step.h). */
enum { MBS_HARMONIC_DONE = 0, MBS_HARMONIC_TIME = 1, MBS_HARMONIC_VALUES = 6 };

/* How many values mbs_harmonic_values writes: roll, pitch, yaw (3) | angular velocity, body frame (3) | angular
 * acceleration, body frame (3) | the point's acceleration, body frame (3) | its velocity, body frame (3) | its
 * position, fixed frame (3) | its displacement from the origin, fixed frame (3) | the further scalar series (series -
 * 6), as they are (not turned). */
int mbs_harmonic_values_size(const mbs_harmonic *b);

/* The sums x, dx/dt, d2x/dt2 of `series` series of n components at time t (x, rate, accel: `series` each). */
void mbs_harmonic_sums(int n, int series, const double *omega, const double *phase, const double *c,
                       const double *s, double t, double *x, double *rate, double *accel);

/* The angular velocity w and acceleration dw in the body frame of R = R_z(yaw) R_y(pitch) R_x(roll) from the angles,
 * their rates and their second derivatives (3 each, roll first). */
void mbs_euler_body_rates(const double *angles, const double *rates, const double *accels, double *w, double *dw);

/* (e, de/dt, d2e/dt2) at time t of a build-up over `duration` (<= 0: none, (1, 0, 0)) into envelope[3]: the same
 * operations as core/sea/build_up.py build_up_envelope, so the same bits. */
void mbs_build_up_envelope(double t, double duration, double *envelope);

/* The values above at time t into b->values; 0 when all are finite, else 1. */
int mbs_harmonic_values(mbs_harmonic *b, double t);

/* Entry point: the communication step from t (within mbs_time_rounding of b->t) by h: the values at t + h published
 * into the table with the time; MBS_HARMONIC_DONE, or the reason with nothing changed. */
int mbs_harmonic_step(void *record, double t, double h, double *reals, int64_t *ints);

#endif
