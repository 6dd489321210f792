/* Banded solves of a frequency sweep: (s_k E - A) X_k = B for every frequency of a chunk.
 *
 * One LAPACK call per frequency (zgtsv for a tridiagonal pencil, zgbsv otherwise, both with
 * partial pivoting) costs 75 us for 5,000 states; the Python around it (filling the band,
 * copying the right-hand side in and the solution out, f2py's checks) cost as much again.
 * Here the same calls run in one loop. LAPACK is SciPy's: its functions come as pointers
 * (scipy.linalg.cython_lapack), so nothing is linked. Called from
 * physlib.analysis.linear.frequency_response, which keeps a NumPy loop for machines
 * without a C compiler; both make the same LAPACK calls on the same numbers.
 */
#include <string.h>

typedef struct { double re, im; } Complex;
typedef void (*Zgbsv)(int *n, int *kl, int *ku, int *nrhs, Complex *ab, int *ldab, int *ipiv,
                      Complex *b, int *ldb, int *info);
typedef void (*Zgtsv)(int *n, int *nrhs, Complex *dl, Complex *d, Complex *du, Complex *b,
                      int *ldb, int *info);

/* band_a, band_e: the pencil in LAPACK's band layout, rows x n in C order (row kl + ku + i - j
 * holds entry (i, j); the first kl rows are room for the fill). rhs: n x m, C order. s: the
 * nf values of s. out: element (i, j, k) of the solutions at out[(i * m + j) * stride + k].
 * work: rows * n + n * m complex numbers; ipiv: n ints. Returns -1 when every frequency was
 * solved, else the index of the first whose matrix is singular (a pole). */
int physlib_band_sweep(Zgbsv gbsv, Zgtsv gtsv, int n, int kl, int ku, int m,
                       const double *band_a, const double *band_e, const Complex *rhs,
                       const Complex *s, int nf, Complex *out, long stride, Complex *work, int *ipiv)
{
    int rows = 2 * kl + ku + 1, info = 0, nrhs = m, ldb = n, ldab = rows;
    Complex *band = work, *b = work + (size_t)rows * n;
    for (int k = 0; k < nf; ++k) {
        double sr = s[k].re, si = s[k].im;
        /* LAPACK wants the band in column-major order: entry (r, j) at r + j * rows */
        for (int r = 0; r < rows; ++r)
            for (int j = 0; j < n; ++j) {
                size_t from = (size_t)r * n + j, to = (size_t)r + (size_t)j * rows;
                band[to].re = sr * band_e[from] - band_a[from];
                band[to].im = si * band_e[from];
            }
        for (int i = 0; i < n; ++i)             /* B, column-major */
            for (int j = 0; j < m; ++j) b[i + (size_t)j * n] = rhs[(size_t)i * m + j];
        if (kl == 1 && ku == 1) {
            /* tridiagonal: sub-, main and superdiagonal are band rows 3, 2 and 1 (gtsv
               overwrites them; the band is rebuilt for the next frequency anyway) */
            Complex *dl = work + (size_t)rows * n + (size_t)n * m;   /* 3 n scratch numbers */
            Complex *d = dl + n, *du = d + n;
            for (int j = 0; j < n; ++j) {
                d[j] = band[2 + (size_t)j * rows];
                if (j < n - 1) {
                    dl[j] = band[3 + (size_t)j * rows];
                    du[j] = band[1 + (size_t)(j + 1) * rows];
                }
            }
            gtsv(&n, &nrhs, dl, d, du, b, &ldb, &info);
        } else {
            gbsv(&n, &kl, &ku, &nrhs, band, &ldab, ipiv, b, &ldb, &info);
        }
        if (info != 0) return k;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < m; ++j) out[((size_t)i * m + j) * stride + k] = b[i + (size_t)j * n];
    }
    return -1;
}
