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
typedef void (*SetArrayPointer)(double *data, void *vector);
typedef double (*WrmsNorm)(void *vector, void *weights);
typedef int (*CurrentIteration)(void *solver, int *m);

/* Newton's convergence test (physlib_ida_newton_test) */
#define SUN_NLS_CONTINUE 901
#define SUN_NLS_CONV_RECVR 902
#define RATE_MAX 0.9
#define RATE_MIN 0.1

typedef struct {
    BufferEval eval;
    ArrayPointer array;
    long n;                 /* length of the solver's vectors */
    /* residual (IDA: y, y', t -> r, finite check) or right-hand side (CVODE: x, t -> x') */
    void *res;
    double *res_y, *res_yp, *res_t, *res_out, *res_check;
    /* Jacobian (IDA: y, t, cj; CVODE: x, t) -> its jac_size stored entries (dense: n*n,
       column-major; sparse: the nonzeros in compressed-column order), into matrix */
    void *jac;
    double *jac_y, *jac_t, *jac_cj, *jac_out, *matrix;
    long jac_size;
    /* a large Jacobian's compressed-column pattern (SUNDIALS' sunindextype, 32 bits in
       scikit-sundae's build); a sparse matrix's is written again at every evaluation: the
       solvers zero the whole matrix, pattern included, before they ask for the Jacobian.
       pattern_columns is 0 for a dense or band one. */
    const int *colind, *row;
    int *matrix_colind, *matrix_row;
    long pattern_columns;
    /* a band matrix: where each of the jac_size entries goes in its storage (the solvers zero
       the rest); NULL otherwise */
    const long *place;
    /* a linear model (physlib.analysis.simulation.stepping_functions.LinearResidual):
       F = J y + F(0, 0) (+ y' on the first rows_with_rates rows), J's entries lin_values on
       the pattern above, F(0, 0) in off_out (set at each restart), whose off_count rows
       off_rows read time: the function off (of t in off_t) gives their values in off_values;
       and the Jacobian J + cj I into jac_out, cj added at the entries lin_diagonal (the
       diagonal of those rows); NULL: the residual and Jacobian functions are evaluated (res
       and jac are not set otherwise) */
    const double *lin_values;
    void *off;
    double *off_t, *off_out, *off_values;
    const long *off_rows;
    long off_count;
    long rows_with_rates;
    const long *lin_diagonal;
    /* IDA's Newton convergence test (physlib_ida_newton_test): SUNDIALS' N_VWrmsNorm and
       SUNNonlinSolGetCurIter, and the norm of the solve's first correction */
    WrmsNorm wrms_norm;
    CurrentIteration current_iteration;
    double first_norm;
} PhyslibModel;

/* J y + F(0, 0) (+ y'), in the order of SciPy's compressed-column product (column by column
   from zeros) and then the sums, as the Python twin does it: the same numbers bit for bit
   (the file is built with -ffp-contract=off, so no fused multiply-add). */
static int linear_residual(PhyslibModel *m, double t, const double *y, const double *yp, double *r) {
    long n = m->n;
    if (m->off_count) {
        *m->off_t = t;
        m->eval(m->off);
        for (long k = 0; k < m->off_count; ++k) m->off_out[m->off_rows[k]] = m->off_values[k];
    }
    memset(r, 0, (size_t)n * sizeof(double));
    for (long j = 0; j < n; ++j) {
        double yj = y[j];
        for (int k = m->colind[j]; k < m->colind[j + 1]; ++k) r[m->row[k]] += m->lin_values[k] * yj;
    }
    for (long i = 0; i < n; ++i) r[i] += m->off_out[i];
    if (yp)
        for (long i = 0; i < m->rows_with_rates; ++i) r[i] += yp[i];
    for (long i = 0; i < n; ++i)
        if (!isfinite(r[i])) return 1;
    return 0;
}

static int jacobian(PhyslibModel *m, double t, double cj, void *y) {
    size_t nn = (size_t)m->jac_size;
    if (m->lin_values) {    /* as LinearResidual.jacobian */
        memcpy(m->jac_out, m->lin_values, nn * sizeof(double));
        for (long i = 0; i < m->rows_with_rates; ++i) m->jac_out[m->lin_diagonal[i]] += cj;
    } else {
        memcpy(m->jac_y, m->array(y), (size_t)m->n * sizeof(double));
        *m->jac_t = t;
        if (m->jac_cj) *m->jac_cj = cj;
        m->eval(m->jac);
    }
    double sum = 0.0;
    for (size_t i = 0; i < nn; ++i) sum += m->jac_out[i];
    if (m->place)
        for (size_t i = 0; i < nn; ++i) m->matrix[m->place[i]] = m->jac_out[i];
    else
        memcpy(m->matrix, m->jac_out, nn * sizeof(double));
    if (m->pattern_columns) {
        memcpy(m->matrix_colind, m->colind, (size_t)(m->pattern_columns + 1) * sizeof(int));
        memcpy(m->matrix_row, m->row, nn * sizeof(int));
    }
    return isfinite(sum) ? 0 : 1;       /* 1: recoverable, the solver retries smaller */
}

int physlib_ida_residual(double t, void *yy, void *yp, void *rr, void *user) {
    PhyslibModel *m = (PhyslibModel *)user;
    if (m->lin_values) return linear_residual(m, t, m->array(yy), m->array(yp), m->array(rr));
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

/* IDA's Newton convergence test (ida_nls.c) with one change: a solve is accepted on a
   convergence rate measured in it, never on one carried over from earlier steps. IDA accepts
   after the first iteration when s * |correction| <= tol, s = rate/(1 - rate) from the last
   solve that took two or more; while steps of one size converge at their first iteration, s
   is never renewed and the Jacobian never re-evaluated, so a stale Jacobian's corrections
   pass. An algebraic variable (out of the error test) then drifts off its equation: a Zener
   clipper at rtol 1e-8 left its equation by amperes and ran on. Here the first correction is
   accepted only if it would be within tol at the worst rate the iteration tolerates
   (RATE_MAX: corrections at rounding level, which need not contract, pass), and the second
   measures the rate, taken no
   smaller than RATE_MIN: two corrections from a Jacobian far from the root (where an
   exponential is steep every correction is small) measured 4.5e-4 and stopped 10 tolerances
   off, and no two corrections promise more than a tenfold gain per iteration. The Python
   twin is physlib.analysis.simulation.callbacks.PythonCallbacks.ida_newton_test. */
int physlib_ida_newton_test(void *solver, void *ycor, void *del, double tol, void *ewt, void *user) {
    (void)ycor;
    PhyslibModel *m = (PhyslibModel *)user;
    double norm = m->wrms_norm(del, ewt);
    int iteration = 0;
    m->current_iteration(solver, &iteration);
    if (iteration == 0) {
        m->first_norm = norm;
        return RATE_MAX / (1.0 - RATE_MAX) * norm <= tol ? 0 : SUN_NLS_CONTINUE;
    }
    double rate = pow(norm / m->first_norm, 1.0 / iteration);
    if (rate > RATE_MAX) return SUN_NLS_CONV_RECVR;
    if (rate < RATE_MIN) rate = RATE_MIN;
    return rate / (1.0 - rate) * norm <= tol ? 0 : SUN_NLS_CONTINUE;
}

int physlib_cvode_rhs(double t, void *y, void *ydot, void *user) {
    PhyslibModel *m = (PhyslibModel *)user;
    if (m->lin_values) return linear_residual(m, t, m->array(y), NULL, m->array(ydot));
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

/* ---- The stepping loop of a run between events (IDA) ------------------------------------
 *
 * physlib_advance takes IDA's internal steps towards `target` and, after each, evaluates the
 * guards and their crossing test (a CasADi FunctionBuffer, as the callbacks above) and
 * interpolates the output rows the step passed into a block's columns (IDAGetSolution: y and
 * y'), returning to Python only when something needs it: a guard crossed, the target reached,
 * the block full, a row exactly at a step, a failed step, or `yield_steps` steps taken (for
 * the progress line and the step limit). Where the run has a PhyslibCourse, a target that is
 * a time event's left limit is not an end: the event is taken here when it takes its quick
 * course (time_event below) and the loop runs on to the next. The layouts of
 * PhyslibRun and PhyslibCourse are mirrored in physlib.analysis.simulation.compiled_stepping
 * and .compiled_time_events (ctypes.Structure); keep them in step. */

typedef int (*IdaSolve)(void *mem, double tout, double *tret, void *yret, void *ypret, int itask);
typedef int (*IdaGetSolution)(void *mem, double t, void *y, void *yp);
typedef int (*IdaGetLastStep)(void *mem, double *h);
typedef int (*IdaReInit)(void *mem, double t0, void *y, void *yp);
typedef int (*IdaSetReal)(void *mem, double value);        /* IDASetInitStep, IDASetStopTime */
typedef int (*IdaGetLong)(void *mem, long *value);          /* IDA's counters */

enum {
    RUN_REACHED = 0,        /* t_now >= target, guards checked, outputs through target done */
    RUN_CROSSED = 1,        /* a guard crossed within (t_prev, t_now]: outputs of that step not done */
    RUN_BLOCK_FULL = 2,     /* the row block is full: flush it and call again */
    RUN_ROW_AT_STEP = 3,    /* grid[next_output] == t_now: record the step's own row, call again */
    RUN_STALLED = 4,        /* a step that no longer moves the time */
    RUN_YIELD = 5,          /* yield_steps steps taken */
    RUN_NO_INTERPOLATION = 6,
    RUN_EVENTS_FULL = 7     /* the course's event records are full: Python takes them, calls again */
};

#define N_COUNTERS 5            /* IDA's steps, residual evaluations, setups, error test fails, iterations */
#define EPS 2.220446049250313e-16

/* A time event's quick course in C (physlib.analysis.simulation.quick_time_events.
   QuickTimeEvents and the run's restart after it, operation for operation), and what Python
   needs to record each event taken: its rows, its rounds' mode codes, the solver's counters. */
typedef struct {
    /* the run's time events and their left limits; `next` is the one ahead; the run's end */
    const double *times, *left;
    long n_events, next;
    double run_end;
    int user_grid;          /* rows around events only at output times */
    /* the solver */
    IdaReInit reinit;
    IdaSetReal set_init_step, set_stop_time;
    IdaGetLastStep current_step;
    IdaGetLong counter[N_COUNTERS];
    long counts[N_COUNTERS];            /* summed over the solver segments ended here */
    double *res_p, *jac_p;              /* the residual's and Jacobian's parameter vectors */
    long n_p;
    /* the unrolled Newton solve (z, x, p, t) -> (z_next, done) */
    void *newton;
    double *nw_z, *nw_x, *nw_p, *nw_t, *nw_z_next, *nw_done;
    /* one round (x, z, p, pre, t, band) -> (p_next, g, rates, flags) */
    void *round;
    double *rd_x, *rd_z, *rd_p, *rd_pre, *rd_t, *rd_band, *rd_p_next, *rd_g, *rd_rates, *rd_flags;
    const long *slots;                  /* the mode slots of p */
    long n_slots;
    double zero_band;
    long quick_rounds, unrolled_calls;  /* QUICK_ROUNDS, and UNROLLED_CALLS of a solve */
    double *p_now;                      /* n_p values of scratch */
    /* the events taken since Python last looked */
    long capacity, taken;
    double *ev_t;
    long *ev_rows;                      /* the block's rows before the event's own */
    long *ev_rounds;                    /* rounds that changed modes */
    double *ev_codes;                   /* capacity x quick_rounds x n_slots: codes after each */
    double *ev_y;                       /* capacity x n: x and z at the left limit */
    double *ev_z;                       /* capacity x nz: z after the event */
    long *ev_row_after;                 /* whether the row after it is recorded */
    /* the last restart, for a retry when its first step fails: t, y, y', first step */
    double start_t, start_h;
    double *start_y, *start_yp;
} PhyslibCourse;

typedef struct {
    BufferEval eval;
    ArrayPointer array;
    void *mem;
    IdaSolve solve;
    IdaGetSolution get_solution;
    IdaGetLastStep get_last_step;
    void *y, *yp;
    long n, nx;
    /* guards: FunctionBuffer (x, z, p, t, g_ref, mask, band, noise) -> (g, crossed, any,
       watched g_ref, watched mask) */
    void *check;
    double *check_x, *check_z, *check_t, *g_ref, *mask, *any, *watched, *watched_mask;
    long n_guards;
    /* output rows */
    const double *grid;
    long n_grid, next_output;
    SetArrayPointer set_array;  /* SUNDIALS' N_VSetArrayPointer */
    void *row_vy, *row_vyp;     /* two SUNDIALS vectors, moved onto each row's column */
    double *row_y, *row_yp;     /* the block's columns, n numbers each (column-major) */
    double *row_t, *row_h;
    double *row_p;              /* each row's parameter vector (n_p values), copied from p */
    const double *p;
    long n_p;
    long rows, row_capacity;
    /* the run */
    double target, below, t_prev, t_now;
    int pending;            /* the outputs of the last step are not done */
    long steps, steps_since_output, yield_steps;
    int stepped;            /* a step taken since the solver's last start */
    PhyslibCourse *course;  /* time events taken here, or NULL */
} PhyslibRun;

static int run_outputs(PhyslibRun *r) {
    double limit = r->t_now < r->target ? r->t_now : r->target;
    double h = -1.0;
    while (r->next_output < r->n_grid) {
        double t = r->grid[r->next_output];
        if (!(t <= limit && t < r->below)) break;
        if (t == r->t_now) return RUN_ROW_AT_STEP;
        if (r->rows == r->row_capacity) return RUN_BLOCK_FULL;
        if (h < 0.0 && r->get_last_step(r->mem, &h) != 0) h = 0.0;
        r->set_array(r->row_y + r->rows * r->n, r->row_vy);
        /* a model without algebraic variables reads no row's y' (its rows are the states):
           each goes to the first column, not to fresh memory (output_rows.RowBlock) */
        r->set_array(r->row_yp + (r->n > r->nx ? r->rows * r->n : 0), r->row_vyp);
        if (r->get_solution(r->mem, t, r->row_vy, r->row_vyp) != 0)
            return RUN_NO_INTERPOLATION;
        r->row_t[r->rows] = t;
        r->row_h[r->rows] = h > 1e-300 ? h : 1e-300;
        memcpy(r->row_p + r->rows * r->n_p, r->p, (size_t)r->n_p * sizeof(double));
        r->rows += 1;
        r->next_output += 1;
        r->steps_since_output = 0;
    }
    return RUN_REACHED;
}

static int all_finite(const double *v, long n) {
    for (long i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* FastFunction.iterate of the unrolled Newton solve from the z, x, p and t in its inputs:
   1 if it converged (its z_next the solution), 0 where Python's general solve would go on */
static int solve_z(PhyslibRun *r, PhyslibCourse *c, long nz) {
    for (long calls = 0; calls < c->unrolled_calls; ++calls) {
        r->eval(c->newton);
        if (*c->nw_done != 0.0) return 1;
        if (!all_finite(c->nw_z_next, nz)) return 0;
        memcpy(c->nw_z, c->nw_z_next, (size_t)nz * sizeof(double));
    }
    return 0;
}

/* The time event ahead at the run's point, its left limit: QuickTimeEvents.__call__ and then
   _HybridRun._time_event's rows and restart. RUN_REACHED where it does not take the quick
   course (nothing changed: Python takes the event), -1 taken, or a failed IDAReInit's flag. */
static int time_event(PhyslibRun *r, PhyslibCourse *c) {
    long k = c->next, n = r->n, nx = r->nx, nz = n - nx, np_ = c->n_p, ns = c->n_slots;
    size_t dx = (size_t)nx * sizeof(double), dz = (size_t)nz * sizeof(double), dp = (size_t)np_ * sizeof(double);
    double te = c->times[k], h_next = 0.0;
    /* the restart's first step: half the planned one, which must be known and not rounding */
    if (!r->stepped || c->current_step(r->mem, &h_next) != 0 || !(0.5 * h_next > 1e3 * EPS * fabs(te)))
        return RUN_REACHED;
    if (r->next_output < r->n_grid && r->grid[r->next_output] < te) return RUN_REACHED;
    double *y = r->array(r->y), *yp = r->array(r->yp);
    memcpy(c->nw_z, y + nx, dz);
    memcpy(c->nw_x, y, dx);
    memcpy(c->nw_p, r->p, dp);
    *c->nw_t = te;
    if (!solve_z(r, c, nz)) return RUN_REACHED;
    memcpy(c->p_now, r->p, dp);
    double *codes = c->ev_codes + c->taken * c->quick_rounds * ns;
    long rounds = 0;
    for (;;) {
        memcpy(c->rd_x, y, dx);
        memcpy(c->rd_z, c->nw_z_next, dz);
        memcpy(c->rd_p, c->p_now, dp);
        memcpy(c->rd_pre, r->p, dp);
        *c->rd_t = te;
        *c->rd_band = c->zero_band;
        r->eval(c->round);
        if (c->rd_flags[2] == 0.0) return RUN_REACHED;         /* outputs not finite */
        if (c->rd_flags[0] == 0.0) break;                       /* nothing more changes */
        if (c->rd_flags[1] == 0.0 || rounds == c->quick_rounds) return RUN_REACHED;
        for (long s = 0; s < ns; ++s) {
            c->p_now[c->slots[s]] = c->rd_p_next[c->slots[s]];
            codes[rounds * ns + s] = c->p_now[c->slots[s]];
        }
        rounds += 1;
        memcpy(c->nw_z, c->nw_z_next, dz);
        memcpy(c->nw_x, y, dx);
        memcpy(c->nw_p, c->p_now, dp);
        *c->nw_t = te;
        if (!solve_z(r, c, nz)) return RUN_REACHED;
    }
    if (c->rd_flags[3] != 0.0) return RUN_REACHED;             /* a guard to settle */
    /* taken: its record (the rows around it are Python's to make) */
    long e = c->taken++;
    c->ev_t[e] = te;
    c->ev_rows[e] = r->rows;
    c->ev_rounds[e] = rounds;
    memcpy(c->ev_y + e * n, y, (size_t)n * sizeof(double));
    memcpy(c->ev_z + e * nz, c->nw_z_next, dz);
    c->ev_row_after[e] = 0;
    if (r->next_output < r->n_grid && r->grid[r->next_output] == te) {
        c->ev_row_after[e] = 1;
        r->next_output += 1;
    } else if (!c->user_grid)
        c->ev_row_after[e] = 1;
    /* the new modes everywhere the run reads them; the guards watched from here, none masked */
    memcpy(r->p, c->p_now, dp);
    memcpy(c->res_p, c->p_now, dp);
    memcpy(c->jac_p, c->p_now, dp);
    memcpy(r->g_ref, c->rd_g, (size_t)r->n_guards * sizeof(double));
    for (long i = 0; i < r->n_guards; ++i) r->mask[i] = 0.0;
    /* the restart (_HybridRun._restart, Stepper.restart): the counters of the segment ended,
       the consistent point with the round's rates (z' = 0 where they are not finite) */
    for (int i = 0; i < N_COUNTERS; ++i) {
        long value = 0;
        c->counter[i](r->mem, &value);
        c->counts[i] += value;
    }
    memcpy(y + nx, c->nw_z_next, dz);
    memcpy(yp, c->rd_rates, (size_t)n * sizeof(double));
    if (c->rd_flags[4] == 0.0)
        for (long i = nx; i < n; ++i) yp[i] = 0.0;
    c->start_t = te;
    c->start_h = 0.5 * h_next;
    memcpy(c->start_y, y, (size_t)n * sizeof(double));
    memcpy(c->start_yp, yp, (size_t)n * sizeof(double));
    int flag = c->reinit(r->mem, te, r->y, r->yp);
    if (flag != 0) return flag < 0 ? flag : -flag;
    c->set_init_step(r->mem, c->start_h);
    r->t_prev = r->t_now = te;
    r->stepped = 0;
    r->steps_since_output = 0;
    c->next = k + 1;
    r->target = r->below = c->next < c->n_events ? c->left[c->next] : c->run_end;
    c->set_stop_time(r->mem, r->target);
    return -1;
}

int physlib_advance(PhyslibRun *r) {
    long taken = 0;
    size_t nx = (size_t)r->nx, nz = (size_t)(r->n - r->nx), ng = (size_t)r->n_guards;
    for (;;) {
        if (r->pending) {
            int status = run_outputs(r);
            if (status != RUN_REACHED) return status;
            r->pending = 0;
        }
        if (r->t_now >= r->target) {
            PhyslibCourse *c = r->course;
            if (!c || c->next >= c->n_events || r->target != c->left[c->next]) return RUN_REACHED;
            int status = time_event(r, c);
            if (status != -1) return status;
            if (c->taken == c->capacity) return RUN_EVENTS_FULL;
            continue;
        }
        if (taken >= r->yield_steps) return RUN_YIELD;
        double tret = r->t_now;
        int flag = r->solve(r->mem, r->target, &tret, r->y, r->yp, 2 /* IDA_ONE_STEP */);
        if (flag < 0) return flag;
        r->t_prev = r->t_now;
        r->t_now = tret;
        r->stepped = 1;
        r->steps += 1;
        r->steps_since_output += 1;
        taken += 1;
        if (tret < r->target && tret - r->t_prev <= 4 * EPS * fabs(tret))
            return RUN_STALLED;
        double *y = r->array(r->y);
        memcpy(r->check_x, y, nx * sizeof(double));
        memcpy(r->check_z, y + nx, nz * sizeof(double));
        *r->check_t = tret;
        r->eval(r->check);
        if (*r->any > 0.5) return RUN_CROSSED;
        memcpy(r->g_ref, r->watched, ng * sizeof(double));
        memcpy(r->mask, r->watched_mask, ng * sizeof(double));
        r->pending = 1;
    }
}
