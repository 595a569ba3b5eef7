/* The project's FMI 3.0 co-simulation runtime for pythonfmu3 slaves: instantiation, the state machine and
 * the mode changes.
 *
 * One binary hosts any pythonfmu3 `Fmi3Slave` subclass, found as the FMI 2.0 runtime finds its slave: the
 * FMU's resources/ hold the slave module and the record crane_cosim_runtime.txt (module, class, the Python
 * version and packages the FMU needs); the instantiation token is read from modelDescription.xml. Python is
 * found, loaded and entered by pyapi.c, shared with the FMI 2.0 runtime. Every call checks its instance,
 * its state and its arguments, then calls the slave; a Python exception becomes fmi3Error with the
 * exception's text logged, and the instance stays usable. See docs/fmi-runtime.md. */
#define _GNU_SOURCE
#include "fmi3_runtime.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_FILE "crane_cosim_runtime.txt"
#define TOKEN_FILE "crane_cosim_token.txt"

static char *copy(const char *s) { return s ? strdup(s) : NULL; }

/* FMI 3.0 passes resources as a path ("/x/resources/"); a URI (file:///x/resources/, as FMI 2.0 hosts
 * pass it) is accepted too. Returned without trailing '/', percent-escapes of a URI decoded. */
static char *resource_dir(const char *where)
{
    if (!where || !*where)
        return NULL;
    const char *p = where;
    int uri = 0;
    if (strncmp(p, "file://", 7) == 0) {
        p = p[7] == '/' ? p + 7 : strchr(p + 7, '/');
        uri = 1;
    } else if (strncmp(p, "file:", 5) == 0) {
        p += 5;
        uri = 1;
    }
    if (!p)
        return NULL;
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

static char *read_text(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = plat_fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 262145);
    if (text)
        fread(text, 1, 262144, f);
    fclose(f);
    return text;
}

/* The FMU's instantiation token (which the reproducible build derives from the FMU's content): the
 * instantiationToken attribute of modelDescription.xml beside resources/, or, for hosts that unpack only
 * binaries/ and resources/ (fmpy's simulate_fmu), the build's copy in resources/crane_cosim_token.txt.
 * 1 when found. */
static int model_token(const char *resources, char *out, size_t size)
{
    static const char key[] = "instantiationToken=\"";
    char *xml = read_text(resources, "../modelDescription.xml");
    const char *p = xml ? strstr(xml, key) : NULL;
    int found = 0;
    if (p) {
        const char *start = p + sizeof key - 1, *end = strchr(start, '"');
        if (end && (size_t)(end - start) < size) {
            memcpy(out, start, (size_t)(end - start));
            out[end - start] = '\0';
            found = 1;
        }
    }
    free(xml);
    if (!found && (xml = read_text(resources, TOKEN_FILE)) != NULL) {
        xml[strcspn(xml, "\r\n")] = '\0';
        found = *xml && strlen(xml) < size;
        if (found)
            memcpy(out, xml, strlen(xml) + 1);
        free(xml);
    }
    return found;
}

static void free_instance_memory(Instance3 *inst)
{
    free_strings3(inst);
    for (int i = 0; i < inst->n_categories; ++i)
        free(inst->categories[i]);
    free(inst->vars);
    free(inst->name);
    free(inst->token);
    free(inst->resources);
    free(inst->module);
    free(inst->class_name);
    inst->magic = 0;
    free(inst);
}

/* Class(instance_name=..., resources=..., visible=...) as pythonfmu3 constructs it, then
 * slave._fmi_runtime = "crane-cosim" (the adapter then raises instead of only logging). On success the
 * instance owns the new slave and its log queue; a previous slave (fmi3Reset) is released. */
static int construct_slave(Instance3 *inst, const char *call)
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
        ERR3(inst, "%s: cannot create %s.%s from %s: %s", call, inst->module, inst->class_name, inst->resources, err);
        return 0;
    }
    PyObject *tag = py->Unicode_FromString("crane-cosim");
    py->Object_SetAttrString(slave, "_fmi_runtime", tag);
    py->DecRef(tag);
    PyObject *queue = py->Object_GetAttrString(slave, "log_queue");
    py->Err_Clear();
    py->DecRef(inst->slave);
    py->DecRef(inst->log_queue);
    inst->slave = slave;
    inst->log_queue = queue;
    return 1;
}

FMI3_EXPORT const char *fmi3GetVersion(void) { return "3.0"; }

FMI3_EXPORT fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate)
{
    (void)earlyReturnAllowed; /* allowed or not, doStep never returns early */
    (void)requiredIntermediateVariables;
    (void)intermediateUpdate; /* never called: no intermediate updates */
    const char *call = "fmi3InstantiateCoSimulation";
    char why[8192], value[1024];
    Instance3 *inst = calloc(1, sizeof *inst);
    if (!inst)
        return NULL;
    inst->magic = INSTANCE3_MAGIC;
    inst->env = instanceEnvironment;
    inst->logger = logMessage;
    inst->name = copy(instanceName && *instanceName ? instanceName : "?");
    inst->logging_on = loggingOn;
    inst->visible = visible;
    inst->state = S3_INSTANTIATED;
    plat_pin_self(); /* Python keeps pointers into this code: a host that unloads it must not unmap it */
    if (!instanceName || !*instanceName) {
        ERR3(inst, "%s: instanceName must be a non-empty string", call);
        goto fail;
    }
    if (eventModeUsed) {
        ERR3(inst, "%s: eventModeUsed = true, but this FMU has no event mode (hasEventMode = false)", call);
        goto fail;
    }
    if (nRequiredIntermediateVariables > 0) {
        ERR3(inst, "%s: %zu required intermediate variables, but this FMU offers no intermediate update", call,
             nRequiredIntermediateVariables);
        goto fail;
    }
    inst->resources = resource_dir(resourcePath);
    if (!inst->resources) {
        ERR3(inst, "%s: resourcePath = %s is not the FMU's resources folder", call, resourcePath ? resourcePath : "NULL");
        goto fail;
    }
    if (!model_token(inst->resources, value, sizeof value)) {
        ERR3(inst, "%s: no instantiationToken in %s/../modelDescription.xml nor in %s/%s (resourcePath not the "
                   "FMU's resources folder?)", call, inst->resources, inst->resources, TOKEN_FILE);
        goto fail;
    }
    if (!instantiationToken || strcmp(instantiationToken, value) != 0) {
        ERR3(inst, "%s: instantiationToken = %s does not match this FMU's %s (a modelDescription.xml from another "
                   "FMU or build?)", call, instantiationToken ? instantiationToken : "NULL", value);
        goto fail;
    }
    inst->token = copy(value);
    char *record = read_text(inst->resources, RECORD_FILE);
    if (record && record_value(record, "module", 0, value, sizeof value)) {
        inst->module = copy(value);
    } else {
        char *line = read_text(inst->resources, "slavemodule.txt");
        if (line)
            line[strcspn(line, "\r\n")] = '\0';
        inst->module = line;
    }
    if (record && record_value(record, "class", 0, value, sizeof value)) {
        inst->class_name = copy(value);
    } else {
        plat_own_stem(value, sizeof value);
        inst->class_name = copy(value);
    }
    if (!inst->module || !*inst->module) {
        ERR3(inst, "%s: neither %s nor slavemodule.txt in %s names the slave module", call, RECORD_FILE,
             inst->resources);
        free(record);
        goto fail;
    }
    inst->py = py_api(record, why, sizeof why);
    if (!inst->py) {
        ERR3(inst, "%s: no usable Python for %s: %s", call, inst->class_name, why);
        free(record);
        goto fail;
    }
    PyGILState_STATE g = enter3(inst);
    int ok = py_meets_needs(inst->py, record, why, sizeof why);
    free(record);
    if (!ok)
        ERR3(inst, "%s: %s", call, why);
    ok = ok && construct_slave(inst, call) && build_var_table3(inst);
    if (!ok && inst->slave) {
        inst->py->DecRef(inst->slave);
        inst->py->DecRef(inst->log_queue);
        inst->slave = inst->log_queue = NULL;
    }
    leave3(inst, g);
    if (ok)
        return inst;
fail:
    free_instance_memory(inst);
    return NULL;
}

FMI3_EXPORT void fmi3FreeInstance(fmi3Instance c)
{
    Instance3 *inst = c;
    if (!inst || inst->magic != INSTANCE3_MAGIC)
        return;
    if (inst->slave) {
        PyGILState_STATE g = enter3(inst);
        forward_slave_log3(inst);
        inst->py->DecRef(inst->slave); /* once each: the instance owns one reference of both */
        inst->py->DecRef(inst->log_queue);
        inst->slave = inst->log_queue = NULL;
        inst->py->Err_Clear();
        py_leave(inst->py, g);
    }
    free_instance_memory(inst);
}

/* ---- the co-simulation state machine ---------------------------------------------------------- */

/* A slave call without arguments whose success moves the instance to `next`; on failure the state stays
 * (the host may correct the cause and call again). */
static fmi3Status transition(fmi3Instance c, const char *call, int allowed, const char *method, int next)
{
    Instance3 *inst = checked3(c, call, allowed);
    if (!inst)
        return fmi3Error;
    PyGILState_STATE g = enter3(inst);
    PyObject *r = call_slave3(inst, call, method, NULL);
    inst->py->DecRef(r);
    leave3(inst, g);
    if (!r)
        return fmi3Error;
    inst->state = next;
    return fmi3OK;
}

/* FMI 3.0 merges fmi2SetupExperiment into this call: the slave gets setup_experiment(start_time) (pythonfmu3's
 * signature) and then enter_initialization_mode(). */
FMI3_EXPORT fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                                   fmi3Float64 startTime, fmi3Boolean stopTimeDefined,
                                                   fmi3Float64 stopTime)
{
    const char *call = "fmi3EnterInitializationMode";
    Instance3 *inst = checked3(c, call, S3_INSTANTIATED);
    if (!inst)
        return fmi3Error;
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime)) ||
        (toleranceDefined && !(tolerance > 0.0))) {
        ERR3(inst, "%s: startTime = %g s must be finite, stopTime = %g s (if defined) >= startTime, tolerance = %g "
                   "(if defined) > 0", call, startTime, stopTime, tolerance);
        return fmi3Error;
    }
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter3(inst);
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, py->Float_FromDouble(startTime));
    PyObject *r = call_slave3(inst, call, "setup_experiment", args);
    py->DecRef(r);
    PyObject *r2 = r ? call_slave3(inst, call, "enter_initialization_mode", NULL) : NULL;
    py->DecRef(r2);
    leave3(inst, g);
    if (!r2)
        return fmi3Error;
    inst->time = startTime;
    inst->state = S3_INIT;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3ExitInitializationMode(fmi3Instance c)
{
    /* eventModeUsed is refused at instantiation, so the instance goes straight to Step Mode */
    return transition(c, "fmi3ExitInitializationMode", S3_INIT, "exit_initialization_mode", S3_STEP);
}

FMI3_EXPORT fmi3Status fmi3Terminate(fmi3Instance c)
{
    return transition(c, "fmi3Terminate", S3_INIT | S3_STEP, "terminate", S3_TERMINATED);
}

FMI3_EXPORT fmi3Status fmi3Reset(fmi3Instance c)
{
    Instance3 *inst = checked3(c, "fmi3Reset", S3_ANY);
    if (!inst)
        return fmi3Error;
    PyGILState_STATE g = enter3(inst);
    /* pythonfmu3 has no reset of its own: a new slave object replaces the old one; when that fails the old
     * one stays, with its state. */
    PyObject *old = inst->slave, *old_queue = inst->log_queue;
    inst->py->IncRef(old);
    if (old_queue)
        inst->py->IncRef(old_queue);
    int ok = construct_slave(inst, "fmi3Reset") && build_var_table3(inst);
    if (!ok && inst->slave != old) {
        inst->py->DecRef(inst->slave);
        inst->py->DecRef(inst->log_queue);
        inst->slave = old;
        inst->log_queue = old_queue;
    } else {
        inst->py->DecRef(old);
        inst->py->DecRef(old_queue);
    }
    leave3(inst, g);
    if (!ok)
        return fmi3Error;
    inst->state = S3_INSTANTIATED;
    inst->time = 0.0;
    return fmi3OK;
}
