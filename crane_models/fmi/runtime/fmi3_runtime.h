/* The FMI 3.0 runtime's instance: one hosted pythonfmu3 slave, its FMI 3.0 co-simulation state and the table
 * of its variables (built at instantiate). Shared by its floors, bottom-up: fmi3_log.c (messages, the instance
 * check, the call into the slave), fmi3_vars.c (the variable table and the value-reference checks),
 * fmi3_values.c (variable access), fmi3_step.c (stepping and the functions not offered), fmi3_states.c (saved
 * states) and fmi3_runtime.c (instantiation, lifecycle). Python is reached through pyapi.c, the same loader as
 * the FMI 2.0 runtime's. */
#ifndef CRANE_FMI3_RUNTIME_H
#define CRANE_FMI3_RUNTIME_H

#include "fmi3_abi.h"
#include "pyapi.h"

/* FMI 3.0 co-simulation states (standard, section 4.2, figure "state machine of co-simulation"), as bits so
 * that a call lists where it is allowed. Event mode is never entered: this runtime offers no events
 * (hasEventMode false), so an instance steps in Step Mode from fmi3ExitInitializationMode on. */
enum {
    S3_INSTANTIATED = 1, /* after fmi3InstantiateCoSimulation / fmi3Reset */
    S3_INIT = 2,         /* Initialization Mode */
    S3_STEP = 4,         /* Step Mode (also after a discarded step: see docs/fmi-runtime.md) */
    S3_TERMINATED = 8,
    S3_ANY = S3_INSTANTIATED | S3_INIT | S3_STEP | S3_TERMINATED
};

/* Variable types of pythonfmu3 (pythonfmu3/variables.py) and the FMI 3.0 types without a pythonfmu3 class,
 * so that every fmi3Get/Set call checks its value references against one table. */
enum { T_FLOAT64, T_INT32, T_INT64, T_UINT64, T_BOOLEAN, T_STRING, T_ENUMERATION, /* pythonfmu3 classes */
       T_FLOAT32, T_INT8, T_UINT8, T_INT16, T_UINT16, T_UINT32, T_BINARY, T_CLOCK, T_OTHER };
/* pythonfmu3's Fmi3Causality and Fmi3Variability values (pythonfmu3/enums.py). */
enum { C3_PARAMETER, C3_CALCULATED_PARAMETER, C3_INPUT, C3_OUTPUT, C3_LOCAL, C3_INDEPENDENT, C3_STRUCTURAL };
enum { V3_CONSTANT, V3_FIXED, V3_TUNABLE, V3_DISCRETE, V3_CONTINUOUS };

typedef struct {
    unsigned char type, causality, variability, array; /* array: declared with dimensions (not offered) */
} Var3;

#define INSTANCE3_MAGIC 0x43524e33u /* "CRN3": rejects pointers that are not instances of this runtime */
#define MAX_CATEGORIES3 32

typedef struct {
    unsigned magic;
    char *name, *token, *resources, *module, *class_name;
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback logger; /* may be NULL: FMI 3.0 lets a host log nothing */
    int state, visible;
    int logging_on, n_categories; /* n_categories 0: every category */
    char *categories[MAX_CATEGORIES3];
    const PyApi *py;
    PyObject *slave, *log_queue;
    Var3 *vars;
    size_t n_vars;
    double time;
    char **strings; /* results of the last fmi3GetString, valid until the next call */
    size_t n_strings;
} Instance3;

/* ---- fmi3_log.c ---- */

/* Logs through the host's callback (printf rules for fmt; the host receives the formatted text). */
void log3(const Instance3 *inst, fmi3Status status, const char *category, const char *fmt, ...);
#define ERR3(inst, ...) log3(inst, fmi3Error, "logStatusError", __VA_ARGS__)
/* The slave's queued log messages (pythonfmu3's log_queue) to the host; GIL held. */
void forward_slave_log3(Instance3 *inst);

/* The instance if c is one of ours and `call` is allowed in its state (else logs, NULL). */
Instance3 *checked3(fmi3Instance c, const char *call, int allowed);

/* Python entered/left around a slave call; leaving forwards what the slave logged. */
PyGILState_STATE enter3(Instance3 *inst);
void leave3(Instance3 *inst, PyGILState_STATE g);

/* slave.<method>(*args) (args a new reference or NULL, consumed): a new reference, or NULL with the
 * exception logged as "<call>: Type: message". */
PyObject *call_slave3(Instance3 *inst, const char *call, const char *method, PyObject *args);

/* ---- fmi3_vars.c ---- */

/* The variable table from slave.vars (pythonfmu3's registration order = value references). */
int build_var_table3(Instance3 *inst);
void free_strings3(Instance3 *inst);
/* The names of the T_ types, for messages. */
extern const char *const TYPE3_NAMES[];

/* The value references as a new Python list. */
PyObject *vr_list3(const PyApi *py, const fmi3ValueReference vr[], size_t n);
/* 1 when every value reference is known and of `type`, and nValues == nvr (scalars only); else logs. */
int check_refs3(Instance3 *inst, const char *call, int type, const fmi3ValueReference vr[], size_t nvr,
                const void *values, size_t nValues);

#endif
