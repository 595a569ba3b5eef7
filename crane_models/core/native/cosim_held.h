/* One communication step of a crane on a base held over the step entirely in the kernel (cosim_held.c, issue 23):
 * mbs_cosim_step's step (cosim_step.h) with the held base's right-hand side (held_base.h) -- new inputs evaluated
 * anew (they move the base), a step-mean load's integrals restarted, the stepping by mbs_held_integrate, the outputs
 * by mbs_held_outputs. The top floor of
 * the kernel, over cosim_step.c and held_base.c. See multibody.h. */
#ifndef CRANE_COSIM_HELD_H
#define CRANE_COSIM_HELD_H

#include "cosim_step.h"
#include "held_base.h"

/* The record of one instance's kernel steps (core/native/cosim_held.py fills it). CraneOnMovingBaseModel under
 * CoSimulation.step is the specification: a step here does its kernel calls, in its order, on the same data. The
 * model's inputs (c.n_in): the crane's n_law - 6 first, the motion [roll ... a_P] (12) at motion_at. */
typedef struct {
    mbs_cosim c;                    /* the crane's part: c.size = 2 nf, c.rec_size the tree's record */
    const mbs_held_base *hb;
    const mbs_held_outputs_model *outputs;
    int motion_at;
    double *kernel_inputs, *kernel_inputs_next; /* (n_law + 2 n) of mbs_held_base_inputs: in force, for new inputs */
} mbs_cosim_held;

/* Entry point: as mbs_cosim_step, for a mbs_cosim_held record. */
int mbs_cosim_held_step(void *record, double t, double h, double *reals, int64_t *ints);

#endif
