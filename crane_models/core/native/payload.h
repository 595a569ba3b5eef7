/* A point-mass payload on a hoisting wire from a body point, with a winch and an optional compliant deck
 * (payload.c; crane_models/core/payload.py is the specification): its own right-hand side over the dynamics
 * (dynamics.h), stepped by the explicit pairs with state events (steppers.h). See multibody.h. */
#ifndef CRANE_PAYLOAD_H
#define CRANE_PAYLOAD_H

#include "dynamics.h"
#include "steppers.h"

enum { MBS_PAYLOAD_INDICATORS = 4, MBS_PAYLOAD_RESULT = 11 + MBS_PAYLOAD_INDICATORS };
typedef struct {
    int body, winch_input, deck;  /* deck: 1 a horizontal plane at deck_height in Frame 0, 0 none */
    double point[3];
    double mass, g, ea, damping;  /* load [kg], gravity, wire E A [N] and parallel damping [N s/m] */
    double v_max, l_min, l_max;   /* winch speed limit and length range */
    double deck_height, deck_k, deck_c;
    double check_interval;        /* longest step between two event checks [s] (mbs_payload_integrate) */
} mbs_payload;

int mbs_payload_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                           const mbs_payload *pl, const double *y, double *ydot, double *rec, double *result,
                           double *work);
/* L' of the winch for the command `speed` at the length `length` (shared: cosim_payload.c's input update). */
double mbs_payload_winch_rate(const mbs_payload *pl, double length, double speed);
int mbs_payload_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                          const mbs_payload *pl, const mbs_tableau *tab, mbs_stepper *st, double t, double t_end,
                          double *y, double *k1, int signs, double *recs, int rec_size, int rec_stride, int *final,
                          double *model_work, double *work, const mbs_lengths *len);

#endif
