/* The FMI 2.0 facade's saved FMU states: each call checks the instance and maps its signature onto the core's
 * saved states (core_states.c). See fmi2_runtime.c and docs/fmi-runtime.md. */
#include "runtime.h"

/* The instance as a Core claimed for `call` (else NULL: the core then answers Error); released by done(). */
static Core *usable(fmi2Component c, const char *call) { return claimed(c, call, CS_ANY); }
static fmi2Status done(Core *core, CoreStatus status) { return to_fmi2(core_release(core, status)); }

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    Core *core = usable(c, "fmi2GetFMUstate");
    return done(core, core_get_state(core, "fmi2GetFMUstate", FMUstate));
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    Core *core = usable(c, "fmi2SetFMUstate");
    CoreStatus status = core_set_state(core, "fmi2SetFMUstate", FMUstate);
    if (status == CORE_OK) /* fmi2LastSuccessfulTime: the restored state's time (core_set_state) */
        ((Instance *)core)->last_successful_time = core->time;
    return done(core, status);
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    Core *core = usable(c, "fmi2FreeFMUstate");
    return done(core, core_free_state(core, "fmi2FreeFMUstate", FMUstate));
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    const char *call = "fmi2SerializedFMUstateSize";
    Core *core = usable(c, call);
    return done(core, core_state_size(core, call, FMUstate, size));
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                             size_t size)
{
    const char *call = "fmi2SerializeFMUstate";
    Core *core = usable(c, call);
    return done(core, core_serialize_state(core, call, FMUstate, serializedState, size));
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                               fmi2FMUstate *FMUstate)
{
    const char *call = "fmi2DeSerializeFMUstate";
    Core *core = usable(c, call);
    return done(core, core_deserialize_state(core, call, serializedState, size, FMUstate));
}
