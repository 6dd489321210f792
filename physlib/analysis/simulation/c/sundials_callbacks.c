/* SUNDIALS callbacks that evaluate a compiled model's CasADi functions without Python.
 *
 * IDA and CVODE call their residual (right-hand side) and Jacobian functions one to two times
 * per step. Through ctypes each call costs a few microseconds of Python around well under a
 * microsecond of model evaluation. These callbacks do the same in C: copy SUNDIALS' vectors
 * into the inputs of a CasADi FunctionBuffer, evaluate it, copy its outputs back.
 *
 * Nothing is linked: the functions they need come as pointers in the user data, set by
 * physlib.analysis.simulation.compiled_callbacks -- CasADi's FunctionBuffer evaluation
 * (casadi::_function_buffer_eval, exported by libcasadi) and SUNDIALS' N_VGetArrayPointer.
 * The layout of PhyslibModel is mirrored there (ctypes.Structure); keep both in step.
 */
#include <math.h>
#include <string.h>

typedef void (*BufferEval)(void *buffer);
typedef double *(*ArrayPointer)(void *vector);

typedef struct {
    BufferEval eval;
    ArrayPointer array;
    long n;                 /* length of the solver's vectors */
    /* residual (IDA: y, y', t -> r, finite check) or right-hand side (CVODE: x, t -> x') */
    void *res;
    double *res_y, *res_yp, *res_t, *res_out, *res_check;
    /* Jacobian (IDA: y, t, cj; CVODE: x, t) -> dense n*n, column-major, into matrix */
    void *jac;
    double *jac_y, *jac_t, *jac_cj, *jac_out, *matrix;
} PhyslibModel;

static int jacobian(PhyslibModel *m, double t, double cj, void *y) {
    size_t nn = (size_t)(m->n * m->n);
    memcpy(m->jac_y, m->array(y), (size_t)m->n * sizeof(double));
    *m->jac_t = t;
    if (m->jac_cj) *m->jac_cj = cj;
    m->eval(m->jac);
    double sum = 0.0;
    for (size_t i = 0; i < nn; ++i) sum += m->jac_out[i];
    memcpy(m->matrix, m->jac_out, nn * sizeof(double));
    return isfinite(sum) ? 0 : 1;       /* 1: recoverable, the solver retries smaller */
}

int physlib_ida_residual(double t, void *yy, void *yp, void *rr, void *user) {
    PhyslibModel *m = (PhyslibModel *)user;
    size_t bytes = (size_t)m->n * sizeof(double);
    memcpy(m->res_y, m->array(yy), bytes);
    memcpy(m->res_yp, m->array(yp), bytes);
    *m->res_t = t;
    m->eval(m->res);
    if (*m->res_check != 0.0) return 1;     /* not finite (the check is NaN) */
    memcpy(m->array(rr), m->res_out, bytes);
    return 0;
}

int physlib_ida_jacobian(double t, double cj, void *yy, void *yp, void *rr, void *J, void *user,
                         void *t1, void *t2, void *t3) {
    (void)yp; (void)rr; (void)J; (void)t1; (void)t2; (void)t3;
    return jacobian((PhyslibModel *)user, t, cj, yy);
}

int physlib_cvode_rhs(double t, void *y, void *ydot, void *user) {
    PhyslibModel *m = (PhyslibModel *)user;
    size_t bytes = (size_t)m->n * sizeof(double);
    memcpy(m->res_y, m->array(y), bytes);
    *m->res_t = t;
    m->eval(m->res);
    if (*m->res_check != 0.0) return 1;
    memcpy(m->array(ydot), m->res_out, bytes);
    return 0;
}

int physlib_cvode_jacobian(double t, void *y, void *fy, void *J, void *user, void *t1, void *t2,
                           void *t3) {
    (void)fy; (void)J; (void)t1; (void)t2; (void)t3;
    return jacobian((PhyslibModel *)user, t, 0.0, y);
}
