/* The FMI 3.0 runtime: saved FMU states (get/set/free, serialize with the host's buffer size checked,
 * deserialize through the slave's own decoder, which refuses foreign and corrupt bytes). The Python state
 * format is the slave's (_get_fmu_state / _fmu_state_to_bytes / _fmu_state_from_bytes), as in the FMI 2.0
 * runtime. See fmi3_runtime.c and docs/fmi-runtime.md. */
#define _POSIX_C_SOURCE 200809L
#include "fmi3_runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STATE3_MAGIC 0x53544133u /* "STA3" */

typedef struct {
    unsigned magic;
    char *token;     /* the FMU the state belongs to: a state of another FMU is refused */
    PyObject *value; /* what slave._get_fmu_state() returned */
    PyObject *bytes; /* slave._fmu_state_to_bytes(value), computed on demand */
} SavedState3;

static SavedState3 *saved_state(Instance3 *inst, const char *call, fmi3FMUState s)
{
    SavedState3 *st = s;
    if (!st || st->magic != STATE3_MAGIC) {
        ERR3(inst, "%s: FMUState is not a state made by this runtime's fmi3GetFMUState or fmi3DeserializeFMUState "
                   "(or it was freed)", call);
        return NULL;
    }
    if (strcmp(st->token, inst->token) != 0) {
        ERR3(inst, "%s: FMUState belongs to the FMU with instantiationToken %s, not to this one (%s)", call, st->token,
             inst->token);
        return NULL;
    }
    return st;
}

static SavedState3 *new_state(Instance3 *inst, PyObject *value)
{
    SavedState3 *st = calloc(1, sizeof *st);
    if (st) {
        st->magic = STATE3_MAGIC;
        st->token = strdup(inst->token);
        st->value = value;
    }
    return st;
}

FMI3_EXPORT fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    Instance3 *inst = checked3(c, "fmi3GetFMUState", S3_ANY);
    if (!inst)
        return fmi3Error;
    if (!FMUState) {
        ERR3(inst, "fmi3GetFMUState: FMUState is NULL");
        return fmi3Error;
    }
    SavedState3 *old = NULL;
    if (*FMUState && !(old = saved_state(inst, "fmi3GetFMUState", *FMUState)))
        return fmi3Error; /* non-NULL: a state to overwrite, which must be ours */
    PyGILState_STATE g = enter3(inst);
    PyObject *value = call_slave3(inst, "fmi3GetFMUState", "_get_fmu_state", NULL);
    SavedState3 *st = NULL;
    if (value && old) {
        inst->py->DecRef(old->value);
        inst->py->DecRef(old->bytes);
        old->value = value;
        old->bytes = NULL;
        st = old;
    } else if (value && !(st = new_state(inst, value))) {
        inst->py->DecRef(value);
    }
    leave3(inst, g);
    if (!st)
        return fmi3Error;
    *FMUState = st;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState)
{
    Instance3 *inst = checked3(c, "fmi3SetFMUState", S3_ANY);
    SavedState3 *st = inst ? saved_state(inst, "fmi3SetFMUState", FMUState) : NULL;
    if (!st)
        return fmi3Error;
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter3(inst);
    PyObject *args = py->Tuple_New(1);
    py->IncRef(st->value);
    py->Tuple_SetItem(args, 0, st->value);
    PyObject *r = call_slave3(inst, "fmi3SetFMUState", "_set_fmu_state", args);
    py->DecRef(r);
    leave3(inst, g);
    return r ? fmi3OK : fmi3Error;
}

FMI3_EXPORT fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState *FMUState)
{
    Instance3 *inst = checked3(c, "fmi3FreeFMUState", S3_ANY);
    if (!inst)
        return fmi3Error;
    if (!FMUState || !*FMUState)
        return fmi3OK; /* nothing to free */
    SavedState3 *st = saved_state(inst, "fmi3FreeFMUState", *FMUState);
    if (!st)
        return fmi3Error;
    PyGILState_STATE g = enter3(inst);
    inst->py->DecRef(st->value);
    inst->py->DecRef(st->bytes);
    leave3(inst, g);
    st->magic = 0;
    free(st->token);
    free(st);
    *FMUState = NULL;
    return fmi3OK;
}

/* The state's bytes (cached) with their length, or NULL with the failure logged. GIL held. */
static PyObject *state_bytes(Instance3 *inst, const char *call, SavedState3 *st, char **data, Py_ssize_t *n)
{
    const PyApi *py = inst->py;
    if (!st->bytes) {
        PyObject *args = py->Tuple_New(1);
        py->IncRef(st->value);
        py->Tuple_SetItem(args, 0, st->value);
        st->bytes = call_slave3(inst, call, "_fmu_state_to_bytes", args);
    }
    if (st->bytes && py->Bytes_AsStringAndSize(st->bytes, data, n) != 0) {
        py->Err_Clear();
        ERR3(inst, "%s: slave._fmu_state_to_bytes did not return bytes", call);
        py->DecRef(st->bytes);
        st->bytes = NULL;
    }
    return st->bytes;
}

FMI3_EXPORT fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t *size)
{
    Instance3 *inst = checked3(c, "fmi3SerializedFMUStateSize", S3_ANY);
    SavedState3 *st = inst ? saved_state(inst, "fmi3SerializedFMUStateSize", FMUState) : NULL;
    if (!st)
        return fmi3Error;
    if (!size) {
        ERR3(inst, "fmi3SerializedFMUStateSize: size is NULL");
        return fmi3Error;
    }
    PyGILState_STATE g = enter3(inst);
    char *data;
    Py_ssize_t n = 0;
    PyObject *b = state_bytes(inst, "fmi3SerializedFMUStateSize", st, &data, &n);
    leave3(inst, g);
    if (!b)
        return fmi3Error;
    *size = (size_t)n;
    return fmi3OK;
}

FMI3_EXPORT fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                             size_t size)
{
    Instance3 *inst = checked3(c, "fmi3SerializeFMUState", S3_ANY);
    SavedState3 *st = inst ? saved_state(inst, "fmi3SerializeFMUState", FMUState) : NULL;
    if (!st)
        return fmi3Error;
    if (!serializedState) {
        ERR3(inst, "fmi3SerializeFMUState: serializedState is NULL");
        return fmi3Error;
    }
    fmi3Status status = fmi3Error;
    PyGILState_STATE g = enter3(inst);
    char *data;
    Py_ssize_t n;
    if (state_bytes(inst, "fmi3SerializeFMUState", st, &data, &n)) {
        if ((size_t)n > size) {
            ERR3(inst, "fmi3SerializeFMUState: size = %zu bytes is smaller than the state (%zd bytes, from "
                       "fmi3SerializedFMUStateSize)", size, n);
        } else {
            memcpy(serializedState, data, (size_t)n); /* only the state's bytes, whatever the buffer's size */
            status = fmi3OK;
        }
    }
    leave3(inst, g);
    return status;
}

FMI3_EXPORT fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState *FMUState)
{
    Instance3 *inst = checked3(c, "fmi3DeserializeFMUState", S3_ANY);
    if (!inst)
        return fmi3Error;
    if (!FMUState || (size > 0 && !serializedState) || size > (size_t)PTRDIFF_MAX) {
        ERR3(inst, "fmi3DeserializeFMUState: FMUState or serializedState is NULL (size = %zu)", size);
        return fmi3Error;
    }
    const PyApi *py = inst->py;
    PyGILState_STATE g = enter3(inst);
    /* The slave decodes the bytes (and refuses foreign or corrupt ones); the instance is not touched until
     * the host calls fmi3SetFMUState with the result. */
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, py->Bytes_FromStringAndSize(serializedState ? (const char *)serializedState : "",
                                                           (Py_ssize_t)size));
    PyObject *value = call_slave3(inst, "fmi3DeserializeFMUState", "_fmu_state_from_bytes", args);
    SavedState3 *st = value ? new_state(inst, value) : NULL;
    if (value && !st)
        py->DecRef(value);
    leave3(inst, g);
    if (!st)
        return fmi3Error;
    *FMUState = st;
    return fmi3OK;
}
