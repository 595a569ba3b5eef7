/* CPython reached through dlsym / GetProcAddress: the few stable-ABI functions the runtime calls, so that
 * the binary has no link-time dependency on libpython and works with whichever CPython the host runs, or with one
 * found where the FMU is loaded (CRANE_COSIM_PYTHON, the usual places: pysearch.h) that is as new as the FMU's
 * record asks and has the packages it names. */
#ifndef CRANE_PYAPI_H
#define CRANE_PYAPI_H

#include <stddef.h>

#include "pysearch.h" /* record_value */

typedef struct _object PyObject;  /* opaque: only pointers cross this interface */
typedef ptrdiff_t Py_ssize_t;
typedef int PyGILState_STATE;     /* an enum in CPython: int-sized */
typedef struct _ts PyThreadState;

typedef struct {
    const char *(*GetVersion)(void); /* "3.12.1 (main, ...)": callable before initialization */
    int (*IsInitialized)(void);
    void (*InitializeEx)(int);
    PyGILState_STATE (*GILState_Ensure)(void);
    void (*GILState_Release)(PyGILState_STATE);
    PyThreadState *(*Eval_SaveThread)(void);
    void (*Eval_RestoreThread)(PyThreadState *);
    void (*Eval_ReleaseThread)(PyThreadState *);
    PyThreadState *(*GILState_GetThisThreadState)(void);
    void (*ThreadState_Clear)(PyThreadState *);
    void (*ThreadState_Delete)(PyThreadState *);
    PyObject *(*Import_ImportModule)(const char *);
    PyObject *(*Object_GetAttrString)(PyObject *, const char *);
    int (*Object_SetAttrString)(PyObject *, const char *, PyObject *);
    PyObject *(*Object_Call)(PyObject *, PyObject *, PyObject *);
    PyObject *(*Object_CallObject)(PyObject *, PyObject *);
    PyObject *(*Object_Str)(PyObject *);
    int (*Object_IsTrue)(PyObject *);
    int (*Object_IsInstance)(PyObject *, PyObject *);
    PyObject *(*Object_GetItem)(PyObject *, PyObject *);
    Py_ssize_t (*Object_Size)(PyObject *);
    int (*Mapping_HasKeyString)(PyObject *, const char *);
    void (*DecRef)(PyObject *);
    void (*IncRef)(PyObject *);
    PyObject *(*Float_FromDouble)(double);
    double (*Float_AsDouble)(PyObject *);
    PyObject *(*Long_FromLong)(long);
    PyObject *(*Long_FromVoidPtr)(void *);
    long (*Long_AsLong)(PyObject *);
    PyObject *(*Bool_FromLong)(long);
    PyObject *(*List_New)(Py_ssize_t);
    Py_ssize_t (*List_Size)(PyObject *);
    PyObject *(*List_GetItem)(PyObject *, Py_ssize_t);      /* borrowed */
    int (*List_SetItem)(PyObject *, Py_ssize_t, PyObject *); /* steals */
    int (*List_SetSlice)(PyObject *, Py_ssize_t, Py_ssize_t, PyObject *);
    int (*List_Insert)(PyObject *, Py_ssize_t, PyObject *);
    PyObject *(*Sequence_GetItem)(PyObject *, Py_ssize_t);
    Py_ssize_t (*Sequence_Size)(PyObject *);
    PyObject *(*Tuple_New)(Py_ssize_t);
    int (*Tuple_SetItem)(PyObject *, Py_ssize_t, PyObject *); /* steals */
    PyObject *(*Dict_New)(void);
    int (*Dict_SetItemString)(PyObject *, const char *, PyObject *);
    PyObject *(*Bytes_FromStringAndSize)(const char *, Py_ssize_t);
    int (*Bytes_AsStringAndSize)(PyObject *, char **, Py_ssize_t *);
    PyObject *(*Unicode_FromString)(const char *);
    const char *(*Unicode_AsUTF8AndSize)(PyObject *, Py_ssize_t *);
    PyObject *(*Err_Occurred)(void);
    void (*Err_Fetch)(PyObject **, PyObject **, PyObject **);
    void (*Err_Clear)(void);
    PyObject *None;
} PyApi;

/* The resolved API, or NULL with a message in `why` (what was looked for, how to point elsewhere).
 * `record` is the FMU's runtime record (resources/crane_cosim_runtime.txt, may be NULL): a Python the runtime
 * starts itself must be as new as it asks. The first successful call fixes the interpreter for the process
 * (documented process-wide state: there is one CPython per process). On success the calling thread does not
 * hold the GIL. */
const PyApi *py_api(const char *record, char *why, size_t why_size);

/* With the GIL held: 1 when the Python in use is as new as the record asks and imports each package it names, in
 * the version it names; else 0 with `why` saying which Python lacks what and what to do. */
int py_meets_needs(const PyApi *py, const char *record, char *why, size_t why_size);

/* Enter/leave Python from any host thread. The first entry in a thread creates its thread state and
 * keeps it for the thread's life (no create/destroy per call). */
PyGILState_STATE py_enter(const PyApi *py);
void py_leave(const PyApi *py, PyGILState_STATE g);

/* With the GIL held: imports `module` (a new reference, NULL with the exception pending) from `folder`, put at the
 * front of sys.path for this import only and taken out again, so that the host's sys.path is as it was: the FMU's
 * modules carry names of their own (the build's namespace, pythonfmu's copy included) and, once imported, are found
 * through sys.modules and their packages' __path__. */
PyObject *py_import_from(const PyApi *py, const char *folder, const char *module);

/* With the GIL held: the `variables` module of the pythonfmu (pythonfmu3) the slave derives from -- inside an FMU
 * its own copy, imported under the build's namespace (`<namespace>_pythonfmu`, build.builder_in_namespace), not a
 * pythonfmu the host may have: found from the module of the class named `base` ("Fmi2Slave", "Fmi3Slave") in the
 * slave's MRO; `<library>.variables` when there is none. A new reference, NULL with the exception pending. */
PyObject *py_variables_module(const PyApi *py, PyObject *slave, const char *base, const char *library);

/* The pending exception as "Type: message" into buf (cleared afterwards); "" when none. */
void py_error_text(const PyApi *py, char *buf, size_t size);

#endif
