/* Cholesky solves for the symmetric positive definite mass matrices (M^-1 in kinematics.c, M udot = rhs in
 * dynamics.c, the Schur complements of a moving base in reactions.c): the bottom floor with lu.c. See linalg.h. */
#include "multibody.h"

/* a . b with four partial sums (the dot products of the Cholesky factorization: vectorizable). */
static double dot(const double *a, const double *b, int len) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= len; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < len; k++) s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

/* Solve M X = B for a symmetric positive definite M (n x n, overwritten by its Cholesky factor L, with 1/L_jj
 * on the diagonal) and nrhs right-hand sides (B, X: n x nrhs, row-major). Returns 0, or k + 1 when the k-th
 * pivot is not positive. */
int mbs_solve_spd(int n, int nrhs, double *M, const double *b, double *x) {
    for (int j = 0; j < n; j++) {
        const double d = M[j * n + j] - dot(M + j * n, M + j * n, j);
        if (!(d > 0.0)) return j + 1;
        const double inv = 1.0 / sqrt(d);
        M[j * n + j] = inv; /* the reciprocal pivot: multiplications instead of divisions below */
        for (int i = j + 1; i < n; i++) M[i * n + j] = (M[i * n + j] - dot(M + i * n, M + j * n, j)) * inv;
    }
    /* L y = b, then L^T x = y, all right-hand sides together (rows of x are contiguous) */
    for (int i = 0; i < n; i++) {
        double *xi = x + i * nrhs;
        for (int r = 0; r < nrhs; r++) xi[r] = b[i * nrhs + r];
        for (int k = 0; k < i; k++) {
            const double l = M[i * n + k], *xk = x + k * nrhs;
            for (int r = 0; r < nrhs; r++) xi[r] -= l * xk[r];
        }
        for (int r = 0; r < nrhs; r++) xi[r] *= M[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double *xi = x + i * nrhs;
        for (int k = i + 1; k < n; k++) {
            const double l = M[k * n + i], *xk = x + k * nrhs;
            for (int r = 0; r < nrhs; r++) xi[r] -= l * xk[r];
        }
        for (int r = 0; r < nrhs; r++) xi[r] *= M[i * n + i];
    }
    return 0;
}
