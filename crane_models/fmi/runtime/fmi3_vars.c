/* The FMI 3.0 runtime's variable table (see fmi3_runtime.h): built from the slave's registered variables at
 * instantiate, and the check of value references against it that every fmi3Get*, fmi3Set* and the directional
 * derivative start with. The floor under variable access (fmi3_values.c), stepping (fmi3_step.c) and the
 * instance's lifecycle (fmi3_runtime.c); above the messages and the slave call (fmi3_log.c). */
#define _POSIX_C_SOURCE 200809L
#include "fmi3_runtime.h"

#include <stdlib.h>
#include <string.h>

const char *const TYPE3_NAMES[] = {"Float64", "Int32", "Int64", "UInt64", "Boolean", "String", "Enumeration",
                                   "Float32", "Int8", "UInt8", "Int16", "UInt16", "UInt32", "Binary", "Clock",
                                   "other"};

/* enum.value of a pythonfmu3 enumeration attribute, `fallback` when None or absent. */
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

/* 1 when the variable has a non-empty `dimensions` (an array). */
static int is_array(const PyApi *py, PyObject *var)
{
    PyObject *dims = py->Object_GetAttrString(var, "dimensions");
    Py_ssize_t n = dims ? py->Object_Size(dims) : 0;
    py->DecRef(dims);
    py->Err_Clear();
    return n > 0;
}

int build_var_table3(Instance3 *inst)
{
    const PyApi *py = inst->py;
    /* the pythonfmu3 classes, in the order of the T_ constants */
    static const char *classes_named[] = {"Float64", "Int32", "Int64", "UInt64", "Boolean", "String", "Enumeration"};
    enum { N_CLASSES = sizeof classes_named / sizeof *classes_named };
    PyObject *classes[N_CLASSES] = {NULL};
    PyObject *module = py_variables_module(py, inst->slave, "Fmi3Slave", "pythonfmu3");
    PyObject *vars = py->Object_GetAttrString(inst->slave, "vars");
    Py_ssize_t n = vars ? py->Object_Size(vars) : -1;
    Var3 *table = NULL;
    int ok = module && n >= 0 && (table = calloc((size_t)n + 1, sizeof *table)) != NULL;
    for (int k = 0; ok && k < N_CLASSES; ++k)
        ok = (classes[k] = py->Object_GetAttrString(module, classes_named[k])) != NULL;
    for (Py_ssize_t vr = 0; ok && vr < n; ++vr) { /* pythonfmu3: value reference = registration index */
        PyObject *key = py->Long_FromLong((long)vr);
        PyObject *var = py->Object_GetItem(vars, key);
        py->DecRef(key);
        if (!var) {
            ok = 0;
            break;
        }
        table[vr].type = T_OTHER;
        for (int k = 0; k < N_CLASSES; ++k)
            if (py->Object_IsInstance(var, classes[k]) == 1) {
                table[vr].type = (unsigned char)k;
                break;
            }
        /* FMI defaults when pythonfmu3 leaves them unset: causality local, variability continuous */
        table[vr].causality = (unsigned char)enum_value(py, var, "causality", C3_LOCAL, C3_STRUCTURAL);
        table[vr].variability = (unsigned char)enum_value(py, var, "variability", V3_CONTINUOUS, V3_CONTINUOUS);
        table[vr].array = (unsigned char)is_array(py, var);
        py->DecRef(var);
    }
    for (int k = 0; k < N_CLASSES; ++k)
        py->DecRef(classes[k]);
    py->DecRef(vars);
    py->DecRef(module);
    if (!ok) {
        char err[1024];
        py_error_text(py, err, sizeof err);
        ERR3(inst, "fmi3InstantiateCoSimulation: cannot read the slave's variables (slave.vars of a pythonfmu3 "
                   "Fmi3Slave): %s", err);
        free(table);
        return 0;
    }
    free(inst->vars);
    inst->vars = table;
    inst->n_vars = (size_t)n;
    return 1;
}

void free_strings3(Instance3 *inst)
{
    for (size_t i = 0; i < inst->n_strings; ++i)
        free(inst->strings[i]);
    free(inst->strings);
    inst->strings = NULL;
    inst->n_strings = 0;
}

/* ---- checks --------------------------------------------------------------------------------------- */

int check_refs3(Instance3 *inst, const char *call, int type, const fmi3ValueReference vr[], size_t nvr,
                const void *values, size_t nValues)
{
    if (nvr > 0 && (!vr || !values)) {
        ERR3(inst, "%s: nValueReferences = %zu but valueReferences or values is NULL", call, nvr);
        return 0;
    }
    for (size_t i = 0; i < nvr; ++i) {
        const Var3 *v = vr[i] < inst->n_vars ? &inst->vars[vr[i]] : NULL;
        if (!v) {
            ERR3(inst, "%s: value reference %u is unknown (this FMU has 0..%zu)", call, (unsigned)vr[i],
                 inst->n_vars ? inst->n_vars - 1 : 0);
            return 0;
        }
        int same = v->type == type || (type == T_INT64 && v->type == T_ENUMERATION); /* FMI 3.0: enums are Int64 */
        if (!same) {
            ERR3(inst, "%s: value reference %u is a %s variable, not %s", call, (unsigned)vr[i], TYPE3_NAMES[v->type],
                 TYPE3_NAMES[type]);
            return 0;
        }
        if (v->array) {
            ERR3(inst, "%s: value reference %u is an array variable; this runtime offers scalar variables only", call,
                 (unsigned)vr[i]);
            return 0;
        }
    }
    if (nValues != nvr) {
        ERR3(inst, "%s: nValues = %zu, but the %zu scalar variables asked for have %zu values", call, nValues, nvr, nvr);
        return 0;
    }
    return 1;
}

PyObject *vr_list3(const PyApi *py, const fmi3ValueReference vr[], size_t nvr)
{
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    for (size_t i = 0; list && i < nvr; ++i)
        py->List_SetItem(list, (Py_ssize_t)i, py->Long_FromLong((long)vr[i]));
    return list;
}
