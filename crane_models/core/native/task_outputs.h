/* The outputs of a tree with a task (point springs, a programmed constraint, joint friction) from one evaluation,
 * written straight into the caller's output table (task_outputs.c): above the task's derivative. See multibody.h. */
#ifndef CRANE_TASK_OUTPUTS_H
#define CRANE_TASK_OUTPUTS_H

#include "task.h"

/* What such a crane outputs, as data (models/flexible_crane/model.py FlexibleCraneModel.outputs is the
 * specification): the state entries that are outputs, the tip body's origin, the task's springs' resultant on
 * their body, the deflection of a chain of bodies (link (c,2): its first body, its last, the body at its end) and
 * the effort of one coordinate (the drive). */
typedef struct {
    const mbs_task *task;          /* the evaluation's task: its constraint, springs and friction joints */
    int n_x, tip_body, root_body, last_body, end_body, drive_coord;
    const int *x_at;               /* (n_x) state entries */
} mbs_task_outputs_model;

/* The values, in this order (core/native/task_outputs.py mirrors it): state entries (n_x) | tip in Frame 0 (3) |
 * z_E,a(t) of (22) (the tip's z without a constraint) (1) | Phi (2) | constraint force on the point, Frame 0 (3) |
 * lambda (2) | friction torques (n_joints) | normal forces (n_joints) | the springs' resultant force (3) and its
 * moment about the body frame's origin (3), Frame 0 | the end of the chain from its first body in that body's
 * frame, y and z (2), and the twist of its last body about the x axis relative to the first (1) | the drive's
 * effort (1). */
int mbs_task_values_size(const mbs_task_outputs_model *o);

/* The values above at time t from the state x, the record rec of the evaluation there (mbs_task_derivative) and
 * its result (that call's `result`: [z' | lambda | t_f | f_n | Phi | force]); then out[i] = values[index[i]] for
 * the n_out outputs (the values may hold more after these: the caller's). Returns 0. */
int mbs_task_outputs(const mbs_model *m, const mbs_task_outputs_model *o, double t, const double *x,
                     const double *rec, const double *result, double *values, const int *index, int n_out,
                     double *out);

#endif
