/* A frequency sweep of a banded pencil: out(:, :, k) = C X_k with (s_k E - A) X_k = B for every
 * frequency k.
 *
 * The frequencies go BLOCK at a time. A tridiagonal pencil (a ladder, a chain of stages) is
 * solved here, the block's systems interleaved: Gaussian elimination with LAPACK zgtsv's
 * partial pivoting (rows k and k + 1 swap when |dl_k| > |d_k|, |.| the sum of the absolute
 * values of real and imaginary part), each pivot inverted once. One system's elimination is
 * a chain of dependent divisions and products; eight independent ones keep the processor busy
 * where one leaves it waiting: 52 us per 5,000-state system against zgtsv's 136 us, measured.
 * A wider band goes to LAPACK's zgbsv, one call per frequency. LAPACK is SciPy's: its
 * functions come as pointers (scipy.linalg.cython_lapack), so nothing is linked. The block's
 * solutions stay in cache, and C times them is written BLOCK consecutive numbers per output
 * (the output's layout puts the frequencies fastest).
 *
 * Called from physlib.analysis.linear.frequency_response, which keeps a NumPy loop over
 * zgtsv/zgbsv for machines without a C compiler (the same pivots; results equal to rounding).
 */
#include <math.h>
#include <string.h>

#define BLOCK 8

typedef struct { double re, im; } Complex;
typedef void (*Zgbsv)(int *n, int *kl, int *ku, int *nrhs, Complex *ab, int *ldab, int *ipiv,
                      Complex *b, int *ldb, int *info);

static inline Complex mul(Complex a, Complex b) {
    Complex r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}
static inline Complex sub(Complex a, Complex b) {
    Complex r = {a.re - b.re, a.im - b.im};
    return r;
}
static inline double abs1(Complex a) { return fabs(a.re) + fabs(a.im); }
static inline int is_zero(Complex a) { return a.re == 0.0 && a.im == 0.0; }

/* 1 / b: conj(b) / |b|^2, or Smith's quotient where |b|^2 would overflow or underflow. */
static inline Complex reciprocal(Complex b) {
    double norm = b.re * b.re + b.im * b.im;
    Complex r;
    if (norm > 1e-290 && norm < 1e290) {
        double inv = 1.0 / norm;
        r.re = b.re * inv;
        r.im = -b.im * inv;
    } else if (fabs(b.re) >= fabs(b.im)) {
        double q = b.im / b.re, s = 1.0 / (b.re + b.im * q);
        r.re = s;
        r.im = -q * s;
    } else {
        double q = b.re / b.im, s = 1.0 / (b.im + b.re * q);
        r.re = q * s;
        r.im = -s;
    }
    return r;
}

/* BLOCK tridiagonal systems interleaved: entry k of system f at [k * BLOCK + f] of dl, d, du
 * (sub-, main, superdiagonal; dl becomes the second superdiagonal of U, as in zgtsv), inv
 * (the pivots' reciprocals, written over d: entry k of d is not read once its pivot is
 * found, and a million-state ladder's sweep held 64 MB more per thread for them); right-hand
 * side j at x[(j * n + k) * BLOCK + f], overwritten by the solution. singular[f] is set where
 * system f has a zero pivot. */
static void tridiagonal_block(int n, int m, Complex *dl, Complex *d, Complex *du, Complex *inv,
                              Complex *x, int *singular)
{
    size_t column = (size_t)n * BLOCK;
    for (int k = 0; k < n - 1; ++k)
        for (int f = 0; f < BLOCK; ++f) {
            size_t i = (size_t)k * BLOCK + f, next = i + BLOCK;
            if (abs1(d[i]) >= abs1(dl[i])) {            /* no interchange */
                if (is_zero(d[i])) singular[f] = 1;
                inv[i] = reciprocal(d[i]);
                Complex factor = mul(dl[i], inv[i]);
                d[next] = sub(d[next], mul(factor, du[i]));
                for (int j = 0; j < m; ++j) {
                    Complex *b = x + j * column;
                    b[next] = sub(b[next], mul(factor, b[i]));
                }
                dl[i].re = dl[i].im = 0.0;
            } else {                                    /* rows k and k + 1 interchanged */
                Complex pivot = reciprocal(dl[i]);
                Complex factor = mul(d[i], pivot), below = d[next];
                inv[i] = pivot;                         /* in d's place (inv is d) */
                d[next] = sub(du[i], mul(factor, below));
                if (k < n - 2) {
                    dl[i] = du[next];
                    Complex fill = mul(factor, dl[i]);
                    du[next].re = -fill.re;
                    du[next].im = -fill.im;
                } else {
                    dl[i].re = dl[i].im = 0.0;
                }
                du[i] = below;
                for (int j = 0; j < m; ++j) {
                    Complex *b = x + j * column, first = b[i];
                    b[i] = b[next];
                    b[next] = sub(first, mul(factor, b[next]));
                }
            }
        }
    for (int f = 0; f < BLOCK; ++f) {
        size_t last = (size_t)(n - 1) * BLOCK + f;
        if (is_zero(d[last])) singular[f] = 1;
        inv[last] = reciprocal(d[last]);
    }
    for (int j = 0; j < m; ++j) {                       /* back substitution */
        Complex *b = x + j * column;
        for (int f = 0; f < BLOCK; ++f) {
            size_t last = (size_t)(n - 1) * BLOCK + f;
            b[last] = mul(b[last], inv[last]);
            if (n > 1) {
                size_t i = last - BLOCK;
                b[i] = mul(sub(b[i], mul(du[i], b[last])), inv[i]);
            }
        }
        for (int k = n - 3; k >= 0; --k)
            for (int f = 0; f < BLOCK; ++f) {
                size_t i = (size_t)k * BLOCK + f;
                b[i] = mul(sub(sub(b[i], mul(du[i], b[i + BLOCK])), mul(dl[i], b[i + 2 * BLOCK])), inv[i]);
            }
    }
}

/* band_a, band_e: the pencil in LAPACK's band layout, rows x n in C order (row kl + ku + i - j
 * holds entry (i, j); the first kl rows are room for the fill). rhs: B, n x m, C order. s: the
 * nf values of s. C: p x n in compressed rows (c_start, c_column, c_value), real. out: element
 * (r, j, k) of the result at out[(r * m + j) * stride + k]. work: BLOCK * n * (m + 3) complex
 * numbers, and rows * n + n * m more where the pencil is not tridiagonal (zgbsv's band and
 * right-hand side); ipiv: n ints. Returns -1 when every frequency was solved, else the index of
 * the first whose matrix is singular (a pole). */
int physlib_band_sweep(Zgbsv gbsv, int n, int kl, int ku, int m, const double *band_a,
                       const double *band_e, const Complex *rhs, const Complex *s, int nf, int p,
                       const int *c_start, const int *c_column, const double *c_value, Complex *out,
                       long stride, Complex *work, int *ipiv)
{
    int rows = 2 * kl + ku + 1, tridiagonal = kl == 1 && ku == 1;
    size_t column = (size_t)n * BLOCK;
    Complex *x = work, *dl = x + column * m, *d = dl + column, *du = d + column, *inv = d;
    Complex *scratch = du + column;                     /* zgbsv's band and right-hand side */
    for (int first = 0; first < nf; first += BLOCK) {
        int count = nf - first < BLOCK ? nf - first : BLOCK, singular[BLOCK] = {0};
        Complex sk[BLOCK];
        for (int f = 0; f < BLOCK; ++f)     /* a partial last block solves its last s again */
            sk[f] = s[first + (f < count ? f : count - 1)];
        for (int i = 0; i < n; ++i)         /* B for each frequency, the frequencies fastest */
            for (int j = 0; j < m; ++j) {
                Complex *to = x + (j * (size_t)n + i) * BLOCK, value = rhs[(size_t)i * m + j];
                for (int f = 0; f < BLOCK; ++f) to[f] = value;
            }
        if (tridiagonal) {
            /* band rows 3, 2, 1: sub-, main and superdiagonal (entry (i, j) at row 2 + i - j) */
            for (int j = 0; j < n; ++j) {
                size_t at = 2 * (size_t)n + j, below = 3 * (size_t)n + j, above = (size_t)n + j + 1;
                Complex *dj = d + (size_t)j * BLOCK, *dlj = dl + (size_t)j * BLOCK, *duj = du + (size_t)j * BLOCK;
                for (int f = 0; f < BLOCK; ++f) {
                    dj[f].re = sk[f].re * band_e[at] - band_a[at];
                    dj[f].im = sk[f].im * band_e[at];
                }
                if (j < n - 1)
                    for (int f = 0; f < BLOCK; ++f) {
                        dlj[f].re = sk[f].re * band_e[below] - band_a[below];
                        dlj[f].im = sk[f].im * band_e[below];
                        duj[f].re = sk[f].re * band_e[above] - band_a[above];
                        duj[f].im = sk[f].im * band_e[above];
                    }
            }
            tridiagonal_block(n, m, dl, d, du, inv, x, singular);
        } else {
            for (int f = 0; f < BLOCK; ++f) {
                Complex *band = scratch, *b = scratch + (size_t)rows * n;
                for (int r = 0; r < rows; ++r)          /* column-major, as LAPACK wants it */
                    for (int j = 0; j < n; ++j) {
                        size_t from = (size_t)r * n + j, to = (size_t)r + (size_t)j * rows;
                        band[to].re = sk[f].re * band_e[from] - band_a[from];
                        band[to].im = sk[f].im * band_e[from];
                    }
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < m; ++j) b[i + (size_t)j * n] = rhs[(size_t)i * m + j];
                int info = 0, nrhs = m, ldb = n, ldab = rows;
                gbsv(&n, &kl, &ku, &nrhs, band, &ldab, ipiv, b, &ldb, &info);
                if (info != 0) singular[f] = 1;
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < m; ++j) x[(j * (size_t)n + i) * BLOCK + f] = b[i + (size_t)j * n];
            }
        }
        for (int f = 0; f < count; ++f)
            if (singular[f]) return first + f;
        for (int r = 0; r < p; ++r)
            for (int j = 0; j < m; ++j) {
                Complex *o = out + ((size_t)r * m + j) * stride + first;
                const Complex *xj = x + j * column;
                for (int f = 0; f < count; ++f) {
                    double re = 0.0, im = 0.0;
                    for (int q = c_start[r]; q < c_start[r + 1]; ++q) {
                        const Complex v = xj[(size_t)c_column[q] * BLOCK + f];
                        re += c_value[q] * v.re;
                        im += c_value[q] * v.im;
                    }
                    o[f].re = re;
                    o[f].im = im;
                }
            }
    }
    return -1;
}
