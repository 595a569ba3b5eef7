/* The project's FMI 2.0 runtime: stepping, the status queries and the calls this co-simulation runtime does
 * not offer (each fmi2Error with a message): the FMI 2.0 facade over the core's step (core_instance.c). See
 * fmi2_runtime.c and docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "runtime.h"

#include <stddef.h>

FMI2_EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                                  fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    Core *core = claimed(c, "fmi2DoStep", CS_STEP);
    if (!core || !core_step_arguments_ok(core, "fmi2DoStep", currentCommunicationPoint, communicationStepSize))
        return to_fmi2(core_release(core, CORE_ERROR));
    Instance *inst = (Instance *)core;
    int terminate;
    fmi2Status status = to_fmi2(core_do_step(core, "fmi2DoStep", currentCommunicationPoint, communicationStepSize,
                                             &terminate));
    if (core->cancel && status != fmi2OK) { /* the slave stopped at the cancel: not a discarded step */
        LOG_ERROR(inst, "fmi2DoStep: cancelled by fmi2CancelStep; the state is left at t = %g s", currentCommunicationPoint);
        status = fmi2Error;
    }
    if (status == fmi2OK || status == fmi2Warning)
        inst->last_successful_time = core->time;
    inst->last_step_status = status;
    return to_fmi2(core_release(core, (CoreStatus)status));
}

FMI2_EXPORT fmi2Status fmi2CancelStep(fmi2Component c)
{
    Instance *inst = checked(c, "fmi2CancelStep", CS_STEP);
    if (!inst)
        return fmi2Error;
    if (!inst->core.stepping) {
        LOG_ERROR(inst, "fmi2CancelStep: no fmi2DoStep in progress (fmi2DoStep is synchronous: call fmi2CancelStep "
                        "from another thread while it runs)");
        return fmi2Error;
    }
    /* No claim (the step holds it) and no GIL: a plain int the steppers read before every internal step (the kernel
     * too, by address). */
    inst->core.cancel = 1;
    return fmi2OK;
}

/* ---- statuses ------------------------------------------------------------------------------------ */

/* The instance claimed for a status query (release with core_release), NULL when refused or value is NULL. */
static Instance *status_query(fmi2Component c, const char *call, const void *value)
{
    Core *core = claimed(c, call, CS_ANY);
    if (core && !value) {
        CORE_ERR(core, "%s: value is NULL", call);
        core_release(core, CORE_ERROR);
        return NULL;
    }
    return (Instance *)core;
}

FMI2_EXPORT fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
    Instance *inst = status_query(c, "fmi2GetStatus", value);
    if (!inst)
        return fmi2Error;
    if (s != fmi2DoStepStatus) {
        LOG_ERROR(inst, "fmi2GetStatus: status kind %d is not available for fmi2Status (only fmi2DoStepStatus; "
                        "fmi2DoStep never returns fmi2Pending)", (int)s);
        return to_fmi2(core_release(CORE(inst), CORE_ERROR));
    }
    *value = inst->last_step_status;
    return to_fmi2(core_release(CORE(inst), CORE_OK));
}

FMI2_EXPORT fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
    Instance *inst = status_query(c, "fmi2GetRealStatus", value);
    if (!inst)
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime) {
        LOG_ERROR(inst, "fmi2GetRealStatus: status kind %d is not a real status (only fmi2LastSuccessfulTime)", (int)s);
        return to_fmi2(core_release(CORE(inst), CORE_ERROR));
    }
    *value = inst->last_successful_time;
    return to_fmi2(core_release(CORE(inst), CORE_OK));
}

FMI2_EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
    Instance *inst = status_query(c, "fmi2GetIntegerStatus", value);
    if (inst)
        LOG_ERROR(inst, "fmi2GetIntegerStatus: status kind %d: FMI 2.0 defines no integer status", (int)s);
    return to_fmi2(core_release(CORE(inst), CORE_ERROR));
}

FMI2_EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
    Instance *inst = status_query(c, "fmi2GetBooleanStatus", value);
    if (!inst)
        return fmi2Error;
    if (s != fmi2Terminated) {
        LOG_ERROR(inst, "fmi2GetBooleanStatus: status kind %d is not a boolean status (only fmi2Terminated)", (int)s);
        return to_fmi2(core_release(CORE(inst), CORE_ERROR));
    }
    *value = fmi2False; /* the slave never asks to end the simulation */
    return to_fmi2(core_release(CORE(inst), CORE_OK));
}

FMI2_EXPORT fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
    Instance *inst = status_query(c, "fmi2GetStringStatus", value);
    if (!inst)
        return fmi2Error;
    if (s != fmi2PendingStatus) {
        LOG_ERROR(inst, "fmi2GetStringStatus: status kind %d is not a string status (only fmi2PendingStatus)", (int)s);
        return to_fmi2(core_release(CORE(inst), CORE_ERROR));
    }
    *value = "no asynchronous step pending";
    return to_fmi2(core_release(CORE(inst), CORE_OK));
}

/* ---- what this FMU does not offer (capability flags false in modelDescription.xml) ------------------ */

FMI2_EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    Instance *inst = checked(c, "fmi2SetRealInputDerivatives", CS_ANY);
    if (inst)
        LOG_ERROR(inst, "fmi2SetRealInputDerivatives: not supported (canInterpolateInputs is false)");
    return fmi2Error;
}

FMI2_EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                                    const fmi2Integer order[], fmi2Real value[])
{
    (void)vr; (void)nvr; (void)order; (void)value;
    Instance *inst = checked(c, "fmi2GetRealOutputDerivatives", CS_ANY);
    if (inst)
        LOG_ERROR(inst, "fmi2GetRealOutputDerivatives: not supported (maxOutputDerivativeOrder is 0)");
    return fmi2Error;
}

