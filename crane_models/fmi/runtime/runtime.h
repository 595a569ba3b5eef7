/* The FMI 2.0 facade's instance: the core's record (core.h) and what only FMI 2.0 has -- the host's callbacks,
 * the last step's status and time for fmi2Get*Status. The facade's files map FMI 2.0's signatures, types and
 * statuses onto the core, bottom-up: fmi2_log.c (the standard's description, the logger, the instance check),
 * fmi2_values.c (variable access), fmi2_step.c (stepping, statuses), fmi2_states.c (saved states) and
 * fmi2_runtime.c (instantiation, lifecycle). */
#ifndef CRANE_RUNTIME_H
#define CRANE_RUNTIME_H

#include "core.h"
#include "fmi2_abi.h"

/* Variable types of the FMI 2.0 facade: pythonfmu's variable classes (pythonfmu/variables.py), in this order. */
enum { K_REAL, K_INTEGER, K_BOOLEAN, K_STRING, K_OTHER };

typedef struct {
    Core core; /* first: an Instance is a Core */
    fmi2CallbackFunctions cb;
    double last_successful_time;
    fmi2Status last_step_status;
} Instance;

/* The core's statuses have FMI 2.0's values. */
static inline fmi2Status to_fmi2(CoreStatus s) { return (fmi2Status)s; }
#define CORE(inst) ((Core *)(inst))

/* ---- fmi2_log.c ---- */

extern const CoreStandard FMI2_STANDARD;
/* The instance from c if it is one of ours and `call` is allowed in its state (else logs, NULL). */
Instance *checked(fmi2Component c, const char *call, int allowed);
/* As checked, claimed for `call` until core_release (core_claim: one call at a time per instance). */
Core *claimed(fmi2Component c, const char *call, int allowed);
#define LOG_ERROR(inst, ...) CORE_ERR(CORE(inst), __VA_ARGS__)

#endif
