/* FMI 2.0 Model Exchange interface of a model exported by physlib.
 *
 * The model's equations are CasADi functions code-generated into physlib_functions.c
 * (evaluate, start, guards, directional, transitions, updates, next_time, impacts_first,
 * project); physlib_model.h holds the sizes, the table of variables and the compiled-in
 * parameter values. This file is the same for every model.
 *
 * What the FMU holds: the time t, the states x, the parameter vector p (parameters, the
 * inputs chosen from them, and the modes and discrete variables of hybrid components) and
 * the last solution z of the algebraic equations (the warm start of the next Newton solve).
 * Everything else (derivatives, variable values, event indicators) is evaluated from them
 * when asked for and kept until t, x or p change.
 *
 * Event iteration (fmi2NewDiscreteStates) mirrors physlib's simulator: one round asks every
 * hybrid component for its next modes (transitions, with pre() the values before the event
 * and the guards that crossed zero since the last completed step) and the sampled ones for
 * their discrete values at their sample instants (updates); releases of mode constraints wait
 * while other changes impose one (impacts_first); a round that changes something
 * projects the states onto the mode constraints just made active (project: the nearest
 * state in the metric of stored energy) and solves the algebraic variables again; the
 * importer repeats until nothing changes. A guard left at zero gets a settling look a moment
 * later (schedule_settling), as the simulator's settling after an event. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "physlib_model.h"
#include "physlib_functions.c"

#define ARRAY_SIZE(n) ((n) > 0 ? (n) : 1)
#define CONVERGED 1.0           /* evaluate's convergence measure at most this: a solution */
#define MAX_ROUNDS (4 * (NMODES + 2))
#define DAMPED_ITERATIONS 100   /* iterations of the damped Newton method at most */
#define ZERO_BAND 1e-10         /* a guard this close to zero after an event sits at zero */
#define SETTLE_DELAY 1e-8       /* [s] the settling look after an event (the simulator's 100·event_tol) */

enum { KIND_STATE, KIND_DERIVATIVE, KIND_PARAMETER, KIND_INPUT, KIND_VALUE, KIND_DISCRETE };
enum { PHASE_INSTANTIATED, PHASE_INITIALIZATION, PHASE_EVENT, PHASE_CONTINUOUS, PHASE_TERMINATED };

typedef int (*KernelFunction)(const casadi_real **arg, casadi_real **res, casadi_int *iw,
                              casadi_real *w, int mem);
typedef int (*KernelWork)(casadi_int *sz_arg, casadi_int *sz_res, casadi_int *sz_iw,
                          casadi_int *sz_w);

/* One code-generated function with its own work arrays. */
typedef struct {
    KernelFunction function;
    const casadi_real **arg;
    casadi_real **res;
    casadi_int *iw;
    casadi_real *w;
} Kernel;

/* Everything an FMU state (fmi2GetFMUstate) must restore. */
typedef struct {
    double t;
    double x[ARRAY_SIZE(NX)], z[ARRAY_SIZE(NZ)], p[ARRAY_SIZE(NP)], pre[ARRAY_SIZE(NP)];
    double g_ref[ARRAY_SIZE(NG)];
    /* the last event's fired guards and their values before it, for the settling look */
    double fired_last[ARRAY_SIZE(NG)], g_before[ARRAY_SIZE(NG)];
    double next_event, settle_at;
    int phase, iterating, rounds, settling;
} Snapshot;

typedef struct {
    Snapshot s;
    double xdot[ARRAY_SIZE(NX)], values[ARRAY_SIZE(NV)], g[ARRAY_SIZE(NG)];
    double fired[ARRAY_SIZE(NG)], p_new[ARRAY_SIZE(NP)], p_updated[ARRAY_SIZE(NP)];
    double dx[ARRAY_SIZE(NX)], dp[ARRAY_SIZE(NP)], d_ode[ARRAY_SIZE(NX)], d_values[ARRAY_SIZE(NV)];
    /* scratch of the solves and the event rounds, here rather than on the stack: a model of
     * many states or parameters would overflow an importer thread's stack */
    double z_work[ARRAY_SIZE(NZ)], x_start[ARRAY_SIZE(NX)], z_start[ARRAY_SIZE(NZ)];
    double g_work[ARRAY_SIZE(NZ)], step[ARRAY_SIZE(NZ)], trial[ARRAY_SIZE(NZ)], weights[ARRAY_SIZE(NZ)];
    double p_before[ARRAY_SIZE(NP)], x_before[ARRAY_SIZE(NX)];
    double convergence;     /* evaluate's measure: at most CONVERGED for a solution */
    int evaluated;
    int start_stale;        /* in Initialization Mode: parameters set since the start values */
    Kernel evaluate, start, guards, directional, transitions, updates, next_time, impacts_first, project;
    Kernel newton_step, residual_of;
    fmi2CallbackFunctions callbacks;
    char *name;
    int logging;
} Instance;

static void log_message(Instance *m, fmi2Status status, const char *category, const char *format, ...) {
    char text[1024];
    va_list args;
    if (status == fmi2OK && !m->logging) return;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (m->callbacks.logger)
        m->callbacks.logger(m->callbacks.componentEnvironment, m->name, status, category, "%s", text);
}

static int kernel_init(Instance *m, Kernel *k, KernelFunction function, KernelWork work) {
    casadi_int n_arg, n_res, n_iw, n_w;
    work(&n_arg, &n_res, &n_iw, &n_w);
    k->function = function;
    k->arg = m->callbacks.allocateMemory((size_t)n_arg + 1, sizeof(casadi_real *));
    k->res = m->callbacks.allocateMemory((size_t)n_res + 1, sizeof(casadi_real *));
    k->iw = m->callbacks.allocateMemory((size_t)n_iw + 1, sizeof(casadi_int));
    k->w = m->callbacks.allocateMemory((size_t)n_w + 1, sizeof(casadi_real));
    return k->arg && k->res && k->iw && k->w;
}

static void kernel_free(Instance *m, Kernel *k) {
    m->callbacks.freeMemory((void *)k->arg);
    m->callbacks.freeMemory(k->res);
    m->callbacks.freeMemory(k->iw);
    m->callbacks.freeMemory(k->w);
}

static int kernel_call(Kernel *k) { return k->function(k->arg, k->res, k->iw, k->w, 0); }

static int all_finite(const double *v, int n) {
    int i;
    for (i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Solve the algebraic variables from z_guess and evaluate derivatives and values. */
static int solve_from(Instance *m, const double *z_guess, double *z_out) {
    Kernel *k = &m->evaluate;
    k->arg[0] = m->s.x; k->arg[1] = z_guess; k->arg[2] = m->s.p; k->arg[3] = &m->s.t;
    k->res[0] = z_out; k->res[1] = m->xdot; k->res[2] = m->values; k->res[3] = &m->convergence;
    if (kernel_call(k)) return 0;
    return m->convergence <= CONVERGED && all_finite(z_out, NZ) && all_finite(m->xdot, NX)
           && all_finite(m->values, NV);
}

/* The start state physlib computes from the parameters: discrete variables from the parameters
 * they start from, states and algebraic guesses from start(p, t). */
static fmi2Status start_state(Instance *m) {
    Kernel *k = &m->start;
    int i;
    for (i = 0; i < NDISCRETE_START; i++) m->s.p[DISCRETE_START[i][0]] = m->s.p[DISCRETE_START[i][1]];
    k->arg[0] = m->s.p; k->arg[1] = &m->s.t; k->res[0] = m->s.x; k->res[1] = m->s.z;
    if (kernel_call(k)) return fmi2Error;
    m->start_stale = 0;
    m->evaluated = 0;
    return fmi2OK;
}

/* The 2-norm of the residuals g(x, z) weighted row by row (weights: see damped_newton). */
static double weighted_norm(Instance *m, const double *z, const double *weights) {
    double *g = m->g_work, sum = 0.0;
    Kernel *k = &m->residual_of;
    int i;
    k->arg[0] = m->s.x; k->arg[1] = z; k->arg[2] = m->s.p; k->arg[3] = &m->s.t; k->res[0] = g;
    if (kernel_call(k)) return INFINITY;
    for (i = 0; i < NZ; i++) sum += (weights[i] * g[i]) * (weights[i] * g[i]);
    return isfinite(sum) ? sqrt(sum) : INFINITY;
}

/* Newton's method with backtracking from z, as physlib's damped Newton: the line search on
 * the residuals weighted by 1 / Σ_j |∂g_i/∂z_j| at the start (each equation in the units of
 * the unknowns: a junction charge's row in coulombs weighs as a node's current balance), for
 * where the undamped code-generated Newton overshoots (exponential junction laws far from
 * the root). Returns 1 with z where the steps have come down to rounding; the undamped Newton
 * then finishes and checks. */
static int damped_newton(Instance *m, double *z) {
    double *step = m->step, *trial = m->trial, *weights = m->weights, norm = INFINITY, trial_norm, lam;
    Kernel *k = &m->newton_step;
    int iteration, i;
    for (iteration = 0; iteration < DAMPED_ITERATIONS; iteration++) {
        k->arg[0] = m->s.x; k->arg[1] = z; k->arg[2] = m->s.p; k->arg[3] = &m->s.t;
        k->res[0] = step; k->res[1] = iteration == 0 ? weights : NULL;
        if (kernel_call(k) || !all_finite(step, NZ)) return 0;
        if (iteration == 0) {
            for (i = 0; i < NZ; i++) weights[i] = weights[i] > 0 ? 1.0 / weights[i] : 1.0;
            norm = weighted_norm(m, z, weights);
        }
        for (i = 0; i < NZ && fabs(step[i]) <= 1e-10 * (1.0 + fabs(z[i])); i++) {}
        if (i == NZ) return 1;
        for (lam = 1.0; lam > 1e-10; lam *= 0.5) {
            for (i = 0; i < NZ; i++) trial[i] = z[i] + lam * step[i];
            trial_norm = weighted_norm(m, trial, weights);
            if (trial_norm <= (1.0 - 1e-4 * lam) * norm) break;
        }
        if (lam <= 1e-10) return 0;
        memcpy(z, trial, sizeof(double) * NZ);
        norm = trial_norm;
    }
    return 0;
}

/* Bring derivatives and values up to date: Newton from the last solution; if that fails, a
 * damped Newton from it, then from the start values physlib gives at this point. In Initialization Mode the values are
 * those of the start state for the parameters set so far. */
static fmi2Status evaluate(Instance *m) {
    double *z = m->z_work, *x0 = m->x_start, *z0 = m->z_start;
    if (m->s.phase == PHASE_INITIALIZATION && m->start_stale && start_state(m) != fmi2OK) return fmi2Error;
    if (m->evaluated) return fmi2OK;
    memcpy(z0, m->s.z, sizeof(double) * NZ);
    if (!solve_from(m, m->s.z, z) && !(damped_newton(m, z0) && solve_from(m, z0, z))) {
        Kernel *k = &m->start;
        k->arg[0] = m->s.p; k->arg[1] = &m->s.t; k->res[0] = x0; k->res[1] = z0;
        if (kernel_call(k) || !(solve_from(m, z0, z) || (damped_newton(m, z0) && solve_from(m, z0, z)))) {
            log_message(m, fmi2Error, "logStatusError",
                        "t = %.10g s: the algebraic equations have no solution near the last one "
                        "(convergence measure %g, at most 1 for a solution) or a variable is not finite", m->s.t, m->convergence);
            return fmi2Error;
        }
    }
    memcpy(m->s.z, z, sizeof(double) * NZ);
    m->evaluated = 1;
    return fmi2OK;
}

static fmi2Status evaluate_guards(Instance *m) {
    Kernel *k = &m->guards;
    if (evaluate(m) != fmi2OK) return fmi2Error;
    k->arg[0] = m->s.x; k->arg[1] = m->s.z; k->arg[2] = m->s.p; k->arg[3] = &m->s.t;
    k->res[0] = m->g;
    return kernel_call(k) ? fmi2Error : fmi2OK;
}

static int guard_crossed(double reference, double now) {
    return (reference > 0 && now <= 0) || (reference < 0 && now >= 0);
}

static double next_time_event(Instance *m) {
    double next = INFINITY;
    Kernel *k = &m->next_time;
    k->arg[0] = m->s.p; k->arg[1] = &m->s.t; k->res[0] = &next;
    if (kernel_call(k)) return INFINITY;
    return next;
}

/* ------------------------------------------------------------------------------------------ */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t n, const fmi2String categories[]) {
    (void)n; (void)categories;
    ((Instance *)c)->logging = loggingOn;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
    Instance *m;
    int ok;
    (void)fmuResourceLocation; (void)visible;
    if (!functions || !functions->allocateMemory || !functions->freeMemory) return NULL;
    if (fmuType != fmi2ModelExchange || strcmp(fmuGUID, MODEL_GUID) != 0) {
        if (functions->logger)
            functions->logger(functions->componentEnvironment, instanceName, fmi2Error, "logStatusError",
                              fmuType != fmi2ModelExchange
                                  ? "this FMU is for Model Exchange only (physlib exports no Co-Simulation)"
                                  : "GUID %s does not match this binary's %s", fmuGUID, MODEL_GUID);
        return NULL;
    }
    m = functions->allocateMemory(1, sizeof(Instance));
    if (!m) return NULL;
    m->callbacks = *functions;
    m->logging = loggingOn;
    m->name = functions->allocateMemory(strlen(instanceName) + 1, 1);
    if (m->name) strcpy(m->name, instanceName);
    ok = m->name != NULL;
    ok = ok && kernel_init(m, &m->evaluate, model_evaluate, model_evaluate_work);
    ok = ok && kernel_init(m, &m->start, model_start, model_start_work);
    ok = ok && kernel_init(m, &m->guards, model_guards, model_guards_work);
    ok = ok && kernel_init(m, &m->directional, model_directional, model_directional_work);
    ok = ok && kernel_init(m, &m->transitions, model_transitions, model_transitions_work);
    ok = ok && kernel_init(m, &m->updates, model_updates, model_updates_work);
    ok = ok && kernel_init(m, &m->next_time, model_next_time, model_next_time_work);
    ok = ok && kernel_init(m, &m->impacts_first, model_impacts_first, model_impacts_first_work);
    ok = ok && kernel_init(m, &m->project, model_project, model_project_work);
    ok = ok && kernel_init(m, &m->newton_step, model_newton_step, model_newton_step_work);
    ok = ok && kernel_init(m, &m->residual_of, model_residual, model_residual_work);
    if (!ok) {
        fmi2FreeInstance(m);
        return NULL;
    }
    memcpy(m->s.p, P_DEFAULT, sizeof(double) * NP);
    m->s.next_event = m->s.settle_at = INFINITY;
    m->s.phase = PHASE_INSTANTIATED;
    return m;
}

void fmi2FreeInstance(fmi2Component c) {
    Instance *m = c;
    if (!m) return;
    kernel_free(m, &m->evaluate);
    kernel_free(m, &m->start);
    kernel_free(m, &m->guards);
    kernel_free(m, &m->directional);
    kernel_free(m, &m->transitions);
    kernel_free(m, &m->updates);
    kernel_free(m, &m->next_time);
    kernel_free(m, &m->impacts_first);
    kernel_free(m, &m->project);
    kernel_free(m, &m->newton_step);
    kernel_free(m, &m->residual_of);
    m->callbacks.freeMemory(m->name);
    m->callbacks.freeMemory(m);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    Instance *m = c;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    m->s.t = startTime;
    m->evaluated = 0;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    Instance *m = c;
    m->s.phase = PHASE_INITIALIZATION;
    m->start_stale = 1;
    return fmi2OK;
}

/* The start state for the parameters as set, the algebraic variables solved. The initial
 * event iteration follows in fmi2NewDiscreteStates (the FMU is in Event Mode after this call). */
fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    Instance *m = c;
    if (start_state(m) != fmi2OK || evaluate(m) != fmi2OK) return fmi2Error;
    if (evaluate_guards(m) != fmi2OK) return fmi2Error;
    memcpy(m->s.g_ref, m->g, sizeof(double) * NG);
    m->s.phase = PHASE_EVENT;
    m->s.iterating = 0;
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c) {
    ((Instance *)c)->s.phase = PHASE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
    Instance *m = c;
    memset(&m->s, 0, sizeof m->s);
    memcpy(m->s.p, P_DEFAULT, sizeof(double) * NP);
    m->s.next_event = m->s.settle_at = INFINITY;
    m->s.phase = PHASE_INSTANTIATED;
    m->evaluated = 0;
    return fmi2OK;
}

/* --- variables ----------------------------------------------------------------------------- */

static int valid_reference(Instance *m, fmi2ValueReference vr) {
    if (vr < NVARS) return 1;
    log_message(m, fmi2Error, "logStatusError", "unknown value reference %u", (unsigned)vr);
    return 0;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    Instance *m = c;
    size_t i;
    if (nvr == 0) return fmi2OK;
    if (m->s.phase != PHASE_INSTANTIATED && evaluate(m) != fmi2OK) return fmi2Error;
    for (i = 0; i < nvr; i++) {
        int index;
        if (!valid_reference(m, vr[i])) return fmi2Error;
        index = VAR_INDEX[vr[i]];
        switch (VAR_KIND[vr[i]]) {
        case KIND_STATE: value[i] = m->s.x[index]; break;
        case KIND_DERIVATIVE: value[i] = m->xdot[index]; break;
        case KIND_PARAMETER: case KIND_INPUT: case KIND_DISCRETE: value[i] = m->s.p[index]; break;
        default:
            value[i] = m->s.phase == PHASE_INSTANTIATED ? 0.0 : VAR_SIGN[vr[i]] * m->values[index];
        }
    }
    return fmi2OK;
}

/* Whether a parameter may take ``value``: finite, and of the sign its declaration asks (the
 * checks physlib's params= makes; those across parameters are not in the FMU). */
static int parameter_value_allowed(Instance *m, fmi2ValueReference vr, double value) {
    int rule = VAR_RULE[vr], ok;
    if (rule == 0) return 1;
    switch (RULE_SIGN[rule - 1]) {
    case 1: ok = value > 0; break;
    case 2: ok = value >= 0; break;
    case 3: ok = value != 0; break;
    default: ok = 1;
    }
    if (ok && isfinite(value)) return 1;
    log_message(m, fmi2Error, "logStatusError", "parameter %s, got %g; it keeps %g",
                RULE_TEXT[rule - 1], value, m->s.p[VAR_INDEX[vr]]);
    return 0;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    Instance *m = c;
    size_t i;
    for (i = 0; i < nvr; i++) {
        int kind;
        if (!valid_reference(m, vr[i])) return fmi2Error;
        kind = VAR_KIND[vr[i]];
        if (kind == KIND_PARAMETER && !parameter_value_allowed(m, vr[i], value[i])) return fmi2Error;
        if (kind == KIND_INPUT || (kind == KIND_PARAMETER && (m->s.phase == PHASE_INSTANTIATED
                                                           || m->s.phase == PHASE_INITIALIZATION))) {
            m->s.p[VAR_INDEX[vr[i]]] = value[i];
        } else {
            log_message(m, fmi2Error, "logStatusError",
                        "value reference %u cannot be set now (only parameters before initialization, "
                        "inputs at any time; states through fmi2SetContinuousStates)", (unsigned)vr[i]);
            return fmi2Error;
        }
    }
    m->evaluated = 0;
    m->start_stale = 1;
    return fmi2OK;
}

static fmi2Status no_such_variables(Instance *m, size_t nvr, const char *type) {
    if (nvr == 0) return fmi2OK;
    log_message(m, fmi2Error, "logStatusError", "this FMU has no %s variables", type);
    return fmi2Error;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "Integer");
}
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "Boolean");
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "String");
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "Integer");
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "Boolean");
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
    (void)vr; (void)value;
    return no_such_variables(c, nvr, "String");
}

/* --- FMU state ----------------------------------------------------------------------------- */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *state) {
    Instance *m = c;
    Snapshot *s = *state ? *state : m->callbacks.allocateMemory(1, sizeof(Snapshot));
    if (!s) return fmi2Error;
    *s = m->s;
    *state = s;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate state) {
    Instance *m = c;
    if (!state) return fmi2Error;
    m->s = *(Snapshot *)state;
    m->evaluated = 0;
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *state) {
    Instance *m = c;
    if (state && *state) {
        m->callbacks.freeMemory(*state);
        *state = NULL;
    }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate state, size_t *size) {
    (void)c; (void)state;
    *size = sizeof(Snapshot) + sizeof(MODEL_GUID);
    return fmi2OK;
}

/* The bytes of the snapshot after the GUID, so a state is never restored into another model. */
fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate state, fmi2Byte bytes[], size_t size) {
    (void)c;
    if (size < sizeof(Snapshot) + sizeof(MODEL_GUID)) return fmi2Error;
    memcpy(bytes, MODEL_GUID, sizeof(MODEL_GUID));
    memcpy(bytes + sizeof(MODEL_GUID), state, sizeof(Snapshot));
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size, fmi2FMUstate *state) {
    Instance *m = c;
    if (size != sizeof(Snapshot) + sizeof(MODEL_GUID) || memcmp(bytes, MODEL_GUID, sizeof(MODEL_GUID)) != 0) {
        log_message(m, fmi2Error, "logStatusError", "the serialized state is not one of this FMU's");
        return fmi2Error;
    }
    if (!*state) *state = m->callbacks.allocateMemory(1, sizeof(Snapshot));
    if (!*state) return fmi2Error;
    memcpy(*state, bytes + sizeof(MODEL_GUID), sizeof(Snapshot));
    return fmi2OK;
}

/* --- directional derivatives ------------------------------------------------------------ */

/* d unknowns along the direction dvKnown of the knowns (states, inputs, parameters), by CasADi's
 * forward mode through the Newton solution. */
fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[]) {
    Instance *m = c;
    Kernel *k = &m->directional;
    size_t i;
    if (evaluate(m) != fmi2OK) return fmi2Error;
    memset(m->dx, 0, sizeof m->dx);
    memset(m->dp, 0, sizeof m->dp);
    for (i = 0; i < nKnown; i++) {
        int kind;
        if (!valid_reference(m, vKnown_ref[i])) return fmi2Error;
        kind = VAR_KIND[vKnown_ref[i]];
        if (kind == KIND_STATE) m->dx[VAR_INDEX[vKnown_ref[i]]] += dvKnown[i];
        else if (kind == KIND_INPUT || kind == KIND_PARAMETER) m->dp[VAR_INDEX[vKnown_ref[i]]] += dvKnown[i];
        else {
            log_message(m, fmi2Error, "logStatusError",
                        "value reference %u is not a state, input or parameter", (unsigned)vKnown_ref[i]);
            return fmi2Error;
        }
    }
    k->arg[0] = m->s.x; k->arg[1] = m->s.z; k->arg[2] = m->s.p; k->arg[3] = &m->s.t;
    k->arg[4] = m->dx; k->arg[5] = m->dp;
    k->res[0] = m->d_ode; k->res[1] = m->d_values;
    if (kernel_call(k)) return fmi2Error;
    for (i = 0; i < nUnknown; i++) {
        int index;
        if (!valid_reference(m, vUnknown_ref[i])) return fmi2Error;
        index = VAR_INDEX[vUnknown_ref[i]];
        switch (VAR_KIND[vUnknown_ref[i]]) {
        case KIND_STATE: dvUnknown[i] = m->dx[index]; break;
        case KIND_DERIVATIVE: dvUnknown[i] = m->d_ode[index]; break;
        case KIND_VALUE: dvUnknown[i] = VAR_SIGN[vUnknown_ref[i]] * m->d_values[index]; break;
        default: dvUnknown[i] = m->dp[index];
        }
    }
    return fmi2OK;
}

/* --- Model Exchange ---------------------------------------------------------------------- */

fmi2Status fmi2EnterEventMode(fmi2Component c) {
    Instance *m = c;
    m->s.phase = PHASE_EVENT;
    m->s.iterating = 0;
    return fmi2OK;
}

/* One round of the event iteration; *changed tells whether a mode or discrete value changed. */
static fmi2Status event_round(Instance *m, int *changed, int *states_changed) {
    Kernel *k;
    int i;
    double *p_before = m->p_before, *x_before = m->x_before;
    if (evaluate(m) != fmi2OK) return fmi2Error;
    k = &m->transitions;
    k->arg[0] = m->values; k->arg[1] = m->s.p; k->arg[2] = m->s.pre; k->arg[3] = m->fired;
    k->res[0] = m->p_new;
    if (kernel_call(k)) return fmi2Error;
    k = &m->updates;
    k->arg[0] = m->values; k->arg[1] = m->s.p; k->arg[2] = m->s.pre; k->arg[3] = &m->s.t;
    k->res[0] = m->p_updated;
    if (kernel_call(k)) return fmi2Error;
    *changed = 0;
    for (i = 0; i < NP; i++) {
        /* modes come from transitions, discrete values from updates (disjoint slots) */
        if (m->p_updated[i] != m->s.p[i]) m->p_new[i] = m->p_updated[i];
        if (m->p_new[i] != m->s.p[i]) *changed = 1;
    }
    if (!*changed) return fmi2OK;
    /* impulses before forces: releases wait while other changes impose a constraint */
    k = &m->impacts_first;
    k->arg[0] = m->s.x; k->arg[1] = m->s.z; k->arg[2] = m->s.p; k->arg[3] = m->p_new; k->arg[4] = &m->s.t;
    k->res[0] = m->p_updated;
    if (kernel_call(k)) return fmi2Error;
    memcpy(m->p_new, m->p_updated, sizeof(double) * NP);
    memcpy(p_before, m->s.p, sizeof(double) * NP);
    memcpy(m->s.p, m->p_new, sizeof(double) * NP);
    memcpy(x_before, m->s.x, sizeof(double) * NX);
    if (NX > 0) {
        k = &m->project;
        k->arg[0] = x_before; k->arg[1] = m->s.z; k->arg[2] = m->s.p; k->arg[3] = &m->s.t;
        k->arg[4] = p_before; k->res[0] = m->s.x;
        if (kernel_call(k) || !all_finite(m->s.x, NX)) {
            log_message(m, fmi2Error, "logStatusError",
                        "t = %.10g s: projecting the states onto the new mode constraints failed", m->s.t);
            return fmi2Error;
        }
        for (i = 0; i < NX; i++)
            if (m->s.x[i] != x_before[i]) *states_changed = 1;
    }
    m->evaluated = 0;
    return evaluate(m);
}

static double sign_of(double v) { return (double)((v > 0) - (v < 0)); }

/* Which guards fired at the start of an event. At a crossing (or a time event): those whose
 * sign changed since the reference values. At the settling look: those that fired at the
 * event before, ended it at zero and are now back on the side they came from (a crossing
 * that went straight back), as the simulator's settling; a guard away from zero fires if it
 * crossed. */
static void fired_guards(Instance *m) {
    int i;
    for (i = 0; i < NG; i++) {
        if (m->s.settling && fabs(m->s.g_ref[i]) <= ZERO_BAND) {
            m->fired[i] = m->s.fired_last[i] != 0 && m->g[i] != 0
                          && sign_of(m->g[i]) == sign_of(m->s.g_before[i]);
            if (m->fired[i]) m->s.g_before[i] = -sign_of(m->g[i]);
        } else {
            m->fired[i] = guard_crossed(m->s.g_ref[i], m->g[i]);
            if (!m->s.settling) m->s.g_before[i] = m->s.g_ref[i];
        }
        m->s.fired_last[i] = m->fired[i];
    }
}

/* After an event whose iteration leaves a guard at zero, the settling look SETTLE_DELAY later
 * (a time event the importer steps to, so the look is at the state its own integration
 * reaches): a guard that left zero on the side calling for another mode (a clutch whose
 * normal force starts to rise from zero at a ramp's start, a rectifier whose source starts at
 * 0 V) changes that mode there, as the simulator's settling does, instead of at the end of
 * whatever step the importer takes next. A look that changes something is an event like any
 * other and gets a look of its own; one that changes nothing ends the settling. */
static void schedule_settling(Instance *m) {
    int i, at_zero = 0;
    for (i = 0; i < NG; i++) at_zero = at_zero || fabs(m->g[i]) <= ZERO_BAND;
    if (at_zero && !(m->s.settling && m->s.rounds == 0) && m->s.t + SETTLE_DELAY > m->s.t)
        m->s.settle_at = m->s.t + SETTLE_DELAY;
    else
        m->s.settle_at = INFINITY;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *info) {
    Instance *m = c;
    int changed = 0, states_changed = 0;
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = fmi2False;
    if (evaluate_guards(m) != fmi2OK) return fmi2Error;
    if (!m->s.iterating) {        /* first round of this event: what fired, and pre() */
        m->s.settling = m->s.t >= m->s.settle_at;
        fired_guards(m);
        memcpy(m->s.pre, m->s.p, sizeof(double) * NP);
        m->s.iterating = 1;
        m->s.rounds = 0;
    }
    if (event_round(m, &changed, &states_changed) != fmi2OK) return fmi2Error;
    if (changed) {
        if (++m->s.rounds > MAX_ROUNDS) {
            log_message(m, fmi2Error, "logStatusError",
                        "t = %.10g s: the modes do not settle (event iteration cycles)", m->s.t);
            return fmi2Error;
        }
        info->newDiscreteStatesNeeded = fmi2True;
        info->valuesOfContinuousStatesChanged = states_changed ? fmi2True : fmi2False;
        return fmi2OK;
    }
    m->s.iterating = 0;
    if (evaluate_guards(m) != fmi2OK) return fmi2Error;
    memcpy(m->s.g_ref, m->g, sizeof(double) * NG);
    schedule_settling(m);
    m->s.next_event = fmin(next_time_event(m), m->s.settle_at);
    info->nextEventTimeDefined = isfinite(m->s.next_event) ? fmi2True : fmi2False;
    info->nextEventTime = info->nextEventTimeDefined ? m->s.next_event : 0.0;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c) {
    ((Instance *)c)->s.phase = PHASE_CONTINUOUS;
    return fmi2OK;
}

/* A guard that crossed zero since the reference values (taken when the last event iteration
 * ended, and at completed steps without crossings) asks for an event: the importer's own root
 * finding may land a hair before the crossing, or miss a crossing and return within one step;
 * the reference is kept so that the event iteration sees which guards fired. A guard that sat
 * at zero when the last event iteration ended (a rectifier whose source starts at 0 V, a
 * clutch that just broke away) and has left zero asks for one too, not as a crossing: the
 * transitions then see which side it went to, as the simulator's settling after an event
 * does (a diode whose voltage rises from zero turns on). */
fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation) {
    Instance *m = c;
    int i, event = 0;
    (void)noSetFMUStatePriorToCurrentPoint;
    *enterEventMode = fmi2False;
    *terminateSimulation = fmi2False;
    if (NG == 0) return fmi2OK;
    if (evaluate_guards(m) != fmi2OK) return fmi2Error;
    for (i = 0; i < NG; i++)
        event = event || guard_crossed(m->s.g_ref[i], m->g[i])
                || (fabs(m->s.g_ref[i]) <= ZERO_BAND && fabs(m->g[i]) > ZERO_BAND);
    if (event) *enterEventMode = fmi2True;
    else memcpy(m->s.g_ref, m->g, sizeof(double) * NG);
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component c, fmi2Real time) {
    Instance *m = c;
    if (time != m->s.t) m->evaluated = 0;
    m->s.t = time;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx) {
    Instance *m = c;
    if (nx != NX) return fmi2Error;
    memcpy(m->s.x, x, sizeof(double) * NX);
    m->evaluated = 0;
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real derivatives[], size_t nx) {
    Instance *m = c;
    if (nx != NX || evaluate(m) != fmi2OK) return fmi2Error;
    memcpy(derivatives, m->xdot, sizeof(double) * NX);
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real eventIndicators[], size_t ni) {
    Instance *m = c;
    if (ni != NG || evaluate_guards(m) != fmi2OK) return fmi2Error;
    memcpy(eventIndicators, m->g, sizeof(double) * NG);
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx) {
    Instance *m = c;
    if (nx != NX) return fmi2Error;
    memcpy(x, m->s.x, sizeof(double) * NX);
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component c, fmi2Real x_nominal[], size_t nx) {
    int i;
    (void)c;
    if (nx != NX) return fmi2Error;
    for (i = 0; i < NX; i++) x_nominal[i] = STATE_NOMINAL[i];
    return fmi2OK;
}

/* --- Co-Simulation: not provided --------------------------------------------------------- */

static fmi2Status model_exchange_only(fmi2Component c) {
    log_message(c, fmi2Error, "logStatusError", "this FMU is for Model Exchange only");
    return fmi2Error;
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentCommunicationPoint) {
    (void)currentCommunicationPoint; (void)communicationStepSize; (void)noSetFMUStatePriorToCurrentCommunicationPoint;
    return model_exchange_only(c);
}
fmi2Status fmi2CancelStep(fmi2Component c) { return model_exchange_only(c); }
fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
    (void)s; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
    (void)s; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
    (void)s; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value) {
    (void)s; (void)value;
    return model_exchange_only(c);
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value) {
    (void)s; (void)value;
    return model_exchange_only(c);
}
