/* The value table the runtime owns (issue 23, item 2): one C array per storage type, indexed by value reference --
 * `reals` (double) for Real / Float64 variables, `ints` (int64) for Integer / Int32 / Int64 / Enumeration and
 * Boolean (0 or 1) variables -- offered to a slave that asks for it (slave._fmi_attach_value_table(real_address,
 * int_address, n) returning True). Then get and set of those variables are served here in C, after the core's
 * checks, without entering Python; Python runs at doStep (and at the mode changes, saved states and the first get
 * of an output after an input changed), reads its inputs from the table and publishes its outputs into it. A slave
 * without that method (or answering False) keeps the per-variable path (slave.get_* / set_*).
 *
 * Publishing is checked: before a call that may publish (doStep, a mode change, _fmi_refresh_outputs) every output
 * slot is saved and marked (NaN, INT64_MIN) and slave._fmi_outputs_published set False; the slave sets it True
 * when it has written all of them. A slot still marked then is an error naming the variable; a call that did not
 * publish (a discarded step, outputs that cannot be evaluated) leaves the saved values: the last finite ones. The
 * table is the instance's (freed with it, made anew at reset), so instances on different threads share nothing.
 * See docs/fmi-runtime.md, "The value table". */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INT_MARK INT64_MIN /* an integer output slot not yet published (NaN for a real one) */
#define TABLE_SWITCH "CRANE_COSIM_VALUE_TABLE" /* "0" or "off": every slave on the per-variable path */
#define NATIVE_SWITCH "CRANE_COSIM_NATIVE_STEP" /* "0" or "off": every step through the slave's do_step */

void core_table_free(CoreTable *t)
{
    if (!t)
        return;
    free(t->reals);
    free(t->ints);
    free(t->saved_reals);
    free(t->saved_ints);
    free(t->outputs);
    free(t);
}

int core_table_holds(const Core *core, int type) { return core->std->table_types[type] != CT_NONE; }

static int in_reals(const Core *core, int type) { return core->std->table_types[type] == CT_DOUBLE; }

/* A zeroed table for the instance's variables with the list of its outputs; NULL without memory. */
static CoreTable *new_table(const Core *core)
{
    CoreTable *t = calloc(1, sizeof *t);
    size_t n = core->n_vars ? core->n_vars : 1;
    if (!t)
        return NULL;
    t->n = core->n_vars;
    t->reals = calloc(n, sizeof *t->reals);
    t->ints = calloc(n, sizeof *t->ints);
    t->saved_reals = calloc(n, sizeof *t->saved_reals);
    t->saved_ints = calloc(n, sizeof *t->saved_ints);
    t->outputs = calloc(n, sizeof *t->outputs);
    if (!t->reals || !t->ints || !t->saved_reals || !t->saved_ints || !t->outputs) {
        core_table_free(t);
        return NULL;
    }
    for (size_t vr = 0; vr < core->n_vars; ++vr)
        if (core->vars[vr].causality == CC_OUTPUT && !core->vars[vr].array && core_table_holds(core, core->vars[vr].type))
            t->outputs[t->n_outputs++] = (unsigned)vr;
    return t;
}

static int switched_off_by(const char *name)
{
    const char *s = getenv(name);
    return s && (strcmp(s, "0") == 0 || strcmp(s, "off") == 0);
}

int core_native_steps_offered(void) { return !switched_off_by(NATIVE_SWITCH); }

CoreTable *core_table_offer(Core *core, const char *call, int *ok)
{
    const PyApi *py = core->py;
    *ok = 1;
    if (switched_off_by(TABLE_SWITCH))
        return NULL;
    PyObject *attach = py->Object_GetAttrString(core->slave, "_fmi_attach_value_table");
    if (!attach) { /* a plain pythonfmu slave: the per-variable path */
        py->Err_Clear();
        return NULL;
    }
    CoreTable *t = new_table(core);
    PyObject *args = py->Tuple_New(3);
    if (t && args) {
        py->Tuple_SetItem(args, 0, py->Long_FromVoidPtr(t->reals));
        py->Tuple_SetItem(args, 1, py->Long_FromVoidPtr(t->ints));
        py->Tuple_SetItem(args, 2, py->Long_FromLong((long)t->n));
    }
    PyObject *r = t && args ? py->Object_CallObject(attach, args) : NULL;
    int taken = r ? py->Object_IsTrue(r) : -1;
    py->DecRef(r);
    py->DecRef(args);
    py->DecRef(attach);
    if (taken > 0) { /* with debug logging: which path serves the variables */
        core_log(core, CORE_OK, "logAll", "%s: the slave's %zu variables are in the runtime's value table (%zu "
                 "outputs), served without Python", call, t->n, t->n_outputs);
        return t;
    }
    core_table_free(t);
    if (taken < 0) {
        char err[1024];
        py_error_text(py, err, sizeof err);
        CORE_ERR(core, "%s: slave._fmi_attach_value_table failed: %s", call, t ? err : "out of memory");
        *ok = 0;
    }
    return NULL;
}

/* ---- get and set from the table (no Python) ----------------------------------------------------------- */

CoreStatus core_table_get(Core *core, const char *call, int type, const unsigned vr[], size_t nvr, void *out)
{
    const CoreTable *t = core->table;
    int ct = core->std->table_types[type];
    for (size_t i = 0; i < nvr; ++i) {
        int64_t x = ct == CT_DOUBLE ? 0 : t->ints[vr[i]];
        switch (ct) {
        case CT_DOUBLE:
            if (!isfinite(t->reals[vr[i]])) { /* only what a host set can be (outputs are published finite) */
                CORE_ERR(core, "%s: value reference %u holds %g, not a finite number (a value the host set, refused "
                               "where it is used)", call, vr[i], t->reals[vr[i]]);
                return CORE_ERROR;
            }
            ((double *)out)[i] = t->reals[vr[i]];
            break;
        case CT_INT64: ((int64_t *)out)[i] = x; break;
        case CT_BOOL_INT: ((int *)out)[i] = x != 0; break;
        case CT_BOOL_BYTE: ((_Bool *)out)[i] = x != 0; break;
        default: /* CT_INT32 */
            if (x < INT32_MIN || x > INT32_MAX) {
                CORE_ERR(core, "%s: value reference %u holds %lld, which does not fit a 32-bit %s", call, vr[i],
                         (long long)x, core->std->type_names[type]);
                return CORE_ERROR;
            }
            ((int32_t *)out)[i] = (int32_t)x;
        }
    }
    return CORE_OK;
}

void core_table_set(Core *core, int type, const unsigned vr[], size_t nvr, const void *values)
{
    CoreTable *t = core->table;
    int ct = core->std->table_types[type];
    for (size_t i = 0; i < nvr; ++i) {
        switch (ct) {
        case CT_DOUBLE: t->reals[vr[i]] = ((const double *)values)[i]; break;
        case CT_INT64: t->ints[vr[i]] = ((const int64_t *)values)[i]; break;
        case CT_BOOL_INT: t->ints[vr[i]] = ((const int *)values)[i] != 0; break;
        case CT_BOOL_BYTE: t->ints[vr[i]] = ((const _Bool *)values)[i] != 0; break;
        default: t->ints[vr[i]] = ((const int32_t *)values)[i]; /* CT_INT32 */
        }
        /* outputs have direct feedthrough: a new input makes the published ones stale; in Initialization Mode
         * a new start value of a parameter too (the outputs then follow both: docs/fmi-runtime.md) */
        if (core->vars[vr[i]].causality == CC_INPUT || (core->state & CS_INIT))
            t->stale = 1;
    }
}

/* ---- publishing -------------------------------------------------------------------------------------- */

static void mark_outputs(Core *core, CoreTable *t)
{
    for (size_t k = 0; k < t->n_outputs; ++k) {
        unsigned vr = t->outputs[k];
        if (in_reals(core, core->vars[vr].type)) {
            t->saved_reals[vr] = t->reals[vr];
            t->reals[vr] = NAN;
        } else {
            t->saved_ints[vr] = t->ints[vr];
            t->ints[vr] = INT_MARK;
        }
    }
}

static void restore_outputs(Core *core, CoreTable *t)
{
    for (size_t k = 0; k < t->n_outputs; ++k) {
        unsigned vr = t->outputs[k];
        if (in_reals(core, core->vars[vr].type))
            t->reals[vr] = t->saved_reals[vr];
        else
            t->ints[vr] = t->saved_ints[vr];
    }
}

/* The first output slot still marked, or -1. */
static long unpublished_output(const Core *core, const CoreTable *t)
{
    for (size_t k = 0; k < t->n_outputs; ++k) {
        unsigned vr = t->outputs[k];
        if (in_reals(core, core->vars[vr].type) ? isnan(t->reals[vr]) : t->ints[vr] == INT_MARK)
            return (long)vr;
    }
    return -1;
}

/* slave.vars[vr].name into buf ("?" when it cannot be read). GIL held. */
static void variable_name(Core *core, unsigned vr, char *buf, size_t size)
{
    const PyApi *py = core->py;
    PyObject *vars = py->Object_GetAttrString(core->slave, "vars");
    PyObject *key = py->Long_FromLong((long)vr);
    PyObject *var = vars && key ? py->Object_GetItem(vars, key) : NULL;
    PyObject *name = var ? py->Object_GetAttrString(var, "name") : NULL;
    const char *text = name ? py->Unicode_AsUTF8AndSize(name, NULL) : NULL;
    snprintf(buf, size, "%s", text ? text : "?");
    py->Err_Clear();
    py->DecRef(name);
    py->DecRef(var);
    py->DecRef(key);
    py->DecRef(vars);
}

static void set_published_flag(const PyApi *py, PyObject *slave, int value)
{
    PyObject *b = py->Bool_FromLong(value);
    py->Object_SetAttrString(slave, "_fmi_outputs_published", b);
    py->DecRef(b);
}

PyObject *core_call_publishing(Core *core, const char *call, const char *method, PyObject *args, int *outcome)
{
    CoreTable *t = core->table;
    *outcome = TABLE_KEPT;
    if (!t)
        return core_call_slave(core, call, method, args);
    const PyApi *py = core->py;
    mark_outputs(core, t);
    set_published_flag(py, core->slave, 0);
    PyObject *r = core_call_slave(core, call, method, args);
    PyObject *flag = py->Object_GetAttrString(core->slave, "_fmi_outputs_published");
    int published = r && flag && py->Object_IsTrue(flag) > 0;
    py->DecRef(flag);
    py->Err_Clear();
    long missing = published ? unpublished_output(core, t) : -1;
    if (!published || missing >= 0)
        restore_outputs(core, t); /* the last published values stay */
    if (missing >= 0) {
        char name[256];
        variable_name(core, (unsigned)missing, name, sizeof name);
        CORE_ERR(core, "%s: the slave did not publish output %s (value reference %ld) into the value table; the "
                       "outputs keep their last values", call, name, missing);
        t->stale = 1;
        *outcome = TABLE_FORGOTTEN;
    } else if (published) {
        t->stale = 0;
        *outcome = TABLE_PUBLISHED;
    }
    return r;
}

void core_table_mark_stale_in_init(Core *core)
{
    if ((core->state & CS_INIT) && core->table) /* Initialization Mode: the outputs follow the start values and inputs */
        core->table->stale = 1;
}

CoreStatus core_table_refresh(Core *core, const char *call, const unsigned vr[], size_t nvr)
{
    CoreTable *t = core->table;
    if (!t->stale || !(core->state & (CS_INIT | CS_STEP | CS_TERMINATED)))
        return CORE_OK; /* before Initialization Mode the outputs are their start values, as the slave has them */
    size_t i = 0;
    while (i < nvr && core->vars[vr[i]].causality != CC_OUTPUT)
        ++i;
    if (i == nvr)
        return CORE_OK;
    int outcome;
    PyGILState_STATE g = core_enter(core);
    PyObject *r = core_call_publishing(core, call, "_fmi_refresh_outputs", NULL, &outcome);
    core->py->DecRef(r);
    core_leave(core, g);
    /* outputs that cannot be evaluated for the new inputs keep their last values (the slave logged why) */
    return r && outcome != TABLE_FORGOTTEN ? CORE_OK : CORE_ERROR;
}

CoreStatus core_table_after_step(Core *core, int outcome, CoreStatus status)
{
    if (outcome == TABLE_FORGOTTEN)
        return CORE_ERROR;
    if (core->table && outcome == TABLE_KEPT && (status == CORE_OK || status == CORE_WARNING))
        core->table->stale = 1; /* the state moved without its outputs: the next get evaluates them */
    return status;
}

/* ---- a step without Python ------------------------------------------------------------------------------- */

int core_table_native_step(Core *core, const char *call, double t, double h)
{
    CoreNativeStep native = core->native;
    if (!native.step || !core->table || core->step_poll)
        return 0;
    int reason = native.step(native.record, t, h, core->table->reals, core->table->ints);
    if (reason) {
        core_log(core, CORE_OK, "logAll", "%s: the step from t = %g s was declined by the slave's native step "
                 "(reason %d); its do_step takes it", call, t, reason);
        return 0;
    }
    core->table->stale = 0; /* published */
    core->stepping = 0;
    core->time = t + h;
    if (!core->native_announced) {
        core->native_announced = 1;
        core_log(core, CORE_OK, "logAll", "%s: stepped without Python by the slave's native step (inputs and "
                 "outputs in the value table, no interpreter lock)", call);
    }
    return 1;
}
