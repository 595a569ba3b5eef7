/* The project's FMI 3.0 runtime: messages to the host's logMessage callback (the runtime's own and the
 * slave's queued ones) with the categories fmi3SetDebugLogging enables (defined here), and the instance
 * check every call starts with. See fmi3_runtime.c and docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "fmi3_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int category_enabled(const Instance3 *inst, const char *category)
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

/* Warning or worse always reaches the host (it says why a call failed); OK-level messages only with debug
 * logging on for their category. FMI 3.0's callback takes the formatted message: no format string. */
static void deliver3(const Instance3 *inst, fmi3Status status, const char *category, const char *text)
{
    if (!inst->logger)
        return;
    if (status == fmi3OK && !category_enabled(inst, category))
        return;
    inst->logger(inst->env, status, category ? category : "logAll", text);
}

void log3(const Instance3 *inst, fmi3Status status, const char *category, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    deliver3(inst, status, category, text);
}

/* pythonfmu3's Fmi3Slave.log appends LogMsg(status, category, msg, debug) to log_queue: each goes to the
 * host, then the queue is emptied. GIL held. */
void forward_slave_log3(Instance3 *inst)
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
        long status = st ? py->Long_AsLong(st) : fmi3Warning;
        py->Err_Clear();
        const char *m = msg_text ? py->Unicode_AsUTF8AndSize(msg_text, NULL) : NULL;
        const char *c = cat_text ? py->Unicode_AsUTF8AndSize(cat_text, NULL) : NULL;
        py->Err_Clear();
        if (status < fmi3OK || status > fmi3Fatal)
            status = fmi3Warning;
        deliver3(inst, (fmi3Status)status, c ? c : "logAll", m ? m : "(unprintable message)");
        py->DecRef(msg_text);
        py->DecRef(cat_text);
        py->DecRef(msg);
        py->DecRef(cat);
        py->DecRef(st);
    }
    py->List_SetSlice(inst->log_queue, 0, n, NULL);
    py->Err_Clear();
}

static const char *state_name3(int state)
{
    switch (state) {
    case S3_INSTANTIATED: return "Instantiated";
    case S3_INIT: return "Initialization Mode";
    case S3_STEP: return "Step Mode";
    case S3_TERMINATED: return "Terminated";
    default: return "unknown";
    }
}

Instance3 *checked3(fmi3Instance c, const char *call, int allowed)
{
    Instance3 *inst = c;
    if (!inst || inst->magic != INSTANCE3_MAGIC)
        return NULL; /* no logger to tell: the host passed no instance of this FMU */
    if (!(inst->state & allowed)) {
        ERR3(inst, "%s is not allowed in state '%s'", call, state_name3(inst->state));
        return NULL;
    }
    return inst;
}

PyGILState_STATE enter3(Instance3 *inst) { return py_enter(inst->py); }

void leave3(Instance3 *inst, PyGILState_STATE g)
{
    forward_slave_log3(inst);
    py_leave(inst->py, g);
}

PyObject *call_slave3(Instance3 *inst, const char *call, const char *method, PyObject *args)
{
    const PyApi *py = inst->py;
    char err[1536];
    PyObject *fn = py->Object_GetAttrString(inst->slave, method);
    PyObject *result = fn ? py->Object_CallObject(fn, args) : NULL;
    py->DecRef(fn);
    py->DecRef(args);
    if (!result) {
        py_error_text(py, err, sizeof err);
        forward_slave_log3(inst); /* what the slave said before it raised comes first */
        ERR3(inst, "%s: %s", call, err[0] ? err : "failed without an exception");
    }
    return result;
}

FMI3_EXPORT fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[])
{
    Instance3 *inst = checked3(c, "fmi3SetDebugLogging", S3_ANY);
    if (!inst)
        return fmi3Error;
    if (nCategories > MAX_CATEGORIES3 || (nCategories > 0 && !categories)) {
        ERR3(inst, "fmi3SetDebugLogging: nCategories = %zu with categories %s (at most %d)", nCategories,
             categories ? "given" : "NULL", MAX_CATEGORIES3);
        return fmi3Error;
    }
    fmi3Status status = fmi3OK;
    PyGILState_STATE g = enter3(inst);
    PyObject *known = inst->py->Object_GetAttrString(inst->slave, "log_categories");
    inst->py->Err_Clear();
    for (int i = 0; i < inst->n_categories; ++i)
        free(inst->categories[i]);
    inst->n_categories = 0;
    for (size_t i = 0; i < nCategories; ++i) {
        if (!categories[i] || (known && !inst->py->Mapping_HasKeyString(known, categories[i]))) {
            ERR3(inst, "fmi3SetDebugLogging: unknown log category %s", categories[i] ? categories[i] : "NULL");
            status = fmi3Error;
            continue;
        }
        inst->categories[inst->n_categories++] = strdup(categories[i]);
    }
    inst->py->DecRef(known);
    leave3(inst, g);
    inst->logging_on = loggingOn;
    return status;
}
