/* The core's variable table and variable access (see core.h): the table is built from the slave's registered
 * variables at instantiate, and every get, set and directional derivative checks its value references against it
 * (type, causality, variability, state) before the slave is called, so a wrong call is an error naming the call
 * and the variable, and the slave never sees it. The facades bring the conversions between their C types and
 * Python. Variables of a slave that took the runtime's value table are served from it (core_table.c). */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CAUSALITY_NAMES[] = {"parameter", "calculatedParameter", "input", "output", "local",
                                        "independent", "structuralParameter"};
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

/* 1 when the variable has a non-empty `dimensions` (an array; pythonfmu's variables have none). */
static int is_array(const PyApi *py, PyObject *var)
{
    PyObject *dims = py->Object_GetAttrString(var, "dimensions");
    Py_ssize_t n = dims ? py->Object_Size(dims) : 0;
    py->DecRef(dims);
    py->Err_Clear();
    return n > 0;
}

/* The variable's type: the index of its class in std->variable_classes, else type_other. */
static int type_of(const Core *core, PyObject *var, PyObject *const classes[])
{
    for (int k = 0; k < core->std->n_variable_classes; ++k)
        if (core->py->Object_IsInstance(var, classes[k]) == 1)
            return k;
    return core->std->type_other;
}

int core_build_var_table(Core *core)
{
    const PyApi *py = core->py;
    const CoreStandard *std = core->std;
    PyObject *classes[16] = {NULL};
    PyObject *module = py_variables_module(py, core->slave, std->slave_class, std->package);
    PyObject *vars = py->Object_GetAttrString(core->slave, "vars");
    Py_ssize_t n = vars ? py->Object_Size(vars) : -1;
    CoreVar *table = NULL;
    int ok = module && n >= 0 && (table = calloc((size_t)n + 1, sizeof *table)) != NULL;
    for (int k = 0; ok && k < std->n_variable_classes; ++k)
        ok = (classes[k] = py->Object_GetAttrString(module, std->variable_classes[k])) != NULL;
    for (Py_ssize_t vr = 0; ok && vr < n; ++vr) { /* pythonfmu: value reference = registration index */
        PyObject *key = py->Long_FromLong((long)vr);
        PyObject *var = py->Object_GetItem(vars, key);
        py->DecRef(key);
        if (!var) {
            ok = 0;
            break;
        }
        table[vr].type = (unsigned char)type_of(core, var, classes);
        /* FMI defaults when pythonfmu leaves them unset: causality local, variability continuous */
        table[vr].causality = (unsigned char)enum_value(py, var, "causality", CC_LOCAL, std->causality_max);
        table[vr].variability = (unsigned char)enum_value(py, var, "variability", CV_CONTINUOUS, CV_CONTINUOUS);
        table[vr].array = (unsigned char)is_array(py, var);
        py->DecRef(var);
    }
    for (int k = 0; k < std->n_variable_classes; ++k)
        py->DecRef(classes[k]);
    py->DecRef(vars);
    py->DecRef(module);
    if (!ok) {
        char err[1024];
        py_error_text(py, err, sizeof err);
        CORE_ERR(core, "%s: cannot read the slave's variables (slave.vars of a %s %s): %s", std->instantiate_call,
                 std->package, std->slave_class, err);
        free(table);
        return 0;
    }
    free(core->vars);
    core->vars = table;
    core->n_vars = (size_t)n;
    return 1;
}

void core_free_strings(Core *core)
{
    for (size_t i = 0; i < core->n_strings; ++i)
        free(core->strings[i]);
    free(core->strings);
    core->strings = NULL;
    core->n_strings = 0;
}

/* ---- checks --------------------------------------------------------------------------------------- */

int core_check_refs(Core *core, const char *call, int type, const unsigned vr[], size_t nvr, const void *values,
                    size_t nValues)
{
    const CoreStandard *std = core->std;
    if (nvr > 0 && (!vr || !values)) {
        CORE_ERR(core, std->null_refs_format, call, nvr);
        return 0;
    }
    for (size_t i = 0; i < nvr; ++i) {
        const CoreVar *v = vr[i] < core->n_vars ? &core->vars[vr[i]] : NULL;
        if (!v) {
            CORE_ERR(core, "%s: value reference %u is unknown (this FMU has 0..%zu)", call, vr[i],
                     core->n_vars ? core->n_vars - 1 : 0);
            return 0;
        }
        /* FMI 3.0: enumerations are got and set as Int64 */
        int same = v->type == type || (type == std->type_int64 && v->type == std->type_enumeration);
        if (!same) {
            CORE_ERR(core, "%s: value reference %u is a %s variable, not %s", call, vr[i], std->type_names[v->type],
                     std->type_names[type]);
            return 0;
        }
        if (v->array) {
            CORE_ERR(core, "%s: value reference %u is an array variable; this runtime offers scalar variables only",
                     call, vr[i]);
            return 0;
        }
    }
    if (nValues != nvr) {
        CORE_ERR(core, "%s: nValues = %zu, but the %zu scalar variables asked for have %zu values", call, nValues, nvr,
                 nvr);
        return 0;
    }
    return 1;
}

/* Which variables a host may set in which state (FMI 2.0 section 4.2.4, FMI 3.0 section 4.2). */
static int settable(Core *core, const char *call, unsigned vr)
{
    const CoreStandard *std = core->std;
    const CoreVar *v = &core->vars[vr];
    const char *why = NULL;
    char fixed[160];
    if (v->variability == CV_CONSTANT) {
        why = "is a constant";
    } else if (!(std->settable_causality & (1 << v->causality))) {
        snprintf(fixed, sizeof fixed, "may not be set by %s", std->importer);
        why = fixed;
    } else if (core->state == CS_TERMINATED) {
        snprintf(fixed, sizeof fixed, "may not be set after %s", std->terminate_call);
        why = fixed;
    } else if (v->causality != CC_INPUT && v->variability == CV_FIXED && core->state == CS_STEP) {
        snprintf(fixed, sizeof fixed, "is a fixed parameter: it may be set only before %s", std->exit_init_call);
        why = fixed;
    }
    if (!why)
        return 1;
    CORE_ERR(core, "%s: value reference %u (%s, causality %s, variability %s) %s", call, vr, std->type_names[v->type],
             CAUSALITY_NAMES[v->causality], VARIABILITY_NAMES[v->variability], why);
    return 0;
}

static PyObject *vr_list(const PyApi *py, const unsigned vr[], size_t nvr)
{
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    for (size_t i = 0; list && i < nvr; ++i)
        py->List_SetItem(list, (Py_ssize_t)i, py->Long_FromLong((long)vr[i]));
    return list;
}

/* ---- get and set ------------------------------------------------------------------------------------ */

/* n values of the slave's sequence result through convert; 0 with the failure logged. GIL held. */
static int values_from(Core *core, const char *call, const char *what, PyObject *result, size_t n, void *out,
                       CoreFromPy convert, const unsigned vr[], int type)
{
    const PyApi *py = core->py;
    if (py->Sequence_Size(result) != (Py_ssize_t)n) {
        py->Err_Clear();
        CORE_ERR(core, "%s: %s returned %zd values for %zu %s", call, what, py->Sequence_Size(result), n,
                 vr ? "value references" : "unknowns");
        return 0;
    }
    for (size_t i = 0; i < n; ++i) {
        PyObject *item = py->Sequence_GetItem(result, (Py_ssize_t)i);
        int ok = item && convert(core, item, out, i);
        py->DecRef(item);
        if (ok)
            continue;
        char err[1024];
        py_error_text(py, err, sizeof err); /* "": a number, but not finite (core_double_from) */
        if (vr)
            CORE_ERR(core, "%s: value of value reference %u from the slave is not a %s%s%s", call, vr[i],
                     err[0] ? "" : "finite ", core->std->type_names[type], err[0] ? ": " : "", err);
        else
            CORE_ERR(core, "%s: derivative %zu from the slave is not a finite number%s", call, i,
                     err[0] ? "" : " (the seed too large for one?)");
        return 0;
    }
    return 1;
}

CoreStatus core_get(Core *core, const char *call, int type, const char *method, const unsigned vr[], size_t nvr,
                    void *out, size_t nValues, CoreFromPy convert)
{
    if (!core || !core_check_refs(core, call, type, vr, nvr, out, nValues))
        return CORE_ERROR;
    if (nvr == 0)
        return CORE_OK;
    if (core->table && core_table_holds(core, type))
        return core_table_refresh(core, call, vr, nvr) == CORE_OK ? core_table_get(core, call, type, vr, nvr, out)
                                                                  : CORE_ERROR;
    const PyApi *py = core->py;
    if (type == core->std->type_string) {
        core_free_strings(core);
        core->strings = calloc(nvr, sizeof *core->strings);
        if (!core->strings) {
            CORE_ERR(core, "%s: out of memory", call);
            return CORE_ERROR;
        }
    }
    char what[64];
    snprintf(what, sizeof what, "slave.%s", method);
    PyGILState_STATE g = core_enter(core);
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, vr_list(py, vr, nvr));
    PyObject *result = core_call_slave(core, call, method, args);
    int ok = result && values_from(core, call, what, result, nvr, out, convert, vr, type);
    py->DecRef(result);
    core_leave(core, g);
    return ok ? CORE_OK : CORE_ERROR;
}

CoreStatus core_set(Core *core, const char *call, int type, const char *method, const unsigned vr[], size_t nvr,
                    const void *values, size_t nValues, CoreToPy convert)
{
    if (!core || !core_check_refs(core, call, type, vr, nvr, values, nValues))
        return CORE_ERROR;
    for (size_t i = 0; i < nvr; ++i)
        if (!settable(core, call, vr[i]))
            return CORE_ERROR; /* nothing set: the call is all or nothing */
    if (nvr == 0)
        return CORE_OK;
    if (core->table && core_table_holds(core, type)) {
        core_table_set(core, type, vr, nvr, values);
        return CORE_OK;
    }
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    int ok = list != NULL;
    for (size_t i = 0; ok && i < nvr; ++i) {
        PyObject *x = convert(core, values, i);
        ok = x != NULL && py->List_SetItem(list, (Py_ssize_t)i, x) == 0;
    }
    PyObject *result = NULL;
    if (ok) {
        PyObject *args = py->Tuple_New(2);
        py->Tuple_SetItem(args, 0, vr_list(py, vr, nvr));
        py->Tuple_SetItem(args, 1, list);
        list = NULL; /* consumed with the arguments */
        result = core_call_slave(core, call, method, args);
        ok = result != NULL;
    } else {
        char err[1024];
        py_error_text(py, err, sizeof err);
        CORE_ERR(core, "%s: a value cannot be converted to a %s: %s", call, core->std->type_names[type], err);
    }
    py->DecRef(list);
    py->DecRef(result);
    core_leave(core, g);
    return ok ? CORE_OK : CORE_ERROR;
}

int core_double_from(Core *core, PyObject *item, void *out, size_t i)
{
    double x = core->py->Float_AsDouble(item);
    ((double *)out)[i] = x;
    return !(x == -1.0 && core->py->Err_Occurred()) && isfinite(x); /* a getter never gives NaN or inf with OK */
}

int core_string_from(Core *core, PyObject *item, void *out, size_t i)
{
    PyObject *s = core->py->Object_Str(item);
    const char *text = s ? core->py->Unicode_AsUTF8AndSize(s, NULL) : NULL;
    char *dup = text ? strdup(text) : NULL;
    core->py->DecRef(s);
    if (!dup)
        return 0;
    core->strings[i] = dup;
    core->n_strings = i + 1;
    ((const char **)out)[i] = dup;
    return 1;
}

CoreStatus core_directional_derivative(Core *core, const char *call, const unsigned unknowns[], size_t n_unknowns,
                                       const unsigned knowns[], size_t n_knowns, const double seed[], double out[])
{
    if (n_unknowns == 0)
        return CORE_OK;
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    PyObject *s = py->List_New((Py_ssize_t)n_knowns);
    for (size_t i = 0; s && i < n_knowns; ++i)
        py->List_SetItem(s, (Py_ssize_t)i, py->Float_FromDouble(seed[i]));
    PyObject *args = py->Tuple_New(3);
    py->Tuple_SetItem(args, 0, vr_list(py, unknowns, n_unknowns));
    py->Tuple_SetItem(args, 1, vr_list(py, knowns, n_knowns));
    py->Tuple_SetItem(args, 2, s);
    PyObject *result = core_call_slave(core, call, "get_directional_derivative", args);
    int ok = result && values_from(core, call, "the slave", result, n_unknowns, out, core_double_from, NULL, 0);
    py->DecRef(result);
    core_leave(core, g);
    return ok ? CORE_OK : CORE_ERROR;
}
