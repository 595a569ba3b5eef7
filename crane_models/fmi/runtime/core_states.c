/* The core's saved FMU states: get/set/free, serialize with the host's buffer size checked, deserialize through
 * the slave's own decoder (which refuses foreign and corrupt bytes). The state's content is the slave's
 * (_get_fmu_state / _fmu_state_to_bytes / _fmu_state_from_bytes). See core.h and docs/fmi-runtime.md. */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAGIC 0x53544154u /* "STAT" */

typedef struct {
    unsigned magic;
    char *id;        /* the FMU the state belongs to (GUID or token): a state of another FMU is refused */
    PyObject *value; /* what slave._get_fmu_state() returned */
    PyObject *bytes; /* slave._fmu_state_to_bytes(value), computed on demand */
} SavedState;

static SavedState *saved_state(Core *core, const char *call, void *s)
{
    const CoreStandard *std = core->std;
    SavedState *st = s;
    if (!st || st->magic != STATE_MAGIC) {
        CORE_ERR(core, "%s: %s is not a state made by this runtime's %s or %s (or it was freed)", call,
                 std->state_type, std->get_state_call, std->deserialize_call);
        return NULL;
    }
    if (strcmp(st->id, core->id) != 0) {
        CORE_ERR(core, "%s: %s belongs to the FMU with %s %s, not to this one (%s)", call, std->state_type,
                 std->id_name, st->id, core->id);
        return NULL;
    }
    return st;
}

static SavedState *new_state(Core *core, PyObject *value)
{
    SavedState *st = calloc(1, sizeof *st);
    if (st) {
        st->magic = STATE_MAGIC;
        st->id = strdup(core->id);
        st->value = value;
    }
    return st;
}

CoreStatus core_get_state(Core *core, const char *call, void **state)
{
    if (!core)
        return CORE_ERROR;
    if (!state) {
        CORE_ERR(core, "%s: %s is NULL", call, core->std->state_type);
        return CORE_ERROR;
    }
    SavedState *old = NULL;
    if (*state && !(old = saved_state(core, call, *state)))
        return CORE_ERROR; /* non-NULL: a state to overwrite, which must be ours */
    PyGILState_STATE g = core_enter(core);
    PyObject *value = core_call_slave(core, call, "_get_fmu_state", NULL);
    SavedState *st = NULL;
    if (value && old) {
        core->py->DecRef(old->value);
        core->py->DecRef(old->bytes);
        old->value = value;
        old->bytes = NULL;
        st = old;
    } else if (value && !(st = new_state(core, value))) {
        core->py->DecRef(value);
    }
    core_leave(core, g);
    if (!st)
        return CORE_ERROR;
    *state = st;
    return CORE_OK;
}

/* slave.<method>(value) for a saved state's value: a new reference or NULL (logged). GIL held. */
static PyObject *call_with_value(Core *core, const char *call, const char *method, SavedState *st)
{
    PyObject *args = core->py->Tuple_New(1);
    core->py->IncRef(st->value);
    core->py->Tuple_SetItem(args, 0, st->value);
    return core_call_slave(core, call, method, args);
}

CoreStatus core_set_state(Core *core, const char *call, void *state)
{
    SavedState *st = core ? saved_state(core, call, state) : NULL;
    if (!st)
        return CORE_ERROR;
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    PyObject *r = call_with_value(core, call, "_set_fmu_state", st);
    /* A slave that says which time the restored state has (the adapter returns it; pythonfmu's base class returns
     * None) sets the instance's time: lastSuccessfulTime and the next step's time check then follow the state,
     * not the step before the restore. */
    if (r && r != py->None) {
        double t = py->Float_AsDouble(r);
        if (t == -1.0 && py->Err_Occurred())
            py->Err_Clear();
        else if (isfinite(t))
            core->time = t;
    }
    py->DecRef(r);
    core_leave(core, g);
    if (r && core->table) /* the slave put the state's values into the table: its outputs are published anew */
        core->table->stale = 1;
    return r ? CORE_OK : CORE_ERROR;
}

CoreStatus core_free_state(Core *core, const char *call, void **state)
{
    if (!core)
        return CORE_ERROR;
    if (!state || !*state)
        return CORE_OK; /* nothing to free */
    SavedState *st = saved_state(core, call, *state);
    if (!st)
        return CORE_ERROR;
    PyGILState_STATE g = core_enter(core);
    core->py->DecRef(st->value);
    core->py->DecRef(st->bytes);
    core_leave(core, g);
    st->magic = 0;
    free(st->id);
    free(st);
    *state = NULL;
    return CORE_OK;
}

/* The state's bytes (cached) with their length, or NULL with the failure logged. GIL held. */
static PyObject *state_bytes(Core *core, const char *call, SavedState *st, char **data, Py_ssize_t *n)
{
    const PyApi *py = core->py;
    if (!st->bytes)
        st->bytes = call_with_value(core, call, "_fmu_state_to_bytes", st);
    if (st->bytes && py->Bytes_AsStringAndSize(st->bytes, data, n) != 0) {
        py->Err_Clear();
        CORE_ERR(core, "%s: slave._fmu_state_to_bytes did not return bytes", call);
        py->DecRef(st->bytes);
        st->bytes = NULL;
    }
    return st->bytes;
}

CoreStatus core_state_size(Core *core, const char *call, void *state, size_t *size)
{
    SavedState *st = core ? saved_state(core, call, state) : NULL;
    if (!st)
        return CORE_ERROR;
    if (!size) {
        CORE_ERR(core, "%s: size is NULL", call);
        return CORE_ERROR;
    }
    PyGILState_STATE g = core_enter(core);
    char *data;
    Py_ssize_t n = 0;
    PyObject *b = state_bytes(core, call, st, &data, &n);
    core_leave(core, g);
    if (!b)
        return CORE_ERROR;
    *size = (size_t)n;
    return CORE_OK;
}

CoreStatus core_serialize_state(Core *core, const char *call, void *state, void *buffer, size_t size)
{
    SavedState *st = core ? saved_state(core, call, state) : NULL;
    if (!st)
        return CORE_ERROR;
    if (!buffer) {
        CORE_ERR(core, "%s: serializedState is NULL", call);
        return CORE_ERROR;
    }
    CoreStatus status = CORE_ERROR;
    PyGILState_STATE g = core_enter(core);
    char *data;
    Py_ssize_t n;
    if (state_bytes(core, call, st, &data, &n)) {
        if ((size_t)n > size) {
            CORE_ERR(core, "%s: size = %zu bytes is smaller than the state (%zd bytes, from the serialized size)",
                     call, size, n);
        } else {
            memcpy(buffer, data, (size_t)n); /* only the state's bytes, whatever the buffer's size */
            status = CORE_OK;
        }
    }
    core_leave(core, g);
    return status;
}

CoreStatus core_deserialize_state(Core *core, const char *call, const void *bytes, size_t size, void **state)
{
    if (!core)
        return CORE_ERROR;
    if (!state || (size > 0 && !bytes) || size > (size_t)PTRDIFF_MAX) {
        CORE_ERR(core, "%s: %s or serializedState is NULL (size = %zu)", call, core->std->state_type, size);
        return CORE_ERROR;
    }
    const PyApi *py = core->py;
    PyGILState_STATE g = core_enter(core);
    /* The slave decodes the bytes (and refuses foreign or corrupt ones); the instance is not touched until the
     * host sets the state it gets. */
    PyObject *args = py->Tuple_New(1);
    py->Tuple_SetItem(args, 0, py->Bytes_FromStringAndSize(bytes ? (const char *)bytes : "", (Py_ssize_t)size));
    PyObject *value = core_call_slave(core, call, "_fmu_state_from_bytes", args);
    SavedState *st = value ? new_state(core, value) : NULL;
    if (value && !st)
        py->DecRef(value);
    core_leave(core, g);
    if (!st)
        return CORE_ERROR;
    *state = st;
    return CORE_OK;
}
