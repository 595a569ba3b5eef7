/* The accelerations of a tree whose coordinates are a linear image of fewer ones, q = P q_r (FlexibleCrane's
 * modally reduced link: models/flexible_crane/reduction.py builds P). Kane's equations projected on the reduced
 * speeds (the partial velocities of u_r are those of u times P):
 *   (P^T M P) u_r' = P^T (tau - C u + forces of the load case) - D u,
 * with M by the composite-rigid-body algorithm in Frame 0 and the velocity and gravity terms by one Newton-Euler
 * pass, then the full accelerations u' = P u_r' and the bodies' spatial accelerations by one forward pass per
 * load case: the same outputs as the articulated-body solve of task.c, which continues from them. Above the
 * Cholesky solve, under task.c. See task.h. */
#include "multibody.h"

static void mat6vec_(const double *A, const double *x, double *y) {
    for (int i = 0; i < 6; i++)
        y[i] = A[6 * i] * x[0] + A[6 * i + 1] * x[1] + A[6 * i + 2] * x[2] + A[6 * i + 3] * x[3]
             + A[6 * i + 4] * x[4] + A[6 * i + 5] * x[5];
}

static double dot6_(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

int mbs_reduced_work_size(const mbs_model *m, const mbs_task *task) {
    const int n = m->n, nr = task->n_reduced, nc = 3 + task->n_joints;
    return n * n + n * nr + nr * nr + (n + 2 * nr) * nc + 48 * m->nb;
}

int mbs_reduced_cases(const mbs_model *m, const mbs_task *task, const double *S, const double *c, const double *I6,
                      const double *pA, const double *eff, const double *u, const double *A0, const double *wrench,
                      int mc, int ncase, double *QDD, double *A) {
    const int n = m->n, nb = m->nb, nr = task->n_reduced;
    const int *rp = task->reduction_rows, *col = task->reduction_cols;
    const double *val = task->reduction_values;
    double *M = task->reduced_work, *MP = M + n * n, *Mr = MP + n * nr, *Q = Mr + nr * nr, *Qr = Q + n * ncase;
    double *X = Qr + nr * ncase, *Ic = X + nr * ncase, *F = Ic + 36 * nb, *Ab = F + 6 * nb;
    /* the velocity and gravity terms: Newton-Euler with u' = 0 and the root accelerating at A0 (+g e_z) */
    for (int k = 0; k < nb; k++) {
        const int par = m->parent[k];
        double *a = Ab + 6 * k, h[6];
        for (int i = 0; i < 6; i++) a[i] = (par < 0 ? A0[i] : Ab[6 * par + i]) + c[6 * k + i];
        mat6vec_(I6 + 36 * k, a, h);
        for (int i = 0; i < 6; i++) F[6 * k + i] = h[i] + pA[6 * k + i];
    }
    memset(Q, 0, sizeof(double) * n * ncase);
    memcpy(Ic, I6, sizeof(double) * 36 * nb);
    for (int k = nb - 1; k >= 0; k--) {
        const int par = m->parent[k], ck = m->coord[k];
        if (ck >= 0) Q[ck * ncase] = eff[ck] - dot6_(S + 6 * k, F + 6 * k);
        if (par < 0) continue;
        for (int i = 0; i < 6; i++) F[6 * par + i] += F[6 * k + i];
        for (int i = 0; i < 36; i++) Ic[36 * par + i] += Ic[36 * k + i];
    }
    /* the unit loads: a force on the point (its wrench about the origin on every joint inboard), a joint torque */
    for (int cs = 1; cs < ncase; cs++) {
        if (cs <= mc) {
            const double *w = wrench + 6 * (cs - 1);
            for (int k = task->point_body; k >= 0; k = m->parent[k])
                if (m->coord[k] >= 0) Q[m->coord[k] * ncase + cs] = dot6_(S + 6 * k, w);
        } else {
            Q[task->joint_coord[cs - 1 - mc] * ncase + cs] = 1.0;
        }
    }
    /* M by composite rigid bodies: M_ij = S_j^T Ic_i S_i for j inboard of (or at) i */
    memset(M, 0, sizeof(double) * n * n);
    for (int k = 0; k < nb; k++) {
        const int ck = m->coord[k];
        if (ck < 0) continue;
        double Fk[6];
        mat6vec_(Ic + 36 * k, S + 6 * k, Fk);
        for (int a = k; a >= 0; a = m->parent[a]) {
            const int ca = m->coord[a];
            if (ca < 0) continue;
            M[ck * n + ca] = M[ca * n + ck] = dot6_(S + 6 * a, Fk);
        }
    }
    /* P^T M P and P^T Q (P sparse by columns: MP's column b, kept as row b of MP, is a sum of rows of the
     * symmetric M, contiguous), the reduced damping -D u */
    const int *cp = task->column_starts, *crow = task->column_rows;
    const double *cval = task->column_values;
    memset(MP, 0, sizeof(double) * n * nr);
    for (int b = 0; b < nr; b++) {
        double *y = MP + (long)b * n;
        for (int p = cp[b]; p < cp[b + 1]; p++) {
            const double v = cval[p], *row = M + (long)crow[p] * n;
            for (int k = 0; k < n; k++) y[k] += v * row[k];
        }
    }
    for (int a = 0; a < nr; a++) {
        for (int b = a; b < nr; b++) {
            const double *y = MP + (long)b * n;
            double s = 0.0;
            for (int p = cp[a]; p < cp[a + 1]; p++) s += cval[p] * y[crow[p]];
            Mr[a * nr + b] = Mr[b * nr + a] = s;
        }
        for (int cs = 0; cs < ncase; cs++) {
            double s = 0.0;
            for (int p = cp[a]; p < cp[a + 1]; p++) s += cval[p] * Q[crow[p] * ncase + cs];
            Qr[a * ncase + cs] = s;
        }
    }
    if (task->reduced_damping)
        for (int a = 0; a < nr; a++) {
            const double *d = task->reduced_damping + (long)a * n;
            double s = 0.0;
            for (int i = 0; i < n; i++) s += d[i] * u[i];
            Qr[a * ncase] -= s;
        }
    if (mbs_solve_spd(nr, ncase, Mr, Qr, X)) return -1;
    /* u' = P u_r' per load case and the bodies' spatial accelerations */
    for (int cs = 0; cs < ncase; cs++) {
        double *qdd = QDD + n * cs, *Ac = A + 6 * nb * cs;
        for (int k = 0; k < n; k++) {
            double s = 0.0;
            for (int p = rp[k]; p < rp[k + 1]; p++) s += val[p] * X[col[p] * ncase + cs];
            qdd[k] = s;
        }
        for (int k = 0; k < nb; k++) {
            const int par = m->parent[k], ck = m->coord[k];
            double *Ak = Ac + 6 * k;
            for (int i = 0; i < 6; i++)
                Ak[i] = (par < 0 ? (cs == 0 ? A0[i] : 0.0) : Ac[6 * par + i]) + (cs == 0 ? c[6 * k + i] : 0.0);
            if (ck >= 0)
                for (int i = 0; i < 6; i++) Ak[i] += S[6 * k + i] * qdd[ck];
        }
    }
    return 0;
}

void mbs_reduced_accelerations(const mbs_task *task, int ncase, int mc, const double *lam, const double *tf,
                               const mbs_model *m, double *out) {
    const int n = m->n, nr = task->n_reduced, nj = task->n_joints;
    const double *X = task->reduced_work + n * n + n * nr + nr * nr + (n + nr) * ncase;
    for (int a = 0; a < nr; a++) {
        const double *x = X + a * ncase;
        double s = x[0];
        for (int r = 0; r < mc; r++) s += x[1 + r] * lam[r];
        for (int k = 0; k < nj; k++) s += x[1 + mc + k] * tf[k];
        out[a] = s;
    }
}
