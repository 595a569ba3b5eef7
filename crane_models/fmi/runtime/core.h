/* The generic FMI core both runtimes share (issue 23, item 1): one hosted pythonfmu/pythonfmu3 slave, its
 * co-simulation state machine, the table of its variables, messages and saved states, written once. The FMI 2.0
 * and FMI 3.0 files (fmi2_*.c, fmi3_*.c) are facades: each maps its standard's signatures, types and status codes
 * onto these functions and describes its standard in one CoreStandard (names, message wording, the slave's
 * classes). Floors, bottom-up: core_log.c (messages, the instance check, the call into the slave), core_values.c
 * (the variable table, variable access), core_states.c (saved states), core_instance.c (instantiation, modes,
 * stepping). Python is reached through pyapi.c. See docs/fmi-runtime.md. */
#ifndef CRANE_CORE_H
#define CRANE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "pyapi.h"

/* The statuses of both standards have these values (FMI 2.0 section 2.1.3, FMI 3.0 section 2.2.3), so a facade
 * maps them one to one; fmi2Pending has no counterpart (this runtime never steps asynchronously). */
typedef enum { CORE_OK, CORE_WARNING, CORE_DISCARD, CORE_ERROR, CORE_FATAL } CoreStatus;

/* The co-simulation states both standards share (FMI 2.0 section 4.2.4, FMI 3.0 section 4.2; FMI 3.0's event
 * mode is never entered: hasEventMode is false), as bits so that a call lists where it is allowed. */
enum {
    CS_INSTANTIATED = 1, /* after Instantiate / Reset */
    CS_INIT = 2,         /* Initialization Mode */
    CS_STEP = 4,         /* stepping (also after a discarded step: see docs/fmi-runtime.md) */
    CS_TERMINATED = 8,
    CS_ANY = CS_INSTANTIATED | CS_INIT | CS_STEP | CS_TERMINATED
};

/* Causality and variability values of pythonfmu and pythonfmu3 (their enums.py; pythonfmu has no structural). */
enum { CC_PARAMETER, CC_CALCULATED_PARAMETER, CC_INPUT, CC_OUTPUT, CC_LOCAL, CC_INDEPENDENT, CC_STRUCTURAL };
enum { CV_CONSTANT, CV_FIXED, CV_TUNABLE, CV_DISCRETE, CV_CONTINUOUS };

typedef struct {
    unsigned char type, causality, variability, array; /* array: declared with dimensions (not offered) */
} CoreVar;

typedef struct Core Core;

/* How a facade's C type holds a value of the value table (CoreStandard.table_types, by type number): CT_DOUBLE in
 * the table's doubles, the others in its int64s (booleans as 0 or 1); CT_NONE: not in the table (strings, UInt64,
 * the types no variable has), always the per-variable path. */
enum { CT_NONE, CT_DOUBLE, CT_INT32, CT_INT64, CT_BOOL_INT, CT_BOOL_BYTE };

/* The value table the runtime owns (core_table.c): indexed by value reference, offered to the slave at
 * instantiation and reset. */
typedef struct {
    double *reals, *saved_reals; /* saved_*: the outputs before a publishing call, restored when it does not publish */
    int64_t *ints, *saved_ints;
    unsigned *outputs; /* the value references of the outputs in the table */
    size_t n, n_outputs;
    int stale; /* an input or the state changed since the outputs were published */
} CoreTable;

/* What a publishing call did with the outputs (core_call_publishing). */
enum { TABLE_KEPT, TABLE_PUBLISHED, TABLE_FORGOTTEN };

/* One standard as the core needs to know it: everything in which FMI 2.0 and FMI 3.0 differ for the core. */
typedef struct {
    unsigned magic;             /* the first word of every instance of this standard's runtime */
    const char *state_names[4]; /* CS_INSTANTIATED, CS_INIT, CS_STEP, CS_TERMINATED, for messages */
    /* The slave's classes: pythonfmu's base class and package, its variable classes in the order of the
     * facade's type numbers (a variable of none of them gets type_other), the names of all type numbers. */
    const char *slave_class, *package;
    const char *const *variable_classes;
    int n_variable_classes, type_other, type_string, type_int64, type_enumeration; /* -1: no such type */
    const char *const *type_names;
    const unsigned char *table_types; /* CT_* by type number: how the facade's C type sits in the value table */
    int causality_max;     /* the highest causality value of the package */
    int settable_causality; /* bits 1 << CC_*: what a host may set */
    /* Wording of the messages: the importer, the calls and the names the standard's text uses. */
    const char *importer, *instantiate_call, *exit_init_call, *terminate_call;
    const char *null_refs_format; /* "%s: ... %zu ..." (call, nvr) when vr or values is NULL */
    const char *state_type, *get_state_call, *deserialize_call, *id_name;
    int passes_cancel_flag; /* the slave gets _fmi_cancel_flag_address (FMI 2.0's fmi2CancelStep) */
    /* What the standard says of a call made while another runs on the instance (core_claim's message), and its
     * free call (which returns no status: refused, it says that the instance stays valid). */
    const char *busy_rule, *free_call;
    /* Hands a formatted message to the host's logger (status already filtered by category). */
    void (*deliver)(const Core *core, CoreStatus status, const char *category, const char *text);
} CoreStandard;

/* A step the slave may hand over to the runtime (issue 23): the C function `step` takes the step from t by h over
 * the value table without Python -- returning 0, the outputs published -- or declines it with nothing changed
 * (nonzero: the slave's do_step then takes it). The slave sets and clears it (its address is the slave's
 * _fmi_native_step_address); a new slave starts without one. See docs/fmi-runtime.md, "Steps without Python". */
typedef struct {
    int (*step)(void *record, double t, double h, double *reals, int64_t *ints);
    void *record;
} CoreNativeStep;

#define CORE_MAX_CATEGORIES 32

/* The instance record every facade's instance starts with (so a facade's instance is a Core). */
struct Core {
    unsigned magic;
    const CoreStandard *std;
    char *name, *id, *resources, *module, *class_name; /* id: the GUID (2.0) or instantiation token (3.0) */
    int state, visible;
    int logging_on, n_categories; /* n_categories 0: every category */
    char *categories[CORE_MAX_CATEGORIES];
    const PyApi *py;
    PyObject *slave, *log_queue;
    CoreVar *vars;
    size_t n_vars;
    CoreTable *table; /* NULL: the slave serves every value itself (per-variable path) */
    double time;
    /* A cancel from another thread while a step runs: `cancel` is the int the slave's steppers read between
     * internal steps (its address is the slave's _fmi_cancel_flag_address), `stepping` says a step runs. */
    volatile int cancel, stepping;
    /* NULL, or what the steppers call before every internal step with its time (from the stepping thread; the
     * slave gets it as _fmi_step_poll = (address, core)): a facade's way to let its host ask for a cancel there
     * (FMI 3.0's intermediate update with early return). Set by the facade before core_start. */
    void (*step_poll)(void *core, double t);
    /* The longest communication step the slave's steppers can reach -- its budget of internal steps times its
     * largest internal step -- written by the slave at its address (_fmi_step_reach_address); 0: no bound known.
     * A longer step is never taken without Python: the slave's do_step refuses it up front, naming its budget. */
    double step_reach;
    CoreNativeStep native; /* step.NULL: every step through the slave's do_step */
    int native_announced;  /* the first step without Python was logged */
    char **strings; /* results of the last string get, valid until the next call */
    size_t n_strings;
    /* The FMI call running on the instance (its name, a string of static storage), NULL when none; only through
     * core_claim / core_release, atomically. `refusing`: a refusal is being logged (a host's logger that calls the
     * instance again is refused without a second message, not without end). */
    const char *busy;
    int refusing;
};

/* One call that moves the state machine: allowed in `allowed`, calls slave.<method>() and goes to `next`. */
typedef struct {
    const char *call;
    int allowed;
    const char *method;
    int next;
} CoreTransition;

/* ---- core_log.c ---- */

/* Logs through the facade's deliver (printf rules); OK-level only when debug logging enables the category. */
void core_log(const Core *core, CoreStatus status, const char *category, const char *fmt, ...);
#define CORE_ERR(core, ...) core_log(core, CORE_ERROR, "logStatusError", __VA_ARGS__)
/* The slave's queued log messages (pythonfmu's log_queue) to the host; GIL held. */
void core_forward_slave_log(Core *core);
/* The instance if c is one of `std`'s and `call` is allowed in its state (else logs, NULL). Without a claim: only for
 * calls that touch nothing another call may change (fmi2CancelStep, the calls not offered). */
Core *core_checked(const CoreStandard *std, void *c, const char *call, int allowed);
/* As core_checked, and the instance claimed for `call` until core_release: one call at a time per instance. A call
 * made while another runs on the instance -- from the host's callback inside that call (FMI 3.0's
 * intermediateUpdate during a step, a logger) or from another thread -- is refused (NULL) with a message naming the
 * rule and the call running, and changes nothing: the running call never meets memory freed or half written under
 * it, and returns its own status. The free call refused so frees nothing (the instance stays valid). */
Core *core_claim(const CoreStandard *std, void *c, const char *call, int allowed);
/* Releases an instance core_claim claimed (NULL: nothing to release); returns status. */
CoreStatus core_release(Core *core, CoreStatus status);
/* Python entered/left around a slave call; leaving forwards what the slave logged. */
PyGILState_STATE core_enter(Core *core);
void core_leave(Core *core, PyGILState_STATE g);
/* slave.<method>(*args) (args a new reference or NULL, consumed): a new reference, or NULL with the exception
 * logged as "<call>: Type: message". GIL held. */
PyObject *core_call_slave(Core *core, const char *call, const char *method, PyObject *args);
/* 1 when the step's arguments are finite and h > 0, else logged (the facade checks them before core_do_step). */
int core_step_arguments_ok(Core *core, const char *call, double t, double h);
/* Debug logging on/off for the given categories (each one the slave's log_categories knows). */
CoreStatus core_set_debug_logging(Core *core, const char *call, int logging_on, size_t n, const char *const names[]);

/* ---- core_table.c ---- */

void core_table_free(CoreTable *t);
/* 1 when variables of this type number live in the value table (of a slave that took one). */
int core_table_holds(const Core *core, int type);
/* A new table offered to the slave: the table when it took it, NULL when it has no use for one (*ok 1) or its
 * _fmi_attach_value_table failed (*ok 0, logged). GIL held. */
CoreTable *core_table_offer(Core *core, const char *call, int *ok);
/* The values of checked value references of a type the table holds into the facade's array out. */
CoreStatus core_table_get(Core *core, const char *call, int type, const unsigned vr[], size_t nvr, void *out);
/* Checked, settable values into the table; an input makes the published outputs stale. */
void core_table_set(Core *core, int type, const unsigned vr[], size_t nvr, const void *values);
/* slave.<method>(*args) (core_call_slave) with the outputs marked before and checked after; *outcome TABLE_*.
 * Without a table only the call (*outcome TABLE_KEPT). GIL held. */
PyObject *core_call_publishing(Core *core, const char *call, const char *method, PyObject *args, int *outcome);
/* Stale outputs among vr[]: slave._fmi_refresh_outputs() publishes them for the current inputs (Python once). */
CoreStatus core_table_refresh(Core *core, const char *call, const unsigned vr[], size_t nvr);
/* Entered Initialization Mode: the outputs are stale until evaluated for the start values and inputs. */
void core_table_mark_stale_in_init(Core *core);
/* 1 unless CRANE_COSIM_NATIVE_STEP is "0" or "off": the slave is offered a CoreNativeStep (_fmi_native_step_address). */
int core_native_steps_offered(void);
/* The step the slave handed over (CoreNativeStep), without Python: 1 when it took it (outputs published, the time
 * at t + h, the step over); 0 when
 * there is none or it declined (nothing changed: the slave's do_step takes the step). Never with a host poll
 * between internal steps (step_poll). */
int core_table_native_step(Core *core, const char *call, double t, double h);
/* The step's status after its publishing call's outcome: Error when an output was forgotten; a step that moved
 * without publishing leaves the outputs stale. */
CoreStatus core_table_after_step(Core *core, int outcome, CoreStatus status);

/* ---- core_values.c ---- */

/* The variable table from slave.vars (registration order = value references); GIL held. */
int core_build_var_table(Core *core);
void core_free_strings(Core *core);
/* 1 when every value reference is known, of `type` and scalar, and nValues == nvr; else logs. */
int core_check_refs(Core *core, const char *call, int type, const unsigned vr[], size_t nvr, const void *values,
                    size_t nValues);
/* Item i of the slave's result into out (the facade's C type); 0 on failure (exception pending or logged). */
typedef int (*CoreFromPy)(Core *core, PyObject *item, void *out, size_t i);
/* A new Python object for value i of the facade's C array (NULL with an error logged or pending). */
typedef PyObject *(*CoreToPy)(Core *core, const void *values, size_t i);
/* The conversions both standards share: a Python number into double out[i] (fmi2Real, fmi3Float64), a Python
 * object's text into const char *out[i] (fmi2String, fmi3String), kept by the instance until the next string get
 * (FMI 2.0 section 2.1.7, FMI 3.0 section 2.2.6.1). */
int core_double_from(Core *core, PyObject *item, void *out, size_t i);
int core_string_from(Core *core, PyObject *item, void *out, size_t i);
/* slave.<method>(vrs) into out, after the checks (any state). */
CoreStatus core_get(Core *core, const char *call, int type, const char *method, const unsigned vr[], size_t nvr,
                    void *out, size_t nValues, CoreFromPy convert);
/* slave.<method>(vrs, values) after the checks and the settable rules; all or nothing. */
CoreStatus core_set(Core *core, const char *call, int type, const char *method, const unsigned vr[], size_t nvr,
                    const void *values, size_t nValues, CoreToPy convert);
/* The slave's get_directional_derivative(unknowns, knowns, seed) into out (value references checked before). */
CoreStatus core_directional_derivative(Core *core, const char *call, const unsigned unknowns[], size_t n_unknowns,
                                       const unsigned knowns[], size_t n_knowns, const double seed[], double out[]);

/* ---- core_states.c ---- */

CoreStatus core_get_state(Core *core, const char *call, void **state);
CoreStatus core_set_state(Core *core, const char *call, void *state);
CoreStatus core_free_state(Core *core, const char *call, void **state);
CoreStatus core_state_size(Core *core, const char *call, void *state, size_t *size);
CoreStatus core_serialize_state(Core *core, const char *call, void *state, void *buffer, size_t size);
CoreStatus core_deserialize_state(Core *core, const char *call, const void *bytes, size_t size, void **state);

/* ---- core_instance.c ---- */

/* A new instance of `size` bytes (the facade's record, a Core first) in state Instantiated; NULL without memory. */
Core *core_new(const CoreStandard *std, size_t size, const char *name, int visible, int logging_on);
/* The resources folder from a path or a file: URI (decoded, no trailing '/'); `always_decode`: %xx also in a
 * plain path (FMI 2.0 passes URIs only). NULL when not one. */
char *core_resource_dir(const char *where, int always_decode);
/* The value of attribute `name` (preceded by white space) in the FMU's modelDescription.xml; 1 when found. */
int core_model_attribute(const char *resources, const char *name, char *out, size_t size);
/* The text of resources/<name> (NUL-terminated, at most 256 KiB), or NULL. */
char *core_read_resource(const char *resources, const char *name);
/* Finds the slave (record or slavemodule.txt), a Python that meets the record, constructs the slave and builds
 * the variable table. 1 on success, else logged. */
int core_start(Core *core);
void core_free(Core *core);
CoreStatus core_transition(Core *core, const CoreTransition *t);
/* Checks the experiment, then slave.setup_experiment(start[, stop or None, tolerance or None]) (n_args 1 or 3). */
CoreStatus core_setup_experiment(Core *core, const char *call, int tolerance_defined, double tolerance,
                                 double start, int stop_defined, double stop, int n_args);
/* A new slave replaces the old one (pythonfmu has no reset); when that fails the old one stays. */
CoreStatus core_reset(Core *core, const char *call);
/* slave.do_step(t, h): its status (a bool, or an object with an FMI `status` and
 * optionally `terminateSimulation`); *terminate set. Time advances after OK or Warning. */
CoreStatus core_do_step(Core *core, const char *call, double t, double h, int *terminate);

#endif
