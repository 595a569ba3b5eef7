/* The FMI 3.0 runtime: fmi3DoStep, the directional derivative (the slave's, as in the FMI 2.0 runtime) and
 * every FMI 3.0 function this co-simulation FMU does not offer -- model exchange, scheduled execution,
 * events, clocks, configuration mode, adjoint and output derivatives, variable dependencies, Binary and
 * Clock variables -- each an fmi3Error (NULL for the instantiations) with a message naming the call. See fmi3_runtime.c and docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "fmi3_runtime.h"

#include <stddef.h>

/* Between two internal steps (the core's step_poll, from the stepping thread): the host's intermediateUpdate,
 * FMI 3.0 section 4.2.4, with no variable to get or set; when it asks for an early return the step ends before
 * the next internal step. The state goes back to the step's start (the steppers keep no partial step), so
 * doStep returns early at currentCommunicationPoint -- also when the host named a later earlyReturnTime: the host
 * may then step to that time exactly. */
void fmi3_intermediate_update(void *core, double t)
{
    Instance3 *inst = core;
    fmi3Boolean requested = false;
    fmi3Float64 when = t;
    fmi3Boolean finished = t > inst->core.time; /* the first call of a step comes before any internal step */
    inst->intermediate_update(inst->env, t, false, false, finished, true, &requested, &when);
    if (requested)
        inst->core.cancel = 1;
}

FMI3_EXPORT fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                                  fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    const char *call = "fmi3DoStep";
    Core *core = claimed3(c, call, CS_STEP);
    if (!core)
        return fmi3Error;
    Instance3 *inst = (Instance3 *)core;
    if (!eventHandlingNeeded || !terminateSimulation || !earlyReturn || !lastSuccessfulTime) {
        ERR3(inst, "%s: eventHandlingNeeded, terminateSimulation, earlyReturn and lastSuccessfulTime must point to "
                   "the host's variables (one is NULL)", call);
        return to_fmi3(core_release(core, CORE_ERROR));
    }
    /* No events; early only when the host asks (fmi3_intermediate_update): the outputs are set before anything
     * can fail. */
    *eventHandlingNeeded = false;
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = inst->core.time;
    if (!core_step_arguments_ok(core, call, currentCommunicationPoint, communicationStepSize))
        return to_fmi3(core_release(core, CORE_ERROR));
    int terminate;
    fmi3Status status = to_fmi3(core_do_step(core, call, currentCommunicationPoint, communicationStepSize,
                                             &terminate));
    /* After OK the step reached its end; after Discard the slave left its state at the step's start, and after
     * Error (arguments refused: a communication point of 1e308) nothing moved: the FMU's time either way. A step
     * the host ended through intermediateUpdate is an early return (OK, state and time at the step's start). */
    if (inst->core.cancel && status != fmi3OK) {
        *earlyReturn = true;
        status = fmi3OK;
    }
    *lastSuccessfulTime = inst->core.time;
    *terminateSimulation = terminate != 0;
    return to_fmi3(core_release(core, (CoreStatus)status));
}

/* sensitivity = (d unknowns / d knowns) seed at the current state, from the slave's
 * get_directional_derivative(unknowns, knowns, seed) (FMI 3.0, section 2.2.11; scalar Float64 variables,
 * checked here). A slave without that method answers fmi3Error, naming it. */
FMI3_EXPORT fmi3Status fmi3GetDirectionalDerivative(fmi3Instance c, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                                    const fmi3ValueReference knowns[], size_t nKnowns,
                                                    const fmi3Float64 seed[], size_t nSeed,
                                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    const char *call = "fmi3GetDirectionalDerivative";
    Core *core = claimed3(c, call, CS_INIT | CS_STEP);
    if (!core || !core_check_refs(core, call, T_FLOAT64, unknowns, nUnknowns, sensitivity, nSensitivity) ||
        !core_check_refs(core, call, T_FLOAT64, knowns, nKnowns, seed, nSeed))
        return to_fmi3(core_release(core, CORE_ERROR));
    return to_fmi3(core_release(core, core_directional_derivative(core, call, unknowns, nUnknowns, knowns, nKnowns,
                                                                  seed, sensitivity)));
}

/* ---- what this FMU does not offer (capability flags false or absent in modelDescription.xml) ---------- */

/* fmi3Error with "<call>: not supported (<why>)" when c is one of this runtime's instances. */
static fmi3Status unsupported(fmi3Instance c, const char *call, const char *why)
{
    Instance3 *inst = checked3(c, call, CS_ANY);
    if (inst)
        ERR3(inst, "%s: not supported (%s)", call, why);
    return fmi3Error;
}

#define NO_EVENTS "this co-simulation FMU has no event mode: hasEventMode is false and eventModeUsed must be false"
#define NO_ME "this FMU offers co-simulation only, no model exchange"
#define NO_CLOCKS "this FMU has no clocks"

FMI3_EXPORT fmi3Status fmi3EnterEventMode(fmi3Instance c) { return unsupported(c, "fmi3EnterEventMode", NO_EVENTS); }
FMI3_EXPORT fmi3Status fmi3EnterStepMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterStepMode", "allowed in Event Mode only, which this FMU never enters; it is in "
                                               "Step Mode from fmi3ExitInitializationMode on");
}
FMI3_EXPORT fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c)
{
    return unsupported(c, "fmi3EvaluateDiscreteStates", NO_EVENTS);
}
FMI3_EXPORT fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime)
{
    (void)discreteStatesNeedUpdate; (void)terminateSimulation; (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged; (void)nextEventTimeDefined; (void)nextEventTime;
    return unsupported(c, "fmi3UpdateDiscreteStates", NO_EVENTS);
}
FMI3_EXPORT fmi3Status fmi3EnterConfigurationMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterConfigurationMode", "this FMU has no structural parameters");
}
FMI3_EXPORT fmi3Status fmi3ExitConfigurationMode(fmi3Instance c)
{
    return unsupported(c, "fmi3ExitConfigurationMode", "this FMU has no structural parameters");
}
FMI3_EXPORT fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c, fmi3ValueReference valueReference,
                                                           size_t *nDependencies)
{
    (void)valueReference; (void)nDependencies;
    return unsupported(c, "fmi3GetNumberOfVariableDependencies", "providesPerElementDependencies is false");
}
FMI3_EXPORT fmi3Status fmi3GetVariableDependencies(fmi3Instance c, fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
    (void)dependent; (void)elementIndicesOfDependent; (void)independents; (void)elementIndicesOfIndependents;
    (void)dependencyKinds; (void)nDependencies;
    return unsupported(c, "fmi3GetVariableDependencies", "providesPerElementDependencies is false");
}
FMI3_EXPORT fmi3Status fmi3GetAdjointDerivative(fmi3Instance c, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                                const fmi3ValueReference knowns[], size_t nKnowns,
                                                const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
                                                size_t nSensitivity)
{
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed; (void)sensitivity;
    (void)nSensitivity;
    return unsupported(c, "fmi3GetAdjointDerivative", "providesAdjointDerivatives is false");
}
FMI3_EXPORT fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t nValues)
{
    (void)valueReferences; (void)nValueReferences; (void)orders; (void)values; (void)nValues;
    return unsupported(c, "fmi3GetOutputDerivatives", "maxOutputDerivativeOrder is 0");
}

/* clocks (scheduled execution and event mode) */
FMI3_EXPORT fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                              fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[])
{
    (void)vr; (void)nvr; (void)intervals; (void)qualifiers;
    return unsupported(c, "fmi3GetIntervalDecimal", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3GetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                               fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                               fmi3IntervalQualifier qualifiers[])
{
    (void)vr; (void)nvr; (void)counters; (void)resolutions; (void)qualifiers;
    return unsupported(c, "fmi3GetIntervalFraction", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                           fmi3Float64 shifts[])
{
    (void)vr; (void)nvr; (void)shifts;
    return unsupported(c, "fmi3GetShiftDecimal", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3GetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                            fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(c, "fmi3GetShiftFraction", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3SetIntervalDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                              const fmi3Float64 intervals[])
{
    (void)vr; (void)nvr; (void)intervals;
    return unsupported(c, "fmi3SetIntervalDecimal", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3SetIntervalFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                               const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(c, "fmi3SetIntervalFraction", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3SetShiftDecimal(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                           const fmi3Float64 shifts[])
{
    (void)vr; (void)nvr; (void)shifts;
    return unsupported(c, "fmi3SetShiftDecimal", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3SetShiftFraction(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                            const fmi3UInt64 counters[], const fmi3UInt64 resolutions[])
{
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(c, "fmi3SetShiftFraction", NO_CLOCKS);
}
FMI3_EXPORT fmi3Status fmi3ActivateModelPartition(fmi3Instance c, fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime)
{
    (void)clockReference; (void)activationTime;
    return unsupported(c, "fmi3ActivateModelPartition", "this FMU offers no scheduled execution");
}

/* Binary and Clock variables: pythonfmu3 has neither, so any value reference is refused by the check
 * (it names the variable's real type); none asked for is OK. */
static fmi3Status no_such_variables(fmi3Instance c, const char *call, int type, const fmi3ValueReference vr[],
                                    size_t nvr, const void *values, size_t nValues)
{
    Core *core = claimed3(c, call, CS_ANY);
    if (!core)
        return fmi3Error;
    int ok = core_check_refs(core, call, type, vr, nvr, values, nValues); /* nvr = 0: nothing asked */
    return to_fmi3(core_release(core, ok ? CORE_OK : CORE_ERROR));
}

FMI3_EXPORT fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, size_t valueSizes[],
                                     fmi3Binary values[], size_t nValues)
{
    (void)valueSizes;
    return no_such_variables(c, "fmi3GetBinary", T_BINARY, vr, nvr, values, nValues);
}

FMI3_EXPORT fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[])
{
    return no_such_variables(c, "fmi3GetClock", T_CLOCK, vr, nvr, values, nvr);
}

FMI3_EXPORT fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr,
                                     const size_t valueSizes[], const fmi3Binary values[], size_t nValues)
{
    (void)valueSizes;
    return no_such_variables(c, "fmi3SetBinary", T_BINARY, vr, nvr, values, nValues);
}

FMI3_EXPORT fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference vr[], size_t nvr, const fmi3Clock values[])
{
    return no_such_variables(c, "fmi3SetClock", T_CLOCK, vr, nvr, values, nvr);
}

/* Model exchange and scheduled execution: this FMU declares co-simulation only. */
static void refuse_interface(fmi3String instanceName, fmi3InstanceEnvironment env, fmi3LogMessageCallback logMessage,
                             const char *call, const char *interface)
{
    Instance3 tmp = {0};
    tmp.core.std = &FMI3_STANDARD;
    tmp.core.name = (char *)(instanceName ? instanceName : "?");
    tmp.env = env;
    tmp.logger = logMessage;
    ERR3(&tmp, "%s: this FMU offers co-simulation only, not %s (use fmi3InstantiateCoSimulation)", call, interface);
}

FMI3_EXPORT fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                      fmi3String resourcePath, fmi3Boolean visible,
                                                      fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage)
{
    (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    refuse_interface(instanceName, instanceEnvironment, logMessage, "fmi3InstantiateModelExchange", "model exchange");
    return NULL;
}

FMI3_EXPORT fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    refuse_interface(instanceName, instanceEnvironment, logMessage, "fmi3InstantiateScheduledExecution",
                     "scheduled execution");
    return NULL;
}


FMI3_EXPORT fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c)
{
    return unsupported(c, "fmi3EnterContinuousTimeMode", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation)
{
    (void)noSetFMUStatePriorToCurrentPoint; (void)enterEventMode; (void)terminateSimulation;
    return unsupported(c, "fmi3CompletedIntegratorStep", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time)
{
    (void)time;
    return unsupported(c, "fmi3SetTime", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates)
{
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(c, "fmi3SetContinuousStates", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 derivatives[],
                                                         size_t nContinuousStates)
{
    (void)derivatives; (void)nContinuousStates;
    return unsupported(c, "fmi3GetContinuousStateDerivatives", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 eventIndicators[], size_t nEventIndicators)
{
    (void)eventIndicators; (void)nEventIndicators;
    return unsupported(c, "fmi3GetEventIndicators", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 continuousStates[], size_t nContinuousStates)
{
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(c, "fmi3GetContinuousStates", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 nominals[], size_t nContinuousStates)
{
    (void)nominals; (void)nContinuousStates;
    return unsupported(c, "fmi3GetNominalsOfContinuousStates", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t *nEventIndicators)
{
    (void)nEventIndicators;
    return unsupported(c, "fmi3GetNumberOfEventIndicators", NO_ME);
}
FMI3_EXPORT fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t *nContinuousStates)
{
    (void)nContinuousStates;
    return unsupported(c, "fmi3GetNumberOfContinuousStates", NO_ME);
}
