/* The explicit steppers (steppers.c): an embedded Runge-Kutta pair with step-size control over any right-hand
 * side, and what every stepper of the kernel shares -- the controller's state, the return codes, the right-hand
 * side's signature. The stepping floor: it knows no model (stepping.c and payload.c bind theirs to it). See
 * multibody.h. */
#ifndef CRANE_STEPPERS_H
#define CRANE_STEPPERS_H

/* An embedded explicit Runge-Kutta pair with FSAL (crane_models/integration/integrators.py is the specification: the
 * tableau comes from there): stage s at t + c_s h from y + h sum_{j<s} a_sj K_j, the last stage's input is
 * the new solution, and h sum_s e_s K_s estimates the error of order `order`. With a second, lower-order
 * estimator e_low (DOP853's third-order one) the step's error is r^2 / sqrt(r^2 + 0.01 r_low^2) of the two
 * scaled RMS norms (integrators.combined_error). */
typedef struct {
    int stages, order;
    const double *a;     /* (stages, stages), row-major, strictly lower */
    const double *c;     /* (stages) */
    const double *e;     /* (stages) */
    const double *e_low; /* (stages), or NULL: the error is the RMS norm of e's estimate */
} mbs_tableau;

/* mbs_integrate's step-size control of integrators._ExplicitPair; h carries over between calls, the counters accumulate.
 * max_steps bounds accepted + rejected steps of one call (integrators._spend_step): a step that cannot
 * advance t, or a huge interval, ends the call instead of running for hours. */
typedef struct {
    double rtol, atol, max_step, min_step, h, t;
    long evaluations, accepted, rejected, max_steps;
    const volatile int *cancel; /* NULL, or a flag another thread may set: checked before every trial step */
    /* NULL, or called before every trial step with its time, before the flag is read: the host's chance to ask
     * for a cancel from the stepping thread itself (FMI 3.0's intermediate update with early return). */
    void (*poll)(void *ctx, double t);
    void *poll_ctx;
    /* the leading states the error control watches, 0: all (integrators._error_part: trailing quadrature states that
     * feed nothing back are carried at the steps the others need) */
    int controlled;
} mbs_stepper;

/* 1 when the step is to end before the trial step at t: the poll (if any) is asked, then the flag read. */
static inline int mbs_cancelled(const mbs_stepper *st, double t) {
    if (st->poll)
        st->poll(st->poll_ctx, t);
    return st->cancel && *st->cancel;
}

/* Return codes of the stepping calls (mbs_integrate, mbs_payload_integrate, mbs_rosenbrock_integrate). */
enum { MBS_DONE = 0, MBS_STEP_TOO_SMALL = 1, MBS_OUT_OF_STEPS = 2, MBS_EVENT = 3, MBS_CANCELLED = 4,
       MBS_NO_JACOBIAN = 5, MBS_BAD_BUFFERS = 6 };

/* The lengths (in doubles) of the caller's buffers a stepping entry point writes, as the caller allocated them:
 * the call compares them with the lengths it computes from the model (state size, records, stages) and returns
 * MBS_BAD_BUFFERS, writing nothing, on a mismatch -- y and k1 may come from a saved state, which is data. */
typedef struct {
    long y, k1, recs, work;
} mbs_lengths;
/* MBS_DONE when y and k1 hold exactly size doubles, recs three records of rec_stride >= rec_size + tail doubles
 * and work at least `work` doubles; else MBS_BAD_BUFFERS (steppers.c). */
int mbs_check_lengths(const mbs_lengths *len, int size, int rec_size, int tail, int rec_stride, long work);

/* Times closer than MBS_TIME_ULPS ulp of t are the same instant (integration/step_control.py _rounding, TIME_ULPS,
 * says why): the end of a stepping interval within it counts as reached (steppers.c). */
#define MBS_TIME_ULPS 16.0
double mbs_time_rounding(double t);
/* Whether a step h from t reaches t_end: within mbs_time_rounding(t_end) or MBS_STEP_SLACK of the step
 * (step_control.py _reaches, STEP_SLACK). */
#define MBS_STEP_SLACK 1e-9
int mbs_reaches(double t, double h, double t_end);

/* A right-hand side for mbs_integrate_rhs: ydot at (t, y), evaluated into the record rec (and its tail) with
 * scratch work; returns nonzero when it cannot be evaluated (the step is then rejected). */
typedef int (*mbs_rhs)(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work);
/* The state-event indicators' signs as bits, from a record the right-hand side filled. */
typedef int (*mbs_event_signs)(const void *ctx, const double *rec);
int mbs_integrate_rhs(mbs_rhs f, const void *ctx, int size, mbs_event_signs events, int signs,
                      const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                      double *recs, int rec_stride, int *final, double *model_work, double *work);

#endif
