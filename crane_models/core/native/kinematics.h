/* The model of a tree of rigid bodies, the record its evaluation fills and the kinematics walk every entry point
 * starts with (kinematics.c; Cibicik & Egeland 2018, eqs. (16)-(28), (44), (46)). Above the linear algebra
 * (linalg.h: M^-1), under the dynamics. See multibody.h. */
#ifndef CRANE_KINEMATICS_H
#define CRANE_KINEMATICS_H

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

/* Read-only pointers into a record's outputs (layout_of). */
typedef struct {
    const double *rot, *org, *cog, *P, *twist, *cogjac, *M, *mgz, *Minv, *Cu, *pdu;
} record_view;

static inline record_view view_of(const mbs_model *m, const double *rec) {
    const mbs_out o = layout_of(m, (double *)(rec + record_head(m))); /* read only */
    const record_view v = {o.rotation, o.origin, o.cog, o.P, o.twist, o.cogjac, o.M, o.mgz, o.Minv, o.Cu, o.pdu};
    return v;
}

#endif
