/* One communication step of a tree model WITH its payload on the hoisting wire entirely in the kernel
 * (cosim_payload.c, issue 23): mbs_cosim_step's step (cosim_step.h) with the payload's right-hand side stepped by
 * mbs_payload_integrate, which stops before a state event -- then the step is declined and the caller's event
 * location takes it. The top floor of the kernel, over cosim_step.c. See multibody.h. */
#ifndef CRANE_COSIM_PAYLOAD_H
#define CRANE_COSIM_PAYLOAD_H

#include "cosim_step.h"
#include "payload.h"

/* The payload's values a step publishes, in this order (models/knuckle_boom/payload.py PAYLOAD_OUTPUTS, then
 * wire_slack): tension, wire length, load position (3) and velocity (3), swing radial and tangential, deck contact
 * force, 1 while the wire is slack else 0. */
enum { MBS_COSIM_PAYLOAD_VALUES = 12 };

/* The record of one payload model instance's kernel steps (core/native/cosim_payload.py fills it).
 * KnuckleBoomPayloadModel under CoSimulation.step is the specification: a step here does its kernel calls, in its
 * order, on the same data, and the payload's own arithmetic (input update, outputs) with the same operations. */
typedef struct {
    mbs_cosim c;               /* the tree's part; c.rec, c.rec_next: crane_rec_size + MBS_PAYLOAD_RESULT doubles */
    mbs_payload *pl;           /* the wire, winch and deck; its check_interval is set for a step and put back */
    int crane_rec_size, n_law; /* mbs_derivative's record; the law's inputs (the winch command after them) */
    int nb, tip_body, king;    /* the bodies: the wire's suspension, the one whose y axis is in the boom plane */
    double mass_over_ea;       /* m / EA [s^2] of NativePayload.check_interval */
    const int *payload_at;     /* (MBS_COSIM_PAYLOAD_VALUES) index of each value in c.values, -1: not published */
    double *extra;             /* (nb, 6) scratch: the wire's wrench on the tip body, zero on the others */
} mbs_cosim_payload;

/* Entry point: as mbs_cosim_step, for a mbs_cosim_payload record; also declined (MBS_COSIM_EVENT) when an event
 * indicator changes sign within the step. */
int mbs_cosim_payload_step(void *record, double t, double h, double *reals, int64_t *ints);

#endif
