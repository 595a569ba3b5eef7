/* The FMI 3.0 facade's saved FMU states: each call checks the instance and maps its signature onto the core's
 * saved states (core_states.c), whose format is the slave's, as in the FMI 2.0 runtime. See fmi3_runtime.c and
 * docs/fmi-runtime.md. */
#include "fmi3_runtime.h"

/* The instance as a Core claimed for `call` (every state allows these calls; else NULL: the core answers Error);
 * released by done(). */
static Core *usable(fmi3Instance c, const char *call) { return claimed3(c, call, CS_ANY); }
static fmi3Status done(Core *core, CoreStatus status) { return to_fmi3(core_release(core, status)); }

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    Core *core = usable(c, "fmi3GetFMUState");
    return done(core, core_get_state(core, "fmi3GetFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState)
{
    Core *core = usable(c, "fmi3SetFMUState");
    return done(core, core_set_state(core, "fmi3SetFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    Core *core = usable(c, "fmi3FreeFMUState");
    return done(core, core_free_state(core, "fmi3FreeFMUState", FMUState));
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t *size)
{
    const char *call = "fmi3SerializedFMUStateSize";
    Core *core = usable(c, call);
    return done(core, core_state_size(core, call, FMUState, size));
}

FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                             size_t size)
{
    const char *call = "fmi3SerializeFMUState";
    Core *core = usable(c, call);
    return done(core, core_serialize_state(core, call, FMUState, serializedState, size));
}

FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState)
{
    const char *call = "fmi3DeserializeFMUState";
    Core *core = usable(c, call);
    return done(core, core_deserialize_state(core, call, serializedState, size, FMUState));
}
