/* Compiled kernel of crane_models.core.kane.MultibodySystem: kinematics, projection matrices and the
 * equations of motion of a tree of rigid bodies (Cibicik & Egeland 2018, eqs. (16)-(28), (43)-(46)).
 *
 * It computes exactly what the numpy reference in core/kane.py computes, body by body instead of batched:
 * the numpy version is the specification, tests/test_native.py checks that both agree to rounding.
 * One file per concept, this header shared by all of them:
 *   kinematics.c  mbs_evaluate (kinematics, M, C) and the tree walk every entry point starts with;
 *   dynamics.c    mbs_solve_spd, the joint effort law, mbs_derivative (state derivative), mbs_inertial_wrenches;
 *   task.c        mbs_task_derivative (point springs, a programmed constraint and joint friction by the
 *                 articulated-body algorithm: models/flexible_crane is its specification);
 *   steppers.c    mbs_integrate (the explicit pairs of simulation/integrators.py over either derivative);
 *   reactions.c   mbs_aux_speeds (constraint forces by auxiliary speeds), mbs_reactions (joint reactions),
 *                 mbs_interface_wrench, mbs_interface_inertia, mbs_base_loads (a crane on a moving base);
 *   payload.c     mbs_payload_derivative, mbs_payload_integrate (a load on a hoisting wire from a body point).
 * Plain C with no Python API, loaded with ctypes, so one binary serves every Python version that an
 * FMU host may embed. Arrays are row-major doubles; all sizes come from the model record.
 * The entry points -- the functions Python calls -- are declared here and listed, with their ctypes prototypes,
 * in entry_points.py: a build exports exactly that list (see MBS_EXPORTS at the end); the other functions
 * declared here are shared between the .c files and stay hidden.
 */
#ifndef CRANE_MULTIBODY_H
#define CRANE_MULTIBODY_H

#include <math.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(__clang__)
#define restrict __restrict /* MSVC's C mode spells it so */
#endif

typedef struct {
    int nb, n;
    int invert;             /* 1: also store M^-1 after the weight term (small systems) */
    const int *parent;      /* index of the parent body, -1 for the root */
    const int *coord;       /* generalized coordinate driving the joint, -1 for a fixed joint */
    const int *jtype;       /* 0 fixed, 1 revolute, 2 prismatic */
    const int *custom_map;  /* 0 identity, 1 supplied by the caller in maps, 2/3 cylinder alpha/beta */
    const double *map_par;  /* (nb, 9) parameters of the kernel's own maps (see cylinder_angle) */
    const double *axis;     /* (nb, 3) joint axis, body coordinates, unit length */
    const double *offset;   /* (nb, 3) joint origin in parent coordinates */
    const double *rotation0;/* (nb, 3, 3) fixed rotation before the joint motion */
    const double *mass;     /* (nb) */
    const double *inertia;  /* (nb, 3, 3) about the COG, body coordinates */
    const double *com;      /* (nb, 3) COG in body coordinates */
    const int *col_ptr;     /* (nb + 1) CSR: coordinates on the path of each body */
    const int *col_idx;
} mbs_model;

/* A record (core.native.NativeSystem) is [q | u | udot | efforts | maps (nb, 3) | outputs], in doubles; the
 * outputs start after this head and are laid out as in mbs_out, mirrored by core/native/system.py. */
static inline int record_head(const mbs_model *m) { return 4 * m->n + 3 * m->nb; }


typedef struct {
    double *rotation, *origin, *cog, *P, *Pdot, *twist, *theta, *theta_dot, *G, *cogjac, *M, *C, *mgz, *Minv, *Cu,
        *pdu;
} mbs_out;

/* The outputs' layout (core.native.NativeSystem mirrors it): rotation (nb, 3, 3), origin, cog (nb, 3), P, Pdot
 * (nb, 6, n), twist (nb, 6), theta, theta_dot (nb), G (nb, n), COG Jacobian (nb, 3, n), M, C (n, n), the
 * weight term (n), M^-1 (n, n), C u (n), Pdot u (nb, 6). */
static inline mbs_out layout_of(const mbs_model *m, double *out) {
    const int nb = m->nb, n = m->n, sz = 6 * n;
    mbs_out o;
    double *p = out;
    o.rotation = p; p += 9 * nb;
    o.origin = p; p += 3 * nb;
    o.cog = p; p += 3 * nb;
    o.P = p; p += nb * sz;
    o.Pdot = p; p += nb * sz;
    o.twist = p; p += 6 * nb;
    o.theta = p; p += nb;
    o.theta_dot = p; p += nb;
    o.G = p; p += nb * n;
    o.cogjac = p; p += 3 * nb * n;
    o.M = p; p += n * n;
    o.C = p; p += n * n;
    o.mgz = p; p += n;
    o.Minv = p; p += n * n;
    o.Cu = p; p += n;
    o.pdu = p; /* (nb, 6): Pdot_k u, the velocity-product part of the body accelerations (27) */
    return o;
}

static inline void cross3(const double *a, const double *b, double *c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline void matvec3(const double *R, const double *v, double *out) {
    for (int i = 0; i < 3; i++) out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static inline void mattvec3(const double *R, const double *v, double *out) { /* R^T v */
    for (int i = 0; i < 3; i++) out[i] = R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2];
}

/* Rodrigues: rotation by theta about the unit axis a. */
static inline void axis_rotation(const double *a, double theta, double *R) {
    double s = sin(theta), c = cos(theta), v = 1.0 - c;
    R[0] = c + a[0] * a[0] * v;        R[1] = a[0] * a[1] * v - a[2] * s; R[2] = a[0] * a[2] * v + a[1] * s;
    R[3] = a[1] * a[0] * v + a[2] * s; R[4] = c + a[1] * a[1] * v;        R[5] = a[1] * a[2] * v - a[0] * s;
    R[6] = a[2] * a[0] * v - a[1] * s; R[7] = a[2] * a[1] * v + a[0] * s; R[8] = c + a[2] * a[2] * v;
}

static inline void matmul3(const double *A, const double *B, double *C) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

int mbs_solve_spd(int n, int nrhs, double *M, const double *b, double *x);

/* Kinematics (eqs. (16), (25), (28)), M and C (44) and the weight term sum_k m_k dz_k/du of (46); with
 * m->invert also M^-1 (NaN in its first entry when M is not positive definite).
 * maps: (nb, 3) theta, dtheta/dq, d2theta/dq2, read for joints with custom_map set.
 * work: 2 * nb * 6 * n + nb * 6 + 2 * n * n doubles (joint Jacobians in Frame 0 and their rates, body
 * twists, room for the inversion).
 * mode: EV_CORIOLIS_MATRIX -- C itself (C u always); EV_ALL_BODIES -- P, Pdot, the COG Jacobian and the twist
 * of every body (else only of bodies with mass or inertia and of keep1, keep2: a state derivative needs no
 * more, and the massless frames of Euler-angle chains are half the bodies of some models; the others' rows
 * are left as they are); EV_INVERSE -- M^-1 when m->invert; EV_SPATIAL -- for the articulated-body
 * recursions: positions, rotations, COGs, body twists, and per body its joint's screw times dtheta/dq, S_k,
 * in work[6k..] and the bias Sdot_k u, c_k, in work[nb 6 n + 6k..] (Frame 0 at its origin, [w; v]); no P,
 * COG Jacobians, G or M.
 * Returns 0, or k + 1 when the map of body k is outside its domain. */
enum { EV_CORIOLIS_MATRIX = 1, EV_ALL_BODIES = 2, EV_INVERSE = 4, EV_SPATIAL = 8 };
int mbs_evaluate_tree(const mbs_model *m, const double *q, const double *u, const double *maps, double *out,
                      double *work, int mode, int keep1, int keep2);
/* Entry point: kinematics, M, C, C u, the weight term and (small systems) M^-1 (all bodies, EV_INVERSE). */
int mbs_evaluate(const mbs_model *m, const double *q, const double *u, const double *maps, double *out,
                 double *work);

static inline int massless(const mbs_model *m, int k) {
    const double *I = m->inertia + 9 * k;
    return m->mass[k] == 0.0 && I[0] == 0.0 && I[4] == 0.0 && I[8] == 0.0;
}

/* Joint efforts given per generalized coordinate (crane_models/effort_laws.py, the specification):
 * e_i = c_i + sum_j B_ij w_j + k1_i q_i + k3_i q_i^3 + d_i u_i [+ end stop_i] [- tau_g,i] with the inputs w --
 * springs (linear and the cubic vessel springs of the moving-base paper, III-D), PD control to set-points
 * in w (63), input efforts, one-sided end stops, gravity compensation. */
typedef struct {
    int n_in;
    double g;                   /* gravity, for the weight term of (46) */
    const double *constant;     /* (n) */
    const double *input_gain;   /* (n, n_in) */
    const double *linear;       /* (n) */
    const double *cubic;        /* (n) */
    const double *damping;      /* (n) */
    const double *stop_low, *stop_high, *stop_k, *stop_c; /* (n) each, or NULL: no end stops */
    int gravity_compensation;   /* 1: e -= tau_g = -g mgz */
    const int *prescribed;      /* (n) or NULL: 1 where the coordinate follows a given motion (a moving base):
                                 * the law's value there is its acceleration u'_i, not an effort */
} mbs_effort_law;

/* The law's efforts (effort_laws.CoordinateEffortLaw.efforts); mgz: the weight term of (46), for gravity
 * compensation (NULL: the law must not compensate). */
void mbs_law_efforts(const mbs_effort_law *law, int n, const double *q, const double *u, const double *inputs,
                     const double *mgz, double *eff);
int mbs_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, double *rec, double *work);

/* What a tree carries besides joint efforts, for mbs_task_derivative (crane_models/models/flexible_crane/ is the
 * specification): point springs on one body, a programmed constraint on a point, friction in chosen joints. */
typedef struct {
    /* linear springs/dampers from points of spring_body to their rest points, along the Frame 0 axes (20) */
    int spring_body, n_springs;
    const double *spring_points, *spring_k, *spring_c;  /* (n_springs, 3) each, body coordinates / per axis */
    /* programmed constraint on the COG of point_body (a point mass: the end effector): 0 none, 1 ellipse (17.1) + quintic height (17.2), (22);
     * cpar = a, b, z_start, z_inc, t_c, alpha (x Phi), beta (x Phi'), Baumgarte (18.3)-(18.4) */
    int constraint_kind, point_body;
    double cpar[7];
    /* friction (13)-(15) in n_joints joints: 0 none, 1 Dahl, 2 LuGre, on the joints' coordinates */
    int friction_kind, n_joints, iterations;
    const int *joint_body, *joint_coord;
    const double *subtree_mass;  /* (n_joints, nb): m_b when body b is outboard of the joint */
    const double *pin_diameter, *mu_s, *mu_k, *sigma0, *sigma1, *sigma2, *gamma, *v_s;  /* (n_joints) */
} mbs_task;

int mbs_task_derivative(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                        double t, const double *z, double *rec, double *result, double *work);

/* Read-only pointers into a record's outputs (layout_of). */
typedef struct {
    const double *rot, *org, *cog, *P, *twist, *cogjac, *M, *mgz, *Minv, *Cu, *pdu;
} record_view;

static inline record_view view_of(const mbs_model *m, const double *rec) {
    const mbs_out o = layout_of(m, (double *)(rec + record_head(m))); /* read only */
    const record_view v = {o.rotation, o.origin, o.cog, o.P, o.twist, o.cogjac, o.M, o.mgz, o.Minv, o.Cu, o.pdu};
    return v;
}

int mbs_inertial_wrenches(const mbs_model *m, const double *rec, const double *udot, double *out);

/* An embedded explicit Runge-Kutta pair with FSAL (crane_models/simulation/integrators.py is the specification: the
 * tableau comes from there): stage s at t + c_s h from y + h sum_{j<s} a_sj K_j, the last stage's input is
 * the new solution, and h sum_s e_s K_s estimates the error of order `order`. */
typedef struct {
    int stages, order;
    const double *a;  /* (stages, stages), row-major, strictly lower */
    const double *c;  /* (stages) */
    const double *e;  /* (stages) */
} mbs_tableau;

/* mbs_integrate's step-size control of integrators._ExplicitPair; h carries over between calls, the counters accumulate.
 * max_steps bounds accepted + rejected steps of one call (integrators._spend_step): a step that cannot
 * advance t, or a huge interval, ends the call instead of running for hours. */
typedef struct {
    double rtol, atol, max_step, min_step, h, t;
    long evaluations, accepted, rejected, max_steps;
    const volatile int *cancel; /* NULL, or a flag another thread may set: checked before every trial step */
} mbs_stepper;

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
/* The doubles after rec_size in a record of a task's evaluation: z, then mbs_task_derivative's result (0 without a
 * task; steppers.c). */
int mbs_task_tail(const mbs_task *task);

/* Times closer than MBS_TIME_ULPS ulp of t are the same instant (simulation/step_control.py _rounding, TIME_ULPS,
 * says why): the end of a stepping interval within it counts as reached (steppers.c). */
#define MBS_TIME_ULPS 16.0
double mbs_time_rounding(double t);
/* Whether a step h from t reaches t_end: within mbs_time_rounding(t_end) or MBS_STEP_SLACK of the step (step_control.py
 * _reaches, STEP_SLACK). */
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
/* Entry point: mbs_integrate_rhs over mbs_derivative, or mbs_task_derivative when task is not NULL (steppers.c). */
int mbs_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                  const mbs_tableau *tab, mbs_stepper *st, double t, double t_end, double *y, double *k1,
                  double *recs, int rec_size, int rec_stride, int *final, double *model_work, double *work,
                  const mbs_lengths *len);

/* A tree's right-hand side for the steppers: mbs_derivative (task NULL, y = [q; u]) or mbs_task_derivative
 * (y = [q; u; z]); rec_size: doubles of the record before its tail (steppers.c). */
typedef struct {
    const mbs_model *m;
    const mbs_effort_law *law;
    const double *inputs;
    const mbs_task *task;
    int rec_size;
} tree_rhs;
int mbs_tree_eval(const void *ctx, double t, const double *y, double *ydot, double *rec, double *work);

/* Bristle rate (14) of joint jn of a task and its derivatives by the joint rate v and the deflection z (task.c). */
void mbs_bristle_jacobian(const mbs_task *task, int jn, double v, double z, double *dzdot_dv, double *dzdot_dz);

/* Dense LU with partial pivoting of a row-major n x n matrix, in place (lu.c); piv: the row exchanged with row k
 * at step k. Returns 0, or k + 1 when column k has no nonzero pivot (singular, or NaN). */
int mbs_lu_factor(int n, double *A, int *piv);
void mbs_lu_solve(int n, const double *LU, const int *piv, double *b);

/* d ydot / d y (size x size, row-major) of a tree's right-hand side at (t, y), ydot = f0 there, by forward or
 * (central = 1) central differences where it has no closed form (jacobian.c). */
int mbs_tree_jacobian(const tree_rhs *c, double t, const double *y, const double *f0, double *J, int central,
                      double *rec, double *model_work, double *work);

/* A linearly implicit Rosenbrock-W method (simulation/rosenbrock.py is the specification and gives the
 * coefficients; Hairer & Wanner IV.7 (7.4)):
 *   (I - h gamma J) k_i = h f(t + c_i h, y + sum_j alpha_ij k_j) + h J sum_j g_ij k_j,
 *   y_1 = y + sum_i b_i k_i,  error estimate sum_i e_i k_i. */
typedef struct {
    int stages, order;            /* order: of the error estimate's leading term (step-size controller) */
    double gamma;
    const double *alpha, *g;      /* (stages, stages), row-major, strictly lower */
    const double *b, *e, *c;      /* (stages) */
} mbs_wtableau;

/* What the stiff stepper keeps from one call to the next (rosenbrock.RosenbrockW's J, J_age, W^-1): the
 * Jacobian, its age in accepted steps, and the LU of the reduced iteration matrix with the step it is for. */
typedef struct {
    double *J;                    /* (size, size) */
    double *lu;                   /* (n + nx)^2, nx = size - 2 n */
    int *piv;                     /* (n + nx) */
    int have_J, J_age, max_age, lu_valid;
    double lu_h;
    long jacobians, jacobian_evaluations;
} mbs_implicit;

/* d ydot / d y of a right-hand side (f0 = ydot at (t, y)) into J; nonzero when it cannot be evaluated. */
typedef int (*mbs_jac)(const void *ctx, double t, const double *y, const double *f0, double *J, double *rec,
                       double *model_work, double *work);
int mbs_rosenbrock_rhs(mbs_rhs f, mbs_jac jac, const void *ctx, int n, int size, const mbs_wtableau *tab,
                       mbs_stepper *st, mbs_implicit *imp, double t, double t_end, double *y, double *k1,
                       double *recs, int rec_stride, int *final, double *model_work, double *work);
int mbs_rosenbrock_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                             const mbs_task *task, const mbs_wtableau *tab, mbs_stepper *st, mbs_implicit *imp,
                             double t, double t_end, double *y, double *k1, double *recs, int rec_size,
                             int rec_stride, int *final, double *model_work, double *work, const mbs_lengths *len);
int mbs_task_jacobian(const mbs_model *m, const mbs_effort_law *law, const double *inputs, const mbs_task *task,
                      int rec_size, double t, const double *y, const double *f0, double *J, int central, double *rec,
                      double *model_work, double *work);

/* A point-mass payload on a hoisting wire from the point `point` (body coordinates) of `body`, with a winch
 * and an optional compliant deck (payload.c; crane_models/core/payload.py is the specification). */
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
int mbs_payload_integrate(const mbs_model *m, const mbs_effort_law *law, const double *inputs,
                          const mbs_payload *pl, const mbs_tableau *tab, mbs_stepper *st, double t, double t_end,
                          double *y, double *k1, int signs, double *recs, int rec_size, int rec_stride, int *final,
                          double *model_work, double *work, const mbs_lengths *len);

/* Constraint forces, joint reactions and the loads of a crane on a moving base (reactions.c, where each is
 * described). The records are mirrored by core/native/wrenches.py. */
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

/* What a kernel exports. entry_points.py lists the entry points once; a build on ELF or Mach-O compiles with
 * -fvisibility=hidden and defines MBS_EXPORTS as MBS_EXPORT(name) for each of them (setup.py, fmi/platforms.py):
 * a redeclaration with default visibility, so exactly those names are exported (a name not declared above does
 * not compile). Windows builds give the linker the same list (/EXPORT, a .def file) and leave it undefined. */
#ifdef MBS_EXPORTS
#define MBS_EXPORT(f) __attribute__((visibility("default"))) __typeof__(f) f;
MBS_EXPORTS
#endif

#endif
