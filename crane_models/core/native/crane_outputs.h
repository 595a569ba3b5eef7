/* A crane's outputs from one evaluation, written straight into the caller's output table (crane_outputs.c): above
 * the reactions. See multibody.h. */
#ifndef CRANE_CRANE_OUTPUTS_H
#define CRANE_CRANE_OUTPUTS_H

#include "reactions.h"

/* What a crane on a fixed base outputs (models/knuckle_boom/crane.py KnuckleBoomModel.crane_outputs is the
 * specification), as data: the bodies whose joint angles are outputs, the tip point, the actuators (each an effort
 * of coordinate act_coord[j] entering the applied wrenches at act_entry[j] with act_sign[j]), the joint reactions of
 * chosen bodies and the cylinders' support reactions. */
typedef struct {
    const mbs_reaction_model *reactions;
    const mbs_effort_law *law;      /* the law of the evaluation: its end stops */
    int n_angles, tip_body, n_act, n_entries, n_rows;
    const int *angle_body;          /* (n_angles) */
    double tip[3];                  /* in body tip_body's coordinates */
    const int *act_entry;           /* (n_entries) flat index into the (nb, 6) applied wrenches */
    const int *act_coord;           /* (n_entries) the coordinate (< n_act) whose effort goes there */
    const double *act_sign;         /* (n_entries) +1 or -1 */
    const int *row_body;            /* (n_rows) bodies whose joint reactions (56) are outputs */
    const int *row_in_frame0;       /* (n_rows) 1: turned into Frame 0, 0: in the body's own frame */
} mbs_crane_outputs_model;

/* The values a crane offers, in this order (core/native/outputs.py mirrors it):
 * x (2 n) | joint angles (n_angles) | tip in Frame 0 (3) | joint reactions [f; n] (n_rows, 6) |
 * support forces on barrel and piston of each cylinder (ncyl, 2, 3) | actuator efforts without the stops (n_act) |
 * end-stop forces (n_act) | 1 when a coordinate is beyond a stop, else 0 (1). */
int mbs_crane_values_size(const mbs_model *m, const mbs_crane_outputs_model *o);

/* The values above from the state x, the record rec of the evaluation there (mbs_derivative), its accelerations udot
 * (NULL: the record's) and further applied wrenches `extra` ((nb, 6), or NULL); then out[i] = values[index[i]] for the n_out outputs (the
 * values may hold more, e.g. constants, after the crane's: the caller's). work: 6 n_items + 24 nb + 12 ncyl doubles. */
int mbs_crane_outputs(const mbs_model *m, const mbs_crane_outputs_model *o, const double *x, const double *rec,
                      const double *udot, const double *extra, double *values, const int *index, int n_out,
                      double *out, double *work);

#endif
