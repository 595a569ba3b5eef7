/* The project's FMI 2.0 co-simulation runtime for pythonfmu slaves: instantiation, the state machine and the
 * mode changes -- the top floor, over the variable table (fmi2_values.c), the messages and the checked call into
 * the slave (fmi2_log.c), and the Python loader (pyapi.c).
 *
 * One binary hosts any pythonfmu `Fmi2Slave` subclass: the FMU's resources/ hold the slave module
 * (named in slavemodule.txt, as pythonfmu writes it) and this runtime's record crane_cosim_runtime.txt
 * (`key=value` lines: module, class, and what the FMU needs of a Python: its version, its packages; the GUID is
 * read from modelDescription.xml). Every call
 * checks its instance, its state and its arguments, then calls the slave; a Python exception becomes
 * fmi2Error with the exception's text logged, and the instance stays usable. See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "runtime.h"

#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_FILE "crane_cosim_runtime.txt"

/* ---- instantiation ---------------------------------------------------------------------------- */

static char *copy(const char *s) { return s ? strdup(s) : NULL; }

/* file:///a%20b/resources/ -> /a b/resources (the forms hosts pass: file:///, file:/, file://host/). */
static char *resource_path(const char *uri)
{
    if (!uri)
        return NULL;
    const char *p = uri;
    if (strncmp(p, "file://", 7) == 0) {
        p += 7;
        if (*p != '/') /* file://localhost/path */
            p = strchr(p, '/');
    } else if (strncmp(p, "file:", 5) == 0) {
        p += 5;
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
        if (*p == '%' && sscanf(p + 1, "%2x", &hex) == 1) {
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

static char *read_text(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = plat_fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 65537);
    if (text)
        fread(text, 1, 65536, f);
    fclose(f);
    return text;
}

/* The guid attribute of the FMU's modelDescription.xml (beside resources/): the one source of the GUID, which
 * a reproducible build derives from the FMU's content. 1 when found. */
static int model_guid(const char *resources, char *out, size_t size)
{
    char *xml = read_text(resources, "../modelDescription.xml");
    int found = 0;
    for (const char *p = xml; p && (p = strstr(p, "guid=\"")) != NULL; p += 6) {
        if (p == xml || !(p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '\r'))
            continue; /* part of a longer attribute name */
        const char *start = p + 6, *end = strchr(start, '"');
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

static void free_instance_memory(Instance *inst)
{
    free_strings(inst);
    for (int i = 0; i < inst->n_categories; ++i)
        free(inst->categories[i]);
    free(inst->vars);
    free(inst->name);
    free(inst->guid);
    free(inst->resources);
    free(inst->module);
    free(inst->class_name);
    inst->magic = 0;
    free(inst);
}

/* Constructs the slave as pythonfmu does: Class(instance_name=..., resources=..., visible=...). Then
 * sets slave._fmi_runtime = "crane-cosim" (the adapter then raises instead of only logging). */
static int construct_slave(Instance *inst)
{
    const PyApi *py = inst->py;
    char err[1536];
    PyObject *module = py_import_from(py, inst->resources, inst->module);
    PyObject *cls = module ? py->Object_GetAttrString(module, inst->class_name) : NULL;
    PyObject *args = py->Tuple_New(0), *kwargs = py->Dict_New(), *value;
    value = py->Unicode_FromString(inst->name);
    py->Dict_SetItemString(kwargs, "instance_name", value);
    py->DecRef(value);
    value = py->Unicode_FromString(inst->resources);
    py->Dict_SetItemString(kwargs, "resources", value);
    py->DecRef(value);
    value = py->Bool_FromLong(inst->visible);
    py->Dict_SetItemString(kwargs, "visible", value);
    py->DecRef(value);
    PyObject *slave = cls ? py->Object_Call(cls, args, kwargs) : NULL;
    py->DecRef(args);
    py->DecRef(kwargs);
    py->DecRef(cls);
    py->DecRef(module);
    if (!slave) {
        py_error_text(py, err, sizeof err);
        LOG_ERROR(inst, "fmi2Instantiate: cannot create %s.%s from %s: %s", inst->module, inst->class_name,
                  inst->resources, err);
        return 0;
    }
    PyObject *tag = py->Unicode_FromString("crane-cosim");
    py->Object_SetAttrString(slave, "_fmi_runtime", tag);
    py->DecRef(tag);
    PyObject *flag = py->Long_FromVoidPtr((void *)&inst->cancel); /* fmi2CancelStep: see fmi2_step.c */
    py->Object_SetAttrString(slave, "_fmi_cancel_flag_address", flag);
    py->DecRef(flag);
    PyObject *queue = py->Object_GetAttrString(slave, "log_queue");
    py->Err_Clear();
    if (inst->slave) { /* fmi2Reset: the old slave goes, with its queue */
        py->DecRef(inst->slave);
        py->DecRef(inst->log_queue);
    }
    inst->slave = slave;
    inst->log_queue = queue;
    return 1;
}

FMI2_EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI2_EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

FMI2_EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                          fmi2String fmuResourceLocation,
                                          const fmi2CallbackFunctions *functions, fmi2Boolean visible,
                                          fmi2Boolean loggingOn)
{
    char why[8192], value[1024];
    if (!functions || !functions->logger)
        return NULL; /* FMI 2.0 requires a logger; without one nothing can be reported */
    Instance *inst = calloc(1, sizeof *inst);
    if (!inst)
        return NULL;
    inst->magic = INSTANCE_MAGIC;
    inst->cb = *functions;
    inst->name = copy(instanceName && *instanceName ? instanceName : "?");
    inst->logging_on = loggingOn != fmi2False;
    inst->visible = visible != fmi2False;
    inst->state = ST_INSTANTIATED;
    plat_pin_self(); /* Python keeps pointers into this code: a host that unloads it must not unmap it */
    if (!instanceName || !*instanceName) {
        LOG_ERROR(inst, "fmi2Instantiate: instanceName must be a non-empty string");
        goto fail;
    }
    if (fmuType != fmi2CoSimulation) {
        LOG_ERROR(inst, "fmi2Instantiate: fmuType = %d, but this FMU offers co-simulation only "
                        "(fmi2CoSimulation = 1)", (int)fmuType);
        goto fail;
    }
    inst->resources = resource_path(fmuResourceLocation);
    if (!inst->resources) {
        LOG_ERROR(inst, "fmi2Instantiate: fmuResourceLocation = %s is not a file URI",
                  fmuResourceLocation ? fmuResourceLocation : "NULL");
        goto fail;
    }
    char *record = read_text(inst->resources, RECORD_FILE);
    if (model_guid(inst->resources, value, sizeof value)) {
        if (!fmuGUID || strcmp(fmuGUID, value) != 0) {
            LOG_ERROR(inst, "fmi2Instantiate: fmuGUID = %s does not match this FMU's guid %s (a "
                            "modelDescription.xml from another FMU or build?)", fmuGUID ? fmuGUID : "NULL", value);
            free(record);
            goto fail;
        }
    }
    inst->guid = copy(fmuGUID ? fmuGUID : "");
    if (record && record_value(record, "module", 0, value, sizeof value)) {
        inst->module = copy(value);
    } else {
        char *line = read_text(inst->resources, "slavemodule.txt");
        if (line)
            line[strcspn(line, "\r\n")] = '\0';
        inst->module = line;
    }
    if (record && record_value(record, "class", 0, value, sizeof value))
        inst->class_name = copy(value);
    else {
        plat_own_stem(value, sizeof value);
        inst->class_name = copy(value);
    }
    if (!inst->module || !*inst->module) {
        LOG_ERROR(inst, "fmi2Instantiate: neither %s nor slavemodule.txt in %s names the slave module",
                  RECORD_FILE, inst->resources);
        free(record);
        goto fail;
    }
    inst->py = py_api(record, why, sizeof why);
    if (!inst->py) {
        LOG_ERROR(inst, "fmi2Instantiate: no usable Python for %s: %s", inst->class_name, why);
        free(record);
        goto fail;
    }
    PyGILState_STATE g = enter(inst);
    int ok = py_meets_needs(inst->py, record, why, sizeof why);
    free(record);
    if (!ok)
        LOG_ERROR(inst, "fmi2Instantiate: %s", why);
    ok = ok && construct_slave(inst) && build_var_table(inst);
    if (!ok && inst->slave) {
        inst->py->DecRef(inst->slave);
        inst->py->DecRef(inst->log_queue);
        inst->slave = inst->log_queue = NULL;
    }
    leave(inst, g);
    if (ok)
        return inst;
fail:
    free_instance_memory(inst);
    return NULL;
}

FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    Instance *inst = c;
    if (!inst || inst->magic != INSTANCE_MAGIC)
        return;
    if (inst->slave) {
        PyGILState_STATE g = enter(inst);
        forward_slave_log(inst);
        inst->py->DecRef(inst->slave); /* once each: the instance owns one reference of both */
        inst->py->DecRef(inst->log_queue);
        inst->slave = inst->log_queue = NULL;
        inst->py->Err_Clear();
        py_leave(inst->py, g);
    }
    free_instance_memory(inst);
}

/* ---- the co-simulation state machine ------------------------------------------------------------ */

static PyObject *float_or_none(const PyApi *py, int defined, double x)
{
    if (defined)
        return py->Float_FromDouble(x);
    py->IncRef(py->None);
    return py->None;
}

FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                           fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    Instance *inst = checked(c, "fmi2SetupExperiment", ST_INSTANTIATED);
    if (!inst)
        return fmi2Error;
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime)) ||
        (toleranceDefined && !(tolerance > 0.0))) {
        LOG_ERROR(inst, "fmi2SetupExperiment: startTime = %g s must be finite, stopTime = %g s (if defined) >= "
                        "startTime, tolerance = %g (if defined) > 0", startTime, stopTime, tolerance);
        return fmi2Error;
    }
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter(inst);
    /* pythonfmu's order: setup_experiment(start_time, stop_time, tolerance) */
    PyObject *args = py->Tuple_New(3);
    py->Tuple_SetItem(args, 0, py->Float_FromDouble(startTime));
    py->Tuple_SetItem(args, 1, float_or_none(py, stopTimeDefined, stopTime));
    py->Tuple_SetItem(args, 2, float_or_none(py, toleranceDefined, tolerance));
    PyObject *r = call_slave(inst, "fmi2SetupExperiment", "setup_experiment", args);
    py->DecRef(r);
    leave(inst, g);
    if (r)
        inst->time = inst->last_successful_time = startTime;
    return r ? fmi2OK : fmi2Error;
}

/* A slave call without arguments whose success moves the instance to `next`. */
static fmi2Status transition(fmi2Component c, const char *call, int allowed, const char *method, int next)
{
    Instance *inst = checked(c, call, allowed);
    if (!inst)
        return fmi2Error;
    PyGILState_STATE g = enter(inst);
    PyObject *r = call_slave(inst, call, method, NULL);
    inst->py->DecRef(r);
    leave(inst, g);
    if (!r)
        return fmi2Error; /* the state stays: the host may correct the cause and call again */
    inst->state = next;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    return transition(c, "fmi2EnterInitializationMode", ST_INSTANTIATED, "enter_initialization_mode", ST_INIT);
}

FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    return transition(c, "fmi2ExitInitializationMode", ST_INIT, "exit_initialization_mode", ST_STEPPING);
}

FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    return transition(c, "fmi2Terminate", ST_INIT | ST_STEPPING, "terminate", ST_TERMINATED);
}

FMI2_EXPORT fmi2Status fmi2Reset(fmi2Component c)
{
    Instance *inst = checked(c, "fmi2Reset", ST_ANY_USABLE);
    if (!inst)
        return fmi2Error;
    PyGILState_STATE g = enter(inst);
    /* pythonfmu has no reset of its own: a new slave object replaces the old one (as pythonfmu's binary
     * does); when that fails, the old one stays with its state. */
    PyObject *old = inst->slave, *old_queue = inst->log_queue;
    inst->py->IncRef(old);
    inst->py->IncRef(old_queue);
    int ok = construct_slave(inst) && build_var_table(inst);
    if (!ok && inst->slave != old) { /* back to the old slave */
        inst->py->DecRef(inst->slave);
        inst->py->DecRef(inst->log_queue);
        inst->slave = old;
        inst->log_queue = old_queue;
    } else {
        inst->py->DecRef(old);
        inst->py->DecRef(old_queue);
    }
    leave(inst, g);
    if (!ok)
        return fmi2Error;
    inst->state = ST_INSTANTIATED;
    inst->time = inst->last_successful_time = 0.0;
    return fmi2OK;
}
