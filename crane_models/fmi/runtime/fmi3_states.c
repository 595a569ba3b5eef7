/* The FMI 3.0 facade's saved FMU states: each call checks the instance and maps its signature onto the core's
 * saved states (core_states.c), whose format is the slave's, as in the FMI 2.0 runtime. See fmi3_runtime.c and
 * docs/fmi-runtime.md. */
#include "fmi3_runtime.h"

/* The instance as a Core when it is one of ours (every state allows these calls; else NULL: the core answers Error). */
static Core *usable(fmi3Instance c, const char *call) { return CORE3(checked3(c, call, CS_ANY)); }

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    return to_fmi3(core_get_state(usable(c, "fmi3GetFMUState"), "fmi3GetFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState)
{
    return to_fmi3(core_set_state(usable(c, "fmi3SetFMUState"), "fmi3SetFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    return to_fmi3(core_free_state(usable(c, "fmi3FreeFMUState"), "fmi3FreeFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t *size)
{
    const char *call = "fmi3SerializedFMUStateSize";
    return to_fmi3(core_state_size(usable(c, call), call, FMUState, size));
}

FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                             size_t size)
{
    const char *call = "fmi3SerializeFMUState";
    return to_fmi3(core_serialize_state(usable(c, call), call, FMUState, serializedState, size));
}

FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState)
{
    const char *call = "fmi3DeserializeFMUState";
    return to_fmi3(core_deserialize_state(usable(c, call), call, serializedState, size, FMUState));
}
