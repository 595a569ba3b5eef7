/* The core's instance lifecycle: a new instance, the FMU's resources (the folder, the record
 * crane_cosim_runtime.txt naming the slave and the Python it needs, modelDescription.xml's attributes), the
 * slave's construction, the mode changes of the state machine, reset and the step. The top floor of the core
 * (core.h), under the facades' instantiation and mode functions. See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "core.h"

#include "platform.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_FILE "crane_cosim_runtime.txt"
#define MAX_RESOURCE_TEXT 262144 /* bytes read of a resource file: the record and modelDescription.xml fit */

static char *copy(const char *s) { return s ? strdup(s) : NULL; }

Core *core_new(const CoreStandard *std, size_t size, const char *name, int visible, int logging_on)
{
    Core *core = calloc(1, size);
    if (!core)
        return NULL;
    core->magic = std->magic;
    core->std = std;
    core->name = copy(name && *name ? name : "?");
    core->visible = visible;
    core->logging_on = logging_on;
    core->state = CS_INSTANTIATED;
    plat_pin_self(); /* Python keeps pointers into this code: a host that unloads it must not unmap it */
    return core;
}

/* file:///a%20b/resources/ -> /a b/resources (the forms hosts pass: file:///, file:/, file://host/). */
char *core_resource_dir(const char *where, int always_decode)
{
    if (!where || (!always_decode && !*where))
        return NULL;
    const char *p = where;
    int uri = always_decode;
    if (strncmp(p, "file://", 7) == 0) {
        p = p[7] == '/' ? p + 7 : strchr(p + 7, '/'); /* file://localhost/path */
        uri = 1;
    } else if (strncmp(p, "file:", 5) == 0) {
        p += 5;
        uri = 1;
    }
    if (!p)
        return NULL;
#if defined(_WIN32)
    if (p[0] == '/' && p[1] && p[2] == ':') /* file:///C:/dir -> C:/dir */
        ++p;
#endif
    char *out = malloc(strlen(p) + 1), *o = out;
    if (!out)
        return NULL;
    for (; *p; ++p) {
        unsigned hex;
        if (uri && *p == '%' && sscanf(p + 1, "%2x", &hex) == 1) {
            *o++ = (char)hex;
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    while (o > out + 1 && o[-1] == '/')
        --o;
    *o = '\0';
    return out;
}

char *core_read_resource(const char *resources, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", resources, name);
    FILE *f = plat_fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, MAX_RESOURCE_TEXT + 1);
    if (text)
        fread(text, 1, MAX_RESOURCE_TEXT, f);
    fclose(f);
    return text;
}

int core_model_attribute(const char *resources, const char *name, char *out, size_t size)
{
    char key[64];
    snprintf(key, sizeof key, "%s=\"", name);
    char *xml = core_read_resource(resources, "../modelDescription.xml");
    int found = 0;
    for (const char *p = xml; p && (p = strstr(p, key)) != NULL; p += strlen(key)) {
        if (p == xml || !(p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '\r'))
            continue; /* part of a longer attribute name */
        const char *start = p + strlen(key), *end = strchr(start, '"');
        if (end && (size_t)(end - start) < size) {
            memcpy(out, start, (size_t)(end - start));
            out[end - start] = '\0';
            found = 1;
        }
        break;
    }
    free(xml);
    return found;
}

static void set_attribute(const PyApi *py, PyObject *obj, const char *name, PyObject *value)
{
    py->Object_SetAttrString(obj, name, value);
    py->DecRef(value);
}

/* Class(instance_name=..., resources=..., visible=...) as pythonfmu constructs it, then
 * slave._fmi_runtime = "crane-cosim" (the adapter then raises instead of only logging). On success the instance
 * owns the new slave and its log queue; a previous slave (reset) is released. GIL held. */
static int construct_slave(Core *core, const char *call)
{
    const PyApi *py = core->py;
    char err[1536];
    PyObject *module = py_import_from(py, core->resources, core->module);
    PyObject *cls = module ? py->Object_GetAttrString(module, core->class_name) : NULL;
    PyObject *args = py->Tuple_New(0), *kwargs = py->Dict_New(), *value;
    value = py->Unicode_FromString(core->name);
    py->Dict_SetItemString(kwargs, "instance_name", value);
    py->DecRef(value);
    value = py->Unicode_FromString(core->resources);
    py->Dict_SetItemString(kwargs, "resources", value);
    py->DecRef(value);
    value = py->Bool_FromLong(core->visible);
    py->Dict_SetItemString(kwargs, "visible", value);
    py->DecRef(value);
    PyObject *slave = cls ? py->Object_Call(cls, args, kwargs) : NULL;
    py->DecRef(args);
    py->DecRef(kwargs);
    py->DecRef(cls);
    py->DecRef(module);
    if (!slave) {
        py_error_text(py, err, sizeof err);
        CORE_ERR(core, "%s: cannot create %s.%s from %s: %s", call, core->module, core->class_name, core->resources,
                 err);
        return 0;
    }
    set_attribute(py, slave, "_fmi_runtime", py->Unicode_FromString("crane-cosim"));
    if (core_native_steps_offered()) /* where the slave may hand over a step without Python */
        set_attribute(py, slave, "_fmi_native_step_address", py->Long_FromVoidPtr((void *)&core->native));
    set_attribute(py, slave, "_fmi_step_reach_address", py->Long_FromVoidPtr((void *)&core->step_reach));
    if (core->std->passes_cancel_flag || core->step_poll) /* the steppers read it between internal steps */
        set_attribute(py, slave, "_fmi_cancel_flag_address", py->Long_FromVoidPtr((void *)&core->cancel));
    if (core->step_poll) { /* (function, context) for the steppers' C call between internal steps */
        PyObject *poll = py->Tuple_New(2);
        if (poll) {
            py->Tuple_SetItem(poll, 0, py->Long_FromVoidPtr((void *)(uintptr_t)core->step_poll));
            py->Tuple_SetItem(poll, 1, py->Long_FromVoidPtr((void *)core));
        }
        set_attribute(py, slave, "_fmi_step_poll", poll);
    }
    PyObject *queue = py->Object_GetAttrString(slave, "log_queue");
    py->Err_Clear();
    core->native.step = NULL; /* the old slave's record dies with it */
    core->step_reach = 0.0;   /* and its bound */
    py->DecRef(core->slave);
    py->DecRef(core->log_queue);
    core->slave = slave;
    core->log_queue = queue;
    return 1;
}

/* The slave's module and class: the record's, else slavemodule.txt (as pythonfmu writes it) and the binary's
 * own name (pythonfmu's convention). 1 when a module is named, else logged. */
static int name_slave(Core *core, const char *record)
{
    char value[1024];
    const char *call = core->std->instantiate_call;
    if (record && record_value(record, "module", 0, value, sizeof value)) {
        core->module = copy(value);
    } else {
        char *line = core_read_resource(core->resources, "slavemodule.txt");
        if (line)
            line[strcspn(line, "\r\n")] = '\0';
        core->module = line;
    }
    if (record && record_value(record, "class", 0, value, sizeof value)) {
        core->class_name = copy(value);
    } else {
        plat_own_stem(value, sizeof value);
        core->class_name = copy(value);
    }
    if (core->module && *core->module)
        return 1;
    CORE_ERR(core, "%s: neither %s nor slavemodule.txt in %s names the slave module", call, RECORD_FILE,
             core->resources);
    return 0;
}

int core_start(Core *core)
{
    char why[8192];
    const char *call = core->std->instantiate_call;
    char *record = core_read_resource(core->resources, RECORD_FILE);
    if (!name_slave(core, record)) {
        free(record);
        return 0;
    }
    core->py = py_api(record, why, sizeof why);
    if (!core->py) {
        CORE_ERR(core, "%s: no usable Python for %s: %s", call, core->class_name, why);
        free(record);
        return 0;
    }
    PyGILState_STATE g = core_enter(core);
    int ok = py_meets_needs(core->py, record, why, sizeof why);
    free(record);
    if (!ok)
        CORE_ERR(core, "%s: %s", call, why);
    ok = ok && construct_slave(core, call) && core_build_var_table(core);
    if (ok)
        core->table = core_table_offer(core, call, &ok);
    if (!ok && core->slave) {
        core->py->DecRef(core->slave);
        core->py->DecRef(core->log_queue);
        core->slave = core->log_queue = NULL;
    }
    core_leave(core, g);
    return ok;
}

void core_free(Core *core)
{
    if (core->slave) {
        PyGILState_STATE g = core_enter(core);
        core_forward_slave_log(core);
        core->py->DecRef(core->slave); /* once each: the instance owns one reference of both */
        core->py->DecRef(core->log_queue);
        core->slave = core->log_queue = NULL;
        core->py->Err_Clear();
        py_leave(core->py, g);
    }
    core_free_strings(core);
    for (int i = 0; i < core->n_categories; ++i)
        free(core->categories[i]);
    free(core->vars);
    core_table_free(core->table); /* after the slave: nothing reads it any more */
    free(core->name);
    free(core->id);
    free(core->resources);
    free(core->module);
    free(core->class_name);
    core->magic = 0;
    free(core);
}

/* ---- the co-simulation state machine ---------------------------------------------------------- */

/* On failure the state stays: the host may correct the cause and call again. */
CoreStatus core_transition(Core *core, const CoreTransition *t)
{
    if (!core)
        return CORE_ERROR;
    int outcome; /* the slave may publish its outputs (it does at the end of initialization) */
    PyGILState_STATE g = core_enter(core);
    PyObject *r = core_call_publishing(core, t->call, t->method, NULL, &outcome);
    core->py->DecRef(r);
    core_leave(core, g);
    if (!r || outcome == TABLE_FORGOTTEN)
        return CORE_ERROR;
    core->state = t->next;
    core_table_mark_stale_in_init(core);
    return CORE_OK;
}

static PyObject *float_or_none(const PyApi *py, int defined, double x)
{
    if (defined)
        return py->Float_FromDouble(x);
    py->IncRef(py->None);
    return py->None;
}

CoreStatus core_setup_experiment(Core *core, const char *call, int tolerance_defined, double tolerance,
                                 double start, int stop_defined, double stop, int n_args)
{
    if (!core)
        return CORE_ERROR;
    if (!isfinite(start) || (stop_defined && !(stop >= start)) || (tolerance_defined && !(tolerance > 0.0))) {
        CORE_ERR(core, "%s: startTime = %g s must be finite, stopTime = %g s (if defined) >= startTime, tolerance "
                       "= %g (if defined) > 0", call, start, stop, tolerance);
        return CORE_ERROR;
    }
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    /* pythonfmu's order: setup_experiment(start_time, stop_time, tolerance); pythonfmu3's: (start_time) */
    PyObject *args = py->Tuple_New(n_args);
    py->Tuple_SetItem(args, 0, py->Float_FromDouble(start));
    if (n_args == 3) {
        py->Tuple_SetItem(args, 1, float_or_none(py, stop_defined, stop));
        py->Tuple_SetItem(args, 2, float_or_none(py, tolerance_defined, tolerance));
    }
    PyObject *r = core_call_slave(core, call, "setup_experiment", args);
    py->DecRef(r);
    core_leave(core, g);
    if (!r)
        return CORE_ERROR;
    core->time = start;
    return CORE_OK;
}

CoreStatus core_reset(Core *core, const char *call)
{
    if (!core)
        return CORE_ERROR;
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    PyObject *old = core->slave, *old_queue = core->log_queue;
    py->IncRef(old);
    if (old_queue)
        py->IncRef(old_queue);
    int ok = construct_slave(core, call) && core_build_var_table(core);
    CoreTable *table = ok ? core_table_offer(core, call, &ok) : NULL; /* the new slave's own, in its start values */
    if (ok) {
        core_table_free(core->table);
        core->table = table;
    }
    if (!ok && core->slave != old) { /* back to the old slave (and its table) */
        py->DecRef(core->slave);
        py->DecRef(core->log_queue);
        core->slave = old;
        core->log_queue = old_queue;
    } else {
        py->DecRef(old);
        py->DecRef(old_queue);
    }
    core_leave(core, g);
    if (!ok)
        return CORE_ERROR;
    core->state = CS_INSTANTIATED;
    core->time = 0.0;
    return CORE_OK;
}

/* The slave's do_step result: a bool (pythonfmu's, this project's slaves) or an object with `status` (an FMI
 * status) and optionally `terminateSimulation` (pythonfmu3's Fmi3StepResult). GIL held; -1 when neither. */
static int step_outcome(Core *core, PyObject *r, CoreStatus *status, int *terminate)
{
    const PyApi *py = core->py;
    PyObject *st = py->Object_GetAttrString(r, "status");
    *terminate = 0;
    if (!st) {
        py->Err_Clear();
        int done = py->Object_IsTrue(r);
        if (done < 0)
            return -1;
        *status = done ? CORE_OK : CORE_DISCARD;
        return 0;
    }
    long s = py->Long_AsLong(st);
    py->DecRef(st);
    if (s < CORE_OK || s > CORE_FATAL) {
        py->Err_Clear();
        return -1;
    }
    PyObject *term = py->Object_GetAttrString(r, "terminateSimulation");
    *terminate = term ? py->Object_IsTrue(term) > 0 : 0;
    py->DecRef(term);
    py->Err_Clear();
    *status = s == CORE_FATAL ? CORE_ERROR : (CoreStatus)s; /* the instance always stays usable: see docs */
    return 0;
}

CoreStatus core_do_step(Core *core, const char *call, double t, double h, int *terminate)
{
    *terminate = 0;
    core->cancel = 0; /* a cancel applies to the step in progress */
    core->stepping = 1;
    /* A step beyond the slave's reach (core.h) goes to its do_step, which refuses it up front naming its budget; the
     * native step would spend the whole budget first (hours at 2^31 - 1 internal steps). */
    if (!(core->step_reach > 0.0 && h > core->step_reach) && core_table_native_step(core, call, t, h))
        return CORE_OK;
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    PyObject *args = py->Tuple_New(2);
    py->Tuple_SetItem(args, 0, py->Float_FromDouble(t));
    py->Tuple_SetItem(args, 1, py->Float_FromDouble(h));
    int outcome; /* a slave with the value table publishes its outputs at the end of the step */
    PyObject *r = core_call_publishing(core, call, "do_step", args, &outcome);
    CoreStatus status = CORE_ERROR;
    if (r && step_outcome(core, r, &status, terminate) < 0) {
        py->Err_Clear();
        CORE_ERR(core, "%s: slave.do_step returned neither a bool nor an object with an FMI status `status`", call);
        status = CORE_ERROR;
    }
    status = core_table_after_step(core, outcome, status);
    py->DecRef(r);
    core_leave(core, g);
    core->stepping = 0;
    if (status == CORE_OK || status == CORE_WARNING)
        core->time = t + h;
    return status;
}
