/* The project's FMI 3.0 co-simulation runtime for pythonfmu3 slaves: instantiation, the state machine and the
 * mode changes -- the top floor of the FMI 3.0 facade, over the generic core (core.h) it shares with the FMI 2.0
 * runtime.
 *
 * One binary hosts any pythonfmu3 `Fmi3Slave` subclass, found as the FMI 2.0 runtime finds its slave: the
 * FMU's resources/ hold the slave module and the record crane_cosim_runtime.txt (module, class, the Python
 * version and packages the FMU needs); the instantiation token is read from modelDescription.xml. Every call
 * checks its instance, its state and its arguments, then calls the slave; a Python exception becomes fmi3Error
 * with the exception's text logged, and the instance stays usable. See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "fmi3_runtime.h"

#include <stdlib.h>
#include <string.h>

#define TOKEN_FILE "crane_cosim_token.txt"

/* The FMU's instantiation token (which the reproducible build derives from the FMU's content): the
 * instantiationToken attribute of modelDescription.xml beside resources/, or, for hosts that unpack only
 * binaries/ and resources/ (fmpy's simulate_fmu), the build's copy in resources/crane_cosim_token.txt.
 * 1 when found. */
static int model_token(const char *resources, char *out, size_t size)
{
    if (core_model_attribute(resources, "instantiationToken", out, size))
        return 1;
    char *text = core_read_resource(resources, TOKEN_FILE);
    int found = 0;
    if (text) {
        text[strcspn(text, "\r\n")] = '\0';
        found = *text && strlen(text) < size;
        if (found)
            memcpy(out, text, strlen(text) + 1);
        free(text);
    }
    return found;
}

FMI3_EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

/* The token the host passes against the FMU's; 1 when they match, else logged. */
static int token_matches(Instance3 *inst, const char *call, const char *token)
{
    char value[1024];
    if (!model_token(inst->core.resources, value, sizeof value)) {
        ERR3(inst, "%s: no instantiationToken in %s/../modelDescription.xml nor in %s/%s (resourcePath not the "
                   "FMU's resources folder?)", call, inst->core.resources, inst->core.resources, TOKEN_FILE);
        return 0;
    }
    if (!token || strcmp(token, value) != 0) {
        ERR3(inst, "%s: instantiationToken = %s does not match this FMU's %s (a modelDescription.xml from another "
                   "FMU or build?)", call, token ? token : "NULL", value);
        return 0;
    }
    inst->core.id = strdup(value);
    return 1;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)requiredIntermediateVariables; /* none may be asked for: refused below */
    const char *call = "fmi3InstantiateCoSimulation";
    Instance3 *inst = (Instance3 *)core_new(&FMI3_STANDARD, sizeof(Instance3), instanceName, visible, loggingOn);
    if (!inst)
        return NULL;
    inst->env = instanceEnvironment;
    inst->logger = logMessage;
    if (earlyReturnAllowed && intermediateUpdate) { /* the only use of intermediate updates here: early return */
        inst->intermediate_update = intermediateUpdate;
        inst->core.step_poll = fmi3_intermediate_update;
    }
    if (!instanceName || !*instanceName) {
        ERR3(inst, "%s: instanceName must be a non-empty string", call);
        goto fail;
    }
    if (eventModeUsed) {
        ERR3(inst, "%s: eventModeUsed = true, but this FMU has no event mode (hasEventMode = false)", call);
        goto fail;
    }
    if (nRequiredIntermediateVariables > 0) {
        ERR3(inst, "%s: %zu required intermediate variables, but this FMU offers no intermediate update", call,
             nRequiredIntermediateVariables);
        goto fail;
    }
    inst->core.resources = core_resource_dir(resourcePath, 0);
    if (!inst->core.resources) {
        ERR3(inst, "%s: resourcePath = %s is not the FMU's resources folder", call, resourcePath ? resourcePath : "NULL");
        goto fail;
    }
    if (token_matches(inst, call, instantiationToken) && core_start(CORE3(inst)))
        return inst;
fail:
    core_free(CORE3(inst));
    return NULL;
}

/* Freed unless another call runs on the instance (fmi3DoStep, when its intermediateUpdate frees it): then refused
 * with a message and left valid, as fmi2FreeInstance (fmi2_runtime.c says why). */
FMI3_EXPORT void fmi3FreeInstance(fmi3Instance c)
{
    Core *core = claimed3(c, "fmi3FreeInstance", CS_ANY);
    if (core)
        core_free(core);
}

/* ---- the co-simulation state machine ---------------------------------------------------------- */

/* FMI 3.0 merges fmi2SetupExperiment into this call: the slave gets setup_experiment(start_time) (pythonfmu3's
 * signature) and then enter_initialization_mode(). */
FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                                   fmi3Float64 startTime, fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime)
{
    static const CoreTransition enter = {"fmi3EnterInitializationMode", CS_INSTANTIATED, "enter_initialization_mode",
                                         CS_INIT};
    Core *core = claimed3(c, enter.call, enter.allowed);
    if (core_setup_experiment(core, enter.call, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime,
                              1) != CORE_OK)
        return to_fmi3(core_release(core, CORE_ERROR));
    return to_fmi3(core_release(core, core_transition(core, &enter)));
}

/* eventModeUsed is refused at instantiation, so the instance goes straight to Step Mode. */
static const CoreTransition EXIT_INIT = {"fmi3ExitInitializationMode", CS_INIT, "exit_initialization_mode", CS_STEP};
static const CoreTransition TERMINATE = {"fmi3Terminate", CS_INIT | CS_STEP, "terminate", CS_TERMINATED};

/* A transition of the state machine table above, checked against the instance's state first. */
static fmi3Status transition(fmi3Instance c, const CoreTransition *t)
{
    Core *core = claimed3(c, t->call, t->allowed);
    return to_fmi3(core_release(core, core_transition(core, t)));
}

FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance c) { return transition(c, &EXIT_INIT); }
FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance c) { return transition(c, &TERMINATE); }

FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance c)
{
    Core *core = claimed3(c, "fmi3Reset", CS_ANY);
    return to_fmi3(core_release(core, core_reset(core, "fmi3Reset")));
}
