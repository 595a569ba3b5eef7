/* The project's FMI 2.0 co-simulation runtime for pythonfmu slaves: instantiation, the state machine and the
 * mode changes -- the top floor of the FMI 2.0 facade, over the generic core (core.h) and the Python loader
 * (pyapi.c).
 *
 * One binary hosts any pythonfmu `Fmi2Slave` subclass: the FMU's resources/ hold the slave module
 * (named in slavemodule.txt, as pythonfmu writes it) and this runtime's record crane_cosim_runtime.txt
 * (`key=value` lines: module, class, and what the FMU needs of a Python: its version, its packages; the GUID is
 * read from modelDescription.xml). Every call checks its instance, its state and its arguments, then calls the
 * slave; a Python exception becomes fmi2Error with the exception's text logged, and the instance stays usable.
 * See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "runtime.h"

#include <string.h>

FMI2_EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI2_EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

/* The GUID the host passes against modelDescription.xml's (when the XML is beside resources/: a reproducible
 * build derives it from the FMU's content). 1 when it matches or there is nothing to compare with. */
static int guid_matches(Instance *inst, const char *guid)
{
    char value[1024];
    if (core_model_attribute(inst->core.resources, "guid", value, sizeof value) && (!guid || strcmp(guid, value))) {
        LOG_ERROR(inst, "fmi2Instantiate: fmuGUID = %s does not match this FMU's guid %s (a modelDescription.xml "
                        "from another FMU or build?)", guid ? guid : "NULL", value);
        return 0;
    }
    inst->core.id = strdup(guid ? guid : "");
    return 1;
}

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                          fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                                          fmi2Boolean loggingOn)
{
    if (!functions || !functions->logger)
        return NULL; /* FMI 2.0 requires a logger; without one nothing can be reported */
    Instance *inst = (Instance *)core_new(&FMI2_STANDARD, sizeof(Instance), instanceName, visible != fmi2False,
                                          loggingOn != fmi2False);
    if (!inst)
        return NULL;
    inst->cb = *functions;
    if (!instanceName || !*instanceName) {
        LOG_ERROR(inst, "fmi2Instantiate: instanceName must be a non-empty string");
        goto fail;
    }
    if (fmuType != fmi2CoSimulation) {
        LOG_ERROR(inst, "fmi2Instantiate: fmuType = %d, but this FMU offers co-simulation only "
                        "(fmi2CoSimulation = 1)", (int)fmuType);
        goto fail;
    }
    inst->core.resources = core_resource_dir(fmuResourceLocation, 1);
    if (!inst->core.resources) {
        LOG_ERROR(inst, "fmi2Instantiate: fmuResourceLocation = %s is not a file URI",
                  fmuResourceLocation ? fmuResourceLocation : "NULL");
        goto fail;
    }
    if (guid_matches(inst, fmuGUID) && core_start(CORE(inst)))
        return inst;
fail:
    core_free(CORE(inst));
    return NULL;
}

/* Freed unless another call runs on the instance (from a callback of that call or another thread): then refused with
 * a message and left valid -- FMI 2.0 gives this call no status, and a free under the running call would leave it,
 * and the host code it returns to, on freed memory; a host that frees too early leaks at worst. */
FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    Core *core = claimed(c, "fmi2FreeInstance", CS_ANY);
    if (core)
        core_free(core);
}

/* ---- the co-simulation state machine ------------------------------------------------------------ */

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                           fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    const char *call = "fmi2SetupExperiment";
    Core *core = claimed(c, call, CS_INSTANTIATED);
    CoreStatus status = core_setup_experiment(core, call, toleranceDefined, tolerance, startTime, stopTimeDefined,
                                              stopTime, 3);
    if (status == CORE_OK)
        ((Instance *)core)->last_successful_time = startTime;
    return to_fmi2(core_release(core, status));
}

static const CoreTransition ENTER_INIT = {"fmi2EnterInitializationMode", CS_INSTANTIATED,
                                          "enter_initialization_mode", CS_INIT};
static const CoreTransition EXIT_INIT = {"fmi2ExitInitializationMode", CS_INIT, "exit_initialization_mode", CS_STEP};
static const CoreTransition TERMINATE = {"fmi2Terminate", CS_INIT | CS_STEP, "terminate", CS_TERMINATED};

/* A transition of the state machine table above, checked against the instance's state first. */
static fmi2Status transition(fmi2Component c, const CoreTransition *t)
{
    Core *core = claimed(c, t->call, t->allowed);
    return to_fmi2(core_release(core, core_transition(core, t)));
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c) { return transition(c, &ENTER_INIT); }
FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c) { return transition(c, &EXIT_INIT); }
FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c) { return transition(c, &TERMINATE); }

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    Core *core = claimed(c, "fmi2Reset", CS_ANY);
    CoreStatus status = core_reset(core, "fmi2Reset");
    if (status == CORE_OK)
        ((Instance *)core)->last_successful_time = 0.0;
    return to_fmi2(core_release(core, status));
}
