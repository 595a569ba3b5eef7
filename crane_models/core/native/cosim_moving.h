/* One communication step of a crane on a moving base entirely in the kernel (cosim_moving.c): mbs_cosim_step's step
 * (cosim_step.h) with what CoSimulation.step adds for such a model -- the base's motion imposed from the inputs and
 * the step integrals of its step-mean load restarted at the step's start (the model's impose_inputs and
 * restart_step_integrals), the stepping by mbs_moving_integrate, the outputs by mbs_moving_outputs. The top floor of
 * the kernel, over cosim_step.c and moving_base.c. See multibody.h. */
#ifndef CRANE_COSIM_MOVING_H
#define CRANE_COSIM_MOVING_H

#include "cosim_step.h"
#include "moving_base.h"

/* The record of one instance's kernel steps (core/native/cosim_moving.py fills it). KnuckleBoomOnMovingBaseModel
 * under CoSimulation.step is the specification: a step here does its kernel calls, in its order, on the same data.
 * The model's inputs (c.n_in): the crane's n_law - 6 first, the motion [roll ... a_P] (12) at motion_at. */
typedef struct {
    mbs_cosim c;                    /* c.size = mbs_moving_size, c.rec_size the tree's record */
    const mbs_moving_base *mb;
    const mbs_moving_outputs_model *outputs;
    int motion_at;
    double *base_inputs, *base_inputs_next; /* (n_law + 6) of mbs_moving_base_inputs: in force, for new inputs */
} mbs_cosim_moving;

/* Entry point: as mbs_cosim_step, for a mbs_cosim_moving record. */
int mbs_cosim_moving_step(void *record, double t, double h, double *reals, int64_t *ints);

#endif
