/* Variable access of the FMI 2.0 runtime (see runtime.h); saved states are in fmi2_states.c.
 *
 * Every value reference is checked against the table built at instantiate (type, causality,
 * variability) before the slave is called, so a wrong call is an fmi2Error naming the call and the
 * variable, and the slave never sees it. */
#define _POSIX_C_SOURCE 200809L
#include "runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static const char *KIND_NAMES[] = {"Real", "Integer", "Boolean", "String", "other"};
static const char *CAUSALITY_NAMES[] = {"parameter", "calculatedParameter", "input", "output", "local", "independent"};
static const char *VARIABILITY_NAMES[] = {"constant", "fixed", "tunable", "discrete", "continuous"};

/* enum.value of a pythonfmu enumeration attribute, `fallback` when None or absent. */
static int enum_value(const PyApi *py, PyObject *var, const char *attr, int fallback, int max)
{
    PyObject *e = py->Object_GetAttrString(var, attr);
    PyObject *v = (e && e != py->None) ? py->Object_GetAttrString(e, "value") : NULL;
    long x = v ? py->Long_AsLong(v) : fallback;
    py->DecRef(v);
    py->DecRef(e);
    py->Err_Clear();
    return (x < 0 || x > max) ? fallback : (int)x;
}

int build_var_table(Instance *inst)
{
    const PyApi *py = inst->py;
    static const char *kinds[] = {"Real", "Integer", "Boolean", "String"};
    PyObject *classes[4] = {NULL, NULL, NULL, NULL};
    PyObject *module = py_variables_module(py, inst->slave, "Fmi2Slave", "pythonfmu");
    PyObject *vars = py->Object_GetAttrString(inst->slave, "vars");
    Py_ssize_t n = vars ? py->Object_Size(vars) : -1;
    VarInfo *table = NULL;
    int ok = module && n >= 0 && (table = calloc((size_t)n + 1, sizeof *table)) != NULL;
    for (int k = 0; ok && k < 4; ++k)
        ok = (classes[k] = py->Object_GetAttrString(module, kinds[k])) != NULL;
    for (Py_ssize_t vr = 0; ok && vr < n; ++vr) { /* pythonfmu: value reference = registration index */
        PyObject *key = py->Long_FromLong((long)vr);
        PyObject *var = py->Object_GetItem(vars, key);
        py->DecRef(key);
        if (!var) {
            ok = 0;
            break;
        }
        table[vr].kind = K_OTHER;
        for (int k = 0; k < 4; ++k)
            if (py->Object_IsInstance(var, classes[k]) == 1) {
                table[vr].kind = (unsigned char)k;
                break;
            }
        /* FMI defaults when pythonfmu leaves them unset: causality local, variability continuous */
        table[vr].causality = (unsigned char)enum_value(py, var, "causality", C_LOCAL, C_INDEPENDENT);
        table[vr].variability = (unsigned char)enum_value(py, var, "variability", V_CONTINUOUS, V_CONTINUOUS);
        py->DecRef(var);
    }
    for (int k = 0; k < 4; ++k)
        py->DecRef(classes[k]);
    py->DecRef(vars);
    py->DecRef(module);
    if (!ok) {
        char err[1024];
        py_error_text(py, err, sizeof err);
        LOG_ERROR(inst, "fmi2Instantiate: cannot read the slave's variables (slave.vars of a pythonfmu Fmi2Slave): %s",
                  err);
        free(table);
        return 0;
    }
    free(inst->vars);
    inst->vars = table;
    inst->n_vars = (size_t)n;
    return 1;
}

void free_strings(Instance *inst)
{
    for (size_t i = 0; i < inst->n_strings; ++i)
        free(inst->strings[i]);
    free(inst->strings);
    inst->strings = NULL;
    inst->n_strings = 0;
}

/* ---- checks --------------------------------------------------------------------------------------- */

static int check_refs(Instance *inst, const char *call, int kind, const fmi2ValueReference vr[], size_t nvr,
                      const void *values)
{
    if (nvr > 0 && (!vr || !values)) {
        LOG_ERROR(inst, "%s: nvr = %zu but vr or value is NULL", call, nvr);
        return 0;
    }
    for (size_t i = 0; i < nvr; ++i) {
        if (vr[i] >= inst->n_vars) {
            LOG_ERROR(inst, "%s: value reference %u is unknown (this FMU has 0..%zu)", call, vr[i],
                      inst->n_vars ? inst->n_vars - 1 : 0);
            return 0;
        }
        if (inst->vars[vr[i]].kind != kind) {
            LOG_ERROR(inst, "%s: value reference %u is a %s variable, not %s", call, vr[i],
                      KIND_NAMES[inst->vars[vr[i]].kind], KIND_NAMES[kind]);
            return 0;
        }
    }
    return 1;
}

/* FMI 2.0 section 4.2.4 (which variables a co-simulation master may set in which state). */
static int settable(Instance *inst, const char *call, fmi2ValueReference vr)
{
    const VarInfo *v = &inst->vars[vr];
    const char *why = NULL;
    if (v->variability == V_CONSTANT)
        why = "is a constant";
    else if (v->causality != C_PARAMETER && v->causality != C_INPUT)
        why = "may not be set by a master";
    else if (inst->state == ST_TERMINATED)
        why = "may not be set after fmi2Terminate";
    else if (v->causality == C_PARAMETER && v->variability == V_FIXED && inst->state == ST_STEPPING)
        why = "is a fixed parameter: it may be set only before fmi2ExitInitializationMode";
    if (!why)
        return 1;
    LOG_ERROR(inst, "%s: value reference %u (%s, causality %s, variability %s) %s", call, vr, KIND_NAMES[v->kind],
              CAUSALITY_NAMES[v->causality], VARIABILITY_NAMES[v->variability], why);
    return 0;
}

static PyObject *vr_list(const PyApi *py, const fmi2ValueReference vr[], size_t nvr)
{
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    for (size_t i = 0; list && i < nvr; ++i)
        py->List_SetItem(list, (Py_ssize_t)i, py->Long_FromLong((long)vr[i]));
    return list;
}

static PyObject *pair(const PyApi *py, PyObject *a, PyObject *b)
{
    PyObject *t = py->Tuple_New(2);
    py->Tuple_SetItem(t, 0, a);
    py->Tuple_SetItem(t, 1, b);
    return t;
}

/* ---- get ------------------------------------------------------------------------------------------ */

/* Converts item i of the slave's result into out; 0 on failure (exception pending). */
typedef int (*FromPy)(Instance *inst, PyObject *item, void *out, size_t i);

static int real_from(Instance *inst, PyObject *item, void *out, size_t i)
{
    double x = inst->py->Float_AsDouble(item);
    ((fmi2Real *)out)[i] = x;
    return !(x == -1.0 && inst->py->Err_Occurred());
}

static int integer_from(Instance *inst, PyObject *item, void *out, size_t i)
{
    long x = inst->py->Long_AsLong(item);
    if (x == -1 && inst->py->Err_Occurred())
        return 0;
    if (x < INT_MIN || x > INT_MAX) {
        LOG_ERROR(inst, "fmi2GetInteger: the slave's value %ld does not fit fmi2Integer", x);
        return 0;
    }
    ((fmi2Integer *)out)[i] = (fmi2Integer)x;
    return 1;
}

static int boolean_from(Instance *inst, PyObject *item, void *out, size_t i)
{
    int b = inst->py->Object_IsTrue(item);
    ((fmi2Boolean *)out)[i] = b > 0 ? fmi2True : fmi2False;
    return b >= 0;
}

static int string_from(Instance *inst, PyObject *item, void *out, size_t i)
{
    PyObject *s = inst->py->Object_Str(item);
    const char *text = s ? inst->py->Unicode_AsUTF8AndSize(s, NULL) : NULL;
    char *dup = text ? strdup(text) : NULL;
    inst->py->DecRef(s);
    if (!dup)
        return 0;
    inst->strings[i] = dup;
    inst->n_strings = i + 1;
    ((fmi2String *)out)[i] = dup;
    return 1;
}

static fmi2Status get_values(fmi2Component c, const char *call, int kind, const char *method,
                             const fmi2ValueReference vr[], size_t nvr, void *out, FromPy convert)
{
    Instance *inst = checked(c, call, ST_ANY_USABLE);
    if (!inst || !check_refs(inst, call, kind, vr, nvr, out))
        return fmi2Error;
    if (nvr == 0)
        return fmi2OK;
    const PyApi *py = inst->py;
    if (kind == K_STRING) {
        free_strings(inst);
        inst->strings = calloc(nvr, sizeof *inst->strings);
        if (!inst->strings) {
            LOG_ERROR(inst, "%s: out of memory", call);
            return fmi2Error;
        }
    }
    PyGILState_STATE g = enter(inst);
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, vr_list(py, vr, nvr));
    PyObject *result = call_slave(inst, call, method, args);
    int ok = result != NULL;
    if (ok && py->Sequence_Size(result) != (Py_ssize_t)nvr) {
        py->Err_Clear();
        LOG_ERROR(inst, "%s: slave.%s returned %zd values for %zu value references", call, method,
                  py->Sequence_Size(result), nvr);
        ok = 0;
    }
    for (size_t i = 0; ok && i < nvr; ++i) {
        PyObject *item = py->Sequence_GetItem(result, (Py_ssize_t)i);
        ok = item && convert(inst, item, out, i);
        py->DecRef(item);
        if (!ok) {
            char err[1024];
            py_error_text(py, err, sizeof err);
            LOG_ERROR(inst, "%s: value of value reference %u from the slave is not a %s: %s", call, vr[i],
                      KIND_NAMES[kind], err);
        }
    }
    py->DecRef(result);
    leave(inst, g);
    return ok ? fmi2OK : fmi2Error;
}

FMI2_EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    return get_values(c, "fmi2GetReal", K_REAL, "get_real", vr, nvr, value, real_from);
}

FMI2_EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Integer value[])
{
    return get_values(c, "fmi2GetInteger", K_INTEGER, "get_integer", vr, nvr, value, integer_from);
}

FMI2_EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      fmi2Boolean value[])
{
    return get_values(c, "fmi2GetBoolean", K_BOOLEAN, "get_boolean", vr, nvr, value, boolean_from);
}

FMI2_EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                     fmi2String value[])
{
    return get_values(c, "fmi2GetString", K_STRING, "get_string", vr, nvr, value, string_from);
}

/* ---- set ------------------------------------------------------------------------------------------ */

/* A new Python object for value i (NULL with a logged error, e.g. a string that is not UTF-8). */
typedef PyObject *(*ToPy)(Instance *inst, const void *values, size_t i);

static PyObject *real_to(Instance *inst, const void *v, size_t i) { return inst->py->Float_FromDouble(((const fmi2Real *)v)[i]); }
static PyObject *integer_to(Instance *inst, const void *v, size_t i) { return inst->py->Long_FromLong(((const fmi2Integer *)v)[i]); }
static PyObject *boolean_to(Instance *inst, const void *v, size_t i) { return inst->py->Bool_FromLong(((const fmi2Boolean *)v)[i] != fmi2False); }
static PyObject *string_to(Instance *inst, const void *v, size_t i)
{
    const char *s = ((const fmi2String *)v)[i];
    return inst->py->Unicode_FromString(s ? s : "");
}

static fmi2Status set_values(fmi2Component c, const char *call, int kind, const char *method,
                             const fmi2ValueReference vr[], size_t nvr, const void *values, ToPy convert)
{
    Instance *inst = checked(c, call, ST_INSTANTIATED | ST_INIT | ST_STEPPING | ST_TERMINATED);
    if (!inst || !check_refs(inst, call, kind, vr, nvr, values))
        return fmi2Error;
    for (size_t i = 0; i < nvr; ++i)
        if (!settable(inst, call, vr[i]))
            return fmi2Error; /* nothing set: the call is all or nothing */
    if (nvr == 0)
        return fmi2OK;
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter(inst);
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    int ok = list != NULL;
    for (size_t i = 0; ok && i < nvr; ++i) {
        PyObject *x = convert(inst, values, i);
        ok = x != NULL && py->List_SetItem(list, (Py_ssize_t)i, x) == 0;
    }
    PyObject *result = NULL;
    if (ok) {
        result = call_slave(inst, call, method, pair(py, vr_list(py, vr, nvr), list));
        list = NULL; /* consumed with the arguments */
        ok = result != NULL;
    } else {
        char err[1024];
        py_error_text(py, err, sizeof err);
        LOG_ERROR(inst, "%s: a value cannot be converted to a %s: %s", call, KIND_NAMES[kind], err);
    }
    py->DecRef(list);
    py->DecRef(result);
    leave(inst, g);
    return ok ? fmi2OK : fmi2Error;
}

FMI2_EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[])
{
    return set_values(c, "fmi2SetReal", K_REAL, "set_real", vr, nvr, value, real_to);
}

FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Integer value[])
{
    return set_values(c, "fmi2SetInteger", K_INTEGER, "set_integer", vr, nvr, value, integer_to);
}

FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                      const fmi2Boolean value[])
{
    return set_values(c, "fmi2SetBoolean", K_BOOLEAN, "set_boolean", vr, nvr, value, boolean_to);
}

FMI2_EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                     const fmi2String value[])
{
    return set_values(c, "fmi2SetString", K_STRING, "set_string", vr, nvr, value, string_to);
}

/* ---- directional derivatives ------------------------------------------------------------------------ */

/* dvUnknown = (d outputs / d inputs) dvKnown at the current state, from the slave's
 * get_directional_derivative(unknowns, knowns, seed) (FMI 2.0, section 2.1.9; the value references are Real
 * variables, checked here). A slave without that method answers fmi2Error, naming it. */
FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown[],
                                                    size_t nUnknown, const fmi2ValueReference vKnown[],
                                                    size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    const char *call = "fmi2GetDirectionalDerivative";
    Instance *inst = checked(c, call, ST_INIT | ST_STEPPING);
    if (!inst || !check_refs(inst, call, K_REAL, vUnknown, nUnknown, dvUnknown)
        || !check_refs(inst, call, K_REAL, vKnown, nKnown, dvKnown))
        return fmi2Error;
    if (nUnknown == 0)
        return fmi2OK;
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter(inst);
    PyObject *seed = py->List_New((Py_ssize_t)nKnown);
    for (size_t i = 0; seed && i < nKnown; ++i)
        py->List_SetItem(seed, (Py_ssize_t)i, py->Float_FromDouble(dvKnown[i]));
    PyObject *args = py->Tuple_New(3);
    py->Tuple_SetItem(args, 0, vr_list(py, vUnknown, nUnknown));
    py->Tuple_SetItem(args, 1, vr_list(py, vKnown, nKnown));
    py->Tuple_SetItem(args, 2, seed);
    PyObject *result = call_slave(inst, call, "get_directional_derivative", args);
    int ok = result != NULL;
    if (ok && py->Sequence_Size(result) != (Py_ssize_t)nUnknown) {
        py->Err_Clear();
        LOG_ERROR(inst, "%s: the slave returned %zd values for %zu unknowns", call, py->Sequence_Size(result),
                  nUnknown);
        ok = 0;
    }
    for (size_t i = 0; ok && i < nUnknown; ++i) {
        PyObject *item = py->Sequence_GetItem(result, (Py_ssize_t)i);
        ok = item && real_from(inst, item, dvUnknown, i);
        py->DecRef(item);
        if (!ok) {
            py->Err_Clear();
            LOG_ERROR(inst, "%s: derivative %zu from the slave is not a number", call, i);
        }
    }
    py->DecRef(result);
    leave(inst, g);
    return ok ? fmi2OK : fmi2Error;
}

