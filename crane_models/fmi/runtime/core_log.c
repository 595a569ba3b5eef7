/* The core's messages to the host (the runtime's own and the slave's queued ones) with the categories debug
 * logging enables, the instance check every FMI call starts with, the check of a step's arguments, and the call into
 * the slave. The bottom floor of the core (core.h); the facade's CoreStandard.deliver hands the text to its
 * standard's logger. */
#define _GNU_SOURCE
#include "core.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int category_enabled(const Core *core, const char *category)
{
    if (!core->logging_on)
        return 0;
    if (core->n_categories == 0)
        return 1;
    for (int i = 0; i < core->n_categories; ++i)
        if (category && strcmp(core->categories[i], category) == 0)
            return 1;
    return 0;
}

/* Warning or worse always reaches the host (it says why a call failed); OK-level messages only with debug
 * logging on for their category. */
static void deliver(const Core *core, CoreStatus status, const char *category, const char *text)
{
    if (status == CORE_OK && !category_enabled(core, category))
        return;
    core->std->deliver(core, status, category ? category : "logAll", text);
}

void core_log(const Core *core, CoreStatus status, const char *category, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    deliver(core, status, category, text);
}

/* pythonfmu's and pythonfmu3's slave.log append LogMsg(status, category, msg[, debug]) to log_queue: each goes
 * to the host, then the queue is emptied. GIL held. */
void core_forward_slave_log(Core *core)
{
    const PyApi *py = core->py;
    if (!core->log_queue)
        return;
    Py_ssize_t n = py->List_Size(core->log_queue);
    if (n <= 0) {
        py->Err_Clear();
        return;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *item = py->List_GetItem(core->log_queue, i);
        PyObject *msg = item ? py->Object_GetAttrString(item, "msg") : NULL;
        PyObject *cat = item ? py->Object_GetAttrString(item, "category") : NULL;
        PyObject *st = item ? py->Object_GetAttrString(item, "status") : NULL;
        PyObject *msg_text = msg ? py->Object_Str(msg) : NULL;
        PyObject *cat_text = (cat && cat != py->None) ? py->Object_Str(cat) : NULL;
        long status = st ? py->Long_AsLong(st) : CORE_WARNING;
        py->Err_Clear();
        const char *m = msg_text ? py->Unicode_AsUTF8AndSize(msg_text, NULL) : NULL;
        const char *c = cat_text ? py->Unicode_AsUTF8AndSize(cat_text, NULL) : NULL;
        py->Err_Clear();
        if (status < CORE_OK || status > CORE_FATAL)
            status = CORE_WARNING;
        deliver(core, (CoreStatus)status, c ? c : "logAll", m ? m : "(unprintable message)");
        py->DecRef(msg_text);
        py->DecRef(cat_text);
        py->DecRef(msg);
        py->DecRef(cat);
        py->DecRef(st);
    }
    py->List_SetSlice(core->log_queue, 0, n, NULL);
    py->Err_Clear();
}

static const char *state_name(const Core *core)
{
    for (int bit = 0; bit < 4; ++bit)
        if (core->state == 1 << bit)
            return core->std->state_names[bit];
    return "unknown";
}

Core *core_checked(const CoreStandard *std, void *c, const char *call, int allowed)
{
    Core *core = c;
    if (!core || core->magic != std->magic)
        return NULL; /* no logger to tell: the host passed no instance of this FMU */
    if (!(core->state & allowed)) {
        CORE_ERR(core, "%s is not allowed in state '%s'", call, state_name(core));
        return NULL;
    }
    return core;
}

/* The refusal of `call` while `running` runs, logged once at a time (a logger that calls again is refused quietly). */
static void refuse_busy(Core *core, const char *call, const char *running)
{
    if (__atomic_exchange_n(&core->refusing, 1, __ATOMIC_ACQ_REL))
        return;
    int freeing = strcmp(call, core->std->free_call) == 0;
    CORE_ERR(core, "%s: refused while %s runs on this instance (a call from a callback of %s or from another thread): "
                   "%s. %s", call, running, running, core->std->busy_rule,
             freeing ? "The instance is not freed and stays valid: free it once that call has returned"
                     : "Nothing was changed; the running call completes and returns its own status");
    __atomic_store_n(&core->refusing, 0, __ATOMIC_RELEASE);
}

/* The claim is one compare-and-swap of `busy` (GCC and clang builtins, which every compiler of the build has): the
 * caller that swaps NULL for its name owns the instance until it stores NULL again; acquire and release order make
 * what one call wrote visible to the next, on any thread. */
Core *core_claim(const CoreStandard *std, void *c, const char *call, int allowed)
{
    Core *core = c;
    const char *running = NULL;
    if (!core || core->magic != std->magic)
        return NULL;
    if (!__atomic_compare_exchange_n(&core->busy, &running, call, 0, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
        refuse_busy(core, call, running);
        return NULL;
    }
    if (!core_checked(std, core, call, allowed)) {
        core_release(core, CORE_ERROR);
        return NULL;
    }
    return core;
}

CoreStatus core_release(Core *core, CoreStatus status)
{
    if (core)
        __atomic_store_n(&core->busy, NULL, __ATOMIC_RELEASE);
    return status;
}

PyGILState_STATE core_enter(Core *core) { return py_enter(core->py); }

void core_leave(Core *core, PyGILState_STATE g)
{
    core_forward_slave_log(core);
    py_leave(core->py, g);
}

PyObject *core_call_slave(Core *core, const char *call, const char *method, PyObject *args)
{
    const PyApi *py = core->py;
    char err[1536];
    PyObject *fn = py->Object_GetAttrString(core->slave, method);
    PyObject *result = fn ? py->Object_CallObject(fn, args) : NULL;
    py->DecRef(fn);
    py->DecRef(args);
    if (!result) {
        py_error_text(py, err, sizeof err);
        core_forward_slave_log(core); /* what the slave said before it raised comes first */
        CORE_ERR(core, "%s: %s", call, err[0] ? err : "failed without an exception");
    }
    return result;
}

CoreStatus core_set_debug_logging(Core *core, const char *call, int logging_on, size_t n, const char *const names[])
{
    if (n > CORE_MAX_CATEGORIES || (n > 0 && !names)) {
        CORE_ERR(core, "%s: nCategories = %zu with categories %s (at most %d)", call, n, names ? "given" : "NULL",
                 CORE_MAX_CATEGORIES);
        return CORE_ERROR;
    }
    CoreStatus status = CORE_OK;
    PyGILState_STATE g = core_enter(core);
    PyObject *known = core->py->Object_GetAttrString(core->slave, "log_categories");
    core->py->Err_Clear();
    for (int i = 0; i < core->n_categories; ++i)
        free(core->categories[i]);
    core->n_categories = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!names[i] || (known && !core->py->Mapping_HasKeyString(known, names[i]))) {
            CORE_ERR(core, "%s: unknown log category %s", call, names[i] ? names[i] : "NULL");
            status = CORE_ERROR;
            continue;
        }
        core->categories[core->n_categories++] = strdup(names[i]);
    }
    core->py->DecRef(known);
    core_leave(core, g);
    core->logging_on = logging_on;
    return status;
}

int core_step_arguments_ok(Core *core, const char *call, double t, double h)
{
    if (isfinite(t) && isfinite(h) && h > 0.0)
        return 1;
    CORE_ERR(core, "%s: communication step size (communicationStepSize) = %g s must be finite and > 0 and "
                   "currentCommunicationPoint = %g s finite", call, h, t);
    return 0;
}
