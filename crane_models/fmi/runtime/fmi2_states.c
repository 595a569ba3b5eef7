/* The FMI 2.0 facade's saved FMU states: each call checks the instance and maps its signature onto the core's
 * saved states (core_states.c). See fmi2_runtime.c and docs/fmi-runtime.md. */
#include "runtime.h"

/* The instance as a Core when `call` is one of its usable states (else NULL: the core then answers Error). */
static Core *usable(fmi2Component c, const char *call) { return CORE(checked(c, call, CS_ANY)); }

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    return to_fmi2(core_get_state(usable(c, "fmi2GetFMUstate"), "fmi2GetFMUstate", FMUstate));
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    Core *core = usable(c, "fmi2SetFMUstate");
    fmi2Status status = to_fmi2(core_set_state(core, "fmi2SetFMUstate", FMUstate));
    if (status == fmi2OK) /* fmi2LastSuccessfulTime: the restored state's time (core_set_state) */
        ((Instance *)core)->last_successful_time = core->time;
    return status;
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    return to_fmi2(core_free_state(usable(c, "fmi2FreeFMUstate"), "fmi2FreeFMUstate", FMUstate));
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    const char *call = "fmi2SerializedFMUstateSize";
    return to_fmi2(core_state_size(usable(c, call), call, FMUstate, size));
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                             size_t size)
{
    const char *call = "fmi2SerializeFMUstate";
    return to_fmi2(core_serialize_state(usable(c, call), call, FMUstate, serializedState, size));
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                               fmi2FMUstate *FMUstate)
{
    const char *call = "fmi2DeSerializeFMUstate";
    return to_fmi2(core_deserialize_state(usable(c, call), call, serializedState, size, FMUstate));
}
