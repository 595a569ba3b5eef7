/* The FMI 2.0 facade's variable access: fmi2Get*, fmi2Set* and fmi2GetDirectionalDerivative map FMI 2.0's types
 * (Real, Integer, Boolean, String) onto the core's checked get and set (core_values.c). See runtime.h. */
#define _POSIX_C_SOURCE 200809L
#include "runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- get: the slave's values into FMI 2.0's types --------------------------------------------------- */

static int integer_from(Core *core, PyObject *item, void *out, size_t i)
{
    long x = core->py->Long_AsLong(item);
    if (x == -1 && core->py->Err_Occurred())
        return 0;
    if (x < INT_MIN || x > INT_MAX) {
        CORE_ERR(core, "fmi2GetInteger: the slave's value %ld does not fit fmi2Integer", x);
        return 0;
    }
    ((fmi2Integer *)out)[i] = (fmi2Integer)x;
    return 1;
}

static int boolean_from(Core *core, PyObject *item, void *out, size_t i)
{
    int b = core->py->Object_IsTrue(item);
    ((fmi2Boolean *)out)[i] = b > 0 ? fmi2True : fmi2False;
    return b >= 0;
}

#define GETTER(Name, CType, Kind, method, convert)                                                            \
    FMI2_EXPORT fmi2Status fmi2Get##Name(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,         \
                                         CType value[])                                                       \
    {                                                                                                         \
        Core *core = claimed(c, "fmi2Get" #Name, CS_ANY);                                                     \
        return to_fmi2(core_release(core, core_get(core, "fmi2Get" #Name, Kind, method, vr, nvr, value, nvr,  \
                                                   convert)));                                                \
    }
GETTER(Real, fmi2Real, K_REAL, "get_real", core_double_from)
GETTER(Integer, fmi2Integer, K_INTEGER, "get_integer", integer_from)
GETTER(Boolean, fmi2Boolean, K_BOOLEAN, "get_boolean", boolean_from)
GETTER(String, fmi2String, K_STRING, "get_string", core_string_from)
#undef GETTER

/* ---- set: FMI 2.0's types into Python ----------------------------------------------------------------- */

static PyObject *real_to(Core *core, const void *v, size_t i) { return core->py->Float_FromDouble(((const fmi2Real *)v)[i]); }
static PyObject *integer_to(Core *core, const void *v, size_t i) { return core->py->Long_FromLong(((const fmi2Integer *)v)[i]); }
static PyObject *boolean_to(Core *core, const void *v, size_t i) { return core->py->Bool_FromLong(((const fmi2Boolean *)v)[i] != fmi2False); }
static PyObject *string_to(Core *core, const void *v, size_t i)
{
    const char *s = ((const fmi2String *)v)[i];
    return core->py->Unicode_FromString(s ? s : "");
}

#define SETTER(Name, CType, Kind, method, convert)                                                            \
    FMI2_EXPORT fmi2Status fmi2Set##Name(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,         \
                                         const CType value[])                                                 \
    {                                                                                                         \
        Core *core = claimed(c, "fmi2Set" #Name, CS_ANY);                                                     \
        return to_fmi2(core_release(core, core_set(core, "fmi2Set" #Name, Kind, method, vr, nvr, value, nvr,  \
                                                   convert)));                                                \
    }
SETTER(Real, fmi2Real, K_REAL, "set_real", real_to)
SETTER(Integer, fmi2Integer, K_INTEGER, "set_integer", integer_to)
SETTER(Boolean, fmi2Boolean, K_BOOLEAN, "set_boolean", boolean_to)
SETTER(String, fmi2String, K_STRING, "set_string", string_to)
#undef SETTER

/* dvUnknown = (d outputs / d inputs) dvKnown at the current state, from the slave's
 * get_directional_derivative(unknowns, knowns, seed) (FMI 2.0, section 2.1.9; Real variables, checked here). A
 * slave without that method answers fmi2Error, naming it. */
FMI2_EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown[],
                                                    size_t nUnknown, const fmi2ValueReference vKnown[],
                                                    size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    const char *call = "fmi2GetDirectionalDerivative";
    Core *core = claimed(c, call, CS_INIT | CS_STEP);
    if (!core || !core_check_refs(core, call, K_REAL, vUnknown, nUnknown, dvUnknown, nUnknown) ||
        !core_check_refs(core, call, K_REAL, vKnown, nKnown, dvKnown, nKnown))
        return to_fmi2(core_release(core, CORE_ERROR));
    return to_fmi2(core_release(core, core_directional_derivative(core, call, vUnknown, nUnknown, vKnown, nKnown,
                                                                  dvKnown, dvUnknown)));
}
