/* The runtime's instance: one hosted pythonfmu slave, its FMI 2.0 co-simulation state and the table of
 * its variables (built at instantiate). Shared by its floors, bottom-up: fmi2_log.c (messages, the instance
 * check, the call into the slave), fmi2_values.c (the variable table, variable access), fmi2_step.c (stepping,
 * statuses), fmi2_states.c (saved states) and fmi2_runtime.c (finding Python, lifecycle). */
#ifndef CRANE_RUNTIME_H
#define CRANE_RUNTIME_H

#include "fmi2_abi.h"
#include "pyapi.h"

/* FMI 2.0 co-simulation states (standard, section 4.2.4), as bits so a call lists where it is allowed. */
enum {
    ST_INSTANTIATED = 1, /* after fmi2Instantiate / fmi2Reset */
    ST_INIT = 2,         /* initialization mode */
    ST_STEPPING = 4,     /* slaveInitialized: stepComplete (also after a discarded step: see docs) */
    ST_TERMINATED = 8,
    ST_BROKEN = 16,      /* the instance cannot go on: only fmi2FreeInstance helps */
    ST_ANY_USABLE = ST_INSTANTIATED | ST_INIT | ST_STEPPING | ST_TERMINATED
};

/* Variable kinds, causalities and variabilities with pythonfmu's enumeration values (pythonfmu/enums.py). */
enum { K_REAL, K_INTEGER, K_BOOLEAN, K_STRING, K_OTHER };
enum { C_PARAMETER, C_CALCULATED_PARAMETER, C_INPUT, C_OUTPUT, C_LOCAL, C_INDEPENDENT };
enum { V_CONSTANT, V_FIXED, V_TUNABLE, V_DISCRETE, V_CONTINUOUS };

typedef struct {
    unsigned char kind, causality, variability;
} VarInfo;

#define INSTANCE_MAGIC 0x43524e45u /* "CRNE": rejects pointers that are not instances of this runtime */
#define MAX_CATEGORIES 32

typedef struct {
    unsigned magic;
    char *name, *guid, *resources, *module, *class_name;
    fmi2CallbackFunctions cb;
    int state, visible;
    int logging_on, n_categories; /* n_categories 0: every category */
    char *categories[MAX_CATEGORIES];
    const PyApi *py;
    PyObject *slave, *log_queue;
    VarInfo *vars;
    size_t n_vars;
    double time, last_successful_time;
    fmi2Status last_step_status;
    /* fmi2CancelStep from another thread while fmi2DoStep runs: `cancel` is the int the slave's steppers read
     * between internal steps (its address is the slave's _fmi_cancel_flag_address), `stepping` says a step runs. */
    volatile int cancel, stepping;
    char **strings; /* results of the last fmi2GetString, valid until the next call */
    size_t n_strings;
} Instance;

/* ---- fmi2_log.c ---- */

/* Logs through the host's logger: message formatted with printf rules, passed to the host as "%s". */
void log_message(const Instance *inst, fmi2Status status, const char *category, const char *fmt, ...);
#define LOG_ERROR(inst, ...) log_message(inst, fmi2Error, "logStatusError", __VA_ARGS__)
/* The slave's queued log messages (pythonfmu's log_queue) to the host; GIL held. */
void forward_slave_log(Instance *inst);

/* The instance from c if it is one of ours and `call` is allowed in its state (else logs, NULL). */
Instance *checked(fmi2Component c, const char *call, int allowed);

/* Python entered/left around a slave call; leaving forwards what the slave logged. */
PyGILState_STATE enter(Instance *inst);
void leave(Instance *inst, PyGILState_STATE g);

/* Calls slave.<method>(*args) (args a new reference or NULL, consumed). Returns a new reference, or NULL
 * with the exception logged as "<call>: Type: message". */
PyObject *call_slave(Instance *inst, const char *call, const char *method, PyObject *args);

/* ---- fmi2_values.c ---- */

/* Builds the variable table from slave.vars (pythonfmu's registration order = value references). */
int build_var_table(Instance *inst);
void free_strings(Instance *inst);

#endif
