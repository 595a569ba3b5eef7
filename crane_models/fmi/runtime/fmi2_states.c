/* The project's FMI 2.0 runtime: saved FMU states (get/set/free, serialize with the host's buffer size
 * checked, deserialize through the slave's own decoder). See fmi2_runtime.c and docs/fmi-runtime.md. */
#define _POSIX_C_SOURCE 200809L
#include "runtime.h"

#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* ---- saved FMU states ------------------------------------------------------------------------------ */

#define STATE_MAGIC 0x53544154u /* "STAT" */

typedef struct {
    unsigned magic;
    char *guid;      /* the FMU the state belongs to: a state of another FMU is refused */
    PyObject *value; /* what slave._get_fmu_state() returned */
    PyObject *bytes; /* slave._fmu_state_to_bytes(value), computed on demand */
} SavedState;

static SavedState *saved_state(Instance *inst, const char *call, fmi2FMUstate s)
{
    SavedState *st = s;
    if (!st || st->magic != STATE_MAGIC) {
        LOG_ERROR(inst, "%s: FMUstate is not a state made by this runtime's fmi2GetFMUstate or "
                        "fmi2DeSerializeFMUstate (or it was freed)", call);
        return NULL;
    }
    if (strcmp(st->guid, inst->guid) != 0) {
        LOG_ERROR(inst, "%s: FMUstate belongs to the FMU with guid %s, not to this one (%s)", call, st->guid,
                  inst->guid);
        return NULL;
    }
    return st;
}

static SavedState *new_state(Instance *inst, PyObject *value)
{
    SavedState *st = calloc(1, sizeof *st);
    if (st) {
        st->magic = STATE_MAGIC;
        st->guid = strdup(inst->guid);
        st->value = value;
    }
    return st;
}

FMI2_EXPORT fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    Instance *inst = checked(c, "fmi2GetFMUstate", ST_ANY_USABLE);
    if (!inst)
        return fmi2Error;
    if (!FMUstate) {
        LOG_ERROR(inst, "fmi2GetFMUstate: FMUstate is NULL");
        return fmi2Error;
    }
    SavedState *old = NULL;
    if (*FMUstate && !(old = saved_state(inst, "fmi2GetFMUstate", *FMUstate)))
        return fmi2Error; /* non-NULL: a state to overwrite, which must be ours */
    PyGILState_STATE g = enter(inst);
    PyObject *value = call_slave(inst, "fmi2GetFMUstate", "_get_fmu_state", NULL);
    SavedState *st = NULL;
    if (value && old) {
        inst->py->DecRef(old->value);
        inst->py->DecRef(old->bytes);
        old->value = value;
        old->bytes = NULL;
        st = old;
    } else if (value && !(st = new_state(inst, value))) {
        inst->py->DecRef(value);
    }
    leave(inst, g);
    if (!st)
        return fmi2Error;
    *FMUstate = st;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
    Instance *inst = checked(c, "fmi2SetFMUstate", ST_ANY_USABLE);
    SavedState *st = inst ? saved_state(inst, "fmi2SetFMUstate", FMUstate) : NULL;
    if (!st)
        return fmi2Error;
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter(inst);
    PyObject *args = py->Tuple_New(1);
    py->IncRef(st->value);
    py->Tuple_SetItem(args, 0, st->value);
    PyObject *r = call_slave(inst, "fmi2SetFMUstate", "_set_fmu_state", args);
    py->DecRef(r);
    leave(inst, g);
    return r ? fmi2OK : fmi2Error;
}

FMI2_EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
    Instance *inst = checked(c, "fmi2FreeFMUstate", ST_ANY_USABLE | ST_BROKEN);
    if (!inst)
        return fmi2Error;
    if (!FMUstate || !*FMUstate)
        return fmi2OK; /* nothing to free */
    SavedState *st = saved_state(inst, "fmi2FreeFMUstate", *FMUstate);
    if (!st)
        return fmi2Error;
    PyGILState_STATE g = enter(inst);
    inst->py->DecRef(st->value);
    inst->py->DecRef(st->bytes);
    leave(inst, g);
    st->magic = 0;
    free(st->guid);
    free(st);
    *FMUstate = NULL;
    return fmi2OK;
}

/* The state's bytes (cached), or NULL with the exception logged. Called with the GIL held. */
static PyObject *state_bytes(Instance *inst, const char *call, SavedState *st)
{
    const PyApi *py = inst->py;
    if (!st->bytes) {
        PyObject *args = py->Tuple_New(1);
        py->IncRef(st->value);
        py->Tuple_SetItem(args, 0, st->value);
        PyObject *b = call_slave(inst, call, "_fmu_state_to_bytes", args);
        char *data;
        Py_ssize_t n;
        if (b && py->Bytes_AsStringAndSize(b, &data, &n) != 0) {
            py->Err_Clear();
            LOG_ERROR(inst, "%s: slave._fmu_state_to_bytes did not return bytes", call);
            py->DecRef(b);
            b = NULL;
        }
        st->bytes = b;
    }
    return st->bytes;
}

FMI2_EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
    Instance *inst = checked(c, "fmi2SerializedFMUstateSize", ST_ANY_USABLE);
    SavedState *st = inst ? saved_state(inst, "fmi2SerializedFMUstateSize", FMUstate) : NULL;
    if (!st)
        return fmi2Error;
    if (!size) {
        LOG_ERROR(inst, "fmi2SerializedFMUstateSize: size is NULL");
        return fmi2Error;
    }
    PyGILState_STATE g = enter(inst);
    PyObject *b = state_bytes(inst, "fmi2SerializedFMUstateSize", st);
    char *data;
    Py_ssize_t n = 0;
    if (b)
        inst->py->Bytes_AsStringAndSize(b, &data, &n);
    leave(inst, g);
    if (!b)
        return fmi2Error;
    *size = (size_t)n;
    return fmi2OK;
}

FMI2_EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                             size_t size)
{
    Instance *inst = checked(c, "fmi2SerializeFMUstate", ST_ANY_USABLE);
    SavedState *st = inst ? saved_state(inst, "fmi2SerializeFMUstate", FMUstate) : NULL;
    if (!st)
        return fmi2Error;
    if (!serializedState) {
        LOG_ERROR(inst, "fmi2SerializeFMUstate: serializedState is NULL");
        return fmi2Error;
    }
    fmi2Status status = fmi2Error;
    PyGILState_STATE g = enter(inst);
    PyObject *b = state_bytes(inst, "fmi2SerializeFMUstate", st);
    char *data;
    Py_ssize_t n;
    if (b && inst->py->Bytes_AsStringAndSize(b, &data, &n) == 0) {
        if ((size_t)n > size) {
            LOG_ERROR(inst, "fmi2SerializeFMUstate: size = %zu bytes is smaller than the state (%zd bytes, "
                            "from fmi2SerializedFMUstateSize)", size, n);
        } else {
            memcpy(serializedState, data, (size_t)n); /* only the state's bytes, whatever the buffer's size */
            status = fmi2OK;
        }
    }
    leave(inst, g);
    return status;
}

FMI2_EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                               fmi2FMUstate *FMUstate)
{
    Instance *inst = checked(c, "fmi2DeSerializeFMUstate", ST_ANY_USABLE);
    if (!inst)
        return fmi2Error;
    if (!FMUstate || (size > 0 && !serializedState) || size > (size_t)PTRDIFF_MAX) {
        LOG_ERROR(inst, "fmi2DeSerializeFMUstate: FMUstate or serializedState is NULL (size = %zu)", size);
        return fmi2Error;
    }
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter(inst);
    /* The slave decodes the bytes (and refuses foreign or corrupt ones); the instance is not touched
     * until the host calls fmi2SetFMUstate with the result. */
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, py->Bytes_FromStringAndSize(serializedState ? serializedState : "", (Py_ssize_t)size));
    PyObject *value = call_slave(inst, "fmi2DeSerializeFMUstate", "_fmu_state_from_bytes", args);
    SavedState *st = value ? new_state(inst, value) : NULL;
    if (value && !st)
        py->DecRef(value);
    leave(inst, g);
    if (!st)
        return fmi2Error;
    *FMUstate = st;
    return fmi2OK;
}
