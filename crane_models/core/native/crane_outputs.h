/* A crane's outputs from one evaluation, written straight into the caller's output table (crane_outputs.c): above
 * the reactions. See multibody.h. */
#ifndef CRANE_CRANE_OUTPUTS_H
#define CRANE_CRANE_OUTPUTS_H

#include "reactions.h"

/* What a crane outputs, as data (models/knuckle_boom/crane.py KnuckleBoomModel.crane_outputs and, on a moving base,
 * models/knuckle_boom/moving_base.py KnuckleBoomOnMovingBaseModel.outputs_with are the specification): the state
 * entries that are outputs, the bodies whose joint angles are, the tip point, the actuators (each the effort of
 * coordinate act_coord[j] entering the applied wrenches at act_entry[j] with act_sign[j]), the joint reactions of
 * chosen bodies and the cylinders' support reactions. On a moving base (loads not NULL) the applied wrenches, the load
 * on the base, the joint reactions and the tip come from mbs_base_loads (its actuator entries must be act_entry, its
 * rows n_rows long); on a fixed base rows are the reactions of row_body, in Frame 0 or in their own frame. */
typedef struct {
    const mbs_reaction_model *reactions;
    const mbs_effort_law *law;            /* the law of the evaluation: its end stops */
    const mbs_base_loads_model *loads;    /* a crane on a moving base, or NULL */
    int n_x, n_angles, tip_body, n_act, n_entries, n_rows;
    const int *x_at;                /* (n_x) state entries */
    const int *angle_body;          /* (n_angles) */
    double tip[3];                  /* in body tip_body's coordinates (fixed base) */
    const int *act_entry;           /* (n_entries) flat index into the (nb, 6) applied wrenches */
    const int *act_coord;           /* (n_entries) the coordinate (< n_act) whose effort goes there */
    const double *act_sign;         /* (n_entries) +1 or -1 */
    const int *row_body;            /* (n_rows) bodies whose joint reactions (56) are outputs (fixed base) */
    const int *row_in_frame0;       /* (n_rows) 1: turned into Frame 0, 0: in the body's own frame (fixed base) */
} mbs_crane_outputs_model;

/* The values a crane offers, in this order (core/native/outputs.py mirrors it):
 * state entries (n_x) | joint angles (n_angles) | tip (3): in Frame 0, or from the base point in the base frame |
 * load on the base [f; n] (6; zero on a fixed base) | joint reactions [f; n] (n_rows, 6) | support forces on barrel
 * and piston of each cylinder (ncyl, 2, 3) | actuator efforts without the stops (n_act) | end-stop forces (n_act) |
 * 1 when a coordinate is beyond a stop, else 0 (1). */
int mbs_crane_values_size(const mbs_model *m, const mbs_crane_outputs_model *o);

/* The values above from the state x, the record rec of the evaluation there (mbs_derivative), its accelerations udot
 * (NULL: the record's) and further applied wrenches `extra` ((nb, 6), or NULL); then out[i] = values[index[i]] for
 * the n_out outputs (the values may hold more after the crane's, e.g. constants: the caller's).
 * work: n_entries + 6 n_items + 24 nb + 24 ncyl + 6 n_rows + 9 doubles. Returns 0, or mbs_base_loads' error. */
int mbs_crane_outputs(const mbs_model *m, const mbs_crane_outputs_model *o, const double *x, const double *rec,
                      const double *udot, const double *extra, double *values, const int *index, int n_out,
                      double *out, double *work);

/* The load on the base [f; n] (6) alone that mbs_crane_outputs outputs for a crane on a moving base (o->loads) at
 * the evaluation rec (its own accelerations) with further applied wrenches `extra` (NULL: none): the same
 * operations, so a step-mean load integrates exactly these values (moving_base.c). At most MBS_CRANE_MAX_ACT
 * actuated coordinates. work: n_entries + 12 nb doubles. Returns 0, or -1 (no base loads, too many actuators). */
enum { MBS_CRANE_MAX_ACT = 8 };
int mbs_crane_base_load(const mbs_model *m, const mbs_crane_outputs_model *o, const double *rec, const double *extra,
                        double *wrench, double *work);

/* What a crane whose joints carry their efforts as action-reaction pairs outputs at a constraint cut (models/
 * vessel_crane/crane.py VesselCraneModel.outputs is the specification): the constraint wrench of the cut by auxiliary
 * generalized speeds (moving-base paper (50)) with the applied wrenches W_e = weights + joint efforts between body and
 * parent (constraint_forces.joint_effort_wrenches), in the cut body's frame and in that of body `frame`; the tip. */
typedef struct {
    const mbs_effort_law *law;      /* gravity */
    int cut, n_ob, nj, frame, tip_body;
    const int *outboard;            /* (n_ob) the cut body and the bodies outboard of it */
    const double *S, *Ainv;         /* (6, nj) the cut's directions [w; v], (nj, nj) A^-1 of (45) */
    const int *joint_of;            /* (n) the body whose joint coordinate i drives */
    double tip[3];                  /* in body tip_body's coordinates */
} mbs_cut_outputs_model;

/* The values of a cut, in this order (core/native/outputs.py mirrors it): x (2 n) | the constraint wrench S rho on the
 * cut body, [n; f] in its frame (6) | the same in the frame of body `frame` (6) | tip in Frame 0 (3) | the efforts
 * (n); then out[i] = values[index[i]] as mbs_crane_outputs. rec, udot (NULL: the record's) as there.
 * work: 12 nb + 6 doubles. */
int mbs_cut_values_size(const mbs_model *m);
int mbs_cut_outputs(const mbs_model *m, const mbs_cut_outputs_model *o, const double *x, const double *rec,
                    const double *udot, double *values, const int *index, int n_out, double *out, double *work);

#endif
