/* Variable access of the FMI 3.0 runtime (see fmi3_runtime.h): fmi3Get* and fmi3Set*, over the variable table
 * and its checks (fmi3_vars.c).
 *
 * Every value reference is checked against the table built at instantiate (type, causality, variability)
 * before the slave is called, so a wrong call is an fmi3Error naming the call and the variable and the
 * slave never sees it. The FMI 3.0 types without a pythonfmu3 class (Float32, Int8, ...; Binary and Clock
 * in fmi3_step.c) go through the same check: no variable has them, so any value reference is refused. Array variables
 * (pythonfmu3 `dimensions`) are not offered: nValues must equal nvr. */
#define _POSIX_C_SOURCE 200809L
#include "fmi3_runtime.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *CAUSALITY3[] = {"parameter", "calculatedParameter", "input", "output", "local",
                                   "independent", "structuralParameter"};
static const char *VARIABILITY3[] = {"constant", "fixed", "tunable", "discrete", "continuous"};

/* ---- which variables may be set ------------------------------------------------------------------ */

/* FMI 3.0 section 4.2 (which variables a co-simulation importer may set in which state). */
static int settable(Instance3 *inst, const char *call, fmi3ValueReference vr)
{
    const Var3 *v = &inst->vars[vr];
    const char *why = NULL;
    if (v->variability == V3_CONSTANT)
        why = "is a constant";
    else if (v->causality != C3_PARAMETER && v->causality != C3_INPUT && v->causality != C3_STRUCTURAL)
        why = "may not be set by an importer";
    else if (inst->state == S3_TERMINATED)
        why = "may not be set after fmi3Terminate";
    else if (v->causality != C3_INPUT && v->variability == V3_FIXED && inst->state == S3_STEP)
        why = "is a fixed parameter: it may be set only before fmi3ExitInitializationMode";
    if (!why)
        return 1;
    ERR3(inst, "%s: value reference %u (%s, causality %s, variability %s) %s", call, (unsigned)vr, TYPE3_NAMES[v->type],
         CAUSALITY3[v->causality], VARIABILITY3[v->variability], why);
    return 0;
}

/* ---- get ------------------------------------------------------------------------------------------ */

/* Item i of the slave's result into out; 0 on failure (exception pending or logged). */
typedef int (*FromPy3)(Instance3 *inst, PyObject *item, void *out, size_t i);

static int float64_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    double x = inst->py->Float_AsDouble(item);
    ((fmi3Float64 *)out)[i] = x;
    return !(x == -1.0 && inst->py->Err_Occurred());
}

/* An integer of the slave (also ctypes.c_uint64, whose `.value` is the number, as pythonfmu3's get_uint64
 * returns them) within [low, high]. */
static int integer_in(Instance3 *inst, PyObject *item, long low, long high, long *x)
{
    const PyApi *py = inst->py;
    PyObject *inner = py->Object_GetAttrString(item, "value");
    py->Err_Clear();
    *x = py->Long_AsLong(inner ? inner : item);
    py->DecRef(inner);
    if (*x == -1 && py->Err_Occurred())
        return 0;
    if (*x < low || *x > high) {
        ERR3(inst, "the slave's value %ld does not fit the variable's type", *x);
        return 0;
    }
    return 1;
}

static int int32_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(inst, item, INT32_MIN, INT32_MAX, &x);
    ((fmi3Int32 *)out)[i] = (fmi3Int32)x;
    return ok;
}

static int int64_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(inst, item, LONG_MIN, LONG_MAX, &x); /* CPython's long: 64 bits on LP64 platforms */
    ((fmi3Int64 *)out)[i] = (fmi3Int64)x;
    return ok;
}

static int uint64_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(inst, item, 0, LONG_MAX, &x); /* values >= 2^63 are refused (PyLong_AsLong) */
    ((fmi3UInt64 *)out)[i] = (fmi3UInt64)x;
    return ok;
}

static int boolean_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    int b = inst->py->Object_IsTrue(item);
    ((fmi3Boolean *)out)[i] = b > 0;
    return b >= 0;
}

static int string_from(Instance3 *inst, PyObject *item, void *out, size_t i)
{
    PyObject *s = inst->py->Object_Str(item);
    const char *text = s ? inst->py->Unicode_AsUTF8AndSize(s, NULL) : NULL;
    char *dup = text ? strdup(text) : NULL;
    inst->py->DecRef(s);
    if (!dup)
        return 0;
    inst->strings[i] = dup;
    inst->n_strings = i + 1;
    ((fmi3String *)out)[i] = dup;
    return 1;
}

/* Gets are allowed in every state (also Instantiated, for start values; see docs/fmi-runtime.md). */
static fmi3Status get_values(fmi3Instance c, const char *call, int type, const char *method,
                             const fmi3ValueReference vr[], size_t nvr, void *out, size_t nValues, FromPy3 convert)
{
    Instance3 *inst = checked3(c, call, S3_ANY);
    if (!inst || !check_refs3(inst, call, type, vr, nvr, out, nValues))
        return fmi3Error;
    if (nvr == 0)
        return fmi3OK;
    const PyApi *py = inst->py;
    if (type == T_STRING) {
        free_strings3(inst);
        inst->strings = calloc(nvr, sizeof *inst->strings);
        if (!inst->strings) {
            ERR3(inst, "%s: out of memory", call);
            return fmi3Error;
        }
    }
    PyGILState_STATE g = enter3(inst);
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, vr_list3(py, vr, nvr));
    PyObject *result = call_slave3(inst, call, method, args);
    int ok = result != NULL;
    if (ok && py->Sequence_Size(result) != (Py_ssize_t)nvr) {
        py->Err_Clear();
        ERR3(inst, "%s: slave.%s returned %zd values for %zu value references", call, method, py->Sequence_Size(result),
             nvr);
        ok = 0;
    }
    for (size_t i = 0; ok && i < nvr; ++i) {
        PyObject *item = py->Sequence_GetItem(result, (Py_ssize_t)i);
        ok = item && convert(inst, item, out, i);
        py->DecRef(item);
        if (!ok) {
            char err[1024];
            py_error_text(py, err, sizeof err);
            ERR3(inst, "%s: value of value reference %u from the slave is not a %s: %s", call, (unsigned)vr[i],
                 TYPE3_NAMES[type], err);
        }
    }
    py->DecRef(result);
    leave3(inst, g);
    return ok ? fmi3OK : fmi3Error;
}

#define GETTER(Name, CType, Type, method, convert)                                                            \
    FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,          \
                                         CType values[], size_t nValues)                                      \
    {                                                                                                         \
        return get_values(c, "fmi3Get" #Name, Type, method, vr, nvr, values, nValues, convert);             \
    }
GETTER(Float64, fmi3Float64, T_FLOAT64, "get_float64", float64_from)
GETTER(Int32, fmi3Int32, T_INT32, "get_int32", int32_from)
GETTER(Int64, fmi3Int64, T_INT64, "get_int64", int64_from)
GETTER(UInt64, fmi3UInt64, T_UINT64, "get_uint64", uint64_from)
GETTER(Boolean, fmi3Boolean, T_BOOLEAN, "get_boolean", boolean_from)
GETTER(String, fmi3String, T_STRING, "get_string", string_from)
/* No pythonfmu3 variable has these types: the check refuses every value reference (nvr = 0 is OK). */
GETTER(Float32, fmi3Float32, T_FLOAT32, "get_float32", NULL)
GETTER(Int8, fmi3Int8, T_INT8, "get_int8", NULL)
GETTER(UInt8, fmi3UInt8, T_UINT8, "get_uint8", NULL)
GETTER(Int16, fmi3Int16, T_INT16, "get_int16", NULL)
GETTER(UInt16, fmi3UInt16, T_UINT16, "get_uint16", NULL)
GETTER(UInt32, fmi3UInt32, T_UINT32, "get_uint32", NULL)
#undef GETTER

/* ---- set ------------------------------------------------------------------------------------------ */

/* A new Python object for value i (NULL with an error logged or pending). */
typedef PyObject *(*ToPy3)(Instance3 *inst, const void *values, size_t i);

static PyObject *float64_to(Instance3 *inst, const void *v, size_t i) { return inst->py->Float_FromDouble(((const fmi3Float64 *)v)[i]); }
static PyObject *int32_to(Instance3 *inst, const void *v, size_t i) { return inst->py->Long_FromLong(((const fmi3Int32 *)v)[i]); }
static PyObject *int64_to(Instance3 *inst, const void *v, size_t i)
{
    fmi3Int64 x = ((const fmi3Int64 *)v)[i];
    if (x < LONG_MIN || x > LONG_MAX) {
        ERR3(inst, "value %lld does not fit this platform's C long", (long long)x);
        return NULL;
    }
    return inst->py->Long_FromLong((long)x);
}
static PyObject *uint64_to(Instance3 *inst, const void *v, size_t i)
{
    fmi3UInt64 x = ((const fmi3UInt64 *)v)[i];
    if (x > (fmi3UInt64)LONG_MAX) {
        ERR3(inst, "value %llu is beyond 2^63 - 1, which this runtime passes to Python", (unsigned long long)x);
        return NULL;
    }
    return inst->py->Long_FromLong((long)x);
}
static PyObject *boolean_to(Instance3 *inst, const void *v, size_t i) { return inst->py->Bool_FromLong(((const fmi3Boolean *)v)[i]); }
static PyObject *string_to(Instance3 *inst, const void *v, size_t i)
{
    const char *s = ((const fmi3String *)v)[i];
    if (!s) {
        ERR3(inst, "value %zu is a NULL string", i);
        return NULL;
    }
    return inst->py->Unicode_FromString(s);
}

static fmi3Status set_values(fmi3Instance c, const char *call, int type, const char *method,
                             const fmi3ValueReference vr[], size_t nvr, const void *values, size_t nValues,
                             ToPy3 convert)
{
    Instance3 *inst = checked3(c, call, S3_ANY);
    if (!inst || !check_refs3(inst, call, type, vr, nvr, values, nValues))
        return fmi3Error;
    for (size_t i = 0; i < nvr; ++i)
        if (!settable(inst, call, vr[i]))
            return fmi3Error; /* nothing set: the call is all or nothing */
    if (nvr == 0)
        return fmi3OK;
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter3(inst);
    PyObject *list = py->List_New((Py_ssize_t)nvr);
    int ok = list != NULL;
    for (size_t i = 0; ok && i < nvr; ++i) {
        PyObject *x = convert(inst, values, i);
        ok = x != NULL && py->List_SetItem(list, (Py_ssize_t)i, x) == 0;
    }
    PyObject *result = NULL;
    if (ok) {
        PyObject *args = py->Tuple_New(2);
        py->Tuple_SetItem(args, 0, vr_list3(py, vr, nvr));
        py->Tuple_SetItem(args, 1, list);
        list = NULL; /* consumed with the arguments */
        result = call_slave3(inst, call, method, args);
        ok = result != NULL;
    } else {
        char err[1024];
        py_error_text(py, err, sizeof err);
        ERR3(inst, "%s: a value cannot be converted to %s %s", call, TYPE3_NAMES[type], err);
    }
    py->DecRef(list);
    py->DecRef(result);
    leave3(inst, g);
    return ok ? fmi3OK : fmi3Error;
}

#define SETTER(Name, CType, Type, method, convert)                                                            \
    FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,          \
                                         const CType values[], size_t nValues)                                \
    {                                                                                                         \
        return set_values(c, "fmi3Set" #Name, Type, method, vr, nvr, values, nValues, convert);             \
    }
SETTER(Float64, fmi3Float64, T_FLOAT64, "set_float64", float64_to)
SETTER(Int32, fmi3Int32, T_INT32, "set_int32", int32_to)
SETTER(Int64, fmi3Int64, T_INT64, "set_int64", int64_to)
SETTER(UInt64, fmi3UInt64, T_UINT64, "set_uint64", uint64_to)
SETTER(Boolean, fmi3Boolean, T_BOOLEAN, "set_boolean", boolean_to)
SETTER(String, fmi3String, T_STRING, "set_string", string_to)
SETTER(Float32, fmi3Float32, T_FLOAT32, "set_float32", NULL)
SETTER(Int8, fmi3Int8, T_INT8, "set_int8", NULL)
SETTER(UInt8, fmi3UInt8, T_UINT8, "set_uint8", NULL)
SETTER(Int16, fmi3Int16, T_INT16, "set_int16", NULL)
SETTER(UInt16, fmi3UInt16, T_UINT16, "set_uint16", NULL)
SETTER(UInt32, fmi3UInt32, T_UINT32, "set_uint32", NULL)
#undef SETTER
