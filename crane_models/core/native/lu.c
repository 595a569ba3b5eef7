/* Dense LU factorization with partial pivoting and its solve: the iteration matrix of the stiff stepper
 * (rosenbrock.c), n + n_joints unknowns (57 with 16 elements, 195 with 64).
 *
 * Why not LAPACK: numpy and scipy bundle OpenBLAS as a library with a hashed file name inside their wheels
 * (numpy.libs/libscipy_openblas64_-<hash>.so, 64-bit integers, prefixed and suffixed symbol names), found
 * only through Python at run time, different on every platform and absent from the kernel's cross-builds
 * (fmi/platforms.py), which link nothing but libm; at these sizes a plain loop is as fast as a BLAS call.
 * The algorithm is the outer-product form with row interchanges (Golub & Van Loan, Matrix Computations,
 * sec. 3.4), as LAPACK's dgetf2: piv[k] is the row exchanged with row k at step k. tests/test_stiff_kernel.py checks it
 * against numpy.linalg.solve. See multibody.h. */
#include "multibody.h"

int mbs_lu_factor(int n, double *A, int *piv) {
    for (int k = 0; k < n; k++) {
        int p = k;
        double big = fabs(A[k * n + k]);
        for (int i = k + 1; i < n; i++) {
            const double v = fabs(A[i * n + k]);
            if (v > big) { big = v; p = i; }
        }
        piv[k] = p;
        if (!(big > 0.0) || !isfinite(big)) return k + 1;
        if (p != k)
            for (int j = 0; j < n; j++) { const double x = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = x; }
        const double inv = 1.0 / A[k * n + k];
        const double *rk = A + k * n;
        for (int i = k + 1; i < n; i++) {
            double *ri = A + i * n;
            const double l = ri[k] *= inv;
            if (l != 0.0)
                for (int j = k + 1; j < n; j++) ri[j] -= l * rk[j];
        }
    }
    return 0;
}

/* b <- A^-1 b from mbs_lu_factor's LU and pivots. */
void mbs_lu_solve(int n, const double *LU, const int *piv, double *b) {
    for (int k = 0; k < n; k++)
        if (piv[k] != k) { const double x = b[k]; b[k] = b[piv[k]]; b[piv[k]] = x; }
    for (int i = 1; i < n; i++) {
        const double *ri = LU + i * n;
        double s = b[i];
        for (int j = 0; j < i; j++) s -= ri[j] * b[j];
        b[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        const double *ri = LU + i * n;
        double s = b[i];
        for (int j = i + 1; j < n; j++) s -= ri[j] * b[j];
        b[i] = s / ri[i];
    }
}
