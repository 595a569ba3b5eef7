/* The FMI 3.0 facade's instance: the core's record (core.h) and what only FMI 3.0 has -- the host's environment
 * and logMessage callback. The facade's files map FMI 3.0's signatures, types and statuses onto the core,
 * bottom-up: fmi3_log.c (the standard's description, the logger, the instance check), fmi3_values.c (variable
 * access), fmi3_step.c (stepping and the functions not offered), fmi3_states.c (saved states) and fmi3_runtime.c
 * (instantiation, lifecycle). Python is reached through the core and pyapi.c, as in the FMI 2.0 runtime. */
#ifndef CRANE_FMI3_RUNTIME_H
#define CRANE_FMI3_RUNTIME_H

#include "core.h"
#include "fmi3_abi.h"

/* Variable types of pythonfmu3 (pythonfmu3/variables.py) and the FMI 3.0 types without a pythonfmu3 class, so
 * that every fmi3Get/Set call checks its value references against one table. */
enum { T_FLOAT64, T_INT32, T_INT64, T_UINT64, T_BOOLEAN, T_STRING, T_ENUMERATION, /* pythonfmu3 classes */
       T_FLOAT32, T_INT8, T_UINT8, T_INT16, T_UINT16, T_UINT32, T_BINARY, T_CLOCK, T_OTHER };

typedef struct {
    Core core; /* first: an Instance3 is a Core */
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback logger; /* may be NULL: FMI 3.0 lets a host log nothing */
    /* The host's intermediateUpdate when it allowed early return (else NULL): called between internal steps, it
     * may ask doStep to return early (fmi3_step.c). */
    fmi3IntermediateUpdateCallback intermediate_update;
} Instance3;

/* The core's statuses have FMI 3.0's values. */
static inline fmi3Status to_fmi3(CoreStatus s) { return (fmi3Status)s; }
#define CORE3(inst) ((Core *)(inst))
#define ERR3(inst, ...) CORE_ERR(CORE3(inst), __VA_ARGS__)

/* ---- fmi3_log.c ---- */

extern const CoreStandard FMI3_STANDARD;
/* The names of the T_ types, for messages. */
extern const char *const TYPE3_NAMES[];
/* The instance if c is one of ours and `call` is allowed in its state (else logs, NULL). */
Instance3 *checked3(fmi3Instance c, const char *call, int allowed);
/* As checked3, claimed for `call` until core_release (core_claim: one call at a time per instance). */
Core *claimed3(fmi3Instance c, const char *call, int allowed);

/* ---- fmi3_step.c ---- */

/* The core's step_poll: asks the host's intermediateUpdate whether to return early (sets the core's cancel). */
void fmi3_intermediate_update(void *core, double t);

#endif
