/* The project's FMI 2.0 runtime: messages to the host's logger (the runtime's own and the slave's queued
 * ones) with the categories fmi2SetDebugLogging enables (defined here), and the instance check and the call into
 * the slave every FMI call goes through. The floor under the variable table (fmi2_values.c), stepping and saved
 * states (fmi2_step.c, fmi2_states.c) and the instance's lifecycle (fmi2_runtime.c), as fmi3_log.c for FMI 3.0.
 * See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- logging ---------------------------------------------------------------------------------- */

static int category_enabled(const Instance *inst, const char *category)
{
    if (!inst->logging_on)
        return 0;
    if (inst->n_categories == 0)
        return 1;
    for (int i = 0; i < inst->n_categories; ++i)
        if (category && strcmp(inst->categories[i], category) == 0)
            return 1;
    return 0;
}

/* Messages with status Warning or worse always reach the host (they say why a call failed); OK-level
 * messages only with debug logging on for their category. The message goes as the format itself, its '%'
 * doubled and no arguments: a host that formats it (as FMI 2.0 intends) shows the text, and so does a host
 * that prints the format as it is (several do), instead of a bare "%s". */
static void deliver(const Instance *inst, fmi2Status status, const char *category, const char *text)
{
    char escaped[4200];
    size_t j = 0;
    if (!inst->cb.logger)
        return;
    if (status == fmi2OK && !category_enabled(inst, category))
        return;
    for (const char *c = text; *c && j + 2 < sizeof escaped; ++c) {
        if (*c == '%')
            escaped[j++] = '%';
        escaped[j++] = *c;
    }
    escaped[j] = '\0';
    inst->cb.logger(inst->cb.componentEnvironment, inst->name ? inst->name : "?", status,
                    category ? category : "logAll", escaped);
}

void log_message(const Instance *inst, fmi2Status status, const char *category, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    deliver(inst, status, category, text);
}

/* The slave's queued messages (pythonfmu: Fmi2Slave.log appends LogMsg(status, category, msg) to
 * log_queue) go to the host, then the queue is emptied. Called with the GIL held. */
void forward_slave_log(Instance *inst)
{
    const PyApi *py = inst->py;
    if (!inst->log_queue)
        return;
    Py_ssize_t n = py->List_Size(inst->log_queue);
    if (n <= 0) {
        py->Err_Clear();
        return;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *item = py->List_GetItem(inst->log_queue, i);
        PyObject *msg = item ? py->Object_GetAttrString(item, "msg") : NULL;
        PyObject *cat = item ? py->Object_GetAttrString(item, "category") : NULL;
        PyObject *st = item ? py->Object_GetAttrString(item, "status") : NULL;
        PyObject *msg_text = msg ? py->Object_Str(msg) : NULL;
        PyObject *cat_text = (cat && cat != py->None) ? py->Object_Str(cat) : NULL;
        long status = st ? py->Long_AsLong(st) : fmi2Warning;
        py->Err_Clear();
        const char *m = msg_text ? py->Unicode_AsUTF8AndSize(msg_text, NULL) : NULL;
        const char *c = cat_text ? py->Unicode_AsUTF8AndSize(cat_text, NULL) : NULL;
        py->Err_Clear();
        if (status < fmi2OK || status > fmi2Fatal)
            status = fmi2Warning;
        deliver(inst, (fmi2Status)status, c ? c : "logAll", m ? m : "(unprintable message)");
        py->DecRef(msg_text);
        py->DecRef(cat_text);
        py->DecRef(msg);
        py->DecRef(cat);
        py->DecRef(st);
    }
    py->List_SetSlice(inst->log_queue, 0, n, NULL);
    py->Err_Clear();
}

/* ---- instance checks and Python entry ------------------------------------------------------------ */

static const char *state_name(int state)
{
    switch (state) {
    case ST_INSTANTIATED: return "instantiated";
    case ST_INIT: return "initialization mode";
    case ST_STEPPING: return "stepping";
    case ST_TERMINATED: return "terminated";
    default: return "broken (only fmi2FreeInstance is possible)";
    }
}

Instance *checked(fmi2Component c, const char *call, int allowed)
{
    Instance *inst = c;
    if (!inst || inst->magic != INSTANCE_MAGIC)
        return NULL; /* no logger to tell: the host passed no instance of this FMU */
    if (!(inst->state & allowed)) {
        LOG_ERROR(inst, "%s is not allowed in state '%s'", call, state_name(inst->state));
        return NULL;
    }
    return inst;
}

PyGILState_STATE enter(Instance *inst) { return py_enter(inst->py); }

void leave(Instance *inst, PyGILState_STATE g)
{
    forward_slave_log(inst);
    py_leave(inst->py, g);
}

PyObject *call_slave(Instance *inst, const char *call, const char *method, PyObject *args)
{
    const PyApi *py = inst->py;
    char err[1536];
    PyObject *fn = py->Object_GetAttrString(inst->slave, method);
    PyObject *result = fn ? py->Object_CallObject(fn, args) : NULL;
    py->DecRef(fn);
    py->DecRef(args);
    if (!result) {
        py_error_text(py, err, sizeof err);
        forward_slave_log(inst); /* what the slave said before it raised comes first */
        LOG_ERROR(inst, "%s: %s", call, err[0] ? err : "failed without an exception");
    }
    return result;
}

FMI2_EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                           const fmi2String categories[])
{
    Instance *inst = checked(c, "fmi2SetDebugLogging", ST_ANY_USABLE);
    if (!inst)
        return fmi2Error;
    if (nCategories > MAX_CATEGORIES || (nCategories > 0 && !categories)) {
        LOG_ERROR(inst, "fmi2SetDebugLogging: nCategories = %zu with categories %s (at most %d)", nCategories,
                  categories ? "given" : "NULL", MAX_CATEGORIES);
        return fmi2Error;
    }
    fmi2Status status = fmi2OK;
    PyGILState_STATE g = enter(inst);
    PyObject *known = inst->py->Object_GetAttrString(inst->slave, "log_categories");
    inst->py->Err_Clear();
    for (int i = 0; i < inst->n_categories; ++i)
        free(inst->categories[i]);
    inst->n_categories = 0;
    for (size_t i = 0; i < nCategories; ++i) {
        if (!categories[i] || (known && !inst->py->Mapping_HasKeyString(known, categories[i]))) {
            LOG_ERROR(inst, "fmi2SetDebugLogging: unknown log category %s", categories[i] ? categories[i] : "NULL");
            status = fmi2Error;
            continue;
        }
        inst->categories[inst->n_categories++] = strdup(categories[i]);
    }
    inst->py->DecRef(known);
    leave(inst, g);
    inst->logging_on = loggingOn != fmi2False;
    return status;
}
