/* Constraint forces, joint reactions and the loads of a crane on a moving base (reactions.c, where each is
 * described): above the dynamics (the inertial wrenches). The records are mirrored by core/native/wrenches.py.
 * See multibody.h. */
#ifndef CRANE_REACTIONS_H
#define CRANE_REACTIONS_H

#include "dynamics.h"

typedef struct {
    int n_items, n_struct, ncyl;
    const int *item_body;   /* (n_items) body of each contribution: structural bodies, then barrel, piston */
    const int *structural;  /* (n_struct) */
    const double *mask;     /* (nb, n_items) 1 when contribution j is outboard of joint k */
    const int *cyl;         /* (ncyl, 2) barrel and piston body */
    const double *a0;       /* (ncyl, 12, 12) support maps S(l_c) = a0 + a1 / l_c of (54)-(55) */
    const double *a1;
} mbs_reaction_model;

typedef struct {
    const mbs_reaction_model *reactions;
    int cut, n_ob, nj, base, n_act, n_rows, tip_body;
    const int *outboard, *act_entry, *rows, *row_frame;
    const double *S, *Ainv;
    double g, tip[3];
} mbs_base_loads_model;

int mbs_aux_speeds(const mbs_model *m, const double *rec, const double *udot, const double *external,
                   int cut, int n_ob, const int *outboard, int nj, const double *S, const double *Ainv,
                   double *rho, double *work);
int mbs_reactions(const mbs_model *m, const mbs_reaction_model *r, const double *rec, const double *udot,
                  const double *external, double *total, double *supports, double *joints, double *work);
int mbs_interface_wrench(const mbs_model *m, const double *rec, const double *udot, const double *external,
                         int cut, int n_ob, const int *outboard, int nj, const double *S, const double *Ainv,
                         int base, double axial_torque, double *out, double *work);
int mbs_interface_inertia(int n, const double *M, const int *prescribed, const int *free_, int nf,
                          const double *euler_inverse, const double *R, double *A, double *work);
int mbs_base_loads(const mbs_model *m, const mbs_base_loads_model *L, const double *rec, const double *udot,
                   const double *act_values, const double *extra, double *out, double *work);
/* mbs_base_loads' applied wrenches (nb, 6) and load on the base [f; n] (6) alone (work: 6 nb doubles). */
int mbs_base_load(const mbs_model *m, const mbs_base_loads_model *L, const double *rec, const double *udot,
                  const double *act_values, const double *extra, double *applied, double *wrench, double *work);

#endif
