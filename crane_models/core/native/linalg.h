/* Dense linear algebra of the kernel, the floor under everything else: Cholesky for the symmetric positive
 * definite mass matrices (cholesky.c), LU with partial pivoting for the stiff stepper's iteration matrix (lu.c).
 * Row-major arrays; no model, no state. See multibody.h. */
#ifndef CRANE_LINALG_H
#define CRANE_LINALG_H

/* Solve M X = B for a symmetric positive definite M (n x n, overwritten by its Cholesky factor) and nrhs
 * right-hand sides (B, X: n x nrhs, row-major); cholesky.c. Returns 0, or k + 1 when the k-th pivot is not
 * positive. */
int mbs_solve_spd(int n, int nrhs, double *M, const double *b, double *x);

/* Dense LU with partial pivoting of a row-major n x n matrix, in place (lu.c); piv: the row exchanged with row k
 * at step k. Returns 0, or k + 1 when column k has no nonzero pivot (singular, or NaN). */
int mbs_lu_factor(int n, double *A, int *piv);
void mbs_lu_solve(int n, const double *LU, const int *piv, double *b);

#endif
