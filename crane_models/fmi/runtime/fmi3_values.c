/* Variable access of the FMI 3.0 facade (see fmi3_runtime.h): fmi3Get* and fmi3Set* map FMI 3.0's types onto the
 * core's checked get and set (core_values.c), which checks every value reference against the variable table
 * (type, causality, variability) before the slave is called. The FMI 3.0 types without a pythonfmu3 class (Float32, Int8, ...; Binary and Clock
 * in fmi3_step.c) go through the same check: no variable has them, so any value reference is refused. Array variables
 * (pythonfmu3 `dimensions`) are not offered: nValues must equal nvr. */
#define _POSIX_C_SOURCE 200809L
#include "fmi3_runtime.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- get ------------------------------------------------------------------------------------------ */

/* Item i of the slave's result into out (CoreFromPy); 0 on failure (exception pending or logged). */

/* An integer of the slave (also ctypes.c_uint64, whose `.value` is the number, as pythonfmu3's get_uint64
 * returns them) within [low, high]. */
static int integer_in(Core *core, PyObject *item, long low, long high, long *x)
{
    const PyApi *py = core->py;
    PyObject *inner = py->Object_GetAttrString(item, "value");
    py->Err_Clear();
    *x = py->Long_AsLong(inner ? inner : item);
    py->DecRef(inner);
    if (*x == -1 && py->Err_Occurred())
        return 0;
    if (*x < low || *x > high) {
        CORE_ERR(core, "the slave's value %ld does not fit the variable's type", *x);
        return 0;
    }
    return 1;
}

static int int32_from(Core *core, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(core, item, INT32_MIN, INT32_MAX, &x);
    ((fmi3Int32 *)out)[i] = (fmi3Int32)x;
    return ok;
}

static int int64_from(Core *core, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(core, item, LONG_MIN, LONG_MAX, &x); /* CPython's long: 64 bits on LP64 platforms */
    ((fmi3Int64 *)out)[i] = (fmi3Int64)x;
    return ok;
}

static int uint64_from(Core *core, PyObject *item, void *out, size_t i)
{
    long x;
    int ok = integer_in(core, item, 0, LONG_MAX, &x); /* values >= 2^63 are refused (PyLong_AsLong) */
    ((fmi3UInt64 *)out)[i] = (fmi3UInt64)x;
    return ok;
}

static int boolean_from(Core *core, PyObject *item, void *out, size_t i)
{
    int b = core->py->Object_IsTrue(item);
    ((fmi3Boolean *)out)[i] = b > 0;
    return b >= 0;
}

/* Gets are allowed in every state (also Instantiated, for start values; see docs/fmi-runtime.md). */
#define GETTER(Name, CType, Type, method, convert)                                                            \
    FMI3_EXPORT fmi3Status fmi3Get##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,          \
                                         CType values[], size_t nValues)                                      \
    {                                                                                                         \
        Core *core = claimed3(c, "fmi3Get" #Name, CS_ANY);                                                    \
        return to_fmi3(core_release(core, core_get(core, "fmi3Get" #Name, Type, method, vr, nvr, values,      \
                                                   nValues, convert)));                                       \
    }
GETTER(Float64, fmi3Float64, T_FLOAT64, "get_float64", core_double_from)
GETTER(Int32, fmi3Int32, T_INT32, "get_int32", int32_from)
GETTER(Int64, fmi3Int64, T_INT64, "get_int64", int64_from)
GETTER(UInt64, fmi3UInt64, T_UINT64, "get_uint64", uint64_from)
GETTER(Boolean, fmi3Boolean, T_BOOLEAN, "get_boolean", boolean_from)
GETTER(String, fmi3String, T_STRING, "get_string", core_string_from)
/* No pythonfmu3 variable has these types: the check refuses every value reference (nvr = 0 is OK). */
GETTER(Float32, fmi3Float32, T_FLOAT32, "get_float32", NULL)
GETTER(Int8, fmi3Int8, T_INT8, "get_int8", NULL)
GETTER(UInt8, fmi3UInt8, T_UINT8, "get_uint8", NULL)
GETTER(Int16, fmi3Int16, T_INT16, "get_int16", NULL)
GETTER(UInt16, fmi3UInt16, T_UINT16, "get_uint16", NULL)
GETTER(UInt32, fmi3UInt32, T_UINT32, "get_uint32", NULL)
#undef GETTER

/* ---- set ------------------------------------------------------------------------------------------ */

/* A new Python object for value i (CoreToPy: NULL with an error logged or pending). */

static PyObject *float64_to(Core *core, const void *v, size_t i) { return core->py->Float_FromDouble(((const fmi3Float64 *)v)[i]); }
static PyObject *int32_to(Core *core, const void *v, size_t i) { return core->py->Long_FromLong(((const fmi3Int32 *)v)[i]); }
static PyObject *int64_to(Core *core, const void *v, size_t i)
{
    fmi3Int64 x = ((const fmi3Int64 *)v)[i];
    if (x < LONG_MIN || x > LONG_MAX) {
        CORE_ERR(core, "value %lld does not fit this platform's C long", (long long)x);
        return NULL;
    }
    return core->py->Long_FromLong((long)x);
}
static PyObject *uint64_to(Core *core, const void *v, size_t i)
{
    fmi3UInt64 x = ((const fmi3UInt64 *)v)[i];
    if (x > (fmi3UInt64)LONG_MAX) {
        CORE_ERR(core, "value %llu is beyond 2^63 - 1, which this runtime passes to Python", (unsigned long long)x);
        return NULL;
    }
    return core->py->Long_FromLong((long)x);
}
static PyObject *boolean_to(Core *core, const void *v, size_t i) { return core->py->Bool_FromLong(((const fmi3Boolean *)v)[i]); }
static PyObject *string_to(Core *core, const void *v, size_t i)
{
    const char *s = ((const fmi3String *)v)[i];
    if (!s) {
        CORE_ERR(core, "value %zu is a NULL string", i);
        return NULL;
    }
    return core->py->Unicode_FromString(s);
}

#define SETTER(Name, CType, Type, method, convert)                                                            \
    FMI3_EXPORT fmi3Status fmi3Set##Name(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,          \
                                         const CType values[], size_t nValues)                                \
    {                                                                                                         \
        Core *core = claimed3(c, "fmi3Set" #Name, CS_ANY);                                                    \
        return to_fmi3(core_release(core, core_set(core, "fmi3Set" #Name, Type, method, vr, nvr, values,      \
                                                   nValues, convert)));                                       \
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
